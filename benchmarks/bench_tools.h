// Small helpers shared by the benchmark programs (header only: portable-elasticity-bench, which links
// no plastix library, uses the parts that call no backend function).
#ifndef PLASTIX_BENCHMARKS_BENCH_TOOLS_H
#define PLASTIX_BENCHMARKS_BENCH_TOOLS_H

#include <plastix/backend/device.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <string>
#include <vector>

namespace plastix
{
  namespace bench
  {
    /** The non-empty parts of @p text between @p separator. */
    inline std::vector<std::string>
    split(const std::string &text, const char separator)
    {
      std::vector<std::string> parts;
      std::stringstream        stream(text);
      std::string              item;
      while (std::getline(stream, item, separator))
        if (!item.empty())
          parts.push_back(item);
      return parts;
    }

    /** The integers of a list such as "100,200" (std::stoi on each non-empty part). */
    inline std::vector<int>
    split_integers(const std::string &text, const char separator = ',')
    {
      std::vector<int> values;
      for (const auto &part : split(text, separator))
        values.push_back(std::stoi(part));
      return values;
    }

    /** Seconds since @p start. */
    inline double
    seconds_since(const std::chrono::steady_clock::time_point start)
    {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }

    /** The median of @p samples (the mean of the middle two for an even count). */
    inline double
    median(std::vector<double> samples)
    {
      std::sort(samples.begin(), samples.end());
      const std::size_t n = samples.size();
      return n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    }

    /** The median wall time of @p repeats calls of @p f (device work included), after two untimed calls. */
    template <typename F>
    double
    median_seconds(const int repeats, const F &f)
    {
      f();
      f();
      backend::fence();
      std::vector<double> t;
      for (int r = 0; r < repeats; ++r)
        {
          const auto start = std::chrono::steady_clock::now();
          f();
          backend::fence();
          t.push_back(seconds_since(start));
        }
      std::sort(t.begin(), t.end());
      return t[t.size() / 2];
    }
  } // namespace bench
} // namespace plastix

#endif
