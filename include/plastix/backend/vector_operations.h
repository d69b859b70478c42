// Kokkos-free interface of the device vector kernels. All pointers are device
// pointers (host pointers for host execution spaces) of length n.
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
      /** x[i] = value */
      PLASTIX_BACKEND_EXPORT void
      set(std::size_t n, double value, double *x);

      /** x[i] *= factor */
      PLASTIX_BACKEND_EXPORT void
      scale(std::size_t n, double factor, double *x);

      /** x[i] += a */
      PLASTIX_BACKEND_EXPORT void
      add_scalar(std::size_t n, double a, double *x);

      /** y[i] = a x[i] */
      PLASTIX_BACKEND_EXPORT void
      equ(std::size_t n, double a, const double *x, double *y);

      /** y[i] += a x[i] */
      PLASTIX_BACKEND_EXPORT void
      axpy(std::size_t n, double a, const double *x, double *y);

      /** y[i] = s y[i] + a x[i] */
      PLASTIX_BACKEND_EXPORT void
      sadd(std::size_t n, double s, double a, const double *x, double *y);

      /** y[i] += a x[i] + b z[i] */
      PLASTIX_BACKEND_EXPORT void
      add_two(std::size_t n,
              double        a,
              const double *x,
              double        b,
              const double *z,
              double       *y);

      /** a[i] = b[i] + s c[i] (STREAM triad, the bandwidth reference). */
      PLASTIX_BACKEND_EXPORT void
      triad(std::size_t n, double s, const double *b, const double *c, double *a);

      /** y[i] *= x[i] */
      PLASTIX_BACKEND_EXPORT void
      pointwise_multiply(std::size_t n, const double *x, double *y);

      /** sum x[i] y[i] */
      PLASTIX_BACKEND_EXPORT double
      dot(std::size_t n, const double *x, const double *y);

      /** sum |x[i]| */
      PLASTIX_BACKEND_EXPORT double
      l1_norm(std::size_t n, const double *x);

      /** max |x[i]| */
      PLASTIX_BACKEND_EXPORT double
      linfty_norm(std::size_t n, const double *x);

      /** sum x[i] */
      PLASTIX_BACKEND_EXPORT double
      sum(std::size_t n, const double *x);

      /** Number of entries that are not exactly zero. */
      PLASTIX_BACKEND_EXPORT std::size_t
      count_nonzero(std::size_t n, const double *x);

      /** x[i] += a v[i]; returns sum x[i] w[i] with the updated x (one pass). */
      PLASTIX_BACKEND_EXPORT double
      add_and_dot(std::size_t   n,
                  double        a,
                  const double *v,
                  const double *w,
                  double       *x);

      /** x[i] = (x[i] != 0) ? 1/x[i] : 1; the inverse of a diagonal. */
      PLASTIX_BACKEND_EXPORT void
      invert_diagonal(std::size_t n, double *x);

      /** buffer[k] = x[indices[k]] for k < n (packing for MPI). */
      PLASTIX_BACKEND_EXPORT void
      gather(std::size_t n, const LocalIndex *indices, const double *x, double *buffer);

      /** x[indices[k]] += buffer[k] for k < n; repeated indices allowed. */
      PLASTIX_BACKEND_EXPORT void
      scatter_add(std::size_t       n,
                  const LocalIndex *indices,
                  const double     *buffer,
                  double           *x);

      /** x[indices[k]] = value for k < n. */
      PLASTIX_BACKEND_EXPORT void
      set_entries(std::size_t n, const LocalIndex *indices, double value, double *x);

      /** x[indices[k]] = values[k] for k < n. */
      PLASTIX_BACKEND_EXPORT void
      assign_entries(std::size_t       n,
                     const LocalIndex *indices,
                     const double     *values,
                     double           *x);

      /** y[indices[k]] = x[indices[k]] for k < n. */
      PLASTIX_BACKEND_EXPORT void
      copy_entries(std::size_t       n,
                   const LocalIndex *indices,
                   const double     *x,
                   double           *y);

      /**
       * One fused Chebyshev step (the update deal.II's PreconditionChebyshev
       * does for its own vectors), with d = inverse diagonal:
       *   step 0: x = f2 d b
       *   step 1: t = (1+f1) x + f2 d (b - t)      (result in t)
       *   else:   x_old = (1+f1) x - f1 x_old + f2 d (b - t)   (result in x_old)
       */
      PLASTIX_BACKEND_EXPORT void
      chebyshev_update(std::size_t   n,
                       unsigned int  step,
                       double        factor1,
                       double        factor2,
                       const double *rhs,
                       const double *inverse_diagonal,
                       double       *solution,
                       double       *solution_old,
                       double       *temp);
    } // namespace vector_operations
  }   // namespace backend
} // namespace plastix

#endif
