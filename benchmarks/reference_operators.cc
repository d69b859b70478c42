// Reference operators: assembled sparse matrices and deal.II MatrixFree.
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/sparsity_tools.h>
#include <deal.II/matrix_free/fe_evaluation.h>

#include "reference_operators.h"

namespace plastix
{
  namespace reference
  {
    void
    MatrixFreeElasticity::reinit(const dealii::DoFHandler<3>             &dof_handler,
                                 const dealii::AffineConstraints<double> &constraints,
                                 const MaterialTable                     &materials)
    {
      typename dealii::MatrixFree<3, double>::AdditionalData data;
      data.tasks_parallel_scheme = dealii::MatrixFree<3, double>::AdditionalData::none;
      data.mapping_update_flags  = dealii::update_gradients | dealii::update_JxW_values;
      const dealii::MappingQ<3> mapping(1);
      matrix_free.reinit(mapping, dof_handler, constraints, dealii::QGauss<1>(2), data);

      const unsigned int n_batches = matrix_free.n_cell_batches();
      lambda.resize(n_batches);
      mu.resize(n_batches);
      for (unsigned int b = 0; b < n_batches; ++b)
        for (unsigned int v = 0; v < matrix_free.n_active_entries_per_cell_batch(b); ++v)
          {
            const auto &m = material_of(materials, matrix_free.get_cell_iterator(b, v)->material_id());
            lambda[b][v]  = m.lambda;
            mu[b][v]      = m.mu;
          }
      constrained_local_dofs = matrix_free.get_constrained_dofs();
    }

    void
    MatrixFreeElasticity::vmult(VectorType &dst, const VectorType &src) const
    {
      matrix_free.template cell_loop<VectorType, VectorType>(
        [&](const dealii::MatrixFree<3, double> &data,
            VectorType                          &out,
            const VectorType                    &in,
            const std::pair<unsigned int, unsigned int> &range) {
          dealii::FEEvaluation<3, 1, 2, 3, double> phi(data);
          for (unsigned int b = range.first; b < range.second; ++b)
            {
              phi.reinit(b);
              phi.gather_evaluate(in, dealii::EvaluationFlags::gradients);
              for (unsigned int q = 0; q < phi.n_q_points; ++q)
                {
                  const auto eps = phi.get_symmetric_gradient(q);
                  auto       sig = 2. * mu[b] * eps;
                  const auto tr  = dealii::trace(eps);
                  for (unsigned int d = 0; d < 3; ++d)
                    sig[d][d] += lambda[b] * tr;
                  phi.submit_symmetric_gradient(sig, q);
                }
              phi.integrate_scatter(dealii::EvaluationFlags::gradients, out);
            }
        },
        dst,
        src,
        true);
      for (const unsigned int i : constrained_local_dofs)
        dst.local_element(i) = src.local_element(i);
    }

    void
    MatrixFreeElasticity::initialize_dof_vector(VectorType &vector) const
    {
      matrix_free.initialize_dof_vector(vector);
    }

    dealii::types::global_dof_index
    MatrixFreeElasticity::m() const
    {
      return matrix_free.get_dof_handler().n_dofs();
    }

    const dealii::MatrixFree<3, double> &
    MatrixFreeElasticity::get_matrix_free() const
    {
      return matrix_free;
    }

    std::size_t
    MatrixFreeElasticity::memory_consumption() const
    {
      return matrix_free.memory_consumption();
    }
  } // namespace reference
} // namespace plastix
