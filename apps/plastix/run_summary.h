// The one-line summary of a run and the stage timer that fills it.
#ifndef PLASTIX_APP_RUN_SUMMARY_H
#define PLASTIX_APP_RUN_SUMMARY_H

#include <deal.II/base/mpi.h>
#include <deal.II/base/timer.h>

#include <string>
#include <utility>
#include <vector>

namespace plastix
{
  /** What a run did and how long each stage took. */
  struct RunSummary
  {
    /** A summary with the ranks of @p communicator, the ghost exchange and the device of the runtime. */
    static RunSummary
    for_run(MPI_Comm communicator);

    unsigned int       n_ranks = 1;
    /** How the ranks exchange ghost values (Runtime::ghost_exchange_description(); with several ranks). */
    std::string ghost_exchange;
    std::string        device;
    unsigned long long n_dofs  = 0;
    unsigned long long n_cells = 0;
    std::string        operator_description;
    std::string        solver;
    /** Load steps (1 for elastic runs) and cut steps. */
    unsigned int n_steps = 1, n_cuts = 0;
    /** Time steps of a dynamic run (0: not dynamic), the time reached and the steps per second of wall time. */
    unsigned int n_time_steps = 0;
    double       end_time = 0, time_steps_per_second = 0;
    /** Adaptive refinements that changed the mesh (n_dofs and n_cells are then those of the last mesh). */
    unsigned int n_adaptations = 0;
    /** Newton iterations over all steps (0 for elastic runs). */
    unsigned int newton_iterations = 0;
    /** Linear solver iterations over all solves. */
    unsigned int linear_iterations = 0;
    double       final_residual    = 0;
    double       relative_residual = 0;
    /** Gauss points with plastic strain at the end (elastoplastic runs). */
    unsigned long long yielded_points = 0;
    /** Stage name -> wall seconds (maximum over ranks), in run order. */
    std::vector<std::pair<std::string, double>> stage_seconds;
    /** Largest displacement magnitude at a node. */
    double max_displacement = 0;
    /** Last written PVTU file (empty if none). */
    std::string output_file;

    /** Add @p seconds to stage @p name (appended if new). */
    void
    add_time(const std::string &name, double seconds);

    /** One line for humans and scripts. */
    std::string
    line() const;
  };

  /** Times a stage as the maximum wall time over the ranks. */
  class StageTimer
  {
  public:
    StageTimer(MPI_Comm communicator, RunSummary &summary);

    /** Synchronise the ranks and start the clock. */
    void
    start();

    /** Add the time since start() to stage @p name. */
    void
    stop(const std::string &name);

  private:
    MPI_Comm      communicator;
    RunSummary   &summary;
    dealii::Timer timer;
  };
} // namespace plastix

#endif
