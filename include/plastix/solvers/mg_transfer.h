// Multigrid transfer between the levels of a uniformly refined mesh, applied
// matrix-free on the device, for deal.II's Multigrid / PreconditionMG on
// device vectors of double or single precision.
#ifndef PLASTIX_SOLVERS_MG_TRANSFER_H
#define PLASTIX_SOLVERS_MG_TRANSFER_H

#include <deal.II/base/index_set.h>
#include <deal.II/base/mg_level_object.h>
#include <deal.II/base/partitioner.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/multigrid/mg_base.h>

#include <plastix/core/device_vector.h>

#include <memory>
#include <vector>

namespace plastix
{
  namespace backend
  {
    class Q1Transfer;
  }

  /**
   * The transfer of a geometric multigrid for Q1 vector fields
   * (FESystem(FE_Q(1), 3)) between the levels of a uniformly refined mesh,
   * in the interface of deal.II's MGTransferBase, on device vectors of
   * @p Number (double, or float for a mixed-precision V-cycle inside a
   * double-precision Krylov solver): deal.II's Multigrid and PreconditionMG
   * run the V-cycle, this class moves vectors between levels without leaving
   * the device.
   *
   * Numbering: levels 0 to L-1 use the level DoFs of a DoFHandler with
   * distribute_mg_dofs(); the finest level L uses the active DoFs of the
   * DoFHandler the outer solver works with (all active cells lie on level L),
   * so copy_to_mg() and copy_from_mg() are plain device copies (conversions
   * for float levels) and the finest multigrid level can be the operator of
   * the outer Krylov solver itself.
   *
   * Prolongation from level l-1 to l is the interpolation of the coarse Q1
   * function at the fine vertices (the finite element's embedding matrices,
   * checked at set-up), applied matrix-free cell by cell
   * (backend::Q1Transfer: the 27 fine vertices of each coarse cell, no
   * stored matrix); restriction is its exact transpose, so that the V-cycle
   * is symmetric. Fine DoFs on Dirichlet boundaries and coarse Dirichlet
   * DoFs are left out (zero constraints on every level). Both run as
   * gathers without atomics: the prolongation one thread per fine vertex,
   * interpolating in one coarse cell that holds it, the restriction one
   * thread per coarse vertex, summing its row of P^T. With MPI, the ranks
   * exchange at set-up what their coarse cells give to vertices owned
   * elsewhere (a cell to interpolate in, entries of P^T), so that each
   * rank's rows are complete for its owned vertices: a transfer exchanges
   * the ghost values of its source once and adds to the owned entries of
   * its destination, without partial sums to send to their owners
   * (compress()). Where a level vector's layout lacks ghosts the transfer
   * reads, the transfer copies the source into a vector of its own layout
   * first.
   */
  template <typename Number>
  class MGTransferDevice : public dealii::MGTransferBase<device::Vector<Number>>
  {
  public:
    /** The level vectors. */
    using VectorType = device::Vector<Number>;

    MGTransferDevice();
    ~MGTransferDevice() override;

    /**
     * Build the transfers.
     * @param active_dofs the DoFHandler of the finest level's (active) DoFs
     * @param level_dofs a DoFHandler on the same mesh with level DoFs (may be @p active_dofs)
     * @param layouts the vector layout of each level, coarse to fine (the
     *        finest one: the active DoFs, e.g. the outer operator's partitioner)
     * @param level_boundary the Dirichlet DoFs of each level below the
     *        finest, in level numbering (MGConstrainedDoFs::get_boundary_indices())
     * @param fine_boundary the Dirichlet DoFs of the finest level (active numbering)
     */
    void
    initialize(const dealii::DoFHandler<3>                                                   &active_dofs,
               const dealii::DoFHandler<3>                                                   &level_dofs,
               const std::vector<std::shared_ptr<const dealii::Utilities::MPI::Partitioner>> &layouts,
               const std::vector<dealii::IndexSet>                                           &level_boundary,
               const dealii::IndexSet                                                        &fine_boundary);

    /** dst = P src: from level @p to_level - 1 to @p to_level. */
    void
    prolongate(unsigned int to_level, VectorType &dst, const VectorType &src) const override;

    /** dst += P src. */
    void
    prolongate_and_add(unsigned int to_level, VectorType &dst, const VectorType &src) const override;

    /** dst += R src = P^T src: from level @p from_level to @p from_level - 1. */
    void
    restrict_and_add(unsigned int from_level, VectorType &dst, const VectorType &src) const override;

    /**
     * Multiply what copy_to_mg() takes in by @p factor and what
     * copy_from_mg() and copy_from_mg_add() give back by 1 / @p factor from
     * now on (default 1). The V-cycle is linear, so a power of two changes
     * nothing but the range: a single-precision V-cycle sets it per call so
     * that the residual reaches the levels near magnitude 1, whatever the
     * units (a residual under 1e-38 would otherwise underflow in float).
     * Throws std::invalid_argument unless @p factor is a positive finite
     * power of two (then the inverse is exact).
     */
    void
    set_input_scaling(double factor) const;

    /**
     * Give every level vector of @p dst its layout; the finest gets @p src
     * (converted to Number, times the input scaling), the others zero.
     * (PreconditionMG calls this with its DoFHandler, which is not needed
     * here.)
     */
    template <typename OtherNumber>
    void
    copy_to_mg(const dealii::DoFHandler<3>             &dof_handler,
               dealii::MGLevelObject<VectorType>       &dst,
               const device::Vector<OtherNumber>       &src) const;

    /** dst = the finest level vector of @p src (converted to OtherNumber) / the input scaling. */
    template <typename OtherNumber>
    void
    copy_from_mg(const dealii::DoFHandler<3>             &dof_handler,
                 device::Vector<OtherNumber>             &dst,
                 const dealii::MGLevelObject<VectorType> &src) const;

    /** dst += the finest level vector of @p src / the input scaling. */
    template <typename OtherNumber>
    void
    copy_from_mg_add(const dealii::DoFHandler<3>             &dof_handler,
                     device::Vector<OtherNumber>             &dst,
                     const dealii::MGLevelObject<VectorType> &src) const;

    /** Number of levels. */
    unsigned int
    n_levels() const;

    /** Device memory of the transfer data and work vectors (bytes, this rank). */
    std::size_t
    memory_consumption() const;

  private:
    struct LevelTransfer;

    std::vector<std::shared_ptr<const dealii::Utilities::MPI::Partitioner>> layouts;
    /** Entry l: between levels l - 1 and l (entry 0 unused). */
    std::vector<std::unique_ptr<LevelTransfer>> transfers;
    /** Factor of set_input_scaling(). */
    mutable double input_scaling = 1.;
  };
} // namespace plastix

#endif
