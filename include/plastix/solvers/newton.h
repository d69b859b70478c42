// Newton-Raphson on the device for small-strain plasticity (J2, Mohr-Coulomb,
// Drucker-Prager) and finite-strain hyperelasticity: one load step at a time,
// with the consistent tangent, inexact linear solves, an optional
// backtracking line search and the prescribed displacements held exactly.
// The application's load stepping (ElastoplasticProblem) runs on it; a user
// program with its own mesh and loads can too (examples/plasticity).
#ifndef PLASTIX_SOLVERS_NEWTON_H
#define PLASTIX_SOLVERS_NEWTON_H

#include <plastix/base/enum_patterns.h>
#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace plastix
{
  class FollowerPressure;
  class LinearSolver;

  /** The operator of the linear solves of NewtonRaphson ('Newton/Tangent'). */
  enum class NewtonTangent
  {
    /** The consistent tangent: quadratic convergence; not symmetric for non-associative flow. */
    consistent,
    /**
     * The elastic operator in every iteration, with Thomas' acceleration
     * (the modified initial stiffness method: Thomas 1984; Sloan, Sheng and
     * Abbo 2000): symmetric whatever the flow rule, one preconditioner per
     * load step, linear convergence.
     */
    initial_stiffness
  };

  template <>
  struct EnumNames<NewtonTangent>
  {
    static constexpr const char *what = "Newton tangent";
    static std::vector<std::pair<NewtonTangent, std::string>>
    table()
    {
      return {{NewtonTangent::consistent, "consistent"}, {NewtonTangent::initial_stiffness, "initial stiffness"}};
    }
  };

  /** Settings of NewtonRaphson (the 'Newton' subsection of the application's .prm). */
  struct NewtonData
  {
    /** Newton iterations per load step before the step counts as failed. */
    unsigned int max_iterations = 25;
    /** Converged when |R| <= tolerance * max(|f_ext|, |reactions|, the largest such force so far) ... */
    double residual_tolerance = 1e-8;
    /** ... and |du| <= tolerance * |u|. */
    double displacement_tolerance = 1e-8;
    /** Largest relative tolerance of the linear solves (inexact Newton forcing term). */
    double max_forcing_term = 1e-2;
    /** Smallest relative tolerance of the linear solves. */
    double min_forcing_term = 1e-10;
    /** A step fails if the residual grows by more than this factor. */
    double divergence_factor = 1e6;
    /** The operator of the linear solves. */
    NewtonTangent tangent = NewtonTangent::consistent;
    /**
     * Backtracking steps of the line search per Newton iteration: where the
     * full correction du leaves a residual that is not finite (an inverted
     * element at finite strain) or not smaller than the last one, the step
     * length is halved, at most this many times. 0: full Newton steps.
     */
    unsigned int line_search_steps = 0;
  };

  /**
   * Wall-clock seconds of the parts of Newton steps. Each part ends in a
   * reduction to the host (a norm, a statistic, a convergence check), so
   * the device work it queued is inside its time.
   */
  struct NewtonStageTimes
  {
    /** Stress updates (radial return, internal force and tangent data). */
    double stress_updates = 0;
    /** Out-of-balance forces and their norms. */
    double residuals = 0;
    /** Preconditioner refreshes after a tangent change (the linear solver's initialize()). */
    double preconditioner = 0;
    /** Linear solves. */
    double linear_solves = 0;

    /** Add the times of @p other. */
    NewtonStageTimes &
    operator+=(const NewtonStageTimes &other);

    /** "stress updates 0.12, residuals 0.01, preconditioner 0.3, linear solves 1.2". */
    std::string
    description() const;
  };

  /** Outcome of the Newton iteration of one load step. */
  struct NewtonResult
  {
    /** The tolerances were met. */
    bool converged = false;
    /** Newton iterations done. */
    unsigned int iterations = 0;
    /** Linear solver iterations of all of them (the predictor included). */
    unsigned int linear_iterations = 0;
    /** |R| of the last iteration (unconstrained rows). */
    double residual = 0;
    /** residual / reference. */
    double relative_residual = 0;
    /** The force the residual is measured against. */
    double reference = 0;
    /** Why the step failed (empty if it converged). */
    std::string failure;
    /** Plastic Gauss points of the last stress update. */
    StressUpdateStatistics plastic;
    /** Gauss points with det F <= 0 at the last iterate (finite strain; all ranks). */
    unsigned long long inverted_points = 0;
    /** Step-length halvings of the line search (NewtonData::line_search_steps), all iterations. */
    unsigned int line_search_cuts = 0;
    /** Where the step's time went. */
    NewtonStageTimes times;
  };

  /**
   * Newton-Raphson for the equilibrium f_int(u) = lambda f_ext (+ f_0, a
   * constant force: set_constant_force(); + a_k(lambda) f_k, forces with
   * their own amplitudes: add_force(); + a(lambda) f_p(u), a pressure that
   * follows the deformation: set_follower_pressure()) of elastoplasticity or of
   * finite-strain hyperelasticity with the consistent tangent, from one converged load factor to the next. The
   * prescribed displacements of the operator's constraints (at load factor
   * 1) are scaled by the load factor (or set_prescribed_amplitude()) and
   * hold exactly in every iteration. A step: an elastic-tangent predictor where the load
   * reverses, the tangent predictor otherwise (prescribed increments lifted
   * through the tangent), then Newton iterations with an Eisenstat-Walker
   * forcing term for the linear solves, until |R| <= residual_tolerance *
   * reference and |du| <= displacement_tolerance * |u|. A failed step
   * (no convergence, divergence, a non-finite residual, a linear solver
   * error) is reported, not thrown: the caller puts u and the state back
   * (restore()) and retries with a smaller increment.
   *
   * With NewtonData::tangent = initial_stiffness every linear solve uses
   * the elastic operator instead (MechanicsOperator::use_tangent(false)),
   * and each iteration is one of the modified initial stiffness method
   * with Thomas' acceleration: at the iterate u the elastic correction d
   * (K_e d = R(u)), the extrapolated point y = u + omega d, the elastic
   * correction d* at y (K_e d* = R(y)), the new iterate y + d*, and
   * omega += (d . d*) / (d . d), kept in [1, 10] (omega starts at 1).
   * Two stress updates and two solves per iteration.
   *
   * The constitutive state is the operator's: its plasticity state
   * (MechanicsOperator::plasticity()) or its finite-strain state
   * (MechanicsOperator::finite_strain(), total Lagrangian: f_int(u) and the
   * tangent at u; an iterate with an inverted element fails the step, or
   * the line search shortens the correction). The caller owns the loop
   * over load steps (LoadStepping is one): after a converged step it calls
   * accept(), which commits the plastic history.
   */
  class NewtonRaphson
  {
  public:
    /**
     * @p op: the operator, with plasticity (MechanicsOperator::enable_plasticity())
     * or finite strain (MechanicsOperator::enable_finite_strain();
     * std::logic_error with neither), whose state and tangent the iteration
     * updates; finite strain takes the consistent tangent only
     * (std::invalid_argument for NewtonTangent::initial_stiffness);
     * @p external_force:
     * the external force at load factor 1 (op's layout; kept by reference);
     * @p linear_solver: solves with the current tangent (kept by reference);
     * @p initialize_linear_solver(new_load_step): re-initializes it after the
     * tangent changed, e.g. `[&](bool s) { solver.initialize(op, s); }` or
     * with the DoFHandler, materials and Dirichlet boundaries for multigrid.
     * u starts at zero (the stress-free state).
     */
    NewtonRaphson(MechanicsOperator                &op,
                  const DeviceVector               &external_force,
                  LinearSolver                     &linear_solver,
                  std::function<void(bool)>         initialize_linear_solver,
                  const NewtonData                 &data = NewtonData());

    /**
     * Equilibrium at load factor @p lambda_new from the converged state at
     * @p lambda_old (u and the committed history). @p step_number only
     * labels the lines printed when @p verbose.
     */
    NewtonResult
    step(double lambda_old, double lambda_new, unsigned int step_number = 0, bool verbose = false);

    /**
     * Accept a converged step from @p lambda_old: commits the plastic state
     * (PlasticityState::commit(), or FiniteStrainState::commit() at finite
     * strain); its load factor (load reversals are
     * detected against it) and its force reference (@p reference,
     * NewtonResult::reference) count from now on.
     */
    void
    accept(double lambda_old, double reference);

    /**
     * Back to a converged state after a failed step: u = @p u_converged,
     * the trial history discarded, f_int and the tangent at u.
     */
    void
    restore(const DeviceVector &u_converged);

    /**
     * A force held at every load factor in addition to lambda f_ext (kept
     * by reference; op's layout): the internal force of an initial stress
     * at u = 0 (PlasticityState::set_initial_stress()), so that the loads
     * are changes from the in-situ state. Without one: zero.
     */
    void
    set_constant_force(const DeviceVector &force);

    /**
     * A further external force with its own amplitude over the load factor:
     * @p amplitude(lambda) @p force is added to lambda f_ext (+ f_0) at load
     * factor lambda (@p force kept by reference; op's layout). A load that
     * cycles while another one ramps or is held, as Abaqus' amplitudes give.
     */
    void
    add_force(const DeviceVector &force, std::function<double(double)> amplitude);

    /**
     * A pressure that follows the deformation (finite strain only;
     * std::invalid_argument otherwise): at every iterate u its force at u
     * times @p amplitude(lambda) (lambda without one) joins the external
     * force, and its load stiffness, scaled alike, the tangent
     * (FollowerPressure::update(), kept by reference). The tangent is then
     * not symmetric: std::invalid_argument if the linear solver needs a
     * symmetric operator (CG, MINRES).
     */
    void
    set_follower_pressure(FollowerPressure &pressure, std::function<double(double)> amplitude = {});

    /**
     * The amplitude of the prescribed displacements over the load factor:
     * at load factor lambda the constrained DoFs hold @p amplitude(lambda)
     * times the prescribed values of the operator's constraints. Without
     * one: lambda.
     */
    void
    set_prescribed_amplitude(std::function<double(double)> amplitude);

    /**
     * Whether any external force is non-zero (f_ext, the constant force or
     * one of add_force()): false when prescribed displacements alone load
     * the body. Collective.
     */
    bool
    has_external_force() const;

    /** The displacement (converged after a converged step). */
    DeviceVector u;
    /** The internal force at u. */
    DeviceVector f_int;
    /** Load factor before the last converged step (detects reversals). */
    double lambda_previous = 0;
    /** Largest force reference of the converged steps. */
    double force_scale = 0;

  private:
    /** Norms of the residual (unconstrained rows) and of the reference force at u with the current f_int. */
    void
    compute_residual(double load_factor, double &residual_norm, double &reference);

    /**
     * The constitutive update at the current u (the plastic stress update
     * or the finite-strain state), timed into @p result, whose plastic
     * statistics and inverted points it sets; then the residual's norm
     * @p residual_norm and its @p reference (compute_residual()).
     */
    void
    update_state_and_residual(double load_factor, NewtonResult &result, double &residual_norm, double &reference);

    /**
     * The backtracking line search after u += du from an iterate with the
     * residual norm @p residual_norm: halves the step while the residual at
     * u is not finite or not below (1 - 1e-4 alpha) @p residual_norm, at
     * most NewtonData::line_search_steps times; du becomes the step taken
     * and the state and residual at u are left for the next
     * evaluate_iterate().
     */
    void
    line_search(double load_factor, double residual_norm, NewtonResult &result);

    /**
     * Iteration @p iteration at the current u: the stress update, the
     * residual (unless the line search left them) and the norms of du and
     * u, timed into @p result, whose iteration count, residual, relative
     * residual, reference and plastic statistics it sets.
     */
    void
    evaluate_iterate(double load_factor, unsigned int iteration, NewtonResult &result, double &du_norm, double &u_norm);

    /**
     * The predictor of a step from @p lambda_old to @p lambda_new: du from
     * the tangent and the residual (the out-of-balance force with the
     * prescribed increment lifted), timed into @p result; the prescribed
     * values set exactly; u += du.
     */
    void
    predictor(double lambda_old, double lambda_new, NewtonResult &result);

    /** What an iterate's residual says of the iteration. */
    enum class IterateVerdict
    {
      /** Neither converged nor failed: iterate on. */
      go_on,
      /** Converged (result.converged set). */
      converged,
      /** The residual is not finite (result.failure set). */
      failed
    };

    /**
     * Iteration @p iteration of @p method ("Newton", "initial stiffness") at
     * the current u: a pending interruption throws Interrupted;
     * evaluate_iterate(), the line of the iteration if @p verbose (with the
     * relaxation factor @p omega if given), and the verdict of the
     * tolerances.
     */
    IterateVerdict
    judge_iterate(double        load_factor,
                  unsigned int  iteration,
                  unsigned int  step_number,
                  bool          verbose,
                  const char   *method,
                  const double *omega,
                  NewtonResult &result);

    /** residual = lambda f_ext + f_0 + sum_k a_k(lambda) f_k - f_int (all rows). */
    void
    set_out_of_balance(double load_factor);

    /** @p force = the external force at @p load_factor: lambda f_ext + f_0 + sum_k a_k(lambda) f_k. */
    void
    external_force_at(double load_factor, DeviceVector &force) const;

    /** The factor of the prescribed values at @p load_factor (the prescribed amplitude). */
    double
    prescribed_scale(double load_factor) const;

    /** The factor of the follower pressure at @p load_factor (its amplitude, or the load factor). */
    double
    follower_scale(double load_factor) const;

    /** The follower pressure's force and load stiffness at u and @p load_factor (if there is one). */
    void
    update_follower_pressure(double load_factor);

    /**
     * Whether a load reverses at @p lambda_old on the way from
     * @p lambda_previous to @p lambda_new: the load factor itself, an
     * amplitude of add_force() or of the follower pressure or the
     * prescribed amplitude turns back.
     */
    bool
    reverses(double lambda_previous, double lambda_old, double lambda_new) const;

    /** step() with NewtonData::tangent = initial_stiffness. */
    NewtonResult
    step_initial_stiffness(double lambda_old, double lambda_new, unsigned int step_number, bool verbose);

    MechanicsOperator        &op;
    const DeviceVector       &external_force;
    LinearSolver             &linear_solver;
    std::function<void(bool)> initialize_linear_solver;
    NewtonData                data;
    const DeviceVector       *constant_force = nullptr;
    /** The forces of add_force() with their amplitudes. */
    std::vector<std::pair<const DeviceVector *, std::function<double(double)>>> amplified_forces;
    /** The amplitude of the prescribed displacements (empty: the load factor). */
    std::function<double(double)> prescribed_amplitude;
    /** The pressure of set_follower_pressure(), or null. */
    FollowerPressure             *follower_pressure = nullptr;
    /** Its amplitude (empty: the load factor). */
    std::function<double(double)> follower_amplitude;
    /** Its force at u at scale 1. */
    DeviceVector                  follower_force;
    DeviceVector              du, residual, work, correction;
    /** The state and residual at u are current (left by line_search()): the next evaluate_iterate() takes them. */
    bool                      iterate_evaluated = false;
    /** The residual norm and reference of that evaluation. */
    double                    evaluated_residual = 0, evaluated_reference = 0;
  };
} // namespace plastix

PLASTIX_ENUM_PATTERN(plastix::NewtonTangent)

#endif
