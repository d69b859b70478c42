// The plastix operator times a random vector equals deal.II's assembled
// sparse matrix (Trilinos) and deal.II's MatrixFree/FEEvaluation operator on a
// distorted mesh with two materials, for every strategy, cell kernel and
// thread mapping, to 1e-12 relative; the same on the mesh undistorted (a
// lattice of equal boxes) with dbd structured too, which must refuse the
// distorted one. Also the diagonal, and the result's
// independence of the strategy. The same for B-bar (mean dilatation) against
// the assembled B-bar matrix (plastix::elastic_cell_matrix, deal.II
// FEValues and tensors). The matrix assembled on the device (Strategy::
// assembled) entry by entry against deal.II's. Run with 1 and 2 MPI ranks.

// Test: ranks 1 2
#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/function.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/trilinos_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/elastic_matrix.h>
#include <plastix/core/mechanics_operator.h>

#include "reference_operators.h"
#include "operator_variants.h"
#include "box_mesh.h"
#include "q1_dofs.h"
#include "test_environment.h"

#include <iostream>

using namespace dealii;

namespace
{
  /**
   * The device-assembled matrix (Strategy::assembled, MechanicsOperator::
   * copy_matrix()) entry by entry against deal.II's assembly on the owned
   * rows: equal where neither the row nor the column is constrained (both
   * matrices' entries visited, so an entry missing from either counts);
   * constrained rows and columns zero but a unit diagonal.
   */
  void
  compare_matrices(const std::string                    &name,
                   const plastix::MechanicsOperator     &op,
                   const TrilinosWrappers::SparseMatrix &reference,
                   const AffineConstraints<double>      &constraints,
                   plastix_test::Checker                &checker,
                   const MPI_Comm                        comm)
  {
    TrilinosWrappers::SparseMatrix device;
    op.copy_matrix(device);
    double max_entry = 0, max_difference = 0, max_constrained = 0;
    for (const auto row : reference.locally_owned_range_indices())
      {
        for (auto entry = reference.begin(row); entry != reference.end(row); ++entry)
          {
            max_entry = std::max(max_entry, std::abs(entry->value()));
            if (!constraints.is_constrained(row) && !constraints.is_constrained(entry->column()))
              max_difference =
                std::max(max_difference, std::abs(device.el(row, entry->column()) - entry->value()));
          }
        for (auto entry = device.begin(row); entry != device.end(row); ++entry)
          if (constraints.is_constrained(row) || constraints.is_constrained(entry->column()))
            max_constrained =
              std::max(max_constrained, std::abs(entry->value() - (entry->column() == row ? 1. : 0.)));
          else
            max_difference = std::max(max_difference, std::abs(reference.el(row, entry->column()) - entry->value()));
      }
    max_entry = Utilities::MPI::max(max_entry, comm);
    checker.check(name + ": device-assembled matrix vs deal.II's, max entry difference / max entry",
                  Utilities::MPI::max(max_difference, comm) / max_entry, 1e-13);
    checker.check(name + ": device-assembled matrix, constrained rows and columns: unit diagonal, else zero",
                  Utilities::MPI::max(max_constrained, comm), 0.);
  }

  /** Every comparison on the 10 x 8 x 6 two-material box, distorted or (a lattice) not. */
  void
  compare_on_box(plastix_test::Environment &env, plastix_test::Checker &checker, const bool distorted)
  {
    env.pout << (distorted ? "distorted mesh\n" : "undistorted mesh (a lattice)\n");
    parallel::distributed::Triangulation<3> tria(env.comm);
    plastix_test::make_distorted_box(tria, {5, 4, 3}, Point<3>(2.5, 1.5, 1.), 1, distorted ? 0.25 : 0., 7);
    for (const auto &cell : tria.active_cell_iterators())
      cell->set_material_id(cell->center()[0] > 1.2 ? 3 : 0);

    DoFHandler<3>          dof_handler(tria);
    const IndexSet         relevant = plastix_test::distribute_q1_dofs(dof_handler);
    const FiniteElement<3> &fe      = dof_handler.get_fe();
    AffineConstraints<double> constraints(relevant);
    VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ConstantFunction<3>(0.01, 3), constraints);
    // Only the y component fixed on the top face: mixed constrained/free DoFs in one node.
    VectorTools::interpolate_boundary_values(dof_handler, 5, Functions::ZeroFunction<3>(3), constraints,
                                             fe.component_mask(FEValuesExtractors::Scalar(1)));
    constraints.close();

    const plastix::MaterialTable materials = {{0, plastix::make_material(200e9, 0.3)},
                                              {3, plastix::make_material(70e9, 0.35)}};
    env.pout << "DoFs " << dof_handler.n_dofs() << ", cells " << tria.n_global_active_cells()
         << ", constrained " << Utilities::MPI::sum(constraints.n_constraints(), env.comm) << " (summed over ranks)\n";

    plastix::reference::MatrixFreeElasticity mf;
    mf.reinit(dof_handler, constraints, materials);

    // Random source, a function of the global index (rank-count independent), zero on constrained DoFs.
    LinearAlgebra::distributed::Vector<double> src_host, dst_mf;
    mf.initialize_dof_vector(src_host);
    mf.initialize_dof_vector(dst_mf);
    for (const auto i : src_host.locally_owned_elements())
      src_host(i) = constraints.is_constrained(i) ? 0. : std::sin(1.7 * i + 0.3) + 0.25 * std::cos(0.11 * i);
    mf.vmult(dst_mf, src_host);

    auto relative_difference = [&](const auto &a, const auto &b, const bool free_rows_only) {
      return plastix_test::relative_difference(a, b, src_host.locally_owned_elements(), constraints, env.comm,
                                               free_rows_only);
    };

    TrilinosWrappers::MPI::Vector src_t(dof_handler.locally_owned_dofs(), env.comm), dst_full(src_t);
    for (const auto i : src_host.locally_owned_elements())
      src_t(i) = src_host(i);
    src_t.compress(VectorOperation::insert);

    // Full integration against deal.II's matrix and MatrixFree; B-bar
    // against the matrix of elastic_cell_matrix() (deal.II tensors, its own
    // cell averages), which must differ from full integration on this mesh.
    for (const auto formulation : {plastix::backend::ElementFormulation::full, plastix::backend::ElementFormulation::bbar})
      {
        const bool bbar = formulation == plastix::backend::ElementFormulation::bbar;
        env.pout << (bbar ? "B-bar (mean dilatation)" : "full integration") << "\n";
        TrilinosWrappers::SparseMatrix matrix;
        plastix::assemble_elastic_matrix(dof_handler, constraints, materials, matrix, formulation);
        TrilinosWrappers::MPI::Vector dst_t(src_t);
        matrix.vmult(dst_t, src_t);
        if (!bbar)
          {
            dst_full = dst_t;
            checker.check("MatrixFree vs Trilinos matrix (free rows)", relative_difference(dst_mf, dst_t, true), 1e-12);
          }
        else
          {
            const double change = relative_difference(dst_t, dst_full, true);
            checker.check("B-bar matrix differs from full integration (free rows, relative l2 > 1e-3)",
                  change > 1e-3 ? 0. : 1., 0.);
            env.pout << "  B-bar vs full integration matrix, relative l2: " << change << "\n";
          }

        LinearAlgebra::distributed::Vector<double> reference_result;
        bool                                       have_reference = false;
        for (const auto &variant : plastix_test::all_operator_variants(formulation, !distorted))
          {
            plastix::MechanicsOperator op;
            op.reinit(dof_handler, constraints, materials, variant.data);
            plastix::DeviceVector src, dst;
            op.initialize_dof_vector(src);
            op.initialize_dof_vector(dst);
            src.copy_from_host(src_host);
            op.vmult(dst, src);
            LinearAlgebra::distributed::Vector<double> result;
            mf.initialize_dof_vector(result);
            dst.copy_to_host(result);
            checker.check(variant.name + " vs Trilinos matrix", relative_difference(result, dst_t, true), 1e-12);
            if (!bbar)
              checker.check(variant.name + " vs MatrixFree (all rows)", relative_difference(result, dst_mf, false), 1e-12);
            if (!have_reference)
              {
                reference_result = result;
                have_reference   = true;
              }
            checker.check(variant.name + " vs first strategy", relative_difference(result, reference_result, false), 1e-13);
            if (variant.data.strategy == plastix::backend::Strategy::assembled)
              compare_matrices(variant.name, op, matrix, constraints, checker, env.comm);

            checker.check(variant.name + " diagonal vs matrix",
                          plastix_test::diagonal_difference(op, matrix, constraints, env.comm), 1e-12);
          }
      }
    if (distorted)
      {
        bool refused = false;
        try
          {
            plastix::MechanicsOperator op;
            op.reinit(dof_handler, constraints, materials, {plastix::backend::Strategy::dbd_structured});
          }
        catch (const std::invalid_argument &error)
          {
            refused = std::string(error.what()).find("dbd structured: cell") != std::string::npos;
          }
        checker.check_true("dbd structured refuses the distorted mesh, naming a cell",
                           Utilities::MPI::logical_or(refused, env.comm));
      }
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    compare_on_box(env, checker, true);
    compare_on_box(env, checker, false);
  });
}
