// cuSPARSE SpMV of an assembled CSR matrix: the GPU baseline plastix is
// compared against. Built only into benchmarks of CUDA builds
// (PLASTIX_WITH_CUSPARSE), so the backend library does not depend on cuSPARSE.
#ifndef PLASTIX_BENCHMARKS_CUSPARSE_SPMV_H
#define PLASTIX_BENCHMARKS_CUSPARSE_SPMV_H

#include "csr_matrix.h"

#include <memory>

namespace plastix
{
  namespace backend
  {
    /** y = A x with cusparseSpMV (CSR, double, 32-bit indices) on device pointers. */
    class CusparseSpmv
    {
    public:
      /** Upload @p matrix and prepare cuSPARSE (handle, descriptors, buffer). */
      explicit CusparseSpmv(const CsrMatrixHost &matrix);
      ~CusparseSpmv();

      /** dst = A src (device pointers of n_rows entries). */
      void
      vmult(const double *src, double *dst) const;

      /** Device memory of the matrix and the work buffer (bytes). */
      std::size_t
      memory_consumption() const;

    private:
      struct Impl;
      std::unique_ptr<Impl> impl;
    };
  } // namespace backend
} // namespace plastix

#endif
