// deal.II-side finite-strain state: ghost exchange, global counts, initial stress.
#include <deal.II/base/mpi.h>

#include <plastix/core/finite_strain_state.h>

#include "initial_stress.h"

namespace plastix
{
  FiniteStrainState::FiniteStrainState(MechanicsOperator &op, backend::FiniteStrainState &state)
    : op(op)
    , state(state)
  {}

  unsigned long long
  FiniteStrainState::update(const DeviceVector &u, DeviceVector &internal_force)
  {
    u.update_ghost_values();
    op.initialize_dof_vector(internal_force);
    const std::size_t inverted = state.update(u.device_data(), internal_force.device_data());
    internal_force.compress(dealii::VectorOperation::add);
    op.tangent_changed();
    return dealii::Utilities::MPI::sum<unsigned long long>(inverted, op.get_partitioner()->get_mpi_communicator());
  }

  unsigned long long
  FiniteStrainState::commit()
  {
    // Every rank has the operator's whole material table, so all or none
    // hold a history: the hyperelastic laws (a commit per time step of
    // dynamics) skip the collective sum.
    if (!state.has_history())
      return plastic_points_committed = 0;
    plastic_points_committed =
      dealii::Utilities::MPI::sum<unsigned long long>(state.commit(), op.get_partitioner()->get_mpi_communicator());
    return plastic_points_committed;
  }

  std::vector<double>
  FiniteStrainState::committed_history() const
  {
    if (!state.has_history())
      return {};
    std::vector<double> history(backend::FiniteStrainState::history_values_per_cell *
                                static_cast<std::size_t>(op.n_locally_owned_cells()));
    state.get_committed_history(history.data());
    return history;
  }

  void
  FiniteStrainState::set_committed_history(const std::vector<double> &history)
  {
    if (history.empty() && !state.has_history())
      return;
    AssertThrow(state.has_history() && history.size() == backend::FiniteStrainState::history_values_per_cell *
                                                           static_cast<std::size_t>(op.n_locally_owned_cells()),
                dealii::ExcMessage("a finite-strain history of the wrong size (or without a Hencky material)"));
    state.set_committed_history(history.data());
  }

  void
  FiniteStrainState::set_initial_stress(
    const dealii::DoFHandler<3>                                                   &dof_handler,
    const std::function<dealii::SymmetricTensor<2, 3>(const dealii::Point<3> &)> &initial_stress)
  {
    // Without a Hencky material there is no history: the loop still runs,
    // to name a point whose stress is not zero.
    std::vector<double> history = state.has_history() ?
                                    committed_history() :
                                    std::vector<double>(backend::FiniteStrainState::history_values_per_cell *
                                                        static_cast<std::size_t>(op.n_locally_owned_cells()));
    internal::write_initial_stress(dof_handler, op.material_table, initial_stress,
                                   internal::InitialStressHolders::hencky_materials,
                                   op.get_partitioner()->get_mpi_communicator(), history);
    if (state.has_history())
      set_committed_history(history);
  }

  unsigned long long
  FiniteStrainState::plastic_points_of_last_step() const
  {
    return plastic_points_committed;
  }

  unsigned long long
  FiniteStrainState::n_yielded_points() const
  {
    return dealii::Utilities::MPI::sum<unsigned long long>(state.n_yielded_points(),
                                                          op.get_partitioner()->get_mpi_communicator());
  }

  double
  FiniteStrainState::stored_energy() const
  {
    return dealii::Utilities::MPI::sum(state.stored_energy(), op.get_partitioner()->get_mpi_communicator());
  }

  void
  FiniteStrainState::internal_force(const DeviceVector &u, DeviceVector &internal_force) const
  {
    u.update_ghost_values();
    op.initialize_dof_vector(internal_force);
    state.internal_force(u.device_data(), internal_force.device_data());
    internal_force.compress(dealii::VectorOperation::add);
  }

  const backend::FiniteStrainState &
  FiniteStrainState::backend_state() const
  {
    return state;
  }
} // namespace plastix
