// Strategy::dbd_structured: the lattice pass of structured_grid.h, then the
// cells the lattice leaves (those with plastic points of a tangent) element
// by element; the stored-stress products go element by element (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_STRATEGIES_STRUCTURED_H
#define PLASTIX_SOURCE_BACKEND_STRATEGIES_STRUCTURED_H

#include "element_by_element.h"

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /**
       * Strategy::dbd_structured (the interface of a strategy, see
       * strategy_dispatch.h); apply_with() is ElementByElement's, with
       * atomics: the lattice holds the operator's own law only.
       */
      struct Structured : ElementByElement
      {
        /** The lattice, its node classes and stencils. */
        static void
        setup(const MeshData &mesh, DeviceOperator::Impl &d)
        {
          build_structured_grid(mesh, d);
        }

        /**
         * dst = A src: the lattice pass, then the cells it leaves element by
         * element with atomics, with the cell kernel of the settings.
         */
        template <typename Number>
        static void
        apply(const DeviceOperator::Impl &d, const Number *src, Number *dst, const bool masked)
        {
          apply_structured(d, src, dst, masked);
          if (d.structured.n_other_cells > 0)
            with_cell_operator<Number>(d, [&](const auto &op) {
              const LocalIndex other_cells[2] = {0, static_cast<LocalIndex>(d.structured.n_other_cells)};
              add_cell_products(d, op, src, dst, masked,
                                CellPasses{d.structured.other_cells.data(), other_cells, 1, true,
                                           {"plastix::dbd_structured_other_cells",
                                            "plastix::dbd_structured_other_cells_node",
                                            "plastix::dbd_structured_other_cells_shuffle"}});
            });
          // The lattice pass wrote the unit rows of the constrained owned DoFs
          // itself; the element-by-element pass may have added to them since.
          if (masked && (d.structured.n_other_cells > 0 || d.structured.n_points() == 0))
            copy_unit_rows(d, src, dst);
        }

        /** The node classes: which cells the lattice applies under the new law. */
        static void
        update_tangent(DeviceOperator::Impl &d)
        {
          if (d.structured.node_cells.size() > 0)
            update_structured_classes(d);
        }
      };
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
