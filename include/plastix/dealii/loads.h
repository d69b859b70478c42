// Boundary conditions and loads from the parameters: Dirichlet constraints
// and the external force vector (tractions, pressure, body force).
#ifndef PLASTIX_DEALII_LOADS_H
#define PLASTIX_DEALII_LOADS_H

#include <deal.II/base/tensor.h>
#include <deal.II/base/types.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/dealii/mechanics_operator.h>
#include <plastix/dealii/parameters.h>

#include <map>

namespace plastix
{
  /**
   * Constraints of the prescribed displacements (at load factor 1) on the
   * locally relevant DoFs. Throws InputError if a boundary id in the
   * parameters does not occur on the mesh boundary.
   */
  void
  make_dirichlet_constraints(const dealii::DoFHandler<3>       &dof_handler,
                             const BoundaryParameters          &boundary,
                             dealii::AffineConstraints<double> &constraints);

  /**
   * External force at load factor 1: surface tractions and pressures
   * (QGauss(2) on faces) and the body force, in @p force (layout of the
   * locally owned DoFs; ghost contributions compressed). Constrained entries
   * are left as assembled (the operator ignores them).
   */
  void
  assemble_external_force(const dealii::DoFHandler<3>                         &dof_handler,
                          const BoundaryParameters                            &boundary,
                          dealii::LinearAlgebra::distributed::Vector<double> &force);

  /**
   * External force of loads given as deal.II types, for user programs: a
   * traction (force per area) per boundary id in @p tractions, a pressure
   * (force per area along the inward normal) per boundary id in @p
   * pressures, and a body force (per volume) @p body_force; otherwise as
   * above. Boundary ids that the mesh lacks contribute nothing (as in
   * VectorTools); the overload above, for the application, rejects them.
   * @p force may have any partitioner with the locally owned DoFs (e.g.
   * MechanicsOperator::get_partitioner(); DeviceVector::copy_from_host()
   * then moves it to the device).
   */
  void
  assemble_external_force(const dealii::DoFHandler<3>                                    &dof_handler,
                          const std::map<dealii::types::boundary_id, dealii::Tensor<1, 3>> &tractions,
                          const std::map<dealii::types::boundary_id, double>               &pressures,
                          const dealii::Tensor<1, 3>                                     &body_force,
                          dealii::LinearAlgebra::distributed::Vector<double>             &force);

  /** The material table (Lame constants, yield data) for every material id of the mesh. */
  MaterialTable
  make_material_table(const dealii::DoFHandler<3> &dof_handler, const MaterialParameters &materials);
} // namespace plastix

#endif
