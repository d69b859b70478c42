// deal.II-side J2 plasticity state: ghost exchange and global counts.
#include <deal.II/base/mpi.h>

#include <plastix/material/plasticity.h>

namespace plastix
{
  PlasticityState::PlasticityState(MechanicsOperator &op, backend::PlasticityState &state)
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
    std::vector<double> history(backend::PlasticityState::history_values_per_cell *
                                static_cast<std::size_t>(op.n_locally_owned_cells()));
    state.get_committed_history(history.data());
    return history;
  }

  void
  PlasticityState::set_committed_history(const std::vector<double> &history)
  {
    AssertThrow(history.size() == backend::PlasticityState::history_values_per_cell *
                                    static_cast<std::size_t>(op.n_locally_owned_cells()),
                dealii::ExcMessage("history of the wrong size"));
    state.set_committed_history(history.data());
  }

  unsigned long long
  PlasticityState::n_yielded_points() const
  {
    return dealii::Utilities::MPI::sum<unsigned long long>(state.n_yielded_points(),
                                                          op.get_partitioner()->get_mpi_communicator());
  }

  const backend::PlasticityState &
  PlasticityState::backend_state() const
  {
    return state;
  }
} // namespace plastix
