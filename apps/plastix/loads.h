// Boundary conditions and loads from the parameters: Dirichlet constraints
// and the external force vector (tractions, pressure, body force).
#ifndef PLASTIX_APP_LOADS_H
#define PLASTIX_APP_LOADS_H

#include <deal.II/base/tensor.h>
#include <deal.II/base/types.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/core/external_force.h>
#include <plastix/core/mechanics_operator.h>

#include "parameters.h"

#include <map>

namespace plastix
{
  /**
   * Constraints of the prescribed displacements (at load factor 1) and of
   * the normal supports (lines u_c = sum_j w_j u_j among the components of a
   * node) on the locally relevant DoFs, after the hanging-node constraints
   * where the mesh has hanging nodes (without them, nothing here uses the
   * mesh's user flags). Throws InputError if a boundary id in the
   * parameters does not occur on the mesh boundary.
   */
  void
  make_dirichlet_constraints(const dealii::DoFHandler<3>       &dof_handler,
                             const BoundaryParameters          &boundary,
                             dealii::AffineConstraints<double> &constraints);

  /**
   * External force at load factor 1 of the loads of the kinds @p kinds (of
   * BoundaryParameters::force_kinds()): surface tractions and pressures
   * (QGauss(2) on faces), the body force and the point loads, in @p force
   * (layout of the locally owned DoFs; ghost contributions compressed).
   * Constrained entries are left as assembled (the operator ignores them).
   */
  void
  assemble_external_force(const dealii::DoFHandler<3>                         &dof_handler,
                          const BoundaryParameters                            &boundary,
                          dealii::LinearAlgebra::distributed::Vector<double> &force,
                          const std::vector<std::string> &kinds = BoundaryParameters::force_kinds());

  /**
   * Add the point loads of @p point_loads to @p force (layout of the locally
   * owned DoFs): each force on the three DoFs of the mesh vertex at its
   * location, by the rank that owns them. Throws InputError naming the
   * nearest vertex if a location is farther than 1e-6 of the diagonal of the
   * body's bounding box from every vertex. Collective.
   */
  void
  add_point_loads(const dealii::DoFHandler<3>                        &dof_handler,
                  const std::vector<PointLoad>                       &point_loads,
                  dealii::LinearAlgebra::distributed::Vector<double> &force);

  /** The material table (Lame constants, yield data) for every material id of the mesh. */
  MaterialTable
  make_material_table(const dealii::DoFHandler<3> &dof_handler, const MaterialParameters &materials);
} // namespace plastix

#endif
