// Device vector kernels, instantiated for float and double.
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
      using internal::reduce_range;

      template <typename Number>
      void
      set(const std::size_t n, const Number value, Number *x)
      {
        for_range("plastix::set", n, KOKKOS_LAMBDA(const Index64 i) { x[i] = value; });
      }

      template <typename Number>
      void
      scale(const std::size_t n, const Number factor, Number *x)
      {
        for_range("plastix::scale", n, KOKKOS_LAMBDA(const Index64 i) { x[i] *= factor; });
      }

      template <typename Number>
      void
      add_scalar(const std::size_t n, const Number a, Number *x)
      {
        for_range("plastix::add_scalar", n, KOKKOS_LAMBDA(const Index64 i) { x[i] += a; });
      }

      template <typename Number>
      void
      equ(const std::size_t n, const Number a, const Number *x, Number *y)
      {
        for_range("plastix::equ", n, KOKKOS_LAMBDA(const Index64 i) { y[i] = a * x[i]; });
      }

      template <typename Number>
      void
      axpy(const std::size_t n, const Number a, const Number *x, Number *y)
      {
        for_range("plastix::axpy", n, KOKKOS_LAMBDA(const Index64 i) { y[i] += a * x[i]; });
      }

      template <typename Number>
      void
      sadd(const std::size_t n, const Number s, const Number a, const Number *x, Number *y)
      {
        for_range("plastix::sadd", n, KOKKOS_LAMBDA(const Index64 i) { y[i] = s * y[i] + a * x[i]; });
      }

      template <typename Number>
      void
      add_two(const std::size_t n, const Number a, const Number *x, const Number b, const Number *z, Number *y)
      {
        for_range("plastix::add_two", n, KOKKOS_LAMBDA(const Index64 i) { y[i] += a * x[i] + b * z[i]; });
      }

      template <typename Number>
      void
      triad(const std::size_t n, const Number s, const Number *b, const Number *c, Number *a)
      {
        for_range("plastix::triad", n, KOKKOS_LAMBDA(const Index64 i) { a[i] = b[i] + s * c[i]; });
      }

      template <typename Number>
      void
      pointwise_multiply(const std::size_t n, const Number *x, Number *y)
      {
        for_range("plastix::pointwise_multiply", n, KOKKOS_LAMBDA(const Index64 i) { y[i] *= x[i]; });
      }

      template <typename Number>
      double
      dot(const std::size_t n, const Number *x, const Number *y)
      {
        double result = 0;
        reduce_range(
          "plastix::dot",
          n,
          KOKKOS_LAMBDA(const Index64 i, double &sum) { sum += static_cast<double>(x[i]) * y[i]; },
          result);
        return result;
      }

      template <typename Number>
      double
      l1_norm(const std::size_t n, const Number *x)
      {
        double result = 0;
        reduce_range(
          "plastix::l1_norm",
          n,
          KOKKOS_LAMBDA(const Index64 i, double &sum) { sum += (x[i] < 0 ? -x[i] : x[i]); },
          result);
        return result;
      }

      template <typename Number>
      double
      linfty_norm(const std::size_t n, const Number *x)
      {
        double result = 0;
        reduce_range(
          "plastix::linfty_norm",
          n,
          KOKKOS_LAMBDA(const Index64 i, double &m) {
            const double v = x[i] < 0 ? -x[i] : x[i];
            if (v > m)
              m = v;
          },
          Kokkos::Max<double>(result));
        return n > 0 ? result : 0.;
      }

      template <typename Number>
      double
      sum(const std::size_t n, const Number *x)
      {
        double result = 0;
        reduce_range(
          "plastix::sum", n, KOKKOS_LAMBDA(const Index64 i, double &s) { s += x[i]; }, result);
        return result;
      }

      template <typename Number>
      std::size_t
      count_nonzero(const std::size_t n, const Number *x)
      {
        Index64 result = 0;
        reduce_range(
          "plastix::count_nonzero",
          n,
          KOKKOS_LAMBDA(const Index64 i, Index64 &s) { s += (x[i] != Number(0)) ? 1 : 0; },
          result);
        return static_cast<std::size_t>(result);
      }

      template <typename Number>
      double
      add_and_dot(const std::size_t n, const Number a, const Number *v, const Number *w, Number *x)
      {
        double result = 0;
        reduce_range(
          "plastix::add_and_dot",
          n,
          KOKKOS_LAMBDA(const Index64 i, double &sum) {
            const Number updated = x[i] + a * v[i];
            x[i]                 = updated;
            sum += static_cast<double>(updated) * w[i];
          },
          result);
        return result;
      }

      template <typename Number>
      void
      invert_diagonal(const std::size_t n, Number *x)
      {
        for_range("plastix::invert_diagonal", n, KOKKOS_LAMBDA(const Index64 i) {
          x[i] = (x[i] != Number(0)) ? Number(1) / x[i] : Number(1);
        });
      }

      template <typename Number>
      void
      gather(const std::size_t n, const LocalIndex *indices, const Number *x, Number *buffer)
      {
        for_range("plastix::gather", n, KOKKOS_LAMBDA(const Index64 k) { buffer[k] = x[indices[k]]; });
      }

      template <typename Number>
      void
      scatter_add(const std::size_t n, const LocalIndex *indices, const Number *buffer, Number *x)
      {
        for_range("plastix::scatter_add", n, KOKKOS_LAMBDA(const Index64 k) {
          Kokkos::atomic_add(&x[indices[k]], buffer[k]);
        });
      }

      template <typename Number>
      void
      set_entries(const std::size_t n, const LocalIndex *indices, const Number value, Number *x)
      {
        for_range("plastix::set_entries", n, KOKKOS_LAMBDA(const Index64 k) { x[indices[k]] = value; });
      }

      template <typename Number>
      void
      assign_entries(const std::size_t n, const LocalIndex *indices, const Number *values, Number *x, const Number scale)
      {
        for_range("plastix::assign_entries", n, KOKKOS_LAMBDA(const Index64 k) { x[indices[k]] = scale * values[k]; });
      }

      template <typename Number>
      void
      copy_entries(const std::size_t n, const LocalIndex *indices, const Number *x, Number *y)
      {
        for_range("plastix::copy_entries", n, KOKKOS_LAMBDA(const Index64 k) { y[indices[k]] = x[indices[k]]; });
      }

      template <typename Number, typename OtherNumber>
      void
      convert(const std::size_t n, const double a, const OtherNumber *x, const double b, Number *y)
      {
        if (b == 0)
          for_range("plastix::convert", n, KOKKOS_LAMBDA(const Index64 i) {
            y[i] = static_cast<Number>(a * static_cast<double>(x[i]));
          });
        else
          for_range("plastix::convert_add", n, KOKKOS_LAMBDA(const Index64 i) {
            y[i] = static_cast<Number>(a * static_cast<double>(x[i]) + b * static_cast<double>(y[i]));
          });
      }

      template <typename Number>
      void
      chebyshev_update(const std::size_t  n,
                       const unsigned int step,
                       const Number       factor1,
                       const Number       factor2,
                       const Number      *rhs,
                       const Number      *inverse_diagonal,
                       Number            *solution,
                       Number            *solution_old,
                       Number            *temp)
      {
        const Number one = 1;
        if (step == 0)
          for_range("plastix::chebyshev0", n, KOKKOS_LAMBDA(const Index64 i) {
            solution[i] = factor2 * inverse_diagonal[i] * rhs[i];
          });
        else if (step == 1)
          for_range("plastix::chebyshev1", n, KOKKOS_LAMBDA(const Index64 i) {
            temp[i] = (one + factor1) * solution[i] + factor2 * inverse_diagonal[i] * (rhs[i] - temp[i]);
          });
        else
          for_range("plastix::chebyshev", n, KOKKOS_LAMBDA(const Index64 i) {
            solution_old[i] = (one + factor1) * solution[i] - factor1 * solution_old[i] +
                              factor2 * inverse_diagonal[i] * (rhs[i] - temp[i]);
          });
      }

#define PLASTIX_INSTANTIATE_VECTOR_OPERATIONS(Number)                                                            \
  template PLASTIX_BACKEND_EXPORT void        set<Number>(std::size_t, Number, Number *);                        \
  template PLASTIX_BACKEND_EXPORT void        scale<Number>(std::size_t, Number, Number *);                      \
  template PLASTIX_BACKEND_EXPORT void        add_scalar<Number>(std::size_t, Number, Number *);                 \
  template PLASTIX_BACKEND_EXPORT void        equ<Number>(std::size_t, Number, const Number *, Number *);        \
  template PLASTIX_BACKEND_EXPORT void        axpy<Number>(std::size_t, Number, const Number *, Number *);       \
  template PLASTIX_BACKEND_EXPORT void        sadd<Number>(std::size_t, Number, Number, const Number *, Number *); \
  template PLASTIX_BACKEND_EXPORT void        add_two<Number>(std::size_t, Number, const Number *, Number,       \
                                                           const Number *, Number *);                           \
  template PLASTIX_BACKEND_EXPORT void        triad<Number>(std::size_t, Number, const Number *, const Number *, \
                                                         Number *);                                             \
  template PLASTIX_BACKEND_EXPORT void        pointwise_multiply<Number>(std::size_t, const Number *, Number *); \
  template PLASTIX_BACKEND_EXPORT double      dot<Number>(std::size_t, const Number *, const Number *);          \
  template PLASTIX_BACKEND_EXPORT double      l1_norm<Number>(std::size_t, const Number *);                      \
  template PLASTIX_BACKEND_EXPORT double      linfty_norm<Number>(std::size_t, const Number *);                  \
  template PLASTIX_BACKEND_EXPORT double      sum<Number>(std::size_t, const Number *);                          \
  template PLASTIX_BACKEND_EXPORT std::size_t count_nonzero<Number>(std::size_t, const Number *);                \
  template PLASTIX_BACKEND_EXPORT double      add_and_dot<Number>(std::size_t, Number, const Number *,           \
                                                                const Number *, Number *);                      \
  template PLASTIX_BACKEND_EXPORT void        invert_diagonal<Number>(std::size_t, Number *);                    \
  template PLASTIX_BACKEND_EXPORT void        gather<Number>(std::size_t, const LocalIndex *, const Number *,    \
                                                          Number *);                                            \
  template PLASTIX_BACKEND_EXPORT void        scatter_add<Number>(std::size_t, const LocalIndex *,               \
                                                               const Number *, Number *);                       \
  template PLASTIX_BACKEND_EXPORT void        set_entries<Number>(std::size_t, const LocalIndex *, Number,       \
                                                               Number *);                                       \
  template PLASTIX_BACKEND_EXPORT void        assign_entries<Number>(std::size_t, const LocalIndex *,            \
                                                                  const Number *, Number *, Number);            \
  template PLASTIX_BACKEND_EXPORT void        copy_entries<Number>(std::size_t, const LocalIndex *,              \
                                                                const Number *, Number *);                      \
  template PLASTIX_BACKEND_EXPORT void        chebyshev_update<Number>(std::size_t, unsigned int, Number, Number, \
                                                                    const Number *, const Number *, Number *,   \
                                                                    Number *, Number *);

      PLASTIX_INSTANTIATE_VECTOR_OPERATIONS(double)
      PLASTIX_INSTANTIATE_VECTOR_OPERATIONS(float)
#undef PLASTIX_INSTANTIATE_VECTOR_OPERATIONS

      template PLASTIX_BACKEND_EXPORT void convert<float, double>(std::size_t, double, const double *, double, float *);
      template PLASTIX_BACKEND_EXPORT void convert<double, float>(std::size_t, double, const float *, double, double *);
      template PLASTIX_BACKEND_EXPORT void convert<double, double>(std::size_t, double, const double *, double,
                                                                   double *);
      template PLASTIX_BACKEND_EXPORT void convert<float, float>(std::size_t, double, const float *, double, float *);
    } // namespace vector_operations
  }   // namespace backend
} // namespace plastix

#include "firewall_check.h"
