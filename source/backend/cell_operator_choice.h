// The cell operator that the operator's settings and state select (geometry,
// law, element formulation, precision), shared by the backend translation
// units that apply, assemble or differentiate the operator (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_CELL_OPERATOR_CHOICE_H
#define PLASTIX_SOURCE_BACKEND_CELL_OPERATOR_CHOICE_H

#include "finite_strain_state_impl.h"
#include "gauss_point_state_impl.h"
#include "operator_impl.h"

#include <stdexcept>
#include <type_traits>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /**
       * Run @p action with the quadrature cell operator of the chosen
       * geometry and the current law, evaluated in @p Number: the
       * finite-strain tangent if a finite-strain state is attached, the
       * plasticity tangent if a plasticity state is, linear elasticity
       * otherwise.
       */
      template <typename Number = double, typename Action>
      void
      with_quadrature_operator(const DeviceOperator::Impl &d, const Action &action)
      {
        const bool stored = d.settings.cell_kernel == CellKernel::stored_geometry;
        internal::with_element_formulation(d.settings.element_formulation, [&](auto mean_dilatation) {
          constexpr bool averaged = decltype(mean_dilatation)::value;
          auto           with_law = [&](const auto &law) {
            using Law = std::decay_t<decltype(law)>;
            if (stored)
              action(internal::QuadratureCellOperator<internal::StoredGeometry<Number>, Law, averaged>{
                d.template stored_geometry<Number>(), law});
            else
              action(internal::QuadratureCellOperator<internal::OnTheFlyGeometry<Number>, Law, averaged>{
                d.template on_the_fly_geometry<Number>(), law});
          };
          if (d.finite_strain != nullptr)
            d.finite_strain->template with_tangent_law<Number>(with_law);
          else if (d.plasticity != nullptr)
            with_law(d.plasticity->template tangent_law<Number>());
          else
            with_law(d.template elastic_law<Number>());
        });
      }

      template <typename Number>
      internal::MatrixCellOperator<Number>
      matrix_operator(const DeviceOperator::Impl &d)
      {
        internal::MatrixCellOperator<Number> op;
        op.matrices     = d.matrices.data();
        op.cell_matrix  = d.cell_matrix.data();
        op.own_matrices = d.plastic_matrices.data();
        op.n_shared     = static_cast<LocalIndex>(d.n_matrices);
        op.cell_factors = d.cell_factor_data();
        return op;
      }

      /** Whether every cell uses one element matrix (element-matrix kernel, congruent cells, no tangent's own). */
      inline bool
      uses_one_element_matrix(const DeviceOperator::Impl &d)
      {
        return d.settings.cell_kernel == CellKernel::element_matrix && d.n_matrices == 1 &&
               d.n_plastic_matrices == 0;
      }

      /**
       * Run @p action with the cell operator of the settings' cell kernel:
       * the element matrices, or the quadrature operator of
       * with_quadrature_operator().
       */
      template <typename Number, typename Action>
      void
      with_cell_operator(const DeviceOperator::Impl &d, const Action &action)
      {
        if (d.settings.cell_kernel == CellKernel::element_matrix)
          action(matrix_operator<Number>(d));
        else
          with_quadrature_operator<Number>(d, action);
      }

      /** The numeric pass of Strategy::assembled with the current law (elastic or tangent). */
      void
      assemble_matrix_values(DeviceOperator::Impl &d);
    } // namespace internal
  } // namespace backend
} // namespace plastix

#endif
