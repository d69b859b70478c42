// An independent deal.II reference of finite-strain hyperelasticity for the
// tests: the first Piola-Kirchhoff stress of the compressible Mooney-Rivlin
// law (neo-Hookean for mu2 = 0) written with deal.II tensors, and a cell's
// residual sum_q B^T P JxW from FEValues; none of the device code.
#ifndef PLASTIX_TESTS_COMMON_FINITE_STRAIN_REFERENCE_H
#define PLASTIX_TESTS_COMMON_FINITE_STRAIN_REFERENCE_H

#include <deal.II/base/tensor.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/lac/vector.h>

#include <plastix/backend/material_constants.h>

#include <cmath>

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
} // namespace plastix_test

#endif
