// Internal data of GaussPointState: the Gauss-point history, tangent and
// stress of J2 plasticity (material/j2_plasticity.h) on the device (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_GAUSS_POINT_STATE_IMPL_H
#define PLASTIX_SOURCE_BACKEND_GAUSS_POINT_STATE_IMPL_H

#include <plastix/backend/gauss_point_state.h>

#include "material/j2_plasticity.h"
#include "material/pressure_dependent.h"
#include "operator_impl.h"

#include <type_traits>

namespace plastix
{
  namespace backend
  {
    struct GaussPointState::Impl
    {
      const DeviceOperator *op      = nullptr;
      internal::Index64        n_cells = 0;
      /**
       * Strides (cell, entry) of the per-point arrays; entry = field * 8 + q.
       * SoA on GPUs, AoS on CPUs (default_strides), so each array has its own.
       */
      internal::Index64 history_stride_cell = 0, history_stride_entry = 0;
      internal::Index64 tangent_stride_cell = 0, tangent_stride_entry = 0;
      internal::Index64 stress_stride_cell = 0, stress_stride_entry = 0;
      /**
       * Tangent fields per Gauss point: internal::tangent_fields (J2: a, b,
       * n) or, with a pressure-dependent material,
       * internal::general_tangent_fields (the 6x6 matrix; J2 cells use the
       * first 8).
       */
      int tangent_fields = 0;

      DeviceArray<double>       history_committed;
      DeviceArray<double>       history_trial;
      DeviceArray<double>       tangent;
      /**
       * The tangent rounded to float, for single-precision applications
       * (the levels of a single-precision V-cycle read it in every
       * smoothing step): half the bytes of @p tangent, the same values that
       * those applications cast from it before. Made at the first such
       * application after each update(), so that runs without them
       * neither hold nor convert it.
       */
      mutable DeviceArray<float> tangent_single;
      mutable bool               tangent_single_current = false;
      DeviceArray<double>       stress;
      DeviceArray<std::uint8_t> cell_plastic;
      DeviceArray<std::uint8_t> point_plastic;

      internal::Strided<double>
      history(const DeviceArray<double> &a) const
      {
        return {const_cast<double *>(a.data()), history_stride_cell, history_stride_entry};
      }

      internal::Strided<double>
      stress_view() const
      {
        return {const_cast<double *>(stress.data()), stress_stride_cell, stress_stride_entry};
      }

      internal::Strided<double>
      tangent_view() const
      {
        return {const_cast<double *>(tangent.data()), tangent_stride_cell, tangent_stride_entry};
      }

      /** The tangent in single precision (tangent_single), brought up to date first. */
      internal::Strided<const float>
      single_tangent_view() const;

      /**
       * The consistent tangent times the cells' stiffness factors, or
       * without them (@p with_cell_factors false: the element matrices of
       * plastic cells, which the matrix kernels scale per cell).
       */
      template <typename Number = double>
      internal::TangentLaw<Number>
      tangent_law(const bool with_cell_factors = true) const
      {
        const auto &d = op->impl();
        internal::Strided<const Number> view;
        if constexpr (std::is_same_v<Number, float>)
          view = single_tangent_view();
        else
          view = tangent_view();
        return {d.materials.data(), d.cell_material.data(), cell_plastic.data(), view,
                with_cell_factors ? d.cell_factor_data() : nullptr};
      }

      /** The stored stresses times the cells' stiffness factors: the internal force. */
      internal::StoredStressLaw
      stored_stress_law() const
      {
        return {stress_view(), op->impl().cell_factor_data()};
      }
    };
  } // namespace backend
} // namespace plastix

#endif
