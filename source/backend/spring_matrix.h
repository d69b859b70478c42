// The boundary springs of the operator (MeshData::spring_rows): their matrix
// on the device, applied after the cells, shared by the backend translation
// units.
#ifndef PLASTIX_SOURCE_BACKEND_SPRING_MATRIX_H
#define PLASTIX_SOURCE_BACKEND_SPRING_MATRIX_H

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
       * The spring matrix S of a mesh in the two forms the operator needs,
       * and its contribution to the diagonal of C^T A C.
       */
      struct BoundarySpringData
      {
        /** S on every DoF: the products without Dirichlet treatment (apply_unconstrained(), internal force). */
        SparseRows all;
        /** S without the rows and columns of Dirichlet DoFs: the operator's products (apply()). */
        SparseRows free;
        /**
         * The diagonal of C^T S C on the DoFs that are neither Dirichlet
         * nor hanging-node rows (the exact contribution of the springs to
         * compute_diagonal()): DoFs and values.
         */
        DeviceArray<LocalIndex> diagonal_dofs;
        DeviceArray<double>     diagonal_values;
        /** The entries of free on the host (row, column, value), for copy_matrix(). */
        std::vector<LocalIndex> host_rows;
        std::vector<LocalIndex> host_columns;
        std::vector<double>     host_values;

        /** Whether the mesh has springs. */
        bool
        empty() const
        {
          return all.n_rows == 0;
        }
      };

      /** Build the spring data of @p mesh (none if it has no springs). */
      BoundarySpringData
      build_boundary_springs(const MeshData &mesh);

      /** dst += S src (@p masked: without the rows and columns of Dirichlet DoFs). */
      template <typename Number>
      void
      add_boundary_springs(const BoundarySpringData &springs, const Number *src, Number *dst, bool masked);

      /** diagonal += the springs' part of the diagonal of C^T A C. */
      void
      add_boundary_spring_diagonal(const BoundarySpringData &springs, double *diagonal);

      /**
       * Add the springs' entries (without Dirichlet rows and columns) to
       * @p matrix, whose pattern holds every pair of DoFs of a cell; throws
       * std::logic_error if an entry has no place.
       */
      void
      add_boundary_springs(const BoundarySpringData &springs, CsrMatrix &matrix);
    } // namespace internal
  } // namespace backend
} // namespace plastix

#endif
