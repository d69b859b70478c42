// The one place where the operator's strategy is dispatched (Kokkos).
//
// Each strategy is a class of static functions with one interface:
//   setup(mesh, d)                  its data, after the cells and the cell kernel's data;
//   apply(d, src, dst, masked)      dst = A src with the operator's own cell operator;
//   apply_with(d, op, src, dst, masked)
//                                   dst = A src with a given cell operator (the stored-stress forces);
//   update_tangent(d)               what depends on the law, after it changed.
// With masked, the constrained DoFs get unit rows (DeviceOperator::apply()).
// StrategyBase (strategy_base.h) gives apply() through apply_with() and an
// empty update_tangent(); assembled and dbd structured take ElementByElement's
// apply_with() for the products with another cell operator.
#ifndef PLASTIX_SOURCE_BACKEND_STRATEGIES_STRATEGY_DISPATCH_H
#define PLASTIX_SOURCE_BACKEND_STRATEGIES_STRATEGY_DISPATCH_H

#include "assembled.h"
#include "dof_by_dof.h"
#include "element_by_element.h"
#include "structured.h"
#include "tiled.h"

#include <stdexcept>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /** Call @p action with the class of @p strategy (see the top of this file). */
      template <typename Action>
      void
      with_strategy(const Strategy strategy, const Action &action)
      {
        switch (strategy)
          {
            case Strategy::ebe_atomic:
            case Strategy::ebe_colored:
              action(ElementByElement{});
              return;
            case Strategy::ebe_tiled:
              action(Tiled{});
              return;
            case Strategy::dbd:
              action(DofByDof{});
              return;
            case Strategy::assembled:
              action(Assembled{});
              return;
            case Strategy::dbd_structured:
              action(Structured{});
              return;
          }
        throw std::logic_error("unknown operator strategy");
      }

      /** dst = A src with the operator's strategy and the given cell operator. */
      template <typename CellOperator, typename Number>
      void
      launch_apply(const DeviceOperator::Impl &d,
                   const CellOperator         &cell_operator,
                   const Number               *src,
                   Number                     *dst,
                   const bool                  masked)
      {
        with_strategy(d.settings.strategy,
                      [&](auto strategy) { strategy.apply_with(d, cell_operator, src, dst, masked); });
      }
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
