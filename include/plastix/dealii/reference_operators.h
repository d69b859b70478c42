// deal.II's own ways to apply the same Q1 elasticity operator: an assembled
// sparse matrix (deal.II or Trilinos) and deal.II's MatrixFree/FEEvaluation.
// The tests verify plastix against them and plastix-bench times them side by
// side with plastix.
#ifndef PLASTIX_DEALII_REFERENCE_OPERATORS_H
#define PLASTIX_DEALII_REFERENCE_OPERATORS_H

#include <deal.II/base/vectorization.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/matrix_free/matrix_free.h>

#include <plastix/dealii/mechanics_operator.h>

#include <memory>

namespace plastix
{
  namespace reference
  {
    /**
     * Assemble the elastic stiffness matrix (FEValues, QGauss(2), as in
     * deal.II's step-8) with @p constraints applied by
     * AffineConstraints::distribute_local_to_global into a Trilinos matrix
     * distributed like the DoFHandler. Constrained rows get deal.II's
     * diagonal entry; compare unconstrained rows only.
     */
    void
    assemble_trilinos_matrix(const dealii::DoFHandler<3>             &dof_handler,
                             const dealii::AffineConstraints<double> &constraints,
                             const MaterialTable                     &materials,
                             dealii::TrilinosWrappers::SparseMatrix  &matrix);

    /** As above into a serial deal.II SparseMatrix (one rank only). */
    void
    assemble_sparse_matrix(const dealii::DoFHandler<3>             &dof_handler,
                           const dealii::AffineConstraints<double> &constraints,
                           const MaterialTable                     &materials,
                           dealii::SparsityPattern                 &sparsity,
                           dealii::SparseMatrix<double>            &matrix);

    /**
     * deal.II's matrix-free Q1 elasticity operator (MatrixFree +
     * FEEvaluation<3,1,2,3>, symmetric gradient), with the same constraint
     * convention as plastix (unit diagonal on constrained DoFs).
     */
    class MatrixFreeElasticity : public dealii::Subscriptor
    {
    public:
      using VectorType = dealii::LinearAlgebra::distributed::Vector<double>;

      /** Set up MatrixFree on the locally owned cells. */
      void
      reinit(const dealii::DoFHandler<3>             &dof_handler,
             const dealii::AffineConstraints<double> &constraints,
             const MaterialTable                     &materials);

      /** dst = A src. */
      void
      vmult(VectorType &dst, const VectorType &src) const;

      /** Layout of the vectors. */
      void
      initialize_dof_vector(VectorType &vector) const;

      /** Global size. */
      dealii::types::global_dof_index
      m() const;

      /** The MatrixFree object. */
      const dealii::MatrixFree<3, double> &
      get_matrix_free() const;

      /** Bytes held by MatrixFree. */
      std::size_t
      memory_consumption() const;

    private:
      dealii::MatrixFree<3, double>                          matrix_free;
      std::vector<dealii::VectorizedArray<double>>           lambda, mu;
      std::vector<unsigned int>                              constrained_local_dofs;
    };
  } // namespace reference
} // namespace plastix

#endif
