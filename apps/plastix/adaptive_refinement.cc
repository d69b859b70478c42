// Adaptive refinement between load steps (adaptive_refinement.h).
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/cell_data_transfer.templates.h>
#include <deal.II/distributed/grid_refinement.h>
#include <deal.II/distributed/solution_transfer.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/numerics/error_estimator.h>

#include <plastix/backend/gauss_point_state.h>

#include "adaptive_refinement.h"
#include "discretization.h"

#include <array>

namespace plastix
{
  namespace
  {
    /** Gauss points per cell and history fields per Gauss point (backend::GaussPointState). */
    constexpr unsigned int n_points = 8, n_fields = 13;
    constexpr unsigned int values_per_cell = n_fields * n_points;
    static_assert(values_per_cell == backend::GaussPointState::history_values_per_cell,
                  "the history layout of the backend changed");
    /** Field of the equivalent plastic strain. */
    constexpr unsigned int equivalent_plastic_strain_field = 6;

    /** The history of one cell, value field * 8 + q. */
    using CellState = std::array<double, values_per_cell>;
    /** One CellState per active cell (deal.II's CellDataTransfer carries fixed-size values as they are). */
    using CellStates = std::vector<CellState>;

    /**
     * Child c of an isotropically refined hexahedron covers the octant of
     * the parent's reference cell with the bits (x, y, z) of c (deal.II's
     * child numbering), and Gauss point q of the 2x2x2 rule lies in the
     * octant with the bits of q (lexicographic, x fastest; the backend's
     * order): each Gauss point of child c is nearest to the parent's point c.
     */
    std::vector<CellState>
    refine_state(const dealii::Triangulation<3>::cell_iterator &parent, const CellState parent_state)
    {
      std::vector<CellState> children(parent->n_children());
      for (unsigned int c = 0; c < children.size(); ++c)
        for (unsigned int field = 0; field < n_fields; ++field)
          for (unsigned int q = 0; q < n_points; ++q)
            children[c][field * n_points + q] = parent_state[field * n_points + c];
      return children;
    }

    /** Parent point q: the JxW average over the child in the octant of q. */
    CellState
    coarsen_state(const dealii::Triangulation<3>::cell_iterator &parent, const std::vector<CellState> &children)
    {
      static const dealii::FE_Q<3> fe(1);
      dealii::FEValues<3>          fe_values(dealii::StaticMappingQ1<3>::mapping, fe, dealii::QGauss<3>(2),
                                    dealii::update_JxW_values);
      CellState                    result{};
      for (unsigned int c = 0; c < children.size(); ++c)
        {
          fe_values.reinit(parent->child(c));
          double volume = 0;
          for (unsigned int q = 0; q < n_points; ++q)
            volume += fe_values.JxW(q);
          for (unsigned int field = 0; field < n_fields; ++field)
            {
              double sum = 0;
              for (unsigned int q = 0; q < n_points; ++q)
                sum += fe_values.JxW(q) * children[c][field * n_points + q];
              result[field * n_points + c] = sum / volume;
            }
        }
      return result;
    }
  } // namespace

  dealii::Vector<float>
  refinement_indicator(const dealii::DoFHandler<3>                              &dof_handler,
                       const RefinementIndicator                                 indicator,
                       const dealii::LinearAlgebra::distributed::Vector<double> &displacement,
                       const std::vector<double>                                &history_before,
                       const std::vector<double>                                &history)
  {
    const auto           &triangulation = dof_handler.get_triangulation();
    dealii::Vector<float> result(triangulation.n_active_cells());
    if (indicator == RefinementIndicator::kelly)
      dealii::KellyErrorEstimator<3>::estimate(dof_handler, dealii::QGauss<2>(2), {}, displacement, result);
    else if (indicator == RefinementIndicator::plastic_strain_increment)
      {
        std::size_t n_owned = 0;
        for (const auto &cell : triangulation.active_cell_iterators())
          n_owned += cell->is_locally_owned() ? 1 : 0;
        AssertThrow(history.size() == history_before.size() && history.size() == values_per_cell * n_owned,
                    dealii::ExcMessage("refinement_indicator: the histories do not fit the mesh"));
        std::size_t k = 0;
        for (const auto &cell : triangulation.active_cell_iterators())
          if (cell->is_locally_owned())
            {
              double increment = 0;
              for (unsigned int q = 0; q < n_points; ++q)
                {
                  const std::size_t i = k * values_per_cell + equivalent_plastic_strain_field * n_points + q;
                  increment += history[i] - history_before[i];
                }
              result[cell->active_cell_index()] = static_cast<float>(increment / n_points * cell->diameter());
              ++k;
            }
      }
    return result;
  }

  std::pair<unsigned long long, unsigned long long>
  mark_cells(dealii::parallel::distributed::Triangulation<3> &triangulation,
             const dealii::Vector<float>                     &indicator,
             const AdaptiveRefinementParameters              &parameters,
             const unsigned int                               minimum_level)
  {
    dealii::parallel::distributed::GridRefinement::refine_and_coarsen_fixed_number(
      triangulation, indicator, parameters.refine_fraction, parameters.coarsen_fraction);
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          if (cell->refine_flag_set() && (cell->level() >= static_cast<int>(parameters.maximum_level) ||
                                          !(indicator[cell->active_cell_index()] > 0)))
            cell->clear_refine_flag();
          if (cell->coarsen_flag_set() && cell->level() <= static_cast<int>(minimum_level))
            cell->clear_coarsen_flag();
        }
    triangulation.prepare_coarsening_and_refinement();
    unsigned long long n_refine = 0, n_coarsen = 0;
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          n_refine += cell->refine_flag_set() ? 1 : 0;
          n_coarsen += cell->coarsen_flag_set() ? 1 : 0;
        }
    const MPI_Comm communicator = triangulation.get_communicator();
    return {dealii::Utilities::MPI::sum(n_refine, communicator), dealii::Utilities::MPI::sum(n_coarsen, communicator)};
  }

  struct StateTransfer::Impl
  {
    Impl(dealii::parallel::distributed::Triangulation<3> &triangulation, const dealii::DoFHandler<3> &dof_handler)
      : triangulation(triangulation)
      , solution_transfer(dof_handler)
      , history_transfer(triangulation, false, &refine_state, &coarsen_state)
    {}

    dealii::parallel::distributed::Triangulation<3> &triangulation;
    dealii::parallel::distributed::SolutionTransfer<3, dealii::LinearAlgebra::distributed::Vector<double>>
                                                                     solution_transfer;
    dealii::parallel::distributed::CellDataTransfer<3, 3, CellStates> history_transfer;
    CellStates                                                        states;
  };

  StateTransfer::StateTransfer(dealii::parallel::distributed::Triangulation<3> &triangulation,
                               const dealii::DoFHandler<3>                     &dof_handler)
    : impl(std::make_unique<Impl>(triangulation, dof_handler))
  {}

  StateTransfer::~StateTransfer() = default;

  void
  StateTransfer::prepare(const dealii::LinearAlgebra::distributed::Vector<double> &displacement,
                         const std::vector<double>                                &history)
  {
    AssertThrow(history.size() == values_per_cell * impl->triangulation.n_locally_owned_active_cells(),
                dealii::ExcMessage("StateTransfer: the history does not fit the mesh"));
    // deal.II packs the values of each cell's DoFs, ghosts included; a copy
    // of a ghosted vector has its ghosts zeroed (LinearAlgebra::distributed::Vector).
    displacement.update_ghost_values();
    impl->solution_transfer.prepare_for_coarsening_and_refinement(displacement);
    impl->states.assign(impl->triangulation.n_active_cells(), CellState{});
    std::size_t k = 0;
    for (const auto &cell : impl->triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          std::copy(history.begin() + k * values_per_cell, history.begin() + (k + 1) * values_per_cell,
                    impl->states[cell->active_cell_index()].begin());
          ++k;
        }
    impl->history_transfer.prepare_for_coarsening_and_refinement(impl->states);
  }

  void
  StateTransfer::interpolate(dealii::LinearAlgebra::distributed::Vector<double> &displacement,
                             std::vector<double>                                &history)
  {
    displacement.zero_out_ghost_values();
    impl->solution_transfer.interpolate(displacement);
    CellStates states(impl->triangulation.n_active_cells());
    impl->history_transfer.unpack(states);
    history.clear();
    history.reserve(values_per_cell * impl->triangulation.n_locally_owned_active_cells());
    for (const auto &cell : impl->triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          const auto &values = states[cell->active_cell_index()];
          history.insert(history.end(), values.begin(), values.end());
        }
  }

  AdaptationStatistics
  adapt_mesh(Discretization                                     &d,
             dealii::LinearAlgebra::distributed::Vector<double> &displacement,
             std::vector<double>                                &history,
             const std::vector<double>                          &history_before,
             const std::function<void()>                        &release)
  {
    auto *triangulation = dynamic_cast<dealii::parallel::distributed::Triangulation<3> *>(d.triangulation.get());
    AssertThrow(triangulation != nullptr, dealii::ExcMessage("adaptive refinement needs a p4est mesh"));
    const auto          &parameters = d.parameters.mesh.adaptive;
    AdaptationStatistics statistics;
    statistics.cells_before = triangulation->n_global_active_cells();
    statistics.dofs_before  = d.dof_handler.n_dofs();
    const dealii::Vector<float> indicator =
      refinement_indicator(d.dof_handler, parameters.indicator, displacement, history_before, history);
    std::tie(statistics.n_refined, statistics.n_coarsened) =
      mark_cells(*triangulation, indicator, parameters, d.parameters.mesh.global_refinements);
    if (!statistics.changed())
      {
        statistics.cells_after = statistics.cells_before;
        statistics.dofs_after  = statistics.dofs_before;
        return statistics;
      }
    StateTransfer transfer(*triangulation, d.dof_handler);
    transfer.prepare(displacement, history);
    release();
    triangulation->execute_coarsening_and_refinement();
    d.setup_dofs();
    d.setup_operator();
    d.assemble_external_force();
    displacement.reinit(d.op.get_partitioner());
    transfer.interpolate(displacement, history);
    statistics.cells_after = triangulation->n_global_active_cells();
    statistics.dofs_after  = d.dof_handler.n_dofs();
    return statistics;
  }
} // namespace plastix
