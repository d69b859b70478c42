// deal.II's Portable::MatrixFree elasticity operator (deal.II 9.7 and later).
#include <deal.II/base/config.h>

#include "portable_reference_operator.h"

#if DEAL_II_VERSION_GTE(9, 7, 0)

#  include <deal.II/base/quadrature_lib.h>
#  include <deal.II/fe/mapping_q.h>
#  include <deal.II/matrix_free/portable_fe_evaluation.h>
#  include <deal.II/matrix_free/portable_matrix_free.h>
#  include <deal.II/matrix_free/tools.h>

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
          const QuadraturePointStress stress{lambda, mu};
#  if DEAL_II_VERSION_GTE(9, 8, 0)
          // deal.II 9.8 moved the loop over the quadrature points to the data.
          data->for_each_quad_point([&](const int q_point) { stress(&evaluation, q_point); });
#  else
          evaluation.apply_for_each_quad_point(stress);
#  endif
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
      /** The inverse diagonal (inverse_diagonal(), at the first call). */
      std::shared_ptr<dealii::DiagonalMatrix<VectorType>> inverse_diagonal;
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
      vmult_homogeneous(dst, data->source);
      data->matrix_free.copy_constrained_values(src, dst);
    }

    void
    PortableElasticity::Tvmult(VectorType &dst, const VectorType &src) const
    {
      vmult(dst, src);
    }

    void
    PortableElasticity::vmult_homogeneous(VectorType &dst, const VectorType &src) const
    {
      dst = 0.;
      data->matrix_free.cell_loop(CellOperator{data->lambda, data->mu}, src, dst);
      data->matrix_free.copy_constrained_values(src, dst);
    }

    std::shared_ptr<dealii::DiagonalMatrix<PortableElasticity::VectorType>>
    PortableElasticity::inverse_diagonal() const
    {
      if (data->inverse_diagonal)
        return data->inverse_diagonal;
      // Computed at the first request: the operator alone does not need it.
      auto        inverse  = std::make_shared<dealii::DiagonalMatrix<VectorType>>();
      VectorType &diagonal = inverse->get_vector();
      data->matrix_free.initialize_dof_vector(diagonal);
      dealii::MatrixFreeTools::compute_diagonal<3, 1, 2, 3, double>(data->matrix_free,
                                                                   diagonal,
                                                                   QuadraturePointStress{data->lambda, data->mu},
                                                                   dealii::EvaluationFlags::gradients,
                                                                   dealii::EvaluationFlags::gradients);
      // Inverted on the host (set-up only); the constrained rows are unit rows.
      dealii::LinearAlgebra::distributed::Vector<double, dealii::MemorySpace::Host> host(diagonal.get_partitioner());
      host.import_elements(diagonal, dealii::VectorOperation::insert);
      for (unsigned int i = 0; i < host.locally_owned_size(); ++i)
        host.local_element(i) = host.local_element(i) == 0. ? 1. : 1. / host.local_element(i);
      diagonal.import_elements(host, dealii::VectorOperation::insert);
      data->matrix_free.set_constrained_values(1., diagonal);
      data->inverse_diagonal = inverse;
      return inverse;
    }

    void
    PortableElasticity::initialize_dof_vector(VectorType &vector) const
    {
      data->matrix_free.initialize_dof_vector(vector);
    }

    double
    PortableElasticity::el(const dealii::types::global_dof_index, const dealii::types::global_dof_index) const
    {
      AssertThrow(false, dealii::ExcMessage("PortableElasticity::el(): the diagonal is on the device; "
                                            "give PreconditionChebyshev inverse_diagonal()"));
      return 0.;
    }

    dealii::types::global_dof_index
    PortableElasticity::m() const
    {
      return data->n_dofs;
    }
  } // namespace reference
} // namespace plastix

#endif
