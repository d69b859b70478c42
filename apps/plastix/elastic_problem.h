// The drivers of the plastix application: static linear elasticity and
// incremental elastoplasticity.
#ifndef PLASTIX_APP_ELASTIC_PROBLEM_H
#define PLASTIX_APP_ELASTIC_PROBLEM_H

#include <deal.II/base/mpi.h>

#include <string>

#include "parameters.h"
#include "run_summary.h"

namespace plastix
{
  /**
   * Static linear elasticity on a mesh from the parameters: Dirichlet
   * constraints, tractions and body force, solved with the plastix device
   * operator and a deal.II Krylov solver, written as VTU/PVTU with
   * displacement, cell stress and von Mises stress, and the monitor's CSV
   * (and plot) with one row per load factor of 'Load stepping': the linear
   * solution scaled, with the reactions of the monitored boundary ids.
   */
  class ElasticProblem
  {
  public:
    ElasticProblem(const Parameters &parameters, MPI_Comm communicator);

    /** Run all stages; throws InputError, SolverError or a device error. */
    RunSummary
    run();

  private:
    const Parameters &parameters;
    MPI_Comm          communicator;
  };

  /**
   * The dynamic problems ('Time integration/Integrator' not none):
   * small-strain elastodynamics or finite-strain hyperelastodynamics with
   * the mass matrix of 'Time integration', Newmark, the midpoint rule,
   * generalised-alpha or central differences (Elastodynamics) from t = 0
   * to the End time, the loads of 'Boundary conditions' times the Load
   * amplitude over time, the initial velocity of the parameters. Every
   * Output interval steps: VTU/PVTU (displacement, velocity, stress) listed
   * in a .pvd time series, and a CSV row with the energies and the
   * monitored displacements and reactions.
   */
  class DynamicProblem
  {
  public:
    DynamicProblem(const Parameters &parameters, MPI_Comm communicator);

    /**
     * Continue from the checkpoint in @p directory (find_checkpoint()): its
     * mesh, displacement, velocity, acceleration and time-stepping state.
     */
    void
    set_restart(const std::string &directory);

    /**
     * Run the time steps (from the checkpoint's on a restart), writing
     * checkpoints as 'Output/Checkpoint interval' and 'Checkpoint wall time'
     * ask and stopping after 'Load stepping/Steps per run'; throws
     * InputError, SolverError, Interrupted or a device error.
     */
    RunSummary
    run();

  private:
    const Parameters &parameters;
    MPI_Comm          communicator;
    /** The checkpoint to continue from (empty: start at t = 0). */
    std::string restart_directory;
  };

  /**
   * The incremental problems (Problem/Type = elastoplastic, or
   * Problem/Kinematics = finite strain): small-strain elastoplasticity (von
   * Mises, Mohr-Coulomb, Drucker-Prager) or finite-strain hyperelasticity
   * (neo-Hookean, Mooney-Rivlin), the loads and prescribed displacements
   * of the parameters scaled by the load factors of 'Load stepping'; at every
   * step Newton-Raphson with the consistent tangent (matrix-free on the
   * device), inexact linear solves, and automatic halving of steps that do
   * not converge. Per converged step: VTU/PVTU (displacement, stress, von
   * Mises stress; equivalent plastic strain and plastic fraction, or the
   * Cauchy stress and the volume ratio J at finite strain) listed in a
   * .pvd time series, and a CSV (and PNG) of the monitored displacements and
   * reactions against the load factor.
   */
  class ElastoplasticProblem
  {
  public:
    ElastoplasticProblem(const Parameters &parameters, MPI_Comm communicator);

    /**
     * Continue from the checkpoint in @p directory (see checkpoint.h) instead
     * of starting at load factor 0: the mesh, displacement, Gauss-point
     * history and load-stepping state are read from it, on any number of
     * ranks. The parameters must be those stored in the checkpoint.
     */
    void
    set_restart(const std::string &directory);

    /**
     * Run all load steps; throws InputError, SolverError, Interrupted (SIGINT
     * or SIGTERM caught; the last checkpoint continues the run) or a device
     * error.
     */
    RunSummary
    run();

  private:
    const Parameters &parameters;
    MPI_Comm          communicator;
    /** Checkpoint to continue from (empty: start at load factor 0). */
    std::string restart_directory;
  };
} // namespace plastix

#endif
