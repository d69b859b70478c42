// The cell fields of a solution written with the VTU: the stress of
// linear elasticity and the finite-strain quantities (the elastoplastic
// fields come from the Gauss-point state, elastoplastic_problem.cc).
#ifndef PLASTIX_APPS_SOLUTION_FIELDS_H
#define PLASTIX_APPS_SOLUTION_FIELDS_H

#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/core/device_vector.h>

#include "cell_quantities.h"
#include "discretization.h"

namespace plastix
{
  /**
   * Cell stress (from the cell-average strain) and von Mises stress of
   * linear elasticity at @p u, the quantities of 'Output/Additional
   * quantities' (nodal ones into @p point_fields) and the geometry fields.
   */
  CellFields
  elastic_cell_fields(const Discretization &d, const DeviceVector &u, PointFields &point_fields);

  /**
   * The cell averages of finite strain at @p u_host (ghosted): Cauchy
   * stress, von Mises stress, volume ratio J, and the quantities of
   * 'Output/Additional quantities' (the strain is the Green-Lagrange
   * strain; nodal ones into @p point_fields).
   */
  CellFields
  finite_strain_cell_fields(const Discretization                                     &d,
                            const dealii::LinearAlgebra::distributed::Vector<double> &u_host,
                            PointFields                                              &point_fields);
} // namespace plastix

#endif
