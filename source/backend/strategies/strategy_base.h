// What the strategy classes share (the interface: strategy_dispatch.h) (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_STRATEGIES_STRATEGY_BASE_H
#define PLASTIX_SOURCE_BACKEND_STRATEGIES_STRATEGY_BASE_H

#include "../cell_operator_choice.h"

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /**
       * The default members of a strategy @p Derived: apply() with the
       * operator's cell operator through Derived::apply_with(), and no data
       * that depends on the tangent.
       */
      template <typename Derived>
      struct StrategyBase
      {
        /** dst = A src with the operator's cell operator (unit rows at constrained DoFs if @p masked). */
        template <typename Number>
        static void
        apply(const DeviceOperator::Impl &d, const Number *src, Number *dst, const bool masked)
        {
          with_cell_operator<Number>(d, [&](const auto &op) { Derived::apply_with(d, op, src, dst, masked); });
        }

        /** Nothing depends on the tangent. */
        static void
        update_tangent(DeviceOperator::Impl &)
        {}
      };
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
