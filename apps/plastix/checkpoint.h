// Checkpoint and restart of an elastoplastic or dynamic run: the mesh
// (p4est), the displacement (and the velocity and acceleration of a dynamic
// run), the Gauss-point history and the load-stepping or time-stepping
// state, written atomically after converged steps (clean interruption on
// SIGINT or SIGTERM: plastix/core/interruption.h).
#ifndef PLASTIX_APP_CHECKPOINT_H
#define PLASTIX_APP_CHECKPOINT_H

#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/core/interruption.h>
#include <plastix/solvers/time_integration.h>

#include "parameters.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace plastix
{
  /** What a dynamic run keeps in its checkpoint besides u, v and a. */
  struct TimeSteppingState
  {
    /** The integrator's state (time, time step, energies, force scale). */
    ElastodynamicsState dynamics;
    /** The total energy at the start of the run (the printed energy balance is relative to it). */
    double initial_energy = 0.;
    /**
     * The time step of the run, to which the steps grow back after cuts
     * (central differences: the one chosen from the critical step at the
     * start, kept so that a restart on another partition takes the same).
     */
    double run_time_step = 0.;
  };

  /**
   * The state of the load stepping after a converged load step, or of the
   * time stepping after a time step: what, with the mesh, the vectors and
   * the history, continues a run exactly.
   */
  struct LoadSteppingState
  {
    /** Converged load steps (time steps) so far. */
    unsigned int step = 0;
    /** Index (in Load stepping/Load factors) of the load factor being approached. */
    unsigned int target_index = 0;
    /** Load factor of the last converged step. */
    double lambda = 0;
    /** The increment of the next attempt after cuts (0: the whole remaining increment). */
    double increment = 0;
    /** Cuts on the way to the load factor being approached. */
    unsigned int cuts_to_target = 0;
    /** Load factor before that step (detects load reversals). */
    double lambda_previous = 0;
    /** Largest force reference of the converged steps (Newton's scale at zero load). */
    double force_scale = 0;
    /** Totals of the run summary. */
    unsigned long long newton_iterations = 0, linear_iterations = 0, n_cuts = 0;
    /** The PVD records (load factor, PVTU file) written so far. */
    std::vector<std::pair<double, std::string>> pvd;
    /** Rows of the monitor: load factor and the monitored values, one per converged step. */
    std::vector<std::pair<double, std::vector<double>>> monitor_values;
    /** The CSV rows of the monitor, as written. */
    std::vector<std::string> monitor_rows;
    /** A dynamic run's state (none for load steps). */
    std::optional<TimeSteppingState> time_stepping;
  };

  /**
   * Where a run keeps its checkpoint: the folder "checkpoint" in the output
   * directory @p output_directory.
   */
  std::string
  checkpoint_directory(const std::string &output_directory);

  /**
   * The complete checkpoint to continue from, given the folder @p directory
   * named on the command line: @p directory itself if complete, else what a
   * write cut short between its renames left: the complete new checkpoint
   * "<directory>.new" or the previous one, "<directory>.old". Rank 0 checks
   * every file against the size and
   * checksum recorded when it was written. Throws InputError (on every rank
   * of @p communicator) if neither is complete or a file is damaged.
   */
  std::string
  find_checkpoint(const std::string &directory, MPI_Comm communicator);

  /**
   * Write a checkpoint into @p directory (collective), atomically: into
   * "<directory>.new" first, then moved into place, so that the previous
   * checkpoint stays valid until the new one is complete. Holds the
   * parameter file text @p parameter_text, the mesh (p4est, with the data
   * attached: the DoF vectors @p vectors with ghosts (the displacement;
   * a dynamic run's velocity and acceleration after it) and the per-cell
   * history @p history, @p values_per_cell values per locally owned cell in
   * the order of the locally owned active cells, or none for 0) and
   * @p state.
   */
  void
  write_checkpoint(const std::string                                                      &directory,
                   const std::string                                                      &parameter_text,
                   const dealii::parallel::distributed::Triangulation<3>                  &triangulation,
                   const dealii::DoFHandler<3>                                            &dof_handler,
                   const std::vector<const dealii::LinearAlgebra::distributed::Vector<double> *> &vectors,
                   const std::vector<double>                                              &history,
                   unsigned int                                                           values_per_cell,
                   const LoadSteppingState                                                &state);

  /**
   * As above for the mesh of any triangulation: a
   * parallel::distributed::Triangulation is saved as it is; a serial one
   * (the one-rank runs) is rebuilt from @p mesh as a
   * parallel::distributed::Triangulation, to which the displacement and the
   * history are copied cell by cell (cells matched by their centres), so
   * that every checkpoint has the same p4est format and restarts on any
   * number of ranks.
   */
  void
  write_checkpoint(const std::string                                                      &directory,
                   const std::string                                                      &parameter_text,
                   const MeshParameters                                                   &mesh,
                   const dealii::Triangulation<3>                                         &triangulation,
                   const dealii::DoFHandler<3>                                            &dof_handler,
                   const std::vector<const dealii::LinearAlgebra::distributed::Vector<double> *> &vectors,
                   const std::vector<double>                                              &history,
                   unsigned int                                                           values_per_cell,
                   const LoadSteppingState                                                &state);

  /** Name of the file of the mesh in a checkpoint (for triangulation.load()). */
  std::string
  checkpoint_mesh_file(const std::string &directory);

  /**
   * After triangulation.load(checkpoint_mesh_file(directory)) and the DoF
   * distribution: the vectors (@p vectors: locally owned layout, as many as
   * were written) and the history (@p values_per_cell values per locally
   * owned cell; none for 0, as written) of the checkpoint, on any number of
   * ranks (collective).
   */
  void
  read_checkpoint_data(const dealii::parallel::distributed::Triangulation<3>                  &triangulation,
                       const dealii::DoFHandler<3>                                            &dof_handler,
                       const std::vector<dealii::LinearAlgebra::distributed::Vector<double> *> &vectors,
                       std::vector<double>                                                    &history,
                       unsigned int                                                           values_per_cell);

  /** The load-stepping state of the checkpoint in @p directory. */
  LoadSteppingState
  read_load_stepping_state(const std::string &directory);

  /** Name of the parameter file of a checkpoint. */
  std::string
  checkpoint_parameter_file(const std::string &directory);

  /**
   * Whether a run writes a checkpoint after its step @p step: never after
   * the last step (@p last); where the run stops (@p stop_here, 'Load
   * stepping/Steps per run'), every 'Checkpoint interval' steps of
   * @p output, and when 'Checkpoint wall time' has passed on @p since_last
   * (the slowest rank's clock decides, so that all ranks agree; collective
   * over @p communicator).
   */
  bool
  checkpoint_due(const OutputParameters &output,
                 unsigned int            step,
                 bool                    last,
                 bool                    stop_here,
                 const dealii::Timer    &since_last,
                 MPI_Comm                communicator);

  /**
   * The message of a run that SIGINT or SIGTERM stopped @p where ("before
   * load step 3", "at time step 12; ..."): the signal, and the checkpoint of
   * @p step_kind step @p checkpoint_step in @p checkpoint that continues it,
   * or that none was written yet (@p checkpoint_step 0).
   */
  std::string
  interruption_message(const std::string &where,
                       const std::string &step_kind,
                       unsigned int       checkpoint_step,
                       const std::string &checkpoint);

  /** Remove the checkpoint @p directory and what a cut-short write left beside it (on the calling rank). */
  void
  remove_checkpoint(const std::string &directory);
} // namespace plastix

#endif
