// Static linear elasticity: mesh -> operator -> solve -> output.
#include <plastix/core/runtime.h>
#include <plastix/solvers/linear_solver.h>

#include "checkpoint.h"
#include "discretization.h"
#include "elastic_problem.h"

#include "cell_quantities.h"
#include "solution_fields.h"
#include "driver_tools.h"
#include "mesh_quality.h"
#include "monitor.h"

#include <cmath>
#include <filesystem>

namespace plastix
{
  ElasticProblem::ElasticProblem(const Parameters &parameters, MPI_Comm communicator)
    : parameters(parameters)
    , communicator(communicator)
  {}

  namespace
  {
    /**
     * The rows of the monitor at each of Load stepping/Load factors. The
     * problem is linear, so the solution at load factor lambda is
     * lambda u_r + sum_k a_k(lambda) u_k, u_k the solution of the loads
     * with amplitude a_k alone (the constant loads, each kind given with an
     * amplitude, the prescribed displacements if they have one) and
     * u_r = u(1) - sum_k a_k(1) u_k that of the loads following the load
     * factor; @p solution is u(1).
     */
    void
    record_monitor_rows(Discretization         &d,
                        LinearSolver           &solver,
                        const DeviceVector     &solution,
                        const SolverStatistics &statistics,
                        Monitor                &monitor)
    {
      const Parameters   &parameters = d.parameters;
      const LoadAmplitude prescribed = parameters.boundary.amplitude("dirichlet");
      const auto &lambdas = parameters.load_stepping.load_factors;
      std::vector<std::pair<LoadAmplitude, DeviceVector>> cases;
      const auto solve_alone = [&](const LoadAmplitude &amplitude, const DeviceVector *force, const double scale) {
        DeviceVector case_rhs, case_solution;
        d.op.initialize_dof_vector(case_rhs);
        d.op.initialize_dof_vector(case_solution);
        if (force != nullptr)
          case_rhs.add(1., *force);
        d.op.lift_inhomogeneities(case_rhs, scale);
        d.op.set_constrained_values(case_solution, scale);
        solver.solve(case_solution, case_rhs);
        d.op.set_constrained_values(case_solution, scale);
        cases.emplace_back(amplitude, std::move(case_solution));
      };
      if (parameters.boundary.has_constant_loads())
        solve_alone(LoadAmplitude::constant(), &d.constant_force, 0.);
      for (const Discretization::AmplifiedForce &amplified : d.amplified_forces)
        solve_alone(amplified.amplitude, &amplified.force, 0.);
      if (!prescribed.follows_load_factor())
        solve_alone(prescribed, nullptr, 1.);
      DeviceVector internal_force;
      if (cases.empty())
        {
          if (monitor.needs_internal_force())
            d.op.compute_internal_force(solution, internal_force);
          const auto u_host = d.to_host(solution);
          for (unsigned int step = 1; step <= lambdas.size(); ++step)
            monitor.record(step, lambdas[step - 1], 0, statistics.iterations, 0, u_host, internal_force,
                           lambdas[step - 1]);
        }
      else
        {
          DeviceVector ramped(solution), u_lambda;
          for (const auto &[amplitude, case_solution] : cases)
            ramped.add(-amplitude(1.), case_solution);
          d.op.initialize_dof_vector(u_lambda);
          for (unsigned int step = 1; step <= lambdas.size(); ++step)
            {
              const double lambda = lambdas[step - 1];
              u_lambda.equ(lambda, ramped);
              for (const auto &[amplitude, case_solution] : cases)
                u_lambda.add(amplitude(lambda), case_solution);
              if (monitor.needs_internal_force())
                d.op.compute_internal_force(u_lambda, internal_force);
              monitor.record(step, lambda, 0, statistics.iterations, 0, d.to_host(u_lambda), internal_force, 1.);
            }
        }
    }
  } // namespace

  RunSummary
  ElasticProblem::run()
  {
    RunSummary summary = RunSummary::for_run(communicator);
    StageTimer timer(communicator, summary);

    // Output first: a bad output directory fails before any work.
    StagedOutput   output(parameters.output.directory, communicator);
    Discretization d(parameters, communicator);

    internal::set_up_mesh_dofs_operator(d, timer, summary);
    timer.stop("operator");

    timer.start();
    d.assemble_external_force();
    // At load factor 1: the loads that follow it, the constant ones and
    // those with an amplitude at its value there.
    const LoadAmplitude prescribed = parameters.boundary.amplitude("dirichlet");
    DeviceVector        rhs = d.force_at_load_factor_one(), solution;
    d.op.initialize_dof_vector(solution);
    d.op.lift_inhomogeneities(rhs, prescribed(1.));
    timer.stop("rhs");

    timer.start();
    LinearSolver solver(parameters.solver);
    internal::set_up_preconditioner(d, solver);
    summary.solver = solver.name();
    timer.stop("preconditioner");

    timer.start();
    d.op.set_constrained_values(solution, prescribed(1.));
    const SolverStatistics statistics = solver.solve(solution, rhs);
    // Exactly the prescribed values, whatever the solver's tolerance.
    d.op.set_constrained_values(solution, prescribed(1.));
    summary.linear_iterations         = statistics.iterations;
    summary.final_residual            = statistics.final_residual;
    summary.relative_residual         = statistics.final_residual / std::max(rhs.l2_norm(), 1e-300);
    timer.stop("solve");

    if (interrupt_requested(communicator))
      throw Interrupted("during the solve; nothing was written");

    timer.start();
    const internal::DisplacementMaxima maxima = internal::max_nodal_displacement(solution);
    summary.max_displacement                  = maxima.magnitude;
    if (!std::isfinite(summary.max_displacement) || !std::isfinite(summary.final_residual))
      throw SolverError("the solution is not finite (residual " + std::to_string(summary.final_residual) + ")");
    print_warning(deformation_warning(summary.max_displacement, *d.triangulation, communicator), communicator);
    print_warning(thin_direction_warning(*d.triangulation, maxima.components, communicator), communicator);
    Monitor monitor(d, parameters.monitor);
    monitor.report_distant_points();
    record_monitor_rows(d, solver, solution, statistics, monitor);
    output.write_text(parameters.output.base_name + ".csv", monitor.csv());
    if (parameters.monitor.write_plot)
      if (dealii::Utilities::MPI::this_mpi_process(communicator) == 0)
        monitor.plot(output.staged_directory(), parameters.output.base_name, parameters.output.base_name + ".csv");
    if (parameters.output.write_vtu)
      {
        PointFields       point_fields;
        const CellFields  cell_fields = elastic_cell_fields(d, solution, point_fields);
        summary.output_file           = (std::filesystem::path(parameters.output.directory) /
                               d.write_vtu(output, solution, cell_fields, parameters.output.base_name, 0, point_fields))
                                .string();
      }
    timer.stop("output");
    internal::append_summary(output, parameters.output, summary.line());
    output.commit();
    return summary;
  }
} // namespace plastix
