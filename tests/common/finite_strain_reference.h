// An independent deal.II reference of finite-strain hyperelasticity for the
// tests: the first Piola-Kirchhoff stress of the compressible Mooney-Rivlin
// law (neo-Hookean for mu2 = 0) written with deal.II tensors, and a cell's
// residual sum_q B^T P JxW from FEValues; none of the device code.
#ifndef PLASTIX_TESTS_COMMON_FINITE_STRAIN_REFERENCE_H
#define PLASTIX_TESTS_COMMON_FINITE_STRAIN_REFERENCE_H

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/tensor.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/lac/vector.h>

#include <plastix/backend/material_constants.h>
#include <plastix/material/material.h>

#include <cmath>
#include <vector>

namespace plastix_test
{
  /**
   * P(F) of the material @p m (lambda, mu, mu2 = second_shear_modulus,
   * strain_energy): compressible Mooney-Rivlin, or the isochoric
   * neo-Hookean law P = mu J^-2/3 (F - I1 / 3 F^-T) + kappa / 2 (J^2 - 1) F^-T.
   */
  inline dealii::Tensor<2, 3>
  first_piola(const plastix::backend::MaterialConstants &m, const dealii::Tensor<2, 3> &F)
  {
    const double               mu2 = m.second_shear_modulus, mu1 = m.mu - mu2, lambda_J = m.lambda - 2 * mu2;
    const double               J       = dealii::determinant(F);
    const dealii::Tensor<2, 3> F_inv_T = dealii::transpose(dealii::invert(F));
    const dealii::Tensor<2, 3> C       = dealii::transpose(F) * F;
    if (m.strain_energy == plastix::backend::StrainEnergy::isochoric_neo_hookean)
      {
        const double kappa = m.lambda + 2. / 3. * m.mu;
        return m.mu * std::pow(J, -2. / 3.) * (F - dealii::trace(C) / 3. * F_inv_T) +
               kappa / 2. * (J * J - 1.) * F_inv_T;
      }
    return mu1 * F + mu2 * (dealii::trace(C) * F - F * C) + (lambda_J * std::log(J) - mu1 - 2 * mu2) * F_inv_T;
  }

  /** The residual sum_q B^T P JxW of the cell whose DoF values are @p cell_u (@p fe_values reinit'ed on it). */
  inline dealii::Vector<double>
  cell_residual(const dealii::FEValues<3>                 &fe_values,
                const plastix::backend::MaterialConstants &m,
                const dealii::Vector<double>              &cell_u)
  {
    const dealii::FEValuesExtractors::Vector displacement(0);
    const unsigned int                       n = fe_values.dofs_per_cell;
    dealii::Vector<double>                   r(n);
    for (const unsigned int q : fe_values.quadrature_point_indices())
      {
        dealii::Tensor<2, 3> F = dealii::unit_symmetric_tensor<3>();
        for (unsigned int i = 0; i < n; ++i)
          F += cell_u(i) * fe_values[displacement].gradient(i, q);
        const dealii::Tensor<2, 3> P = first_piola(m, F);
        for (unsigned int i = 0; i < n; ++i)
          r(i) += dealii::scalar_product(P, fe_values[displacement].gradient(i, q)) * fe_values.JxW(q);
      }
    return r;
  }

  /**
   * The cell tangent by central differences (step @p h) of cell_residual()
   * at @p cell_u into @p matrix (dofs_per_cell squared).
   */
  inline void
  cell_tangent(const dealii::FEValues<3>                 &fe_values,
               const plastix::backend::MaterialConstants &m,
               const dealii::Vector<double>              &cell_u,
               dealii::FullMatrix<double>                &matrix,
               const double                               h = 1e-6)
  {
    const unsigned int n = fe_values.dofs_per_cell;
    for (unsigned int j = 0; j < n; ++j)
      {
        dealii::Vector<double> up = cell_u, um = cell_u;
        up(j) += h;
        um(j) -= h;
        const dealii::Vector<double> rp = cell_residual(fe_values, m, up), rm = cell_residual(fe_values, m, um);
        for (unsigned int i = 0; i < n; ++i)
          matrix(i, j) = (rp(i) - rm(i)) / (2 * h);
      }
  }

  /**
   * For each locally owned cell of @p dof_handler (Q1, 2 x 2 x 2 Gauss
   * points) at the displacement @p u (ghosted): @p action(dofs, residual,
   * tangent) with the cell's DoF indices, its residual cell_residual() and
   * its tangent cell_tangent(), for the material of its id in @p materials.
   */
  template <typename VectorType, typename Action>
  void
  for_each_reference_cell(const dealii::DoFHandler<3>  &dof_handler,
                          const plastix::MaterialTable &materials,
                          const VectorType             &u,
                          const Action                 &action)
  {
    const dealii::FiniteElement<3>      &fe = dof_handler.get_fe();
    const dealii::MappingQ<3>            mapping(1);
    dealii::FEValues<3>                  fe_values(mapping, fe, dealii::QGauss<3>(2),
                                                   dealii::update_gradients | dealii::update_JxW_values);
    std::vector<dealii::types::global_dof_index> dofs(fe.dofs_per_cell);
    dealii::Vector<double>                       cell_u(fe.dofs_per_cell);
    dealii::FullMatrix<double>                   matrix(fe.dofs_per_cell, fe.dofs_per_cell);
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          fe_values.reinit(cell);
          cell->get_dof_indices(dofs);
          for (unsigned int i = 0; i < fe.dofs_per_cell; ++i)
            cell_u(i) = u(dofs[i]);
          const plastix::backend::MaterialConstants &m = materials.at(cell->material_id());
          cell_tangent(fe_values, m, cell_u, matrix);
          action(static_cast<const std::vector<dealii::types::global_dof_index> &>(dofs),
                 cell_residual(fe_values, m, cell_u), static_cast<const dealii::FullMatrix<double> &>(matrix));
        }
  }

  /**
   * Three finite-strain materials: neo-Hookean (E 10, nu 0.3) with id 0,
   * isochoric neo-Hookean (E 15, nu 0.4) with id 5, Mooney-Rivlin (E 20,
   * nu 0.45, mu2 = mu / 4) with id 3.
   */
  inline plastix::MaterialTable
  three_hyperelastic_materials()
  {
    return {{0, plastix::make_hyperelastic_material(10., 0.3)},
            {5, plastix::make_hyperelastic_material(15., 0.4, 0., plastix::backend::StrainEnergy::isochoric_neo_hookean)},
            {3, plastix::make_hyperelastic_material(20., 0.45, 0.25 * plastix::make_material(20., 0.45).mu)}};
  }

  /** The ids of three_hyperelastic_materials() on the thirds 0, 5, 3 of [0, @p length] in x. */
  inline void
  set_three_material_ids(dealii::Triangulation<3> &tria, const double length)
  {
    for (const auto &cell : tria.active_cell_iterators())
      {
        const double x = cell->center()[0] / length;
        cell->set_material_id(x > 2. / 3. ? 3 : x > 1. / 3. ? 5 : 0);
      }
  }
} // namespace plastix_test

#endif
