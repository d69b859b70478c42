// Scalable preconditioners for the device operator: matrix-free geometric
// multigrid over the levels of a uniformly refined mesh (device smoothers and
// transfers), and Trilinos ML AMG on the assembled elastic matrix (host; the
// comparison baseline).
#ifndef PLASTIX_DEALII_PRECONDITIONERS_H
#define PLASTIX_DEALII_PRECONDITIONERS_H

#include <deal.II/base/subscriptor.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/trilinos_precondition.h>
#include <deal.II/lac/trilinos_solver.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_vector.h>

#include <plastix/backend/csr_matrix.h>
#include <plastix/dealii/device_vector.h>
#include <plastix/dealii/mechanics_operator.h>
#include <plastix/dealii/parameters.h>

#include <memory>
#include <string>
#include <vector>

namespace plastix
{
  /** Settings of Trilinos ML smoothed-aggregation AMG for elasticity. */
  struct AmgData
  {
    /** ML "aggregation: threshold": drop couplings weaker than this (relative to the diagonal). */
    double aggregation_threshold = 1e-4;
    /** Smoother sweeps per level (ML "smoother: sweeps"; the Chebyshev degree for Chebyshev). */
    unsigned int smoother_sweeps = 2;
    /** ML smoother: "Chebyshev" or "symmetric Gauss-Seidel". */
    std::string smoother_type = "Chebyshev";
    /**
     * Near-null space: the six rigid-body modes from the DoF coordinates
     * (true, the setting for elasticity) or ML's default of three
     * translations per node (false).
     */
    bool rigid_body_modes = true;
  };

  /**
   * Trilinos ML AMG (TrilinosWrappers::PreconditionAMG) of an assembled
   * elastic stiffness matrix on the host. vmult() on DeviceVectors copies the
   * vector to the host and the result back (two transfers of the owned
   * entries per application): a comparison baseline for the matrix-free
   * multigrid, and the optional coarse solver of that multigrid.
   */
  class AmgPreconditioner : public dealii::Subscriptor
  {
  public:
    AmgPreconditioner();
    ~AmgPreconditioner() override;

    /**
     * Assemble the elastic matrix of the active DoFs of @p dof_handler
     * (homogeneous Dirichlet rows and columns of @p dirichlet eliminated, as
     * the device operator does) and set up ML on it.
     */
    void
    initialize(const dealii::DoFHandler<3>           &dof_handler,
               const MaterialTable                   &materials,
               const std::vector<DirichletCondition> &dirichlet,
               const AmgData                         &data);

    /**
     * Set up ML on @p matrix (kept by reference: it must outlive this
     * object). @p coordinates holds x, y, z of the node of each locally
     * owned row (3 values per row), for the rigid-body modes.
     */
    void
    initialize(const dealii::TrilinosWrappers::SparseMatrix &matrix,
               const std::vector<double>                    &coordinates,
               const AmgData                                &data);

    /** dst = AMG(src) on the host vectors. */
    void
    vmult(dealii::TrilinosWrappers::MPI::Vector &dst, const dealii::TrilinosWrappers::MPI::Vector &src) const;

    /** dst = AMG(src): owned entries copied to the host, the result back to the device. */
    void
    vmult(DeviceVector &dst, const DeviceVector &src) const;

    /** The assembled matrix (the own one of the first initialize(), or the one given). */
    const dealii::TrilinosWrappers::SparseMatrix &
    get_matrix() const;

  private:
    dealii::TrilinosWrappers::SparseMatrix          own_matrix;
    const dealii::TrilinosWrappers::SparseMatrix   *matrix = nullptr;
    dealii::TrilinosWrappers::PreconditionAMG       amg;
    std::vector<double>                             null_space;
    mutable dealii::TrilinosWrappers::MPI::Vector   host_src, host_dst;
  };

  /** Settings of the matrix-free geometric multigrid. */
  struct MultigridData
  {
    /** Degree of the Chebyshev-Jacobi smoother (pre and post) on every level above the coarsest. */
    unsigned int smoother_degree = 4;
    /** The smoother targets eigenvalues in [lambda_max / range, lambda_max] of D^-1 A. */
    double smoothing_range = 15.;
    /** CG iterations that estimate lambda_max of each level. */
    unsigned int eigenvalue_iterations = 12;
    /** Coarse level (level 0) solver on the host: "direct" (Amesos KLU) or "amg" (ML, one V-cycle). */
    std::string coarse_solver = "direct";
    /** ML settings of coarse_solver = "amg". */
    AmgData coarse_amg;
    /** Operator choices of the device operators of the coarser levels. */
    MechanicsOperator::AdditionalData level_operator;
  };

  /**
   * One V-cycle of geometric multigrid over the levels of a uniformly
   * refined mesh, as a preconditioner for the device operator of the finest
   * level:
   * - finest level: the given MechanicsOperator itself (active DoFs; the
   *   consistent tangent in plasticity); coarser levels: MechanicsOperators
   *   on the level cells and level DoFs (MechanicsOperator::reinit_level),
   *   elastic;
   * - smoother: deal.II's PreconditionChebyshev around the inverse
   *   matrix-free diagonal, on DeviceVectors (plastix's fused
   *   vector_updates), pre and post, so the V-cycle is symmetric;
   * - transfers: prolongation as a CSR matrix (backend::DeviceCsrMatrix)
   *   built on the host from the FE's embedding matrices, restriction as its
   *   transpose (a second CSR matrix), both applied on the device; with MPI
   *   each rank applies the rows of the children of its own coarse cells,
   *   weighted by 1/(number of ranks that compute a row), and compress(add)
   *   sums them at the owners;
   * - coarse level 0: matrix assembled on the host (FEValues, the same
   *   bilinear form) and solved by Amesos KLU or ML AMG (one host round trip
   *   of the level-0 vector per V-cycle).
   *
   * The triangulation must hold the multigrid hierarchy (a
   * parallel::distributed::Triangulation built with
   * construct_multigrid_hierarchy) and have all active cells on its finest
   * level, with at least two levels. Dirichlet boundaries (by boundary id and
   * component) become zero constraints on every level.
   */
  class MultigridPreconditioner : public dealii::Subscriptor
  {
  public:
    MultigridPreconditioner();
    ~MultigridPreconditioner() override;

    /**
     * Build the hierarchy for @p fine_operator, an operator on the active
     * DoFs of @p dof_handler, which must outlive this object.
     */
    void
    initialize(const MechanicsOperator               &fine_operator,
               const dealii::DoFHandler<3>           &dof_handler,
               const MaterialTable                   &materials,
               const std::vector<DirichletCondition> &dirichlet,
               const MultigridData                   &data);

    /**
     * The finest operator changed (new tangent): recompute the finest
     * smoother's diagonal and eigenvalue estimate. The coarser levels stay
     * elastic.
     */
    void
    update_fine_level();

    /** dst = V-cycle(src). */
    void
    vmult(DeviceVector &dst, const DeviceVector &src) const;

    /** Number of levels (coarse level 0 to the finest). */
    unsigned int
    n_levels() const;

    /** Global DoFs of each level, coarse to fine. */
    std::vector<dealii::types::global_dof_index>
    n_dofs_per_level() const;

    /** One line: levels, DoFs, smoother, coarse solver. */
    std::string
    description() const;

  private:
    struct Level;

    /** x = V-cycle on level @p level for right-hand side b. */
    void
    v_cycle(unsigned int level, DeviceVector &x, const DeviceVector &b) const;

    /** Build the transfer between level - 1 and level. */
    void
    setup_transfer(unsigned int level, const dealii::DoFHandler<3> &active_dofs, const dealii::IndexSet &fine_boundary);

    /** Assemble the level-0 matrix and set up the coarse solver. */
    void
    setup_coarse_solver();

    /** Set up the smoother of @p level (diagonal, eigenvalue estimate). */
    void
    setup_smoother(unsigned int level);

    MultigridData                                 data;
    const MaterialTable                          *materials = nullptr;
    std::unique_ptr<dealii::DoFHandler<3>>        own_level_dofs;
    const dealii::DoFHandler<3>                  *level_dofs = nullptr;
    std::vector<dealii::IndexSet>                 level_boundary;
    std::vector<std::unique_ptr<Level>>           levels;
    dealii::TrilinosWrappers::SparseMatrix        coarse_matrix;
    std::vector<double>                           coarse_coordinates;
    std::unique_ptr<dealii::SolverControl>        coarse_control;
    std::unique_ptr<dealii::TrilinosWrappers::SolverDirect> coarse_direct;
    std::unique_ptr<AmgPreconditioner>            coarse_amg;
    mutable dealii::TrilinosWrappers::MPI::Vector coarse_src, coarse_dst;
  };
} // namespace plastix

#endif
