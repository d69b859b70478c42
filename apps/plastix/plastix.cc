// plastix: static linear elasticity, incremental elastoplasticity or
// finite-strain hyperelasticity driven by a .prm file, on the device backend (CUDA GPU or CPU) with deal.II meshes,
// solvers and output.
//
//   plastix <file.prm>            run
//   plastix --print-parameters    print a documented parameter file with all defaults
//   plastix --help                this text
//
//   plastix --restart <dir>       continue an elastoplastic run from its checkpoint
//
// Exit status: 0 success, 1 bad input (parameter file, mesh file, material,
// singular problem, a mesh too large for the memory), 2 solver did not
// converge, 3 device or memory error, 4 any other error, 5 interrupted by
// SIGINT/SIGTERM (the last checkpoint continues the run).
#include <deal.II/base/mpi.h>
#include <deal.II/base/parameter_handler.h>

#include <plastix/backend/device.h>
#include <plastix/core/runtime.h>
#include <plastix/solvers/linear_solver.h>

#include "checkpoint.h"
#include "elastic_problem.h"
#include "parameters.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace
{
  const char *usage =
    "usage: plastix <file.prm>          run the problem the parameter file describes\n"
    "       plastix --restart <dir>     continue an elastoplastic run from its checkpoint\n"
    "                                   (<Output/Directory>/checkpoint), on any number of ranks\n"
    "       plastix --print-parameters  print a documented parameter file with every default\n"
    "       plastix --help              show this text\n"
    "Runs static linear elasticity or elastoplasticity (Problem/Type; von Mises, Mohr-Coulomb\n"
    "or Drucker-Prager: Materials/Yield criterion), or finite-strain hyperelasticity\n"
    "(Problem/Kinematics), with the plastix matrix-free device operator.\n"
    "Exit status: 0 ok, 1 bad input, 2 solver did not converge, 3 device or memory error,\n"
    "4 other error, 5 interrupted (SIGINT/SIGTERM).\n";

  /**
   * Print the one-line message "plastix: <kind>: <message>" (rank 0, or the
   * failing rank if the error is not collective) and return @p code. An
   * error that only some ranks saw ends the others through MPI_Abort.
   */
  int
  report(const MPI_Comm comm, const char *kind, const std::string &message, const int code, const bool collective)
  {
    const unsigned int rank = dealii::Utilities::MPI::this_mpi_process(comm);
    if (rank == 0 || !collective)
      std::cerr << "plastix: " << kind << ": " << plastix::one_line(message) << std::endl;
    if (!collective && dealii::Utilities::MPI::n_mpi_processes(comm) > 1)
      MPI_Abort(comm, code);
    return code;
  }

  /**
   * A run started without mpirun (an MPI singleton) has no other process to
   * talk to: Open MPI's network components (UCX for point-to-point and
   * one-sided communication) then only cost start-up time, about 0.25 s of
   * MPI_Init on the development machine, and so does the helper daemon
   * (orted) that a singleton starts in case it spawns processes, which
   * plastix never does (about 0.15 s more). Take the shared-memory
   * components and an isolated singleton instead, unless the user chose
   * otherwise (the environment wins). Under mpirun (or another launcher)
   * nothing changes.
   */
  void
  prefer_local_mpi_components_for_a_singleton()
  {
    for (const char *launched : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
      if (std::getenv(launched) != nullptr)
        return;
    setenv("OMPI_MCA_pml", "ob1", 0);
    setenv("OMPI_MCA_btl", "self", 0);
    setenv("OMPI_MCA_osc", "^ucx", 0);
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  }

  /** The text of a deal.II exception without its source location and stack trace. */

  std::string
  dealii_message(const dealii::ExceptionBase &error)
  {
    std::ostringstream info;
    error.print_info(info);
    return info.str().empty() ? error.get_exc_name() : info.str();
  }
} // namespace

int
main(int argc, char **argv)
{
  // Only the program name goes to MPI_InitFinalize: the arguments are
  // plastix's own. deal.II 9.6 hands what it gets to PETSc, which warns at
  // exit about options it did not use (and so broke --print-parameters).
  // The host threads: deal.II's default, the node's cores shared among the
  // ranks on it (DEAL_II_NUM_THREADS caps them). deal.II's set-up runs
  // tasks on them (the block counts of distribute_mg_dofs()), and the
  // level DoFs are distributed while the operator is set up.
  prefer_local_mpi_components_for_a_singleton();
  int                                      mpi_argc = 1;
  char                                   **mpi_argv = argv;
  dealii::Utilities::MPI::MPI_InitFinalize mpi(mpi_argc, mpi_argv);
  const MPI_Comm                           comm = MPI_COMM_WORLD;
  const bool root = dealii::Utilities::MPI::this_mpi_process(comm) == 0;

  const std::string argument = argc > 1 ? argv[1] : "";
  if (argc == 2 && (argument == "--help" || argument == "-h"))
    {
      if (root)
        std::cout << usage;
      return 0;
    }
  const bool restart = argc == 3 && argument == "--restart";
  if (argc != 2 && !restart)
    {
      if (root)
        std::cerr << usage << "plastix: error in input: expected one parameter file or --restart <checkpoint>"
                  << std::endl;
      return 1;
    }

  plastix::Parameters       parameters;
  dealii::ParameterHandler prm;
  parameters.declare(prm);
  if (argument == "--print-parameters")
    {
      if (root)
        prm.print_parameters(std::cout, dealii::ParameterHandler::PRM);
      return 0;
    }

  // SIGINT/SIGTERM stop the run at the next clean point (exit status 5).
  plastix::install_interrupt_handlers();
  std::string checkpoint;
  try
    {
      if (restart)
        {
          checkpoint = plastix::find_checkpoint(argv[2], comm);
          parameters.read(prm, plastix::checkpoint_parameter_file(checkpoint));
          // The output goes where the checkpoint is, wherever the run started.
          parameters.output.directory = std::filesystem::path(checkpoint).parent_path().string();
          if (parameters.output.directory.empty())
            parameters.output.directory = ".";
          parameters.check_output();
          if (parameters.problem.type != plastix::ProblemType::elastoplastic &&
              !parameters.time_integration.is_dynamic())
            throw plastix::InputError("--restart", "only elastoplastic and dynamic runs write checkpoints");
        }
      else
        parameters.read(prm, argument);
    }
  catch (const plastix::InputError &error)
    {
      return report(comm, "error in input", error.what(), 1, true);
    }
  if (root && !restart)
    for (const std::string &warning : parameters.warnings)
      std::cerr << "plastix: warning: " << warning << std::endl;

  try
    {
      plastix::Runtime    runtime(comm, parameters.op.ghost_exchange);
      plastix::RunSummary summary;
      if (parameters.time_integration.is_dynamic())
        {
          plastix::DynamicProblem problem(parameters, comm);
          if (restart)
            problem.set_restart(checkpoint);
          summary = problem.run();
        }
      else if (parameters.problem.is_incremental())
        {
          plastix::ElastoplasticProblem problem(parameters, comm);
          if (restart)
            problem.set_restart(checkpoint);
          summary = problem.run();
        }
      else
        summary = plastix::ElasticProblem(parameters, comm).run();
      if (root)
        std::cout << summary.line() << std::endl;
    }
  catch (const plastix::InputError &error)
    {
      return report(comm, "error in input", error.what(), 1, true);
    }
  catch (const plastix::SolverError &error)
    {
      return report(comm, "error", error.what(), 2, true);
    }
  catch (const plastix::Interrupted &error)
    {
      return report(comm, "stopped", error.what(), 5, true);
    }
  catch (const plastix::backend::DeviceError &error)
    {
      return report(comm, "device error", error.what(), 3, false);
    }
  catch (const std::bad_alloc &)
    {
      return report(comm, "error", "host memory exhausted (use fewer cells per rank or more ranks)", 3, false);
    }
  catch (const dealii::ExceptionBase &error)
    {
      return report(comm, "error", dealii_message(error), 4, false);
    }
  catch (const std::exception &error)
    {
      return report(comm, "error", error.what(), 4, false);
    }
  return 0;
}
