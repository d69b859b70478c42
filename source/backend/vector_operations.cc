// Device vector kernels.
#include <plastix/backend/vector_operations.h>

#include "kokkos_common.h"

namespace plastix
{
  namespace backend
  {
    namespace vector_operations
    {
      using internal::for_range;
      using internal::Index64;
      using internal::RangePolicy;

      void
      set(const std::size_t n, const double value, double *x)
      {
        for_range("plastix::set", n, KOKKOS_LAMBDA(const Index64 i) { x[i] = value; });
      }

      void
      scale(const std::size_t n, const double factor, double *x)
      {
        for_range("plastix::scale", n, KOKKOS_LAMBDA(const Index64 i) { x[i] *= factor; });
      }

      void
      add_scalar(const std::size_t n, const double a, double *x)
      {
        for_range("plastix::add_scalar", n, KOKKOS_LAMBDA(const Index64 i) { x[i] += a; });
      }

      void
      equ(const std::size_t n, const double a, const double *x, double *y)
      {
        for_range("plastix::equ", n, KOKKOS_LAMBDA(const Index64 i) { y[i] = a * x[i]; });
      }

      void
      axpy(const std::size_t n, const double a, const double *x, double *y)
      {
        for_range("plastix::axpy", n, KOKKOS_LAMBDA(const Index64 i) { y[i] += a * x[i]; });
      }

      void
      sadd(const std::size_t n,
           const double      s,
           const double      a,
           const double     *x,
           double           *y)
      {
        for_range("plastix::sadd", n, KOKKOS_LAMBDA(const Index64 i) {
          y[i] = s * y[i] + a * x[i];
        });
      }

      void
      add_two(const std::size_t n,
              const double      a,
              const double     *x,
              const double      b,
              const double     *z,
              double           *y)
      {
        for_range("plastix::add_two", n, KOKKOS_LAMBDA(const Index64 i) {
          y[i] += a * x[i] + b * z[i];
        });
      }

      void
      triad(const std::size_t n,
            const double      s,
            const double     *b,
            const double     *c,
            double           *a)
      {
        for_range("plastix::triad", n, KOKKOS_LAMBDA(const Index64 i) { a[i] = b[i] + s * c[i]; });
      }

      void
      pointwise_multiply(const std::size_t n, const double *x, double *y)
      {
        for_range("plastix::pointwise_multiply", n, KOKKOS_LAMBDA(const Index64 i) {
          y[i] *= x[i];
        });
      }

      double
      dot(const std::size_t n, const double *x, const double *y)
      {
        double result = 0;
        Kokkos::parallel_reduce(
          "plastix::dot",
          RangePolicy(0, n),
          KOKKOS_LAMBDA(const Index64 i, double &sum) { sum += x[i] * y[i]; },
          result);
        return result;
      }

      double
      l1_norm(const std::size_t n, const double *x)
      {
        double result = 0;
        Kokkos::parallel_reduce(
          "plastix::l1_norm",
          RangePolicy(0, n),
          KOKKOS_LAMBDA(const Index64 i, double &sum) { sum += (x[i] < 0 ? -x[i] : x[i]); },
          result);
        return result;
      }

      double
      linfty_norm(const std::size_t n, const double *x)
      {
        double result = 0;
        Kokkos::parallel_reduce(
          "plastix::linfty_norm",
          RangePolicy(0, n),
          KOKKOS_LAMBDA(const Index64 i, double &m) {
            const double v = x[i] < 0 ? -x[i] : x[i];
            if (v > m)
              m = v;
          },
          Kokkos::Max<double>(result));
        return n > 0 ? result : 0.;
      }

      double
      sum(const std::size_t n, const double *x)
      {
        double result = 0;
        Kokkos::parallel_reduce(
          "plastix::sum",
          RangePolicy(0, n),
          KOKKOS_LAMBDA(const Index64 i, double &s) { s += x[i]; },
          result);
        return result;
      }

      std::size_t
      count_nonzero(const std::size_t n, const double *x)
      {
        Index64 result = 0;
        Kokkos::parallel_reduce(
          "plastix::count_nonzero",
          RangePolicy(0, n),
          KOKKOS_LAMBDA(const Index64 i, Index64 &s) { s += (x[i] != 0.) ? 1 : 0; },
          result);
        return static_cast<std::size_t>(result);
      }

      double
      add_and_dot(const std::size_t n,
                  const double      a,
                  const double     *v,
                  const double     *w,
                  double           *x)
      {
        double result = 0;
        Kokkos::parallel_reduce(
          "plastix::add_and_dot",
          RangePolicy(0, n),
          KOKKOS_LAMBDA(const Index64 i, double &sum) {
            const double updated = x[i] + a * v[i];
            x[i]                 = updated;
            sum += updated * w[i];
          },
          result);
        return result;
      }

      void
      invert_diagonal(const std::size_t n, double *x)
      {
        for_range("plastix::invert_diagonal", n, KOKKOS_LAMBDA(const Index64 i) {
          x[i] = (x[i] != 0.) ? 1. / x[i] : 1.;
        });
      }

      void
      gather(const std::size_t n,
             const LocalIndex *indices,
             const double     *x,
             double           *buffer)
      {
        for_range("plastix::gather", n, KOKKOS_LAMBDA(const Index64 k) {
          buffer[k] = x[indices[k]];
        });
      }

      void
      scatter_add(const std::size_t n,
                  const LocalIndex *indices,
                  const double     *buffer,
                  double           *x)
      {
        for_range("plastix::scatter_add", n, KOKKOS_LAMBDA(const Index64 k) {
          Kokkos::atomic_add(&x[indices[k]], buffer[k]);
        });
      }

      void
      set_entries(const std::size_t n,
                  const LocalIndex *indices,
                  const double      value,
                  double           *x)
      {
        for_range("plastix::set_entries", n, KOKKOS_LAMBDA(const Index64 k) {
          x[indices[k]] = value;
        });
      }

      void
      assign_entries(const std::size_t n,
                     const LocalIndex *indices,
                     const double     *values,
                     double           *x)
      {
        for_range("plastix::assign_entries", n, KOKKOS_LAMBDA(const Index64 k) {
          x[indices[k]] = values[k];
        });
      }

      void
      copy_entries(const std::size_t n,
                   const LocalIndex *indices,
                   const double     *x,
                   double           *y)
      {
        for_range("plastix::copy_entries", n, KOKKOS_LAMBDA(const Index64 k) {
          y[indices[k]] = x[indices[k]];
        });
      }

      void
      chebyshev_update(const std::size_t  n,
                       const unsigned int step,
                       const double       factor1,
                       const double       factor2,
                       const double      *rhs,
                       const double      *inverse_diagonal,
                       double            *solution,
                       double            *solution_old,
                       double            *temp)
      {
        if (step == 0)
          for_range("plastix::chebyshev0", n, KOKKOS_LAMBDA(const Index64 i) {
            solution[i] = factor2 * inverse_diagonal[i] * rhs[i];
          });
        else if (step == 1)
          for_range("plastix::chebyshev1", n, KOKKOS_LAMBDA(const Index64 i) {
            temp[i] = (1. + factor1) * solution[i] +
                      factor2 * inverse_diagonal[i] * (rhs[i] - temp[i]);
          });
        else
          for_range("plastix::chebyshev", n, KOKKOS_LAMBDA(const Index64 i) {
            solution_old[i] = (1. + factor1) * solution[i] -
                              factor1 * solution_old[i] +
                              factor2 * inverse_diagonal[i] * (rhs[i] - temp[i]);
          });
      }
    } // namespace vector_operations
  }   // namespace backend
} // namespace plastix

#include "firewall_check.h"
