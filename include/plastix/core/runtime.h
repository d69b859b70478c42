// Start and stop of the device backend from a deal.II program.
#ifndef PLASTIX_CORE_RUNTIME_H
#define PLASTIX_CORE_RUNTIME_H

#include <deal.II/base/mpi.h>

#include <string>

namespace plastix
{
  /**
   * Starts the device backend (Kokkos) for the lifetime of the object: create
   * one after dealii::Utilities::MPI::MPI_InitFinalize and before any
   * plastix object. With several ranks on a node, rank r of the node uses
   * GPU r modulo the number of GPUs. The destructor releases the device
   * vectors deal.II's solvers keep in their memory pool, then stops Kokkos.
   */
  class Runtime
  {
  public:
    /** Start the backend; @p communicator determines the node-local rank. */
    explicit Runtime(MPI_Comm communicator = MPI_COMM_WORLD);

    /** Release pooled device vectors and stop the backend. */
    ~Runtime();

    Runtime(const Runtime &) = delete;
    Runtime &
    operator=(const Runtime &) = delete;

    /** Execution space and device, e.g. "Kokkos 4.6.99, Cuda device 0 (NVIDIA H200, ...)". */
    static std::string
    description();

    /** Name of the execution space ("Cuda", "Serial", ...). */
    static std::string
    execution_space();
  };
} // namespace plastix

#endif
