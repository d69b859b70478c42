// A Kokkos Tools connector for measurements (doc/solvers.md, "GPU: where the Newton stage goes" and
// "GPU: two GPUs and weak scaling"): per kernel
// name the number of launches and, with KTIMER_SYNC=1, the time of each kernel between device
// synchronisations around it and the host time before it. Loaded by Kokkos at run time:
//   KOKKOS_TOOLS_LIBS=<build>/libplastix_kernel_counter.so KTIMER_SYNC=1 plastix-bench ...
// (Kokkos 4; Debian's Kokkos 3.4 reads KOKKOS_PROFILE_LIBRARY instead).
// It prints one line per kernel name when Kokkos finalizes. The synchronisation is the CUDA
// runtime's cudaDeviceSynchronize(), looked up at run time (no CUDA at build time); without a CUDA
// runtime (host builds, whose kernels finish before they return) it is left out.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace
{
  using Clock = std::chrono::steady_clock;

  /** Launches, kernel time and host time before the kernel, of one kernel name. */
  struct KernelStatistics
  {
    std::string name;
    long        launches    = 0;
    double      kernel_time = 0;
    double      time_before = 0;
  };

  /** One entry per kernel name, in the order first seen; a kernel's id is its index. */
  std::vector<KernelStatistics> statistics;
  Clock::time_point             last_end, kernel_start;
  bool                          have_last_end = false;
  int                           nesting       = 0;
  bool                          synchronise   = false;
  int (*device_synchronize)()                  = nullptr;

  void
  synchronise_device()
  {
    if (synchronise && device_synchronize != nullptr)
      device_synchronize();
  }

  void
  begin_kernel(const char *name, std::uint64_t *kernel_id)
  {
    if (nesting++ > 0)
      {
        *kernel_id = UINT64_MAX;
        return;
      }
    synchronise_device();
    const auto now = Clock::now();
    std::size_t index = 0;
    while (index < statistics.size() && statistics[index].name != name)
      ++index;
    if (index == statistics.size())
      statistics.push_back({name});
    *kernel_id = index;
    if (have_last_end && synchronise)
      statistics[index].time_before += std::chrono::duration<double>(now - last_end).count();
    kernel_start = Clock::now();
  }

  void
  end_kernel(const std::uint64_t kernel_id)
  {
    --nesting;
    if (kernel_id == UINT64_MAX)
      return;
    synchronise_device();
    last_end      = Clock::now();
    have_last_end = true;
    auto &entry   = statistics[kernel_id];
    entry.kernel_time += std::chrono::duration<double>(last_end - kernel_start).count();
    ++entry.launches;
  }
} // namespace

extern "C"
{
  void
  kokkosp_init_library(int, std::uint64_t, std::uint32_t, void *)
  {
    const char *sync = std::getenv("KTIMER_SYNC");
    synchronise      = sync != nullptr && sync[0] == '1';
    for (const char *library : {"libcudart.so", "libcudart.so.13", "libcudart.so.12"})
      if (void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL))
        {
          device_synchronize = reinterpret_cast<int (*)()>(dlsym(handle, "cudaDeviceSynchronize"));
          break;
        }
  }

  void
  kokkosp_finalize_library()
  {
    // Sorted by name, as the summaries in doc/solvers.md were read.
    std::sort(statistics.begin(), statistics.end(),
              [](const KernelStatistics &a, const KernelStatistics &b) { return a.name < b.name; });
    long   launches = 0;
    double kernels = 0, before = 0;
    for (const auto &s : statistics)
      {
        launches += s.launches;
        kernels += s.kernel_time;
        before += s.time_before;
      }
    std::printf("ktimer: %ld launches, kernels %.4f s, gaps before kernels %.4f s (sync %d)\n", launches, kernels,
                before, synchronise && device_synchronize != nullptr ? 1 : 0);
    for (const auto &s : statistics)
      std::printf("ktimer: %10ld calls %9.5f s kernel %9.5f s gap-before  %s\n", s.launches, s.kernel_time,
                  s.time_before, s.name.c_str());
  }

  void
  kokkosp_begin_parallel_for(const char *name, std::uint32_t, std::uint64_t *kernel_id)
  {
    begin_kernel(name, kernel_id);
  }

  void
  kokkosp_end_parallel_for(const std::uint64_t kernel_id)
  {
    end_kernel(kernel_id);
  }

  void
  kokkosp_begin_parallel_reduce(const char *name, std::uint32_t, std::uint64_t *kernel_id)
  {
    begin_kernel(name, kernel_id);
  }

  void
  kokkosp_end_parallel_reduce(const std::uint64_t kernel_id)
  {
    end_kernel(kernel_id);
  }

  void
  kokkosp_begin_parallel_scan(const char *name, std::uint32_t, std::uint64_t *kernel_id)
  {
    begin_kernel(name, kernel_id);
  }

  void
  kokkosp_end_parallel_scan(const std::uint64_t kernel_id)
  {
    end_kernel(kernel_id);
  }
}
