// Krylov solvers on DeviceVectors.
#include <deal.II/base/timer.h>
#include <deal.II/lac/affine_constraints.templates.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/lac/solver_gmres.h>

#include <plastix/dealii/linear_solver.h>

#include <sstream>

namespace plastix
{
  LinearSolver::LinearSolver(const SolverParameters &parameters)
    : parameters(parameters)
  {}

  void
  LinearSolver::initialize(const MechanicsOperator &new_op)
  {
    dealii::Timer timer;
    op = &new_op;
    chebyshev.reset();
    jacobi.reset();
    if (parameters.preconditioner == "jacobi" || parameters.preconditioner == "chebyshev")
      {
        jacobi = std::make_shared<Jacobi>();
        op->compute_inverse_diagonal(jacobi->get_vector());
      }
    if (parameters.preconditioner == "chebyshev")
      {
        typename Chebyshev::AdditionalData data;
        data.degree              = parameters.chebyshev_degree;
        data.smoothing_range     = 20.;
        data.eig_cg_n_iterations = 20;
        data.preconditioner      = jacobi;
        chebyshev                = std::make_unique<Chebyshev>();
        chebyshev->initialize(*op, data);
        // Estimate the eigenvalues now so that the setup time is counted here.
        DeviceVector x, b;
        op->initialize_dof_vector(x);
        op->initialize_dof_vector(b);
        b = 1.;
        chebyshev->vmult(x, b);
      }
    setup_time = timer.wall_time();
  }

  SolverStatistics
  LinearSolver::solve(DeviceVector &x, const DeviceVector &b, const double tolerance_override)
  {
    AssertThrow(op != nullptr, dealii::ExcMessage("LinearSolver::solve before initialize"));
    SolverStatistics statistics;
    statistics.setup_time = setup_time;
    const double b_norm   = b.l2_norm();
    const double tolerance =
      tolerance_override > 0 ? tolerance_override :
                               std::max(parameters.relative_tolerance * b_norm, parameters.absolute_tolerance);
    dealii::SolverControl control(parameters.max_iterations, tolerance, false, false);
    control.enable_history_data();
    dealii::Timer timer;
    try
      {
        auto run = [&](auto &solver) {
          if (chebyshev)
            solver.solve(*op, x, b, *chebyshev);
          else if (jacobi)
            solver.solve(*op, x, b, *jacobi);
          else
            solver.solve(*op, x, b, dealii::PreconditionIdentity());
        };
        if (parameters.type == "cg")
          {
            dealii::SolverCG<DeviceVector> solver(control);
            run(solver);
          }
        else
          {
            typename dealii::SolverGMRES<DeviceVector>::AdditionalData gmres_data(parameters.gmres_restart);
            // Right preconditioning: GMRES then monitors the true residual
            // |b - A x| that the tolerance refers to; with deal.II's default
            // (left) it would monitor |P^-1 (b - A x)|, which the Jacobi
            // scaling (1/diag ~ 1/E) makes tiny long before convergence.
            gmres_data.right_preconditioning = true;
            dealii::SolverGMRES<DeviceVector> solver(control, gmres_data);
            run(solver);
          }
      }
    catch (const dealii::SolverControl::NoConvergence &failure)
      {
        std::ostringstream message;
        message << name() << " did not converge: residual " << failure.last_residual << " after "
                << failure.last_step << " iterations, target " << tolerance << " (|b| = " << b_norm
                << "); raise 'Linear solver/Maximum iterations' or use a stronger preconditioner";
        throw SolverError(message.str());
      }
    statistics.solve_time       = timer.wall_time();
    statistics.iterations       = control.last_step();
    statistics.final_residual   = control.last_value();
    statistics.initial_residual = control.get_history_data().empty() ? 0. : control.get_history_data().front();
    return statistics;
  }

  std::string
  LinearSolver::name() const
  {
    return parameters.type + " + " + parameters.preconditioner;
  }
} // namespace plastix
