// deal.II's own matrix-free way to apply the same Q1 elasticity operator
// (MatrixFree/FEEvaluation; the assembled matrix is plastix/core/elastic_matrix.h).
// The tests verify plastix against it and plastix-bench times it side by
// side with plastix.
#ifndef PLASTIX_BENCHMARKS_REFERENCE_OPERATORS_H
#define PLASTIX_BENCHMARKS_REFERENCE_OPERATORS_H

#include <deal.II/base/vectorization.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/matrix_free/matrix_free.h>

#include <plastix/core/mechanics_operator.h>

#include <memory>

namespace plastix
{
  namespace reference
  {
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
