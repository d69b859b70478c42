// The elastic stiffness matrix of the device operator assembled on the host,
// for algebraic multigrid (AmgPreconditioner), direct solvers and checks of
// the matrix-free operator.
#ifndef PLASTIX_CORE_ELASTIC_MATRIX_H
#define PLASTIX_CORE_ELASTIC_MATRIX_H

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>

#include <plastix/material/material.h>

namespace plastix
{
  /**
   * Assemble the elastic stiffness matrix (FEValues, QGauss(2), as in
   * deal.II's step-8) with @p constraints applied by
   * AffineConstraints::distribute_local_to_global into a Trilinos matrix
   * distributed like the DoFHandler. Constrained rows get deal.II's
   * diagonal entry; compare unconstrained rows only.
   */
  void
  assemble_elastic_matrix(const dealii::DoFHandler<3>             &dof_handler,
                           const dealii::AffineConstraints<double> &constraints,
                           const MaterialTable                     &materials,
                           dealii::TrilinosWrappers::SparseMatrix  &matrix);

  /** As above into a serial deal.II SparseMatrix (one rank only). */
  void
  assemble_elastic_matrix(const dealii::DoFHandler<3>             &dof_handler,
                         const dealii::AffineConstraints<double> &constraints,
                         const MaterialTable                     &materials,
                         dealii::SparsityPattern                 &sparsity,
                         dealii::SparseMatrix<double>            &matrix);
} // namespace plastix

#endif
