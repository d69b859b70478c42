// Kokkos-free interface to the device runtime: start-up, memory, copies.
#ifndef PLASTIX_BACKEND_DEVICE_H
#define PLASTIX_BACKEND_DEVICE_H

#include <plastix/backend/config.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace plastix
{
  namespace backend
  {
    /**
     * Thrown when the device cannot be used: none is visible to a CUDA
     * build, or (DeviceMemoryError) it lacks memory.
     */
    class PLASTIX_BACKEND_EXPORT DeviceError : public std::runtime_error
    {
    public:
      explicit DeviceError(const std::string &what);
    };

    /**
     * Thrown when the device cannot provide the memory the backend asks for.
     * The message names what was being allocated, how much, and how much the
     * backend held at that moment.
     */
    class PLASTIX_BACKEND_EXPORT DeviceMemoryError : public DeviceError
    {
    public:
      explicit DeviceMemoryError(const std::string &what);
    };

    /**
     * Start the Kokkos runtime of the backend unless it already runs. The GPU
     * is chosen round-robin by the node-local MPI rank @p local_rank (one rank
     * per GPU); pass -1 to let Kokkos choose.
     */
    PLASTIX_BACKEND_EXPORT void
    initialize(int local_rank = -1);

    /** Stop the Kokkos runtime if initialize() started it. */
    PLASTIX_BACKEND_EXPORT void
    finalize();

    /** Whether the backend runtime is running. */
    PLASTIX_BACKEND_EXPORT bool
    is_initialized();

    /** Name of the Kokkos execution space the kernels run in ("Cuda", "Serial", ...). */
    PLASTIX_BACKEND_EXPORT std::string
    execution_space_name();

    /**
     * One line describing the device: the GPU's name and memory for CUDA, the
     * host execution space otherwise, plus the Kokkos version.
     */
    PLASTIX_BACKEND_EXPORT std::string
    device_description();

    /** True if kernels run on a device whose memory the host cannot read. */
    PLASTIX_BACKEND_EXPORT bool
    device_memory_is_separate();

    /**
     * Free memory of the device in bytes where it has memory of its own (a
     * GPU); 0 where the kernels use host memory. Needs no initialize().
     */
    PLASTIX_BACKEND_EXPORT std::size_t
    device_memory_available();

    /** Wait until all kernels issued so far have finished. */
    PLASTIX_BACKEND_EXPORT void
    fence();

    /**
     * Allocate @p bytes of device memory. @p label names the allocation in
     * the error message if the device is out of memory (DeviceMemoryError).
     */
    PLASTIX_BACKEND_EXPORT void *
    allocate(std::size_t bytes, const char *label);

    /** Release memory obtained from allocate(). Null is ignored. */
    PLASTIX_BACKEND_EXPORT void
    deallocate(void *pointer, std::size_t bytes);

    /**
     * Allocate @p bytes of host memory that the device copies to and from
     * at full speed (page-locked on CUDA; plain host memory otherwise): the
     * staging buffers of MPI ghost exchanges.
     */
    PLASTIX_BACKEND_EXPORT void *
    allocate_host_staging(std::size_t bytes);

    /** Release memory obtained from allocate_host_staging(). Null is ignored. */
    PLASTIX_BACKEND_EXPORT void
    deallocate_host_staging(void *pointer);

    /** Bytes currently held through allocate(). */
    PLASTIX_BACKEND_EXPORT std::size_t
    allocated_bytes();

    /** Largest value allocated_bytes() has had. */
    PLASTIX_BACKEND_EXPORT std::size_t
    peak_allocated_bytes();

    /** Copy @p bytes from host memory to device memory. */
    PLASTIX_BACKEND_EXPORT void
    copy_to_device(void        *device_destination,
                   const void  *host_source,
                   std::size_t  bytes);

    /** Copy @p bytes from device memory to host memory. */
    PLASTIX_BACKEND_EXPORT void
    copy_to_host(void        *host_destination,
                 const void  *device_source,
                 std::size_t  bytes);

    /** Copy @p bytes within device memory. */
    PLASTIX_BACKEND_EXPORT void
    copy_on_device(void        *device_destination,
                   const void  *device_source,
                   std::size_t  bytes);

    /** Set @p bytes of device memory to zero. */
    PLASTIX_BACKEND_EXPORT void
    zero_on_device(void *device_destination, std::size_t bytes);
  } // namespace backend
} // namespace plastix

#endif
