// deal.II's portable (Kokkos) matrix-free way to apply the Q1 elasticity
// operator: Portable::MatrixFree with Portable::FEEvaluation<3, 1, 2, 3>,
// the operator of deal.II's own test matrix_free_kokkos/elasticity_01
// (deal.II 9.7 and later). It runs where deal.II's Kokkos runs: on the GPU
// for a deal.II built with a CUDA Kokkos, on the host otherwise. The tests
// verify plastix against it; it is the side-by-side baseline for a deal.II
// user who would write the elastic operator with deal.II on a GPU.
#ifndef PLASTIX_BENCHMARKS_PORTABLE_REFERENCE_OPERATOR_H
#define PLASTIX_BENCHMARKS_PORTABLE_REFERENCE_OPERATOR_H

#include <deal.II/base/config.h>

#if DEAL_II_VERSION_GTE(9, 7, 0)

#  include <deal.II/base/enable_observer_pointer.h>
#  include <deal.II/dofs/dof_handler.h>
#  include <deal.II/lac/affine_constraints.h>
#  include <deal.II/lac/diagonal_matrix.h>
#  include <deal.II/lac/la_parallel_vector.h>

#  include <plastix/backend/material_constants.h>

#  include <memory>

namespace plastix
{
  namespace reference
  {
    /**
     * deal.II's Portable::MatrixFree Q1 elasticity operator of one material
     * on vectors in deal.II's MemorySpace::Default. As plastix, it acts on the
     * homogeneous problem: constrained DoFs are read as zero (a copy of the
     * source with zeros there; hanging nodes resolved in the cell kernel) and
     * their rows are unit rows (Portable::MatrixFree::copy_constrained_values()).
     */
    class PortableElasticity : public dealii::EnableObserverPointer
    {
    public:
      using VectorType = dealii::LinearAlgebra::distributed::Vector<double, dealii::MemorySpace::Default>;

      PortableElasticity();

      ~PortableElasticity() override;

      /** Set up Portable::MatrixFree on the locally owned cells, with the Lame constants of @p material. */
      void
      reinit(const dealii::DoFHandler<3>             &dof_handler,
             const dealii::AffineConstraints<double> &constraints,
             const backend::MaterialConstants        &material);

      /** dst = A src. */
      void
      vmult(VectorType &dst, const VectorType &src) const;

      /** The same as vmult(): the operator is symmetric. */
      void
      Tvmult(VectorType &dst, const VectorType &src) const;

      /**
       * dst = A src for a @p src that is zero on the constrained DoFs already,
       * as every Krylov vector of a solve with homogeneous constraints is:
       * the operator of deal.II's elasticity_01 as it stands, without the
       * copy of @p src that vmult() makes. What a deal.II user's solver
       * calls, hence what the benchmarks time.
       */
      void
      vmult_homogeneous(VectorType &dst, const VectorType &src) const;

      /**
       * The inverse of the operator's diagonal (MatrixFreeTools::compute_diagonal()
       * of Portable::MatrixFree; 1 on the constrained rows), for Jacobi and
       * Chebyshev preconditioners; computed at the first call.
       */
      std::shared_ptr<dealii::DiagonalMatrix<VectorType>>
      inverse_diagonal() const;

      /** Layout of the vectors (locally owned DoFs, the locally relevant ones as ghosts). */
      void
      initialize_dof_vector(VectorType &vector) const;

      /**
       * Not available (the diagonal lives on the device): an error. deal.II's
       * PreconditionChebyshev asks for diagonal entries only when it is given
       * no preconditioner; give it inverse_diagonal().
       */
      double
      el(const dealii::types::global_dof_index row, const dealii::types::global_dof_index column) const;

      /** Global size. */
      dealii::types::global_dof_index
      m() const;

    private:
      /** Portable::MatrixFree and the Lame constants (Kokkos types stay in the source file). */
      struct Data;
      std::unique_ptr<Data> data;
    };
  } // namespace reference
} // namespace plastix

#endif
#endif
