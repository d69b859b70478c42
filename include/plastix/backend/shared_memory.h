// Kokkos-free interface to memory and events that processes of one node
// share: the device-direct ghost exchange between MPI ranks of a node.
#ifndef PLASTIX_BACKEND_SHARED_MEMORY_H
#define PLASTIX_BACKEND_SHARED_MEMORY_H

#include <plastix/backend/config.h>

#include <array>
#include <cstddef>
#include <string>

namespace plastix
{
  namespace backend
  {
    /**
     * How the memory of the kernels' space is shared between processes of
     * one node.
     */
    enum class SharedMemoryKind
    {
      /**
       * GPU memory through CUDA interprocess handles: a process maps another
       * process's device allocation (its own GPU reads the other GPU's memory
       * peer to peer over NVLink or PCIe, or its own GPU's memory), and its
       * kernel stream waits for interprocess events of the other process's
       * stream, so no host synchronisation is needed.
       */
      cuda_ipc,
      /**
       * Host memory (host execution spaces) through an anonymous memory file
       * that the other process opens by /proc/<pid>/fd; events are fences.
       */
      host_memory_file
    };

    /** The kind of sharing this build offers. */
    PLASTIX_BACKEND_EXPORT SharedMemoryKind
    shared_memory_kind();

    /** Name of a SharedMemoryKind for messages and run summaries. */
    PLASTIX_BACKEND_EXPORT std::string
    shared_memory_kind_name(SharedMemoryKind kind);

    /**
     * The opaque handle by which another process of the node maps a
     * SharedBuffer or a SharedEvent (a CUDA IPC handle, or process id, file
     * descriptor and a token). Plain bytes: it travels in MPI messages.
     */
    struct SharedHandle
    {
      std::array<unsigned char, 64> bytes{};
    };

    /**
     * Memory of this process (device memory on GPUs) that other processes of
     * its node can map with MappedBuffer. Move-only; the memory goes with the
     * object (mappings in other processes should be closed first).
     */
    class PLASTIX_BACKEND_EXPORT SharedBuffer
    {
    public:
      SharedBuffer() = default;

      /**
       * Allocate @p bytes (at least one) that other processes can map. Throws
       * DeviceMemoryError if the memory is not there, DeviceError if it
       * cannot be shared.
       */
      explicit SharedBuffer(std::size_t bytes);

      SharedBuffer(SharedBuffer &&other) noexcept;

      SharedBuffer &
      operator=(SharedBuffer &&other) noexcept;

      SharedBuffer(const SharedBuffer &) = delete;
      SharedBuffer &
      operator=(const SharedBuffer &) = delete;

      ~SharedBuffer();

      /** The memory (a device pointer on GPUs). */
      void *
      data() const
      {
        return pointer;
      }

      /** Bytes allocated. */
      std::size_t
      size() const
      {
        return n_bytes;
      }

      /** What another process passes to MappedBuffer. */
      const SharedHandle &
      handle() const
      {
        return shared_handle;
      }

    private:
      void        *pointer = nullptr;
      std::size_t  n_bytes = 0;
      int          file    = -1;
      SharedHandle shared_handle;
    };

    /**
     * Another process's SharedBuffer, mapped into this one: kernels of this
     * process read and write it through data(). Move-only; unmapped by the
     * destructor.
     */
    class PLASTIX_BACKEND_EXPORT MappedBuffer
    {
    public:
      MappedBuffer() = default;

      /**
       * Map the buffer of @p handle (@p bytes long). Throws DeviceError with
       * the reason if this process cannot map it (another node, devices
       * without peer access, a process that is gone).
       */
      MappedBuffer(const SharedHandle &handle, std::size_t bytes);

      MappedBuffer(MappedBuffer &&other) noexcept;

      MappedBuffer &
      operator=(MappedBuffer &&other) noexcept;

      MappedBuffer(const MappedBuffer &) = delete;
      MappedBuffer &
      operator=(const MappedBuffer &) = delete;

      ~MappedBuffer();

      /** The mapped memory (a device pointer on GPUs). */
      void *
      data() const
      {
        return pointer;
      }

    private:
      void       *pointer = nullptr;
      std::size_t n_bytes = 0;
    };

    /**
     * A mark in this process's kernel stream that streams of other processes
     * can wait for (a CUDA interprocess event; on host spaces record() waits
     * for the kernels, so there is nothing to wait for). Move-only.
     */
    class PLASTIX_BACKEND_EXPORT SharedEvent
    {
    public:
      /** Create the event (Throws DeviceError if it cannot be shared). */
      SharedEvent();

      SharedEvent(SharedEvent &&other) noexcept;

      SharedEvent &
      operator=(SharedEvent &&other) noexcept;

      SharedEvent(const SharedEvent &) = delete;
      SharedEvent &
      operator=(const SharedEvent &) = delete;

      ~SharedEvent();

      /** Mark the point after all kernels issued so far. */
      void
      record();

      /** What another process passes to MappedEvent. */
      const SharedHandle &
      handle() const
      {
        return shared_handle;
      }

    private:
      void        *event = nullptr;
      SharedHandle shared_handle;
    };

    /** Another process's SharedEvent. Move-only. */
    class PLASTIX_BACKEND_EXPORT MappedEvent
    {
    public:
      MappedEvent() = default;

      /** Open the event of @p handle (Throws DeviceError if it cannot). */
      explicit MappedEvent(const SharedHandle &handle);

      MappedEvent(MappedEvent &&other) noexcept;

      MappedEvent &
      operator=(MappedEvent &&other) noexcept;

      MappedEvent(const MappedEvent &) = delete;
      MappedEvent &
      operator=(const MappedEvent &) = delete;

      ~MappedEvent();

      /**
       * Kernels issued after this call run once the other process's stream
       * has passed its most recent record() before this call; the host does
       * not wait.
       */
      void
      wait() const;

    private:
      void *event = nullptr;
    };
  } // namespace backend
} // namespace plastix

#endif
