// plastix's ChebyshevSmoother (the multigrid smoother whose steps fuse the
// vector update into the dbd structured lattice kernel) against deal.II's
// PreconditionChebyshev on the same operator, inverse diagonal and
// eigenvalue estimate: a box of 6 x 4 x 4 cells held at x = 0, one material
// and two (the lattice kernel's functor and scratch-memory forms), the
// operators dbd structured (fused) and ebe atomic (deal.II's loop), double
// and single precision, degrees 1, 2 and 5:
//   - vmult() from zero and step() from an iterate equal deal.II's to 1e-12
//     (double) and 1e-5 (float) relative in the max norm;
//   - the steps run fused exactly where documented: all degree - 1 steps of
//     vmult() and all degree steps of step() for dbd structured on one rank,
//     none for ebe atomic and none on two ranks (ghost exchange).
// A wrong coefficient, a lost x_old term, constrained rows not treated as
// unit rows or a missed vector rotation changes entries by O(1).

// Test: ranks 1 2
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
// deal.II's PreconditionChebyshev (the reference) on device vectors needs these templates.
#include <deal.II/lac/affine_constraints.templates.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>
#include <plastix/core/runtime.h>
#include <plastix/solvers/chebyshev_smoother.h>

#include "q1_dofs.h"
#include "test_environment.h"

#include <cmath>
#include <string>

using namespace dealii;

namespace
{
  template <typename Number>
  double
  relative_difference(const plastix::device::Vector<Number> &a, const plastix::device::Vector<Number> &b)
  {
    plastix::device::Vector<Number> difference(a);
    difference.add(Number(-1), b);
    return difference.linfty_norm() / b.linfty_norm();
  }

  template <typename Number>
  void
  compare(const plastix::MechanicsOperator &op,
          const plastix::DeviceVector      &rhs_double,
          const bool                        expect_fused,
          const std::string                &name,
          plastix_test::Checker            &checker)
  {
    using Vector    = plastix::device::Vector<Number>;
    using Smoother  = plastix::ChebyshevSmoother<Number>;
    const double tolerance = std::is_same_v<Number, double> ? 1e-12 : 1e-5;
    Vector       rhs, ones;
    op.initialize_dof_vector(rhs);
    op.initialize_dof_vector(ones);
    rhs.copy_converted(1., rhs_double);
    ones = Number(1);
    for (const unsigned int degree : {1u, 2u, 5u})
      {
        typename Smoother::AdditionalData data;
        data.degree              = degree;
        data.smoothing_range     = 15.;
        data.eig_cg_n_iterations = 12;
        data.preconditioner      = std::make_shared<typename Smoother::Preconditioner>();
        op.compute_inverse_diagonal(data.preconditioner->get_vector());
        typename Smoother::Reference reference;
        reference.initialize(op, data);
        reference.estimate_eigenvalues(ones);
        Smoother smoother;
        smoother.initialize(op, data);
        smoother.estimate_eigenvalues(ones);

        const std::string what = name + (std::is_same_v<Number, double> ? ", double" : ", float") +
                                 ", degree " + std::to_string(degree);
        Vector expected, result;
        op.initialize_dof_vector(expected);
        op.initialize_dof_vector(result);
        reference.vmult(expected, rhs);
        smoother.vmult(result, rhs);
        checker.check(what + ": vmult |p - p_deal.II| / |p_deal.II|", relative_difference(result, expected), tolerance);
        checker.check(what + ": fused steps of vmult - expected",
                      std::abs(double(smoother.n_fused_steps()) - (expect_fused ? degree - 1. : 0.)),
                      0.);

        // step() from the iterate vmult() gave, with the right-hand side scaled.
        Vector rhs2(rhs);
        rhs2.sadd(Number(0.5), Number(0), rhs);
        reference.step(expected, rhs2);
        smoother.step(result, rhs2);
        checker.check(what + ": step |x - x_deal.II| / |x_deal.II|", relative_difference(result, expected), tolerance);
        checker.check(what + ": fused steps of step - expected",
                      std::abs(double(smoother.n_fused_steps()) - (expect_fused ? double(degree) : 0.)),
                      0.);
      }
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    const bool one_rank = Utilities::MPI::n_mpi_processes(env.comm) == 1;
    for (const unsigned int n_materials : {1u, 2u})
      {
        parallel::distributed::Triangulation<3> tria(env.comm);
        GridGenerator::subdivided_hyper_rectangle(tria, {6, 4, 4}, Point<3>(0, 0, 0), Point<3>(3, 2, 2), true);
        for (const auto &cell : tria.active_cell_iterators())
          cell->set_material_id(n_materials == 2 && cell->center()[0] > 1.5 ? 1 : 0);
        DoFHandler<3>             dof_handler(tria);
        const IndexSet            relevant = plastix_test::distribute_q1_dofs(dof_handler);
        AffineConstraints<double> constraints(relevant);
        VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
        constraints.close();
        const plastix::MaterialTable materials{{0, plastix::make_material(200e9, 0.3)},
                                               {1, plastix::make_material(70e9, 0.33)}};

        for (const auto strategy : {plastix::backend::Strategy::dbd_structured, plastix::backend::Strategy::ebe_atomic})
          {
            plastix::MechanicsOperator op;
            op.reinit(dof_handler,
                      constraints,
                      materials,
                      plastix::MechanicsOperator::AdditionalData(strategy,
                                                                 plastix::backend::CellKernel::geometry_on_the_fly));
            // A smooth right-hand side with every component, zero on the constrained rows.
            plastix::DeviceVector rhs;
            op.initialize_dof_vector(rhs);
            Vector<double> all(dof_handler.n_dofs());
            for (unsigned int i = 0; i < all.size(); ++i)
              all[i] = relevant.is_element(i) && constraints.is_constrained(i) ? 0. : std::sin(0.37 * i) + 0.5;
            rhs.copy_from_host(all);
            const std::string name = std::to_string(n_materials) + " material(s), " + plastix::backend::to_string(strategy);
            const bool expect_fused = one_rank && strategy == plastix::backend::Strategy::dbd_structured;
            compare<double>(op, rhs, expect_fused, name, checker);
            compare<float>(op, rhs, expect_fused, name, checker);
          }
      }
  });
}
