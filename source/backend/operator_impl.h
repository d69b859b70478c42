// Internal data of MechanicsOperator and the strategy launchers, shared by
// the backend translation units (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_OPERATOR_IMPL_H
#define PLASTIX_SOURCE_BACKEND_OPERATOR_IMPL_H

#include <plastix/backend/device_array.h>
#include <plastix/backend/mechanics_operator.h>
#include <plastix/backend/plasticity.h>
#include <plastix/backend/vector_operations.h>

#include "assembled_matrix.h"
#include "spring_matrix.h"
#include "material/elastic_law.h"
#include "q1_kernels.h"
#include "lane_kernels.h"
#include "structured_grid.h"

#include <type_traits>
#include <vector>

namespace plastix
{
  namespace backend
  {
    struct MechanicsOperator::Impl
    {
      OperatorSettings settings;
      LocalIndex       n_cells       = 0;
      LocalIndex       n_nodes       = 0;
      LocalIndex       n_owned_nodes = 0;

      /** Cell -> node table (8 per cell) in the layout of the execution space. */
      DeviceArray<LocalIndex> cell_nodes;
      internal::Index64                 cell_nodes_stride_cell = 0;
      internal::Index64                 cell_nodes_stride_node = 0;

      /** 3 coordinates per local node. */
      DeviceArray<double> coordinates;

      DeviceArray<Material>      materials;
      DeviceArray<std::uint16_t> cell_material;
      /** Stiffness factor per cell (MeshData::cell_factors); empty: none. */
      DeviceArray<float> cell_factor;
      /** Whether a material has a pressure-dependent yield criterion (general 6x6 tangent per point). */
      bool pressure_dependent = false;
      /** Whether every pressure-dependent material has an associative flow (symmetric tangent). */
      bool symmetric_tangent = true;

      /** Bit 3a+c set if DoF c of vertex a of the cell is constrained. */
      DeviceArray<std::uint32_t> cell_constraint_mask;
      /** Owned constrained DoFs (unit rows). */
      DeviceArray<LocalIndex> constrained_owned_dofs;
      /** All constrained local DoFs. */
      DeviceArray<LocalIndex> constrained_dofs;

      /**
       * Hanging-node constraint lines (MeshData::constraint_*) and their
       * transpose: column_dofs[i] is a DoF that lines depend on, the lines
       * column_lines[k] with weights column_weights[k] for k in
       * [column_offsets[i], column_offsets[i + 1]).
       */
      DeviceArray<LocalIndex> constraint_rows;
      DeviceArray<LocalIndex> constraint_offsets;
      DeviceArray<LocalIndex> constraint_columns;
      DeviceArray<double>     constraint_weights;
      DeviceArray<LocalIndex> column_dofs;
      DeviceArray<LocalIndex> column_offsets;
      DeviceArray<LocalIndex> column_lines;
      DeviceArray<double>     column_weights;
      /** The lines' weights on Dirichlet DoFs (MeshData::dirichlet_*), for condense() only. */
      DeviceArray<LocalIndex> dirichlet_offsets;
      DeviceArray<LocalIndex> dirichlet_columns;
      DeviceArray<double>     dirichlet_weights;
      /** Line of each local DoF, -1 where none (allocated only with lines). */
      DeviceArray<LocalIndex> line_of_dof;
      /** Cells with a vertex DoF that has a line (their diagonal gets the coupling terms). */
      DeviceArray<LocalIndex> constrained_cells;
      std::size_t             n_constraint_lines = 0;
      /** The source values of the constrained rows, kept while the cells see interpolated ones. */
      mutable DeviceArray<double> saved_row_values;
      mutable DeviceArray<float>  saved_row_values_float;

      /** Stored geometry: 80 doubles per cell (stored_geometry kernel). */
      DeviceArray<double> geometry;
      internal::Index64             geometry_stride_cell  = 0;
      internal::Index64             geometry_stride_entry = 0;

      /** Cells sorted by colour and the colour offsets (ebe_colored). */
      DeviceArray<LocalIndex>  colored_cells;
      std::vector<LocalIndex>  color_offsets;

      /**
       * Tiles (ebe tiled): the cells of tile t are tile_cells[k] for k in
       * [tile_cell_offsets[t], tile_cell_offsets[t + 1]), its nodes
       * tile_nodes[i] for i in [tile_node_offsets[t], tile_node_offsets[t + 1]).
       * tile_vertex[8 k + a] is the index within the tile's node list of
       * vertex a of the cell at position k; tile_node_flags[i] has bit c set
       * if DoF c of the node is constrained and bit 3 set if all cells of the
       * node lie in the tile (its sum is stored without atomics).
       */
      DeviceArray<LocalIndex>    tile_cells;
      DeviceArray<LocalIndex>    tile_cell_offsets;
      DeviceArray<LocalIndex>    tile_nodes;
      DeviceArray<LocalIndex>    tile_node_offsets;
      DeviceArray<std::uint16_t> tile_vertex;
      DeviceArray<std::uint8_t>  tile_node_flags;
      std::size_t                n_tiles            = 0;
      int                        max_nodes_per_tile = 0;
      /** The most cells of one tile that share a node. */
      int                        max_cells_per_tile_node = 0;

      /** Node -> (cell << 3 | vertex) lists in CSR form (dbd). */
      DeviceArray<LocalIndex> node_offsets;
      DeviceArray<LocalIndex> node_entries;

      /** Element matrices of the congruent-cell groups (element_matrix kernel): 576 doubles each. */
      DeviceArray<double>     matrices;
      /** Group of each cell. */
      DeviceArray<LocalIndex> cell_group;
      /** A cell of each matrix group, used to compute the matrix. */
      DeviceArray<LocalIndex> matrix_representative;
      std::size_t             n_matrices = 0;
      /**
       * Matrix of each cell in use: its group's (< n_matrices) or, for cells
       * with plastic points under a plasticity state, n_matrices + slot in
       * plastic_matrices.
       */
      DeviceArray<LocalIndex> cell_matrix;
      DeviceArray<double>     plastic_matrices;
      DeviceArray<LocalIndex> plastic_cells;
      std::size_t             n_plastic_matrices = 0;

      /** The assembled local matrix (Strategy::assembled). */
      internal::CsrMatrixData matrix;

      /** The lattice of Strategy::dbd_structured. */
      internal::StructuredGrid structured;

      /** The boundary springs (MeshData::spring_rows), applied after the cells. */
      internal::BoundarySpringData springs;

      /** The plasticity state the operator owns, if any. */
      std::unique_ptr<PlasticityState> plasticity_state;
      /** Its data while the operator is its tangent, else null (elasticity). */
      const PlasticityState::Impl *plasticity = nullptr;

      internal::Strided<const LocalIndex>
      cell_node_table() const
      {
        return {cell_nodes.data(), cell_nodes_stride_cell, cell_nodes_stride_node};
      }

      template <typename Number = double>
      internal::OnTheFlyGeometry<Number>
      on_the_fly_geometry() const
      {
        internal::OnTheFlyGeometry<Number> g;
        g.cell_nodes  = cell_node_table();
        g.coordinates = coordinates.data();
        return g;
      }

      template <typename Number = double>
      internal::StoredGeometry<Number>
      stored_geometry() const
      {
        internal::StoredGeometry<Number> g;
        g.data = {geometry.data(), geometry_stride_cell, geometry_stride_entry};
        return g;
      }

      /** The stiffness factors on the device, or null without factors. */
      const float *
      cell_factor_data() const
      {
        return cell_factor.size() > 0 ? cell_factor.data() : nullptr;
      }

      /**
       * Linear elasticity times the cells' stiffness factors, or without them
       * (@p with_cell_factors false: the element matrices, which the matrix
       * kernels scale per cell).
       */
      template <typename Number = double>
      internal::ElasticLaw<Number>
      elastic_law(const bool with_cell_factors = true) const
      {
        return {materials.data(), cell_material.data(), with_cell_factors ? cell_factor_data() : nullptr};
      }
    };

    namespace internal
    {
      /**
       * The settings the operator runs with: @p requested checked against
       * the rules of its strategy (std::invalid_argument naming the rule)
       * and ThreadMapping::automatic resolved.
       */
      OperatorSettings
      resolve_settings(const OperatorSettings &requested);

      /**
       * The thread mapping that ThreadMapping::automatic stands for with
       * @p strategy and @p kernel on this execution space (the fastest
       * measured, doc/benchmarks.md).
       */
      ThreadMapping
      automatic_thread_mapping(Strategy strategy, CellKernel kernel);

      /**
       * Call @p action with std::true_type for B-bar (mean dilatation) and
       * std::false_type for full integration: the compile-time flag of
       * QuadratureCellOperator.
       */
      template <typename Action>
      void
      with_element_formulation(const ElementFormulation formulation, const Action &action)
      {
        if (formulation == ElementFormulation::bbar)
          action(std::true_type{});
        else
          action(std::false_type{});
      }

      /** The 24 nodal values of a cell, zero where the cell's mask has a bit. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      gather_cell_values(const Strided<const LocalIndex> &cell_nodes,
                         const Index64                    cell,
                         const std::uint32_t              mask,
                         const Number                    *src,
                         LocalIndex                       nodes[8],
                         Number                           u[24])
      {
        PLASTIX_UNROLL
        for (int a = 0; a < 8; ++a)
          {
            nodes[a] = cell_nodes(cell, a);
            PLASTIX_UNROLL
            for (int c = 0; c < 3; ++c)
              u[3 * a + c] = src[3 * static_cast<Index64>(nodes[a]) + c];
          }
        if (mask != 0)
          PLASTIX_UNROLL
          for (int k = 0; k < 24; ++k)
            if ((mask >> k) & 1u)
              u[k] = 0;
      }

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

      /** Cells per team of the node-mapped team kernels (8 threads each). */
      constexpr int cells_per_team = 16;

      using TeamMember = TeamPolicy::member_type;

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
        /** Volume-pass entries per cell (B-bar: JxW and JxW div u of 8 points). */
        static constexpr int volume_entries = CellOperator::has_volume_pass ? 16 : 0;
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
              cell_operator.volume_pass(cell, q, u_s + 24 * cl, x_s + 24 * cl, V_s + volume_entries * cl + 2 * q);
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

      /** Bit of MechanicsOperator::Impl::tile_node_flags: all cells of the node lie in the tile. */
      constexpr std::uint8_t tile_interior_node = 8;

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
      launch_tiled(const MechanicsOperator::Impl &data,
                   const CellOperator            &cell_operator,
                   const Number                  *src,
                   Number                        *dst,
                   const bool                     masked)
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

      /**
       * dst = A src with the operator's strategy and the given cell operator.
       * With @p masked, constrained DoFs are treated as in
       * MechanicsOperator::apply() (unit rows included).
       */
      template <typename CellOperator, typename Number>
      void
      launch_apply(const MechanicsOperator::Impl &data,
                   const CellOperator            &cell_operator,
                   const Number                  *src,
                   Number                        *dst,
                   const bool                     masked)
      {
        static_assert(std::is_same<Number, typename CellOperator::value_type>::value,
                      "the vectors and the cell operator must use the same number type");
        const Index64 n_dofs = 3 * static_cast<Index64>(data.n_nodes);
        switch (data.settings.strategy)
          {
            case Strategy::ebe_atomic:
            case Strategy::ebe_colored:
            case Strategy::assembled: // its unmasked products (apply_unconstrained()) stay matrix-free
            case Strategy::dbd_structured: // its operator has its own path; the stored-stress products go by cells
              {
                vector_operations::set(n_dofs, Number(0), dst);
                const bool colored = data.settings.strategy == Strategy::ebe_colored;
                // Set the members every element-by-element functor has, then
                // launch(label, functor, begin, end) over all cells or colour by colour.
                const auto launch_cells = [&](auto functor, const auto &launch, const char *atomic_label,
                                              const char *colored_label) {
                  functor.cell_operator = cell_operator;
                  functor.cell_nodes    = data.cell_node_table();
                  functor.masks         = data.cell_constraint_mask.data();
                  functor.src           = src;
                  functor.dst           = dst;
                  if (colored)
                    {
                      functor.cell_list = data.colored_cells.data();
                      for (std::size_t color = 0; color + 1 < data.color_offsets.size(); ++color)
                        launch(colored_label, functor, data.color_offsets[color], data.color_offsets[color + 1]);
                    }
                  else
                    launch(atomic_label, functor, Index64(0), data.n_cells);
                };
                if constexpr (is_quadrature_operator<CellOperator>::value)
                  if (data.settings.thread_mapping == ThreadMapping::shuffle)
                    {
                      with_element_by_element_variant<LaneElementByElementApply, CellOperator>(
                        masked, !colored, [&](auto functor) {
                          launch_cells(
                            functor,
                            [](const char *label, const auto &f, const Index64 begin, const Index64 end) {
                              launch_lanes(label, f, begin, end);
                            },
                            "plastix::ebe_atomic_shuffle",
                            "plastix::ebe_colored_shuffle");
                        });
                      break;
                    }
                if (data.settings.thread_mapping == ThreadMapping::node)
                  {
                    with_element_by_element_variant<TeamElementByElementApply, CellOperator>(
                      masked, !colored, [&](auto functor) {
                        functor.coordinates = data.coordinates.data();
                        launch_cells(
                          functor,
                          [](const char *label, const auto &f, const Index64 begin, const Index64 end) {
                            launch_team(label, f, begin, end);
                          },
                          "plastix::ebe_atomic_node",
                          "plastix::ebe_colored_node");
                      });
                    break;
                  }
                with_element_by_element_variant<ElementByElementApply, CellOperator>(
                  masked, !colored, [&](auto functor) {
                    launch_cells(
                      functor,
                      [](const char *label, const auto &f, const Index64 begin, const Index64 end) {
                        for_range(label, begin, end, f);
                      },
                      "plastix::ebe_atomic",
                      "plastix::ebe_colored");
                  });
                break;
              }
            case Strategy::ebe_tiled:
              launch_tiled<false>(data, cell_operator, src, dst, masked);
              break;
            case Strategy::dbd:
              {
                auto run = [&](auto functor) {
                  functor.cell_operator = cell_operator;
                  functor.cell_nodes    = data.cell_node_table();
                  functor.masks         = data.cell_constraint_mask.data();
                  functor.node_offsets  = data.node_offsets.data();
                  functor.node_entries  = data.node_entries.data();
                  functor.src           = src;
                  functor.dst           = dst;
                  for_range("plastix::dbd", data.n_nodes, functor);
                };
                if (masked)
                  run(DofByDofApply<CellOperator, true>{});
                else
                  run(DofByDofApply<CellOperator, false>{});
                break;
              }
          }
        if (masked)
          vector_operations::copy_entries(data.constrained_owned_dofs.size(),
                                          data.constrained_owned_dofs.data(),
                                          src,
                                          dst);
      }

      /** Cell-wise diagonal accumulated with atomics; unit entries at owned constrained DoFs. */
      template <typename QuadratureOperator>
      void
      launch_diagonal(const MechanicsOperator::Impl &data,
                      const QuadratureOperator      &cell_operator,
                      double                        *diagonal)
      {
        vector_operations::set(3 * static_cast<Index64>(data.n_nodes), 0., diagonal);
        const Strided<const LocalIndex> cell_nodes = data.cell_node_table();
        const std::uint32_t            *masks      = data.cell_constraint_mask.data();
        for_range("plastix::diagonal", data.n_cells, KOKKOS_LAMBDA(const Index64 cell) {
          double d[24];
          cell_operator.diagonal(cell, d);
          const std::uint32_t mask = masks[cell];
          for (int a = 0; a < 8; ++a)
            for (int c = 0; c < 3; ++c)
              if (!((mask >> (3 * a + c)) & 1u))
                Kokkos::atomic_add(&diagonal[3 * static_cast<Index64>(cell_nodes(cell, a)) + c],
                                   d[3 * a + c]);
        });
        vector_operations::set_entries(data.constrained_owned_dofs.size(),
                                       data.constrained_owned_dofs.data(),
                                       1.,
                                       diagonal);
      }

      /**
       * u_h = sum_k w_k u_{j_k} (+ scale * inhomogeneities[r] if given) for
       * every constraint line r; with @p saved, the previous u_h is kept
       * there first. Columns are never rows: no kernel-internal race.
       */
      template <typename Number>
      void
      interpolate_constrained_rows(const MechanicsOperator::Impl &data,
                                   Number                        *u,
                                   Number                        *saved,
                                   const double                  *inhomogeneities = nullptr,
                                   const double                   scale           = 0.)
      {
        const LocalIndex *rows    = data.constraint_rows.data();
        const LocalIndex *offsets = data.constraint_offsets.data();
        const LocalIndex *columns = data.constraint_columns.data();
        const double     *weights = data.constraint_weights.data();
        for_range("plastix::interpolate_constrained_rows", data.n_constraint_lines, KOKKOS_LAMBDA(const Index64 r) {
          const LocalIndex row = rows[r];
          if (saved != nullptr)
            saved[r] = u[row];
          double value = inhomogeneities != nullptr ? scale * inhomogeneities[r] : 0.;
          for (LocalIndex k = offsets[r]; k < offsets[r + 1]; ++k)
            value += weights[k] * static_cast<double>(u[columns[k]]);
          u[row] = static_cast<Number>(value);
        });
      }

      /** Put the values that interpolate_constrained_rows() saved back. */
      template <typename Number>
      void
      restore_constrained_rows(const MechanicsOperator::Impl &data, Number *u, const Number *saved)
      {
        const LocalIndex *rows = data.constraint_rows.data();
        for_range("plastix::restore_constrained_rows", data.n_constraint_lines, KOKKOS_LAMBDA(const Index64 r) {
          u[rows[r]] = saved[r];
        });
      }

      /**
       * The constrained rows of @p dst: src (or @p owned_value where src is
       * null) where owned, 0 at ghosts (their owner has the unit row).
       */
      template <typename Number>
      void
      set_constrained_rows(const MechanicsOperator::Impl &data, Number *dst, const Number *src, const Number owned_value)
      {
        const LocalIndex *rows         = data.constraint_rows.data();
        const Index64     n_owned_dofs = 3 * static_cast<Index64>(data.n_owned_nodes);
        for_range("plastix::set_constrained_rows", data.n_constraint_lines, KOKKOS_LAMBDA(const Index64 r) {
          const LocalIndex row = rows[r];
          dst[row]             = row < n_owned_dofs ? (src != nullptr ? src[row] : owned_value) : Number(0);
        });
      }

      /**
       * dst <- C^T dst: each constrained row's (partial) sum is added,
       * weighted, to the DoFs its line depends on (gathered per column: no
       * atomics, reproducible); then the constrained rows get src (owned,
       * unit diagonal) or zero (ghosts, or src null).
       */
      template <typename Number>
      void
      condense_constrained_rows(const MechanicsOperator::Impl &data, Number *dst, const Number *src)
      {
        const LocalIndex *rows           = data.constraint_rows.data();
        const LocalIndex *column_dofs    = data.column_dofs.data();
        const LocalIndex *column_offsets = data.column_offsets.data();
        const LocalIndex *column_lines   = data.column_lines.data();
        const double     *column_weights = data.column_weights.data();
        for_range("plastix::condense_constrained_rows", data.column_dofs.size(), KOKKOS_LAMBDA(const Index64 i) {
          double sum = 0;
          for (LocalIndex k = column_offsets[i]; k < column_offsets[i + 1]; ++k)
            sum += column_weights[k] * static_cast<double>(dst[rows[column_lines[k]]]);
          dst[column_dofs[i]] += static_cast<Number>(sum);
        });
        set_constrained_rows(data, dst, src, Number(0));
      }

      /**
       * dst_d += w dst_h for the Dirichlet weights of the lines (reactions
       * of the forces on hanging nodes next to prescribed DoFs); atomics,
       * as several lines may share a Dirichlet DoF.
       */
      inline void
      add_rows_to_dirichlet_columns(const MechanicsOperator::Impl &data, double *dst)
      {
        if (data.dirichlet_offsets.size() == 0)
          return;
        const LocalIndex *rows    = data.constraint_rows.data();
        const LocalIndex *offsets = data.dirichlet_offsets.data();
        const LocalIndex *columns = data.dirichlet_columns.data();
        const double     *weights = data.dirichlet_weights.data();
        for_range("plastix::dirichlet_reactions", data.n_constraint_lines, KOKKOS_LAMBDA(const Index64 r) {
          const double value = dst[rows[r]];
          for (LocalIndex k = offsets[r]; k < offsets[r + 1]; ++k)
            accumulate(dst[columns[k]], weights[k] * value);
        });
      }

      /**
       * The terms of diag(C^T A C) that the cell-wise diagonal misses: in a
       * cell with constrained vertex DoFs, the couplings K_ik between a
       * constrained DoF i and the DoFs of its line (2 w K_ik) and between
       * two constrained DoFs that depend on the same DoF (w w' K_ik), added
       * to the DoFs the lines depend on. The column K e_i comes from the
       * cell operator (the current tangent).
       */
      template <typename QuadratureOperator>
      void
      add_constrained_diagonal(const MechanicsOperator::Impl &data,
                               const QuadratureOperator      &cell_operator,
                               double                        *diagonal)
      {
        const Strided<const LocalIndex> cell_nodes = data.cell_node_table();
        const LocalIndex               *cells      = data.constrained_cells.data();
        const LocalIndex               *line_of    = data.line_of_dof.data();
        const LocalIndex               *offsets    = data.constraint_offsets.data();
        const LocalIndex               *columns    = data.constraint_columns.data();
        const double                   *weights    = data.constraint_weights.data();
        for_range("plastix::constrained_diagonal", data.constrained_cells.size(), KOKKOS_LAMBDA(const Index64 i) {
          const Index64 cell = cells[i];
          LocalIndex    nodes[8];
          for (int a = 0; a < 8; ++a)
            nodes[a] = cell_nodes(cell, a);
          for (int a = 0; a < 8; ++a)
            for (int c = 0; c < 3; ++c)
              {
                const LocalIndex line = line_of[3 * nodes[a] + c];
                if (line < 0)
                  continue;
                double u[24], f[24];
                for (int k = 0; k < 24; ++k)
                  u[k] = (k == 3 * a + c) ? 1. : 0.;
                cell_operator.apply(cell, u, f);
                // Constraints couple equal components only.
                for (int b = 0; b < 8; ++b)
                  {
                    const LocalIndex dof_b  = 3 * nodes[b] + c;
                    const LocalIndex line_b = line_of[dof_b];
                    for (LocalIndex k = offsets[line]; k < offsets[line + 1]; ++k)
                      {
                        if (line_b < 0)
                          {
                            if (columns[k] == dof_b)
                              accumulate(diagonal[dof_b], 2. * weights[k] * f[3 * b + c]);
                          }
                        else
                          for (LocalIndex m = offsets[line_b]; m < offsets[line_b + 1]; ++m)
                            if (columns[m] == columns[k])
                              accumulate(diagonal[columns[k]], weights[k] * weights[m] * f[3 * b + c]);
                      }
                  }
              }
        });
      }

      /**
       * Compute the element matrix of every group (cells [first, last) of
       * matrix_representative) with the quadrature cell operator @p op: column
       * j is the operator applied to the unit vector e_j, stored contiguously
       * (column-major, K[24 j + i] = K_ij), as element_matrix_times()
       * and MatrixCellOperator::apply_node_rows() read it; for the symmetric
       * elastic and J2 matrices this is the row-major matrix too, and a
       * non-symmetric tangent (non-associative Mohr-Coulomb, Drucker-Prager)
       * is applied correctly.
       */
      template <typename QuadratureOperator>
      void
      compute_element_matrices(const QuadratureOperator &op,
                               const LocalIndex         *representatives,
                               const Index64             first,
                               const Index64             last,
                               double                   *matrices)
      {
        for_range("plastix::element_matrices", first, last, KOKKOS_LAMBDA(const Index64 m) {
          const Index64 cell = representatives[m];
          double       *K    = matrices + 576 * m;
          for (int j = 0; j < 24; ++j)
            {
              double u[24], f[24];
              for (int k = 0; k < 24; ++k)
                u[k] = (k == j) ? 1. : 0.;
              op.apply(cell, u, f);
              for (int i = 0; i < 24; ++i)
                K[24 * j + i] = f[i];
            }
        });
      }
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
