// The explicit inverse of a small SPD matrix on the device: cuSOLVER's
// Cholesky factorisation and inversion (CUDA backend), and the dense
// matrix-vector product that applies it.
#include <plastix/backend/dense_inverse.h>

#include "kokkos_common.h"

#if defined(KOKKOS_ENABLE_CUDA)
#  include <cusolverDn.h>
#endif

#include <algorithm>
#include <future>
#include <stdexcept>
#include <string>
#include <vector>

namespace plastix
{
  namespace backend
  {
    using internal::ExecutionSpace;
    using internal::Index64;

    bool
    DenseInverse::can_factorize()
    {
#if defined(KOKKOS_ENABLE_CUDA)
      return true;
#else
      return false;
#endif
    }


#if defined(KOKKOS_ENABLE_CUDA)
    namespace
    {
      /** Throw DeviceError naming the cuSOLVER call unless it succeeded. */
      void
      check(const cusolverStatus_t status, const char *call)
      {
        if (status != CUSOLVER_STATUS_SUCCESS)
          throw DeviceError(std::string("plastix: cuSOLVER ") + call + " failed (status " +
                            std::to_string(static_cast<int>(status)) + ")");
      }

      /** Throw DeviceError naming the CUDA call unless it succeeded. */
      void
      check(const cudaError_t status, const char *call)
      {
        if (status != cudaSuccess)
          throw DeviceError(std::string("plastix: ") + call + " failed (" + cudaGetErrorString(status) + ")");
      }

      /** Device memory of the warm-up, released on every way out. */
      struct RawDeviceMemory
      {
        explicit RawDeviceMemory(const std::size_t bytes)
        {
          check(cudaMalloc(&pointer, bytes), "cudaMalloc");
        }
        ~RawDeviceMemory()
        {
          cudaFree(pointer);
        }
        void *pointer = nullptr;
      };

      /**
       * Cholesky factorisation and inversion of the lower triangle of the
       * n x n matrix @p a (device, column by column) on the handle's stream;
       * returns LAPACK's info.
       */
      int
      invert_on_device(cusolverDnHandle_t handle, cudaStream_t stream, const int n, double *a)
      {
        int factor_work = 0, inverse_work = 0;
        check(cusolverDnDpotrf_bufferSize(handle, CUBLAS_FILL_MODE_LOWER, n, a, n, &factor_work), "potrf_bufferSize");
        check(cusolverDnDpotri_bufferSize(handle, CUBLAS_FILL_MODE_LOWER, n, a, n, &inverse_work), "potri_bufferSize");
        // One allocation: the larger workspace, then LAPACK's info.
        const int       work_size = std::max({factor_work, inverse_work, 1});
        RawDeviceMemory work(sizeof(double) * work_size + sizeof(int));
        double *const   workspace = static_cast<double *>(work.pointer);
        int *const      info      = reinterpret_cast<int *>(workspace + work_size);
        int             status    = 0;
        check(cusolverDnDpotrf(handle, CUBLAS_FILL_MODE_LOWER, n, a, n, workspace, factor_work, info), "potrf");
        check(cudaMemcpyAsync(&status, info, sizeof(int), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        if (status != 0)
          return status;
        check(cusolverDnDpotri(handle, CUBLAS_FILL_MODE_LOWER, n, a, n, workspace, inverse_work, info), "potri");
        check(cudaMemcpyAsync(&status, info, sizeof(int), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        return status;
      }
    } // namespace

    /**
     * cuSOLVER's handle on a stream of its own. Creating it and loading the
     * kernels of the factorisation (the first call of each) take a few tenths
     * of a second, so prepare() does it on a host thread of its own while the
     * caller goes on.
     */
    struct DenseInverse::Solver
    {
      Solver()
      {
        int device = 0;
        check(cudaGetDevice(&device), "cudaGetDevice");
        ready = std::async(std::launch::async, [this, device]() {
          check(cudaSetDevice(device), "cudaSetDevice");
          check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
          check(cusolverDnCreate(&handle), "cusolverDnCreate");
          check(cusolverDnSetStream(handle, stream), "cusolverDnSetStream");
          // Warm-up: factorise and invert a small identity matrix.
          constexpr int       n = 256;
          std::vector<double> identity(n * n, 0.);
          for (int i = 0; i < n; ++i)
            identity[i * n + i] = 1.;
          RawDeviceMemory matrix(identity.size() * sizeof(double));
          check(cudaMemcpy(matrix.pointer, identity.data(), identity.size() * sizeof(double), cudaMemcpyHostToDevice),
                "cudaMemcpy");
          invert_on_device(handle, stream, n, static_cast<double *>(matrix.pointer));
        });
      }

      ~Solver()
      {
        if (ready.valid())
          ready.wait();
        if (handle != nullptr)
          cusolverDnDestroy(handle);
        if (stream != nullptr)
          cudaStreamDestroy(stream);
      }

      /** Wait for the set-up; rethrows its error. */
      void
      wait()
      {
        if (ready.valid())
          ready.get();
      }

      std::future<void>  ready;
      cusolverDnHandle_t handle = nullptr;
      cudaStream_t       stream = nullptr;
    };
#else
    struct DenseInverse::Solver
    {};
#endif


    DenseInverse::DenseInverse() = default;

    DenseInverse::~DenseInverse() = default;


    void
    DenseInverse::prepare()
    {
#if defined(KOKKOS_ENABLE_CUDA)
      if (!solver)
        solver = std::make_unique<Solver>();
#endif
    }


    int
    DenseInverse::factorize_and_invert(const std::size_t   n,
                                       const std::size_t   n_entries,
                                       const std::int32_t *entry_rows,
                                       const std::int32_t *entry_columns,
                                       const double       *entry_values,
                                       const std::size_t   first_row,
                                       const std::size_t   n_rows)
    {
#if defined(KOKKOS_ENABLE_CUDA)
      if (first_row + n_rows > n)
        throw std::invalid_argument("plastix::backend::DenseInverse: rows outside the matrix");
      prepare();

      // The sparse entries scattered into the dense matrix, on the device.
      DeviceArray<double> matrix(n * n, "dense coarse matrix");
      matrix.set_zero();
      DeviceArray<std::int32_t> entry_row(n_entries, "dense coarse matrix entries"),
        entry_column(n_entries, "dense coarse matrix entries");
      DeviceArray<double> entry_value(n_entries, "dense coarse matrix entries");
      if (n_entries > 0)
        {
          copy_to_device(entry_row.data(), entry_rows, n_entries * sizeof(std::int32_t));
          copy_to_device(entry_column.data(), entry_columns, n_entries * sizeof(std::int32_t));
          copy_to_device(entry_value.data(), entry_values, n_entries * sizeof(double));
        }
      {
        double             *dense   = matrix.data();
        const std::int32_t *row     = entry_row.data();
        const std::int32_t *column  = entry_column.data();
        const double       *value   = entry_value.data();
        const Index64       columns = n;
        internal::for_range("plastix::dense_inverse_scatter", static_cast<Index64>(n_entries),
                            KOKKOS_LAMBDA(const Index64 k) { dense[column[k] * columns + row[k]] = value[k]; });
      }
      Kokkos::fence();

      solver->wait();
      const int status = invert_on_device(solver->handle, solver->stream, static_cast<int>(n), matrix.data());
      if (status != 0)
        return status;

      // The inverse is in the lower triangle (column by column): entry (r, c)
      // with r >= c at c * n + r. Keep the wanted rows, both triangles.
      n_columns = n;
      rows.resize(n_rows * n, "dense coarse inverse");
      double       *kept    = rows.data();
      const double *inverse = matrix.data();
      const Index64 columns = n, first = first_row;
      internal::for_range("plastix::dense_inverse_rows", static_cast<Index64>(n_rows * n),
                          KOKKOS_LAMBDA(const Index64 k) {
                            const Index64 r = first + k / columns, c = k % columns;
                            kept[k]         = r >= c ? inverse[c * columns + r] : inverse[r * columns + c];
                          });
      Kokkos::fence();
      return 0;
#else
      (void)n;
      (void)n_entries;
      (void)entry_rows;
      (void)entry_columns;
      (void)entry_values;
      (void)first_row;
      (void)n_rows;
      throw std::logic_error("plastix::backend::DenseInverse: this backend does not factorise (can_factorize() is "
                             "false); compute the inverse on the host and pass it to set_rows()");
#endif
    }


    void
    DenseInverse::set_rows(const std::size_t n, const std::size_t first_row, const std::size_t n_rows, const double *host_rows)
    {
      if (first_row + n_rows > n)
        throw std::invalid_argument("plastix::backend::DenseInverse: rows outside the matrix");
      n_columns = n;
      rows.resize(n_rows * n, "dense coarse inverse");
      if (n_rows * n > 0)
        copy_to_device(rows.data(), host_rows, n_rows * n * sizeof(double));
    }


    void
    DenseInverse::vmult(double *dst, const double *src) const
    {
      const Index64 columns = n_columns;
      const Index64 n_rows  = columns > 0 ? rows.size() / columns : 0;
      if (n_rows == 0)
        return;
      const double *matrix = rows.data();
      using Policy         = internal::TeamPolicy;
      using Member         = Policy::member_type;
      // One team per row; its threads sum the row's products.
      Kokkos::parallel_for(
        "plastix::dense_inverse_vmult", Policy(n_rows, Kokkos::AUTO), KOKKOS_LAMBDA(const Member &team) {
          const Index64 row = team.league_rank();
          const double *a   = matrix + row * columns;
          double        sum = 0;
          Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, columns),
            [&](const Index64 j, double &partial) { partial += a[j] * src[j]; }, sum);
          Kokkos::single(Kokkos::PerTeam(team), [&]() { dst[row] = sum; });
        });
    }
  } // namespace backend
} // namespace plastix
