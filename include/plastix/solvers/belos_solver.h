// Trilinos Belos Krylov solvers (CG, GMRES, MINRES) on device-resident
// vectors: a multi-vector of DeviceVectors with the Belos traits, so that the
// iteration never copies a vector to the host.
//
// This header includes no Belos (Trilinos) header: Belos brings Trilinos'
// Kokkos 3.x through Teuchos, which the firewall (doc/design.md, "The Kokkos
// firewall") keeps out of deal.II-side units except through
// source/solvers/belos_solver.cc, the one unit that instantiates the Belos
// templates.
#ifndef PLASTIX_SOLVERS_BELOS_SOLVER_H
#define PLASTIX_SOLVERS_BELOS_SOLVER_H

#include <plastix/core/device_vector.h>
#include <plastix/solvers/solver_types.h>

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace plastix
{
  /**
   * A set of DeviceVectors of one layout, the multi-vector type ("MV") that
   * Belos works on. Columns are held by shared pointers, so a view (a subset
   * of columns, view()) shares the storage of its parent as Belos expects
   * from CloneView*(). The columns are separate device arrays (no constant
   * stride): every Belos kernel runs column by column through DeviceVector's
   * device operations; the block kernels (MvTransMv, MvDot, MvNorm) compute
   * all local dot products first and reduce them over MPI in one call.
   */
  class DeviceMultiVector
  {
  public:
    /** No columns. */
    DeviceMultiVector() = default;

    /** @p n_vectors new zero columns with the layout @p partitioner. */
    DeviceMultiVector(const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &partitioner,
                      unsigned int                                                      n_vectors);

    /** A multi-vector whose columns are the given vectors (shared, no copy). */
    explicit DeviceMultiVector(std::vector<std::shared_ptr<DeviceVector>> columns);

    /**
     * A one-column view of @p vector (no copy, no ownership): @p vector must
     * outlive the view. This is how solve() hands x and b to Belos.
     */
    static DeviceMultiVector
    view_of(DeviceVector &vector);

    /** A view of the columns @p indices (shared storage). */
    DeviceMultiVector
    view(const std::vector<int> &indices) const;

    /** Number of columns. */
    unsigned int
    n_vectors() const;

    /** Column @p i. */
    DeviceVector &
    operator[](unsigned int i) const;

    /** Shared pointer to column @p i. */
    const std::shared_ptr<DeviceVector> &
    column(unsigned int i) const;

    /** The layout of the columns (that of the first column). */
    const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &
    get_partitioner() const;

  private:
    std::vector<std::shared_ptr<DeviceVector>> columns;
  };

  /**
   * A linear operator on DeviceVectors for Belos ("OP"): the system matrix or
   * a preconditioner, applied column by column. Wraps anything with
   * vmult(DeviceVector &, const DeviceVector &).
   */
  class BelosOperator
  {
  public:
    using Function = std::function<void(DeviceVector &dst, const DeviceVector &src)>;

    /** dst = A src through @p apply. */
    explicit BelosOperator(Function apply)
      : apply(std::move(apply))
    {}

    /** dst = A src through @p matrix.vmult(dst, src); @p matrix must outlive this object. */
    template <typename MatrixType>
    static BelosOperator
    from(const MatrixType &matrix)
    {
      return BelosOperator([&matrix](DeviceVector &dst, const DeviceVector &src) { matrix.vmult(dst, src); });
    }

    /** dst = A src. */
    void
    vmult(DeviceVector &dst, const DeviceVector &src) const
    {
      apply(dst, src);
    }

  private:
    Function apply;
  };

  /** Settings of a Belos solve. */
  struct BelosSolverData
  {
    /** Belos::PseudoBlockCGSolMgr, Belos::PseudoBlockGmresSolMgr or Belos::MinresSolMgr. */
    BelosSolverType type = BelosSolverType::cg;
    /** Converged when |b - A x| <= tolerance (absolute, Euclidean). */
    double tolerance = 1e-10;
    /** Iterations before giving up. */
    unsigned int max_iterations = 10000;
    /** Krylov vectors kept by GMRES before a restart. */
    unsigned int gmres_restart = 50;
  };

  /** What a Belos solve did. */
  struct BelosStatistics
  {
    /** Belos reported convergence. */
    bool converged = false;
    unsigned int iterations = 0;
    /** |b - A x0|. */
    double initial_residual = 0;
    /** |b - A x| of the returned x, computed explicitly after the solve. */
    double final_residual = 0;
  };

  /**
   * Solve A x = b with Belos on DeviceVectors, starting from x, to
   * |b - A x| <= data.tolerance. The preconditioner (nullptr: none) must be
   * symmetric positive definite for CG and MINRES; CG and MINRES apply it as
   * Belos' left preconditioner, GMRES as the right one (so that GMRES
   * monitors the true residual). Belos' convergence test is relative to the
   * initial residual, so the absolute tolerance is divided by |b - A x0|.
   * The vectors stay on the device; per iteration only the dot products
   * (one MPI reduction per block operation) reach the host.
   */
  BelosStatistics
  solve_with_belos(const BelosOperator   &A,
                   const BelosOperator   *preconditioner,
                   DeviceVector          &x,
                   const DeviceVector    &b,
                   const BelosSolverData &data);

  /**
   * Run Belos' own conformance checks of the traits
   * (Belos::TestMultiVecTraits, Belos::TestOperatorTraits) on multi-vectors
   * with the layout of @p layout and the operator @p A; messages go to
   * @p out. Returns true if all checks pass. For the tests.
   */
  bool
  check_belos_traits(const DeviceVector &layout, const BelosOperator &A, std::ostream &out);
} // namespace plastix

#endif
