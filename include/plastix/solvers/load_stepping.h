// Load stepping with step cutting around NewtonRaphson: the loop over load
// factors of the plastix application, for any program.
#ifndef PLASTIX_SOLVERS_LOAD_STEPPING_H
#define PLASTIX_SOLVERS_LOAD_STEPPING_H

#include <plastix/solvers/newton.h>

#include <functional>
#include <vector>

namespace plastix
{
  /** Settings of LoadStepping (the 'Load stepping' subsection of the application's .prm). */
  struct LoadSteppingData
  {
    /**
     * The load factors the steps reach in turn (any order: a smaller one
     * than the last unloads). A load factor equal to the current one is
     * skipped.
     */
    std::vector<double> load_factors;
    /** Smallest increment a cut step may reach before the load stepping fails. */
    double minimum_increment = 1e-6;
    /** Most halvings of the increment on the way to one load factor. */
    unsigned int max_cuts = 12;
    /**
     * After a cut, each converged step lets the next increment grow by this
     * factor (at least 1), up to the whole remaining increment: the step
     * that failed is not tried again at once. A new load factor starts
     * with its whole increment.
     */
    double increment_growth = 2.;
  };

  /** Where a load stepping stands after a converged step: what continues it (e.g. after a restart). */
  struct LoadSteppingPosition
  {
    /** Converged load steps so far. */
    unsigned int step = 0;
    /** Index in LoadSteppingData::load_factors of the load factor being approached. */
    unsigned int target_index = 0;
    /** Load factor of the last converged step. */
    double load_factor = 0;
    /** The increment of the next attempt after cuts (0: the whole remaining increment). */
    double increment = 0;
    /** Cuts on the way to the load factor being approached. */
    unsigned int cuts_to_target = 0;
  };

  /** Outcome of LoadStepping::solve_step(): the converged Newton step and what the cut attempts cost. */
  struct LoadStepResult
  {
    /** The converged Newton step. */
    NewtonResult newton;
    /** Its load factor. */
    double load_factor = 0;
    /** Newton iterations of all attempts, the failed ones included. */
    unsigned int newton_iterations = 0;
    /** Linear iterations of all attempts, the failed ones included. */
    unsigned int linear_iterations = 0;
    /** Failed attempts before the converged one (cuts). */
    unsigned int cuts = 0;
    /** Where the time of all attempts went. */
    NewtonStageTimes times;
  };

  /**
   * The load stepping of the plastix application: from the current load
   * factor towards the next of LoadSteppingData::load_factors, first by the
   * whole remaining increment; a failed Newton step (NewtonResult::converged
   * false) puts the displacement and the state back to the last converged
   * step and is retried with half the increment, until it converges or the
   * cuts on the way to this load factor exceed max_cuts or the increment
   * falls below minimum_increment, when solve_step() throws SolverError.
   * After a converged step that needed cuts the next increment is
   * increment_growth times the converged one (up to the whole remaining
   * increment); after one without cuts, or on reaching a load factor, the
   * next step tries the whole remaining increment.
   *
   * Either run() does everything (solve, commit, accept, a callback per
   * step), or the caller drives the loop with solve_step() and
   * accept_step(), which leaves room between the two, e.g. to save the
   * history before it is committed:
   * @code
   * plastix::LoadStepping stepping(data);
   * while (!stepping.finished())
   *   {
   *     const plastix::LoadStepResult result = stepping.solve_step(newton);
   *     stepping.accept_step(newton, result);
   *     // output at stepping.load_factor() ...
   *   }
   * @endcode
   * The NewtonRaphson (and with it the operator and its plasticity state) is
   * passed to every call, so that a program may replace it between steps
   * (e.g. after adapting the mesh).
   */
  class LoadStepping
  {
  public:
    /** Load stepping by @p data from @p start (load factor 0 by default). */
    LoadStepping(const LoadSteppingData &data, const LoadSteppingPosition &start = LoadSteppingPosition());

    /** Whether every load factor has been reached. */
    bool
    finished() const;

    /**
     * Solves the next load step with @p newton, cutting as described above;
     * the plasticity state is not committed (accept_step() does that). @p verbose
     * prints Newton's lines and each cut on std::cout. Throws SolverError
     * naming the load factors and the last failure when cutting gives up.
     * @p before_attempt, if given, is called before every attempt (e.g. to
     * throw Interrupted when interrupt_requested()).
     */
    LoadStepResult
    solve_step(NewtonRaphson                &newton,
               bool                          verbose        = false,
               const std::function<void()> &before_attempt = {});

    /**
     * Whether accepting the step that solve_step() has just returned ends
     * the load stepping (it reaches the last load factor).
     */
    bool
    is_last_step(const LoadStepResult &result) const;

    /**
     * Accepts the converged @p result of solve_step(): tells @p newton
     * (NewtonRaphson::accept(), which commits the plasticity state) and
     * moves to the next step.
     */
    void
    accept_step(NewtonRaphson &newton, const LoadStepResult &result);

    /**
     * solve_step() and accept_step() until finished(), calling
     * @p after_step(result) after each accepted step (load_factor() and
     * position() are then those of the step).
     */
    void
    run(NewtonRaphson                                   &newton,
        const std::function<void(const LoadStepResult &)> &after_step = {},
        bool                                             verbose      = false);

    /** Load factor of the last converged step. */
    double
    load_factor() const;

    /** Where the load stepping stands (what a restart continues from). */
    LoadSteppingPosition
    position() const;

    /** Cuts (failed attempts) since this object was made. */
    unsigned int
    n_cuts() const;

  private:
    /** Skips load factors equal to the current one; sets the increment to the next. */
    void
    aim_at_next_target();

    LoadSteppingData     data;
    LoadSteppingPosition current;
    /** Increment of the next attempt. */
    double increment = 0;
    /** Cuts on the way to the current load factor. */
    unsigned int cuts_to_target = 0;
    unsigned int total_cuts     = 0;
    /** Displacement of the last converged step (restored after a failure). */
    DeviceVector u_converged;
  };
} // namespace plastix

#endif
