// Kokkos-free configuration of the plastix device backend.
#ifndef PLASTIX_BACKEND_CONFIG_H
#define PLASTIX_BACKEND_CONFIG_H

#include <cstdint>

/**
 * Symbols of the backend shared library that the deal.II side may call. All
 * other symbols (Kokkos included) stay hidden, which keeps a CUDA Kokkos 4.x
 * inside the backend apart from the Kokkos 3.x of deal.II's Trilinos.
 */
#define PLASTIX_BACKEND_EXPORT __attribute__((visibility("default")))

namespace plastix
{
  namespace backend
  {
    /**
     * Index type of process-local DoFs, nodes and cells on the device. 32 bit
     * halves the index traffic of the operator; one process (one GPU) holds
     * fewer than 2^31 local DoFs.
     */
    using LocalIndex = std::int32_t;
  } // namespace backend
} // namespace plastix

#endif
