// Sparse terms of the operator that are not integrated by the cell kernels:
// the boundary springs (MeshData::spring_rows) and the mass matrix
// (MeshData::mass_rows). Their matrices on the device, applied after the
// cells, shared by the backend translation units.
#ifndef PLASTIX_SOURCE_BACKEND_SPARSE_TERMS_H
#define PLASTIX_SOURCE_BACKEND_SPARSE_TERMS_H

#include <plastix/backend/device_array.h>
#include <plastix/backend/device_operator.h>
#include <plastix/backend/mesh_data.h>

#include <cstddef>
#include <vector>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /**
       * A sparse matrix over the rows that have entries: row rows[r] holds
       * columns[k], values[k] for k in [offsets[r], offsets[r + 1]).
       */
      struct SparseRows
      {
        DeviceArray<LocalIndex> rows;
        DeviceArray<LocalIndex> offsets;
        DeviceArray<LocalIndex> columns;
        DeviceArray<double>     values;
        std::size_t             n_rows = 0;
      };

      /**
       * A sparse matrix S of local DoFs (the springs, the mass matrix) in the
       * two forms the operator needs, and its contribution to the diagonal
       * of C^T A C.
       */
      struct SparseTerm
      {
        /** S on every DoF: the products without Dirichlet treatment (apply_unconstrained(), internal force). */
        SparseRows all;
        /** S without the rows and columns of Dirichlet DoFs: the operator's products (apply()). */
        SparseRows free;
        /**
         * The diagonal of C^T S C on the DoFs that are neither Dirichlet
         * nor hanging-node rows (the exact contribution of S to
         * compute_diagonal()): DoFs and values.
         */
        DeviceArray<LocalIndex> diagonal_dofs;
        DeviceArray<double>     diagonal_values;
        /** The entries of free on the host (row, column, value), for copy_matrix(). */
        std::vector<LocalIndex> host_rows;
        std::vector<LocalIndex> host_columns;
        std::vector<double>     host_values;

        /** Whether S has no entries. */
        bool
        empty() const
        {
          return all.n_rows == 0;
        }
      };

      /**
       * Build the term of the entries (@p rows[k], @p columns[k], @p values[k])
       * of local DoFs of @p mesh, sorted by row, then column, without
       * duplicates (std::invalid_argument otherwise, naming @p what).
       */
      SparseTerm
      build_sparse_term(const MeshData                &mesh,
                        const std::vector<LocalIndex> &rows,
                        const std::vector<LocalIndex> &columns,
                        const std::vector<double>     &values,
                        const char                    *what);

      /** dst += scale S src (@p masked: without the rows and columns of Dirichlet DoFs). */
      template <typename Number>
      void
      add_sparse_term(const SparseTerm &term, const Number *src, Number *dst, bool masked, double scale = 1.);

      /** diagonal += scale times the term's part of the diagonal of C^T A C. */
      void
      add_sparse_term_diagonal(const SparseTerm &term, double *diagonal, double scale = 1.);

      /**
       * Add scale times the term's entries (without Dirichlet rows and
       * columns) to @p matrix, whose pattern holds every pair of DoFs of a
       * cell; throws std::logic_error if an entry has no place.
       */
      void
      add_sparse_term(const SparseTerm &term, CsrMatrix &matrix, double scale = 1.);
    } // namespace internal
  } // namespace backend
} // namespace plastix

#endif
