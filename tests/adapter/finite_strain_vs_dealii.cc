// A finite-strain MechanicsOperator (enable_finite_strain(); compressible
// neo-Hookean, isochoric neo-Hookean and Mooney-Rivlin in three materials)
// against an independent deal.II reference on a distorted box with a clamped face and
// a partly fixed one: the internal force f_int(u) = sum B^T P JxW from
// FEValues and deal.II tensors (P written with deal.II's determinant(),
// invert() and transpose()), and the tangent matrix assembled from central
// differences of that deal.II cell residual, in every strategy, cell kernel
// and thread mapping that takes finite strain; also the diagonal, the
// refusal of the element-matrix kernel and of plasticity, no inverted
// points, the small-strain limit (f_int(s u) = K_elastic s u for s = 1e-7),
// zero force under a rigid rotation of 90 degrees, and the elastic operator
// after disable_finite_strain(). Run with 1 and 2 MPI ranks.

// Test: ranks 1 2
#include <deal.II/base/function.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/sparsity_tools.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/finite_strain_state.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>

#include "finite_strain_reference.h"
#include "operator_variants.h"
#include "box_mesh.h"
#include "q1_dofs.h"
#include "test_environment.h"

#include <cmath>

using namespace dealii;
using HostVector = LinearAlgebra::distributed::Vector<double>;

namespace
{
  /** A smooth displacement of up to about 10 % of the box (any rank count), zero at constrained DoFs. */
  class Displacement : public Function<3>
  {
  public:
    Displacement(const double scale)
      : Function<3>(3)
      , scale(scale)
    {}

    double
    value(const Point<3> &p, const unsigned int c) const override
    {
      return scale * (c == 0 ? 0.1 * p[0] * std::sin(1.3 * p[1] + 0.4) :
                      c == 1 ? 0.08 * p[0] * std::cos(0.7 * p[2]) + 0.03 * p[1] * p[2] :
                               -0.06 * p[0] * p[0] + 0.02 * std::sin(2. * p[1]));
    }

  private:
    const double scale;
  };

  double
  relative_difference(const HostVector &a, const HostVector &b, const AffineConstraints<double> &constraints,
                      const bool free_rows_only, const MPI_Comm comm)
  {
    return plastix_test::relative_difference(a, b, a.locally_owned_elements(), constraints, comm, free_rows_only);
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    parallel::distributed::Triangulation<3> tria(env.comm);
    plastix_test::make_distorted_box(tria, {3, 2, 2}, Point<3>(1.5, 1., 1.), 1, 0.2, 5);
    plastix_test::set_three_material_ids(tria, 1.5);

    DoFHandler<3>             dof_handler(tria);
    const IndexSet            relevant = plastix_test::distribute_q1_dofs(dof_handler);
    const IndexSet           &owned    = dof_handler.locally_owned_dofs();
    const FiniteElement<3>   &fe       = dof_handler.get_fe();
    AffineConstraints<double> constraints(relevant);
    VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
    VectorTools::interpolate_boundary_values(dof_handler, 5, Functions::ZeroFunction<3>(3), constraints,
                                             fe.component_mask(FEValuesExtractors::Scalar(1)));
    constraints.close();

    const plastix::MaterialTable materials = plastix_test::three_hyperelastic_materials();
    env.pout << "DoFs " << dof_handler.n_dofs() << ", cells " << tria.n_global_active_cells()
             << "; materials: neo-Hookean (E 10, nu 0.3), isochoric neo-Hookean (E 15, nu 0.4), Mooney-Rivlin "
                "(E 20, nu 0.45, mu2 = mu / 4)\n";

    // u and an increment du, zero at constrained DoFs.
    HostVector u(owned, relevant, env.comm), du(owned, relevant, env.comm);
    VectorTools::interpolate(dof_handler, Displacement(1.), u);
    for (const auto i : owned)
      {
        if (constraints.is_constrained(i))
          u(i) = 0;
        du(i) = constraints.is_constrained(i) ? 0. : std::sin(1.7 * i + 0.3) + 0.25 * std::cos(0.11 * i);
      }
    u.update_ghost_values();

    // The deal.II reference: f_int(u) on all rows, the tangent by central differences of the cell residual.
    HostVector f_reference(owned, relevant, env.comm);
    TrilinosWrappers::SparseMatrix tangent;
    {
      DynamicSparsityPattern dsp(relevant);
      DoFTools::make_sparsity_pattern(dof_handler, dsp, constraints, false);
      SparsityTools::distribute_sparsity_pattern(dsp, owned, env.comm, relevant);
      tangent.reinit(owned, owned, dsp, env.comm);
    }
    plastix_test::for_each_reference_cell(
      dof_handler, materials, u,
      [&](const std::vector<types::global_dof_index> &dofs, const Vector<double> &r, const FullMatrix<double> &matrix) {
        for (unsigned int i = 0; i < dofs.size(); ++i)
          f_reference(dofs[i]) += r(i);
        constraints.distribute_local_to_global(matrix, dofs, tangent);
      });
    f_reference.compress(VectorOperation::add);
    tangent.compress(VectorOperation::add);
    HostVector K_du(owned, relevant, env.comm);
    {
      TrilinosWrappers::MPI::Vector src(owned, env.comm), dst(owned, env.comm);
      for (const auto i : owned)
        src(i) = du(i);
      tangent.vmult(dst, src);
      for (const auto i : owned)
        K_du(i) = dst(i);
    }

    for (const auto &variant : plastix_test::all_operator_variants(plastix::backend::ElementFormulation::full))
      {
        plastix::MechanicsOperator op;
        op.reinit(dof_handler, constraints, materials, variant.data);
        if (variant.data.cell_kernel == plastix::backend::CellKernel::element_matrix)
          {
            bool refused = false;
            try
              {
                op.enable_finite_strain();
              }
            catch (const std::invalid_argument &error)
              {
                refused = std::string(error.what()).find("quadrature cell kernel") != std::string::npos;
              }
            checker.check_true(variant.name + ": finite strain refused",
                               Utilities::MPI::min(refused ? 1 : 0, env.comm) == 1);
            continue;
          }
        plastix::FiniteStrainState &state = op.enable_finite_strain();
        plastix::DeviceVector        u_device, f_device, src, dst;
        op.initialize_dof_vector(u_device);
        u_device.copy_from_host(u);
        const unsigned long long inverted = state.update(u_device, f_device);
        checker.check_true(variant.name + ": no inverted points", inverted == 0);
        HostVector f(owned, relevant, env.comm);
        f_device.copy_to_host(f);
        checker.check(variant.name + ": internal force vs deal.II (all rows)",
                      relative_difference(f, f_reference, constraints, false, env.comm), 1e-12);
        op.initialize_dof_vector(src);
        op.initialize_dof_vector(dst);
        src.copy_from_host(du);
        op.vmult(dst, src);
        HostVector result(owned, relevant, env.comm);
        dst.copy_to_host(result);
        checker.check(variant.name + ": tangent vs deal.II's finite-difference matrix (free rows)",
                      relative_difference(result, K_du, constraints, true, env.comm), 1e-7);
        checker.check(variant.name + ": diagonal vs deal.II's finite-difference matrix",
                      plastix_test::diagonal_difference(op, tangent, constraints, env.comm), 1e-7);

        if (variant.data.strategy != plastix::backend::Strategy::ebe_atomic ||
            variant.data.cell_kernel != plastix::backend::CellKernel::stored_geometry ||
            variant.data.thread_mapping != plastix::backend::ThreadMapping::cell)
          continue;

        bool plasticity_refused = false;
        try
          {
            op.enable_plasticity();
          }
        catch (const std::invalid_argument &)
          {
            plasticity_refused = true;
          }
        checker.check_true("a plasticity state is refused while finite strain",
                           Utilities::MPI::min(plasticity_refused ? 1 : 0, env.comm) == 1);

        // The small-strain limit: f_int(s u) = K_elastic (s u) to relative 1e-5 for s = 1e-7.
        {
          HostVector small(owned, relevant, env.comm);
          for (const auto i : owned)
            small(i) = 1e-7 * u(i);
          plastix::DeviceVector small_device, f_small;
          op.initialize_dof_vector(small_device);
          small_device.copy_from_host(small);
          state.internal_force(small_device, f_small);
          plastix::MechanicsOperator elastic;
          elastic.reinit(dof_handler, constraints, materials, variant.data);
          plastix::DeviceVector K_small;
          elastic.initialize_dof_vector(K_small);
          // small is zero at the constrained DoFs: on the free rows, vmult() is the unconstrained product.
          elastic.vmult(K_small, small_device);
          HostVector a(owned, relevant, env.comm), b(owned, relevant, env.comm);
          f_small.copy_to_host(a);
          K_small.copy_to_host(b);
          checker.check("small-strain limit: f_int(1e-7 u) vs the elastic operator (free rows)",
                        relative_difference(a, b, constraints, true, env.comm), 1e-5);
        }

        // A rigid rotation of 90 degrees about (1, 1, 1) / sqrt(3), without constraints: no force.
        {
          AffineConstraints<double> none(relevant);
          none.close();
          plastix::MechanicsOperator free_op;
          free_op.reinit(dof_handler, none, materials, variant.data);
          plastix::FiniteStrainState &free_state = free_op.enable_finite_strain();
          // R = n (x) n + [n]_x, Rodrigues' formula at 90 degrees.
          const double r    = 1 / std::sqrt(3.);
          const double n[3] = {r, r, r};
          Tensor<2, 3> R;
          for (unsigned int i = 0; i < 3; ++i)
            for (unsigned int j = 0; j < 3; ++j)
              R[i][j] = n[i] * n[j];
          R[0][1] -= n[2];
          R[1][0] += n[2];
          R[0][2] += n[1];
          R[2][0] -= n[1];
          R[1][2] -= n[0];
          R[2][1] += n[0];
          HostVector rotation(owned, relevant, env.comm);
          for (const auto &cell : dof_handler.active_cell_iterators())
            if (cell->is_locally_owned())
              for (const unsigned int v : cell->vertex_indices())
                {
                  const Tensor<1, 3> x = cell->vertex(v);
                  const Tensor<1, 3> y = R * x;
                  for (unsigned int c = 0; c < 3; ++c)
                    {
                      const types::global_dof_index i = cell->vertex_dof_index(v, c);
                      if (owned.is_element(i))
                        rotation(i) = y[c] - x[c];
                    }
                }
          plastix::DeviceVector rotation_device, f_rotation;
          free_op.initialize_dof_vector(rotation_device);
          rotation_device.copy_from_host(rotation);
          checker.check_true("rigid rotation of 90 degrees: no inverted points",
                             free_state.update(rotation_device, f_rotation) == 0);
          const double f_norm = f_rotation.l2_norm(), u_norm = rotation_device.l2_norm();
          checker.check("rigid rotation of 90 degrees: |f_int| / ((lambda + 2 mu) |u|)",
                        f_norm / ((materials.at(3).lambda + 2 * materials.at(3).mu) * u_norm), 1e-13);
        }

        op.disable_finite_strain();
        checker.check_true("no finite-strain state after disable_finite_strain()", !op.has_finite_strain());
      }
  });
}
