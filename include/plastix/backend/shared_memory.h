// Kokkos-free interface to memory and flags that processes of one node
// share: the device-direct ghost exchange between MPI ranks of a node.
#ifndef PLASTIX_BACKEND_SHARED_MEMORY_H
#define PLASTIX_BACKEND_SHARED_MEMORY_H

#include <plastix/backend/config.h>

#include <array>
#include <cstddef>
#include <cstdint>
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
       * kernel stream waits for flags that the other process's stream writes
       * (stream memory operations), so no host synchronisation is needed.
       */
      cuda_ipc,
      /**
       * Host memory (host execution spaces) through an anonymous memory file
       * that the other process opens by /proc/<pid>/fd; the host waits for
       * flags.
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
     * SharedBuffer (a CUDA IPC handle, or process id, file
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
       * Allocate @p bytes (at least one, zeroed) that other processes can map. Throws
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
     * @name Flags between the kernel streams of two processes
     *
     * A flag is a 32-bit word in a SharedBuffer (zero when the buffer is
     * made). One process's stream writes it, directly or through a
     * MappedBuffer; the stream of the process that owns the buffer waits for
     * it. So two processes order their kernels without their hosts: on GPUs
     * neither host waits (CUDA stream memory operations); on host execution
     * spaces the host is the stream, and waits.
     */
    //@{

    /**
     * Write @p value to the flag at @p flag once the kernels issued so far
     * have finished and their writes are visible to other processes.
     * Throws DeviceError if the device refuses.
     */
    PLASTIX_BACKEND_EXPORT void
    signal_flag(void *flag, std::uint32_t value);

    /**
     * Kernels issued after this call run once the flag at @p flag (in this
     * process's memory) has reached @p value, counted cyclically: until
     * <tt>std::int32_t(*flag - value) >= 0</tt>. The host does not wait on
     * GPUs; on host execution spaces it waits, and throws DeviceError
     * naming @p what if nothing comes within @p timeout_seconds.
     */
    PLASTIX_BACKEND_EXPORT void
    wait_for_flag(const void        *flag,
                  std::uint32_t      value,
                  const std::string &what,
                  double             timeout_seconds = 600.);

    //@}
  } // namespace backend
} // namespace plastix

#endif
