// The ghost exchange of DeviceVector: shared-memory routes between the ranks
// of one node, host buffers and MPI otherwise.
#include <deal.II/base/mpi.h>

#include <plastix/backend/vector_operations.h>

#include "ghost_exchange.h"

#include <algorithm>
#include <type_traits>

namespace plastix
{
  namespace internal
  {
    namespace ops = backend::vector_operations;

    namespace
    {
      /**
       * Room in the buffers of the MPI route: @p n_send entries on the host
       * to send, @p n_receive to receive, the larger of the two on the device.
       */
      template <typename Number>
      void
      reserve_staging(const std::size_t                  n_send,
                      const std::size_t                  n_receive,
                      backend::DeviceArray<Number>      &device_buffer,
                      backend::HostStagingArray<Number> &host_send_buffer,
                      backend::HostStagingArray<Number> &host_receive_buffer)
      {
        device_buffer.resize(std::max(n_send, n_receive), "ghost exchange buffer");
        host_send_buffer.reserve(n_send);
        host_receive_buffer.reserve(n_receive);
      }

      /** Send consecutive chunks of @p send to @p send_targets and receive chunks of @p receive from @p receive_sources. */
      template <typename Number>
      void
      exchange(MPI_Comm                                         communicator,
               const std::vector<std::pair<int, unsigned int>> &send_targets,
               const Number                                    *send,
               const std::vector<std::pair<int, unsigned int>> &receive_sources,
               Number                                          *receive)
      {
        const MPI_Datatype type = std::is_same<Number, float>::value ? MPI_FLOAT : MPI_DOUBLE;
        std::vector<MPI_Request> requests;
        requests.reserve(send_targets.size() + receive_sources.size());
        std::size_t offset = 0;
        for (const auto &[rank, count] : receive_sources)
          {
            requests.emplace_back();
            const int ierr = MPI_Irecv(receive + offset, count, type, rank, ghost_data_tag,
                                       communicator, &requests.back());
            AssertThrowMPI(ierr);
            offset += count;
          }
        offset = 0;
        for (const auto &[rank, count] : send_targets)
          {
            requests.emplace_back();
            const int ierr = MPI_Isend(send + offset, count, type, rank, ghost_data_tag,
                                       communicator, &requests.back());
            AssertThrowMPI(ierr);
            offset += count;
          }
        const int ierr = MPI_Waitall(requests.size(), requests.data(), MPI_STATUSES_IGNORE);
        AssertThrowMPI(ierr);
      }
    } // namespace

    template <typename Number>
    void
    update_ghosts(const GhostExchangePattern        &x,
                  Number                            *values,
                  backend::DeviceArray<Number>      &device_buffer,
                  backend::HostStagingArray<Number> &host_send_buffer,
                  backend::HostStagingArray<Number> &host_receive_buffer)
    {
      if (!x.communicates())
        return;
      // The shared route stages nothing unless some peer goes through MPI.
      const bool shared = x.update_routes();
      if (!shared || x.any_through_mpi)
        reserve_staging(x.n_import, x.n_ghosts, device_buffer, host_send_buffer, host_receive_buffer);
      if (shared)
        {
          Number *const ghosts = values + x.n_owned;
          NodeExchange::transfer(
            TransferDirection::owners_to_ghosts, x.communicator, x.import_pieces, x.ghost_pieces,
            sizeof(Number),
            [&](const std::size_t i, void *destination) {
              ops::gather(x.import_pieces[i].count, x.import_indices.data() + x.import_offsets[i], values,
                          static_cast<Number *>(destination));
            },
            [&](const std::size_t j, const void *source) {
              ops::equ(x.ghost_pieces[j].count, Number(1), static_cast<const Number *>(source),
                       ghosts + x.ghost_offsets[j]);
            },
            device_buffer.data(), host_send_buffer.data(), host_receive_buffer.data());
          return;
        }
      ops::gather(x.n_import, x.import_indices.data(), values, device_buffer.data());
      backend::copy_to_host(host_send_buffer.data(), device_buffer.data(), x.n_import * sizeof(Number));
      exchange(x.communicator, x.import_targets, host_send_buffer.data(), x.ghost_targets,
               host_receive_buffer.data());
      backend::copy_to_device(values + x.n_owned, host_receive_buffer.data(), x.n_ghosts * sizeof(Number));
    }

    template <typename Number>
    void
    add_ghosts_to_owners(const GhostExchangePattern        &x,
                         Number                            *values,
                         backend::DeviceArray<Number>      &device_buffer,
                         backend::HostStagingArray<Number> &host_send_buffer,
                         backend::HostStagingArray<Number> &host_receive_buffer)
    {
      if (!x.communicates())
        return;
      const bool shared = x.update_routes();
      if (!shared || x.any_through_mpi)
        reserve_staging(x.n_ghosts, x.n_import, device_buffer, host_send_buffer, host_receive_buffer);
      if (shared)
        {
          Number *const ghosts = values + x.n_owned;
          NodeExchange::transfer(
            TransferDirection::ghosts_to_owners, x.communicator, x.ghost_pieces, x.import_pieces,
            sizeof(Number),
            [&](const std::size_t i, void *destination) {
              ops::equ(x.ghost_pieces[i].count, Number(1), ghosts + x.ghost_offsets[i],
                       static_cast<Number *>(destination));
            },
            [&](const std::size_t j, const void *source) {
              ops::scatter_add(x.import_pieces[j].count, x.import_indices.data() + x.import_offsets[j],
                               static_cast<const Number *>(source), values);
            },
            device_buffer.data(), host_send_buffer.data(), host_receive_buffer.data());
        }
      else
        {
          backend::copy_to_host(host_send_buffer.data(), values + x.n_owned, x.n_ghosts * sizeof(Number));
          exchange(x.communicator, x.ghost_targets, host_send_buffer.data(), x.import_targets,
                   host_receive_buffer.data());
          backend::copy_to_device(device_buffer.data(), host_receive_buffer.data(), x.n_import * sizeof(Number));
          ops::scatter_add(x.n_import, x.import_indices.data(), device_buffer.data(), values);
        }
    }

    template void
    update_ghosts(const GhostExchangePattern &, double *, backend::DeviceArray<double> &,
                  backend::HostStagingArray<double> &, backend::HostStagingArray<double> &);
    template void
    update_ghosts(const GhostExchangePattern &, float *, backend::DeviceArray<float> &,
                  backend::HostStagingArray<float> &, backend::HostStagingArray<float> &);
    template void
    add_ghosts_to_owners(const GhostExchangePattern &, double *, backend::DeviceArray<double> &,
                         backend::HostStagingArray<double> &, backend::HostStagingArray<double> &);
    template void
    add_ghosts_to_owners(const GhostExchangePattern &, float *, backend::DeviceArray<float> &,
                         backend::HostStagingArray<float> &, backend::HostStagingArray<float> &);
  } // namespace internal
} // namespace plastix
