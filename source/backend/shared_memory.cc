// Memory and flags shared between processes of one node: CUDA IPC and stream
// memory operations on GPUs, an anonymous memory file on host execution spaces.
#include <plastix/backend/device.h>
#include <plastix/backend/shared_memory.h>

#include "kokkos_common.h"

#if defined(KOKKOS_ENABLE_CUDA)
#  include <cuda.h>
#  include <cuda_runtime.h>
#else
#  include <fcntl.h>
#  include <sys/mman.h>
#  include <sys/stat.h>
#  include <unistd.h>

#  include <cerrno>
#  include <cmath>
#  include <chrono>
#  include <random>
#  include <thread>
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

namespace plastix
{
  namespace backend
  {
    std::string
    shared_memory_kind_name(const SharedMemoryKind kind)
    {
      return kind == SharedMemoryKind::cuda_ipc ? "CUDA IPC" : "shared host memory";
    }

#if defined(KOKKOS_ENABLE_CUDA)
    namespace
    {
      static_assert(sizeof(cudaIpcMemHandle_t) <= sizeof(SharedHandle::bytes), "CUDA IPC handle size");

      cudaStream_t
      kernel_stream()
      {
        return Kokkos::Cuda().cuda_stream();
      }

      /** Throw DeviceError naming @p what and the CUDA error (cleared). */
      void
      check(const cudaError_t status, const std::string &what)
      {
        if (status == cudaSuccess)
          return;
        cudaGetLastError();
        throw DeviceError(what + ": " + cudaGetErrorString(status));
      }

      /** Throw DeviceError naming @p what and the driver's error. */
      void
      check_driver(const CUresult status, const std::string &what)
      {
        if (status == CUDA_SUCCESS)
          return;
        const char *name = nullptr;
        if (cuGetErrorString(status, &name) != CUDA_SUCCESS || name == nullptr)
          name = "unknown driver error";
        throw DeviceError(what + ": " + name);
      }
    } // namespace

    SharedMemoryKind
    shared_memory_kind()
    {
      return SharedMemoryKind::cuda_ipc;
    }

    SharedBuffer::SharedBuffer(const std::size_t bytes)
      : n_bytes(std::max<std::size_t>(bytes, 1))
    {
      // cudaMalloc itself: memory from Kokkos' allocator may come from a
      // stream-ordered pool, which CUDA IPC cannot export.
      const cudaError_t status = cudaMalloc(&pointer, n_bytes);
      if (status != cudaSuccess)
        {
          cudaGetLastError();
          pointer = nullptr;
          throw DeviceMemoryError("device memory exhausted: allocating " + std::to_string(n_bytes) +
                                  " bytes for a shared ghost exchange buffer failed: " +
                                  cudaGetErrorString(status));
        }
      cudaIpcMemHandle_t ipc;
      const cudaError_t  exported = cudaIpcGetMemHandle(&ipc, pointer);
      if (exported != cudaSuccess)
        {
          cudaFree(pointer);
          pointer = nullptr;
          check(exported, "cannot share device memory with other processes (cudaIpcGetMemHandle)");
        }
      std::memcpy(shared_handle.bytes.data(), &ipc, sizeof(ipc));
      // Zero (flags start at zero) before another process can see it.
      const cudaError_t zeroed = cudaMemset(pointer, 0, n_bytes);
      const cudaError_t synced = zeroed == cudaSuccess ? cudaDeviceSynchronize() : zeroed;
      if (synced != cudaSuccess)
        {
          cudaFree(pointer);
          pointer = nullptr;
          check(synced, "cannot clear a shared ghost exchange buffer (cudaMemset)");
        }
    }

    SharedBuffer::~SharedBuffer()
    {
      if (pointer != nullptr)
        cudaFree(pointer);
    }

    MappedBuffer::MappedBuffer(const SharedHandle &handle, const std::size_t bytes)
      : n_bytes(bytes)
    {
      cudaIpcMemHandle_t ipc;
      std::memcpy(&ipc, handle.bytes.data(), sizeof(ipc));
      check(cudaIpcOpenMemHandle(&pointer, ipc, cudaIpcMemLazyEnablePeerAccess),
            "cannot map another process's device memory (cudaIpcOpenMemHandle)");
    }

    MappedBuffer::~MappedBuffer()
    {
      if (pointer != nullptr)
        cudaIpcCloseMemHandle(pointer);
    }

    void
    signal_flag(void *flag, const std::uint32_t value)
    {
      // The default write comes after a memory barrier: what the kernels
      // before it wrote is visible to the other process first.
      check_driver(cuStreamWriteValue32(reinterpret_cast<CUstream>(kernel_stream()),
                                        reinterpret_cast<CUdeviceptr>(flag), value, CU_STREAM_WRITE_VALUE_DEFAULT),
                   "cannot signal another process's stream (cuStreamWriteValue32)");
    }

    void
    wait_for_flag(const void *flag, const std::uint32_t value, const std::string &what, double)
    {
      check_driver(cuStreamWaitValue32(reinterpret_cast<CUstream>(kernel_stream()),
                                       reinterpret_cast<CUdeviceptr>(flag), value, CU_STREAM_WAIT_VALUE_GEQ),
                   "cannot wait for " + what + " (cuStreamWaitValue32)");
    }

#else

    namespace
    {
      /** What a host handle holds: the owner's process id, its file descriptor and the file's token. */
      struct HostHandle
      {
        std::int64_t  process;
        std::int64_t  file;
        std::uint64_t token;
        std::uint64_t bytes;
      };
      static_assert(sizeof(HostHandle) <= sizeof(SharedHandle::bytes), "host handle size");

      std::string
      file_name(const std::uint64_t token)
      {
        return "plastix-ghosts-" + std::to_string(token);
      }

      std::uint64_t
      new_token()
      {
        static std::mt19937_64 generator(std::random_device{}() ^
                                         (static_cast<std::uint64_t>(getpid()) << 32));
        return generator();
      }

      [[noreturn]] void
      fail(const std::string &what)
      {
        throw DeviceError(what + ": " + std::strerror(errno));
      }
    } // namespace

    SharedMemoryKind
    shared_memory_kind()
    {
      return SharedMemoryKind::host_memory_file;
    }

    SharedBuffer::SharedBuffer(const std::size_t bytes)
      : n_bytes(std::max<std::size_t>(bytes, 1))
    {
      HostHandle h;
      h.process = getpid();
      h.token   = new_token();
      h.bytes   = n_bytes;
      file      = memfd_create(file_name(h.token).c_str(), MFD_CLOEXEC);
      if (file < 0)
        fail("cannot create shared memory for the ghost exchange (memfd_create)");
      if (ftruncate(file, static_cast<off_t>(n_bytes)) != 0)
        {
          close(file);
          file = -1;
          throw DeviceMemoryError("host memory exhausted: " + std::to_string(n_bytes) +
                                  " bytes of shared memory for the ghost exchange: " + std::strerror(errno));
        }
      pointer = mmap(nullptr, n_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
      if (pointer == MAP_FAILED)
        {
          pointer = nullptr;
          close(file);
          file = -1;
          fail("cannot map shared memory for the ghost exchange (mmap)");
        }
      h.file = file;
      std::memcpy(shared_handle.bytes.data(), &h, sizeof(h));
    }

    SharedBuffer::~SharedBuffer()
    {
      if (pointer != nullptr)
        munmap(pointer, n_bytes);
      if (file >= 0)
        close(file);
    }

    MappedBuffer::MappedBuffer(const SharedHandle &handle, const std::size_t bytes)
      : n_bytes(bytes)
    {
      HostHandle h;
      std::memcpy(&h, handle.bytes.data(), sizeof(h));
      if (bytes > h.bytes)
        throw DeviceError("cannot map another process's shared memory: " + std::to_string(bytes) +
                          " bytes asked of a buffer of " + std::to_string(h.bytes));
      const std::string path = "/proc/" + std::to_string(h.process) + "/fd/" + std::to_string(h.file);
      // The link names the file: a process of another node (or a reused
      // descriptor) cannot pass for the owner.
      char              target[256] = {};
      const ssize_t     length      = readlink(path.c_str(), target, sizeof(target) - 1);
      if (length < 0)
        fail("cannot map another process's shared memory (" + path + ")");
      if (std::string(target, length).find(file_name(h.token)) == std::string::npos)
        throw DeviceError("cannot map another process's shared memory: " + path + " is not its buffer");
      const int file = open(path.c_str(), O_RDWR | O_CLOEXEC);
      if (file < 0)
        fail("cannot map another process's shared memory (open " + path + ")");
      pointer = mmap(nullptr, n_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
      close(file);
      if (pointer == MAP_FAILED)
        {
          pointer = nullptr;
          fail("cannot map another process's shared memory (mmap)");
        }
    }

    MappedBuffer::~MappedBuffer()
    {
      if (pointer != nullptr)
        munmap(pointer, n_bytes);
    }

    void
    signal_flag(void *flag, const std::uint32_t value)
    {
      // The kernels have written their results once the fence returns; the
      // release makes them visible to the process that acquires the flag.
      Kokkos::fence();
      __atomic_store_n(static_cast<std::uint32_t *>(flag), value, __ATOMIC_RELEASE);
    }

    void
    wait_for_flag(const void *flag, const std::uint32_t value, const std::string &what, const double timeout_seconds)
    {
      const auto reached = [&]() {
        const std::uint32_t now = __atomic_load_n(static_cast<const std::uint32_t *>(flag), __ATOMIC_ACQUIRE);
        return static_cast<std::int32_t>(now - value) >= 0;
      };
      if (reached())
        return;
      const auto start = std::chrono::steady_clock::now();
      for (unsigned long spin = 0; !reached(); ++spin)
        {
          // Yield: the other process may share this core.
          std::this_thread::yield();
          if (spin % 1024 == 0 &&
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_seconds)
            throw DeviceError("no answer from " + what + " within " + std::to_string(std::lround(timeout_seconds)) + " s");
        }
    }
#endif

    SharedBuffer::SharedBuffer(SharedBuffer &&other) noexcept
      : pointer(std::exchange(other.pointer, nullptr))
      , n_bytes(std::exchange(other.n_bytes, 0))
      , file(std::exchange(other.file, -1))
      , shared_handle(other.shared_handle)
    {}

    SharedBuffer &
    SharedBuffer::operator=(SharedBuffer &&other) noexcept
    {
      if (this != &other)
        {
          SharedBuffer old(std::move(*this));
          pointer       = std::exchange(other.pointer, nullptr);
          n_bytes       = std::exchange(other.n_bytes, 0);
          file          = std::exchange(other.file, -1);
          shared_handle = other.shared_handle;
        }
      return *this;
    }

    MappedBuffer::MappedBuffer(MappedBuffer &&other) noexcept
      : pointer(std::exchange(other.pointer, nullptr))
      , n_bytes(std::exchange(other.n_bytes, 0))
    {}

    MappedBuffer &
    MappedBuffer::operator=(MappedBuffer &&other) noexcept
    {
      if (this != &other)
        {
          MappedBuffer old(std::move(*this));
          pointer = std::exchange(other.pointer, nullptr);
          n_bytes = std::exchange(other.n_bytes, 0);
        }
      return *this;
    }

  } // namespace backend
} // namespace plastix
