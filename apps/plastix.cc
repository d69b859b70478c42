// plastix: static linear elasticity or incremental J2 elastoplasticity driven
// by a .prm file, on the device backend (CUDA GPU or CPU) with deal.II meshes,
// solvers and output.
//
//   plastix <file.prm>            run
//   plastix --print-parameters    print a documented parameter file with all defaults
//   plastix --help                this text
//
// Exit status: 0 success, 1 bad input (parameter file, mesh file, material),
// 2 linear solver did not converge, 3 device error (e.g. out of memory),
// 4 any other error.
#include <deal.II/base/mpi.h>
#include <deal.II/base/parameter_handler.h>

#include <plastix/backend/device.h>
#include <plastix/dealii/elastic_problem.h>
#include <plastix/dealii/linear_solver.h>
#include <plastix/dealii/parameters.h>
#include <plastix/dealii/runtime.h>

#include <iostream>

namespace
{
  const char *usage =
    "usage: plastix <file.prm>          run the problem the parameter file describes\n"
    "       plastix --print-parameters  print a documented parameter file with every default\n"
    "       plastix --help              show this text\n"
    "Runs static linear elasticity or J2 elastoplasticity (Problem/Type) with the plastix\n"
    "matrix-free device operator.\n"
    "Exit status: 0 ok, 1 bad input, 2 solver did not converge, 3 device error, 4 other error.\n";

  int
  report(const MPI_Comm comm, const char *kind, const std::string &message, const int code, const bool collective)
  {
    const unsigned int rank = dealii::Utilities::MPI::this_mpi_process(comm);
    if (rank == 0 || !collective)
      std::cerr << "plastix: " << kind << ": " << message << std::endl;
    // An error on one rank would leave the others waiting in MPI.
    if (!collective && dealii::Utilities::MPI::n_mpi_processes(comm) > 1)
      MPI_Abort(comm, code);
    return code;
  }
} // namespace

int
main(int argc, char **argv)
{
  dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  const MPI_Comm                           comm = MPI_COMM_WORLD;
  const bool root = dealii::Utilities::MPI::this_mpi_process(comm) == 0;

  if (argc != 2)
    {
      if (root)
        std::cerr << usage;
      return 1;
    }
  const std::string argument = argv[1];
  if (argument == "--help" || argument == "-h")
    {
      if (root)
        std::cout << usage;
      return 0;
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

  try
    {
      parameters.read(prm, argument);
    }
  catch (const plastix::InputError &error)
    {
      return report(comm, "error in input", error.what(), 1, true);
    }

  try
    {
      plastix::Runtime          runtime(comm);
      const plastix::RunSummary summary = parameters.problem.type == "elastoplastic" ?
                                            plastix::ElastoplasticProblem(parameters, comm).run() :
                                            plastix::ElasticProblem(parameters, comm).run();
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
  catch (const plastix::backend::DeviceMemoryError &error)
    {
      return report(comm, "device error", error.what(), 3, false);
    }
  catch (const std::exception &error)
    {
      return report(comm, "error", error.what(), 4, false);
    }
  return 0;
}
