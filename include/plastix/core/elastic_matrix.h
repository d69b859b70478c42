// The elastic stiffness matrix of the device operator assembled on the host,
// for algebraic multigrid (AmgPreconditioner), direct solvers and checks of
// the matrix-free operator.
#ifndef PLASTIX_CORE_ELASTIC_MATRIX_H
#define PLASTIX_CORE_ELASTIC_MATRIX_H

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>

#include <plastix/backend/device_operator.h>
#include <plastix/core/boundary_springs.h>
#include <plastix/material/material.h>

namespace plastix
{
  /**
   * The elastic cell matrix K_ij = sum_q (lambda tr(eps_i) tr(eps_j) +
   * 2 mu eps_i : eps_j) JxW of the cell @p fe_values was reinitialized on
   * (vector-valued FE_Q(1)^3, gradients and JxW), with eps_i the symmetric
   * gradient of shape function i (full integration) or, for
   * backend::ElementFormulation::bbar, its deviatoric part plus a third of
   * the cell-averaged divergence times the identity (B-bar, mean
   * dilatation; also for ElementFormulation::fbar, whose linearisation at
   * F = I it is). @p cell_matrix is resized.
   */
  void
  elastic_cell_matrix(const dealii::FEValues<3>        &fe_values,
                      const backend::MaterialConstants &material,
                      backend::ElementFormulation       formulation,
                      dealii::FullMatrix<double>       &cell_matrix);

  /**
   * Assemble the elastic stiffness matrix (FEValues, QGauss(2), as in
   * deal.II's step-8; elastic_cell_matrix() with @p formulation) with @p constraints applied by
   * AffineConstraints::distribute_local_to_global into a Trilinos matrix
   * distributed like the DoFHandler. Constrained rows get deal.II's
   * diagonal entry; compare unconstrained rows only. With
   * @p cell_stiffness_factor, each cell matrix is multiplied by its cell's
   * factor (as the device operator does); @p boundary_springs adds the
   * springs' face matrices (add_boundary_spring_matrices()).
   */
  void
  assemble_elastic_matrix(const dealii::DoFHandler<3>             &dof_handler,
                          const dealii::AffineConstraints<double> &constraints,
                          const MaterialTable                     &materials,
                          dealii::TrilinosWrappers::SparseMatrix  &matrix,
                          backend::ElementFormulation              formulation = backend::ElementFormulation::full,
                          const CellStiffnessFactor               &cell_stiffness_factor = {},
                          const BoundarySprings                   &boundary_springs      = {});

  /** As above into a serial deal.II SparseMatrix (one rank only). */
  void
  assemble_elastic_matrix(const dealii::DoFHandler<3>             &dof_handler,
                         const dealii::AffineConstraints<double> &constraints,
                         const MaterialTable                     &materials,
                         dealii::SparsityPattern                 &sparsity,
                         dealii::SparseMatrix<double>            &matrix,
                         backend::ElementFormulation formulation = backend::ElementFormulation::full,
                         const CellStiffnessFactor  &cell_stiffness_factor = {},
                         const BoundarySprings      &boundary_springs      = {});
} // namespace plastix

#endif
