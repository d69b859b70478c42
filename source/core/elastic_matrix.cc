// The elastic stiffness matrix assembled on the host (FEValues, as in
// deal.II's step-8; full integration or B-bar): the same operator as the device's, as a sparse matrix.
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/sparsity_tools.h>

#include <plastix/core/elastic_matrix.h>

namespace plastix
{
  void
  elastic_cell_matrix(const dealii::FEValues<3>         &fe_values,
                      const backend::MaterialConstants  &material,
                      const backend::ElementFormulation  formulation,
                      dealii::FullMatrix<double>        &cell_matrix)
  {
    const dealii::FEValuesExtractors::Vector   displacement(0);
    const unsigned int                         n       = fe_values.get_fe().n_dofs_per_cell();
    const unsigned int                         n_points = fe_values.n_quadrature_points;
    const bool                                 bbar    = formulation != backend::ElementFormulation::full;
    std::vector<double>                        mean_divergence(n, 0.);
    std::vector<dealii::SymmetricTensor<2, 3>> eps(n);
    if (bbar)
      {
        double volume = 0;
        for (unsigned int q = 0; q < n_points; ++q)
          {
            volume += fe_values.JxW(q);
            for (unsigned int i = 0; i < n; ++i)
              mean_divergence[i] += fe_values[displacement].divergence(i, q) * fe_values.JxW(q);
          }
        for (auto &d : mean_divergence)
          d /= volume;
      }
    cell_matrix.reinit(n, n);
    for (unsigned int q = 0; q < n_points; ++q)
      {
        for (unsigned int i = 0; i < n; ++i)
          {
            eps[i] = fe_values[displacement].symmetric_gradient(i, q);
            if (bbar)
              eps[i] += (mean_divergence[i] - dealii::trace(eps[i])) / 3. * dealii::unit_symmetric_tensor<3>();
          }
        for (unsigned int i = 0; i < n; ++i)
          for (unsigned int j = 0; j < n; ++j)
            cell_matrix(i, j) += (material.lambda * dealii::trace(eps[i]) * dealii::trace(eps[j]) +
                                  2. * material.mu * (eps[i] * eps[j])) *
                                 fe_values.JxW(q);
      }
  }

  namespace
  {
    /** Loop over locally owned cells, assemble the cell matrix, hand it on. */
    template <typename Distribute>
    void
    assemble(const dealii::DoFHandler<3>      &dof_handler,
             const MaterialTable              &materials,
             const backend::ElementFormulation formulation,
             const CellStiffnessFactor        &cell_stiffness_factor,
             const BoundarySprings            &boundary_springs,
             const Distribute                 &distribute)
    {
      const dealii::FiniteElement<3> &fe = dof_handler.get_fe();
      const dealii::QGauss<3>         quadrature(2);
      const dealii::MappingQ<3>       mapping(1);
      dealii::FEValues<3>             fe_values(mapping, fe, quadrature,
                                    dealii::update_gradients | dealii::update_JxW_values);
      dealii::FEFaceValues<3>         fe_face_values(mapping, fe, dealii::QGauss<2>(2), boundary_spring_update_flags());
      dealii::FullMatrix<double>      cell_matrix;
      std::vector<dealii::types::global_dof_index> dofs(fe.n_dofs_per_cell());
      for (const auto &cell : dof_handler.active_cell_iterators())
        {
          if (!cell->is_locally_owned())
            continue;
          fe_values.reinit(cell);
          elastic_cell_matrix(fe_values, material_of(materials, cell->material_id()), formulation, cell_matrix);
          if (cell_stiffness_factor)
            cell_matrix *= cell_stiffness_factor(cell);
          add_boundary_spring_matrices(fe_face_values, cell, boundary_springs, cell_matrix);
          cell->get_dof_indices(dofs);
          distribute(cell_matrix, dofs);
        }
    }
  } // namespace

  void
  assemble_elastic_matrix(const dealii::DoFHandler<3>             &dof_handler,
                          const dealii::AffineConstraints<double> &constraints,
                          const MaterialTable                     &materials,
                          dealii::TrilinosWrappers::SparseMatrix  &matrix,
                          const backend::ElementFormulation        formulation,
                          const CellStiffnessFactor               &cell_stiffness_factor,
                          const BoundarySprings                   &boundary_springs)
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
    assemble(dof_handler, materials, formulation, cell_stiffness_factor, boundary_springs, [&](const auto &cell_matrix, const auto &dofs) {
      constraints.distribute_local_to_global(cell_matrix, dofs, matrix);
    });
    matrix.compress(dealii::VectorOperation::add);
  }

  void
  assemble_elastic_matrix(const dealii::DoFHandler<3>             &dof_handler,
                         const dealii::AffineConstraints<double> &constraints,
                         const MaterialTable                     &materials,
                         dealii::SparsityPattern                 &sparsity,
                         dealii::SparseMatrix<double>            &matrix,
                         const backend::ElementFormulation        formulation,
                         const CellStiffnessFactor               &cell_stiffness_factor,
                         const BoundarySprings                   &boundary_springs)
  {
    dealii::DynamicSparsityPattern dsp(dof_handler.n_dofs());
    dealii::DoFTools::make_sparsity_pattern(dof_handler, dsp, constraints, false);
    sparsity.copy_from(dsp);
    matrix.reinit(sparsity);
    assemble(dof_handler, materials, formulation, cell_stiffness_factor, boundary_springs, [&](const auto &cell_matrix, const auto &dofs) {
      constraints.distribute_local_to_global(cell_matrix, dofs, matrix);
    });
  }
} // namespace plastix
