// deal.II's Portable::MatrixFree elasticity operator (deal.II 9.7 and later).
#include <deal.II/base/config.h>

#include "portable_reference_operator.h"

#if DEAL_II_VERSION_GTE(9, 7, 0)

#  include <deal.II/base/quadrature_lib.h>
#  include <deal.II/fe/mapping_q.h>
#  include <deal.II/matrix_free/portable_fe_evaluation.h>
#  include <deal.II/matrix_free/portable_matrix_free.h>

namespace plastix
{
  namespace reference
  {
    namespace
    {
      using Evaluation = dealii::Portable::FEEvaluation<3, 1, 2, 3, double>;

      /** sigma = lambda tr(grad u) I + mu (grad u + grad u^T) at one quadrature point. */
      struct QuadraturePointStress
      {
        double lambda;
        double mu;

        DEAL_II_HOST_DEVICE void
        operator()(Evaluation *evaluation, const int q_point) const
        {
          const dealii::Tensor<2, 3, double> gradient = evaluation->get_gradient(q_point);
          dealii::Tensor<2, 3, double>       stress   = mu * (gradient + dealii::transpose(gradient));
          const double                       volumetric = lambda * dealii::trace(gradient);
          for (unsigned int d = 0; d < 3; ++d)
            stress[d][d] += volumetric;
          evaluation->submit_gradient(stress, q_point);
        }
      };

      /** One cell: gather, gradients, stresses, integrate, scatter. */
      struct CellOperator
      {
        static constexpr unsigned int n_q_points = 8;

        double lambda;
        double mu;

        DEAL_II_HOST_DEVICE void
        operator()(const typename dealii::Portable::MatrixFree<3, double>::Data *data,
                   const dealii::Portable::DeviceVector<double>                 &src,
                   dealii::Portable::DeviceVector<double>                       &dst) const
        {
          Evaluation evaluation(data, 0);
          evaluation.read_dof_values(src);
          evaluation.evaluate(dealii::EvaluationFlags::gradients);
          evaluation.apply_for_each_quad_point(QuadraturePointStress{lambda, mu});
          evaluation.integrate(dealii::EvaluationFlags::gradients);
          evaluation.distribute_local_to_global(dst);
        }
      };
    } // namespace

    struct PortableElasticity::Data
    {
      dealii::Portable::MatrixFree<3, double> matrix_free;
      double                                  lambda = 0;
      double                                  mu     = 0;
      dealii::types::global_dof_index         n_dofs = 0;
      /** src with zeros on the constrained DoFs (vmult()). */
      VectorType source;
    };

    PortableElasticity::PortableElasticity() = default;

    PortableElasticity::~PortableElasticity() = default;

    void
    PortableElasticity::reinit(const dealii::DoFHandler<3>             &dof_handler,
                               const dealii::AffineConstraints<double> &constraints,
                               const backend::MaterialConstants        &material)
    {
      data = std::make_unique<Data>();
      typename dealii::Portable::MatrixFree<3, double>::AdditionalData additional_data;
      additional_data.mapping_update_flags = dealii::update_values | dealii::update_gradients;
      const dealii::MappingQ<3> mapping(1);
      data->matrix_free.reinit(mapping, dof_handler, constraints, dealii::QGauss<1>(2), additional_data);
      data->lambda = material.lambda;
      data->mu     = material.mu;
      data->n_dofs = dof_handler.n_dofs();
    }

    void
    PortableElasticity::vmult(VectorType &dst, const VectorType &src) const
    {
      // Portable::MatrixFree reads the constrained entries as they are
      // (plastix ignores them): a copy of src with zeros there.
      data->source = src;
      data->matrix_free.set_constrained_values(0., data->source);
      dst = 0.;
      data->matrix_free.cell_loop(CellOperator{data->lambda, data->mu}, data->source, dst);
      data->matrix_free.copy_constrained_values(src, dst);
    }

    void
    PortableElasticity::initialize_dof_vector(VectorType &vector) const
    {
      data->matrix_free.initialize_dof_vector(vector);
    }

    dealii::types::global_dof_index
    PortableElasticity::m() const
    {
      return data->n_dofs;
    }
  } // namespace reference
} // namespace plastix

#endif
