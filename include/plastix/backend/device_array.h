// An owning array in device memory, usable from Kokkos-free code.
#ifndef PLASTIX_BACKEND_DEVICE_ARRAY_H
#define PLASTIX_BACKEND_DEVICE_ARRAY_H

#include <plastix/backend/device.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace plastix
{
  namespace backend
  {
    /**
     * A contiguous array of trivially copyable @p T in device memory (host
     * memory for host execution spaces). Move-only: copies between arrays
     * are explicit (copy_from()) so that no hidden device transfer happens.
     */
    template <typename T>
    class DeviceArray
    {
    public:
      DeviceArray() = default;

      /** Allocate @p n entries (not initialised); @p label names it in errors. */
      explicit DeviceArray(const std::size_t n, const char *label = "array")
      {
        resize(n, label);
      }

      /** Allocate and fill from a host vector. */
      explicit DeviceArray(const std::vector<T> &host, const char *label = "array")
      {
        resize(host.size(), label);
        copy_from_host(host);
      }

      DeviceArray(const DeviceArray &) = delete;
      DeviceArray &
      operator=(const DeviceArray &) = delete;

      DeviceArray(DeviceArray &&other) noexcept
        : pointer(std::exchange(other.pointer, nullptr))
        , n_entries(std::exchange(other.n_entries, 0))
      {}

      DeviceArray &
      operator=(DeviceArray &&other) noexcept
      {
        if (this != &other)
          {
            release();
            pointer   = std::exchange(other.pointer, nullptr);
            n_entries = std::exchange(other.n_entries, 0);
          }
        return *this;
      }

      ~DeviceArray()
      {
        release();
      }

      /** Reallocate to @p n entries unless the size already matches; contents are undefined afterwards. */
      void
      resize(const std::size_t n, const char *label = "array")
      {
        if (n == n_entries)
          return;
        release();
        if (n > 0)
          pointer = static_cast<T *>(allocate(n * sizeof(T), label));
        n_entries = n;
      }

      /** Free the memory. */
      void
      release()
      {
        if (pointer != nullptr)
          deallocate(pointer, n_entries * sizeof(T));
        pointer   = nullptr;
        n_entries = 0;
      }

      /** Number of entries. */
      std::size_t
      size() const
      {
        return n_entries;
      }

      /** Device pointer to the first entry. */
      T *
      data()
      {
        return pointer;
      }

      /** Device pointer to the first entry. */
      const T *
      data() const
      {
        return pointer;
      }

      /** Set every byte to zero. */
      void
      set_zero()
      {
        if (n_entries > 0)
          zero_on_device(pointer, n_entries * sizeof(T));
      }

      /** Copy a host vector of the same size in. */
      void
      copy_from_host(const std::vector<T> &host)
      {
        if (!host.empty())
          copy_to_device(pointer, host.data(), n_entries * sizeof(T));
      }

      /** Copy the contents to a host vector. */
      std::vector<T>
      to_host() const
      {
        std::vector<T> host(n_entries);
        if (n_entries > 0)
          copy_to_host(host.data(), pointer, n_entries * sizeof(T));
        return host;
      }

      /** Copy the contents of @p other (same size) in. */
      void
      copy_from(const DeviceArray &other)
      {
        if (n_entries > 0)
          copy_on_device(pointer, other.pointer, n_entries * sizeof(T));
      }

      /** Bytes held. */
      std::size_t
      memory_consumption() const
      {
        return n_entries * sizeof(T);
      }

    private:
      T          *pointer   = nullptr;
      std::size_t n_entries = 0;
    };

    /**
     * A host array in the staging memory of allocate_host_staging() (the
     * buffers of MPI ghost exchanges), grown on demand. Move-only.
     */
    template <typename T>
    class HostStagingArray
    {
    public:
      HostStagingArray() = default;

      HostStagingArray(const HostStagingArray &) = delete;
      HostStagingArray &
      operator=(const HostStagingArray &) = delete;

      HostStagingArray(HostStagingArray &&other) noexcept
        : pointer(std::exchange(other.pointer, nullptr))
        , capacity(std::exchange(other.capacity, 0))
      {}

      HostStagingArray &
      operator=(HostStagingArray &&other) noexcept
      {
        if (this != &other)
          {
            deallocate_host_staging(pointer);
            pointer  = std::exchange(other.pointer, nullptr);
            capacity = std::exchange(other.capacity, 0);
          }
        return *this;
      }

      ~HostStagingArray()
      {
        deallocate_host_staging(pointer);
      }

      /** Make room for @p n entries (contents are undefined afterwards if it grows). */
      void
      reserve(const std::size_t n)
      {
        if (n <= capacity)
          return;
        deallocate_host_staging(pointer);
        pointer  = static_cast<T *>(allocate_host_staging(n * sizeof(T)));
        capacity = n;
      }

      /** The entries. */
      T *
      data() const
      {
        return pointer;
      }

      /** Bytes held. */
      std::size_t
      memory_consumption() const
      {
        return capacity * sizeof(T);
      }

    private:
      T          *pointer  = nullptr;
      std::size_t capacity = 0;
    };
  } // namespace backend
} // namespace plastix

#endif
