// Incremental problems: small-strain elastoplasticity and finite-strain
// hyperelasticity over load steps, Newton-Raphson with the consistent
// tangent, step cutting, per-step output.
#include <deal.II/base/data_out_base.h>

#include <plastix/core/finite_strain_state.h>
#include <plastix/core/plasticity_state.h>
#include <plastix/core/runtime.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/load_stepping.h>
#include <plastix/solvers/newton.h>

#include "adaptive_refinement.h"
#include "checkpoint.h"
#include "discretization.h"
#include "elastic_problem.h"
#include "monitor.h"

#include "cell_quantities.h"
#include "solution_fields.h"
#include "driver_tools.h"
#include "mesh_quality.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

namespace plastix
{
  ElastoplasticProblem::ElastoplasticProblem(const Parameters &parameters, MPI_Comm communicator)
    : parameters(parameters)
    , communicator(communicator)
  {}

  namespace
  {
    /**
     * The cell averages of the Gauss-point state of @p d's operator, and the
     * quantities of 'Output/Additional quantities' (strain of @p u; nodal ones
     * into @p point_fields).
     */
    CellFields
    plastic_cell_fields(const Discretization &d, const DeviceVector &u, PointFields &point_fields)
    {
      const std::vector<double> averages = d.op.plasticity().cell_averages();
      const char *names[10] = {"stress_xx", "stress_yy", "stress_zz", "stress_yz", "stress_xz",
                               "stress_xy", "von_mises", "equivalent_plastic_strain", "plastic_fraction",
                               "hydrostatic_stress"};
      CellFields fields;
      for (unsigned int f = 0; f < 10; ++f)
        {
          std::vector<double> values(averages.size() / 10);
          for (std::size_t c = 0; c < values.size(); ++c)
            values[c] = averages[10 * c + f];
          fields.emplace_back(names[f], std::move(values));
        }
      std::vector<double> stress(6 * (averages.size() / 10));
      for (std::size_t c = 0; c < averages.size() / 10; ++c)
        std::copy_n(&averages[10 * c], 6, &stress[6 * c]);
      const std::vector<double> strain =
        d.parameters.output.writes("strain") ? d.op.cell_average_strain(u) : std::vector<double>();
      add_additional_quantities(d.parameters.output, d.dof_handler, stress, strain, fields, point_fields);
      if (d.parameters.output.writes("plastic strain"))
        add_plastic_strain(d.dof_handler, d.op.plasticity().committed_history(), fields);
      return fields;
    }

  } // namespace

  void
  ElastoplasticProblem::set_restart(const std::string &directory)
  {
    restart_directory = directory;
  }

  namespace
  {
    /**
     * One run of ElastoplasticProblem: the discretization, the Gauss-point
     * state (plastic history, or the deformation gradients at finite
     * strain), Newton and the monitor, the load steps with their output,
     * checkpoints and adaptive refinements (small strain), and the run's end.
     */
    class ElastoplasticRun
    {
    public:
      ElastoplasticRun(const Parameters &parameters, MPI_Comm communicator, const std::string &restart_directory);

      RunSummary
      run();

    private:
      /** Mesh, DoFs, operator, Gauss-point state, held force, Newton, monitor and preconditioner. */
      void
      set_up();

      /** Newton on the current discretization, with the held force, the amplified loads and the prescribed amplitude. */
      std::unique_ptr<NewtonRaphson>
      make_newton();

      /**
       * The force held at every load factor: the internal force f_0 of the
       * in-situ stress at u = 0 (the boundary loads are changes from the
       * in-situ state) plus the loads of 'Constant loads'. Again after an
       * adaptive refinement (new DoFs).
       */
      void
      compute_held_force();

      /**
       * Continue from the checkpoint: displacement, history, load-stepping
       * state and the monitor's rows; @p history_before: the history before
       * the checkpoint's step.
       */
      void
      restore_checkpoint(LoadSteppingState &start, std::vector<double> &history_before);

      /**
       * Adaptive refinement after converged load step @p at_step (load factor
       * @p at_lambda): the mesh, DoFs, operator and external force change,
       * the displacement and history move to the new cells, the state,
       * Newton iteration and monitor are rebuilt, and the step is solved
       * again at the same load factor (re-equilibration) and committed.
       * @p u_host is the displacement on the host (ghosted), which
       * adapt_mesh replaces by its transfer.
       */
      void
      adapt(dealii::LinearAlgebra::distributed::Vector<double> u_host,
            const std::vector<double>                         &history_before,
            double                                             at_lambda,
            unsigned int                                       at_step);

      /** The load steps from @p start on, until the last or 'Steps per run'. */
      void
      solve_load_steps(const LoadSteppingState &start, const std::vector<double> &restart_history_before);

      /** The monitor's row, the VTU and CSV of converged step @p step, published. */
      void
      write_step_output(unsigned int                                              step,
                        double                                                    lambda,
                        const LoadStepResult                                     &result,
                        const dealii::LinearAlgebra::distributed::Vector<double> &u_host);

      /** The checkpoint after step @p step: @p history_before is the history before it. */
      void
      write_step_checkpoint(unsigned int                                              step,
                            double                                                    lambda,
                            const LoadStepping                                       &stepping,
                            const dealii::LinearAlgebra::distributed::Vector<double> &u_host,
                            const std::vector<double>                                &history_before);

      /** The summary's totals, the warnings, the plot and the end of the checkpoint. */
      void
      finish(unsigned int step);

      /** The stress update (or finite-strain state) at Newton's u: its f_int and the tangent. */
      void
      update_state_at_u();

      /** The plastic Gauss points of the accepted step @p result (at finite strain: of its commit). */
      unsigned long long
      plastic_points_of_step(const LoadStepResult &result) const;

      /**
       * The committed Gauss-point history of this rank's cells (small strain
       * or the Hencky materials' at finite strain; empty at finite strain
       * without one).
       */
      std::vector<double>
      committed_history() const;

      /** The history values per cell of a checkpoint of this run (0: none). */
      unsigned int
      history_values_per_cell() const;

      const Parameters  &parameters;
      const MPI_Comm     communicator;
      const std::string  restart_directory;
      const bool         root;
      const bool         restart;
      /**
       * Finite strain (Problem/Kinematics: hyperelastic, or elastoplastic in
       * the logarithmic strain with Hencky materials) instead of
       * small-strain plasticity.
       */
      const bool         finite_strain;
      /** The in-situ stress (Initial stress/Stress) in the Gauss-point state. */
      const bool         initial_stress;
      /** Whether a force is held at every load factor (in-situ stress or 'Constant loads'). */
      const bool         held;
      RunSummary         summary;
      StageTimer         timer;
      StagedOutput       output;
      Discretization     d;
      LinearSolver       linear_solver;
      DeviceVector       held_force;
      std::unique_ptr<NewtonRaphson> newton;
      std::unique_ptr<Monitor>       monitor;
      std::string                    tangent_name;
      std::vector<std::pair<double, std::string>> pvd;
      const std::string checkpoint;
      unsigned int      steps_this_run  = 0;
      unsigned int      checkpoint_step = 0;
      bool              stopped_early   = false;
      /** Wall time since the run started or its last checkpoint (Output/Checkpoint wall time). */
      dealii::Timer since_checkpoint;
      /** Where the Newton stage's time goes (rank 0's clocks), printed at the end. */
      NewtonStageTimes newton_times;
    };

    ElastoplasticRun::ElastoplasticRun(const Parameters  &parameters,
                                       const MPI_Comm     communicator,
                                       const std::string &restart_directory)
      : parameters(parameters)
      , communicator(communicator)
      , restart_directory(restart_directory)
      , root(dealii::Utilities::MPI::this_mpi_process(communicator) == 0)
      , restart(!restart_directory.empty())
      , finite_strain(parameters.problem.kinematics == Kinematics::finite_strain)
      , initial_stress(!parameters.initial_stress.is_zero())
      , held(initial_stress || parameters.boundary.has_constant_loads())
      , timer(communicator, summary)
      , output(parameters.output.directory, communicator)
      , d(parameters, communicator)
      , linear_solver(parameters.solver)
      , checkpoint(checkpoint_directory(parameters.output.directory))
    {
      summary = RunSummary::for_run(communicator);
    }

    std::unique_ptr<NewtonRaphson>
    ElastoplasticRun::make_newton()
    {
      auto newton = std::make_unique<NewtonRaphson>(
        d.op, d.external_force, linear_solver,
        [this](const bool new_load_step) { d.initialize_solver(linear_solver, new_load_step); }, parameters.newton);
      if (held)
        newton->set_constant_force(held_force);
      for (const Discretization::AmplifiedForce &amplified : d.amplified_forces)
        newton->add_force(amplified.force, amplified.amplitude);
      if (d.follower_pressure)
        newton->set_follower_pressure(*d.follower_pressure, d.follower_pressure_amplitude);
      const LoadAmplitude prescribed = parameters.boundary.amplitude("dirichlet");
      if (!prescribed.follows_load_factor())
        newton->set_prescribed_amplitude(prescribed);
      return newton;
    }

    void
    ElastoplasticRun::compute_held_force()
    {
      if (!held)
        return;
      d.op.initialize_dof_vector(held_force);
      if (!initial_stress)
        {
          held_force.add(1., d.constant_force);
          return;
        }
      // f_0 = the internal force of sigma_0 alone: the committed history with
      // its plastic strains and hardening variable zeroed, at u = 0 (sigma_0
      // lies inside the yield surface, so the point is elastic; at finite
      // strain P = sigma_0 there); then the history is put back.
      const std::vector<double> history = committed_history();
      std::vector<double>       stress_only(history);
      const unsigned int        values = history_values_per_cell();
      for (std::size_t c = 0; c < stress_only.size() / values; ++c)
        std::fill_n(stress_only.begin() + c * values, 7 * 8, 0.);
      DeviceVector zero;
      d.op.initialize_dof_vector(zero);
      if (finite_strain)
        {
          FiniteStrainState &state = d.op.finite_strain();
          state.set_committed_history(stress_only);
          state.update(zero, held_force);
          state.set_committed_history(history);
        }
      else
        {
          PlasticityState &state = d.op.plasticity();
          state.set_committed_history(stress_only);
          state.update(zero, held_force);
          state.reset_trial();
          state.set_committed_history(history);
        }
      held_force.add(1., d.constant_force);
    }

    void
    ElastoplasticRun::update_state_at_u()
    {
      if (finite_strain)
        {
          if (d.op.finite_strain().update(newton->u, newton->f_int) > 0)
            throw SolverError("the displacement inverts elements (det F <= 0)");
        }
      else
        d.op.plasticity().update(newton->u, newton->f_int);
    }

    std::vector<double>
    ElastoplasticRun::committed_history() const
    {
      return finite_strain ? d.op.finite_strain().committed_history() : d.op.plasticity().committed_history();
    }

    unsigned int
    ElastoplasticRun::history_values_per_cell() const
    {
      if (!finite_strain)
        return backend::GaussPointState::history_values_per_cell;
      return d.op.finite_strain().backend_state().has_history() ? backend::FiniteStrainState::history_values_per_cell :
                                                                  0;
    }

    unsigned long long
    ElastoplasticRun::plastic_points_of_step(const LoadStepResult &result) const
    {
      return finite_strain ? d.op.finite_strain().plastic_points_of_last_step() :
                             result.newton.plastic.n_plastic_points;
    }

    void
    ElastoplasticRun::set_up()
    {
      internal::set_up_mesh_dofs_operator(d, timer, summary,
                                          restart ? checkpoint_mesh_file(restart_directory) : std::string());
      d.assemble_external_force();
      // The Gauss-point history belongs to the operator; it, the Newton
      // iteration and the monitor refer to the cells and the DoFs: an adaptive
      // refinement rebuilds them.
      if (finite_strain)
        d.op.enable_finite_strain();
      else
        d.op.enable_plasticity();
      // A restart and an adaptive refinement carry the in-situ stress in the history.
      if (initial_stress && !restart)
        try
          {
            if (finite_strain)
              d.op.finite_strain().set_initial_stress(d.dof_handler, parameters.initial_stress.function());
            else
              d.op.plasticity().set_initial_stress(d.dof_handler, parameters.initial_stress.function());
          }
        catch (const std::invalid_argument &error)
          {
            throw InputError("Initial stress/Stress", error.what());
          }
      compute_held_force();
      newton  = make_newton();
      monitor = std::make_unique<Monitor>(d, parameters.monitor);
      // The tangent and f_int of the initial state.
      update_state_at_u();
      timer.stop("operator");

      // The preconditioner's structure (multigrid hierarchy, AMG) once per
      // run, for the elastic operator; the Newton solves refresh only what
      // follows the tangent.
      timer.start();
      internal::set_up_preconditioner(d, linear_solver);
      tangent_name = finite_strain ? std::string(d.op.has_symmetric_tangent() ? "consistent finite-strain tangent" :
                                                 "consistent non-symmetric finite-strain tangent") :
                     parameters.newton.tangent == NewtonTangent::initial_stiffness ?
                                     std::string("initial stiffness with Thomas acceleration") :
                     d.op.has_symmetric_tangent() ? std::string("consistent tangent") :
                                                    std::string("consistent non-symmetric tangent");
      summary.solver = linear_solver.name() + ", " + tangent_name;
      if (root)
        std::cout << "  Newton: " << summary.solver << std::endl;
      timer.stop("preconditioner");
    }

    void
    ElastoplasticRun::restore_checkpoint(LoadSteppingState &start, std::vector<double> &history_before)
    {
      dealii::LinearAlgebra::distributed::Vector<double> u_host(d.op.get_partitioner());
      std::vector<double>                                history;
      read_checkpoint_data(dynamic_cast<const dealii::parallel::distributed::Triangulation<3> &>(*d.triangulation),
                           d.dof_handler, {&u_host}, history, history_values_per_cell());
      start = read_load_stepping_state(restart_directory);
      if (start.target_index > parameters.load_stepping.load_factors.size() ||
          start.monitor_rows.size() != start.step || start.monitor_values.size() != start.step)
        throw InputError("--restart", "the load-stepping state of '" + restart_directory +
                                        "' does not fit its parameter file");
      // The checkpoint holds the history before its last step and the
      // displacement after it: the stress update and commit repeat that
      // step's last ones, so the run continues exactly as it would have.
      newton->u.copy_from_host(u_host);
      if (finite_strain)
        {
          FiniteStrainState &state = d.op.finite_strain();
          state.set_committed_history(history);
          update_state_at_u();
          state.commit();
        }
      else
        {
          PlasticityState &state = d.op.plasticity();
          state.set_committed_history(history);
          compute_held_force();
          state.update(newton->u, newton->f_int);
          state.commit();
        }
      newton->lambda_previous = start.lambda_previous;
      newton->force_scale     = start.force_scale;
      monitor->restore(start);
      history_before            = std::move(history);
      pvd                       = start.pvd;
      summary.newton_iterations = start.newton_iterations;
      summary.linear_iterations = start.linear_iterations;
      summary.n_cuts            = start.n_cuts;
      checkpoint_step           = start.step;
      if (root)
        std::cout << "continuing from the checkpoint of load step " << start.step << " (load factor "
                  << start.lambda << ") in " << restart_directory << std::endl;
    }

    void
    ElastoplasticRun::adapt(dealii::LinearAlgebra::distributed::Vector<double> u_host,
                            const std::vector<double>                         &history_before,
                            const double                                       at_lambda,
                            const unsigned int                                 at_step)
    {
      timer.start();
      std::vector<double> history = committed_history();
      // Finite strain without a Hencky material has no history: zeros carry nothing through the transfer.
      const bool no_history = history.empty();
      if (no_history)
        history.assign(backend::FiniteStrainState::history_values_per_cell *
                         static_cast<std::size_t>(d.op.n_locally_owned_cells()),
                       0.);
      LoadSteppingState rows;
      monitor->save(rows);
      const double lambda_previous = newton->lambda_previous, force_scale = newton->force_scale;
      const AdaptationStatistics adaptation =
        adapt_mesh(d, u_host, history, no_history ? history : history_before, [&]() {
          newton.reset();
          if (finite_strain)
            d.op.disable_finite_strain();
          else
            d.op.disable_plasticity();
        });
      if (!adaptation.changed())
        {
          timer.stop("adaptation");
          if (root)
            std::cout << "  adaptive refinement after load step " << at_step << ": no cell marked" << std::endl;
          return;
        }
      if (finite_strain)
        {
          FiniteStrainState &state = d.op.enable_finite_strain();
          if (!no_history)
            state.set_committed_history(history);
        }
      else
        d.op.enable_plasticity().set_committed_history(history);
      compute_held_force();
      newton = make_newton();
      newton->u.copy_from_host(u_host);
      d.op.set_constrained_values(newton->u, parameters.boundary.amplitude("dirichlet")(at_lambda));
      newton->lambda_previous = lambda_previous;
      newton->force_scale     = force_scale;
      update_state_at_u();
      monitor = std::make_unique<Monitor>(d, parameters.monitor);
      monitor->restore(rows);
      d.initialize_solver(linear_solver, true);
      ++summary.n_adaptations;
      summary.n_dofs  = adaptation.dofs_after;
      summary.n_cells = adaptation.cells_after;
      timer.stop("adaptation");
      // The transferred state is not in equilibrium on the new mesh.
      timer.start();
      const NewtonResult result = newton->step(at_lambda, at_lambda, at_step, false);
      summary.newton_iterations += result.iterations;
      summary.linear_iterations += result.linear_iterations;
      newton_times += result.times;
      timer.stop("newton");
      if (!result.converged)
        throw SolverError("re-equilibration after the adaptive refinement of load step " + std::to_string(at_step) +
                          " failed: " + result.failure + "; last relative residual " +
                          std::to_string(result.relative_residual));
      if (finite_strain)
        d.op.finite_strain().commit();
      else
        d.op.plasticity().commit();
      if (root)
        std::cout << "  adaptive refinement after load step " << at_step << ": " << adaptation.n_refined
                  << " cells refined, " << adaptation.n_coarsened << " coarsened; " << adaptation.cells_before
                  << " -> " << adaptation.cells_after << " cells, " << adaptation.dofs_before << " -> "
                  << adaptation.dofs_after << " DoFs; re-equilibrated in " << result.iterations
                  << " Newton iterations (|R|/F = " << result.relative_residual << ")" << std::endl;
    }

    void
    ElastoplasticRun::write_step_output(const unsigned int                                        step,
                                        const double                                              lambda,
                                        const LoadStepResult                                     &result,
                                        const dealii::LinearAlgebra::distributed::Vector<double> &u_host)
    {
      timer.start();
      monitor->record(step, lambda, result.newton.iterations, result.newton.linear_iterations,
                      plastic_points_of_step(result), u_host, newton->f_int);
      if (parameters.output.write_vtu)
        {
          PointFields point_fields;
          CellFields  fields = finite_strain ? finite_strain_cell_fields(d, u_host, point_fields) :
                                               plastic_cell_fields(d, newton->u, point_fields);
          d.add_geometry_fields(fields);
          const std::string pvtu =
            d.write_vtu(output, newton->u, fields, parameters.output.base_name, step, point_fields);
          pvd.emplace_back(lambda, pvtu);
          std::ostringstream pvd_text;
          dealii::DataOutBase::write_pvd_record(pvd_text, pvd);
          output.write_text(parameters.output.base_name + ".pvd", pvd_text.str());
        }
      output.write_text(parameters.output.base_name + ".csv", monitor->csv());
      // Each converged step's files are complete: publish them.
      output.commit();
      timer.stop("output");
    }

    void
    ElastoplasticRun::write_step_checkpoint(const unsigned int                                        step,
                                            const double                                              lambda,
                                            const LoadStepping                                       &stepping,
                                            const dealii::LinearAlgebra::distributed::Vector<double> &u_host,
                                            const std::vector<double>                                &history_before)
    {
      timer.start();
      LoadSteppingState now;
      now.step              = step;
      now.target_index      = stepping.position().target_index;
      now.increment         = stepping.position().increment;
      now.cuts_to_target    = stepping.position().cuts_to_target;
      now.lambda            = lambda;
      now.lambda_previous   = newton->lambda_previous;
      now.force_scale       = newton->force_scale;
      now.newton_iterations = summary.newton_iterations;
      now.linear_iterations = summary.linear_iterations;
      now.n_cuts            = summary.n_cuts;
      now.pvd               = pvd;
      monitor->save(now);
      write_checkpoint(checkpoint, d.checkpoint_parameter_text(), parameters.mesh, *d.triangulation, d.dof_handler,
                       {&u_host}, history_before, history_values_per_cell(), now);
      checkpoint_step = step;
      timer.stop("checkpoint");
      since_checkpoint.restart();
    }

    void
    ElastoplasticRun::solve_load_steps(const LoadSteppingState &start, const std::vector<double> &restart_history_before)
    {
      LoadStepping stepping(parameters.load_stepping,
                            {start.step, start.target_index, start.lambda, start.increment, start.cuts_to_target});
      try
        {
          // A checkpoint is written before the adaptation of its step: repeat
          // it (inside the try: an interruption of its re-equilibration names
          // the checkpoint like any other).
          if (restart && parameters.mesh.adaptive.due_after(start.step))
            adapt(d.to_host(newton->u), restart_history_before, start.lambda, start.step);
          while (!stepping.finished())
            {
              timer.start();
              const LoadStepResult result = stepping.solve_step(*newton, root, [&]() {
                if (interrupt_requested(communicator))
                  throw Interrupted("before load step " + std::to_string(stepping.position().step + 1));
              });
              summary.newton_iterations += result.newton_iterations;
              summary.linear_iterations += result.linear_iterations;
              summary.n_cuts += result.cuts;
              newton_times += result.times;
              timer.stop("newton");
              ++steps_this_run;
              const bool last_step = stepping.is_last_step(result);
              const bool stop_here = parameters.load_stepping.steps_per_run > 0 &&
                                     steps_this_run >= parameters.load_stepping.steps_per_run && !last_step;
              const unsigned int step = stepping.position().step + 1;
              const bool write_checkpoint_now =
                checkpoint_due(parameters.output, step, last_step, stop_here, since_checkpoint, communicator);
              // The mesh adapts after the step's output and checkpoint,
              // unless the run ends or stops here (a restart adapts then).
              const bool adapt_now = !last_step && !stop_here && parameters.mesh.adaptive.due_after(step);
              // A checkpoint holds the history before this step (the
              // restart repeats the step's last stress update); the
              // plastic-strain indicator compares with it.
              std::vector<double> history_before;
              if (write_checkpoint_now ||
                  (adapt_now && parameters.mesh.adaptive.indicator == RefinementIndicator::plastic_strain_increment))
                history_before = committed_history();
              stepping.accept_step(*newton, result);
              const double lambda       = stepping.load_factor();
              summary.final_residual    = result.newton.residual;
              summary.relative_residual = result.newton.relative_residual;

              const auto u_host = d.to_host(newton->u);
              write_step_output(step, lambda, result, u_host);
              if (write_checkpoint_now)
                write_step_checkpoint(step, lambda, stepping, u_host, history_before);
              if (root)
                {
                  std::cout << "load step " << step << ": load factor " << lambda << ", " << result.newton.iterations
                            << " Newton iterations, " << result.newton.linear_iterations << " linear iterations";
                  if (!finite_strain || d.op.finite_strain().backend_state().has_history())
                    std::cout << ", " << plastic_points_of_step(result) << " plastic Gauss points";
                  std::cout << std::endl;
                }
              if (adapt_now)
                adapt(u_host, history_before, lambda, step);
              if (stop_here)
                {
                  stopped_early = true;
                  break;
                }
            }
        }
      catch (const Interrupted &where)
        {
          throw Interrupted(interruption_message(where.what(), "load", checkpoint_step, checkpoint));
        }
      finish(stepping.position().step);
    }

    void
    ElastoplasticRun::finish(const unsigned int step)
    {
      summary.n_steps = step;
      // The coarse solver may have changed in the Newton steps (automatic's switch to the dense inverse).
      summary.solver         = linear_solver.name() + ", " + tangent_name;
      summary.yielded_points =
        finite_strain ? d.op.finite_strain().n_yielded_points() : d.op.plasticity().n_yielded_points();
      const internal::DisplacementMaxima maxima = internal::max_nodal_displacement(newton->u);
      summary.max_displacement                  = maxima.magnitude;
      if (parameters.output.write_vtu && !pvd.empty())
        summary.output_file = (std::filesystem::path(parameters.output.directory) / pvd.back().second).string();
      if (!std::isfinite(summary.max_displacement))
        throw SolverError("the displacement is not finite");
      // Large displacements are what a finite-strain run is for.
      if (!finite_strain)
        print_warning(deformation_warning(summary.max_displacement, *d.triangulation, communicator), communicator);
      print_warning(thin_direction_warning(*d.triangulation, maxima.components, communicator), communicator);
      if (root)
        std::cout << "  newton: time [s]: " << newton_times.description() << std::endl;
      internal::append_summary(output, parameters.output, summary.line());
      // The plot once per run (gnuplot takes a fraction of a second per
      // call), next to the CSV staged once more with it.
      if (parameters.monitor.write_plot && step > 0)
        {
          output.write_text(parameters.output.base_name + ".csv", monitor->csv());
          if (root)
            monitor->plot(output.staged_directory(), parameters.output.base_name,
                          parameters.output.base_name + ".csv");
        }
      output.commit();
      if (stopped_early)
        {
          if (root)
            std::cout << "stopped after " << steps_this_run
                      << " load steps of this run ('Load stepping/Steps per run'); "
                      << (checkpoint_step == step ? "continue with: plastix --restart " + checkpoint :
                                                    std::string("no checkpoint was written"))
                      << std::endl;
        }
      else if (root)
        {
          // The run is complete: its checkpoint is no longer needed.
          remove_checkpoint(checkpoint);
        }
    }

    RunSummary
    ElastoplasticRun::run()
    {
      set_up();
      // Where the load stepping starts: load factor 0, or a checkpoint.
      timer.start();
      LoadSteppingState   start;
      std::vector<double> restart_history_before;
      if (restart)
        {
          restore_checkpoint(start, restart_history_before);
          timer.stop("restart");
        }
      else
        monitor->report_distant_points();
      solve_load_steps(start, restart_history_before);
      return summary;
    }
  } // namespace

  RunSummary
  ElastoplasticProblem::run()
  {
    ElastoplasticRun run(parameters, communicator, restart_directory);
    return run.run();
  }
} // namespace plastix
