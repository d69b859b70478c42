// Host views of device results for the finite-strain operator tests: norms
// and relative differences of host vectors, and the device's internal force
// and operator product of a host vector.
#ifndef PLASTIX_TESTS_BACKEND_FINITE_STRAIN_DEVICE_H
#define PLASTIX_TESTS_BACKEND_FINITE_STRAIN_DEVICE_H

#include <plastix/backend/device.h>
#include <plastix/backend/device_array.h>
#include <plastix/backend/device_operator.h>
#include <plastix/backend/finite_strain_state.h>

#include <cmath>
#include <vector>

namespace plastix_test
{
  inline double
  norm(const std::vector<double> &v)
  {
    double s = 0;
    for (const double x : v)
      s += x * x;
    return std::sqrt(s);
  }

  inline double
  dot(const std::vector<double> &a, const std::vector<double> &b)
  {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      s += a[i] * b[i];
    return s;
  }

  /** |a - b| / |b| over the rows that @p free selects (all if empty). */
  inline double
  relative_difference(const std::vector<double> &a, const std::vector<double> &b, const std::vector<bool> &free = {})
  {
    double d = 0, n = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (free.empty() || free[i])
        {
          d += (a[i] - b[i]) * (a[i] - b[i]);
          n += b[i] * b[i];
        }
    return std::sqrt(d / n);
  }

  inline std::vector<double>
  device_internal_force(const plastix::backend::FiniteStrainState &state, const std::vector<double> &u)
  {
    plastix::backend::DeviceArray<double> src(u, "test u"), dst(u.size(), "test f");
    state.internal_force(src.data(), dst.data());
    plastix::backend::fence();
    return dst.to_host();
  }

  template <typename Number = double>
  std::vector<double>
  device_apply(const plastix::backend::DeviceOperator &op, const std::vector<double> &x)
  {
    plastix::backend::DeviceArray<Number> src(std::vector<Number>(x.begin(), x.end()), "test src");
    plastix::backend::DeviceArray<Number> dst(x.size(), "test dst");
    op.apply(src.data(), dst.data());
    plastix::backend::fence();
    const std::vector<Number> r = dst.to_host();
    return std::vector<double>(r.begin(), r.end());
  }
} // namespace plastix_test

#endif
