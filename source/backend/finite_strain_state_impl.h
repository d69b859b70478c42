// Internal data of FiniteStrainState: the deformation gradients at the Gauss
// points and the finite-strain laws (material/hyperelastic_law.h) that read
// them (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_FINITE_STRAIN_STATE_IMPL_H
#define PLASTIX_SOURCE_BACKEND_FINITE_STRAIN_STATE_IMPL_H

#include <plastix/backend/finite_strain_state.h>

#include "material/hyperelastic_law.h"
#include "operator_impl.h"

namespace plastix
{
  namespace backend
  {
    struct FiniteStrainState::Impl
    {
      const DeviceOperator *op      = nullptr;
      internal::Index64     n_cells = 0;
      /** Strides (cell, entry) of deformation_gradient; entry = (3 i + j) 8 + q (default_strides). */
      internal::Index64 stride_cell = 0, stride_entry = 0;
      /** F_ij at every Gauss point of the linearisation point. */
      DeviceArray<double> deformation_gradient;

      internal::Strided<double>
      deformation_gradient_view() const
      {
        return {const_cast<double *>(deformation_gradient.data()), stride_cell, stride_entry};
      }

      /** The consistent tangent at the stored F, times the cells' stiffness factors. */
      template <typename Number = double>
      internal::HyperelasticTangentLaw<Number>
      tangent_law() const
      {
        const auto                              &d = op->impl();
        internal::HyperelasticTangentLaw<Number> law;
        law.materials            = d.materials.data();
        law.cell_material        = d.cell_material.data();
        law.cell_factors         = d.cell_factor_data();
        law.deformation_gradient = deformation_gradient_view();
        return law;
      }

      /** The stress of the current displacement, times the cells' stiffness factors: the internal force. */
      internal::HyperelasticLaw<double>
      stress_law() const
      {
        const auto                       &d = op->impl();
        internal::HyperelasticLaw<double> law;
        law.materials     = d.materials.data();
        law.cell_material = d.cell_material.data();
        law.cell_factors  = d.cell_factor_data();
        return law;
      }
    };
  } // namespace backend
} // namespace plastix

#endif
