// Krylov solvers on DeviceVectors.
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria_base.h>
#include <deal.II/lac/affine_constraints.templates.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/lac/solver_gmres.h>

#include <plastix/solvers/belos_solver.h>
#include <plastix/solvers/direct_solver.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/preconditioners.h>

#include <cmath>
#include <iostream>
#include <sstream>

namespace plastix
{
  namespace
  {
    /** Print "plastix: warning: <message>" on standard error of rank 0 of @p op's communicator. */
    void
    warn_on_rank_0(const MechanicsOperator &op, const std::string &message)
    {
      if (dealii::Utilities::MPI::this_mpi_process(op.get_partitioner()->get_mpi_communicator()) == 0)
        std::cerr << "plastix: warning: " << message << std::endl;
    }
  } // namespace

  bool
  LinearSolverData::is_conjugate_gradients() const
  {
    return type == SolverType::cg || type == SolverType::belos_cg;
  }

  LinearSolver::LinearSolver(const LinearSolverData &data)
    : parameters(data)
  {
    if (!parameters.type.is_resolved())
      throw std::invalid_argument("plastix::LinearSolver: LinearSolverData::type is automatic; resolve it "
                                  "(AutoOr::resolve()) to a solver type first");
    parameters.direct_package.resolve(DirectSolver::automatic_package());
    // A direct solve needs no preconditioner.
    if (parameters.type == SolverType::direct)
      {
        parameters.preconditioner = PreconditionerType::none;
        DirectSolver::assert_available(parameters.direct_package.value);
      }
  }

  LevelPrecision
  LinearSolver::level_precision(const LinearSolverData &parameters)
  {
    if (!parameters.multigrid.level_precision.automatic)
      return parameters.multigrid.level_precision.value;
    return parameters.is_conjugate_gradients() ? LevelPrecision::single_precision : LevelPrecision::double_precision;
  }

  PreconditionerType
  LinearSolver::automatic_preconditioner(const dealii::Triangulation<3>       &triangulation,
                                         const dealii::types::global_dof_index n_constraint_lines_with_entries,
                                         const double                          cell_stiffness_contrast)
  {
    if (n_constraint_lines_with_entries > 0 || cell_stiffness_contrast > max_multigrid_stiffness_contrast)
      return PreconditionerType::chebyshev;
    // A serial triangulation always keeps its levels; a distributed one only
    // with construct_multigrid_hierarchy.
    const auto *parallel = dynamic_cast<const dealii::parallel::TriangulationBase<3> *>(&triangulation);
    if ((parallel != nullptr && !parallel->is_multilevel_hierarchy_constructed()) ||
        triangulation.n_global_levels() < 2)
      return PreconditionerType::chebyshev;
    return all_active_cells_on_finest_level(triangulation) ? PreconditionerType::multigrid :
                                                             PreconditionerType::chebyshev;
  }

  PreconditionerType
  LinearSolver::automatic_preconditioner(const MechanicsOperator &op, const dealii::DoFHandler<3> *dof_handler)
  {
    if (dof_handler == nullptr)
      return PreconditionerType::chebyshev;
    return automatic_preconditioner(dof_handler->get_triangulation(), op.n_hanging_node_constraints(),
                                    op.cell_stiffness_contrast());
  }

  PreconditionerType
  LinearSolver::automatic_preconditioner(const dealii::DoFHandler<3>             &dof_handler,
                                         const dealii::AffineConstraints<double> &constraints,
                                         const CellStiffnessFactor               &cell_stiffness_factor)
  {
    const dealii::IndexSet         &owned = dof_handler.locally_owned_dofs();
    dealii::types::global_dof_index n_lines_with_entries = 0;
    for (const auto &line : constraints.get_lines())
      if (!line.entries.empty() && owned.is_element(line.index))
        ++n_lines_with_entries;
    const auto &triangulation = dof_handler.get_triangulation();
    return automatic_preconditioner(
      triangulation, dealii::Utilities::MPI::sum(n_lines_with_entries, dof_handler.get_communicator()),
      MechanicsOperator::cell_stiffness_contrast(triangulation, cell_stiffness_factor));
  }

  LinearSolver::~LinearSolver() = default;

  void
  LinearSolver::initialize(const MechanicsOperator &new_op, const bool new_load_step)
  {
    if (parameters.preconditioner.automatic)
      parameters.preconditioner.resolve(automatic_preconditioner(new_op, nullptr));
    if (parameters.preconditioner == PreconditionerType::multigrid || parameters.preconditioner == PreconditionerType::amg)
      throw std::invalid_argument("LinearSolver: preconditioner '" + enum_name(parameters.preconditioner.value) +
                                  "' needs the DoFHandler, materials and Dirichlet boundaries: use "
                                  "initialize(op, dof_handler, materials, dirichlet_boundaries)");
    dealii::Timer timer;
    const bool    new_operator = op != &new_op || op_layout != new_op.get_partitioner();
    op                         = &new_op;
    op_layout                  = new_op.get_partitioner();
    dof_handler                = nullptr;
    const bool refresh         = new_operator || parameters.reuse_preconditioner == PreconditionerReuse::never ||
                         (parameters.reuse_preconditioner == PreconditionerReuse::load_step && new_load_step);
    if (refresh)
      refresh_operator_dependent_parts();
    setup_time = refresh ? timer.wall_time() : 0.;
  }

  void
  LinearSolver::initialize(const MechanicsOperator                 &new_op,
                           const dealii::DoFHandler<3>             &new_dof_handler,
                           const MaterialTable                     &materials,
                           const DirichletBoundaries               &dirichlet,
                           const bool                               new_load_step)
  {
    dealii::Timer timer;
    const bool new_operator = op != &new_op || op_layout != new_op.get_partitioner() || dof_handler != &new_dof_handler;
    if (parameters.preconditioner.automatic && new_operator)
      parameters.preconditioner.resolve(automatic_preconditioner(new_op, &new_dof_handler));
    op                      = &new_op;
    op_layout               = new_op.get_partitioner();
    dof_handler             = &new_dof_handler;
    if (new_operator)
      {
        // The structure: multigrid hierarchy (it also sets up its finest
        // smoother) or the AMG of the elastic matrix; then the diagonal.
        multigrid.reset();
        amg.reset();
        if (parameters.preconditioner == PreconditionerType::multigrid)
          {
            multigrid_materials           = materials;
            multigrid_dirichlet           = dirichlet;
            build_multigrid();
          }
        else if (parameters.preconditioner == PreconditionerType::amg)
          {
            amg = std::make_unique<AmgPreconditioner>();
            amg->initialize(new_op, new_dof_handler, materials, parameters.amg);
          }
        if (!multigrid)
          refresh_operator_dependent_parts();
        else
          ++n_setups;
        setup_time = timer.wall_time();
        return;
      }
    const bool refresh =
      parameters.reuse_preconditioner == PreconditionerReuse::never ||
      (parameters.reuse_preconditioner == PreconditionerReuse::load_step && new_load_step);
    if (refresh)
      refresh_operator_dependent_parts();
    setup_time = refresh ? timer.wall_time() : 0.;
  }

  void
  LinearSolver::build_multigrid()
  {
    MultigridData data   = parameters.multigrid;
    data.level_precision = level_precision(parameters);
    data.coarse_amg      = parameters.amg;
    multigrid                             = std::make_unique<MultigridPreconditioner>();
    try
      {
        multigrid->initialize(*op, *dof_handler, multigrid_materials, multigrid_dirichlet, data);
      }
    catch (const dealii::SolverControl::NoConvergence &error)
      {
        // Half set up: gone before anything (name()) looks at it.
        multigrid.reset();
        if (data.level_precision != LevelPrecision::single_precision)
          throw setup_failure(error);
        switch_to_double_levels(std::string(setup_failure(error).what()));
      }
  }

  void
  LinearSolver::switch_to_double_levels(const std::string &reason)
  {
    warn_on_rank_0(*op, "the multigrid with single-precision levels failed (" + reason +
                          "); it is rebuilt with double-precision levels, which it keeps");
    parameters.multigrid.level_precision = LevelPrecision::double_precision;
    switched_to_double                   = true;
    build_multigrid();
  }

  SolverError
  LinearSolver::setup_failure(const dealii::SolverControl::NoConvergence &error) const
  {
    std::ostringstream message;
    message << name() << ": the set-up of the preconditioner failed: the CG iteration that estimates the "
            << "eigenvalues stopped at residual " << error.last_residual << " after " << error.last_step
            << " iterations (a non-finite or badly scaled operator?)";
    return SolverError(message.str());
  }

  void
  LinearSolver::refresh_operator_dependent_parts()
  {
    // A failed eigenvalue estimate (Chebyshev, multigrid smoother) is a solver error.
    try
      {
        ++n_setups;
        chebyshev.reset();
        jacobi.reset();
        if (parameters.type == SolverType::direct)
          {
            if (direct == nullptr)
              direct = std::make_unique<DirectSolver>(parameters.direct_package.value);
            try
              {
                direct->initialize(*op);
              }
            catch (const std::runtime_error &error)
              {
                throw SolverError(name() + ": " + error.what());
              }
          }
        if (parameters.preconditioner == PreconditionerType::jacobi ||
            parameters.preconditioner == PreconditionerType::chebyshev)
          {
            jacobi = std::make_shared<Jacobi>();
            op->compute_inverse_diagonal(jacobi->get_vector());
          }
        if (parameters.preconditioner == PreconditionerType::chebyshev)
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
        // The coarser multigrid levels and AMG are elastic: only the finest
        // smoother follows the operator.
        if (multigrid)
          multigrid->update_fine_level();
      }
    catch (const dealii::SolverControl::NoConvergence &error)
      {
        if (!multigrid || multigrid->level_precision() != LevelPrecision::single_precision)
          throw setup_failure(error);
        multigrid.reset();
        switch_to_double_levels(setup_failure(error).what());
      }
  }

  SolverStatistics
  LinearSolver::solve(DeviceVector &x, const DeviceVector &b, const double tolerance_override)
  {
    if (!multigrid || multigrid->level_precision() != LevelPrecision::single_precision)
      return solve_once(x, b, tolerance_override);
    const DeviceVector initial(x);
    try
      {
        return solve_once(x, b, tolerance_override);
      }
    catch (const SolverError &error)
      {
        // Once more with double-precision levels. If that fails too, the
        // failure is the problem's (a singular tangent, too few
        // iterations), not the precision's: the single-precision
        // multigrid comes back and the first error stands.
        const AutoOr<LevelPrecision> requested = parameters.multigrid.level_precision;
        dealii::Timer                timer;
        parameters.multigrid.level_precision = LevelPrecision::double_precision;
        build_multigrid();
        ++n_setups;
        const double rebuild_time = timer.wall_time();
        x                         = initial;
        try
          {
            SolverStatistics statistics = solve_once(x, b, tolerance_override);
            statistics.setup_time += rebuild_time;
            switched_to_double = true;
            warn_on_rank_0(*op, "the multigrid with single-precision levels failed (" + std::string(error.what()) +
                                  "); the solve succeeded with double-precision levels, which the multigrid keeps");
            return statistics;
          }
        catch (const SolverError &)
          {
            parameters.multigrid.level_precision = requested;
            build_multigrid();
            ++n_setups;
            x = initial;
            throw error;
          }
      }
  }

  bool
  LinearSolver::switched_to_double_levels() const
  {
    return switched_to_double;
  }

  namespace
  {
    /**
     * deal.II's SolverControl that also fails a solve whose residual has
     * reached no new minimum for a number of iterations (0: never).
     */
    class StagnationControl : public dealii::SolverControl
    {
    public:
      StagnationControl(const unsigned int max_iterations, const double tolerance, const unsigned int window)
        : dealii::SolverControl(max_iterations, tolerance, false, false)
        , window(window)
      {}

      dealii::SolverControl::State
      check(const unsigned int step, const double value) override
      {
        const State state = dealii::SolverControl::check(step, value);
        if (state != iterate || window == 0)
          return state;
        if (step == 0 || value < best)
          {
            best      = value;
            best_step = step;
          }
        else if (step - best_step >= window)
          {
            stagnated = true;
            return failure;
          }
        return state;
      }

      /** Whether the last solve ended for want of progress. */
      bool stagnated = false;

    private:
      unsigned int window;
      double       best      = 0;
      unsigned int best_step = 0;
    };
  } // namespace

  SolverStatistics
  LinearSolver::solve_once(DeviceVector &x, const DeviceVector &b, const double tolerance_override)
  {
    AssertThrow(op != nullptr, dealii::ExcMessage("LinearSolver::solve before initialize"));
    SolverStatistics statistics;
    statistics.setup_time = setup_time;
    const double b_norm   = b.l2_norm();
    const double tolerance =
      tolerance_override > 0 ? tolerance_override :
                               std::max(parameters.relative_tolerance * b_norm, parameters.absolute_tolerance);
    dealii::Timer timer;

    auto failure = [&](const double residual, const unsigned int iterations, const bool stagnated = false) {
      std::ostringstream message;
      message << name() << " did not converge: residual " << residual << " after " << iterations
              << " iterations, target " << tolerance << " (|b| = " << b_norm << "); ";
      if (stagnated)
        message << "it stagnated (no smaller residual in the last " << parameters.stagnation_iterations
                << " iterations, 'Linear solver/Stagnation iterations')";
      else if (iterations < parameters.max_iterations && std::isfinite(residual))
        message << "it diverged (the residual grew beyond 'Linear solver/Divergence factor' = "
                << parameters.divergence_factor << " times the initial one)";
      else
        message << "raise 'Linear solver/Maximum iterations' or use a stronger preconditioner";
      // Slender and thin bodies defeat the iterative solvers but factorize
      // cheaply (doc/solvers.md, "The sparse direct solver").
      if (op != nullptr && op->m() <= direct_solver_hint_size)
        message << "; a problem of " << op->m() << " DoFs may take the sparse direct solver ('Linear "
                << "solver/Type = direct')";
      return SolverError(message.str());
    };

    if (parameters.type == SolverType::direct)
      {
        try
          {
            statistics.final_residual = direct->solve(x, b);
          }
        catch (const std::runtime_error &error)
          {
            throw SolverError(name() + ": " + error.what());
          }
        statistics.solve_time       = timer.wall_time();
        statistics.iterations       = 1;
        statistics.initial_residual = b_norm;
        return statistics;
      }
    if (parameters.type == SolverType::belos_cg || parameters.type == SolverType::belos_gmres ||
        parameters.type == SolverType::belos_minres)
      {
        BelosSolverData data;
        data.type           = parameters.type == SolverType::belos_cg    ? BelosSolverType::cg :
                              parameters.type == SolverType::belos_gmres ? BelosSolverType::gmres :
                                                                           BelosSolverType::minres;
        data.tolerance      = tolerance;
        data.max_iterations = parameters.max_iterations;
        data.gmres_restart  = parameters.gmres_restart;
        const BelosOperator A = BelosOperator::from(*op);
        std::unique_ptr<BelosOperator> M;
        if (chebyshev)
          M = std::make_unique<BelosOperator>(BelosOperator::from(*chebyshev));
        else if (jacobi)
          M = std::make_unique<BelosOperator>(BelosOperator::from(*jacobi));
        else if (multigrid)
          M = std::make_unique<BelosOperator>(BelosOperator::from(*multigrid));
        else if (amg)
          M = std::make_unique<BelosOperator>(BelosOperator::from(*amg));
        const BelosStatistics result = solve_with_belos(A, M.get(), x, b, data);
        if (!result.converged)
          throw failure(result.final_residual, result.iterations);
        statistics.solve_time       = timer.wall_time();
        statistics.iterations       = result.iterations;
        statistics.initial_residual = result.initial_residual;
        statistics.final_residual   = result.final_residual;
        return statistics;
      }

    StagnationControl control(parameters.max_iterations, tolerance, parameters.stagnation_iterations);
    control.enable_history_data();
    if (parameters.divergence_factor > 0)
      control.set_failure_criterion(parameters.divergence_factor);
    try
      {
        auto run = [&](auto &solver) {
          if (chebyshev)
            solver.solve(*op, x, b, *chebyshev);
          else if (jacobi)
            solver.solve(*op, x, b, *jacobi);
          else if (multigrid)
            solver.solve(*op, x, b, *multigrid);
          else if (amg)
            solver.solve(*op, x, b, *amg);
          else
            solver.solve(*op, x, b, dealii::PreconditionIdentity());
        };
        if (parameters.type == SolverType::cg)
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
    catch (const dealii::SolverControl::NoConvergence &error)
      {
        throw failure(error.last_residual, error.last_step, control.stagnated);
      }
    statistics.solve_time       = timer.wall_time();
    statistics.iterations       = control.last_step();
    statistics.final_residual   = control.last_value();
    statistics.initial_residual = control.get_history_data().empty() ? 0. : control.get_history_data().front();
    return statistics;
  }

  SolverType
  LinearSolver::solver_type() const
  {
    return parameters.type.value;
  }

  bool
  LinearSolver::needs_symmetric_operator() const
  {
    return parameters.type.is_resolved() && plastix::needs_symmetric_operator(parameters.type.value);
  }

  std::string
  LinearSolver::name() const
  {
    if (parameters.type == SolverType::direct)
      return "direct (" + DirectSolver::package_name(parameters.direct_package.value) +
             (parameters.type.automatic ? ", auto)" : ")");
    std::string text = parameters.type.description() + " + " + enum_name(parameters.preconditioner.value);
    if (multigrid)
      text += " (coarse " + std::string(multigrid->coarse_solver_switched() ? "cg, then " : "") +
              to_string(multigrid->coarse_solver()) +
              (multigrid->level_precision() == LevelPrecision::single_precision ? ", single" : "") + ")";
    if (parameters.preconditioner.automatic)
      text += " (auto)";
    return text;
  }

  std::string
  LinearSolver::preconditioner_description() const
  {
    if (multigrid)
      return "multigrid, " + multigrid->description();
    if (chebyshev)
      return "chebyshev, degree " + std::to_string(parameters.chebyshev_degree) + " around the inverse diagonal";
    if (jacobi)
      return "jacobi (inverse matrix-free diagonal)";
    if (amg)
      return "amg (Trilinos ML on the assembled elastic matrix, host)";
    if (direct)
      return "none (direct: " + DirectSolver::package_name(parameters.direct_package.value) +
             " of the assembled matrix, host)";
    return enum_name(parameters.preconditioner.value);
  }

  unsigned int
  LinearSolver::n_preconditioner_setups() const
  {
    return n_setups;
  }

  const MultigridPreconditioner *
  LinearSolver::get_multigrid() const
  {
    return multigrid.get();
  }
} // namespace plastix
