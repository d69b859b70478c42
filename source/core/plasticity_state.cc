// deal.II-side plasticity state: ghost exchange, global counts, initial stress.
#include <deal.II/base/mpi.h>

#include <plastix/core/plasticity_state.h>

#include "initial_stress.h"

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
    std::vector<double> history = committed_history();
    internal::write_initial_stress(dof_handler, op.material_table, initial_stress,
                                   internal::InitialStressHolders::every_material,
                                   op.get_partitioner()->get_mpi_communicator(), history);
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
