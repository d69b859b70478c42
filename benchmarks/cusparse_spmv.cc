// cuSPARSE generic SpMV on a CSR matrix (baseline for the GPU benchmarks).
#include "cusparse_spmv.h"

#include <cuda_runtime.h>
#include <cusparse.h>

#include <stdexcept>
#include <string>

namespace plastix
{
  namespace backend
  {
    namespace
    {
      void
      check(const cudaError_t status, const char *what)
      {
        if (status != cudaSuccess)
          throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
      }

      void
      check(const cusparseStatus_t status, const char *what)
      {
        if (status != CUSPARSE_STATUS_SUCCESS)
          throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(status));
      }
    } // namespace

    struct CusparseSpmv::Impl
    {
      cusparseHandle_t     handle  = nullptr;
      cusparseSpMatDescr_t matrix  = nullptr;
      int                  n_rows  = 0;
      std::size_t          nnz     = 0;
      std::int32_t        *rows    = nullptr;
      std::int32_t        *columns = nullptr;
      double              *values  = nullptr;
      void                *buffer  = nullptr;
      std::size_t          bytes   = 0;
    };

    CusparseSpmv::CusparseSpmv(const CsrMatrixHost &A)
      : impl(std::make_unique<Impl>())
    {
      Impl &m         = *impl;
      m.n_rows        = A.n_rows;
      m.nnz           = A.n_nonzeros();
      const auto nnz  = m.nnz;
      check(cudaMalloc(&m.rows, sizeof(std::int32_t) * (A.n_rows + 1)), "cudaMalloc");
      check(cudaMalloc(&m.columns, sizeof(std::int32_t) * nnz), "cudaMalloc");
      check(cudaMalloc(&m.values, sizeof(double) * nnz), "cudaMalloc");
      check(cudaMemcpy(m.rows, A.row_offsets.data(), sizeof(std::int32_t) * (A.n_rows + 1), cudaMemcpyHostToDevice), "copy");
      check(cudaMemcpy(m.columns, A.columns.data(), sizeof(std::int32_t) * nnz, cudaMemcpyHostToDevice), "copy");
      check(cudaMemcpy(m.values, A.values.data(), sizeof(double) * nnz, cudaMemcpyHostToDevice), "copy");
      check(cusparseCreate(&m.handle), "cusparseCreate");
      check(cusparseCreateCsr(&m.matrix, A.n_rows, A.n_rows, nnz, m.rows, m.columns, m.values,
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
            "cusparseCreateCsr");
      // Work buffer for the SpMV (the vectors only matter for their sizes here).
      cusparseDnVecDescr_t x, y;
      check(cusparseCreateDnVec(&x, A.n_rows, m.values, CUDA_R_64F), "cusparseCreateDnVec");
      check(cusparseCreateDnVec(&y, A.n_rows, m.values, CUDA_R_64F), "cusparseCreateDnVec");
      const double one = 1., zero = 0.;
      check(cusparseSpMV_bufferSize(m.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m.matrix, x, &zero, y,
                                    CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &m.bytes),
            "cusparseSpMV_bufferSize");
      cusparseDestroyDnVec(x);
      cusparseDestroyDnVec(y);
      if (m.bytes > 0)
        check(cudaMalloc(&m.buffer, m.bytes), "cudaMalloc");
    }

    CusparseSpmv::~CusparseSpmv()
    {
      Impl &m = *impl;
      cusparseDestroySpMat(m.matrix);
      cusparseDestroy(m.handle);
      cudaFree(m.rows);
      cudaFree(m.columns);
      cudaFree(m.values);
      cudaFree(m.buffer);
    }

    void
    CusparseSpmv::vmult(const double *src, double *dst) const
    {
      const Impl          &m = *impl;
      cusparseDnVecDescr_t x, y;
      check(cusparseCreateDnVec(&x, m.n_rows, const_cast<double *>(src), CUDA_R_64F), "cusparseCreateDnVec");
      check(cusparseCreateDnVec(&y, m.n_rows, dst, CUDA_R_64F), "cusparseCreateDnVec");
      const double one = 1., zero = 0.;
      check(cusparseSpMV(m.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m.matrix, x, &zero, y, CUDA_R_64F,
                         CUSPARSE_SPMV_ALG_DEFAULT, m.buffer),
            "cusparseSpMV");
      cusparseDestroyDnVec(x);
      cusparseDestroyDnVec(y);
    }

    std::size_t
    CusparseSpmv::memory_consumption() const
    {
      return sizeof(std::int32_t) * (impl->n_rows + 1) + (sizeof(std::int32_t) + sizeof(double)) * impl->nnz +
             impl->bytes;
    }
  } // namespace backend
} // namespace plastix
