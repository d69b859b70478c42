// Strategy::ebe_atomic and Strategy::ebe_colored: element by element, one
// thread, eight threads or eight shuffle lanes per cell, the cells' sums
// added with atomics or colour by colour without them; the element-by-element
// pass that the other strategies share (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_STRATEGIES_ELEMENT_BY_ELEMENT_H
#define PLASTIX_SOURCE_BACKEND_STRATEGIES_ELEMENT_BY_ELEMENT_H

#include "../mesh_preprocessing.h"
#include "strategy_base.h"

#include <type_traits>
#include <vector>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /** Element by element: gather, cell operator, scatter (atomic or plain). */
      template <typename CellOperator, bool masked, bool atomic>
      struct ElementByElementApply
      {
        using Number = typename CellOperator::value_type;

        CellOperator               cell_operator;
        Strided<const LocalIndex>  cell_nodes;
        const std::uint32_t       *masks     = nullptr;
        const LocalIndex          *cell_list = nullptr;
        const Number              *src       = nullptr;
        Number                    *dst       = nullptr;

        KOKKOS_INLINE_FUNCTION void
        operator()(const Index64 i) const
        {
          const Index64       cell = cell_list != nullptr ? cell_list[i] : i;
          const std::uint32_t mask = masked ? masks[cell] : 0u;
          LocalIndex          nodes[8];
          Number              u[24], f[24];
          gather_cell_values(cell_nodes, cell, mask, src, nodes, u);
          cell_operator.apply(cell, u, f);
          PLASTIX_UNROLL
          for (int a = 0; a < 8; ++a)
            PLASTIX_UNROLL
            for (int c = 0; c < 3; ++c)
              {
                const int k = 3 * a + c;
                if (masked && ((mask >> k) & 1u))
                  continue;
                Number &target = dst[3 * static_cast<Index64>(nodes[a]) + c];
                if (atomic)
                  Kokkos::atomic_add(&target, f[k]);
                else
                  target += f[k];
              }
        }
      };

      /**
       * Element by element with eight threads per cell (EbE_Node of U. Kiran's
       * thesis, "Development of GPU-based Strategies for Finite Element
       * Simulation of Elastoplastic Problems"): the team gathers the values
       * (and, if needed, vertex coordinates) of its cells into scratch
       * memory; thread q of a cell evaluates Gauss point q (quadrature
       * kernels); thread a forms the three rows of vertex a and adds them to
       * dst. Written with team loops, so the same code runs with one thread
       * per team on CPUs.
       */
      template <typename CellOperator, bool masked, bool atomic>
      struct TeamElementByElementApply
      {
        using Number = typename CellOperator::value_type;

        CellOperator              cell_operator;
        Strided<const LocalIndex> cell_nodes;
        const double             *coordinates = nullptr;
        const std::uint32_t      *masks       = nullptr;
        const LocalIndex         *cell_list   = nullptr;
        Index64                   begin = 0, end = 0;
        const Number             *src = nullptr;
        Number                   *dst = nullptr;

        /** Output entries of one point's phase. */
        static constexpr int point_entries = CellOperator::point_entries;
        /** Volume-pass entries per cell (B-bar: JxW and JxW div u of 8 points; F-bar f_bar.h's). */
        static constexpr int volume_entries =
          CellOperator::has_volume_pass ? 8 * CellOperator::volume_entries_per_point : 0;
        /** Scratch numbers per cell: values, coordinates, point outputs of 8 points, volume pass. */
        static constexpr int scratch_per_cell = 24 + 24 + 8 * point_entries + volume_entries;

        KOKKOS_INLINE_FUNCTION static constexpr std::size_t
        scratch_bytes()
        {
          return (sizeof(Number) * scratch_per_cell + sizeof(LocalIndex) * 8) * cells_per_team;
        }

        /**
         * Run @p body(cell, cl, q) for Gauss point q of every cell cl of the
         * team whose first item is @p first (one thread per point), then
         * wait for the team.
         */
        template <typename Body>
        KOKKOS_INLINE_FUNCTION void
        for_each_point(const TeamMember &team, const Index64 first, const Body &body) const
        {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 8 * cells_per_team), [&](const int t) {
            const int     cl = t / 8, q = t % 8;
            const Index64 i  = first + cl;
            if (i >= end)
              return;
            body(cell_list != nullptr ? cell_list[i] : i, cl, q);
          });
          team.team_barrier();
        }

        KOKKOS_INLINE_FUNCTION void
        operator()(const TeamMember &team) const
        {
          Number     *scratch = static_cast<Number *>(team.team_shmem().get_shmem(scratch_bytes()));
          Number     *u_s     = scratch;
          Number     *x_s     = u_s + 24 * cells_per_team;
          Number     *T_s     = x_s + 24 * cells_per_team;
          Number     *V_s     = T_s + 8 * point_entries * cells_per_team;
          LocalIndex *n_s     = reinterpret_cast<LocalIndex *>(V_s + volume_entries * cells_per_team);
          const Index64 first = begin + static_cast<Index64>(team.league_rank()) * cells_per_team;

          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 8 * cells_per_team), [&](const int t) {
            const int     cl = t / 8, a = t % 8;
            const Index64 i  = first + cl;
            if (i >= end)
              return;
            const Index64       cell = cell_list != nullptr ? cell_list[i] : i;
            const LocalIndex    node = cell_nodes(cell, a);
            const std::uint32_t mask = masked ? masks[cell] : 0u;
            n_s[8 * cl + a]          = node;
            for (int c = 0; c < 3; ++c)
              u_s[24 * cl + 3 * a + c] =
                (mask >> (3 * a + c)) & 1u ? Number(0) : src[3 * static_cast<Index64>(node) + c];
            if (CellOperator::needs_coordinates)
              for (int c = 0; c < 3; ++c)
                x_s[24 * cl + 3 * a + c] = static_cast<Number>(coordinates[3 * static_cast<Index64>(node) + c]);
          });
          team.team_barrier();

          if (CellOperator::has_volume_pass)
            for_each_point(team, first, [&](const Index64 cell, const int cl, const int q) {
              cell_operator.volume_pass(cell, q, u_s + 24 * cl, x_s + 24 * cl, V_s + volume_entries * cl + CellOperator::volume_entries_per_point * q);
            });

          if (CellOperator::has_point_phase)
            for_each_point(team, first, [&](const Index64 cell, const int cl, const int q) {
              cell_operator.point_phase(cell, q, u_s + 24 * cl, x_s + 24 * cl, V_s + volume_entries * cl,
                                        T_s + 8 * point_entries * cl + point_entries * q);
            });

          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 8 * cells_per_team), [&](const int t) {
            const int     cl = t / 8, a = t % 8;
            const Index64 i  = first + cl;
            if (i >= end)
              return;
            const Index64       cell = cell_list != nullptr ? cell_list[i] : i;
            const std::uint32_t mask = masked ? masks[cell] : 0u;
            Number              f[3];
            cell_operator.node_phase(cell, a, u_s + 24 * cl, T_s + 8 * point_entries * cl, f);
            const Index64 node = static_cast<Index64>(n_s[8 * cl + a]);
            for (int c = 0; c < 3; ++c)
              {
                if (masked && ((mask >> (3 * a + c)) & 1u))
                  continue;
                Number &target = dst[3 * node + c];
                if (atomic)
                  Kokkos::atomic_add(&target, f[c]);
                else
                  target += f[c];
              }
          });
        }
      };

      /**
       * Element by element, one thread per cell, for meshes whose cells all
       * share one element matrix (uniform voxel meshes): the team copies the
       * matrix into scratch memory once, so the 576 matrix reads per cell
       * are warp-wide broadcasts from shared memory instead of global loads
       * (which Nsight Compute showed saturating the load queue).
       */
      template <typename Number, bool masked>
      struct SharedMatrixElementByElementApply
      {
        static constexpr int      cells = 128;
        const double             *matrix = nullptr;
        /** Stiffness factors (MeshData::cell_factors), or null. */
        const float              *cell_factors = nullptr;
        Strided<const LocalIndex> cell_nodes;
        const std::uint32_t      *masks     = nullptr;
        const LocalIndex         *cell_list = nullptr; // unused
        Index64                   begin = 0, end = 0;
        const Number             *src = nullptr;
        Number                   *dst = nullptr;

        KOKKOS_INLINE_FUNCTION static constexpr std::size_t
        scratch_bytes()
        {
          return 576 * sizeof(Number);
        }

        KOKKOS_INLINE_FUNCTION void
        operator()(const TeamMember &team) const
        {
          Number *K = static_cast<Number *>(team.team_shmem().get_shmem(scratch_bytes()));
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 576),
                               [&](const int k) { K[k] = static_cast<Number>(matrix[k]); });
          team.team_barrier();
          const Index64 first = begin + static_cast<Index64>(team.league_rank()) * cells;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, cells), [&](const int t) {
            const Index64 cell = first + t;
            if (cell >= end)
              return;
            const std::uint32_t mask = masked ? masks[cell] : 0u;
            LocalIndex          nodes[8];
            Number              u[24], f[24];
            gather_cell_values(cell_nodes, cell, mask, src, nodes, u);
            element_matrix_times(K, u, f);
            scale_by_cell_factor(cell_factors, cell, f, 24);
            PLASTIX_UNROLL
            for (int a = 0; a < 8; ++a)
              PLASTIX_UNROLL
              for (int c = 0; c < 3; ++c)
                if (!(masked && ((mask >> (3 * a + c)) & 1u)))
                  Kokkos::atomic_add(&dst[3 * static_cast<Index64>(nodes[a]) + c], f[3 * a + c]);
          });
        }
      };

      /** Launch a team of SharedMatrixElementByElementApply::cells threads per block. */
      template <typename Functor>
      void
      launch_shared_matrix(Functor functor, const Index64 n_cells)
      {
        if (n_cells <= 0)
          return;
        static_assert(launches_light_weight<Functor>, "a cell kernel's functor must fit a kernel argument");
        functor.begin           = 0;
        functor.end             = n_cells;
        const Index64 n_teams   = (n_cells + Functor::cells - 1) / Functor::cells;
        Kokkos::parallel_for("plastix::ebe_atomic_shared_matrix",
                             TeamPolicy(static_cast<int>(n_teams), on_device ? Functor::cells : 1)
                               .set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes())),
                             functor);
      }

      /** Launch a team kernel over items [begin, end) of the cell range or list. */
      template <typename Functor>
      void
      launch_team(const char *label, Functor functor, const Index64 begin, const Index64 end)
      {
        static_assert(launches_light_weight<Functor>, "a cell kernel's functor must fit a kernel argument");
        if (end <= begin)
          return;
        functor.begin           = begin;
        functor.end             = end;
        const Index64 n_teams   = (end - begin + cells_per_team - 1) / cells_per_team;
        const int     team_size = on_device ? 8 * cells_per_team : 1;
        Kokkos::parallel_for(label,
                             TeamPolicy(static_cast<int>(n_teams), team_size)
                               .set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes())),
                             functor);
      }

      /**
       * Call @p run with a default-constructed Apply<CellOperator, masked,
       * atomic>, the compile-time variant that the run-time flags select.
       */
      template <template <typename, bool, bool> class Apply, typename CellOperator, typename Run>
      void
      with_element_by_element_variant(const bool masked, const bool atomic, Run &&run)
      {
        if (masked)
          {
            if (atomic)
              run(Apply<CellOperator, true, true>{});
            else
              run(Apply<CellOperator, true, false>{});
          }
        else
          {
            if (atomic)
              run(Apply<CellOperator, false, true>{});
            else
              run(Apply<CellOperator, false, false>{});
          }
      }


      /** The kernel labels of an element-by-element pass, one per thread mapping. */
      struct KernelLabels
      {
        /** One thread per cell. */
        const char *cell = "";
        /** Eight threads per cell (ThreadMapping::node). */
        const char *node = "";
        /** Eight shuffle lanes per cell (ThreadMapping::shuffle). */
        const char *shuffle = "";
      };

      /** The cells an element-by-element pass visits, launch by launch. */
      struct CellPasses
      {
        /** The cell of each item, or null: item i is cell i. */
        const LocalIndex *cell_list = nullptr;
        /** Launch k runs the items [offsets[k], offsets[k + 1]). */
        const LocalIndex *offsets = nullptr;
        std::size_t       n_launches = 0;
        /** Whether the cells of one launch may share nodes (atomic sums). */
        bool atomic = true;
        /** The kernels' labels. */
        KernelLabels labels;
      };

      /**
       * dst += A_cells src over the cells of @p passes with @p cell_operator,
       * with the operator's thread mapping: eight shuffle lanes per cell
       * (quadrature kernels), eight threads per cell, or one.
       */
      template <typename CellOperator, typename Number>
      void
      add_cell_products(const DeviceOperator::Impl &d,
                        const CellOperator         &cell_operator,
                        const Number               *src,
                        Number                     *dst,
                        const bool                  masked,
                        const CellPasses           &passes)
      {
        static_assert(std::is_same<Number, typename CellOperator::value_type>::value,
                      "the vectors and the cell operator must use the same number type");
        // Set the members every element-by-element functor has, then launch
        // each pass with launch(label, functor, begin, end).
        const auto run = [&](auto functor, const auto &launch, const char *label) {
          functor.cell_operator = cell_operator;
          functor.cell_nodes    = d.cell_node_table();
          functor.masks         = d.cell_constraint_mask.data();
          functor.cell_list     = passes.cell_list;
          functor.src           = src;
          functor.dst           = dst;
          for (std::size_t k = 0; k < passes.n_launches; ++k)
            launch(label, functor, Index64(passes.offsets[k]), Index64(passes.offsets[k + 1]));
        };
        if constexpr (is_quadrature_operator<CellOperator>::value)
          if (d.settings.thread_mapping == ThreadMapping::shuffle)
            {
              with_element_by_element_variant<LaneElementByElementApply, CellOperator>(
                masked, passes.atomic, [&](auto functor) {
                  run(
                    functor,
                    [](const char *label, const auto &f, const Index64 begin, const Index64 end) {
                      launch_lanes(label, f, begin, end);
                    },
                    passes.labels.shuffle);
                });
              return;
            }
        if (d.settings.thread_mapping == ThreadMapping::node)
          {
            with_element_by_element_variant<TeamElementByElementApply, CellOperator>(
              masked, passes.atomic, [&](auto functor) {
                functor.coordinates = d.coordinates.data();
                run(
                  functor,
                  [](const char *label, const auto &f, const Index64 begin, const Index64 end) {
                    launch_team(label, f, begin, end);
                  },
                  passes.labels.node);
              });
            return;
          }
        with_element_by_element_variant<ElementByElementApply, CellOperator>(
          masked, passes.atomic, [&](auto functor) {
            run(
              functor,
              [](const char *label, const auto &f, const Index64 begin, const Index64 end) {
                for_range(label, begin, end, f);
              },
              passes.labels.cell);
          });
      }

      /** dst = A src by SharedMatrixElementByElementApply: the one element matrix of the mesh. */
      template <typename Number>
      void
      apply_shared_matrix(const DeviceOperator::Impl &d, const Number *src, Number *dst, const bool masked)
      {
        vector_operations::set(3 * static_cast<Index64>(d.n_nodes), Number(0), dst);
        auto run = [&](auto functor) {
          functor.matrix       = d.matrices.data();
          functor.cell_factors = d.cell_factor_data();
          functor.cell_nodes   = d.cell_node_table();
          functor.masks        = d.cell_constraint_mask.data();
          functor.src          = src;
          functor.dst          = dst;
          launch_shared_matrix(functor, d.n_cells);
        };
        if (masked)
          run(SharedMatrixElementByElementApply<Number, true>{});
        else
          run(SharedMatrixElementByElementApply<Number, false>{});
      }

      /**
       * Strategy::ebe_atomic and Strategy::ebe_colored (the interface of a
       * strategy, see strategy_dispatch.h): all cells in one launch with
       * atomic sums, or colour by colour (no two cells of a colour share a
       * node) with plain ones.
       */
      struct ElementByElement : StrategyBase<ElementByElement>
      {
        /** The colours (ebe colored). */
        static void
        setup(const MeshData &mesh, DeviceOperator::Impl &d)
        {
          if (d.settings.strategy != Strategy::ebe_colored)
            return;
          std::vector<LocalIndex> sorted;
          color_cells(mesh, sorted, d.color_offsets);
          d.colored_cells = DeviceArray<LocalIndex>(sorted, "colored cells");
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
          vector_operations::set(3 * static_cast<Index64>(d.n_nodes), Number(0), dst);
          if (d.settings.strategy == Strategy::ebe_colored)
            add_cell_products(d, cell_operator, src, dst, masked,
                              CellPasses{d.colored_cells.data(), d.color_offsets.data(),
                                         d.color_offsets.empty() ? 0 : d.color_offsets.size() - 1, false,
                                         {"plastix::ebe_colored", "plastix::ebe_colored_node",
                                          "plastix::ebe_colored_shuffle"}});
          else
            {
              const LocalIndex all_cells[2] = {0, d.n_cells};
              add_cell_products(d, cell_operator, src, dst, masked,
                                CellPasses{nullptr, all_cells, 1, true,
                                           {"plastix::ebe_atomic", "plastix::ebe_atomic_node",
                                            "plastix::ebe_atomic_shuffle"}});
            }
          if (masked)
            copy_unit_rows(d, src, dst);
        }

        /**
         * dst = A src with the operator's cell operator; one element matrix
         * for the whole mesh is read from scratch memory (ebe atomic, one
         * thread per cell).
         */
        template <typename Number>
        static void
        apply(const DeviceOperator::Impl &d, const Number *src, Number *dst, const bool masked)
        {
          if (uses_one_element_matrix(d) && d.settings.strategy == Strategy::ebe_atomic &&
              d.settings.thread_mapping != ThreadMapping::node)
            {
              apply_shared_matrix(d, src, dst, masked);
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
