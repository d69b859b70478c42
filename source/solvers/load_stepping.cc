// Load stepping with step cutting around NewtonRaphson (load_stepping.h).
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/load_stepping.h>

#include <cmath>
#include <iostream>
#include <sstream>

namespace plastix
{
  LoadStepping::LoadStepping(const LoadSteppingData &data, const LoadSteppingPosition &start)
    : data(data)
    , current(start)
    , cuts_to_target(start.cuts_to_target)
  {
    if (!(data.increment_growth >= 1.))
      throw SolverError("LoadStepping: the increment growth must be at least 1");
    aim_at_next_target();
    // A restart after cuts continues with the increment it had.
    if (!finished() && start.increment != 0. && std::abs(start.increment) < std::abs(increment))
      increment = std::copysign(start.increment, increment);
  }

  void
  LoadStepping::aim_at_next_target()
  {
    while (!finished() && data.load_factors[current.target_index] == current.load_factor)
      {
        ++current.target_index;
        cuts_to_target = 0;
      }
    if (!finished())
      increment = data.load_factors[current.target_index] - current.load_factor;
  }

  bool
  LoadStepping::finished() const
  {
    return current.target_index >= data.load_factors.size();
  }

  LoadStepResult
  LoadStepping::solve_step(NewtonRaphson               &newton,
                           const bool                   verbose,
                           const std::function<void()> &before_attempt)
  {
    if (finished())
      throw SolverError("LoadStepping::solve_step: every load factor has been reached");
    const double   target = data.load_factors[current.target_index];
    LoadStepResult step;
    u_converged = newton.u;
    while (true)
      {
        if (before_attempt)
          before_attempt();
        const double lambda     = current.load_factor;
        const double lambda_new = std::abs(target - lambda) <= std::abs(increment) * (1 + 1e-12) ? target :
                                                                                                  lambda + increment;
        step.newton      = newton.step(lambda, lambda_new, current.step + 1, verbose);
        step.load_factor = lambda_new;
        step.newton_iterations += step.newton.iterations;
        step.linear_iterations += step.newton.linear_iterations;
        step.times += step.newton.times;
        if (step.newton.converged)
          return step;

        // Back to the converged state; try half the increment.
        newton.restore(u_converged);
        ++step.cuts;
        ++cuts_to_target;
        ++total_cuts;
        increment /= 2;
        if (verbose)
          std::cout << "  step to load factor " << lambda_new << " failed (" << step.newton.failure
                    << "); retrying with increment " << increment << std::endl;
        if (cuts_to_target > data.max_cuts || std::abs(increment) < data.minimum_increment)
          {
            std::ostringstream message;
            message << "Newton iteration failed at load factor " << lambda_new << " (last converged " << lambda
                    << ") after " << cuts_to_target << " step cuts: " << step.newton.failure;
            if (step.newton.inverted_points > 0)
              // Elements turned inside out: no iteration count or step size helps beyond that load.
              message << ". The deformation at that load inverts elements: check the loads and prescribed "
                         "displacements, or refine the mesh where the deformation is largest";
            else
              message << "; last relative residual " << step.newton.relative_residual
                      << (newton.has_external_force() ?
                            ". The load may exceed the limit load, or raise 'Newton/Maximum iterations' / "
                            "'Load stepping/Number of steps'" :
                            ". The loads are prescribed displacements only, which have no limit load: raise "
                            "'Newton/Maximum iterations', 'Load stepping/Maximum cuts' or 'Load stepping/Number "
                            "of steps', or look for a material that softens");
            throw SolverError(message.str());
          }
      }
  }

  bool
  LoadStepping::is_last_step(const LoadStepResult &result) const
  {
    return current.target_index + 1 == data.load_factors.size() &&
           result.load_factor == data.load_factors[current.target_index];
  }

  void
  LoadStepping::accept_step(NewtonRaphson &newton, const LoadStepResult &result)
  {
    newton.accept(current.load_factor, result.newton.reference);
    const double       converged_increment = result.load_factor - current.load_factor;
    const bool         after_cuts          = cuts_to_target > 0;
    const unsigned int target              = current.target_index;
    current.load_factor                    = result.load_factor;
    ++current.step;
    // The whole remaining increment again, unless this target needed cuts:
    // then the increment grows gradually from the one that converged.
    aim_at_next_target();
    if (after_cuts && !finished() && current.target_index == target)
      {
        const double grown = data.increment_growth * std::abs(converged_increment);
        if (grown < std::abs(increment))
          increment = std::copysign(grown, increment);
      }
  }

  void
  LoadStepping::run(NewtonRaphson                                     &newton,
                    const std::function<void(const LoadStepResult &)> &after_step,
                    const bool                                         verbose)
  {
    while (!finished())
      {
        const LoadStepResult result = solve_step(newton, verbose);
        accept_step(newton, result);
        if (after_step)
          after_step(result);
      }
  }

  double
  LoadStepping::load_factor() const
  {
    return current.load_factor;
  }

  LoadSteppingPosition
  LoadStepping::position() const
  {
    LoadSteppingPosition position = current;
    position.cuts_to_target       = cuts_to_target;
    position.increment =
      finished() || std::abs(data.load_factors[current.target_index] - current.load_factor) <= std::abs(increment) ?
        0. :
        increment;
    return position;
  }

  unsigned int
  LoadStepping::n_cuts() const
  {
    return total_cuts;
  }
} // namespace plastix
