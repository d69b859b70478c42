// The external force vector of surface tractions, pressures and a body force
// given as deal.II types, assembled on the host (copy it to the device with
// DeviceVector::copy_from_host()).
#ifndef PLASTIX_CORE_EXTERNAL_FORCE_H
#define PLASTIX_CORE_EXTERNAL_FORCE_H

#include <deal.II/base/tensor.h>
#include <deal.II/base/types.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <map>

namespace plastix
{
  /**
   * External force at load factor 1 of a traction (force per area) per
   * boundary id in @p tractions, a pressure (force per area along the inward
   * normal) per boundary id in @p pressures, and a body force (per volume)
   * @p body_force: QGauss(2) on cells and faces, ghost contributions
   * compressed, constrained entries left as assembled (the operator ignores
   * them). Boundary ids that the mesh lacks contribute nothing (as in
   * VectorTools). @p force may have any partitioner with the locally owned DoFs (e.g.
   * MechanicsOperator::get_partitioner(); DeviceVector::copy_from_host()
   * then moves it to the device).
   */
  void
  assemble_external_force(const dealii::DoFHandler<3>                                      &dof_handler,
                          const std::map<dealii::types::boundary_id, dealii::Tensor<1, 3>> &tractions,
                          const std::map<dealii::types::boundary_id, double>               &pressures,
                          const dealii::Tensor<1, 3>                                       &body_force,
                          dealii::LinearAlgebra::distributed::Vector<double>               &force);
} // namespace plastix

#endif
