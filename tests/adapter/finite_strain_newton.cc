// plastix::NewtonRaphson and plastix::LoadStepping at finite strain
// (MechanicsOperator::enable_finite_strain()) against an independent host
// Newton solve with deal.II: a distorted 3 x 1 x 1 bar of three materials
// (neo-Hookean for x < 1, isochoric neo-Hookean for 1 < x < 2, Mooney-Rivlin
// with mu2 = mu / 4 beyond) clamped at
// x = 0, its end x = 3 moved by (-1, 0, 1) (shortened by a third and
// deflected by a third of its length) in four load steps. The reference
// iterates with the tangent assembled from central differences of the
// deal.II cell residual (tests/common/finite_strain_reference.h) and
// Trilinos' direct solver. Checked: every step converges without cuts in
// at most 12 Newton iterations to 1e-11, the displacements agree to
// 1e-10, and a step that would shorten the bar beyond zero length fails with
// the inverted Gauss points named, after which restore() puts back the
// converged state. Run with 1 and 2 MPI ranks.

// Test: ranks 1 2
#include <deal.II/base/function.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/sparsity_tools.h>
#include <deal.II/lac/trilinos_solver.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/finite_strain_state.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/load_stepping.h>
#include <plastix/solvers/newton.h>

#include "finite_strain_reference.h"
#include "box_mesh.h"
#include "q1_dofs.h"
#include "test_environment.h"

#include <cmath>
#include <vector>

using namespace dealii;
using HostVector = LinearAlgebra::distributed::Vector<double>;

namespace
{
  /** The end displacement at load factor 1. */
  const Tensor<1, 3> end_displacement({-1., 0., 1.});

  /** Constraints: x = 0 clamped, x = 3 moved by @p scale times end_displacement. */
  AffineConstraints<double>
  bar_constraints(const DoFHandler<3> &dof_handler, const IndexSet &relevant, const double scale)
  {
    AffineConstraints<double> constraints(relevant);
    VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
    VectorTools::interpolate_boundary_values(
      dof_handler, 1,
      Functions::ConstantFunction<3>(std::vector<double>{scale * end_displacement[0], scale * end_displacement[1],
                                                         scale * end_displacement[2]}),
      constraints);
    constraints.close();
    return constraints;
  }

  /**
   * Newton on the host with deal.II from @p u (ghosted), the solution at
   * load factor @p lambda_old, to @p lambda, as deal.II's step-44 does it:
   * the first iteration with the prescribed increment as inhomogeneous
   * constraints (lifted through the tangent), the others with homogeneous
   * ones; the tangent from central differences of the cell residual,
   * Trilinos' direct solver, until |R| <= 1e-11 |f_int| and |du| <= 1e-12 |u|.
   * Returns the iterations (0: no convergence in 20).
   */
  unsigned int
  host_newton(const DoFHandler<3>          &dof_handler,
              const IndexSet               &relevant,
              const plastix::MaterialTable &materials,
              const double                  lambda_old,
              const double                  lambda,
              HostVector                   &u)
  {
    const IndexSet                 &owned       = dof_handler.locally_owned_dofs();
    const MPI_Comm                  comm        = dof_handler.get_communicator();
    const AffineConstraints<double> increment   = bar_constraints(dof_handler, relevant, lambda - lambda_old);
    const AffineConstraints<double> homogeneous = bar_constraints(dof_handler, relevant, 0.);
    DynamicSparsityPattern dsp(relevant);
    DoFTools::make_sparsity_pattern(dof_handler, dsp, homogeneous, false);
    SparsityTools::distribute_sparsity_pattern(dsp, owned, comm, relevant);
    for (unsigned int k = 1; k <= 20; ++k)
      {
        TrilinosWrappers::SparseMatrix tangent;
        tangent.reinit(owned, owned, dsp, comm);
        TrilinosWrappers::MPI::Vector  rhs(owned, comm), du(owned, comm);
        double                         f_int_squared = 0;
        plastix_test::for_each_reference_cell(
          dof_handler, materials, u,
          [&](const std::vector<types::global_dof_index> &dofs, Vector<double> r, const FullMatrix<double> &matrix) {
            f_int_squared += r.norm_sqr();
            r *= -1.;
            (k == 1 ? increment : homogeneous).distribute_local_to_global(matrix, r, dofs, tangent, rhs);
          });
        tangent.compress(VectorOperation::add);
        rhs.compress(VectorOperation::add);
        const double   residual = rhs.l2_norm(), scale = std::sqrt(Utilities::MPI::sum(f_int_squared, comm));
        SolverControl  control;
        TrilinosWrappers::SolverDirect(control).solve(tangent, du, rhs);
        (k == 1 ? increment : homogeneous).distribute(du);
        for (const auto i : owned)
          u(i) += du(i);
        u.update_ghost_values();
        if (k > 1 && residual <= 1e-11 * scale && du.l2_norm() <= 1e-12 * u.l2_norm())
          return k;
      }
    return 0;
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    parallel::distributed::Triangulation<3> tria(env.comm);
    plastix_test::make_distorted_box(tria, {6, 2, 2}, Point<3>(3., 1., 1.), 1, 0.15, 7);
    plastix_test::set_three_material_ids(tria, 3.);
    DoFHandler<3>  dof_handler(tria);
    const IndexSet relevant = plastix_test::distribute_q1_dofs(dof_handler);
    const IndexSet &owned   = dof_handler.locally_owned_dofs();
    const plastix::MaterialTable materials = plastix_test::three_hyperelastic_materials();
    env.pout << "DoFs " << dof_handler.n_dofs() << ", cells " << tria.n_global_active_cells() << "\n";

    // The device: NewtonRaphson over the load steps, CG with Jacobi.
    const AffineConstraints<double> constraints = bar_constraints(dof_handler, relevant, 1.);
    plastix::MechanicsOperator      op;
    op.reinit(dof_handler, constraints, materials);
    op.enable_finite_strain();
    plastix::DeviceVector external_force;
    op.initialize_dof_vector(external_force);
    plastix::LinearSolverData solver_data;
    solver_data.preconditioner = plastix::PreconditionerType::jacobi;
    plastix::LinearSolver linear_solver(solver_data);
    plastix::NewtonData   newton_data;
    newton_data.residual_tolerance = newton_data.displacement_tolerance = 1e-11;
    newton_data.line_search_steps  = 4;
    plastix::NewtonRaphson newton(
      op, external_force, linear_solver, [&](const bool new_step) { linear_solver.initialize(op, new_step); },
      newton_data);
    op.finite_strain().update(newton.u, newton.f_int);
    checker.check_true("prescribed displacements alone load the bar", !newton.has_external_force());

    plastix::LoadSteppingData stepping_data;
    stepping_data.load_factors = {0.25, 0.5, 0.75, 1.};
    plastix::LoadStepping stepping(stepping_data);
    unsigned int          most_iterations = 0, cuts = 0;
    stepping.run(newton, [&](const plastix::LoadStepResult &step) {
      most_iterations = std::max(most_iterations, step.newton.iterations);
      cuts += step.cuts;
      env.pout << "load factor " << step.load_factor << ": " << step.newton.iterations << " Newton iterations, "
               << step.newton.linear_iterations << " linear iterations, |R|/F " << step.newton.relative_residual
               << "\n";
    });
    checker.check_true("no step is cut", cuts == 0);
    checker.check("Newton iterations of the slowest step", most_iterations, 12);

    // The host reference over the same load factors.
    HostVector   u_reference(owned, relevant, env.comm);
    unsigned int reference_iterations = 0;
    double       lambda_old           = 0;
    for (const double lambda : stepping_data.load_factors)
      {
        const unsigned int k = host_newton(dof_handler, relevant, materials, lambda_old, lambda, u_reference);
        checker.check_true("the host reference converges at load factor " + std::to_string(lambda), k > 0);
        reference_iterations = std::max(reference_iterations, k);
        lambda_old           = lambda;
      }
    HostVector u_device(op.get_partitioner());
    newton.u.copy_to_host(u_device);
    double largest_difference = 0, largest_value = 0;
    for (const auto i : owned)
      {
        largest_difference = std::max(largest_difference, std::abs(u_device(i) - u_reference(i)));
        largest_value      = std::max(largest_value, std::abs(u_reference(i)));
      }
    largest_difference = Utilities::MPI::max(largest_difference, env.comm);
    largest_value      = Utilities::MPI::max(largest_value, env.comm);
    env.pout << "host reference: at most " << reference_iterations << " Newton iterations; largest |u| "
             << largest_value << ", largest difference " << largest_difference << "\n";
    checker.check_true("the bar's end moved by about 1", largest_value > 0.9);
    checker.check("device Newton vs host Newton, largest difference / largest |u|", largest_difference / largest_value, 1e-10);

    // A step to a length below zero inverts cells: the step fails and names them; restore() goes back.
    const plastix::DeviceVector converged = newton.u;
    const plastix::NewtonResult failed    = newton.step(1., 3.3, 5);
    env.pout << "step to load factor 3.3: " << (failed.converged ? "converged" : failed.failure) << "\n";
    checker.check_true("a step that shortens the bar beyond zero length fails, naming the inverted Gauss points",
                       !failed.converged &&
                         failed.failure.find("Gauss points inverted (det F <= 0)") != std::string::npos);
    newton.restore(converged);
    plastix::DeviceVector difference = newton.u;
    difference.add(-1., converged);
    checker.check_true("restore() puts back the converged displacement and a finite internal force",
                       difference.l2_norm() == 0. && std::isfinite(newton.f_int.l2_norm()));
  });
}
