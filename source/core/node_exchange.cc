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
      /**
       * The MPI message by which a sender hands the receiver a new, larger
       * buffer (the first time a channel carries a piece of this size).
       * Both ends see the same sizes in the same order, so the receiver
       * knows when one is due.
       */
      struct Growth
      {
        std::uint64_t         bytes      = 0;
        std::uint64_t         slot_bytes = 0;
        backend::SharedHandle buffer;
      };

      constexpr int growth_tag = 4710;

      /** Flags per pair of ranks: one per direction, kind and slot. */
      enum class FlagKind : unsigned
      {
        /** Written by the sender into the receiver's memory: the slot is packed. */
        ready = 0,
        /** Written by the receiver into the sender's memory: the slot is read. */
        consumed = 1
      };

      constexpr std::size_t flags_per_rank = 2 * 2 * 2;

      /** Offset in bytes of a flag in the flags of the rank that waits for it, in the area of @p writer. */
      std::size_t
      flag_offset(const int writer, const TransferDirection direction, const FlagKind kind, const unsigned slot)
      {
        return sizeof(std::uint32_t) *
               (((static_cast<std::size_t>(writer) * 2 + static_cast<unsigned>(direction)) * 2 +
                 static_cast<unsigned>(kind)) *
                  2 +
                slot);
      }

      void
      check_mpi(const int status)
      {
        AssertThrowMPI(status);
        (void)status;
      }

      /** The sending end of a channel. */
      struct Sender
      {
        backend::SharedBuffer              buffer;
        std::vector<backend::SharedBuffer> retired;
        std::size_t                        slot_bytes = 0;
        std::uint64_t                      sequence   = 0;
        Growth                             growth;

        /**
         * A buffer of two slots of at least @p bytes each, announced to the
         * receiving rank @p peer of @p communicator by a message with @p tag
         * (its request appended to @p requests; growth must stay until it
         * completes).
         */
        void
        grow(const std::size_t bytes, const int peer, const int tag, MPI_Comm communicator,
             std::vector<MPI_Request> &requests)
        {
          // The old buffer stays mapped by the peer until the channel goes,
          // since its stream may still read it.
          if (buffer.data() != nullptr)
            retired.push_back(std::move(buffer));
          // Room to grow; whole 256-byte blocks keep the second slot as
          // aligned as the first (a GPU faults on misaligned doubles).
          slot_bytes        = (std::max<std::size_t>(bytes + bytes / 2, 4096) + 255) / 256 * 256;
          buffer            = backend::SharedBuffer(2 * slot_bytes);
          growth.bytes      = bytes;
          growth.slot_bytes = slot_bytes;
          growth.buffer     = buffer.handle();
          requests.emplace_back();
          check_mpi(MPI_Isend(&growth, sizeof(Growth), MPI_BYTE, peer, tag, communicator, &requests.back()));
        }
      };

      std::string
      out_of_step(int peer, const std::string &what);

      /** The receiving end of a channel. */
      struct Receiver
      {
        backend::MappedBuffer              buffer;
        std::vector<backend::MappedBuffer> retired;
        std::size_t                        slot_bytes = 0;
        std::uint64_t                      sequence   = 0;

        /**
         * Map the larger buffer that Sender::grow() announced (rank @p peer
         * of @p communicator, @p tag) for a piece of @p bytes; @p rank names
         * the peer in a message.
         */
        void
        grow(const std::size_t bytes, const int peer, const int tag, MPI_Comm communicator, const int rank)
        {
          Growth announced;
          check_mpi(MPI_Recv(&announced, sizeof(Growth), MPI_BYTE, peer, tag, communicator, MPI_STATUS_IGNORE));
          if (announced.bytes != bytes)
            throw backend::DeviceError(out_of_step(rank, std::to_string(announced.bytes) + " bytes sent, " +
                                                           std::to_string(bytes) + " expected"));
          if (buffer.data() != nullptr)
            retired.push_back(std::move(buffer));
          buffer     = backend::MappedBuffer(announced.buffer, 2 * announced.slot_bytes);
          slot_bytes = announced.slot_bytes;
        }
      };

      /** Everything setup() establishes. */
      struct State
      {
        MPI_Comm          communicator = MPI_COMM_NULL;
        std::vector<char> shared;
        std::string       description  = "mpi";
        unsigned int      generation   = 0;
        int               rank         = 0;
        // This rank's flags, which the ranks it shares memory with write;
        // theirs, mapped, by their rank in communicator.
        backend::SharedBuffer                flags;
        std::map<int, backend::MappedBuffer> peer_flags;
        // Channels by (direction, peer rank in communicator).
        std::map<std::pair<int, int>, std::unique_ptr<Sender>>   senders;
        std::map<std::pair<int, int>, std::unique_ptr<Receiver>> receivers;

        /**
         * Release the channels, the flags and the communicator. With @p
         * synchronise (collective): first wait until every rank's device is
         * done, so no stream still reads a buffer or writes a flag that goes.
         * (A transfer completes its own MPI messages before it returns.)
         */
        void
        clear(const bool synchronise)
        {
          int finalized = 0;
          MPI_Finalized(&finalized);
          const bool mpi = !finalized && communicator != MPI_COMM_NULL;
          if (backend::is_initialized())
            backend::fence();
          if (mpi && synchronise)
            MPI_Barrier(communicator);
          receivers.clear();
          senders.clear();
          peer_flags.clear();
          flags = backend::SharedBuffer();
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
       * a small buffer of every other and signals a flag in it (and waits
       * for one of its own); a pair shares if both succeeded.
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
        backend::SharedHandle                  handle;
        const std::size_t                      probe_bytes = sizeof(std::uint32_t) * n_node;
        try
          {
            buffer = std::make_unique<backend::SharedBuffer>(probe_bytes);
            handle = buffer->handle();
            // The stream can wait for a flag (one already reached).
            backend::wait_for_flag(buffer->data(), 0, "the probe's own flag", 1.);
            backend::fence();
          }
        catch (const std::exception &error)
          {
            created = 0;
            failure = error.what();
          }
        std::vector<backend::SharedHandle> all(n_node);
        std::vector<char>                  all_created(n_node);
        check_mpi(MPI_Allgather(&handle, sizeof(handle), MPI_BYTE, all.data(), sizeof(handle), MPI_BYTE, node));
        check_mpi(MPI_Allgather(&created, 1, MPI_CHAR, all_created.data(), 1, MPI_CHAR, node));

        std::vector<char> mapped(n_node, 0);
        {
          std::vector<backend::MappedBuffer> buffers;
          for (int j = 0; j < n_node; ++j)
            if (j != node_rank && created && all_created[j])
              try
                {
                  buffers.emplace_back(all[j], probe_bytes);
                  // The stream can signal through the mapping.
                  backend::signal_flag(static_cast<std::uint32_t *>(buffers.back().data()) + node_rank, 1);
                  backend::fence();
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
      s.rank   = rank;
      int total_shared = 0;
      check_mpi(MPI_Allreduce(&n_shared, &total_shared, 1, MPI_INT, MPI_SUM, communicator));
      if (total_shared > 0)
        {
          // The flags: every rank makes its own and maps those of the ranks
          // it shares memory with (they all succeeded in the probe).
          const std::size_t flag_bytes = sizeof(std::uint32_t) * flags_per_rank * n_ranks;
          std::string       error;
          try
            {
              s.flags = backend::SharedBuffer(flag_bytes);
            }
          catch (const std::exception &e)
            {
              error = e.what();
            }
          int made = error.empty() ? 1 : 0, all_made = 0;
          check_mpi(MPI_Allreduce(&made, &all_made, 1, MPI_INT, MPI_MIN, communicator));
          if (!all_made)
            {
              s.clear(false);
              throw backend::DeviceError("ghost exchange: cannot make the flags of the shared memory route" +
                                         (error.empty() ? std::string(" on another rank") : ": " + error));
            }
          std::vector<backend::SharedHandle> handles(n_ranks);
          const backend::SharedHandle        own = s.flags.handle();
          check_mpi(MPI_Allgather(&own, sizeof(own), MPI_BYTE, handles.data(), sizeof(own), MPI_BYTE,
                                  communicator));
          for (int j = 0; j < n_ranks; ++j)
            if (s.shared[j])
              s.peer_flags.emplace(j, backend::MappedBuffer(handles[j], flag_bytes));
          // No rank writes a flag before every rank has mapped them.
          check_mpi(MPI_Barrier(communicator));
        }
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
      State &s  = state();
      auto   at = [](void *base, const std::size_t offset) { return static_cast<char *>(base) + offset; };
      // A flag value per transfer of a channel; zero is the flags' start.
      auto flag_value = [](const std::uint64_t sequence) { return static_cast<std::uint32_t>(sequence + 1); };
      auto own_flag   = [&](const int writer, const FlagKind kind, const unsigned slot) {
        return at(s.flags.data(), flag_offset(writer, direction, kind, slot));
      };
      auto peer_flag = [&](const int peer, const FlagKind kind, const unsigned slot) {
        return at(s.peer_flags.at(peer).data(), flag_offset(s.rank, direction, kind, slot));
      };

      // The MPI pieces' receives first, so no message waits for a buffer.
      std::vector<MPI_Request> receive_requests(receives.size(), MPI_REQUEST_NULL);
      std::vector<std::size_t> receive_offsets(receives.size());
      {
        std::size_t offset = 0;
        for (std::size_t j = 0; j < receives.size(); ++j)
          {
            const TransferPiece &piece = receives[j];
            receive_offsets[j]         = offset;
            if (piece.shared_rank < 0)
              check_mpi(MPI_Irecv(at(host_receive, offset), piece.count * entry_bytes, MPI_BYTE, piece.rank,
                                  ghost_data_tag, communicator, &receive_requests[j]));
            offset += piece.count * entry_bytes;
          }
      }

      // Sends: into the channels' slots, ordered by flags on the devices
      // (the host waits for nothing), and the MPI pieces through the host.
      std::vector<MPI_Request> send_requests;
      send_requests.reserve(2 * sends.size());
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
            c.grow(bytes, piece.shared_rank, growth_tag + static_cast<int>(direction), s.communicator, send_requests);
          else if (c.sequence >= 2)
            // The receiver has read this slot the time before.
            backend::wait_for_flag(own_flag(piece.shared_rank, FlagKind::consumed, slot), flag_value(c.sequence - 2),
                                   "rank " + std::to_string(piece.rank) + " in the ghost exchange");
          pack(i, at(c.buffer.data(), slot * c.slot_bytes));
          backend::signal_flag(peer_flag(piece.shared_rank, FlagKind::ready, slot), flag_value(c.sequence));
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

      // The channels' pieces: the stream waits for the sender's flag, reads
      // the slot where it lies and tells the sender that it may reuse it.
      for (std::size_t j = 0; j < receives.size(); ++j)
        {
          const TransferPiece &piece = receives[j];
          if (piece.shared_rank < 0)
            continue;
          const std::size_t bytes = piece.count * entry_bytes;
          Receiver         &r     = receiver(direction, piece.shared_rank);
          if (bytes > r.slot_bytes)
            r.grow(bytes, piece.shared_rank, growth_tag + static_cast<int>(direction), s.communicator, piece.rank);
          const unsigned slot = r.sequence % 2;
          backend::wait_for_flag(own_flag(piece.shared_rank, FlagKind::ready, slot), flag_value(r.sequence),
                                 "rank " + std::to_string(piece.rank) + " in the ghost exchange");
          unpack(j, at(r.buffer.data(), slot * r.slot_bytes));
          backend::signal_flag(peer_flag(piece.shared_rank, FlagKind::consumed, slot), flag_value(r.sequence));
          ++r.sequence;
        }

      // The MPI pieces as they arrive.
      for (std::size_t n = 0; n < receives.size(); ++n)
        {
          int index = MPI_UNDEFINED;
          check_mpi(MPI_Waitany(receive_requests.size(), receive_requests.data(), &index, MPI_STATUS_IGNORE));
          if (index == MPI_UNDEFINED)
            break;
          backend::copy_to_device(at(device_staging, receive_offsets[index]),
                                  at(host_receive, receive_offsets[index]), receives[index].count * entry_bytes);
          unpack(index, at(device_staging, receive_offsets[index]));
        }
      check_mpi(MPI_Waitall(send_requests.size(), send_requests.data(), MPI_STATUSES_IGNORE));
    }
  } // namespace internal
} // namespace plastix
