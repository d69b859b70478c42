// Adaptive refinement between load steps: the refinement indicators, the
// marking of cells, and the transfer of the displacement and the Gauss-point
// history of J2 plasticity to the adapted mesh.
#ifndef PLASTIX_APP_ADAPTIVE_REFINEMENT_H
#define PLASTIX_APP_ADAPTIVE_REFINEMENT_H

#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/vector.h>

#include "parameters.h"

#include <functional>
#include <memory>
#include <vector>

namespace plastix
{
  class Discretization;

  /**
   * The indicator @p indicator for the active cells of @p dof_handler
   * (entries of the locally owned cells, by active_cell_index; zero
   * elsewhere):
   * - kelly: deal.II's KellyErrorEstimator on @p displacement (ghosted),
   *   all three components;
   * - plastic_strain_increment: the cell average over the Gauss points of
   *   the equivalent plastic strain of @p history minus that of
   *   @p history_before, times the cell diameter (the largest cells of the
   *   zone that yields go first; a uniformly refined plastic zone keeps being
   *   refined only up to the level limit).
   * The histories are laid out as PlasticityState::committed_history().
   */
  dealii::Vector<float>
  refinement_indicator(const dealii::DoFHandler<3>                              &dof_handler,
                       RefinementIndicator                                       indicator,
                       const dealii::LinearAlgebra::distributed::Vector<double> &displacement,
                       const std::vector<double>                                &history_before,
                       const std::vector<double>                                &history);

  /**
   * Set refinement and coarsening flags on the locally owned cells of
   * @p triangulation from @p indicator: deal.II's fixed-number strategy
   * (parallel::distributed::GridRefinement) with the fractions of
   * @p parameters, no refinement at or beyond the maximum level nor where the
   * indicator is zero, no coarsening of cells at or below @p minimum_level
   * (the uniform refinements of the initial mesh stay: the fixed-number
   * strategy would otherwise coarsen every cell of a zero indicator, e.g. all
   * of an elastic load step); then prepare_coarsening_and_refinement().
   * Returns the numbers of cells flagged for refinement and for coarsening
   * (all ranks).
   */
  std::pair<unsigned long long, unsigned long long>
  mark_cells(dealii::parallel::distributed::Triangulation<3> &triangulation,
             const dealii::Vector<float>                     &indicator,
             const AdaptiveRefinementParameters              &parameters,
             unsigned int                                     minimum_level = 0);

  /**
   * Carries the displacement and the Gauss-point history across one
   * refinement and coarsening of a p4est mesh (also across the
   * repartitioning that comes with it):
   * - the displacement with deal.II's SolutionTransfer (interpolation);
   * - the history (PlasticityState::committed_history() layout, 13 fields x 8
   *   Gauss points per cell) with deal.II's CellDataTransfer: each child of
   *   a refined cell takes, at all its Gauss points, the state of its
   *   parent's Gauss point in the same octant of the reference cell (the
   *   nearest one to each of them), so that no state is invented by
   *   interpolation and the yield condition of every transferred state held
   *   where it was computed; a coarsened parent takes at each Gauss point the
   *   volume (JxW) average of the child in whose octant it lies.
   * Use: flag cells, prepare(), execute_coarsening_and_refinement(),
   * distribute the DoFs, interpolate().
   */
  class StateTransfer
  {
  public:
    StateTransfer(dealii::parallel::distributed::Triangulation<3> &triangulation,
                  const dealii::DoFHandler<3>                     &dof_handler);

    ~StateTransfer();

    /**
     * After the flags are set (and prepare_coarsening_and_refinement()):
     * attach @p displacement (ghosted, on the current DoFs) and @p history
     * (locally owned cells in active-cell order).
     */
    void
    prepare(const dealii::LinearAlgebra::distributed::Vector<double> &displacement,
            const std::vector<double>                                &history);

    /**
     * After execute_coarsening_and_refinement() and distribute_dofs():
     * @p displacement (initialized on the new DoFs, ghosts allowed) receives
     * the interpolated displacement (ghosts not updated), @p history the
     * history of the new locally owned cells in active-cell order.
     */
    void
    interpolate(dealii::LinearAlgebra::distributed::Vector<double> &displacement, std::vector<double> &history);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl;
  };

  /** What one adaptation did. */
  struct AdaptationStatistics
  {
    /** Cells flagged for refinement and coarsening (all ranks). */
    unsigned long long n_refined = 0, n_coarsened = 0;
    /** Active cells and DoFs before and after. */
    unsigned long long cells_before = 0, cells_after = 0, dofs_before = 0, dofs_after = 0;

    /** True if the mesh changed. */
    bool
    changed() const
    {
      return n_refined + n_coarsened > 0;
    }
  };

  /**
   * Adapt the mesh of @p d (a p4est mesh) as 'Mesh/Adaptive refinement'
   * asks, from the converged state @p displacement (ghosted), @p history
   * and the history at the start of the step @p history_before. If cells are
   * flagged, @p release is called (the objects built on the old operator must
   * go: the operator is rebuilt), the mesh changes, @p d is set up again
   * (DoFs, hanging-node and Dirichlet constraints, materials, operator,
   * external force), and @p displacement and @p history are replaced by
   * their transfer to the new mesh (@p displacement on the new operator's
   * partitioner). Otherwise nothing changes.
   */
  AdaptationStatistics
  adapt_mesh(Discretization                                     &d,
             dealii::LinearAlgebra::distributed::Vector<double> &displacement,
             std::vector<double>                                &history,
             const std::vector<double>                          &history_before,
             const std::function<void()>                        &release);
} // namespace plastix

#endif
