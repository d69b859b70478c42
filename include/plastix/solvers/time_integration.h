// Time integration of solid dynamics on the device: the generalised-alpha
// family of implicit integrators (Newmark's average acceleration, the
// midpoint rule, generalised-alpha) with Newton iterations on the effective
// stiffness K + c M, and explicit central differences with a row-sum lumped
// mass; small-strain elasticity and finite-strain hyperelasticity, with
// Rayleigh damping and an energy balance.
#ifndef PLASTIX_SOLVERS_TIME_INTEGRATION_H
#define PLASTIX_SOLVERS_TIME_INTEGRATION_H

#include <plastix/base/enum_patterns.h>
#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace plastix
{
  class FollowerPressure;
  class LinearSolver;

  /** The time integrator of Elastodynamics ('Time integration/Integrator'). */
  enum class TimeIntegrator
  {
    /**
     * Newmark's average acceleration (trapezoidal rule, beta = 1/4, gamma =
     * 1/2): implicit, unconditionally stable, second order, no numerical
     * damping.
     */
    newmark,
    /**
     * The midpoint rule: equilibrium at t_n+1/2 with the internal force at
     * (u_n + u_n+1) / 2 (generalised-alpha with alpha_m = alpha_f = 1/2);
     * implicit, second order, no numerical damping; for linear problems it
     * equals Newmark's average acceleration.
     */
    midpoint,
    /**
     * Generalised-alpha (Chung and Hulbert 1993) with the spectral radius
     * rho_inf at infinite frequency: implicit, second order, high
     * frequencies damped (rho_inf = 1: the midpoint rule; 0: annihilated
     * in one step).
     */
    generalized_alpha,
    /**
     * Explicit central differences (velocity Verlet form) with the row-sum
     * lumped mass: one internal force per step, no linear solve, stable
     * for dt below 2 / omega_max (critical_time_step()).
     */
    central_differences
  };

  template <>
  struct EnumNames<TimeIntegrator>
  {
    static constexpr const char *what = "time integrator";
    static std::vector<std::pair<TimeIntegrator, std::string>>
    table()
    {
      return {{TimeIntegrator::newmark, "Newmark"},
              {TimeIntegrator::midpoint, "midpoint"},
              {TimeIntegrator::generalized_alpha, "generalized alpha"},
              {TimeIntegrator::central_differences, "central differences"}};
    }
  };

  /** Settings of Elastodynamics (the 'Time integration' subsection of the application's .prm). */
  struct TimeIntegrationData
  {
    /** The integrator. */
    TimeIntegrator integrator = TimeIntegrator::newmark;
    /** The time step (> 0). */
    double time_step = 0.;
    /** rho_inf of generalised-alpha, in [0, 1]. */
    double spectral_radius = 1.;
    /** Rayleigh damping C = alpha_M M + beta_K K: the mass-proportional coefficient alpha_M (>= 0, 1/time). */
    double mass_damping = 0.;
    /** The stiffness-proportional coefficient beta_K (>= 0, time); small strain only (K the elastic stiffness). */
    double stiffness_damping = 0.;
    /** Newton iterations per implicit step before the step fails. */
    unsigned int max_iterations = 20;
    /**
     * An implicit step has converged when |R| <= tolerance * the force
     * scale (the largest of the internal, inertial and external forces of
     * the run so far).
     */
    double residual_tolerance = 1e-8;
    /**
     * ... or when the last Newton correction is below this fraction of the
     * larger of |u_n+1| and |u_n+1 - u_n| (the residual is at its
     * round-off floor: a finite-strain force at tiny strains, a rigid
     * motion).
     */
    double displacement_tolerance = 1e-10;
    /**
     * Relative tolerance of the linear solves of the Newton iterations (at
     * small strain at most a tenth of the Newton tolerance, so that one
     * solve ends the step).
     */
    double linear_tolerance = 1e-6;
  };

  /** The parameters of the generalised-alpha family in the form u_n+1-alpha_f, a_n+1-alpha_m. */
  struct GeneralizedAlphaParameters
  {
    double alpha_m = 0.;
    double alpha_f = 0.;
    double beta    = 0.25;
    double gamma   = 0.5;
  };

  /**
   * The parameters of the implicit @p data.integrator (std::invalid_argument
   * for central differences): Newmark (0, 0, 1/4, 1/2), midpoint (1/2,
   * 1/2, 1/4, 1/2), generalised-alpha from rho_inf: alpha_m = (2 rho - 1) /
   * (rho + 1), alpha_f = rho / (rho + 1), gamma = 1/2 - alpha_m + alpha_f,
   * beta = (1 - alpha_m + alpha_f)^2 / 4.
   */
  GeneralizedAlphaParameters
  generalized_alpha_parameters(const TimeIntegrationData &data);

  /**
   * The energy balance of a run: kinetic + strain + dissipated - external
   * work - (the same at the start) is zero for the exact solution;
   * energy_error() is what the integrator leaves of it.
   */
  struct EnergyBalance
  {
    /** 1/2 v.M v (the lumped M of central differences). */
    double kinetic = 0.;
    /**
     * The stored energy: 1/2 u.K u at small strain (the boundary springs'
     * included), int W(F) dV at finite strain (FiniteStrainState::
     * stored_energy(), the springs' not included).
     */
    double strain = 0.;
    /** The work of the external force (trapezoidal rule over the steps). */
    double external_work = 0.;
    /** The work of the damping force (trapezoidal rule over the steps). */
    double dissipated = 0.;
    /** kinetic + strain + dissipated - external work. */
    double
    total() const
    {
      return kinetic + strain + dissipated - external_work;
    }
  };

  /** Outcome of one time step. */
  struct TimeStepResult
  {
    /** The step converged (always true for central differences unless the state is not finite). */
    bool converged = false;
    /** Newton iterations (0 for central differences). */
    unsigned int iterations = 0;
    /** Linear solver iterations of all of them. */
    unsigned int linear_iterations = 0;
    /** |R| of the last iteration. */
    double residual = 0.;
    /** Gauss points with det F <= 0 (finite strain; all ranks). */
    unsigned long long inverted_points = 0;
    /** Why the step failed (empty if it converged). */
    std::string failure;
  };

  /**
   * What an Elastodynamics holds besides u, v and a: with them, it continues
   * a run exactly (Elastodynamics::state(), Elastodynamics::resume(); the
   * application's checkpoints).
   */
  struct ElastodynamicsState
  {
    /** The current time. */
    double time = 0.;
    /**
     * The time of the last change of the time step and the steps since:
     * time = start_time + steps_taken time_step (so that a continued run
     * adds the same numbers).
     */
    double             start_time  = 0.;
    unsigned long long steps_taken = 0;
    /** The time step of the next step (smaller than the given one after cuts). */
    double time_step = 0.;
    /** The largest force of the run so far: the scale of Newton's residual tolerance. */
    double force_scale = 0.;
    /** The energies at the current time. */
    EnergyBalance energy;
  };

  /**
   * Solid dynamics M a + C v + f_int(u) = f_ext(t) on a MechanicsOperator
   * with a mass matrix (AdditionalData::mass_matrix): small-strain
   * elasticity (f_int = K u) or finite-strain hyperelasticity
   * (MechanicsOperator::enable_finite_strain(); total Lagrangian), without
   * a small-strain plasticity state. Materials with
   * backend::StrainEnergy::hencky have their history committed at u_n+1 at
   * the end of every step (FiniteStrainState::commit()); the plastix
   * application runs them elastic only (Problem/Type = elastic).
   * Prescribed displacements are the operator's constraints at scale 1,
   * constant in time.
   *
   * The implicit integrators solve the equilibrium at t_n+1-alpha_f,
   * M a_n+1-alpha_m + C v_n+1-alpha_f + f_int(u_n+1-alpha_f) =
   * f_ext(t_n+1-alpha_f), for u_n+1 with the Newmark relations, by Newton
   * iterations on the effective stiffness K_t(u_n+1-alpha_f) + c M
   * (MechanicsOperator::set_mass_factor()); a correction that inverts an
   * element is halved (up to 8 times) before the step fails; the linear
   * solves use the
   * caller's LinearSolver, re-initialized through the callback whenever the
   * operator changed. Central differences need no linear solver.
   */
  class Elastodynamics
  {
  public:
    /**
     * @p op: the operator with a mass matrix and no plasticity (kept by
     * reference; its mass factor is set here); @p linear_solver and
     * @p initialize_linear_solver: the solver of the implicit steps and
     * its re-initialization for the current operator (null and empty for
     * central differences). u, v and a start at zero, t at 0.
     */
    Elastodynamics(MechanicsOperator         &op,
                   LinearSolver              *linear_solver,
                   std::function<void()>      initialize_linear_solver,
                   const TimeIntegrationData &data);

    /**
     * The external force f_ext(t) = @p amplitude(t) @p force (kept by
     * reference; op's layout). Without one: none.
     */
    void
    set_external_force(const DeviceVector &force, std::function<double(double)> amplitude);

    /**
     * A pressure that follows the deformation (FollowerPressure, kept by
     * reference; finite strain only, std::invalid_argument otherwise): its
     * force at the current configuration times @p amplitude(t) (1 without
     * one) joins the external force, evaluated where the integrator
     * evaluates f_ext (an implicit step: at u_n+1-alpha_f in every Newton
     * iteration, with its load stiffness in the Jacobian; central
     * differences: at u_n+1, the force only). The Jacobian is then not
     * symmetric: std::invalid_argument if the linear solver needs a
     * symmetric operator. Call before set_initial_conditions() or resume().
     */
    void
    set_follower_pressure(FollowerPressure &pressure, std::function<double(double)> amplitude = {});

    /**
     * Start at time @p time from the displacement @p u0 and the velocity
     * @p v0 (the constraints are imposed on them: u0 the prescribed
     * values, v0 zero there): the initial acceleration solves M a0 =
     * f_ext - C v0 - f_int(u0) (Jacobi-preconditioned CG on M, or the
     * lumped diagonal), and the energies start.
     */
    void
    set_initial_conditions(const DeviceVector &u0, const DeviceVector &v0, double time = 0.);

    /**
     * Estimate of the critical time step 2 / omega_max of central
     * differences: omega_max^2 the largest eigenvalue of M_L^-1 K (K the
     * tangent at the current state), from @p iterations power iterations
     * from a pseudo-random start. The power iteration approaches omega_max
     * from below, so use a safety factor below 1.
     */
    double
    critical_time_step(unsigned int iterations = 100);

    /** The state besides u, v and a (with them: what continues this run exactly). */
    ElastodynamicsState
    state() const;

    /**
     * Continue from the displacement @p u_now, the velocity @p v_now, the
     * acceleration @p a_now and @p state of an earlier run of the same
     * problem (state(), displacement(), velocity(), acceleration(), e.g. from
     * a checkpoint): in place of set_initial_conditions(). The internal,
     * external and damping forces are evaluated at the given state. Throws
     * std::invalid_argument if the state is not finite or inverts Gauss
     * points.
     */
    void
    resume(const DeviceVector        &u_now,
           const DeviceVector        &v_now,
           const DeviceVector        &a_now,
           const ElastodynamicsState &state);

    /** Advance by one time step; a failed step leaves the state as it was. */
    TimeStepResult
    step();

    /**
     * Take the steps from now on with @p time_step (finite and > 0): an
     * implicit integrator's effective stiffness K_t + c M changes with it
     * (the operator's mass factor is set, and the linear solver is
     * re-initialized through the callback before the next solve). For step
     * control: a step that failed (step() left the state as it was) is
     * retried with a smaller one.
     */
    void
    set_time_step(double time_step);

    /** The time step of the next step(). */
    double
    time_step() const;

    /** The energies at the current time. */
    const EnergyBalance &
    energies() const;

    /** The current time. */
    double
    time() const;

    /** Displacement, velocity and acceleration at the current time. */
    const DeviceVector &
    displacement() const;
    const DeviceVector &
    velocity() const;
    const DeviceVector &
    acceleration() const;

    /** The internal force at the current displacement (Dirichlet rows hold the reactions). */
    const DeviceVector &
    internal_force() const;

  private:
    /** The implicit Jacobian's scale and the operator's mass factor c for data.time_step. */
    void
    set_effective_stiffness();

    /** f_int at @p x (stored in f_int); returns the inverted Gauss points (finite strain). */
    unsigned long long
    internal_force_at(const DeviceVector &x);

    /** @p force = C @p velocity (Rayleigh damping; zero without damping). */
    void
    damping_force(const DeviceVector &velocity, DeviceVector &force);

    /** f_ext at time @p t into @p force. */
    void
    external_force_at(double t, DeviceVector &force) const;

    /**
     * @p force += the follower pressure's force at time @p t and the
     * displacement @p configuration (if there is one), and if @p
     * with_stiffness the operator's load stiffness times @p stiffness_scale.
     */
    void
    add_follower_force(double              t,
                       const DeviceVector &configuration,
                       bool                with_stiffness,
                       double              stiffness_scale,
                       DeviceVector       &force);

    /** @p force = f_ext - C v - f_int at the current time, zero on constrained rows. */
    void
    out_of_balance(DeviceVector &force) const;

    /** Solve M x = b on the free DoFs (central differences: the row-sum diagonal; else Jacobi-PCG). */
    void
    solve_mass(DeviceVector &x, const DeviceVector &b);

    /** The strain energy at u (EnergyBalance::strain; f_int and the state at u). */
    double
    strain_energy() const;

    /** @p dst = M @p src with the mass of the integrator (the row sums for central differences), zero on constrained rows. */
    void
    apply_integrator_mass(const DeviceVector &src, DeviceVector &dst) const;

    /**
     * The external and damping forces at @p t_new (the damping one of
     * @p damping_velocity) and their trapezoidal work over the increment du.
     */
    void
    advance_forces(double t_new, const DeviceVector &damping_velocity);

    /** The strain and kinetic energies at the new state, and the time one step on. */
    void
    finish_step();

    /** 1/2 v.M v with the mass of the integrator. */
    double
    kinetic_energy(const DeviceVector &v);

    TimeStepResult
    implicit_step();

    TimeStepResult
    explicit_step();

    MechanicsOperator                 &op;
    LinearSolver                      *linear_solver;
    std::function<void()>              initialize_linear_solver;
    TimeIntegrationData                data;
    GeneralizedAlphaParameters         parameters;
    /** (1 - alpha_f) (1 + beta_K gamma / (beta dt)): the implicit Jacobian over K_t + c M. */
    double                             jacobian_scale = 1.;
    const DeviceVector                *external_force = nullptr;
    std::function<double(double)>      external_amplitude;
    /** The pressure of set_follower_pressure(), or null; its amplitude and its force at scale 1. */
    FollowerPressure                  *follower_pressure = nullptr;
    std::function<double(double)>      follower_amplitude;
    DeviceVector                       follower_force;
    double                             current_time = 0.;
    /**
     * The time of set_initial_conditions() or of the last set_time_step()
     * and the steps since: t = start_time + steps_taken dt.
     */
    double                             start_time  = 0.;
    unsigned long long                 steps_taken = 0;
    double                             force_scale  = 0.;
    bool                               solver_ready = false;
    EnergyBalance                      energy;
    DeviceVector                       u, v, a;
    /** The row-sum lumped mass M 1 and its inverse (0 on constrained rows). */
    DeviceVector                       mass_diagonal, inverse_mass_diagonal;
    /** f_int, f_ext and the damping force at the current time (for the trapezoidal work). */
    DeviceVector                       f_int, f_ext_now, f_damp_now;
    mutable DeviceVector               work, work2, residual, du;
    /** The state at the start of a step, the alpha points and the step's new v and a (kept: no allocation per step). */
    DeviceVector                       u_old, v_old, a_old, u_alpha, v_new, a_new, f_ext_alpha;
  };
} // namespace plastix

PLASTIX_ENUM_PATTERN(plastix::TimeIntegrator)

#endif
