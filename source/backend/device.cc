// Device runtime of the backend: Kokkos start-up, memory, copies.
#include <plastix/backend/device.h>

#include "kokkos_common.h"

#if defined(KOKKOS_ENABLE_CUDA)
#  include <cuda_runtime.h>
#endif

#include <atomic>
#include <sstream>

namespace plastix
{
  namespace backend
  {
    namespace
    {
      bool                     started_kokkos = false;
      std::atomic<std::size_t> bytes_in_use{0};
      std::atomic<std::size_t> bytes_peak{0};

      std::string
      megabytes(const std::size_t bytes)
      {
        std::ostringstream s;
        s.precision(1);
        s << std::fixed << bytes / 1048576.0 << " MiB";
        return s.str();
      }
    } // namespace

    DeviceError::DeviceError(const std::string &what)
      : std::runtime_error(what)
    {}

    DeviceMemoryError::DeviceMemoryError(const std::string &what)
      : DeviceError(what)
    {}

    void
    initialize(const int local_rank)
    {
      if (Kokkos::is_initialized())
        return;
#if KOKKOS_VERSION >= 40000
      Kokkos::InitializationSettings settings;
#  if defined(KOKKOS_ENABLE_CUDA)
      int n_devices = 0;
      if (cudaGetDeviceCount(&n_devices) != cudaSuccess || n_devices == 0)
        throw DeviceError(
          "plastix was built for CUDA but no CUDA device is visible "
          "(cudaGetDeviceCount found none)");
      if (local_rank >= 0)
        settings.set_device_id(local_rank % n_devices);
#  else
      (void)local_rank;
#  endif
      settings.set_disable_warnings(true);
      Kokkos::initialize(settings);
#else
      Kokkos::InitArguments arguments;
      if (local_rank >= 0)
        arguments.device_id = local_rank;
      arguments.disable_warnings = true;
      Kokkos::initialize(arguments);
#endif
      started_kokkos = true;
    }

    void
    finalize()
    {
      if (started_kokkos && Kokkos::is_initialized())
        Kokkos::finalize();
      started_kokkos = false;
    }

    bool
    is_initialized()
    {
      return Kokkos::is_initialized();
    }

    std::string
    execution_space_name()
    {
      return internal::ExecutionSpace::name();
    }

    std::string
    device_description()
    {
      std::ostringstream s;
      s << "Kokkos " << KOKKOS_VERSION / 10000 << '.'
        << (KOKKOS_VERSION / 100) % 100 << '.' << KOKKOS_VERSION % 100 << ", "
        << internal::ExecutionSpace::name();
#if defined(KOKKOS_ENABLE_CUDA)
      int device = 0;
      cudaGetDevice(&device);
      cudaDeviceProp properties;
      if (cudaGetDeviceProperties(&properties, device) == cudaSuccess)
        s << " device " << device << " (" << properties.name << ", "
          << properties.multiProcessorCount << " SMs, "
          << megabytes(properties.totalGlobalMem) << ", sm_"
          << properties.major << properties.minor << ")";
#endif
      return s.str();
    }

    bool
    device_memory_is_separate()
    {
      return internal::on_device;
    }

    std::size_t
    device_memory_available()
    {
#if defined(KOKKOS_ENABLE_CUDA)
      std::size_t free_bytes = 0, total_bytes = 0;
      if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
        return free_bytes;
#endif
      return 0;
    }

    void
    fence()
    {
      Kokkos::fence();
    }

    void *
    allocate(const std::size_t bytes, const char *label)
    {
      if (bytes == 0)
        return nullptr;
#if defined(KOKKOS_ENABLE_CUDA)
      std::size_t free_bytes = 0, total_bytes = 0;
      if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess &&
          bytes > free_bytes)
        throw DeviceMemoryError(
          std::string("device memory exhausted: allocating ") +
          megabytes(bytes) + " for '" + label + "' but the GPU has only " +
          megabytes(free_bytes) + " free of " + megabytes(total_bytes) +
          " (plastix holds " + megabytes(bytes_in_use) +
          "); use fewer DoFs per GPU or more MPI ranks/GPUs");
#endif
      void *pointer = nullptr;
      try
        {
          pointer =
            Kokkos::kokkos_malloc<internal::MemorySpace>(label, bytes);
        }
      catch (const std::exception &error)
        {
          throw DeviceMemoryError(std::string("device memory exhausted: "
                                              "allocating ") +
                                  megabytes(bytes) + " for '" + label +
                                  "' failed (plastix holds " +
                                  megabytes(bytes_in_use) +
                                  "): " + error.what());
        }
      if (pointer == nullptr)
        throw DeviceMemoryError(std::string("device memory exhausted: "
                                            "allocating ") +
                                megabytes(bytes) + " for '" + label +
                                "' returned no memory");
      const std::size_t now = bytes_in_use += bytes;
      std::size_t       peak = bytes_peak.load();
      while (now > peak && !bytes_peak.compare_exchange_weak(peak, now))
        ;
      return pointer;
    }

    void
    deallocate(void *pointer, const std::size_t bytes)
    {
      if (pointer == nullptr)
        return;
      bytes_in_use -= bytes;
      if (Kokkos::is_initialized())
        Kokkos::kokkos_free<internal::MemorySpace>(pointer);
    }

    namespace
    {
#if defined(KOKKOS_ENABLE_CUDA)
      using StagingSpace = Kokkos::CudaHostPinnedSpace;
#else
      using StagingSpace = Kokkos::HostSpace;
#endif
    } // namespace

    void *
    allocate_host_staging(const std::size_t bytes)
    {
      if (bytes == 0)
        return nullptr;
      void *pointer = nullptr;
      try
        {
          pointer = Kokkos::kokkos_malloc<StagingSpace>("host staging buffer", bytes);
        }
      catch (const std::exception &error)
        {
          throw DeviceMemoryError(std::string("host staging memory exhausted: allocating ") + megabytes(bytes) +
                                  " failed: " + error.what());
        }
      return pointer;
    }

    void
    deallocate_host_staging(void *pointer)
    {
      if (pointer != nullptr && Kokkos::is_initialized())
        Kokkos::kokkos_free<StagingSpace>(pointer);
    }

    std::size_t
    allocated_bytes()
    {
      return bytes_in_use;
    }

    std::size_t
    peak_allocated_bytes()
    {
      return bytes_peak;
    }

    namespace
    {
      template <typename DestinationSpace, typename SourceSpace>
      void
      copy_bytes(void *destination, const void *source, const std::size_t bytes)
      {
        if (bytes == 0)
          return;
        using Bytes = Kokkos::View<char *, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
        Kokkos::View<char *, DestinationSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
          d(static_cast<char *>(destination), bytes);
        Kokkos::View<const char *, SourceSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
          s(static_cast<const char *>(source), bytes);
        (void)sizeof(Bytes);
        Kokkos::deep_copy(d, s);
      }
    } // namespace

    void
    copy_to_device(void              *device_destination,
                   const void        *host_source,
                   const std::size_t  bytes)
    {
      copy_bytes<internal::MemorySpace, Kokkos::HostSpace>(device_destination,
                                                           host_source,
                                                           bytes);
    }

    void
    copy_to_host(void              *host_destination,
                 const void        *device_source,
                 const std::size_t  bytes)
    {
      copy_bytes<Kokkos::HostSpace, internal::MemorySpace>(host_destination,
                                                           device_source,
                                                           bytes);
    }

    void
    copy_on_device(void              *device_destination,
                   const void        *device_source,
                   const std::size_t  bytes)
    {
      copy_bytes<internal::MemorySpace, internal::MemorySpace>(
        device_destination, device_source, bytes);
    }

    void
    zero_on_device(void *device_destination, const std::size_t bytes)
    {
      if (bytes == 0)
        return;
      Kokkos::View<char *, internal::MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        d(static_cast<char *>(device_destination), bytes);
      Kokkos::deep_copy(d, char(0));
    }
  } // namespace backend
} // namespace plastix

#include "firewall_check.h"
