// Scalable preconditioners for the device operator: matrix-free geometric
// multigrid over the levels of a uniformly refined mesh (device smoothers and
// transfers), and Trilinos ML AMG on the assembled elastic matrix (host; the
// comparison baseline).
#ifndef PLASTIX_SOLVERS_PRECONDITIONERS_H
#define PLASTIX_SOLVERS_PRECONDITIONERS_H

#include <deal.II/base/subscriptor.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/trilinos_precondition.h>
#include <deal.II/lac/trilinos_solver.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_vector.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/solvers/preconditioner_data.h>
#include <plastix/solvers/solver_types.h>

#include <memory>
#include <string>
#include <vector>

namespace plastix
{
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
     * Assemble the elastic matrix of the active DoFs of @p dof_handler with
     * the choices of @p op (element formulation, stiffness factor, springs)
     * and its constraints (MechanicsOperator::add_homogeneous_constraints():
     * rows and columns of prescribed DoFs eliminated, hanging-node and
     * normal-support lines condensed), as the device operator does, and set
     * up ML on it.
     */
    void
    initialize(const MechanicsOperator     &op,
               const dealii::DoFHandler<3> &dof_handler,
               const MaterialTable         &materials,
               const AmgData               &data);

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

  /**
   * Whether every active cell of @p triangulation lies on its finest level
   * (a uniformly refined mesh), the mesh MultigridPreconditioner needs.
   * Collective on the triangulation's communicator.
   */
  bool
  all_active_cells_on_finest_level(const dealii::Triangulation<3> &triangulation);

  /**
   * Geometric multigrid over the levels of a uniformly refined mesh as a
   * preconditioner for the device operator of the finest level, on deal.II's
   * multigrid framework (Multigrid and PreconditionMG, one V-cycle per
   * application, as in step-37) with everything on the device:
   * - level operators: the given MechanicsOperator on the finest level
   *   (active DoFs; the consistent tangent in plasticity), elastic
   *   MechanicsOperators on the level cells and level DoFs of the coarser
   *   levels (MechanicsOperator::reinit_level), through mg::Matrix;
   * - smoothers: deal.II's PreconditionChebyshev around the inverse
   *   matrix-free diagonal (MGSmootherRelaxation), pre and post, so the
   *   V-cycle is symmetric;
   * - transfers: MGTransferDevice (prolongation from the Q1 embedding and
   *   its exact transpose, matrix-free: one thread per fine node and per
   *   coarse node, no atomics);
   * - precision (MultigridData::level_precision): double, or a V-cycle in
   *   single precision (levels, smoothers, transfers) whose input and output
   *   are converted at the finest level; the coarse solver always works in
   *   double precision (the level-0 vectors are converted);
   * - coarse level 0 (CoarseSolverType): on the device a Chebyshev
   *   polynomial, CG, or the explicit inverse of the assembled level-0
   *   matrix (one dense matrix-vector product), or on the host (one round
   *   trip of the level-0 vector per V-cycle) KLU or ML AMG of that matrix.
   *
   * Everything is built once by initialize(); a new tangent only refreshes
   * the finest smoother (update_fine_level()).
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
               const DirichletBoundaries             &dirichlet,
               const MultigridData                   &data);

    /**
     * The finest operator changed (new tangent): recompute the finest
     * smoother's diagonal and eigenvalue estimate. The coarser levels stay
     * elastic. Where CoarseSolverType::automatic chose cg, it is replaced by
     * the dense inverse here once its solves have taken the dense inverse's
     * estimated set-up (MultigridData::coarse_solver). Collective.
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

    /** The coarse solver in use (what CoarseSolverType::automatic chose, and maybe switched to). */
    CoarseSolverType
    coarse_solver() const;

    /**
     * Whether CoarseSolverType::automatic's cg was replaced by the dense
     * inverse in update_fine_level() (see MultigridData::coarse_solver).
     */
    bool
    coarse_solver_switched() const;

    /** The number type of the V-cycle. */
    LevelPrecision
    level_precision() const;

    /** One line: levels, DoFs, smoother, coarse solver, set-up times. */
    std::string
    description() const;

  private:
    struct Implementation;
    std::unique_ptr<Implementation> implementation;
  };
} // namespace plastix

#endif
