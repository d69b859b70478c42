// The ghost exchange of DeviceVector (as deal.II's vector_data_exchange for
// its vectors): who sends what, flattened from a deal.II partitioner, and the
// two transfers, owned values to the ghosts of other ranks and ghost sums to
// their owners, each through shared memory between the ranks of one node
// (NodeExchange) or through host buffers with MPI.
#ifndef PLASTIX_SOURCE_CORE_GHOST_EXCHANGE_H
#define PLASTIX_SOURCE_CORE_GHOST_EXCHANGE_H

#include <deal.II/base/partitioner.h>

#include <plastix/backend/device_array.h>

#include "node_exchange.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace plastix
{
  namespace internal
  {
    /**
     * Who sends what in a ghost exchange, flattened from a deal.II
     * partitioner: owned entries to export (device indices) grouped by
     * target rank, and the ghost range received from each owner; and which
     * of these peers share memory with this rank (NodeExchange).
     */
    struct GhostExchangePattern
    {
      explicit GhostExchangePattern(const dealii::Utilities::MPI::Partitioner &p)
        : communicator(p.get_mpi_communicator())
        , n_owned(p.locally_owned_size())
        , n_ghosts(p.n_ghost_indices())
      {
        std::vector<backend::LocalIndex> indices;
        for (const auto &range : p.import_indices())
          for (unsigned int i = range.first; i < range.second; ++i)
            indices.push_back(i);
        import_indices = backend::DeviceArray<backend::LocalIndex>(indices, "ghost export indices");
        n_import       = indices.size();
        for (const auto &t : p.import_targets())
          import_targets.emplace_back(t.first, t.second);
        for (const auto &t : p.ghost_targets())
          ghost_targets.emplace_back(t.first, t.second);
      }

      bool
      communicates() const
      {
        return !import_targets.empty() || !ghost_targets.empty();
      }

      /**
       * Bring the routes up to date with NodeExchange (after
       * Runtime::set_ghost_exchange()); returns whether any peer shares
       * memory with this rank (any_through_mpi: whether any does not).
       */
      bool
      update_routes() const
      {
        if (route_generation == NodeExchange::generation())
          return any_shared;
        route_generation = NodeExchange::generation();
        const auto pieces = [this](const std::vector<std::pair<int, unsigned int>> &targets,
                                   std::vector<TransferPiece>                      &result,
                                   std::vector<std::size_t>                        &offsets) {
          std::vector<int> ranks;
          for (const auto &t : targets)
            ranks.push_back(t.first);
          const std::vector<int> shared = NodeExchange::shared_ranks(communicator, ranks);
          result.clear();
          offsets.clear();
          std::size_t offset = 0;
          for (std::size_t i = 0; i < targets.size(); ++i)
            {
              result.push_back({targets[i].first, shared[i], targets[i].second});
              offsets.push_back(offset);
              offset += targets[i].second;
              any_shared      = any_shared || shared[i] >= 0;
              any_through_mpi = any_through_mpi || shared[i] < 0;
            }
        };
        any_shared      = false;
        any_through_mpi = false;
        pieces(import_targets, import_pieces, import_offsets);
        pieces(ghost_targets, ghost_pieces, ghost_offsets);
        return any_shared;
      }

      MPI_Comm                                 communicator;
      std::size_t                              n_owned;
      std::size_t                              n_ghosts;
      std::size_t                              n_import = 0;
      backend::DeviceArray<backend::LocalIndex> import_indices;
      std::vector<std::pair<int, unsigned int>> import_targets;
      std::vector<std::pair<int, unsigned int>> ghost_targets;

      /** The peers of import_targets and ghost_targets with their routes, and where their entries start. */
      mutable std::vector<TransferPiece> import_pieces, ghost_pieces;
      mutable std::vector<std::size_t>   import_offsets, ghost_offsets;
      mutable unsigned int               route_generation = static_cast<unsigned int>(-1);
      mutable bool                       any_shared       = false;
      mutable bool                       any_through_mpi  = false;
    };


    /**
     * The values of the owned entries of @p values that other ranks hold as
     * ghosts into their ghost entries (update_ghost_values()); the buffers
     * are the vector's and grow as needed. Collective.
     */
    template <typename Number>
    void
    update_ghosts(const GhostExchangePattern        &x,
                  Number                            *values,
                  backend::DeviceArray<Number>      &device_buffer,
                  backend::HostStagingArray<Number> &host_send_buffer,
                  backend::HostStagingArray<Number> &host_receive_buffer);

    /**
     * The ghost entries of @p values added to their owners' entries
     * (compress(VectorOperation::add)); the ghosts are left as they are.
     * Collective.
     */
    template <typename Number>
    void
    add_ghosts_to_owners(const GhostExchangePattern        &x,
                         Number                            *values,
                         backend::DeviceArray<Number>      &device_buffer,
                         backend::HostStagingArray<Number> &host_send_buffer,
                         backend::HostStagingArray<Number> &host_receive_buffer);
  } // namespace internal
} // namespace plastix

#endif
