// The elastic stiffness matrix assembled on the host (FEValues, as in
// deal.II's step-8): the same operator as the device's, as a sparse matrix.
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/sparsity_tools.h>

#include <plastix/core/elastic_matrix.h>

namespace plastix
{
  namespace
  {
    /** Loop over locally owned cells, assemble the step-8 cell matrix, hand it on. */
    template <typename Distribute>
    void
    assemble(const dealii::DoFHandler<3> &dof_handler,
             const MaterialTable         &materials,
             const Distribute            &distribute)
    {
      const dealii::FiniteElement<3> &fe = dof_handler.get_fe();
      const dealii::QGauss<3>         quadrature(2);
      const dealii::MappingQ<3>       mapping(1);
      dealii::FEValues<3>             fe_values(mapping, fe, quadrature,
                                    dealii::update_gradients | dealii::update_JxW_values);
      const unsigned int              n = fe.n_dofs_per_cell();
      dealii::FullMatrix<double>      cell_matrix(n, n);
      std::vector<dealii::types::global_dof_index> dofs(n);
      for (const auto &cell : dof_handler.active_cell_iterators())
        {
          if (!cell->is_locally_owned())
            continue;
          fe_values.reinit(cell);
          const backend::Material &m = material_of(materials, cell->material_id());
          cell_matrix                = 0;
          for (unsigned int q = 0; q < quadrature.size(); ++q)
            for (unsigned int i = 0; i < n; ++i)
              {
                const unsigned int ci = fe.system_to_component_index(i).first;
                for (unsigned int j = 0; j < n; ++j)
                  {
                    const unsigned int cj = fe.system_to_component_index(j).first;
                    const auto        &gi = fe_values.shape_grad(i, q);
                    const auto        &gj = fe_values.shape_grad(j, q);
                    cell_matrix(i, j) +=
                      (gi[ci] * gj[cj] * m.lambda + gi[cj] * gj[ci] * m.mu +
                       (ci == cj ? gi * gj * m.mu : 0.)) *
                      fe_values.JxW(q);
                  }
              }
          cell->get_dof_indices(dofs);
          distribute(cell_matrix, dofs);
        }
    }
  } // namespace

  void
  assemble_elastic_matrix(const dealii::DoFHandler<3>             &dof_handler,
                           const dealii::AffineConstraints<double> &constraints,
                           const MaterialTable                     &materials,
                           dealii::TrilinosWrappers::SparseMatrix  &matrix)
  {
    dealii::IndexSet relevant;
    dealii::DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    dealii::DynamicSparsityPattern dsp(relevant);
    dealii::DoFTools::make_sparsity_pattern(dof_handler, dsp, constraints, false);
    dealii::SparsityTools::distribute_sparsity_pattern(dsp,
                                                       dof_handler.locally_owned_dofs(),
                                                       dof_handler.get_communicator(),
                                                       relevant);
    matrix.reinit(dof_handler.locally_owned_dofs(),
                  dof_handler.locally_owned_dofs(),
                  dsp,
                  dof_handler.get_communicator());
    assemble(dof_handler, materials, [&](const auto &cell_matrix, const auto &dofs) {
      constraints.distribute_local_to_global(cell_matrix, dofs, matrix);
    });
    matrix.compress(dealii::VectorOperation::add);
  }

  void
  assemble_elastic_matrix(const dealii::DoFHandler<3>             &dof_handler,
                         const dealii::AffineConstraints<double> &constraints,
                         const MaterialTable                     &materials,
                         dealii::SparsityPattern                 &sparsity,
                         dealii::SparseMatrix<double>            &matrix)
  {
    dealii::DynamicSparsityPattern dsp(dof_handler.n_dofs());
    dealii::DoFTools::make_sparsity_pattern(dof_handler, dsp, constraints, false);
    sparsity.copy_from(dsp);
    matrix.reinit(sparsity);
    assemble(dof_handler, materials, [&](const auto &cell_matrix, const auto &dofs) {
      constraints.distribute_local_to_global(cell_matrix, dofs, matrix);
    });
  }
} // namespace plastix
