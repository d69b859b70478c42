// Internal data of FiniteStrainState: the deformation gradients at the Gauss
// points, the committed history of the Hencky materials and the
// finite-strain laws (material/hyperelastic_law.h) that read them (Kokkos).
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
      /**
       * F_ij at every Gauss point of the linearisation point (F-bar: F_bar,
       * what the materials see).
       */
      DeviceArray<double> deformation_gradient;
      /** Whether the operator's element formulation is F-bar (ElementFormulation::fbar). */
      bool f_bar = false;
      /** Strides (cell, entry) of dilatation_ratio; entry = q. */
      internal::Index64 ratio_stride_cell = 0, ratio_stride_entry = 0;
      /** F-bar only: (J / J_bar)^(1/3) at every Gauss point, F = ratio F_bar. */
      DeviceArray<double> dilatation_ratio;
      /** Strides (cell, entry) of f_bar_cell_data. */
      internal::Index64 cell_data_stride_cell = 0, cell_data_stride_entry = 0;
      /**
       * F-bar only: per cell the data of the linearisation point that the
       * tangent's product reads (internal::f_bar_cell_entries: reference
       * volume, p_bar, volume gradient), written by store_f_bar_cell_data().
       */
      DeviceArray<double> f_bar_cell_data;
      /**
       * Whether a material has StrainEnergy::hencky: then @p history exists
       * and the laws take the return in the logarithmic strain space.
       */
      bool logarithmic_strain = false;
      /** Strides (cell, entry) of history; entry = k 8 + q (default_strides). */
      internal::Index64 history_stride_cell = 0, history_stride_entry = 0;
      /** Strides (cell, entry) of tangent_data; entry = k 8 + q (default_strides). */
      internal::Index64 tangent_stride_cell = 0, tangent_stride_entry = 0;
      /**
       * The tangent of the Hencky materials' points at the stored F
       * (internal::logarithmic_strain_tangent_fields per point: S and
       * dS/dC), written by update().
       */
      DeviceArray<double> tangent_data;
      /**
       * The committed history of the Hencky materials' points
       * (internal::history_fields per point: plastic strain 0-5,
       * accumulated plastic strain 6, back stress or initial stress 7-12).
       */
      DeviceArray<double> history;

      internal::Strided<double>
      deformation_gradient_view() const
      {
        return {const_cast<double *>(deformation_gradient.data()), stride_cell, stride_entry};
      }

      /** The dilatation ratios, or a view without data (not F-bar). */
      internal::Strided<double>
      dilatation_ratio_view() const
      {
        if (!f_bar)
          return {};
        return {const_cast<double *>(dilatation_ratio.data()), ratio_stride_cell, ratio_stride_entry};
      }

      /** The F-bar cell data, or a view without data (not F-bar). */
      internal::Strided<double>
      f_bar_cell_data_view() const
      {
        if (!f_bar)
          return {};
        return {const_cast<double *>(f_bar_cell_data.data()), cell_data_stride_cell, cell_data_stride_entry};
      }

      internal::Strided<double>
      history_view() const
      {
        return {const_cast<double *>(history.data()), history_stride_cell, history_stride_entry};
      }

      internal::Strided<double>
      tangent_data_view() const
      {
        return {const_cast<double *>(tangent_data.data()), tangent_stride_cell, tangent_stride_entry};
      }

      /**
       * The consistent tangent at the stored F, times the cells' stiffness
       * factors; with @p with_logarithmic_strain (which logarithmic_strain
       * asks for) that of the Hencky materials too.
       */
      template <typename Number = double, bool with_logarithmic_strain = false>
      internal::HyperelasticTangentLaw<Number, with_logarithmic_strain>
      tangent_law() const
      {
        const auto                                                        &d = op->impl();
        internal::HyperelasticTangentLaw<Number, with_logarithmic_strain> law;
        law.materials            = d.materials.data();
        law.cell_material        = d.cell_material.data();
        law.cell_factors         = d.cell_factor_data();
        law.deformation_gradient = deformation_gradient_view();
        law.dilatation_ratio     = dilatation_ratio_view();
        law.f_bar_cell_data      = f_bar_cell_data_view();
        if constexpr (with_logarithmic_strain)
          law.tangent_data = tangent_data_view();
        return law;
      }

      /**
       * The stress of the current displacement, times the cells' stiffness
       * factors: the internal force; with @p with_logarithmic_strain (which
       * logarithmic_strain asks for) that of the Hencky materials too.
       */
      template <bool with_logarithmic_strain = false>
      internal::HyperelasticLaw<double, with_logarithmic_strain>
      stress_law() const
      {
        const auto                                                 &d = op->impl();
        internal::HyperelasticLaw<double, with_logarithmic_strain> law;
        law.materials     = d.materials.data();
        law.cell_material = d.cell_material.data();
        law.cell_factors  = d.cell_factor_data();
        if constexpr (with_logarithmic_strain)
          law.history = history_view();
        return law;
      }

      /**
       * Compute tangent_data at the stored F from the committed history
       * (nothing without a Hencky material): after each new F, and after a
       * change of the history (set_committed_history()).
       */
      void
      store_tangents();

      /**
       * F-bar: compute f_bar_cell_data at the stored F_bar and the tangent
       * data (nothing otherwise): after store_tangents().
       */
      void
      store_f_bar_cell_data();

      /** Run @p action with the tangent law in @p Number that the materials need. */
      template <typename Number, typename Action>
      void
      with_tangent_law(const Action &action) const
      {
        if (logarithmic_strain)
          action(tangent_law<Number, true>());
        else
          action(tangent_law<Number, false>());
      }
    };
  } // namespace backend
} // namespace plastix

#endif
