// deal.II-side plasticity state: ghost exchange, global counts, initial stress.
#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>

#include <plastix/material/material.h>

#include <plastix/core/plasticity_state.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace plastix
{
  PlasticityState::PlasticityState(MechanicsOperator &op, backend::GaussPointState &state)
    : op(op)
    , state(state)
  {}

  StressUpdateStatistics
  PlasticityState::update(const DeviceVector &u, DeviceVector &internal_force)
  {
    u.update_ghost_values();
    op.initialize_dof_vector(internal_force);
    const auto local = state.update(u.device_data(), internal_force.device_data());
    internal_force.compress(dealii::VectorOperation::add);
    op.tangent_changed();
    const MPI_Comm         comm = op.get_partitioner()->get_mpi_communicator();
    StressUpdateStatistics global;
    global.n_plastic_points = dealii::Utilities::MPI::sum<unsigned long long>(local.n_plastic_points, comm);
    global.n_plastic_cells  = dealii::Utilities::MPI::sum<unsigned long long>(local.n_plastic_cells, comm);
    return global;
  }

  void
  PlasticityState::commit()
  {
    state.commit();
  }

  void
  PlasticityState::reset_trial()
  {
    state.reset_trial();
  }

  std::vector<double>
  PlasticityState::cell_averages() const
  {
    std::vector<double> result(10 * static_cast<std::size_t>(op.n_locally_owned_cells()));
    state.cell_averages(result.data());
    return result;
  }

  std::vector<double>
  PlasticityState::committed_history() const
  {
    std::vector<double> history(backend::GaussPointState::history_values_per_cell *
                                static_cast<std::size_t>(op.n_locally_owned_cells()));
    state.get_committed_history(history.data());
    return history;
  }

  void
  PlasticityState::set_committed_history(const std::vector<double> &history)
  {
    AssertThrow(history.size() == backend::GaussPointState::history_values_per_cell *
                                    static_cast<std::size_t>(op.n_locally_owned_cells()),
                dealii::ExcMessage("history of the wrong size"));
    state.set_committed_history(history.data());
  }

  void
  PlasticityState::set_initial_stress(
    const dealii::DoFHandler<3>                                                   &dof_handler,
    const std::function<dealii::SymmetricTensor<2, 3>(const dealii::Point<3> &)> &initial_stress)
  {
    constexpr unsigned int values = backend::GaussPointState::history_values_per_cell;
    std::vector<double>    history = committed_history();
    // Gauss points in the backend's order (lexicographic, x fastest), as QGauss.
    const dealii::MappingQ<3>   mapping(1);
    dealii::FEValues<3>         fe_values(mapping, dof_handler.get_fe(), dealii::QGauss<3>(2),
                                  dealii::update_quadrature_points);
    constexpr unsigned int      row[6] = {0, 1, 2, 1, 0, 0}, col[6] = {0, 1, 2, 2, 2, 1};
    const double                zero[6] = {0, 0, 0, 0, 0, 0};
    std::string                 first_error;
    std::size_t                 c = 0;
    for (const auto &cell : dof_handler.active_cell_iterators())
      {
        if (!cell->is_locally_owned())
          continue;
        const backend::MaterialConstants &m = material_of(op.material_table, cell->material_id());
        fe_values.reinit(cell);
        for (unsigned int q = 0; q < 8; ++q)
          {
            const dealii::Point<3>                 &x = fe_values.quadrature_point(q);
            const dealii::SymmetricTensor<2, 3> sigma = initial_stress(x);
            double                              s[6];
            bool                                finite = true, zero_stress = true;
            for (int k = 0; k < 6; ++k)
              {
                s[k]        = sigma[row[k]][col[k]];
                finite      = finite && std::isfinite(s[k]);
                zero_stress = zero_stress && s[k] == 0.;
              }
            std::ostringstream where;
            where << "the initial stress at (" << x << ") of material id " << int(cell->material_id());
            if (!finite)
              first_error = first_error.empty() ? where.str() + " is not finite" : first_error;
            else if (m.criterion == backend::YieldCriterion::von_mises)
              {
                // The von Mises history holds the back stress in these slots.
                if (!zero_stress)
                  first_error = first_error.empty() ?
                                  where.str() + " is not zero, but a von Mises material takes no initial stress" :
                                  first_error;
              }
            else
              {
                if (backend::pressure_dependent_return_map(m, zero, history[c * values + 6 * 8 + q], s, zero)
                           .region != backend::ReturnRegion::elastic)
                  first_error =
                    first_error.empty() ? where.str() + " lies outside its yield surface" : first_error;
                for (int k = 0; k < 6; ++k)
                  history[c * values + (7 + k) * 8 + q] = s[k];
              }
          }
        ++c;
      }
    // Every rank throws if one found an error, with the first rank's message.
    const MPI_Comm     comm   = op.get_partitioner()->get_mpi_communicator();
    const unsigned int errors = dealii::Utilities::MPI::sum(first_error.empty() ? 0u : 1u, comm);
    if (errors > 0)
      {
        const auto messages = dealii::Utilities::MPI::all_gather(comm, first_error);
        for (const auto &message : messages)
          if (!message.empty())
            throw std::invalid_argument(message);
      }
    set_committed_history(history);
  }

  unsigned long long
  PlasticityState::n_yielded_points() const
  {
    return dealii::Utilities::MPI::sum<unsigned long long>(state.n_yielded_points(),
                                                          op.get_partitioner()->get_mpi_communicator());
  }

  const backend::GaussPointState &
  PlasticityState::backend_state() const
  {
    return state;
  }
} // namespace plastix
