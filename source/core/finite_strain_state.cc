// deal.II-side finite-strain state: ghost exchange and global counts.
#include <deal.II/base/mpi.h>

#include <plastix/core/finite_strain_state.h>

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
    return dealii::Utilities::MPI::sum<unsigned long long>(state.commit(),
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
