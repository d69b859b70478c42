// Run summary line and stage timer.
#include <deal.II/base/mpi.h>

#include <plastix/core/runtime.h>

#include "run_summary.h"

#include <iomanip>
#include <sstream>
#include <string>

namespace plastix
{
  void
  RunSummary::add_time(const std::string &name, const double seconds)
  {
    for (auto &[stage, t] : stage_seconds)
      if (stage == name)
        {
          t += seconds;
          return;
        }
    stage_seconds.emplace_back(name, seconds);
  }

  RunSummary
  RunSummary::for_run(MPI_Comm communicator)
  {
    RunSummary summary;
    summary.n_ranks        = dealii::Utilities::MPI::n_mpi_processes(communicator);
    summary.ghost_exchange = Runtime::ghost_exchange_description();
    summary.device         = Runtime::execution_space();
    return summary;
  }

  std::string
  RunSummary::line() const
  {
    std::ostringstream s;
    s << std::setprecision(4) << "plastix: " << n_ranks << " rank(s)";
    if (n_ranks > 1 && !ghost_exchange.empty())
      s << " (ghost exchange " << ghost_exchange << ")";
    s << ", " << device << ", " << n_dofs << " DoFs, "
      << n_cells << " cells, " << operator_description << ", " << solver;
    if (n_time_steps > 0)
      s << ", " << n_time_steps << " time steps" << (n_cuts > 0 ? " (" + std::to_string(n_cuts) + " cuts)" : "")
        << " to t = " << end_time << " (" << time_steps_per_second
        << " per second), " << newton_iterations << " Newton iterations, " << linear_iterations
        << " linear iterations";
    else if (newton_iterations > 0)
      s << ", " << n_steps << " load steps (" << n_cuts << " cuts), " << newton_iterations << " Newton iterations, "
        << linear_iterations << " linear iterations, " << yielded_points << " yielded Gauss points";
    else if (n_adaptations == 0)
      s << " " << linear_iterations << " iterations";
    if (n_adaptations > 0)
      s << ", " << n_adaptations << " mesh adaptations";
    // A time integration solves one system per Newton iteration of every
    // step: there is no one final residual to report.
    if (n_time_steps == 0)
      s << ", residual " << final_residual << " (relative " << relative_residual << ")";
    s << ", max |u| " << max_displacement << ", time [s]:";
    double total = 0;
    for (const auto &[stage, seconds] : stage_seconds)
      {
        s << " " << stage << " " << seconds;
        // "of which ...": a part of the stage before it, counted there.
        if (stage.rfind("of which", 0) != 0)
          total += seconds;
      }
    s << ", total " << total;
    return s.str();
  }

  StageTimer::StageTimer(MPI_Comm communicator, RunSummary &summary)
    : communicator(communicator)
    , summary(summary)
  {}

  void
  StageTimer::start()
  {
    MPI_Barrier(communicator);
    timer.restart();
  }

  void
  StageTimer::stop(const std::string &name)
  {
    summary.add_time(name, dealii::Utilities::MPI::max(timer.wall_time(), communicator));
  }
} // namespace plastix
