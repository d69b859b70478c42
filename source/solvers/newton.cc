// Newton-Raphson for plasticity and finite-strain hyperelasticity on the device (newton.h).
#include <plastix/core/finite_strain_state.h>
#include <plastix/core/follower_pressure.h>
#include <plastix/core/interruption.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/newton.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace plastix
{
  namespace
  {
    /** Adds the wall-clock seconds of its lifetime to a counter. */
    class AddElapsed
    {
    public:
      explicit AddElapsed(double &seconds)
        : seconds(seconds)
        , start(std::chrono::steady_clock::now())
      {}

      ~AddElapsed()
      {
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }

      AddElapsed(const AddElapsed &) = delete;
      AddElapsed &
      operator=(const AddElapsed &) = delete;

    private:
      double                                      &seconds;
      const std::chrono::steady_clock::time_point start;
    };
  } // namespace

  NewtonStageTimes &
  NewtonStageTimes::operator+=(const NewtonStageTimes &other)
  {
    stress_updates += other.stress_updates;
    residuals += other.residuals;
    preconditioner += other.preconditioner;
    linear_solves += other.linear_solves;
    return *this;
  }

  std::string
  NewtonStageTimes::description() const
  {
    std::ostringstream text;
    text << std::setprecision(3) << "stress updates " << stress_updates << ", residuals " << residuals
         << ", preconditioner " << preconditioner << ", linear solves " << linear_solves;
    return text.str();
  }

  NewtonRaphson::NewtonRaphson(MechanicsOperator        &op,
                               const DeviceVector       &external_force,
                               LinearSolver             &linear_solver,
                               std::function<void(bool)> initialize_linear_solver,
                               const NewtonData         &data)
    : op(op)
    , external_force(external_force)
    , linear_solver(linear_solver)
    , initialize_linear_solver(std::move(initialize_linear_solver))
    , data(data)
  {
    if (!op.has_plasticity() && !op.has_finite_strain())
      throw std::logic_error("plastix::NewtonRaphson: the operator has neither a plasticity nor a finite-strain "
                             "state (call MechanicsOperator::enable_plasticity() or enable_finite_strain() first)");
    if (op.has_finite_strain() && data.tangent == NewtonTangent::initial_stiffness)
      throw std::invalid_argument("Newton/Tangent = initial stiffness is a method for plasticity: finite strain "
                                  "takes the consistent tangent");
    if (data.tangent == NewtonTangent::consistent && !op.has_symmetric_tangent() &&
        linear_solver.needs_symmetric_operator())
      throw std::invalid_argument("the consistent tangent is not symmetric (a Mohr-Coulomb or Drucker-Prager material "
                                  "with a dilation angle below its friction angle), which " +
                                  enum_name(linear_solver.solver_type()) +
                                  " cannot solve: choose Linear solver/Type = gmres or belos gmres, or "
                                  "Newton/Tangent = initial stiffness");
    for (DeviceVector *v : {&u, &du, &f_int, &residual, &work, &correction})
      op.initialize_dof_vector(*v);
  }

  void
  NewtonRaphson::set_constant_force(const DeviceVector &force)
  {
    constant_force = &force;
  }

  void
  NewtonRaphson::add_force(const DeviceVector &force, std::function<double(double)> amplitude)
  {
    amplified_forces.emplace_back(&force, std::move(amplitude));
  }

  void
  NewtonRaphson::set_follower_pressure(FollowerPressure &pressure, std::function<double(double)> amplitude)
  {
    if (!op.has_finite_strain())
      throw std::invalid_argument("a pressure that follows the deformation needs finite strain "
                                  "(MechanicsOperator::enable_finite_strain())");
    if (linear_solver.needs_symmetric_operator())
      throw std::invalid_argument("the tangent with a follower pressure is not symmetric, which " +
                                  enum_name(linear_solver.solver_type()) +
                                  " cannot solve: choose Linear solver/Type = gmres or belos gmres");
    follower_pressure  = &pressure;
    follower_amplitude = std::move(amplitude);
    update_follower_pressure(lambda_previous);
  }

  double
  NewtonRaphson::follower_scale(const double load_factor) const
  {
    return follower_amplitude ? follower_amplitude(load_factor) : load_factor;
  }

  void
  NewtonRaphson::update_follower_pressure(const double load_factor)
  {
    if (follower_pressure != nullptr)
      follower_pressure->update(u, follower_scale(load_factor), follower_force);
  }

  void
  NewtonRaphson::set_prescribed_amplitude(std::function<double(double)> amplitude)
  {
    prescribed_amplitude = std::move(amplitude);
  }

  bool
  NewtonRaphson::has_external_force() const
  {
    if (external_force.l2_norm() > 0 || (constant_force != nullptr && constant_force->l2_norm() > 0))
      return true;
    for (const auto &force : amplified_forces)
      if (force.first->l2_norm() > 0)
        return true;
    if (follower_pressure != nullptr)
      for (const auto &pressure : follower_pressure->get_pressures())
        if (pressure.second != 0.)
          return true;
    return false;
  }

  void
  NewtonRaphson::external_force_at(const double load_factor, DeviceVector &force) const
  {
    force.equ(load_factor, external_force);
    if (constant_force != nullptr)
      force.add(1., *constant_force);
    for (const auto &[f, amplitude] : amplified_forces)
      force.add(amplitude(load_factor), *f);
    if (follower_pressure != nullptr)
      force.add(follower_scale(load_factor), follower_force);
  }

  double
  NewtonRaphson::prescribed_scale(const double load_factor) const
  {
    return prescribed_amplitude ? prescribed_amplitude(load_factor) : load_factor;
  }

  bool
  NewtonRaphson::reverses(const double lambda_previous, const double lambda_old, const double lambda_new) const
  {
    const auto turns = [&](const std::function<double(double)> &a) {
      return (a(lambda_new) - a(lambda_old)) * (a(lambda_old) - a(lambda_previous)) < 0;
    };
    if ((lambda_new - lambda_old) * (lambda_old - lambda_previous) < 0)
      return true;
    for (const auto &force : amplified_forces)
      if (turns(force.second))
        return true;
    if (follower_pressure != nullptr && follower_amplitude && turns(follower_amplitude))
      return true;
    return prescribed_amplitude && turns(prescribed_amplitude);
  }

  void
  NewtonRaphson::set_out_of_balance(const double load_factor)
  {
    external_force_at(load_factor, residual);
    residual.add(-1., f_int);
  }

  void
  NewtonRaphson::compute_residual(const double load_factor, double &residual_norm, double &reference)
  {
    set_out_of_balance(load_factor);
    op.set_constrained_zero(residual);
    residual_norm = residual.l2_norm();
    work.equ(1., f_int);
    op.set_constrained_zero(work);
    const double reaction = std::sqrt(std::max(0., f_int.norm_sqr() - work.norm_sqr()));
    external_force_at(load_factor, work);
    op.set_constrained_zero(work);
    // The largest force of the run so far keeps a scale when the load
    // returns to zero (unloading), where the current one vanishes.
    reference = std::max({work.l2_norm(), reaction, force_scale, 1e-300});
  }


  void
  NewtonRaphson::update_state_and_residual(const double  load_factor,
                                           NewtonResult &result,
                                           double       &residual_norm,
                                           double       &reference)
  {
    {
      const AddElapsed time(result.times.stress_updates);
      if (op.has_plasticity())
        result.plastic = op.plasticity().update(u, f_int);
      else
        result.inverted_points = op.finite_strain().update(u, f_int);
      update_follower_pressure(load_factor);
    }
    const AddElapsed time(result.times.residuals);
    compute_residual(load_factor, residual_norm, reference);
  }

  void
  NewtonRaphson::line_search(const double load_factor, const double residual_norm, NewtonResult &result)
  {
    double trial_residual, trial_reference;
    update_state_and_residual(load_factor, result, trial_residual, trial_reference);
    // u = u_k + alpha du; halving alpha moves u back by alpha / 2 du.
    double alpha = 1.;
    for (unsigned int cut = 0; cut < data.line_search_steps; ++cut)
      {
        if (std::isfinite(trial_residual) && trial_residual < (1. - 1e-4 * alpha) * residual_norm)
          break;
        alpha *= 0.5;
        u.add(-alpha, du);
        op.set_constrained_values(u, prescribed_scale(load_factor));
        ++result.line_search_cuts;
        update_state_and_residual(load_factor, result, trial_residual, trial_reference);
      }
    du *= alpha;
    iterate_evaluated   = true;
    evaluated_residual  = trial_residual;
    evaluated_reference = trial_reference;
  }

  void
  NewtonRaphson::evaluate_iterate(const double       load_factor,
                                  const unsigned int iteration,
                                  NewtonResult      &result,
                                  double            &du_norm,
                                  double            &u_norm)
  {
    double residual_norm = evaluated_residual, reference = evaluated_reference;
    if (!iterate_evaluated)
      update_state_and_residual(load_factor, result, residual_norm, reference);
    iterate_evaluated = false;
    {
      const AddElapsed time(result.times.residuals);
      du_norm = du.l2_norm();
      u_norm  = u.l2_norm();
    }
    result.iterations        = iteration;
    result.residual          = residual_norm;
    result.relative_residual = residual_norm / reference;
    result.reference         = reference;
  }

  void
  NewtonRaphson::predictor(const double lambda_old, const double lambda_new, NewtonResult &result)
  {
    {
      const AddElapsed time(result.times.linear_solves);
      du                    = 0.;
      const double rhs_norm = residual.l2_norm();
      result.linear_iterations += linear_solver.solve(du, residual, data.max_forcing_term * rhs_norm).iterations;
    }
    // The lifting assumed du = (a(lambda_new) - a(lambda_old)) g on the
    // prescribed DoFs; an inexact solve only approaches that, so it is set
    // exactly (the prescribed values hold in every iteration).
    op.set_constrained_values(du, prescribed_scale(lambda_new) - prescribed_scale(lambda_old));
    u.add(1., du);
    op.set_constrained_values(u, prescribed_scale(lambda_new));
  }

  NewtonRaphson::IterateVerdict
  NewtonRaphson::judge_iterate(const double       load_factor,
                               const unsigned int iteration,
                               const unsigned int step_number,
                               const bool         verbose,
                               const char        *method,
                               const double      *omega,
                               NewtonResult      &result)
  {
    if (interrupt_requested(op.get_partitioner()->get_mpi_communicator()))
      throw Interrupted("during load step " + std::to_string(step_number));
    double du_norm, u_norm;
    evaluate_iterate(load_factor, iteration, result, du_norm, u_norm);
    if (verbose)
      {
        std::cout << "  step " << step_number << " (load factor " << load_factor << ") " << method << " "
                  << iteration << ": ";
        if (result.inverted_points > 0)
          std::cout << result.inverted_points << " Gauss points inverted";
        else
          std::cout << "|R|/F = " << std::setprecision(3) << std::scientific << result.relative_residual
                    << ", |du|/|u| = " << du_norm / std::max(u_norm, 1e-300) << std::defaultfloat;
        if (omega != nullptr)
          std::cout << ", omega " << *omega;
        if (op.has_plasticity())
          std::cout << ", plastic points " << result.plastic.n_plastic_points;
        if (result.line_search_cuts > 0)
          std::cout << ", line search halvings " << result.line_search_cuts;
        std::cout << std::endl;
      }
    if (result.inverted_points > 0)
      {
        result.failure = std::to_string(result.inverted_points) + " Gauss points inverted (det F <= 0)";
        return IterateVerdict::failed;
      }
    if (!std::isfinite(result.residual))
      {
        result.failure = "the residual is not finite";
        return IterateVerdict::failed;
      }
    if (result.relative_residual <= data.residual_tolerance && du_norm <= data.displacement_tolerance * u_norm)
      {
        result.converged = true;
        return IterateVerdict::converged;
      }
    return IterateVerdict::go_on;
  }

  NewtonResult
  NewtonRaphson::step(const double lambda_old, const double lambda_new, const unsigned int step_number, const bool verbose)
  {
    if (data.tangent == NewtonTangent::initial_stiffness)
      return step_initial_stiffness(lambda_old, lambda_new, step_number, verbose);
    const auto  &np = data;
    NewtonResult result;
    iterate_evaluated = false;
    try
      {
        // The follower pressure's stiffness at the converged state and load factor.
        update_follower_pressure(lambda_old);
        // Predictor: tangent at the converged state, prescribed values
        // raised by the increment through the tangent (lifting). When the
        // load reverses, plastic points unload elastically: the elastic
        // operator predicts that, the softened tangent would overshoot.
        const bool reversal = op.has_plasticity() && reverses(lambda_previous, lambda_old, lambda_new);
        if (reversal)
          op.use_tangent(false);
        {
          const AddElapsed time(result.times.residuals);
          set_out_of_balance(lambda_new);
          op.lift_inhomogeneities(residual, prescribed_scale(lambda_new) - prescribed_scale(lambda_old));
        }
        {
          const AddElapsed time(result.times.preconditioner);
          initialize_linear_solver(true);
        }
        predictor(lambda_old, lambda_new, result);
        if (reversal)
          {
            const AddElapsed time(result.times.preconditioner);
            op.use_tangent(true);
            initialize_linear_solver(true);
          }

        double first_residual = 0, previous_residual = 0;
        for (unsigned int k = 1; k <= np.max_iterations; ++k)
          {
            if (judge_iterate(lambda_new, k, step_number, verbose, "Newton", nullptr, result) !=
                IterateVerdict::go_on)
              return result;
            const double residual_norm = result.residual, reference = result.reference;
            if (k == 1)
              first_residual = residual_norm;
            else if (residual_norm > np.divergence_factor * first_residual)
              {
                result.failure = "the residual grew by more than the divergence factor";
                return result;
              }
            if (k == np.max_iterations)
              break;
            // Inexact Newton: forcing term shrinking with the square of the
            // residual reduction (Eisenstat-Walker), no tighter than the
            // Newton tolerance needs.
            double eta = np.max_forcing_term;
            if (k > 1)
              eta = std::min(eta, 0.9 * std::pow(residual_norm / previous_residual, 2));
            eta = std::max(eta, np.min_forcing_term);
            const double tolerance = std::max(eta * residual_norm, 0.1 * np.residual_tolerance * reference);
            previous_residual      = residual_norm;
            {
              const AddElapsed time(result.times.preconditioner);
              initialize_linear_solver(false);
            }
            {
              const AddElapsed time(result.times.linear_solves);
              du = 0.;
              result.linear_iterations += linear_solver.solve(du, residual, tolerance).iterations;
            }
            // Corrections leave the prescribed values as they are; the
            // hanging-node DoFs follow the DoFs they depend on.
            op.set_constrained_zero(du);
            u.add(1., du);
            op.set_constrained_values(u, prescribed_scale(lambda_new));
            if (np.line_search_steps > 0)
              line_search(lambda_new, residual_norm, result);
          }
        result.failure = "no convergence in " + std::to_string(np.max_iterations) + " Newton iterations";
      }
    catch (const SolverError &error)
      {
        op.use_tangent(true);
        result.failure = std::string("linear solver failed: ") + error.what();
      }
    return result;
  }

  NewtonResult
  NewtonRaphson::step_initial_stiffness(const double       lambda_old,
                                        const double       lambda_new,
                                        const unsigned int step_number,
                                        const bool         verbose)
  {
    const auto  &np = data;
    NewtonResult result;
    // Every solve of the step with the elastic operator: one preconditioner.
    op.use_tangent(false);
    try
      {
        {
          const AddElapsed time(result.times.preconditioner);
          initialize_linear_solver(true);
        }
        const auto solve = [&](DeviceVector &x, const double residual_norm, const double reference) {
          const AddElapsed time(result.times.linear_solves);
          x = 0.;
          const double tolerance =
            std::max(np.max_forcing_term * residual_norm, 0.1 * np.residual_tolerance * reference);
          result.linear_iterations += linear_solver.solve(x, residual, tolerance).iterations;
          op.set_constrained_zero(x);
        };
        // Predictor: the elastic increment with the prescribed increments lifted.
        {
          const AddElapsed time(result.times.residuals);
          set_out_of_balance(lambda_new);
          op.lift_inhomogeneities(residual, prescribed_scale(lambda_new) - prescribed_scale(lambda_old));
        }
        predictor(lambda_old, lambda_new, result);

        double omega = 1., first_residual = 0.;
        for (unsigned int k = 1; k <= np.max_iterations; ++k)
          {
            if (judge_iterate(lambda_new, k, step_number, verbose, "initial stiffness", &omega, result) !=
                IterateVerdict::go_on)
              break;
            const double residual_norm = result.residual, reference = result.reference;
            if (k == 1)
              first_residual = residual_norm;
            else if (residual_norm > np.divergence_factor * first_residual)
              {
                result.failure = "the residual grew by more than the divergence factor";
                break;
              }
            if (k == np.max_iterations)
              {
                result.failure = "no convergence in " + std::to_string(np.max_iterations) + " Newton iterations";
                break;
              }
            // d = K_e^-1 R(u), y = u + omega d.
            solve(correction, residual_norm, reference);
            u.add(omega, correction);
            op.set_constrained_values(u, prescribed_scale(lambda_new));
            // d* = K_e^-1 R(y), u = y + d*.
            double residual_y, reference_y;
            update_state_and_residual(lambda_new, result, residual_y, reference_y);
            if (!std::isfinite(residual_y))
              {
                result.failure = "the residual is not finite";
                break;
              }
            solve(du, residual_y, reference_y);
            u.add(1., du);
            op.set_constrained_values(u, prescribed_scale(lambda_new));
            // Thomas: omega grows by the part of d* along d; the change of
            // this iteration is omega d + d*.
            const double dd = correction.norm_sqr();
            const double step_omega = omega;
            if (dd > 0)
              omega = std::clamp(omega + (correction * du) / dd, 1., 10.);
            du.add(step_omega, correction);
          }
      }
    catch (const SolverError &error)
      {
        result.failure = std::string("linear solver failed: ") + error.what();
      }
    catch (...)
      {
        op.use_tangent(true);
        throw;
      }
    op.use_tangent(true);
    return result;
  }

  void
  NewtonRaphson::accept(const double lambda_old, const double reference)
  {
    if (op.has_plasticity())
      op.plasticity().commit();
    else
      op.finite_strain().commit();
    lambda_previous = lambda_old;
    force_scale     = std::max(force_scale, reference);
  }

  void
  NewtonRaphson::restore(const DeviceVector &u_converged)
  {
    u                 = u_converged;
    iterate_evaluated = false;
    if (!op.has_plasticity())
      {
        op.finite_strain().update(u, f_int);
        update_follower_pressure(lambda_previous);
        return;
      }
    PlasticityState &state = op.plasticity();
    state.reset_trial();
    state.update(u, f_int);
  }
} // namespace plastix
