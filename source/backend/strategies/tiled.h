// Strategy::ebe_tiled: element by element in tiles of neighbouring cells,
// one team per tile, the sums of the tile's interior nodes formed in scratch
// memory without floating-point atomics (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_STRATEGIES_TILED_H
#define PLASTIX_SOURCE_BACKEND_STRATEGIES_TILED_H

#include "../mesh_preprocessing.h"
#include "strategy_base.h"

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /**
       * Element by element in tiles of neighbouring cells (Strategy::ebe_tiled),
       * one team per tile and one thread per cell, all exchange through team
       * scratch memory: the team gathers the tile's nodal values once; each
       * cell computes its 24 contributions into its own scratch slots and
       * registers itself with its eight nodes (integer scratch atomics); each
       * node then sums the contributions of its cells (no floating-point
       * atomics in scratch memory, which GPUs emulate with compare-and-swap
       * loops) and writes the sum to dst: a plain store for nodes whose cells
       * all lie in the tile, a global atomic add for the others. With
       * @p shared_matrix every cell uses the one element matrix, read from
       * scratch memory (one matrix for the whole mesh).
       */
      template <typename CellOperator, bool masked, bool shared_matrix>
      struct TiledElementByElementApply
      {
        using Number = typename CellOperator::value_type;

        CellOperator         cell_operator;
        const double        *matrix            = nullptr;
        /** Stiffness factors of the shared-matrix form (MeshData::cell_factors), or null. */
        const float         *cell_factors      = nullptr;
        const LocalIndex    *tile_cell_offsets = nullptr;
        const LocalIndex    *tile_cells        = nullptr;
        const LocalIndex    *tile_node_offsets = nullptr;
        const LocalIndex    *tile_nodes        = nullptr;
        const std::uint16_t *tile_vertex       = nullptr;
        const std::uint8_t  *tile_node_flags   = nullptr;
        int                  max_nodes         = 0;
        int                  max_cells         = 0;
        int                  max_node_cells    = 0;
        const Number        *src               = nullptr;
        Number              *dst               = nullptr;

        /**
         * Scratch: values (3 per node), contributions (24 per cell), the
         * matrix, and per node a count and max_node_cells entries.
         */
        KOKKOS_INLINE_FUNCTION std::size_t
        scratch_bytes() const
        {
          return sizeof(Number) * (3 * static_cast<std::size_t>(max_nodes) + 24 * static_cast<std::size_t>(max_cells) +
                                   (shared_matrix ? 576 : 0)) +
                 sizeof(int) * (1 + max_node_cells) * static_cast<std::size_t>(max_nodes);
        }

        KOKKOS_INLINE_FUNCTION void
        operator()(const TeamMember &team) const
        {
          const Index64 tile       = team.league_rank();
          const Index64 cell_begin = tile_cell_offsets[tile];
          const int     n_cells    = static_cast<int>(tile_cell_offsets[tile + 1] - cell_begin);
          const Index64 node_begin = tile_node_offsets[tile];
          const int     n_nodes    = static_cast<int>(tile_node_offsets[tile + 1] - node_begin);
          Number       *u_s     = static_cast<Number *>(team.team_shmem().get_shmem(scratch_bytes()));
          Number       *f_s     = u_s + 3 * max_nodes;
          Number       *K       = f_s + 24 * max_cells;
          int          *count   = reinterpret_cast<int *>(K + (shared_matrix ? 576 : 0));
          int          *entries = count + max_nodes;
          if (shared_matrix)
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 576),
                                 [&](const int k) { K[k] = static_cast<Number>(matrix[k]); });
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n_nodes), [&](const int i) {
            const Index64      node  = tile_nodes[node_begin + i];
            const std::uint8_t flags = tile_node_flags[node_begin + i];
            for (int c = 0; c < 3; ++c)
              u_s[3 * i + c] = (masked && ((flags >> c) & 1u)) ? Number(0) : src[3 * node + c];
            count[i] = 0;
          });
          team.team_barrier();

          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n_cells), [&](const int t) {
            const Index64 k = cell_begin + t;
            int           local[8];
            Number        u[24], f[24];
            PLASTIX_UNROLL
            for (int a = 0; a < 8; ++a)
              {
                local[a] = tile_vertex[8 * k + a];
                PLASTIX_UNROLL
                for (int c = 0; c < 3; ++c)
                  u[3 * a + c] = u_s[3 * local[a] + c];
              }
            if (shared_matrix)
              {
                element_matrix_times(K, u, f);
                scale_by_cell_factor(cell_factors, tile_cells[k], f, 24);
              }
            else
              cell_operator.apply(tile_cells[k], u, f);
            PLASTIX_UNROLL
            for (int i = 0; i < 24; ++i)
              f_s[max_cells * i + t] = f[i];
            PLASTIX_UNROLL
            for (int a = 0; a < 8; ++a)
              {
                const int slot                            = Kokkos::atomic_fetch_add(&count[local[a]], 1);
                entries[max_node_cells * local[a] + slot] = 8 * t + a;
              }
          });
          team.team_barrier();

          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n_nodes), [&](const int i) {
            const Index64      node  = tile_nodes[node_begin + i];
            const std::uint8_t flags = tile_node_flags[node_begin + i];
            Number             sum[3] = {0, 0, 0};
            for (int e = 0; e < count[i]; ++e)
              {
                const int t = entries[max_node_cells * i + e] / 8, a = entries[max_node_cells * i + e] % 8;
                for (int c = 0; c < 3; ++c)
                  sum[c] += f_s[max_cells * (3 * a + c) + t];
              }
            for (int c = 0; c < 3; ++c)
              {
                if (masked && ((flags >> c) & 1u))
                  continue;
                if (flags & tile_interior_node)
                  dst[3 * node + c] = sum[c];
                else
                  Kokkos::atomic_add(&dst[3 * node + c], sum[c]);
              }
          });
        }
      };

      /**
       * dst = A src with Strategy::ebe_tiled (dst zeroed first; the caller
       * sets the unit rows of constrained DoFs).
       */
      template <bool shared_matrix, typename CellOperator, typename Number>
      void
      launch_tiled(const DeviceOperator::Impl &data,
                   const CellOperator         &cell_operator,
                   const Number               *src,
                   Number                     *dst,
                   const bool                  masked)
      {
        vector_operations::set(3 * static_cast<Index64>(data.n_nodes), Number(0), dst);
        if (data.n_tiles == 0)
          return;
        auto run = [&](auto functor) {
          functor.cell_operator     = cell_operator;
          functor.matrix            = data.matrices.data();
          functor.cell_factors      = data.cell_factor_data();
          functor.tile_cell_offsets = data.tile_cell_offsets.data();
          functor.tile_cells        = data.tile_cells.data();
          functor.tile_node_offsets = data.tile_node_offsets.data();
          functor.tile_nodes        = data.tile_nodes.data();
          functor.tile_vertex       = data.tile_vertex.data();
          functor.tile_node_flags   = data.tile_node_flags.data();
          functor.max_nodes         = data.max_nodes_per_tile;
          functor.max_cells         = static_cast<int>(data.settings.cells_per_tile);
          functor.max_node_cells    = data.max_cells_per_tile_node;
          functor.src               = src;
          functor.dst               = dst;
          const int team_size       = on_device ? static_cast<int>(data.settings.cells_per_tile) : 1;
          static_assert(launches_light_weight<decltype(functor)>, "a tile kernel's functor must fit a kernel argument");
          Kokkos::parallel_for("plastix::ebe_tiled",
                               TeamPolicy(static_cast<int>(data.n_tiles), team_size)
                                 .set_scratch_size(0, Kokkos::PerTeam(functor.scratch_bytes())),
                               functor);
        };
        if (masked)
          run(TiledElementByElementApply<CellOperator, true, shared_matrix>{});
        else
          run(TiledElementByElementApply<CellOperator, false, shared_matrix>{});
      }


      /** Strategy::ebe_tiled (the interface of a strategy, see strategy_dispatch.h). */
      struct Tiled : StrategyBase<Tiled>
      {
        /** The tiles: cells along a Morton curve, in groups of cells_per_tile. */
        static void
        setup(const MeshData &mesh, DeviceOperator::Impl &d)
        {
          build_tiles(mesh, d.settings.cells_per_tile, d);
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
          launch_tiled<false>(d, cell_operator, src, dst, masked);
          if (masked)
            copy_unit_rows(d, src, dst);
        }

        /** dst = A src with the operator's cell operator; one element matrix for the mesh is kept in scratch memory. */
        template <typename Number>
        static void
        apply(const DeviceOperator::Impl &d, const Number *src, Number *dst, const bool masked)
        {
          if (uses_one_element_matrix(d))
            {
              launch_tiled<true>(d, matrix_operator<Number>(d), src, dst, masked);
              if (masked)
                copy_unit_rows(d, src, dst);
            }
          else
            StrategyBase::apply(d, src, dst, masked);
        }
      };
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
