// A pressure that follows the deformation (a follower load of finite-strain
// runs): its force on the deformed surface and its load stiffness, assembled
// on the host from the boundary faces, the stiffness handed to the operator.
#ifndef PLASTIX_CORE_FOLLOWER_PRESSURE_H
#define PLASTIX_CORE_FOLLOWER_PRESSURE_H

#include <deal.II/base/types.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/core/device_vector.h>

#include <map>
#include <utility>
#include <vector>

namespace plastix
{
  class MechanicsOperator;

  /** Matrix entries (row, column, value) of global DoF indices, repeated pairs to be summed. */
  struct MatrixEntries
  {
    std::vector<dealii::types::global_dof_index> rows;
    std::vector<dealii::types::global_dof_index> columns;
    std::vector<double>                          values;
  };

  /**
   * The force and the load stiffness of pressures that act on the deformed
   * surface (total Lagrangian, reference face Gamma_0 with outward unit
   * normal N): with F = I + Grad u on the face and Nanson's formula
   * n da = cof(F) N dA,
   *   f_i = -int_Gamma_0 p N_i cof(F) N dA,
   * and the derivative of -f (the load stiffness, which the tangent of
   * R = f_int - f_ext gains),
   *   L_(ia)(jb) = int_Gamma_0 p N_i eps_abc [F (N x Grad N_j)]_c dA,
   * which is not symmetric in general (Simo, Taylor and Wriggers, A note on
   * finite-element implementation of pressure boundary loading, 1991; Bonet
   * and Wood, Nonlinear Continuum Mechanics for Finite Element Analysis,
   * ch. 8). Only the DoFs of the face couple (Grad N_j x N vanishes for
   * the others). QGauss(2) on each face of an owned active cell at the
   * boundary with an id of @p pressures (force per area, positive pushes
   * into the body), FESystem(FE_Q(1), 3) with a MappingQ(1) of the
   * reference configuration, as assemble_external_force() does for dead
   * loads. @p displacement needs the values of the DoFs of the owned cells
   * (ghosted, hanging-node rows distributed); @p force (any partitioner with
   * the locally owned DoFs) is overwritten with the compressed force; the
   * stiffness entries of the owned faces go to @p stiffness if not null.
   */
  void
  assemble_follower_pressure(const dealii::DoFHandler<3>                              &dof_handler,
                             const std::map<dealii::types::boundary_id, double>       &pressures,
                             const dealii::LinearAlgebra::distributed::Vector<double> &displacement,
                             dealii::LinearAlgebra::distributed::Vector<double>       &force,
                             MatrixEntries                                            *stiffness);

  /**
   * A pressure that follows the deformation on the device vectors of a
   * MechanicsOperator: update() evaluates the force at the displacement
   * and gives the operator its load stiffness (MechanicsOperator::
   * set_load_stiffness()). NewtonRaphson::set_follower_pressure() calls it
   * at every iterate. The DoFHandler and the operator are kept by reference;
   * the loaded faces are listed once, at construction (make a new one after
   * the mesh changes). Each update() copies u to the host and assembles on
   * those faces only: O(n) in the transfer, O(faces) in the assembly.
   */
  class FollowerPressure
  {
  public:
    /**
     * @p pressures: force per area per boundary id at scale 1 (positive
     * pushes into the body); ids that the mesh lacks contribute nothing.
     */
    FollowerPressure(const dealii::DoFHandler<3>                        &dof_handler,
                     MechanicsOperator                                  &op,
                     const std::map<dealii::types::boundary_id, double> &pressures);

    /**
     * At the displacement @p u (the operator's layout, constrained values
     * set): @p force = the force at scale 1 (hanging-node rows condensed, as
     * the operator's vectors are), and, if @p with_stiffness, the operator's
     * load stiffness that of the pressure times @p scale (otherwise the
     * operator is left as it is: an explicit time step needs the force
     * only). Collective.
     */
    void
    update(const DeviceVector &u, double scale, DeviceVector &force, bool with_stiffness = true);

    /** The pressures by boundary id. */
    const std::map<dealii::types::boundary_id, double> &
    get_pressures() const;

  private:
    const dealii::DoFHandler<3>                       &dof_handler;
    MechanicsOperator                                 &op;
    std::map<dealii::types::boundary_id, double>       pressures;
    dealii::LinearAlgebra::distributed::Vector<double> host_displacement;
    dealii::LinearAlgebra::distributed::Vector<double> host_force;
    MatrixEntries                                      entries;
    /** The loaded faces of owned cells (cell, face number), grouped by cell. */
    std::vector<std::pair<dealii::DoFHandler<3>::active_cell_iterator, unsigned int>> faces;
  };
} // namespace plastix

#endif
