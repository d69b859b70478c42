// The assembled sparse (CSR) stiffness matrix of the same operator, as the
// baseline a user would otherwise run: host assembly from the backend's
// element matrices and a device SpMV. For benchmarks and tests.
#ifndef PLASTIX_BENCHMARKS_CSR_MATRIX_H
#define PLASTIX_BENCHMARKS_CSR_MATRIX_H

#include <plastix/backend/config.h>
#include <plastix/backend/device_array.h>
#include <plastix/backend/mesh_data.h>

#include <cstdint>
#include <vector>

namespace plastix
{
  namespace backend
  {
    /** A CSR matrix on the host (32-bit indices). */
    struct CsrMatrixHost
    {
      LocalIndex                n_rows = 0;
      std::vector<std::int32_t> row_offsets;
      std::vector<std::int32_t> columns;
      std::vector<double>       values;

      /** Number of stored entries. */
      std::size_t
      n_nonzeros() const
      {
        return values.size();
      }
    };

    /**
     * Assemble the elastic stiffness matrix of @p mesh (Q1, 2x2x2 Gauss
     * points) over its local DoFs; constrained DoFs get zero rows and
     * columns and a unit diagonal, as DeviceOperator::apply() treats
     * them. Throws std::runtime_error if the matrix has 2^31 or more entries.
     */
    PLASTIX_BACKEND_EXPORT CsrMatrixHost
    assemble_csr_matrix(const MeshData &mesh);

    /** A CSR matrix in device memory with a portable (Kokkos) SpMV, one thread per row. */
    class PLASTIX_BACKEND_EXPORT DeviceCsrMatrix
    {
    public:
      explicit DeviceCsrMatrix(const CsrMatrixHost &matrix);

      /** dst = A src (device pointers). */
      void
      vmult(const double *src, double *dst) const;

      /** Device memory of the matrix (bytes). */
      std::size_t
      memory_consumption() const;

      /** Entries. */
      std::size_t
      n_nonzeros() const;

    private:
      LocalIndex                n_rows = 0;
      DeviceArray<std::int32_t> row_offsets;
      DeviceArray<std::int32_t> columns;
      DeviceArray<double>       values;
    };
  } // namespace backend
} // namespace plastix

#endif
