// Kokkos-free interface of the explicit inverse of a small symmetric positive
// definite matrix, kept in device memory and applied by one dense
// matrix-vector product (the coarse solver CoarseSolverType::dense_inverse).
#ifndef PLASTIX_BACKEND_DENSE_INVERSE_H
#define PLASTIX_BACKEND_DENSE_INVERSE_H

#include <plastix/backend/config.h>
#include <plastix/backend/device_array.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace plastix
{
  namespace backend
  {
    /**
     * Rows [first_row, first_row + n_rows) of the inverse of an n x n
     * symmetric positive definite matrix, in device memory (host memory for
     * host execution spaces), row by row. vmult() multiplies them with a
     * vector of all n entries: a direct solve that costs one pass over
     * n_rows x n numbers and no host round trip.
     *
     * The inverse comes either from factorize_and_invert() (the sparse
     * matrix scattered into a dense one on the device, Cholesky
     * factorisation and inversion there with cuSOLVER; only where
     * can_factorize() says so) or from the caller (set_rows(); on the host
     * deal.II's LAPACKFullMatrix computes it).
     */
    class PLASTIX_BACKEND_EXPORT DenseInverse
    {
    public:
      DenseInverse();
      ~DenseInverse();
      DenseInverse(const DenseInverse &) = delete;
      DenseInverse &
      operator=(const DenseInverse &) = delete;

      /** Whether factorize_and_invert() is available: true for the CUDA backend. */
      static bool
      can_factorize();

      /**
       * Start, on a host thread of its own, what the first factorisation
       * would otherwise wait for: cuSOLVER's handle and the loading of its
       * kernels (a few tenths of a second). The caller goes on with other
       * set-up meanwhile; factorize_and_invert() waits for it. Optional; does
       * nothing where can_factorize() is false.
       */
      void
      prepare();

      /**
       * Factorise (Cholesky) and invert on the device the symmetric n x n
       * matrix given by its @p n_entries nonzero entries (host arrays of row,
       * column and value; every entry of both triangles, each position once),
       * then keep the rows [@p first_row, @p first_row + @p n_rows) of the
       * inverse. Returns 0, or k > 0 if the leading minor of order k is not
       * positive (LAPACK's info): the matrix is not positive definite and
       * nothing is kept.
       */
      int
      factorize_and_invert(std::size_t         n,
                           std::size_t         n_entries,
                           const std::int32_t *entry_rows,
                           const std::int32_t *entry_columns,
                           const double       *entry_values,
                           std::size_t         first_row,
                           std::size_t         n_rows);

      /**
       * Keep the given rows [@p first_row, @p first_row + @p n_rows) of an
       * inverse computed by the caller: @p rows (host memory) holds
       * n_rows x n entries, row by row.
       */
      void
      set_rows(std::size_t n, std::size_t first_row, std::size_t n_rows, const double *rows);

      /** dst[i] = sum_j inverse(first_row + i, j) src[j]; device pointers, src of n and dst of n_rows entries. */
      void
      vmult(double *dst, const double *src) const;

      /** Columns n of the inverse. */
      std::size_t
      n() const
      {
        return n_columns;
      }

      /** Bytes held in device memory. */
      std::size_t
      memory_consumption() const
      {
        return rows.size() * sizeof(double);
      }

    private:
      struct Solver;
      /** cuSOLVER's handle and stream (CUDA backend), created by prepare() or on first use. */
      std::unique_ptr<Solver> solver;
      std::size_t             n_columns = 0;
      DeviceArray<double>     rows;
    };
  } // namespace backend
} // namespace plastix

#endif
