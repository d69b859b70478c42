// Ghost transfers between MPI ranks of one node through memory both map.
#include "node_exchange.h"

#include <deal.II/base/exceptions.h>

#include <plastix/backend/device.h>
#include <plastix/backend/shared_memory.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <sstream>
#include <utility>

namespace plastix
{
  namespace internal
  {
    namespace
    {
      /** The MPI message that announces a packed slot. */
      struct Control
      {
        std::uint64_t                        sequence   = 0;
        std::uint64_t                        bytes      = 0;
        std::uint64_t                        slot_bytes = 0;
        std::uint32_t                        slot       = 0;
        std::uint32_t                        generation = 0;
        backend::SharedHandle                buffer;
        std::array<backend::SharedHandle, 2> ready;
      };

      /** The MPI message by which the receiver frees a slot. */
      struct Acknowledgement
      {
        std::uint64_t                        sequence = 0;
        std::array<backend::SharedHandle, 2> consumed;
      };

      constexpr int control_tag     = 4710;
      constexpr int acknowledge_tag = 4712;

      void
      check_mpi(const int status)
      {
        AssertThrowMPI(status);
        (void)status;
      }

      /** The sending end of a channel. */
      struct Sender
      {
        backend::SharedBuffer                buffer;
        std::vector<backend::SharedBuffer>   retired;
        std::size_t                          slot_bytes = 0;
        std::uint32_t                        generation = 0;
        std::array<backend::SharedEvent, 2>  ready;
        std::array<MPI_Request, 2>           acknowledge_request{{MPI_REQUEST_NULL, MPI_REQUEST_NULL}};
        std::array<Acknowledgement, 2>       acknowledgement;
        std::array<backend::MappedEvent, 2>  consumed;
        bool                                 consumed_open = false;
        std::uint64_t                        sequence      = 0;
        Control                              control;
      };

      /** The receiving end of a channel. */
      struct Receiver
      {
        backend::MappedBuffer               buffer;
        std::vector<backend::MappedBuffer>  retired;
        std::uint32_t                       generation = 0;
        std::array<backend::MappedEvent, 2> ready;
        bool                                ready_open = false;
        std::array<backend::SharedEvent, 2> consumed;
        std::uint64_t                       sequence = 0;
        Control                             control;
        Acknowledgement                     acknowledgement;
      };

      /** Everything setup() establishes. */
      struct State
      {
        MPI_Comm          communicator = MPI_COMM_NULL;
        std::vector<char> shared;
        std::string       description  = "mpi";
        unsigned int      generation   = 0;
        // Channels by (direction, peer rank in communicator).
        std::map<std::pair<int, int>, std::unique_ptr<Sender>>   senders;
        std::map<std::pair<int, int>, std::unique_ptr<Receiver>> receivers;

        /**
         * Release the channels and the communicator. With @p synchronise
         * (collective): first receive the outstanding acknowledgements, and
         * wait until every rank's device is done, so no stream still reads a
         * buffer that goes. Without (unwinding from an error): cancel them.
         */
        void
        clear(const bool synchronise)
        {
          int finalized = 0;
          MPI_Finalized(&finalized);
          const bool mpi = !finalized && communicator != MPI_COMM_NULL;
          for (auto &[key, sender] : senders)
            for (MPI_Request &request : sender->acknowledge_request)
              if (mpi && request != MPI_REQUEST_NULL)
                {
                  if (synchronise)
                    MPI_Wait(&request, MPI_STATUS_IGNORE);
                  else
                    {
                      MPI_Cancel(&request);
                      MPI_Request_free(&request);
                    }
                }
          if (backend::is_initialized())
            backend::fence();
          if (mpi && synchronise)
            MPI_Barrier(communicator);
          receivers.clear();
          senders.clear();
          if (mpi)
            MPI_Comm_free(&communicator);
          communicator = MPI_COMM_NULL;
          shared.clear();
          description = "mpi";
        }

        ~State()
        {
          clear(false);
        }
      };

      State &
      state()
      {
        static State s;
        return s;
      }

      /**
       * Which ranks of this rank's node it can share memory with: each maps
       * a small buffer and opens an event of every other; a pair shares if
       * both succeeded.
       */
      struct Probe
      {
        /** Per rank of the communicator: whether this rank shares memory with it. */
        std::vector<char> shared;
        /** This rank's first failure to map another's memory. */
        std::string failure;
        /** Ranks on this rank's node. */
        int n_node = 1;
      };

      Probe
      probe(MPI_Comm communicator)
      {
        int n_ranks = 0, rank = 0;
        MPI_Comm_size(communicator, &n_ranks);
        MPI_Comm_rank(communicator, &rank);
        std::vector<char> shared(n_ranks, 0);
        MPI_Comm          node;
        check_mpi(MPI_Comm_split_type(communicator, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
        int n_node = 0, node_rank = 0;
        MPI_Comm_size(node, &n_node);
        MPI_Comm_rank(node, &node_rank);

        // Ranks of the node in the communicator.
        std::vector<int> node_ranks(n_node);
        check_mpi(MPI_Allgather(&rank, 1, MPI_INT, node_ranks.data(), 1, MPI_INT, node));

        std::string failure;
        char        created = 1;
        std::unique_ptr<backend::SharedBuffer> buffer;
        std::unique_ptr<backend::SharedEvent>  event;
        std::array<backend::SharedHandle, 2>   handles;
        try
          {
            buffer     = std::make_unique<backend::SharedBuffer>(64);
            event      = std::make_unique<backend::SharedEvent>();
            handles[0] = buffer->handle();
            handles[1] = event->handle();
          }
        catch (const std::exception &error)
          {
            created = 0;
            failure = error.what();
          }
        std::vector<std::array<backend::SharedHandle, 2>> all(n_node);
        std::vector<char>                                 all_created(n_node);
        check_mpi(MPI_Allgather(handles.data(), sizeof(handles), MPI_BYTE, all.data(), sizeof(handles), MPI_BYTE,
                                node));
        check_mpi(MPI_Allgather(&created, 1, MPI_CHAR, all_created.data(), 1, MPI_CHAR, node));

        std::vector<char> mapped(n_node, 0);
        {
          std::vector<backend::MappedBuffer> buffers;
          std::vector<backend::MappedEvent>  events;
          for (int j = 0; j < n_node; ++j)
            if (j != node_rank && created && all_created[j])
              try
                {
                  buffers.emplace_back(all[j][0], 64);
                  events.emplace_back(all[j][1]);
                  mapped[j] = 1;
                }
              catch (const std::exception &error)
                {
                  if (failure.empty())
                    failure = "rank " + std::to_string(rank) + " cannot map the memory of rank " +
                              std::to_string(node_ranks[j]) + ": " + error.what();
                }
          // Everybody has tried before the mappings and then the buffers go.
          check_mpi(MPI_Barrier(node));
        }
        check_mpi(MPI_Barrier(node));

        std::vector<char> matrix(n_node * n_node);
        check_mpi(MPI_Allgather(mapped.data(), n_node, MPI_CHAR, matrix.data(), n_node, MPI_CHAR, node));
        for (int j = 0; j < n_node; ++j)
          if (j != node_rank && matrix[node_rank * n_node + j] && matrix[j * n_node + node_rank])
            shared[node_ranks[j]] = 1;
        MPI_Comm_free(&node);
        return {shared, failure, n_node};
      }

      Sender &
      sender(const TransferDirection direction, const int peer)
      {
        auto &slot = state().senders[{static_cast<int>(direction), peer}];
        if (!slot)
          slot = std::make_unique<Sender>();
        return *slot;
      }

      Receiver &
      receiver(const TransferDirection direction, const int peer)
      {
        auto &slot = state().receivers[{static_cast<int>(direction), peer}];
        if (!slot)
          slot = std::make_unique<Receiver>();
        return *slot;
      }

      std::string
      out_of_step(const int peer, const std::string &what)
      {
        return "ghost exchange out of step with rank " + std::to_string(peer) + ": " + what +
               " (ranks must exchange the ghosts of their vectors in the same order)";
      }
    } // namespace

    void
    NodeExchange::setup(MPI_Comm communicator, const GhostExchange mode)
    {
      State &s = state();
      s.clear(true);
      ++s.generation;
      int n_ranks = 1;
      MPI_Comm_size(communicator, &n_ranks);
      const bool wanted =
        mode == GhostExchange::shared_memory ||
        (mode == GhostExchange::automatic &&
         backend::shared_memory_kind() == backend::SharedMemoryKind::cuda_ipc);
      if (!wanted || n_ranks == 1)
        {
          s.description = n_ranks == 1 ? "none (one rank)" : "mpi";
          return;
        }
      auto [shared, failure, n_node] = probe(communicator);
      int rank                       = 0;
      MPI_Comm_rank(communicator, &rank);
      // The pairs of a node that cannot share, and one reason, on every rank.
      int n_shared = 0;
      for (const char flag : shared)
        n_shared += flag;
      int complete       = n_shared == n_node - 1 ? 1 : 0;
      int all_complete   = 0;
      check_mpi(MPI_Allreduce(&complete, &all_complete, 1, MPI_INT, MPI_MIN, communicator));
      if (mode == GhostExchange::shared_memory && !all_complete)
        {
          // The first rank with a reason reports it to all.
          int has_reason = failure.empty() ? n_ranks : rank, first = 0;
          check_mpi(MPI_Allreduce(&has_reason, &first, 1, MPI_INT, MPI_MIN, communicator));
          std::array<char, 512> reason{};
          if (first == rank)
            failure.copy(reason.data(), reason.size() - 1);
          if (first < n_ranks)
            check_mpi(MPI_Bcast(reason.data(), reason.size(), MPI_CHAR, first, communicator));
          throw backend::DeviceError(
            std::string("Ghost exchange = shared memory: ranks of one node cannot map each other's memory (") +
            (first < n_ranks ? std::string(reason.data()) : std::string("no reason given")) + "); use mpi or auto");
        }
      check_mpi(MPI_Comm_dup(communicator, &s.communicator));
      s.shared = std::move(shared);
      int total_shared = 0;
      check_mpi(MPI_Allreduce(&n_shared, &total_shared, 1, MPI_INT, MPI_SUM, communicator));
      std::ostringstream text;
      if (total_shared == 0)
        text << "mpi (no ranks of a node can share memory)";
      else
        text << "shared memory (" << backend::shared_memory_kind_name(backend::shared_memory_kind()) << "; "
             << total_shared / 2 << " rank pair" << (total_shared == 2 ? "" : "s")
             << (all_complete ? "" : "; mpi for the others") << ")";
      s.description = text.str();
    }

    void
    NodeExchange::release(const bool synchronise)
    {
      state().clear(synchronise);
      ++state().generation;
    }

    std::string
    NodeExchange::description()
    {
      return state().description;
    }

    unsigned int
    NodeExchange::generation()
    {
      return state().generation;
    }

    std::vector<int>
    NodeExchange::shared_ranks(MPI_Comm communicator, const std::vector<int> &ranks)
    {
      std::vector<int> result(ranks.size(), -1);
      const State     &s = state();
      if (s.communicator == MPI_COMM_NULL || ranks.empty())
        return result;
      MPI_Group from, to;
      check_mpi(MPI_Comm_group(communicator, &from));
      check_mpi(MPI_Comm_group(s.communicator, &to));
      std::vector<int> translated(ranks.size());
      check_mpi(MPI_Group_translate_ranks(from, static_cast<int>(ranks.size()), ranks.data(), to,
                                          translated.data()));
      MPI_Group_free(&from);
      MPI_Group_free(&to);
      for (std::size_t i = 0; i < ranks.size(); ++i)
        if (translated[i] != MPI_UNDEFINED && s.shared[translated[i]])
          result[i] = translated[i];
      return result;
    }

    void
    NodeExchange::transfer(const TransferDirection                               direction,
                           MPI_Comm                                              communicator,
                           const std::vector<TransferPiece>                     &sends,
                           const std::vector<TransferPiece>                     &receives,
                           const std::size_t                                     entry_bytes,
                           const std::function<void(std::size_t, void *)>       &pack,
                           const std::function<void(std::size_t, const void *)> &unpack,
                           void                                                 *device_staging,
                           void                                                 *host_send,
                           void                                                 *host_receive)
    {
      State &s = state();
      auto   at = [](void *base, const std::size_t offset) { return static_cast<char *>(base) + offset; };

      // Receives first, so no message waits for a buffer.
      std::vector<MPI_Request> receive_requests(receives.size(), MPI_REQUEST_NULL);
      std::vector<std::size_t> receive_offsets(receives.size());
      {
        std::size_t offset = 0;
        for (std::size_t j = 0; j < receives.size(); ++j)
          {
            const TransferPiece &piece = receives[j];
            receive_offsets[j]         = offset;
            if (piece.shared_rank >= 0)
              {
                Receiver &r = receiver(direction, piece.shared_rank);
                check_mpi(MPI_Irecv(&r.control, sizeof(Control), MPI_BYTE, piece.shared_rank,
                                    control_tag + static_cast<int>(direction), s.communicator,
                                    &receive_requests[j]));
              }
            else
              check_mpi(MPI_Irecv(at(host_receive, offset), piece.count * entry_bytes, MPI_BYTE, piece.rank,
                                  ghost_data_tag, communicator, &receive_requests[j]));
            offset += piece.count * entry_bytes;
          }
      }

      // Sends: into the channels' slots (nothing waits for the device), and
      // the MPI pieces through the host.
      std::vector<MPI_Request> send_requests;
      send_requests.reserve(2 * sends.size() + receives.size());
      bool        any_host = false;
      std::size_t offset   = 0;
      for (std::size_t i = 0; i < sends.size(); ++i)
        {
          const TransferPiece &piece = sends[i];
          const std::size_t    bytes = piece.count * entry_bytes;
          offset += bytes;
          if (piece.shared_rank < 0)
            {
              pack(i, at(device_staging, offset - bytes));
              any_host = true;
              continue;
            }
          Sender        &c    = sender(direction, piece.shared_rank);
          const unsigned slot = c.sequence % 2;
          if (bytes > c.slot_bytes)
            {
              // A larger buffer; the old one stays mapped by the peer until
              // the channel goes, since its stream may still read it.
              if (c.buffer.data() != nullptr)
                c.retired.push_back(std::move(c.buffer));
              // Room to grow; whole 256-byte blocks keep the second slot as
              // aligned as the first (a GPU faults on misaligned doubles).
              c.slot_bytes = (std::max<std::size_t>(bytes + bytes / 2, 4096) + 255) / 256 * 256;
              c.buffer     = backend::SharedBuffer(2 * c.slot_bytes);
              ++c.generation;
            }
          // The receiver has read this slot the time before.
          if (c.acknowledge_request[slot] != MPI_REQUEST_NULL)
            {
              check_mpi(MPI_Wait(&c.acknowledge_request[slot], MPI_STATUS_IGNORE));
              if (c.acknowledgement[slot].sequence + 2 != c.sequence)
                throw backend::DeviceError(out_of_step(piece.rank, "unexpected acknowledgement"));
              if (!c.consumed_open)
                {
                  for (unsigned k = 0; k < 2; ++k)
                    c.consumed[k] = backend::MappedEvent(c.acknowledgement[slot].consumed[k]);
                  c.consumed_open = true;
                }
              c.consumed[slot].wait();
            }
          pack(i, at(c.buffer.data(), slot * c.slot_bytes));
          c.ready[slot].record();
          c.control.sequence   = c.sequence;
          c.control.bytes      = bytes;
          c.control.slot_bytes = c.slot_bytes;
          c.control.slot       = slot;
          c.control.generation = c.generation;
          c.control.buffer     = c.buffer.handle();
          for (unsigned k = 0; k < 2; ++k)
            c.control.ready[k] = c.ready[k].handle();
          send_requests.emplace_back();
          check_mpi(MPI_Isend(&c.control, sizeof(Control), MPI_BYTE, piece.shared_rank,
                              control_tag + static_cast<int>(direction), s.communicator, &send_requests.back()));
          check_mpi(MPI_Irecv(&c.acknowledgement[slot], sizeof(Acknowledgement), MPI_BYTE, piece.shared_rank,
                              acknowledge_tag + static_cast<int>(direction), s.communicator,
                              &c.acknowledge_request[slot]));
          ++c.sequence;
        }
      if (any_host)
        {
          backend::copy_to_host(host_send, device_staging, offset);
          offset = 0;
          for (const TransferPiece &piece : sends)
            {
              const std::size_t bytes = piece.count * entry_bytes;
              if (piece.shared_rank < 0)
                {
                  send_requests.emplace_back();
                  check_mpi(MPI_Isend(at(host_send, offset), bytes, MPI_BYTE, piece.rank, ghost_data_tag, communicator,
                                      &send_requests.back()));
                }
              offset += bytes;
            }
        }

      // Unpack each piece as it arrives.
      for (std::size_t n = 0; n < receives.size(); ++n)
        {
          int index = MPI_UNDEFINED;
          check_mpi(MPI_Waitany(receive_requests.size(), receive_requests.data(), &index, MPI_STATUS_IGNORE));
          if (index == MPI_UNDEFINED)
            break;
          const TransferPiece &piece = receives[index];
          const std::size_t    bytes = piece.count * entry_bytes;
          if (piece.shared_rank < 0)
            {
              backend::copy_to_device(at(device_staging, receive_offsets[index]),
                                      at(host_receive, receive_offsets[index]), bytes);
              unpack(index, at(device_staging, receive_offsets[index]));
              continue;
            }
          Receiver &r = receiver(direction, piece.shared_rank);
          if (r.control.sequence != r.sequence)
            throw backend::DeviceError(out_of_step(piece.rank, "message " + std::to_string(r.control.sequence) +
                                                                 " where " + std::to_string(r.sequence) +
                                                                 " was due"));
          if (r.control.bytes != bytes)
            throw backend::DeviceError(out_of_step(piece.rank, std::to_string(r.control.bytes) + " bytes sent, " +
                                                                 std::to_string(bytes) + " expected"));
          if (r.control.generation != r.generation)
            {
              if (r.buffer.data() != nullptr)
                r.retired.push_back(std::move(r.buffer));
              r.buffer     = backend::MappedBuffer(r.control.buffer, 2 * r.control.slot_bytes);
              r.generation = r.control.generation;
            }
          if (!r.ready_open)
            {
              for (unsigned k = 0; k < 2; ++k)
                r.ready[k] = backend::MappedEvent(r.control.ready[k]);
              r.ready_open = true;
            }
          const unsigned slot = r.control.slot;
          r.ready[slot].wait();
          unpack(index, at(r.buffer.data(), slot * r.control.slot_bytes));
          r.consumed[slot].record();
          r.acknowledgement.sequence = r.sequence;
          for (unsigned k = 0; k < 2; ++k)
            r.acknowledgement.consumed[k] = r.consumed[k].handle();
          send_requests.emplace_back();
          check_mpi(MPI_Isend(&r.acknowledgement, sizeof(Acknowledgement), MPI_BYTE, piece.shared_rank,
                              acknowledge_tag + static_cast<int>(direction), s.communicator,
                              &send_requests.back()));
          ++r.sequence;
        }
      check_mpi(MPI_Waitall(send_requests.size(), send_requests.data(), MPI_STATUSES_IGNORE));
    }
  } // namespace internal
} // namespace plastix
