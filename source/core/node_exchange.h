// Ghost transfers between MPI ranks of one node through memory both map
// (the GhostExchange::shared_memory route of the device vectors). Internal to
// the library: DeviceVector's ghost exchange and Runtime use it.
#ifndef PLASTIX_SOURCE_CORE_NODE_EXCHANGE_H
#define PLASTIX_SOURCE_CORE_NODE_EXCHANGE_H

#include <plastix/core/runtime.h>

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace plastix
{
  namespace internal
  {
    /**
     * Which way a transfer goes: from the owners to the ranks that hold the
     * entries as ghosts (update_ghost_values), or back (compress).
     */
    enum class TransferDirection
    {
      owners_to_ghosts = 0,
      ghosts_to_owners = 1
    };

    /** MPI tag of the values that go through host buffers (DeviceVector's MPI route and MPI pieces here). */
    constexpr int ghost_data_tag = 4701;

    /** One peer's share of a transfer. */
    struct TransferPiece
    {
      /** The peer in the communicator of the vector. */
      int rank;
      /** The peer in the exchange's own communicator if the pair shares memory; -1: MPI. */
      int shared_rank;
      /** Entries. */
      std::size_t count;
    };

    /**
     * Routes of the ghost exchange and the channels of the shared-memory
     * route, one process-wide set (set up by Runtime).
     *
     * A channel carries one direction of one kind of transfer from a rank to
     * one peer. The sender owns a buffer of two slots in its memory that the
     * receiver maps; each pair of ranks has a flag per direction, slot and
     * kind in the memory of the rank that waits for it. A transfer packs
     * into the next slot (a kernel of the sender) and signals the slot's
     * "ready" flag with the transfer's sequence number; the receiver's
     * stream waits for that flag, unpacks straight from the mapped slot and
     * signals the slot's "consumed" flag, which the sender's stream waits
     * for before it packs into the slot again. On GPUs the flags are written
     * and awaited by the streams (no host waits, no MPI message); only a
     * channel's new, larger buffer is announced by an MPI message, whose
     * coming the receiver knows from the size of the transfer.
     */
    class NodeExchange
    {
    public:
      /**
       * Set up the routes for @p mode (collective on @p communicator): probe
       * which pairs of ranks of a node can map each other's memory. Throws
       * backend::DeviceError for GhostExchange::shared_memory if a pair of
       * one node cannot.
       */
      static void
      setup(MPI_Comm communicator, GhostExchange mode);

      /**
       * Release every channel and the routes (before the backend stops).
       * With @p synchronise (collective) it first waits for the other ranks
       * to be done with this rank's buffers; without, it only waits for its
       * own device (unwinding from an error, when other ranks may not come).
       */
      static void
      release(bool synchronise);

      /** What setup() established, for summaries. */
      static std::string
      description();

      /** Changes with every setup(): routes computed earlier are stale. */
      static unsigned int
      generation();

      /**
       * For each rank of @p ranks (ranks of @p communicator): its rank in
       * the exchange's communicator if this rank and it share memory, -1 if
       * they talk through MPI.
       */
      static std::vector<int>
      shared_ranks(MPI_Comm communicator, const std::vector<int> &ranks);

      /**
       * Move entries of @p entry_bytes bytes: to each piece of @p sends,
       * pack(i, destination) writes sends[i].count entries to device memory;
       * from each piece of @p receives, unpack(j, source) reads
       * receives[j].count entries from device memory. Pieces with a shared
       * rank go through the channels, the others through @p communicator
       * with MPI and host buffers (@p device_staging, @p host_send and @p
       * host_receive: at least the sum of the counts of sends and of
       * receives in entries, the device one the larger of the two).
       */
      static void
      transfer(TransferDirection                                     direction,
               MPI_Comm                                              communicator,
               const std::vector<TransferPiece>                     &sends,
               const std::vector<TransferPiece>                     &receives,
               std::size_t                                           entry_bytes,
               const std::function<void(std::size_t, void *)>       &pack,
               const std::function<void(std::size_t, const void *)> &unpack,
               void                                                 *device_staging,
               void                                                 *host_send,
               void                                                 *host_receive);
    };
  } // namespace internal
} // namespace plastix

#endif
