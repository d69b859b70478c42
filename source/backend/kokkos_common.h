// Common Kokkos definitions of the backend translation units. Only files in
// source/backend include this (and with it Kokkos); see doc/design.md,
// "The Kokkos firewall".
#ifndef PLASTIX_SOURCE_BACKEND_KOKKOS_COMMON_H
#define PLASTIX_SOURCE_BACKEND_KOKKOS_COMMON_H

#include <plastix/backend/config.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      using ExecutionSpace = Kokkos::DefaultExecutionSpace;
      using MemorySpace    = ExecutionSpace::memory_space;
      using Index64        = std::int64_t;
      /**
       * The kernels' work-item property. With HintLightWeight Kokkos passes
       * a kernel's functor as its argument (up to 4 KB). Without it a functor
       * of 512 bytes or more, such as the lattice kernel's with its stencil,
       * is copied into constant memory, and Kokkos 4 first waits on the host
       * until the kernel that used that memory last has finished
       * (CudaLaunchMechanism::ConstantMemory): the host could not queue the
       * launches of a V-cycle ahead of the device (doc/solvers.md,
       * "GPU: where a V-cycle goes"). Host back-ends ignore it.
       */
      using LaunchProperty = Kokkos::Experimental::WorkItemProperty::HintLightWeight_t;
      using RangePolicy =
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index64>, LaunchProperty>;
      using TeamPolicy = Kokkos::TeamPolicy<ExecutionSpace, LaunchProperty>;

      /**
       * Largest functor launched with LaunchProperty: Kokkos passes at most
       * 4 KB as a kernel argument, together with the policy, and launches a
       * larger functor from global memory, after the host waited for the
       * device. The launch helpers check their functors against it.
       */
      constexpr std::size_t light_weight_functor_bytes = 3584;

      /** Whether a functor of type @p Functor launches as a kernel argument (light_weight_functor_bytes). */
      template <typename Functor>
      constexpr bool launches_light_weight = sizeof(Functor) <= light_weight_functor_bytes;

      /** Whether kernels run on a GPU (memory not readable by the host). */
      constexpr bool on_device =
        !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

      /** Whether kernels run one at a time on one host thread (Kokkos Serial): no write can race. */
#if defined(KOKKOS_ENABLE_SERIAL)
      constexpr bool serial_execution = std::is_same<ExecutionSpace, Kokkos::Serial>::value;
#else
      constexpr bool serial_execution = false;
#endif

      /** target += value, atomically unless the execution is serial (where an atomic only costs). */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      accumulate(Number &target, const Number value)
      {
        if constexpr (serial_execution)
          target += value;
        else
          Kokkos::atomic_add(&target, value);
      }

      /** Square root on host and device with Kokkos 3.4 and 4.x alike. */
      KOKKOS_INLINE_FUNCTION double
      square_root(const double x)
      {
#if KOKKOS_VERSION >= 30700
        return Kokkos::sqrt(x);
#else
        return ::sqrt(x);
#endif
      }

      /** Natural logarithm on host and device with Kokkos 3.4 and 4.x alike. */
      KOKKOS_INLINE_FUNCTION double
      natural_logarithm(const double x)
      {
#if KOKKOS_VERSION >= 30700
        return Kokkos::log(x);
#else
        return ::log(x);
#endif
      }

      /** Cube root on host and device with Kokkos 3.4 and 4.x alike. */
      KOKKOS_INLINE_FUNCTION double
      cube_root(const double x)
      {
#if KOKKOS_VERSION >= 30700
        return Kokkos::cbrt(x);
#else
        return ::cbrt(x);
#endif
      }

      /** The exponential function on host and device with Kokkos 3.4 and 4.x alike. */
      KOKKOS_INLINE_FUNCTION double
      exponential(const double x)
      {
#if KOKKOS_VERSION >= 30700
        return Kokkos::exp(x);
#else
        return ::exp(x);
#endif
      }

      /** Launch a range kernel over [0, n), skipping empty ranges. */
      template <typename Functor>
      inline void
      for_range(const char *label, const Index64 n, const Functor &functor)
      {
        static_assert(launches_light_weight<Functor>, "a range kernel's functor must fit a kernel argument");
        if (n > 0)
          Kokkos::parallel_for(label, RangePolicy(0, n), functor);
      }

      /** Launch a range kernel over [begin, end). */
      template <typename Functor>
      inline void
      for_range(const char   *label,
                const Index64 begin,
                const Index64 end,
                const Functor &functor)
      {
        static_assert(launches_light_weight<Functor>, "a range kernel's functor must fit a kernel argument");
        if (end > begin)
          Kokkos::parallel_for(label, RangePolicy(begin, end), functor);
      }

      /**
       * Reduce over [0, n) into @p result (a scalar or a Kokkos reducer),
       * launched light-weight as every backend kernel; the functor is
       * checked like for_range()'s.
       */
      template <typename Functor, typename Result>
      inline void
      reduce_range(const char *label, const Index64 n, const Functor &functor, Result &&result)
      {
        static_assert(launches_light_weight<Functor>, "a reduction's functor must fit a kernel argument");
        Kokkos::parallel_reduce(label, RangePolicy(0, n), functor, std::forward<Result>(result));
      }

      /** Scan over [0, n), with the total in @p total if given; checked like for_range(). */
      template <typename Functor, typename... Total>
      inline void
      scan_range(const char *label, const Index64 n, const Functor &functor, Total &...total)
      {
        static_assert(launches_light_weight<Functor>, "a scan's functor must fit a kernel argument");
        static_assert(sizeof...(Total) <= 1, "a scan has at most one total");
        Kokkos::parallel_scan(label, RangePolicy(0, n), functor, total...);
      }
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#if defined(__CUDACC__)
#  define PLASTIX_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__)
#  define PLASTIX_UNROLL _Pragma("GCC unroll 24")
#else
#  define PLASTIX_UNROLL
#endif

#endif
