// Kokkos-free interface of the device vector kernels (float and double). All
// pointers are device pointers (host pointers for host execution spaces) of
// length n.
#ifndef PLASTIX_BACKEND_VECTOR_OPERATIONS_H
#define PLASTIX_BACKEND_VECTOR_OPERATIONS_H

#include <plastix/backend/config.h>

#include <cstddef>
#include <cstdint>

namespace plastix
{
  namespace backend
  {
    namespace vector_operations
    {
      // Each operation is instantiated for Number = float and double (the
      // vectors of single-precision multigrid levels and everything else).
      // Reductions accumulate and return double whatever the Number.

      /** x[i] = value */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      set(std::size_t n, Number value, Number *x);

      /** x[i] *= factor */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      scale(std::size_t n, Number factor, Number *x);

      /** x[i] += a */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      add_scalar(std::size_t n, Number a, Number *x);

      /** y[i] = a x[i] */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      equ(std::size_t n, Number a, const Number *x, Number *y);

      /** y[i] += a x[i] */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      axpy(std::size_t n, Number a, const Number *x, Number *y);

      /** y[i] = s y[i] + a x[i] */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      sadd(std::size_t n, Number s, Number a, const Number *x, Number *y);

      /** y[i] += a x[i] + b z[i] */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      add_two(std::size_t n, Number a, const Number *x, Number b, const Number *z, Number *y);

      /** a[i] = b[i] + s c[i] (STREAM triad, the bandwidth reference). */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      triad(std::size_t n, Number s, const Number *b, const Number *c, Number *a);

      /** y[i] *= x[i] */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      pointwise_multiply(std::size_t n, const Number *x, Number *y);

      /** sum x[i] y[i] */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT double
      dot(std::size_t n, const Number *x, const Number *y);

      /** sum |x[i]| */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT double
      l1_norm(std::size_t n, const Number *x);

      /** max |x[i]| */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT double
      linfty_norm(std::size_t n, const Number *x);

      /** sum x[i] */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT double
      sum(std::size_t n, const Number *x);

      /** Number of entries that are not exactly zero. */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT std::size_t
      count_nonzero(std::size_t n, const Number *x);

      /** x[i] += a v[i]; returns sum x[i] w[i] with the updated x (one pass). */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT double
      add_and_dot(std::size_t n, Number a, const Number *v, const Number *w, Number *x);

      /** x[i] = (x[i] != 0) ? 1/x[i] : 1; the inverse of a diagonal. */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      invert_diagonal(std::size_t n, Number *x);

      /** buffer[k] = x[indices[k]] for k < n (packing for MPI). */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      gather(std::size_t n, const LocalIndex *indices, const Number *x, Number *buffer);

      /** x[indices[k]] += buffer[k] for k < n; repeated indices allowed. */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      scatter_add(std::size_t n, const LocalIndex *indices, const Number *buffer, Number *x);

      /** x[indices[k]] = value for k < n. */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      set_entries(std::size_t n, const LocalIndex *indices, Number value, Number *x);

      /** x[indices[k]] = scale values[k] for k < n. */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      assign_entries(std::size_t n, const LocalIndex *indices, const Number *values, Number *x,
                     Number scale = Number(1));

      /** y[indices[k]] = x[indices[k]] for k < n. */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      copy_entries(std::size_t n, const LocalIndex *indices, const Number *x, Number *y);

      /**
       * y[i] = a x[i] + b y[i] between the two precisions (Number and
       * OtherNumber each float or double; b = 0 does not read y): the
       * conversions at the boundary of a single-precision multigrid.
       */
      template <typename Number, typename OtherNumber>
      PLASTIX_BACKEND_EXPORT void
      convert(std::size_t n, double a, const OtherNumber *x, double b, Number *y);

      /**
       * One fused Chebyshev step (the update deal.II's PreconditionChebyshev
       * does for its own vectors), with d = inverse diagonal:
       *   step 0: x = f2 d b
       *   step 1: t = (1+f1) x + f2 d (b - t)      (result in t)
       *   else:   x_old = (1+f1) x - f1 x_old + f2 d (b - t)   (result in x_old)
       */
      template <typename Number>
      PLASTIX_BACKEND_EXPORT void
      chebyshev_update(std::size_t   n,
                       unsigned int  step,
                       Number        factor1,
                       Number        factor2,
                       const Number *rhs,
                       const Number *inverse_diagonal,
                       Number       *solution,
                       Number       *solution_old,
                       Number       *temp);
    } // namespace vector_operations
  }   // namespace backend
} // namespace plastix

#endif
