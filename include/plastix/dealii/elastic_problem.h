// The static linear elasticity run of the plastix application.
#ifndef PLASTIX_DEALII_ELASTIC_PROBLEM_H
#define PLASTIX_DEALII_ELASTIC_PROBLEM_H

#include <deal.II/base/mpi.h>

#include <plastix/dealii/parameters.h>

#include <map>
#include <string>

namespace plastix
{
  /** What a run did and how long each stage took. */
  struct RunSummary
  {
    unsigned int n_ranks       = 1;
    std::string  device;
    unsigned long long n_dofs  = 0;
    unsigned long long n_cells = 0;
    std::string  operator_description;
    std::string  solver;
    unsigned int iterations     = 0;
    double       final_residual = 0;
    double       relative_residual = 0;
    /** Stage name -> wall seconds (maximum over ranks), in run order. */
    std::vector<std::pair<std::string, double>> stage_seconds;
    /** Largest displacement magnitude at a node. */
    double max_displacement = 0;
    /** Written PVTU file (empty if none). */
    std::string output_file;

    /** One line for humans and scripts. */
    std::string
    line() const;
  };

  /**
   * Static linear elasticity on a mesh from the parameters: Dirichlet
   * constraints, tractions and body force, solved with the plastix device
   * operator and a deal.II Krylov solver, written as VTU/PVTU with
   * displacement, cell stress and von Mises stress.
   */
  class ElasticProblem
  {
  public:
    ElasticProblem(const Parameters &parameters, MPI_Comm communicator);

    /** Run all stages; throws InputError, SolverError or a device error. */
    RunSummary
    run();

  private:
    Parameters parameters;
    MPI_Comm   communicator;
  };
} // namespace plastix

#endif
