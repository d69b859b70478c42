// Implicit (generalised-alpha family) and explicit (central differences)
// time integration of solid dynamics on the device.
#include <deal.II/base/mpi.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/backend/vector_operations.h>
#include <plastix/core/finite_strain_state.h>
#include <plastix/core/follower_pressure.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/time_integration.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace plastix
{
  GeneralizedAlphaParameters
  generalized_alpha_parameters(const TimeIntegrationData &data)
  {
    GeneralizedAlphaParameters p;
    switch (data.integrator)
      {
        case TimeIntegrator::newmark:
          return p;
        case TimeIntegrator::midpoint:
          p.alpha_m = p.alpha_f = 0.5;
          return p;
        case TimeIntegrator::generalized_alpha:
          {
            const double rho = data.spectral_radius;
            if (!(rho >= 0. && rho <= 1.))
              throw std::invalid_argument("plastix::TimeIntegrationData: the spectral radius must lie in [0, 1]");
            p.alpha_m = (2. * rho - 1.) / (rho + 1.);
            p.alpha_f = rho / (rho + 1.);
            p.gamma   = 0.5 - p.alpha_m + p.alpha_f;
            p.beta    = 0.25 * (1. - p.alpha_m + p.alpha_f) * (1. - p.alpha_m + p.alpha_f);
            return p;
          }
        case TimeIntegrator::central_differences:
          break;
      }
    throw std::invalid_argument("plastix::generalized_alpha_parameters: central differences is explicit");
  }

  Elastodynamics::Elastodynamics(MechanicsOperator         &op,
                                 LinearSolver              *linear_solver,
                                 std::function<void()>      initialize_linear_solver,
                                 const TimeIntegrationData &data)
    : op(op)
    , linear_solver(linear_solver)
    , initialize_linear_solver(std::move(initialize_linear_solver))
    , data(data)
  {
    if (!op.has_mass())
      throw std::invalid_argument("plastix::Elastodynamics: the operator has no mass matrix "
                                  "(MechanicsOperator::AdditionalData::mass_matrix)");
    if (op.has_plasticity())
      throw std::invalid_argument("plastix::Elastodynamics: plasticity is not supported in dynamics");
    if (!(data.time_step > 0.) || !std::isfinite(data.time_step))
      throw std::invalid_argument("plastix::Elastodynamics: the time step must be finite and > 0");
    if (!(data.mass_damping >= 0.) || !(data.stiffness_damping >= 0.) || !std::isfinite(data.mass_damping) ||
        !std::isfinite(data.stiffness_damping))
      throw std::invalid_argument("plastix::Elastodynamics: the Rayleigh damping coefficients must be finite and >= 0");
    if (data.stiffness_damping > 0. && op.has_finite_strain())
      throw std::invalid_argument("plastix::Elastodynamics: stiffness-proportional damping is for small strain only");
    const bool is_explicit = data.integrator == TimeIntegrator::central_differences;
    if (!is_explicit)
      {
        parameters = generalized_alpha_parameters(data);
        if (linear_solver == nullptr || !this->initialize_linear_solver)
          throw std::invalid_argument("plastix::Elastodynamics: an implicit integrator needs a linear solver");
        set_effective_stiffness();
      }
    else
      op.set_mass_factor(0.);
    const auto &partitioner = op.get_partitioner();
    for (DeviceVector *vector : {&u, &v, &a, &mass_diagonal, &inverse_mass_diagonal, &f_int, &f_ext_now, &f_damp_now,
                                 &work, &work2, &residual, &du, &u_old, &v_old, &a_old, &u_alpha, &v_new, &a_new,
                                 &f_ext_alpha})
      vector->reinit(partitioner);

    // The row-sum lumped mass M 1 (of C^T M C with hanging nodes: the lines'
    // weights sum to 1, so 1 satisfies them); the rows of constrained DoFs are dropped.
    work = 1.;
    op.apply_mass(work, mass_diagonal);
    op.set_constrained_zero(mass_diagonal);
    inverse_mass_diagonal.equ(1., mass_diagonal);
    backend::vector_operations::invert_diagonal(inverse_mass_diagonal.locally_owned_size(),
                                                inverse_mass_diagonal.device_data());
    op.set_constrained_zero(inverse_mass_diagonal);
  }

  void
  Elastodynamics::set_effective_stiffness()
  {
    // The effective stiffness K + c M, the Jacobian divided by (1 - alpha_f) (1 + beta_K gamma / (beta dt)).
    const double                      dt = data.time_step;
    const GeneralizedAlphaParameters &p  = parameters;
    jacobian_scale = (1. - p.alpha_f) * (1. + data.stiffness_damping * p.gamma / (p.beta * dt));
    op.set_mass_factor(
      ((1. - p.alpha_m) / (p.beta * dt * dt) + data.mass_damping * p.gamma * (1. - p.alpha_f) / (p.beta * dt)) /
      jacobian_scale);
  }

  void
  Elastodynamics::set_time_step(const double new_time_step)
  {
    if (!(new_time_step > 0.) || !std::isfinite(new_time_step))
      throw std::invalid_argument("plastix::Elastodynamics::set_time_step(): the time step must be finite and > 0");
    if (new_time_step == data.time_step)
      return;
    data.time_step = new_time_step;
    start_time     = current_time;
    steps_taken    = 0;
    if (data.integrator != TimeIntegrator::central_differences)
      {
        set_effective_stiffness();
        solver_ready = false;
      }
  }

  double
  Elastodynamics::time_step() const
  {
    return data.time_step;
  }

  void
  Elastodynamics::set_external_force(const DeviceVector &force, std::function<double(double)> amplitude)
  {
    external_force     = &force;
    external_amplitude = std::move(amplitude);
  }

  void
  Elastodynamics::external_force_at(const double t, DeviceVector &force) const
  {
    force = 0.;
    if (external_force != nullptr)
      force.equ(external_amplitude ? external_amplitude(t) : 1., *external_force);
    op.set_constrained_zero(force);
  }

  void
  Elastodynamics::set_follower_pressure(FollowerPressure &pressure, std::function<double(double)> amplitude)
  {
    if (!op.has_finite_strain())
      throw std::invalid_argument("plastix::Elastodynamics: a pressure that follows the deformation needs finite "
                                  "strain (MechanicsOperator::enable_finite_strain())");
    if (linear_solver != nullptr && linear_solver->needs_symmetric_operator())
      throw std::invalid_argument("plastix::Elastodynamics: the Jacobian with a follower pressure is not symmetric, "
                                  "which " + enum_name(linear_solver->solver_type()) + " cannot solve");
    follower_pressure  = &pressure;
    follower_amplitude = std::move(amplitude);
  }

  void
  Elastodynamics::add_follower_force(const double        t,
                                     const DeviceVector &configuration,
                                     const bool          with_stiffness,
                                     const double        stiffness_scale,
                                     DeviceVector       &force)
  {
    if (follower_pressure == nullptr)
      return;
    follower_pressure->update(configuration, stiffness_scale, follower_force, with_stiffness);
    force.add(follower_amplitude ? follower_amplitude(t) : 1., follower_force);
    op.set_constrained_zero(force);
  }

  unsigned long long
  Elastodynamics::internal_force_at(const DeviceVector &x)
  {
    if (op.has_finite_strain())
      return op.finite_strain().update(x, f_int);
    op.compute_internal_force(x, f_int);
    return 0;
  }

  void
  Elastodynamics::damping_force(const DeviceVector &velocity, DeviceVector &force)
  {
    force = 0.;
    if (data.mass_damping > 0.)
      {
        apply_integrator_mass(velocity, force);
        force *= data.mass_damping;
      }
    if (data.stiffness_damping > 0.)
      {
        op.compute_internal_force(velocity, work2);
        force.add(data.stiffness_damping, work2);
      }
    op.set_constrained_zero(force);
  }

  void
  Elastodynamics::out_of_balance(DeviceVector &force) const
  {
    force.equ(1., f_ext_now);
    force.add(-1., f_damp_now);
    force.add(-1., f_int);
    op.set_constrained_zero(force);
  }

  void
  Elastodynamics::solve_mass(DeviceVector &x, const DeviceVector &b)
  {
    // Central differences: the row-sum lumped mass, a division.
    if (data.integrator == TimeIntegrator::central_differences)
      {
        x.equ(1., b);
        op.set_constrained_zero(x);
        x.scale(inverse_mass_diagonal);
        op.set_constrained_values(x, 0.);
        return;
      }
    // Jacobi-preconditioned CG on the free DoFs; with the lumped mass the
    // preconditioner is exact and one iteration suffices.
    x = 0.;
    DeviceVector r(b), z(b), p(b), q(b);
    op.set_constrained_zero(r);
    z.equ(1., r);
    z.scale(inverse_mass_diagonal);
    p.equ(1., z);
    double       rz        = r * z;
    const double tolerance = 1e-13 * std::sqrt(std::max(rz, 0.));
    for (unsigned int iteration = 0; iteration < 1000 && std::sqrt(std::max(rz, 0.)) > tolerance; ++iteration)
      {
        op.set_constrained_values(p, 0.);
        op.apply_mass(p, q);
        op.set_constrained_zero(q);
        const double pq = p * q;
        if (!(pq > 0.))
          break;
        const double alpha = rz / pq;
        x.add(alpha, p);
        r.add(-alpha, q);
        z.equ(1., r);
        z.scale(inverse_mass_diagonal);
        const double rz_new = r * z;
        p.sadd(rz_new / rz, 1., z);
        rz = rz_new;
      }
    op.set_constrained_values(x, 0.);
  }

  double
  Elastodynamics::strain_energy() const
  {
    // Over every row: the reactions of nonzero prescribed values store energy too.
    return op.has_finite_strain() ? op.finite_strain().stored_energy() : 0.5 * (u * f_int);
  }

  void
  Elastodynamics::apply_integrator_mass(const DeviceVector &src, DeviceVector &dst) const
  {
    if (data.integrator == TimeIntegrator::central_differences)
      {
        dst.equ(1., src);
        dst.scale(mass_diagonal);
      }
    else
      {
        op.apply_mass(src, dst);
        op.set_constrained_zero(dst);
      }
  }

  double
  Elastodynamics::kinetic_energy(const DeviceVector &velocity)
  {
    apply_integrator_mass(velocity, work2);
    return 0.5 * (velocity * work2);
  }

  void
  Elastodynamics::set_initial_conditions(const DeviceVector &u0, const DeviceVector &v0, const double time)
  {
    current_time = start_time = time;
    steps_taken  = 0;
    u.equ(1., u0);
    op.set_constrained_values(u, 1.);
    v.equ(1., v0);
    op.set_constrained_values(v, 0.);
    const unsigned long long inverted = internal_force_at(u);
    if (inverted > 0)
      throw std::invalid_argument("plastix::Elastodynamics: the initial displacement inverts " +
                                  std::to_string(inverted) + " Gauss points (det F <= 0)");
    energy        = EnergyBalance();
    energy.strain = strain_energy();
    external_force_at(time, f_ext_now);
    add_follower_force(time, u, false, 0., f_ext_now);
    damping_force(v, f_damp_now);
    // M a0 = f_ext - C v0 - f_int(u0).
    out_of_balance(residual);
    solve_mass(a, residual);
    energy.kinetic = kinetic_energy(v);
    if (!std::isfinite(energy.total()))
      throw std::invalid_argument("plastix::Elastodynamics: the initial state is not finite");
    solver_ready = false;
  }

  ElastodynamicsState
  Elastodynamics::state() const
  {
    ElastodynamicsState now;
    now.time        = current_time;
    now.start_time  = start_time;
    now.steps_taken = steps_taken;
    now.time_step   = data.time_step;
    now.force_scale = force_scale;
    now.energy      = energy;
    return now;
  }

  void
  Elastodynamics::resume(const DeviceVector        &u_now,
                         const DeviceVector        &v_now,
                         const DeviceVector        &a_now,
                         const ElastodynamicsState &state)
  {
    if (!std::isfinite(state.time) || !std::isfinite(state.start_time) || !std::isfinite(state.force_scale) ||
        !std::isfinite(state.energy.total()))
      throw std::invalid_argument("plastix::Elastodynamics::resume(): the state is not finite");
    set_time_step(state.time_step);
    current_time = state.time;
    start_time   = state.start_time;
    steps_taken  = state.steps_taken;
    force_scale  = state.force_scale;
    u.equ(1., u_now);
    v.equ(1., v_now);
    a.equ(1., a_now);
    if (!std::isfinite(u.l2_norm() + v.l2_norm() + a.l2_norm()))
      throw std::invalid_argument("plastix::Elastodynamics::resume(): u, v or a is not finite");
    const unsigned long long inverted = internal_force_at(u);
    if (inverted > 0)
      throw std::invalid_argument("plastix::Elastodynamics::resume(): the displacement inverts " +
                                  std::to_string(inverted) + " Gauss points (det F <= 0)");
    external_force_at(current_time, f_ext_now);
    add_follower_force(current_time, u, false, 0., f_ext_now);
    damping_force(v, f_damp_now);
    energy       = state.energy;
    solver_ready = false;
  }

  double
  Elastodynamics::critical_time_step(const unsigned int iterations)
  {
    const double factor = op.get_additional_data().mass_factor;
    op.set_mass_factor(0.);
    // A pseudo-random start (the same on any number of ranks: from the global index).
    dealii::LinearAlgebra::distributed::Vector<double> host(op.get_partitioner());
    for (const auto i : host.locally_owned_elements())
      {
        const double hashed = std::sin(12.9898 * static_cast<double>(i) + 78.233) * 43758.5453;
        host(i)             = hashed - std::floor(hashed) - 0.5;
      }
    DeviceVector x(op.get_partitioner()), y(op.get_partitioner());
    x.copy_from_host(host);
    op.set_constrained_zero(x);
    double lambda = 0.;
    for (unsigned int k = 0; k < iterations; ++k)
      {
        x /= std::sqrt(x.norm_sqr());
        op.vmult(y, x);
        op.set_constrained_zero(y);
        // Rayleigh quotient x.Kx / x.Mx with the lumped M.
        work.equ(1., x);
        work.scale(mass_diagonal);
        lambda = (x * y) / (x * work);
        x.equ(1., y);
        x.scale(inverse_mass_diagonal);
      }
    op.set_mass_factor(factor);
    return 2. / std::sqrt(lambda);
  }

  TimeStepResult
  Elastodynamics::step()
  {
    TimeStepResult result =
      data.integrator == TimeIntegrator::central_differences ? explicit_step() : implicit_step();
    if (result.converged && !std::isfinite(energy.total()))
      {
        result.converged = false;
        result.failure   = "the state is not finite (for central differences: is the time step above the "
                           "critical one?)";
      }
    return result;
  }

  void
  Elastodynamics::advance_forces(const double t_new, const DeviceVector &damping_velocity)
  {
    // The trapezoidal work of the external and damping forces over the increment du.
    const double external_before = du * f_ext_now;
    const double damping_before  = du * f_damp_now;
    external_force_at(t_new, f_ext_now);
    add_follower_force(t_new, u, false, 0., f_ext_now);
    damping_force(damping_velocity, f_damp_now);
    energy.external_work += 0.5 * (external_before + du * f_ext_now);
    energy.dissipated += 0.5 * (damping_before + du * f_damp_now);
  }

  void
  Elastodynamics::finish_step()
  {
    // The history of Hencky points moves on to u_n+1 (no-op for hyperelastic laws).
    if (op.has_finite_strain())
      op.finite_strain().commit();
    energy.strain  = strain_energy();
    energy.kinetic = kinetic_energy(v);
    ++steps_taken;
    current_time = start_time + static_cast<double>(steps_taken) * data.time_step;
  }

  TimeStepResult
  Elastodynamics::explicit_step()
  {
    TimeStepResult result;
    const double   dt = data.time_step;
    // v_n+1/2 = v_n + dt/2 a_n, u_n+1 = u_n + dt v_n+1/2.
    DeviceVector &half_velocity = v_new;
    half_velocity.equ(1., v);
    half_velocity.add(0.5 * dt, a);
    du.equ(dt, half_velocity);
    u.add(1., du);
    op.set_constrained_values(u, 1.);
    result.inverted_points = internal_force_at(u);
    if (result.inverted_points > 0)
      {
        u.add(-1., du);
        internal_force_at(u);
        result.failure = std::to_string(result.inverted_points) + " Gauss points inverted (det F <= 0)";
        return result;
      }
    // The damping force with the half-step velocity.
    advance_forces(current_time + dt, half_velocity);
    // a_n+1 = M_L^-1 (f_ext - C v_n+1/2 - f_int), v_n+1 = v_n+1/2 + dt/2 a_n+1.
    out_of_balance(residual);
    solve_mass(a, residual);
    v.equ(1., half_velocity);
    v.add(0.5 * dt, a);
    op.set_constrained_values(v, 0.);
    finish_step();
    result.converged = true;
    return result;
  }

  TimeStepResult
  Elastodynamics::implicit_step()
  {
    TimeStepResult                    result;
    const double                      dt = data.time_step;
    const GeneralizedAlphaParameters &p  = parameters;
    const double t_new   = current_time + dt;
    const double t_alpha = t_new - p.alpha_f * dt;
    const double scale   = jacobian_scale;

    u_old.equ(1., u);
    v_old.equ(1., v);
    a_old.equ(1., a);
    external_force_at(t_alpha, f_ext_alpha);
    const auto restore = [&]() {
      u.equ(1., u_old);
      internal_force_at(u);
      solver_ready = false;
    };

    bool               corrected_enough = false;
    // The backtracking of corrections that invert elements.
    constexpr unsigned int max_cuts    = 8;
    unsigned int           cuts        = 0;
    double                 step_length = 1.;
    // Predictor: constant acceleration, u = u_n + dt v_n + dt^2 / 2 a_n.
    u.add(dt, v_old, 0.5 * dt * dt, a_old);
    op.set_constrained_values(u, 1.);
    for (unsigned int iteration = 0;; ++iteration)
      {
        // a_n+1 and v_n+1 of the Newmark relations at u, then the alpha points.
        a_new.equ(1. / (p.beta * dt * dt), u);
        a_new.add(-1. / (p.beta * dt * dt), u_old, -1. / (p.beta * dt), v_old);
        a_new.add(-(0.5 / p.beta - 1.), a_old);
        v_new.equ(1., v_old);
        v_new.add((1. - p.gamma) * dt, a_old, p.gamma * dt, a_new);
        u_alpha.equ(1. - p.alpha_f, u);
        u_alpha.add(p.alpha_f, u_old);
        result.inverted_points = internal_force_at(u_alpha);
        if (result.inverted_points == 0 && follower_pressure != nullptr)
          {
            // The follower force at u_alpha; its stiffness enters the Jacobian
            // (K_t + c M) as (1 - alpha_f) a(t) L / scale.
            external_force_at(t_alpha, f_ext_alpha);
            const double amplitude = follower_amplitude ? follower_amplitude(t_alpha) : 1.;
            add_follower_force(t_alpha, u_alpha, true, amplitude * (1. - p.alpha_f) / scale, f_ext_alpha);
          }
        if (result.inverted_points > 0)
          {
            // Back along the last correction: half of what is left of it, a
            // few times, before the step fails.
            if (iteration > 0 && cuts < max_cuts)
              {
                step_length *= 0.5;
                u.add(-step_length, du);
                op.set_constrained_values(u, 1.);
                ++cuts;
                continue;
              }
            result.failure = std::to_string(result.inverted_points) + " Gauss points inverted (det F <= 0)";
            restore();
            return result;
          }
        // R = M (a_alpha_m + alpha_M v_alpha_f) + beta_K K v_alpha_f + f_int(u_alpha_f) - f_ext(t_alpha).
        work.equ(1. - p.alpha_m, a_new);
        work.add(p.alpha_m, a_old);
        if (data.mass_damping > 0.)
          work.add(data.mass_damping * (1. - p.alpha_f), v_new, data.mass_damping * p.alpha_f, v_old);
        op.apply_mass(work, residual);
        op.set_constrained_zero(residual);
        const double inertia = residual.l2_norm();
        if (data.stiffness_damping > 0.)
          {
            work.equ(1. - p.alpha_f, v_new);
            work.add(p.alpha_f, v_old);
            op.compute_internal_force(work, work2);
            residual.add(data.stiffness_damping, work2);
          }
        residual.add(1., f_int);
        residual.add(-1., f_ext_alpha);
        op.set_constrained_zero(residual);
        work.equ(1., f_int);
        op.set_constrained_zero(work);
        force_scale      = std::max({force_scale, work.l2_norm(), inertia, f_ext_alpha.l2_norm()});
        result.residual  = residual.l2_norm();
        result.iterations = iteration;
        if (!std::isfinite(result.residual))
          {
            result.failure = "the residual is not finite";
            restore();
            return result;
          }
        if (result.residual <= data.residual_tolerance * std::max(force_scale, 1e-300) || corrected_enough)
          break;
        if (iteration == data.max_iterations)
          {
            result.failure = "no convergence in " + std::to_string(data.max_iterations) + " Newton iterations";
            restore();
            return result;
          }
        if (op.has_finite_strain() || !solver_ready)
          {
            initialize_linear_solver();
            solver_ready = true;
          }
        // (K_t + c M) du = -R / scale.
        residual *= -1. / scale;
        du = 0.;
        // Small strain is linear: one solve to a tenth of the Newton tolerance ends the step.
        const double tolerance = op.has_finite_strain() ?
                                   data.linear_tolerance * residual.l2_norm() :
                                   std::min(data.linear_tolerance * residual.l2_norm(),
                                            0.1 * data.residual_tolerance * force_scale / scale);
        try
          {
            result.linear_iterations += linear_solver->solve(du, residual, tolerance).iterations;
          }
        catch (const std::exception &error)
          {
            result.failure = std::string("linear solver: ") + error.what();
            restore();
            return result;
          }
        op.set_constrained_zero(du);
        step_length = 1.;
        u.add(1., du);
        op.set_constrained_values(u, 1.);
        work.equ(1., u);
        work.add(-1., u_old);
        corrected_enough = du.l2_norm() <= data.displacement_tolerance * std::max(work.l2_norm(), u.l2_norm());
      }

    // f_int and the state at u_n+1 (the iteration evaluated them at u_n+1-alpha_f).
    if (p.alpha_f != 0.)
      internal_force_at(u);
    du.equ(1., u);
    du.add(-1., u_old);
    advance_forces(t_new, v_new);
    v.equ(1., v_new);
    a.equ(1., a_new);
    op.set_constrained_values(v, 0.);
    op.set_constrained_values(a, 0.);
    finish_step();
    result.converged = true;
    return result;
  }

  const EnergyBalance &
  Elastodynamics::energies() const
  {
    return energy;
  }

  double
  Elastodynamics::time() const
  {
    return current_time;
  }

  const DeviceVector &
  Elastodynamics::displacement() const
  {
    return u;
  }

  const DeviceVector &
  Elastodynamics::velocity() const
  {
    return v;
  }

  const DeviceVector &
  Elastodynamics::internal_force() const
  {
    return f_int;
  }

  const DeviceVector &
  Elastodynamics::acceleration() const
  {
    return a;
  }
} // namespace plastix
