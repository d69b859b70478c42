// Start and stop of the device backend from a deal.II program.
#ifndef PLASTIX_CORE_RUNTIME_H
#define PLASTIX_CORE_RUNTIME_H

#include <deal.II/base/mpi.h>

#include <plastix/base/enum_patterns.h>

#include <string>
#include <utility>
#include <vector>

namespace plastix
{
  /**
   * How device vectors exchange ghost values between MPI ranks.
   */
  enum class GhostExchange
  {
    /**
     * shared_memory between ranks of one node where their memory can be
     * mapped and kernels run on GPUs (CUDA IPC); mpi otherwise (on CPUs,
     * where MPI's own shared-memory transport does the same work).
     */
    automatic,
    /**
     * Through host buffers and MPI: each exchange copies the values to the
     * host, sends them and copies them back, waiting for the device twice.
     */
    mpi,
    /**
     * Ranks of one node read and write each other's memory: on GPUs a rank
     * packs its values into a buffer of its device that the other rank has
     * mapped (CUDA IPC; the other GPU reads it peer to peer), and the
     * ranks' kernel streams order the exchange by flags they write in
     * each other's memory, so neither host waits and no MPI message goes
     * per exchange; on CPUs the buffer is shared host memory, and the
     * hosts write and wait for the flags. Ranks on other nodes still go
     * through MPI.
     */
    shared_memory
  };

  template <>
  struct EnumNames<GhostExchange>
  {
    static constexpr const char *what = "ghost exchange";
    static std::vector<std::pair<GhostExchange, std::string>>
    table()
    {
      return {{GhostExchange::automatic, "auto"},
              {GhostExchange::mpi, "mpi"},
              {GhostExchange::shared_memory, "shared memory"}};
    }
  };

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
    /**
     * Start the backend; @p communicator determines the node-local rank.
     * Collective on @p communicator: set_ghost_exchange(@p ghost_exchange).
     */
    explicit Runtime(MPI_Comm communicator = MPI_COMM_WORLD, GhostExchange ghost_exchange = GhostExchange::automatic);

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

    /**
     * Choose how device vectors exchange ghost values from now on
     * (collective on the communicator of the constructor). For
     * shared_memory and automatic, every pair of ranks of a node tries to
     * map a buffer of the other; pairs that both can use shared memory,
     * all others MPI. GhostExchange::shared_memory throws
     * backend::DeviceError naming the ranks if a pair of one node cannot
     * (with automatic, that pair uses MPI). Call it while no ghost exchange
     * is under way (between solves).
     */
    void
    set_ghost_exchange(GhostExchange ghost_exchange);

    /**
     * What set_ghost_exchange() set up, for run summaries: e.g. "mpi",
     * "shared memory (CUDA IPC; 1 rank pair)" (no commas).
     */
    static std::string
    ghost_exchange_description();

  private:
    /** Communicator of the constructor. */
    MPI_Comm communicator;
  };
} // namespace plastix

PLASTIX_ENUM_PATTERN(plastix::GhostExchange)

#endif
