// Cell quantities derived from the cell-average stress and strain for the
// VTU output: strain tensor, principal stresses and directions, pressure.
#ifndef PLASTIX_APP_CELL_QUANTITIES_H
#define PLASTIX_APP_CELL_QUANTITIES_H

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/material/material.h>

#include "parameters.h"
#include "vtu_writer.h"

#include <vector>

namespace plastix
{
  /** The von Mises stress sqrt(3 J2) of @p s (xx, yy, zz, yz, xz, xy). */
  double
  von_mises_stress(const double *s);

  /**
   * Append to @p fields the quantities that @p output selects in
   * 'Output/Additional quantities', for the locally owned cells:
   * - strain: "strain_xx" ... "strain_xy" from @p strain (6 values per cell,
   *   xx, yy, zz, yz, xz, xy, tensor components);
   * - principal stresses: "principal_stress_1" >= "principal_stress_2" >=
   *   "principal_stress_3" and the unit eigenvectors
   *   "principal_direction_1..3" (3 components) of @p stress (6 values per
   *   cell, in the same order);
   * - pressure: "pressure" = -(sigma_xx + sigma_yy + sigma_zz) / 3;
   * - nodal stresses: the point data "nodal_stress" (6 components in VTK's
   *   order of a symmetric tensor: xx, yy, zz, xy, yz, xz) and
   *   "nodal_von_mises", the cell-average stresses of the cells around each
   *   vertex averaged with their volumes as weights (the L2 projection onto
   *   the Q1 space with a lumped mass matrix), over all ranks' cells.
   * @p dof_handler is the displacement's (locally owned cells in the order of
   * its active cells); collective over its communicator.
   */
  void
  add_additional_quantities(const OutputParameters      &output,
                            const dealii::DoFHandler<3> &dof_handler,
                            const std::vector<double>   &stress,
                            const std::vector<double>   &strain,
                            CellFields                  &fields,
                            PointFields                 &point_fields);

  /**
   * Append to @p fields the cell-average plastic strain tensor
   * "plastic_strain_xx" ... "plastic_strain_xy" (tensor components, order
   * xx, yy, zz, yz, xz, xy): the Gauss-point plastic strains of @p history
   * (PlasticityState::committed_history(): the locally owned cells in the
   * order of @p dof_handler's active cells) averaged with the weights JxW.
   */
  void
  add_plastic_strain(const dealii::DoFHandler<3> &dof_handler,
                     const std::vector<double>   &history,
                     CellFields                  &fields);

  /** Values per cell of finite_strain_cell_averages(). */
  constexpr unsigned int finite_strain_values_per_cell = 20;

  /**
   * Cell averages at finite strain (weights JxW of the reference
   * configuration, the operator's 2 x 2 x 2 Gauss points) of the
   * displacement @p u (@p dof_handler's layout, ghosted): the Cauchy stress
   * sigma = P F^T / J of the material of the cell's id in @p materials (6
   * values: xx, yy, zz, yz, xz, xy), the volume ratio J = det F, the
   * Green-Lagrange strain E = (F^T F - I) / 2 (6 values, the same order),
   * the accumulated plastic strain (0 but at Hencky points) and the
   * logarithmic (Hencky) strain 1/2 ln(F^T F) (6 values, 0 without a
   * @p history);
   * finite_strain_values_per_cell values per locally owned cell, in the
   * order of the active cells. Hencky materials (elastoplastic in the
   * logarithmic strain) take P from the return at the committed @p history
   * (FiniteStrainState::committed_history(), the converged state's own;
   * empty: none, every point virgin). With @p f_bar (the F-bar element,
   * backend::ElementFormulation::fbar) every F above is the point's F_bar =
   * (J_bar / J)^(1/3) F, J_bar the cell's volume-averaged J, as the
   * operator's materials see it.
   */
  std::vector<double>
  finite_strain_cell_averages(const dealii::DoFHandler<3>                              &dof_handler,
                              const MaterialTable                                      &materials,
                              const dealii::LinearAlgebra::distributed::Vector<double> &u,
                              const std::vector<double>                                &history,
                              bool                                                      f_bar);
} // namespace plastix

#endif
