// Dynamic problems: small-strain elastodynamics or finite-strain
// hyperelastodynamics over time steps (Elastodynamics), with VTU series,
// energies and monitored values per written step, checkpoints and restart.
#include <deal.II/base/data_out_base.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/finite_strain_state.h>
#include <plastix/core/interruption.h>
#include <plastix/core/runtime.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/time_integration.h>

#include "checkpoint.h"
#include "discretization.h"
#include "driver_tools.h"
#include "elastic_problem.h"
#include "mesh_quality.h"
#include "monitor.h"
#include "solution_fields.h"

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <tuple>

namespace plastix
{
  DynamicProblem::DynamicProblem(const Parameters &parameters, MPI_Comm communicator)
    : parameters(parameters)
    , communicator(communicator)
  {}

  void
  DynamicProblem::set_restart(const std::string &directory)
  {
    restart_directory = directory;
  }

  namespace
  {
    /** The CSV header of a dynamic run: step, time, iterations, energies, then the monitored values. */
    std::string
    dynamic_csv_header(const MonitorParameters &monitor)
    {
      std::string header = "step,time,newton_iterations,linear_iterations,kinetic_energy,strain_energy,"
                           "external_work,dissipated_energy,energy_balance";
      const std::vector<std::string> columns = monitor.csv_columns();
      for (std::size_t k = 5; k < columns.size(); ++k)
        header += "," + columns[k];
      return header;
    }
  } // namespace

  namespace
  {
    /**
     * One run of DynamicProblem: the discretization, the integrator with its
     * time step (the critical step of central differences), the start (the
     * initial conditions or a checkpoint), the time steps with their cuts,
     * output and checkpoints, and the run's end.
     */
    class DynamicRun
    {
    public:
      DynamicRun(const Parameters &parameters, MPI_Comm communicator, const std::string &restart_directory);

      RunSummary
      run();

    private:
      /** Mesh, DoFs, operator, loads, linear solver and the integrator with its time step. */
      void
      set_up();

      /** An integrator on the operator with @p with (the linear solver for implicit ones). */
      std::unique_ptr<Elastodynamics>
      make_dynamics(const TimeIntegrationData &with);

      /**
       * Central differences: the critical step of the lumped mass and the
       * stiffness at u = 0, and the time step it allows (Time step = 0) or
       * the check of the given one.
       */
      void
      choose_explicit_time_step();

      /** Continue from the checkpoint: u, v, a, the integrator's state and the run's rows. */
      void
      restore_checkpoint();

      /** The initial displacement and velocity of 'Time integration' (the accelerations from them). */
      void
      set_initial_conditions();

      /** The time steps from the start on, until the end time or 'Steps per run'. */
      void
      solve_time_steps();

      /** The monitor's row, the CSV and the VTU of time step @p step, published. */
      void
      write_output(unsigned int step, const TimeStepResult &result);

      /** The checkpoint after time step @p step. */
      void
      write_step_checkpoint(unsigned int step);

      /** The summary's totals, the check of a finite result, the warnings and the end of the checkpoint. */
      void
      finish(double step_seconds);

      const Parameters                &parameters;
      const TimeIntegrationParameters &time;
      const MPI_Comm                   communicator;
      const std::string                restart_directory;
      const bool                       root;
      const bool                       restart;
      const bool                       finite_strain;
      /** Central differences (no linear solver) instead of an implicit integrator. */
      const bool                       is_explicit;
      RunSummary                       summary;
      StageTimer                       timer;
      StagedOutput                     output;
      Discretization                   d;
      const std::string                checkpoint;
      LinearSolver                     solver;
      /** The settings of the integrator, with the run's time step. */
      TimeIntegrationData              data;
      /** The loads at their full value (times Load amplitude over time). */
      DeviceVector                     force;
      std::unique_ptr<Elastodynamics>  dynamics;
      std::unique_ptr<Monitor>         monitor;
      /** The time of the last preconditioner set-up with a new structure (-1: none yet, or after a cut). */
      double                           last_setup_time = -1.;
      /** Where the run starts: step 0, or the checkpoint's step, rows and time-stepping state. */
      LoadSteppingState                start;
      std::vector<std::string>                    rows;
      std::vector<std::pair<double, std::string>> pvd;
      /** The total energy at t = 0, against which the energy balance is printed. */
      double                           initial_energy     = 0.;
      double                           output_seconds     = 0.;
      double                           checkpoint_seconds = 0.;
      unsigned int                     steps_this_run     = 0;
      unsigned int                     checkpoint_step    = 0;
      bool                             stopped_early      = false;
      /** Wall time since the run started or its last checkpoint (Output/Checkpoint wall time). */
      dealii::Timer                    since_checkpoint;
    };

    DynamicRun::DynamicRun(const Parameters  &parameters,
                           const MPI_Comm     communicator,
                           const std::string &restart_directory)
      : parameters(parameters)
      , time(parameters.time_integration)
      , communicator(communicator)
      , restart_directory(restart_directory)
      , root(dealii::Utilities::MPI::this_mpi_process(communicator) == 0)
      , restart(!restart_directory.empty())
      , finite_strain(parameters.problem.kinematics == Kinematics::finite_strain)
      , is_explicit(parameters.time_integration.integrator == TimeIntegrator::central_differences)
      , summary(RunSummary::for_run(communicator))
      , timer(communicator, summary)
      , output(parameters.output.directory, communicator)
      , d(parameters, communicator)
      , checkpoint(checkpoint_directory(parameters.output.directory))
      , solver(parameters.solver)
      , data(parameters.time_integration)
    {}

    std::unique_ptr<Elastodynamics>
    DynamicRun::make_dynamics(const TimeIntegrationData &with)
    {
      // The preconditioner's structure once per time step (the first call at
      // a new time), what follows the tangent in every Newton iteration.
      std::function<void()> initialize_solver;
      if (!is_explicit)
        initialize_solver = [this] {
          const double now = dynamics != nullptr ? dynamics->time() : -1.;
          d.initialize_solver(solver, dynamics == nullptr || now != last_setup_time);
          last_setup_time = now;
        };
      return std::make_unique<Elastodynamics>(d.op, is_explicit ? nullptr : &solver, initialize_solver, with);
    }

    void
    DynamicRun::choose_explicit_time_step()
    {
      data.time_step            = time.time_step > 0. ? time.time_step : time.end_time;
      const double critical_step = make_dynamics(data)->critical_time_step();
      if (time.time_step == 0.)
        // The largest step within the fraction that ends on the end time.
        data.time_step =
          time.end_time / std::ceil(time.end_time / (time.critical_step_fraction * critical_step) * (1. - 1e-12));
      else if (time.time_step > time.critical_step_fraction * critical_step)
        {
          std::ostringstream message;
          message << time.time_step << " is above " << time.critical_step_fraction
                  << " times the estimated critical step " << critical_step
                  << " of central differences (Critical step fraction)";
          throw InputError("Time integration/Time step", message.str());
        }
      if (root)
        std::cout << "  central differences: estimated critical step " << critical_step << ", time step "
                  << data.time_step << std::endl;
      summary.solver = "central differences, lumped mass";
    }

    void
    DynamicRun::set_up()
    {
      internal::set_up_mesh_dofs_operator(d, timer, summary,
                                          restart ? checkpoint_mesh_file(restart_directory) : std::string());
      if (finite_strain)
        d.op.enable_finite_strain();
      timer.stop("operator");

      // The loads of 'Boundary conditions' at their full value, times the
      // amplitude over time.
      timer.start();
      d.assemble_external_force();
      force = d.force_at_load_factor_one();
      timer.stop("rhs");

      timer.start();
      if (is_explicit)
        choose_explicit_time_step();
      dynamics = make_dynamics(data);
      if (!is_explicit)
        {
          internal::set_up_preconditioner(d, solver);
          summary.solver = enum_name(time.integrator) + ", " + solver.name();
        }
      dynamics->set_external_force(force, time.amplitude);
      if (d.follower_pressure)
        {
          // Its Amplitudes/Pressure at load factor 1, as for the other loads, times the amplitude over time.
          const double        at_one    = d.follower_pressure_amplitude ? d.follower_pressure_amplitude(1.) : 1.;
          const LoadAmplitude amplitude = time.amplitude;
          dynamics->set_follower_pressure(*d.follower_pressure,
                                          [at_one, amplitude](const double t) { return at_one * amplitude(t); });
        }
      // A restart continues from the checkpoint's u, v, a and state; a new
      // run starts from the initial conditions.
      if (restart)
        restore_checkpoint();
      else
        set_initial_conditions();
      timer.stop("preconditioner");
      monitor = std::make_unique<Monitor>(d, parameters.monitor);
      monitor->report_distant_points();
      rows           = start.monitor_rows;
      pvd            = start.pvd;
      initial_energy = restart ? start.time_stepping->initial_energy : dynamics->energies().total();
    }

    void
    DynamicRun::restore_checkpoint()
    {
      dealii::LinearAlgebra::distributed::Vector<double> u_host(d.op.get_partitioner()),
        v_host(d.op.get_partitioner()), a_host(d.op.get_partitioner());
      std::vector<double> no_history;
      read_checkpoint_data(dynamic_cast<const dealii::parallel::distributed::Triangulation<3> &>(*d.triangulation),
                           d.dof_handler, {&u_host, &v_host, &a_host}, no_history, 0);
      start = read_load_stepping_state(restart_directory);
      if (!start.time_stepping || start.monitor_rows.size() > start.step + 1 ||
          !(start.time_stepping->run_time_step > 0.))
        throw InputError("--restart", "the state of '" + restart_directory + "' is not that of a dynamic run");
      // The run's time step as the first run chose it (from the critical
      // step, for central differences: estimated anew here on another
      // partition, it could differ in its last digits).
      data.time_step = start.time_stepping->run_time_step;
      DeviceVector u_now, v_now, a_now;
      for (auto [vector, host] : {std::pair(&u_now, &u_host), std::pair(&v_now, &v_host), std::pair(&a_now, &a_host)})
        {
          d.op.initialize_dof_vector(*vector);
          vector->copy_from_host(*host);
        }
      try
        {
          dynamics->resume(u_now, v_now, a_now, start.time_stepping->dynamics);
        }
      catch (const std::invalid_argument &error)
        {
          throw InputError("--restart", "'" + restart_directory + "': " + error.what());
        }
      if (root)
        std::cout << "continuing from the checkpoint of time step " << start.step << " (t = " << dynamics->time()
                  << ") in " << restart_directory << std::endl;
    }

    void
    DynamicRun::set_initial_conditions()
    {
      DeviceVector u0, v0;
      d.op.initialize_dof_vector(u0);
      d.op.initialize_dof_vector(v0);
      dealii::LinearAlgebra::distributed::Vector<double> host(d.op.get_partitioner());
      for (const auto &[text, entry, vector] :
           {std::tuple<std::string, std::string, DeviceVector *>(time.initial_displacement, "Initial displacement", &u0),
            std::tuple<std::string, std::string, DeviceVector *>(time.initial_velocity, "Initial velocity", &v0)})
        {
          if (TimeIntegrationParameters::is_zero(text))
            continue;
          dealii::VectorTools::interpolate(d.dof_handler, *time.vector_function(text), host);
          bool finite = true;
          for (const double value : host)
            finite = finite && std::isfinite(value);
          if (dealii::Utilities::MPI::min(finite ? 1 : 0, communicator) == 0)
            throw InputError("Time integration/" + entry, "'" + text + "' is not finite at every vertex");
          vector->copy_from_host(host);
        }
      try
        {
          dynamics->set_initial_conditions(u0, v0);
        }
      catch (const std::invalid_argument &error)
        {
          // The same on every rank (the counts and energies are global).
          std::string message = error.what();
          if (const auto colon = message.find(": "); colon != std::string::npos)
            message = message.substr(colon + 2);
          if (message.find("inverts") != std::string::npos)
            throw InputError("Time integration/Initial displacement", message);
          throw InputError("Time integration", message + " (the initial conditions, or the loads times the Load "
                                                         "amplitude at t = 0)");
        }
    }

    void
    DynamicRun::write_output(const unsigned int step, const TimeStepResult &result)
    {
      const auto                u_host = d.to_host(dynamics->displacement());
      const std::vector<double> values = monitor->values(u_host, dynamics->internal_force());
      const EnergyBalance      &e      = dynamics->energies();
      std::ostringstream        row;
      row << std::setprecision(15) << step << ',' << dynamics->time() << ',' << result.iterations << ','
          << result.linear_iterations << ',' << e.kinetic << ',' << e.strain << ',' << e.external_work << ','
          << e.dissipated << ',' << e.total();
      for (const double v : values)
        row << ',' << v;
      rows.push_back(row.str());
      std::string csv = dynamic_csv_header(parameters.monitor) + "\n";
      for (const std::string &line : rows)
        csv += line + "\n";
      output.write_text(parameters.output.base_name + ".csv", csv);
      if (parameters.output.write_vtu)
        {
          PointFields point_fields;
          CellFields  fields = finite_strain ? finite_strain_cell_fields(d, u_host, point_fields) :
                                               elastic_cell_fields(d, dynamics->displacement(), point_fields);
          if (finite_strain)
            d.add_geometry_fields(fields);
          auto velocity = std::make_shared<dealii::LinearAlgebra::distributed::Vector<double>>(
            d.to_host(dynamics->velocity()));
          point_fields.push_back({"velocity", 3, [velocity](const dealii::types::global_dof_index dof, double *out) {
                                    for (unsigned int c = 0; c < 3; ++c)
                                      out[c] = (*velocity)(dof + c);
                                  }});
          const std::string pvtu =
            d.write_vtu(output, dynamics->displacement(), fields, parameters.output.base_name, step, point_fields);
          pvd.emplace_back(dynamics->time(), pvtu);
          std::ostringstream pvd_text;
          dealii::DataOutBase::write_pvd_record(pvd_text, pvd);
          output.write_text(parameters.output.base_name + ".pvd", pvd_text.str());
          summary.output_file = (std::filesystem::path(parameters.output.directory) / pvtu).string();
        }
      output.commit();
    }

    void
    DynamicRun::write_step_checkpoint(const unsigned int step)
    {
      LoadSteppingState now;
      now.step              = step;
      now.newton_iterations = summary.newton_iterations;
      now.linear_iterations = summary.linear_iterations;
      now.n_cuts            = summary.n_cuts;
      now.pvd               = pvd;
      now.monitor_rows      = rows;
      now.time_stepping     = TimeSteppingState{dynamics->state(), initial_energy, data.time_step};
      const auto u_host     = d.to_host(dynamics->displacement());
      const auto v_host     = d.to_host(dynamics->velocity());
      const auto a_host     = d.to_host(dynamics->acceleration());
      write_checkpoint(checkpoint, d.checkpoint_parameter_text(), parameters.mesh, *d.triangulation, d.dof_handler,
                       {&u_host, &v_host, &a_host}, {}, 0, now);
      checkpoint_step = step;
      since_checkpoint.restart();
    }

    void
    DynamicRun::solve_time_steps()
    {
      if (!restart)
        write_output(0, TimeStepResult());
      summary.n_steps           = start.step;
      summary.newton_iterations = start.newton_iterations;
      summary.linear_iterations = start.linear_iterations;
      summary.n_cuts            = start.n_cuts;
      timer.start();
      dealii::Timer steps_timer;
      // Implicit steps that fail are retried with half the time step (at
      // most Maximum cuts in a row); each converged step doubles it again, up
      // to the given one. Checkpoints as checkpoint_due() says; the run
      // stops after 'Load stepping/Steps per run' steps.
      unsigned int cuts_in_a_row = 0;
      for (unsigned int step = start.step + 1; dynamics->time() < time.end_time * (1. - 1e-12); ++step)
        {
          const TimeStepResult result = dynamics->step();
          if (!result.converged)
            {
              if (is_explicit || cuts_in_a_row >= time.max_cuts)
                {
                  std::ostringstream message;
                  message << "time step " << step << " at t = " << dynamics->time() << " failed";
                  if (cuts_in_a_row > 0)
                    message << " after " << cuts_in_a_row << " cuts";
                  throw SolverError(message.str() + ": " + result.failure);
                }
              ++cuts_in_a_row;
              ++summary.n_cuts;
              dynamics->set_time_step(0.5 * dynamics->time_step());
              last_setup_time = -1.;
              if (root)
                std::cout << "time step " << step << " at t = " << dynamics->time() << " failed (" << result.failure
                          << "): cut to dt = " << dynamics->time_step() << std::endl;
              --step;
              continue;
            }
          if (dynamics->time_step() < data.time_step)
            {
              dynamics->set_time_step(std::min(2. * dynamics->time_step(), data.time_step));
              last_setup_time = -1.;
            }
          cuts_in_a_row   = 0;
          summary.n_steps = step;
          summary.newton_iterations += result.iterations;
          summary.linear_iterations += result.linear_iterations;
          ++steps_this_run;
          if (interrupt_requested(communicator))
            throw Interrupted(interruption_message("at time step " + std::to_string(step) +
                                                     "; the output up to the last written step is complete",
                                                   "time", checkpoint_step, checkpoint));
          const bool last      = dynamics->time() >= time.end_time * (1. - 1e-12);
          const bool stop_here = parameters.load_stepping.steps_per_run > 0 &&
                                 steps_this_run >= parameters.load_stepping.steps_per_run && !last;
          if (step % time.output_interval == 0 || last)
            {
              dealii::Timer output_timer;
              write_output(step, result);
              output_seconds += output_timer.wall_time();
              if (root)
                std::cout << "time step " << step << ": t = " << dynamics->time() << ", " << result.iterations
                          << " Newton iterations, " << result.linear_iterations
                          << " linear iterations, energy balance " << dynamics->energies().total() - initial_energy
                          << std::endl;
            }
          if (checkpoint_due(parameters.output, step, last, stop_here, since_checkpoint, communicator))
            {
              dealii::Timer checkpoint_timer;
              write_step_checkpoint(step);
              checkpoint_seconds += checkpoint_timer.wall_time();
            }
          if (stop_here)
            {
              stopped_early = true;
              break;
            }
        }
      const double step_seconds = steps_timer.wall_time();
      timer.stop("time steps");
      finish(step_seconds);
    }

    void
    DynamicRun::finish(const double step_seconds)
    {
      summary.n_time_steps          = summary.n_steps;
      summary.end_time              = dynamics->time();
      summary.time_steps_per_second =
        steps_this_run / std::max(step_seconds - output_seconds - checkpoint_seconds, 1e-9);
      summary.add_time("of which output", output_seconds);
      if (checkpoint_seconds > 0.)
        summary.add_time("of which checkpoints", checkpoint_seconds);

      const internal::DisplacementMaxima maxima = internal::max_nodal_displacement(dynamics->displacement());
      summary.max_displacement                  = maxima.magnitude;
      if (!std::isfinite(summary.max_displacement) || !std::isfinite(dynamics->energies().total()))
        throw SolverError("the displacement is not finite");
      print_warning(thin_direction_warning(*d.triangulation, maxima.components, communicator), communicator);
      internal::append_summary(output, parameters.output, summary.line());
      output.commit();
      if (stopped_early)
        {
          if (root)
            std::cout << "stopped after " << steps_this_run
                      << " time steps of this run ('Load stepping/Steps per run'); continue with: plastix --restart "
                      << checkpoint << std::endl;
        }
      else if (root)
        {
          // The run is complete: its checkpoint is no longer needed.
          remove_checkpoint(checkpoint);
        }
    }

    RunSummary
    DynamicRun::run()
    {
      set_up();
      solve_time_steps();
      return summary;
    }
  } // namespace

  RunSummary
  DynamicProblem::run()
  {
    DynamicRun run(parameters, communicator, restart_directory);
    return run.run();
  }
} // namespace plastix
