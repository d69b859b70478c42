// Every kernel of plastix/backend/vector_operations.h against a host loop
// (exact or to a few ulps for reductions), including empty ranges, repeated
// indices in scatter_add, zeros in invert_diagonal and the three Chebyshev
// steps; the device memory helpers (DeviceArray copies, allocated_bytes);
// and a failing allocation, which must throw DeviceMemoryError naming the
// label. Backend only (no deal.II).
#include <plastix/backend/device.h>
#include <plastix/backend/device_array.h>
#include <plastix/backend/vector_operations.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../checker.h"

using namespace plastix::backend;
namespace ops = plastix::backend::vector_operations;

namespace
{
  plastix_test::Checker checker;

  /** max_i |a_i - b_i| / max(max_i |b_i|, tiny); 0 for identical vectors. */
  double
  max_difference(const std::vector<double> &a, const std::vector<double> &b)
  {
    if (a.size() != b.size())
      return 1e300;
    double d = 0, m = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      {
        if (!(std::abs(a[i] - b[i]) <= d))
          d = std::abs(a[i] - b[i]);
        m = std::max(m, std::abs(b[i]));
      }
    return d / std::max(m, 1e-300);
  }

  double
  relative(const double a, const double b)
  {
    return std::abs(a - b) / std::max(std::abs(b), 1e-300);
  }

  std::vector<double>
  random_vector(const std::size_t n, std::mt19937 &rng, const double zero_fraction = 0.)
  {
    std::uniform_real_distribution<double> u(-1., 1.), p(0., 1.);
    std::vector<double>                    v(n);
    for (auto &x : v)
      x = p(rng) < zero_fraction ? 0. : u(rng) * std::exp(3. * u(rng));
    return v;
  }

  void
  test_size(const std::size_t n, std::mt19937 &rng)
  {
    std::printf("n = %zu\n", n);
    const std::string tag = " (n=" + std::to_string(n) + ")";
    const auto        xh  = random_vector(n, rng, 0.1);
    const auto        yh  = random_vector(n, rng);
    const auto        zh  = random_vector(n, rng);
    DeviceArray<double> x(xh, "x"), y(n, "y"), z(zh, "z");
    auto reset_y = [&]() { y.copy_from_host(yh); };
    // Element-wise kernels must be exact: the same floating-point expression per entry.
    {
      ops::set(n, 3.25, y.data());
      checker.check("set" + tag, max_difference(y.to_host(), std::vector<double>(n, 3.25)), 0.);
    }
    {
      reset_y();
      ops::scale(n, -1.7, y.data());
      std::vector<double> r = yh;
      for (auto &v : r)
        v *= -1.7;
      checker.check("scale" + tag, max_difference(y.to_host(), r), 0.);
    }
    {
      reset_y();
      ops::add_scalar(n, 0.3, y.data());
      std::vector<double> r = yh;
      for (auto &v : r)
        v += 0.3;
      checker.check("add_scalar" + tag, max_difference(y.to_host(), r), 0.);
    }
    {
      reset_y();
      ops::equ(n, 2.5, x.data(), y.data());
      std::vector<double> r(n);
      for (std::size_t i = 0; i < n; ++i)
        r[i] = 2.5 * xh[i];
      checker.check("equ" + tag, max_difference(y.to_host(), r), 0.);
    }
    {
      reset_y();
      ops::axpy(n, -0.75, x.data(), y.data());
      std::vector<double> r(n);
      for (std::size_t i = 0; i < n; ++i)
        r[i] = yh[i] + -0.75 * xh[i];
      checker.check("axpy" + tag, max_difference(y.to_host(), r), 1e-15);
    }
    {
      reset_y();
      ops::sadd(n, 0.5, -2., x.data(), y.data());
      std::vector<double> r(n);
      for (std::size_t i = 0; i < n; ++i)
        r[i] = 0.5 * yh[i] + -2. * xh[i];
      checker.check("sadd" + tag, max_difference(y.to_host(), r), 1e-15);
    }
    {
      reset_y();
      ops::add_two(n, 1.5, x.data(), -0.25, z.data(), y.data());
      std::vector<double> r(n);
      for (std::size_t i = 0; i < n; ++i)
        r[i] = yh[i] + (1.5 * xh[i] + -0.25 * zh[i]);
      checker.check("add_two" + tag, max_difference(y.to_host(), r), 1e-15);
    }
    {
      reset_y();
      ops::triad(n, 3., x.data(), z.data(), y.data());
      std::vector<double> r(n);
      for (std::size_t i = 0; i < n; ++i)
        r[i] = xh[i] + 3. * zh[i];
      checker.check("triad a = b + s c" + tag, max_difference(y.to_host(), r), 1e-15);
    }
    {
      reset_y();
      ops::pointwise_multiply(n, x.data(), y.data());
      std::vector<double> r(n);
      for (std::size_t i = 0; i < n; ++i)
        r[i] = yh[i] * xh[i];
      checker.check("pointwise_multiply" + tag, max_difference(y.to_host(), r), 0.);
    }
    // Reductions: summation order may differ; compare with long double sums.
    {
      reset_y();
      long double dot = 0, l1 = 0, sum = 0, abs_dot = 0;
      double      linf = 0;
      std::size_t nonzero = 0;
      for (std::size_t i = 0; i < n; ++i)
        {
          dot += static_cast<long double>(xh[i]) * yh[i];
          abs_dot += std::abs(static_cast<long double>(xh[i]) * yh[i]);
          l1 += std::abs(xh[i]);
          sum += xh[i];
          linf = std::max(linf, std::abs(xh[i]));
          nonzero += xh[i] != 0.;
        }
      const double eps = 1e-16 * std::max<double>(1., std::sqrt(static_cast<double>(n))) * 4;
      checker.check("dot" + tag, std::abs(ops::dot(n, x.data(), y.data()) - static_cast<double>(dot)) / std::max(1e-300, static_cast<double>(abs_dot)), eps);
      checker.check("l1_norm" + tag, n == 0 ? std::abs(ops::l1_norm(n, x.data())) : relative(ops::l1_norm(n, x.data()), static_cast<double>(l1)), eps);
      checker.check("sum" + tag, std::abs(ops::sum(n, x.data()) - static_cast<double>(sum)) / std::max(1e-300, static_cast<double>(l1)), eps);
      checker.check("linfty_norm" + tag, std::abs(ops::linfty_norm(n, x.data()) - linf), 0.);
      checker.check("count_nonzero" + tag, std::abs(static_cast<double>(ops::count_nonzero(n, x.data())) - static_cast<double>(nonzero)), 0.);

      // add_and_dot: x += a v, returns (updated x) . w
      DeviceArray<double> xx(xh, "x copy");
      const double        result = ops::add_and_dot(n, 0.625, z.data(), y.data(), xx.data());
      std::vector<double> updated(n);
      long double         expected = 0, abs_expected = 0;
      for (std::size_t i = 0; i < n; ++i)
        {
          updated[i] = xh[i] + 0.625 * zh[i];
          expected += static_cast<long double>(updated[i]) * yh[i];
          abs_expected += std::abs(static_cast<long double>(updated[i]) * yh[i]);
        }
      checker.check("add_and_dot: updated vector" + tag, max_difference(xx.to_host(), updated), 1e-15);
      checker.check("add_and_dot: returned dot with the updated vector" + tag,
            std::abs(result - static_cast<double>(expected)) / std::max(1e-300, static_cast<double>(abs_expected)), eps);
    }
    {
      // invert_diagonal: zeros become 1.
      DeviceArray<double> d(xh, "diagonal");
      ops::invert_diagonal(n, d.data());
      std::vector<double> r(n);
      for (std::size_t i = 0; i < n; ++i)
        r[i] = xh[i] != 0. ? 1. / xh[i] : 1.;
      const auto host = d.to_host();
      checker.check("invert_diagonal (" + std::to_string(std::count(xh.begin(), xh.end(), 0.)) + " zeros -> 1)" + tag,
            max_difference(host, r), 0.);
    }
    // Index kernels with indices in random order, repeated ones in scatter_add.
    if (n > 0)
      {
        const std::size_t                  m = 2 * n + 3;
        std::uniform_int_distribution<int> pick(0, static_cast<int>(n) - 1);
        std::vector<LocalIndex>            idx(m);
        for (auto &i : idx)
          i = pick(rng);
        idx[1] = idx[0]; // certainly a repeat
        idx[2] = idx[0];
        const auto              bh = random_vector(m, rng);
        DeviceArray<LocalIndex> indices(idx, "indices");
        DeviceArray<double>     buffer(m, "buffer"), b(bh, "values");

        ops::gather(m, indices.data(), x.data(), buffer.data());
        std::vector<double> r(m);
        for (std::size_t k = 0; k < m; ++k)
          r[k] = xh[idx[k]];
        checker.check("gather (" + std::to_string(m) + " indices)" + tag, max_difference(buffer.to_host(), r), 0.);

        reset_y();
        ops::scatter_add(m, indices.data(), b.data(), y.data());
        std::vector<long double> acc(yh.begin(), yh.end());
        std::vector<double>      scale(n, 0.);
        for (std::size_t k = 0; k < m; ++k)
          {
            acc[idx[k]] += bh[k];
            scale[idx[k]] += std::abs(bh[k]);
          }
        const auto host  = y.to_host();
        double     worst = 0;
        for (std::size_t i = 0; i < n; ++i)
          worst = std::max(worst, std::abs(host[i] - static_cast<double>(acc[i])) /
                                    (std::abs(yh[i]) + scale[i] + 1e-300));
        checker.check("scatter_add with repeated indices" + tag, worst, 1e-15);

        // set_entries / assign_entries / copy_entries with distinct indices
        // (assignments to one index from several k are unordered).
        std::vector<LocalIndex> distinct(n);
        for (std::size_t i = 0; i < n; ++i)
          distinct[i] = static_cast<LocalIndex>(i);
        std::shuffle(distinct.begin(), distinct.end(), rng);
        distinct.resize((n + 1) / 2);
        const std::size_t       k = distinct.size();
        DeviceArray<LocalIndex> dindices(distinct, "distinct indices");

        reset_y();
        ops::set_entries(k, dindices.data(), -4.5, y.data());
        std::vector<double> rs = yh;
        for (const auto i : distinct)
          rs[i] = -4.5;
        checker.check("set_entries" + tag, max_difference(y.to_host(), rs), 0.);

        reset_y();
        ops::assign_entries(k, dindices.data(), b.data(), y.data());
        std::vector<double> ra = yh;
        for (std::size_t j = 0; j < k; ++j)
          ra[distinct[j]] = bh[j];
        checker.check("assign_entries" + tag, max_difference(y.to_host(), ra), 0.);

        reset_y();
        ops::copy_entries(k, dindices.data(), x.data(), y.data());
        std::vector<double> rc = yh;
        for (const auto i : distinct)
          rc[i] = xh[i];
        checker.check("copy_entries" + tag, max_difference(y.to_host(), rc), 0.);
      }
    {
      // Chebyshev steps against the formulas of the header.
      const auto          bh = random_vector(n, rng), dh = random_vector(n, rng);
      const auto          sh = random_vector(n, rng), oh = random_vector(n, rng), th = random_vector(n, rng);
      const double        f1 = 0.37, f2 = 1.9;
      DeviceArray<double> b(bh, "rhs"), d(dh, "inverse diagonal");
      for (unsigned int step = 0; step < 3; ++step)
        {
          DeviceArray<double> s(sh, "solution"), o(oh, "solution_old"), t(th, "temp");
          ops::chebyshev_update(n, step, f1, f2, b.data(), d.data(), s.data(), o.data(), t.data());
          std::vector<double> rs = sh, ro = oh, rt = th;
          for (std::size_t i = 0; i < n; ++i)
            {
              if (step == 0)
                rs[i] = f2 * dh[i] * bh[i];
              else if (step == 1)
                rt[i] = (1. + f1) * sh[i] + f2 * dh[i] * (bh[i] - th[i]);
              else
                ro[i] = (1. + f1) * sh[i] - f1 * oh[i] + f2 * dh[i] * (bh[i] - th[i]);
            }
          const std::string s_tag = "chebyshev_update step " + std::to_string(step);
          const double      diff  = std::max({max_difference(s.to_host(), rs), max_difference(o.to_host(), ro),
                                              max_difference(t.to_host(), rt)});
          checker.check(s_tag + ": solution, solution_old, temp" + tag, diff, 2e-15);
        }
    }
  }
} // namespace

int
main()
{
  initialize();
  std::printf("backend: %s (%s)\n", device_description().c_str(), execution_space_name().c_str());
  checker.check_true("is_initialized()", is_initialized());
  try
    {
      std::mt19937 rng(2024);
      // 0 (empty launches), odd small sizes, one above typical block sizes.
      for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(1000), std::size_t(100003)})
        test_size(n, rng);

      // DeviceArray: copies and memory accounting.
      {
        const std::size_t before = allocated_bytes();
        {
          std::vector<double> h = {1., 2., 3., 4., 5.};
          DeviceArray<double> a(h, "a"), b(h.size(), "b");
          checker.check_true("allocated_bytes grows by the arrays' size", allocated_bytes() == before + 2 * 5 * sizeof(double));
          b.copy_from(a);
          checker.check_true("DeviceArray copy_from / to_host round trip", b.to_host() == h);
          a.set_zero();
          checker.check_true("DeviceArray set_zero", a.to_host() == std::vector<double>(5, 0.));
          DeviceArray<double> c(std::move(b));
          checker.check_true("DeviceArray move keeps the data", c.to_host() == h && b.size() == 0 && b.data() == nullptr);
          checker.check_true("peak_allocated_bytes >= allocated_bytes", peak_allocated_bytes() >= allocated_bytes());
        }
        checker.check_true("allocated_bytes back to the start after release", allocated_bytes() == before);
      }

      // An allocation no device can satisfy: DeviceMemoryError naming the label.
      {
        const std::size_t before = allocated_bytes();
        bool              thrown = false;
        std::string       message;
        try
          {
            void *p = allocate(std::size_t(1) << 60, "absurd test allocation");
            deallocate(p, std::size_t(1) << 60);
          }
        catch (const DeviceMemoryError &error)
          {
            thrown  = true;
            message = error.what();
          }
        catch (const std::exception &error)
          {
            message = std::string("wrong exception type: ") + error.what();
          }
        std::printf("  message: %s\n", message.c_str());
        checker.check_true("allocate(2^60 bytes) throws DeviceMemoryError", thrown);
        checker.check_true("the message names the label 'absurd test allocation'",
                   message.find("absurd test allocation") != std::string::npos);
        checker.check_true("allocated_bytes unchanged after the failed allocation", allocated_bytes() == before);
        bool array_thrown = false;
        try
          {
            DeviceArray<double> huge(std::size_t(1) << 57, "huge test array");
          }
        catch (const DeviceMemoryError &error)
          {
            array_thrown = std::string(error.what()).find("huge test array") != std::string::npos;
          }
        checker.check_true("DeviceArray of 2^60 bytes throws DeviceMemoryError naming its label", array_thrown);
        checker.check_true("allocate(0) returns null", allocate(0, "nothing") == nullptr);
      }
    }
  catch (const std::exception &error)
    {
      std::printf("FAIL exception: %s\n", error.what());
      ++checker.failures;
    }
  finalize();
  std::printf("%s\n", checker.failures == 0 ? "PASSED" : "FAILED");
  return checker.failures == 0 ? 0 : 1;
}
