// Strategy::dbd: DoF by DoF, one thread per node summing its rows over the
// node's cells: no atomics, each cell evaluated once per vertex (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_STRATEGIES_DOF_BY_DOF_H
#define PLASTIX_SOURCE_BACKEND_STRATEGIES_DOF_BY_DOF_H

#include "../mesh_preprocessing.h"
#include "strategy_base.h"

#include <vector>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /** DoF by DoF (node-wise): each node sums its rows over adjacent cells. */
      template <typename CellOperator, bool masked>
      struct DofByDofApply
      {
        using Number = typename CellOperator::value_type;

        CellOperator              cell_operator;
        Strided<const LocalIndex> cell_nodes;
        const std::uint32_t      *masks        = nullptr;
        const LocalIndex         *node_offsets = nullptr;
        const LocalIndex         *node_entries = nullptr;
        const Number             *src          = nullptr;
        Number                   *dst          = nullptr;

        KOKKOS_INLINE_FUNCTION void
        operator()(const Index64 node) const
        {
          Number r[3] = {0, 0, 0};
          for (LocalIndex k = node_offsets[node]; k < node_offsets[node + 1]; ++k)
            {
              const LocalIndex    entry = node_entries[k];
              const Index64       cell  = entry >> 3;
              const int           a     = entry & 7;
              const std::uint32_t mask  = masked ? masks[cell] : 0u;
              LocalIndex          nodes[8];
              Number              u[24], f[3];
              gather_cell_values(cell_nodes, cell, mask, src, nodes, u);
              cell_operator.apply_node_rows(cell, a, u, f);
              PLASTIX_UNROLL
              for (int c = 0; c < 3; ++c)
                if (!masked || !((mask >> (3 * a + c)) & 1u))
                  r[c] += f[c];
            }
          PLASTIX_UNROLL
          for (int c = 0; c < 3; ++c)
            dst[3 * node + c] = r[c];
        }
      };


      /** Strategy::dbd (the interface of a strategy, see strategy_dispatch.h). */
      struct DofByDof : StrategyBase<DofByDof>
      {
        /** The (cell << 3 | vertex) lists of the nodes. */
        static void
        setup(const MeshData &mesh, DeviceOperator::Impl &d)
        {
          std::vector<LocalIndex> offsets, entries;
          node_cell_lists(mesh, offsets, entries);
          d.node_offsets = DeviceArray<LocalIndex>(offsets, "node offsets");
          d.node_entries = DeviceArray<LocalIndex>(entries, "node cell lists");
        }

        /** dst = A src with @p cell_operator (unit rows at constrained DoFs if @p masked). */
        template <typename CellOperator, typename Number>
        static void
        apply_with(const DeviceOperator::Impl &d,
                   const CellOperator         &cell_operator,
                   const Number               *src,
                   Number                     *dst,
                   const bool                  masked)
        {
          auto run = [&](auto functor) {
            functor.cell_operator = cell_operator;
            functor.cell_nodes    = d.cell_node_table();
            functor.masks         = d.cell_constraint_mask.data();
            functor.node_offsets  = d.node_offsets.data();
            functor.node_entries  = d.node_entries.data();
            functor.src           = src;
            functor.dst           = dst;
            for_range("plastix::dbd", d.n_nodes, functor);
          };
          if (masked)
            {
              run(DofByDofApply<CellOperator, true>{});
              copy_unit_rows(d, src, dst);
            }
          else
            run(DofByDofApply<CellOperator, false>{});
        }
      };
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
