// Strategy::dbd_structured: the lattice of equal axis-parallel boxes, the
// classes of its nodes and the node-wise apply (Kokkos).
#include "structured_grid.h"

#include "../gauss_point_state_impl.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      namespace
      {
        /**
         * Offset from a lattice point to the cell q around it (q = 0..7: the
         * cell at offsets (q&1, q>>1&1, q>>2&1) - 1, indexed by its vertex 0),
         * and to its neighbour b of a cell (b: the vertex, 0..7).
         */
        KOKKOS_INLINE_FUNCTION Index64
        cell_offset(const Index64 X, const Index64 XY, const int q)
        {
          return (q & 1) - 1 + X * (((q >> 1) & 1) - 1) + XY * (((q >> 2) & 1) - 1);
        }

        KOKKOS_INLINE_FUNCTION Index64
        vertex_offset(const Index64 X, const Index64 XY, const int b)
        {
          return (b & 1) + X * ((b >> 1) & 1) + XY * ((b >> 2) & 1);
        }

        /** Whether the cell q around lattice point p exists in the lattice's index range. */
        KOKKOS_INLINE_FUNCTION bool
        cell_in_lattice(const Index64 points[3], const Index64 p, const int q)
        {
          const Index64 i = p % points[0], j = (p / points[0]) % points[1], k = p / (points[0] * points[1]);
          const Index64 ci = i + (q & 1) - 1, cj = j + ((q >> 1) & 1) - 1, ck = k + ((q >> 2) & 1) - 1;
          return ci >= 0 && cj >= 0 && ck >= 0 && ci < points[0] - 1 && cj < points[1] - 1 && ck < points[2] - 1;
        }

        /** Nodes per team of the scratch-memory form of LatticeApply. */
        constexpr int lattice_nodes_per_team = 256;

        /**
         * The node-wise apply on the lattice, one thread per local node (in
         * the vectors' order): a node whose eight cells share material and
         * factor (class bit lattice_stencil_node) sums the 27-point stencil
         * of its material over its neighbours; another sums the rows of its element matrix
         * over the cells its class names. Neighbours and cells are found by
         * index arithmetic; the values of constrained components are taken
         * as zero when @p masked. With @p sparse, the block entries that
         * vanish on boxes (StructuredGrid::sparse_blocks) are skipped.
         *
         * With @p chebyshev the result is not stored: it enters one step of
         * a Chebyshev-Jacobi iteration at once (ChebyshevEpilogue, owned DoFs,
         * t = x on constrained rows as the unit rows of apply()).
         *
         * With @p in_functor (one material) the stencil travels inside the
         * functor (by value: on CUDA a kernel argument, i.e. in the kernel's
         * constant memory, whose warp-wide broadcasts feed the multiply-adds
         * without load instructions; about 2 KB in double precision, under
         * the 4 KB of a light-weight launch, internal::LaunchProperty) and
         * the kernel is a range kernel; otherwise a team copies the stencils
         * of all materials into scratch memory first.
         */
        template <typename Number, bool masked, bool sparse, bool in_functor, bool chebyshev = false>
        struct LatticeApply
        {
          /** The Chebyshev step that takes the result (chebyshev only). */
          ChebyshevEpilogue<Number> epilogue;

          /** The stencil of material 0 (in_functor only). */
          Number stencil[in_functor ? 243 : 1] = {};

          const LocalIndex    *lattice_node  = nullptr;
          const LocalIndex    *lattice_cell  = nullptr;
          /** Lattice point of each local node, -1 for a node of no local cell. */
          const LocalIndex    *node_point    = nullptr;
          /** Number of local nodes: the threads. */
          Index64              n_nodes       = 0;
          /** Number of owned nodes (the first ones): their constrained rows are unit rows when masked. */
          Index64              n_owned_nodes = 0;
          const std::uint16_t *node_class    = nullptr;
          const std::uint16_t *cell_material = nullptr;
          /** Stiffness factors (MeshData::cell_factors), or null. */
          const float  *cell_factors     = nullptr;
          const double *stencils         = nullptr;
          const double *element_matrices = nullptr;
          /** Materials whose stencils sit in scratch memory (the node classes use no others). */
          int           n_scratch_materials = 0;
          Index64       points[3]           = {0, 0, 0};
          const Number *src                 = nullptr;
          Number       *dst                 = nullptr;

          KOKKOS_INLINE_FUNCTION std::size_t
          scratch_bytes() const
          {
            return sizeof(Number) * 243 * static_cast<std::size_t>(n_scratch_materials);
          }

          /** The three values of the node of lattice entry @p entry (zero where constrained and masked). */
          KOKKOS_INLINE_FUNCTION void
          load(const LocalIndex entry, Number v[3]) const
          {
            const Index64 node = entry & lattice_node_mask;
            PLASTIX_UNROLL
            for (int c = 0; c < 3; ++c)
              {
                v[c] = src[3 * node + c];
                if (masked && ((entry >> (lattice_node_bits + c)) & 1))
                  v[c] = 0;
              }
          }

          KOKKOS_INLINE_FUNCTION Number
          factor_of(const Index64 cell) const
          {
            return cell_factors != nullptr ? static_cast<Number>(cell_factors[cell]) : Number(1);
          }

          /** r = the 27-point stencil S (the functor's or in scratch memory) applied around lattice point p. */
          KOKKOS_INLINE_FUNCTION void
          stencil_rows(const Number *S, const Index64 p, Number r[3]) const
          {
            const Index64 X = points[0], XY = points[0] * points[1];
            PLASTIX_UNROLL
            for (int oz = -1; oz <= 1; ++oz)
              PLASTIX_UNROLL
              for (int oy = -1; oy <= 1; ++oy)
                PLASTIX_UNROLL
                for (int ox = -1; ox <= 1; ++ox)
                  {
                    Number v[3];
                    load(lattice_node[p + ox + X * oy + XY * oz], v);
                    const int     o      = (ox + 1) + 3 * (oy + 1) + 9 * (oz + 1);
                    const int     off[3] = {ox, oy, oz};
                    const Number *B      = S + 9 * o;
                    PLASTIX_UNROLL
                    for (int i = 0; i < 3; ++i)
                      PLASTIX_UNROLL
                      for (int j = 0; j < 3; ++j)
                        if (!sparse || i == j || (off[i] != 0 && off[j] != 0))
                          r[i] += B[3 * i + j] * v[j];
                  }
          }

          /** r += the rows of lattice point p of the cells named in @p cls, from their element matrices. */
          KOKKOS_INLINE_FUNCTION void
          cell_rows(const std::uint16_t cls, const Index64 p, Number r[3]) const
          {
            const Index64 X = points[0], XY = points[0] * points[1];
            for (int q = 0; q < 8; ++q)
              {
                if (!((cls >> q) & 1u))
                  continue;
                // The cell's vertex 0 is the lattice point that indexes it;
                // the node is its vertex 7 - q.
                const Index64 origin = p + cell_offset(X, XY, q);
                const Index64 cell   = lattice_cell[origin];
                const int     a      = 7 - q;
                const double *K      = element_matrices + 576 * static_cast<Index64>(cell_material[cell]) + 3 * a;
                Number        t[3]   = {0, 0, 0};
                PLASTIX_UNROLL
                for (int b = 0; b < 8; ++b)
                  {
                    Number v[3];
                    load(lattice_node[origin + vertex_offset(X, XY, b)], v);
                    PLASTIX_UNROLL
                    for (int jc = 0; jc < 3; ++jc)
                      PLASTIX_UNROLL
                      for (int ic = 0; ic < 3; ++ic)
                        t[ic] += static_cast<Number>(K[24 * (3 * b + jc) + ic]) * v[jc];
                  }
                const Number f = factor_of(cell);
                PLASTIX_UNROLL
                for (int c = 0; c < 3; ++c)
                  r[c] += f * t[c];
              }
          }

          /**
           * dst at local node @p node (threads follow the vectors' order, so
           * that the node's own values and results are coalesced whatever the
           * numbering); @p S: the stencils of the materials, 243 each.
           */
          KOKKOS_INLINE_FUNCTION void
          apply_node(const Index64 node, const Number *S) const
          {
            const Index64 p = node_point[node];
            if (p < 0)
              {
                // A node of no local cell (a ghost that only others' cells have).
                if constexpr (chebyshev)
                  {
                    if (node < epilogue.n_owned_nodes)
                      for (int c = 0; c < 3; ++c)
                        epilogue.update(3 * node + c, Number(0), src[3 * node + c]);
                  }
                else
                  {
                    for (int c = 0; c < 3; ++c)
                      dst[3 * node + c] = 0;
                  }
                return;
              }
            const LocalIndex    entry = lattice_node[p];
            const std::uint16_t cls   = node_class[p];
            Number              r[3] = {0, 0, 0};
            if (cls & lattice_stencil_node)
              {
                // All eight cells share material (in the class) and factor (that of cell q = 0).
                stencil_rows(in_functor ? S : S + 243 * ((cls >> lattice_material_shift) & 7), p, r);
                if (cell_factors != nullptr)
                  {
                    const Number f = factor_of(lattice_cell[p + cell_offset(points[0], points[0] * points[1], 0)]);
                    PLASTIX_UNROLL
                    for (int c = 0; c < 3; ++c)
                      r[c] *= f;
                  }
              }
            else if (cls != 0)
              cell_rows(cls, p, r);
            if constexpr (chebyshev)
              {
                if (node >= epilogue.n_owned_nodes)
                  return;
                PLASTIX_UNROLL
                for (int c = 0; c < 3; ++c)
                  {
                    const Index64 i = 3 * node + c;
                    epilogue.update(i, (masked && ((entry >> (lattice_node_bits + c)) & 1)) ? src[i] : r[c], src[i]);
                  }
              }
            else
              {
                // Masked: the unit rows of constrained owned DoFs (dst = src
                // there, as apply() documents), zero at constrained ghosts.
                PLASTIX_UNROLL
                for (int c = 0; c < 3; ++c)
                  dst[3 * node + c] = (masked && ((entry >> (lattice_node_bits + c)) & 1)) ?
                                        (node < n_owned_nodes ? src[3 * node + c] : Number(0)) :
                                        r[c];
              }
          }

          /** Range kernel over the local nodes (in_functor). */
          KOKKOS_INLINE_FUNCTION void
          operator()(const Index64 node) const
          {
            apply_node(node, stencil);
          }

          /** Team kernel: the stencils into scratch memory, then lattice_nodes_per_team nodes. */
          KOKKOS_INLINE_FUNCTION void
          operator()(const TeamMember &team) const
          {
            Number *S_s = static_cast<Number *>(team.team_shmem().get_shmem(scratch_bytes()));
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 243 * n_scratch_materials),
                                 [&](const int e) { S_s[e] = static_cast<Number>(stencils[e]); });
            team.team_barrier();
            const Index64 first = static_cast<Index64>(team.league_rank()) * lattice_nodes_per_team;
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, lattice_nodes_per_team), [&](const int t) {
              if (first + t < n_nodes)
                apply_node(first + t, S_s);
            });
          }
        };
      } // namespace

      namespace
      {
        /**
         * The lattice pass; with an @p epilogue (masked only) its Chebyshev
         * step instead of storing dst.
         */
        template <typename Number, bool chebyshev>
        void
        launch_lattice(const DeviceOperator::Impl      &d,
                       const Number                    *src,
                       Number                          *dst,
                       const bool                       masked,
                       const ChebyshevEpilogue<Number> &epilogue)
        {
          const StructuredGrid &g       = d.structured;
          const Index64         n_nodes = d.n_nodes;
          auto run = [&](auto functor, auto in_functor) {
            if constexpr (chebyshev)
              functor.epilogue = epilogue;
            functor.lattice_node         = g.node.data();
            functor.lattice_cell         = g.cell.data();
            functor.node_point           = g.node_point.data();
            functor.n_nodes              = n_nodes;
            functor.n_owned_nodes        = d.n_owned_nodes;
            functor.node_class           = g.node_class.data();
            functor.cell_material        = d.cell_material.data();
            functor.cell_factors         = d.cell_factor_data();
            functor.stencils             = g.stencils.data();
            functor.element_matrices     = g.element_matrices.data();
            functor.n_scratch_materials  = static_cast<int>(std::min<std::size_t>(g.n_materials, lattice_scratch_materials));
            for (int dim = 0; dim < 3; ++dim)
              functor.points[dim] = g.points[dim];
            functor.src              = src;
            functor.dst              = dst;
            if constexpr (decltype(in_functor)::value)
              {
                static_assert(launches_light_weight<decltype(functor)>, "the lattice functor must fit a kernel argument");
                for (int e = 0; e < 243; ++e)
                  functor.stencil[e] = static_cast<Number>(g.host_stencils[e]);
                Kokkos::parallel_for("plastix::dbd_structured", RangePolicy(0, n_nodes), functor);
              }
            else
              {
                const Index64 n_teams = (n_nodes + lattice_nodes_per_team - 1) / lattice_nodes_per_team;
                Kokkos::parallel_for("plastix::dbd_structured",
                                     TeamPolicy(static_cast<int>(n_teams), on_device ? lattice_nodes_per_team : 1)
                                       .set_scratch_size(0, Kokkos::PerTeam(functor.scratch_bytes())),
                                     functor);
              }
          };
          // The compile-time variants: masked, sparse blocks, one material.
          auto with_material_variant = [&](auto masked_flag, auto sparse_flag) {
            constexpr bool m = decltype(masked_flag)::value, sp = decltype(sparse_flag)::value;
            if constexpr (chebyshev && !m)
              return;
            else if (g.n_materials == 1)
              run(LatticeApply<Number, m, sp, true, chebyshev>{}, std::true_type{});
            else
              run(LatticeApply<Number, m, sp, false, chebyshev>{}, std::false_type{});
          };
          auto with_sparse_variant = [&](auto masked_flag) {
            if (g.sparse_blocks)
              with_material_variant(masked_flag, std::true_type{});
            else
              with_material_variant(masked_flag, std::false_type{});
          };
          if (masked)
            with_sparse_variant(std::true_type{});
          else
            with_sparse_variant(std::false_type{});
        }
      } // namespace

      template <typename Number>
      void
      apply_structured(const DeviceOperator::Impl &d, const Number *src, Number *dst, const bool masked)
      {
        const Index64 n_nodes = d.n_nodes;
        if (n_nodes == 0)
          return;
        if (d.structured.n_points() == 0)
          {
            // No local cells: every local node is of another process's cells.
            vector_operations::set(3 * n_nodes, Number(0), dst);
            return;
          }
        launch_lattice<Number, false>(d, src, dst, masked, ChebyshevEpilogue<Number>{});
      }

      template <typename Number>
      void
      chebyshev_step_structured(const DeviceOperator::Impl &d, const Number *x, ChebyshevEpilogue<Number> epilogue)
      {
        if (d.n_nodes == 0)
          return;
        epilogue.n_owned_nodes = d.n_owned_nodes;
        launch_lattice<Number, true>(d, x, nullptr, true, epilogue);
      }

      template void
      chebyshev_step_structured<double>(const DeviceOperator::Impl &, const double *, ChebyshevEpilogue<double>);
      template void
      chebyshev_step_structured<float>(const DeviceOperator::Impl &, const float *, ChebyshevEpilogue<float>);

      template void
      apply_structured<double>(const DeviceOperator::Impl &, const double *, double *, bool);
      template void
      apply_structured<float>(const DeviceOperator::Impl &, const float *, float *, bool);

      void
      update_structured_classes(DeviceOperator::Impl &d)
      {
        StructuredGrid &g = d.structured;
        // The cells with plastic points of a tangent go to the element-by-element pass.
        const std::uint8_t *other = d.plasticity != nullptr ? d.plasticity->cell_plastic.data() : nullptr;
        g.n_other_cells           = 0;
        if (other != nullptr)
          {
            g.other_cells.resize(d.n_cells, "dbd structured: cells of the element-by-element pass");
            LocalIndex *list = g.other_cells.data();
            scan_range(
              "plastix::dbd_structured_other_cells",
              d.n_cells,
              KOKKOS_LAMBDA(const Index64 cell, Index64 &offset, const bool final) {
                if (other[cell])
                  {
                    if (final)
                      list[offset] = static_cast<LocalIndex>(cell);
                    ++offset;
                  }
              },
              g.n_other_cells);
          }
        const Index64 n_points = g.n_points();
        if (n_points == 0)
          return;
        const std::uint16_t *node_cells   = g.node_cells.data();
        const LocalIndex    *lattice_cell = g.cell.data();
        std::uint16_t       *node_class   = g.node_class.data();
        const Index64        points[3]    = {g.points[0], g.points[1], g.points[2]};
        for_range("plastix::dbd_structured_classes", n_points, KOKKOS_LAMBDA(const Index64 p) {
          const std::uint16_t cells = node_cells[p];
          if (other == nullptr)
            {
              node_class[p] = cells;
              return;
            }
          const Index64 X = points[0], XY = points[0] * points[1];
          std::uint16_t taken = 0;
          for (int q = 0; q < 8; ++q)
            if (((cells >> q) & 1u) && !other[lattice_cell[p + cell_offset(X, XY, q)]])
              taken |= std::uint16_t(1u << q);
          // A stencil node keeps its stencil bit and material while all its cells stay.
          node_class[p] = taken == 0xFF ? cells : taken;
        });
      }

      /**
       * The lattice position of every cell (i | j << 21 | k << 42): cell 0's
       * box and the lowest corner fix the lattice, every cell must be a box
       * of the same size on it (std::invalid_argument naming the cell
       * otherwise). Sets the lattice's points per direction.
       */
      std::vector<Index64>
      locate_cells_on_lattice(const MeshData &mesh, StructuredGrid &g)
      {
        const LocalIndex n_cells = mesh.n_cells();
        auto vertex = [&](const LocalIndex cell, const int a) {
          return &mesh.node_coordinates[3 * static_cast<std::size_t>(mesh.cell_nodes[8 * static_cast<std::size_t>(cell) + a])];
        };

        // The box of cell 0 and the lattice origin.
        double h[3], origin[3], largest = 0;
        for (int dim = 0; dim < 3; ++dim)
          {
            h[dim]      = vertex(0, 1 << dim)[dim] - vertex(0, 0)[dim];
            origin[dim] = std::numeric_limits<double>::max();
          }
        for (LocalIndex cell = 0; cell < n_cells; ++cell)
          for (int dim = 0; dim < 3; ++dim)
            {
              origin[dim] = std::min(origin[dim], vertex(cell, 0)[dim]);
              largest     = std::max(largest, std::abs(vertex(cell, 7)[dim]));
            }
        auto not_a_lattice = [&](const LocalIndex cell, const char *what) {
          throw std::invalid_argument(
            "dbd structured: cell " + std::to_string(cell) + " " + what + " (" + std::to_string(h[0]) + " x " +
            std::to_string(h[1]) + " x " + std::to_string(h[2]) +
            "); the strategy needs equal axis-parallel boxes on one lattice (no distortion, one cell size)");
        };
        if (!(h[0] > 0 && h[1] > 0 && h[2] > 0))
          not_a_lattice(0, "is not an axis-parallel box in deal.II's vertex order");
        // Rounding of generated coordinates, not shape differences.
        const double tolerance = 1e-9 * std::min({h[0], h[1], h[2]}) + 8 * std::numeric_limits<double>::epsilon() * largest;

        std::vector<Index64> cell_point(n_cells);
        Index64              n_lattice_cells[3] = {0, 0, 0};
        for (LocalIndex cell = 0; cell < n_cells; ++cell)
          {
            Index64 index[3];
            for (int dim = 0; dim < 3; ++dim)
              {
                const double offset = vertex(cell, 0)[dim] - origin[dim];
                index[dim]          = std::llround(offset / h[dim]);
                if (std::abs(offset - index[dim] * h[dim]) > tolerance)
                  not_a_lattice(cell, "does not sit on the lattice of cell 0");
                n_lattice_cells[dim] = std::max(n_lattice_cells[dim], index[dim] + 1);
                for (int a = 1; a < 8; ++a)
                  if (std::abs(vertex(cell, a)[dim] - vertex(cell, 0)[dim] - ((a >> dim) & 1) * h[dim]) > tolerance)
                    not_a_lattice(cell, "is not an axis-parallel box of the size of cell 0");
              }
            cell_point[cell] = index[0] | (index[1] << 21) | (index[2] << 42);
          }
        for (int dim = 0; dim < 3; ++dim)
          {
            g.points[dim] = n_lattice_cells[dim] + 1;
            if (g.points[dim] >= (Index64(1) << 21))
              throw std::invalid_argument("dbd structured: more than 2^21 lattice points in a direction");
          }
        const Index64 n_points = g.n_points();
        if (n_points >= (Index64(1) << 31))
          throw std::invalid_argument("dbd structured: more than 2^31 lattice points in one process");
        if (n_points > 64 * static_cast<Index64>(mesh.n_nodes) + 4096)
          throw std::invalid_argument("dbd structured: the " + std::to_string(n_cells) + " local cells fill too little of "
                                      "their bounding box (" + std::to_string(n_points) + " lattice points for " +
                                      std::to_string(mesh.n_nodes) + " nodes)");
        return cell_point;
      }

      /**
       * The node and the cell at each lattice point (with the node's
       * constrained components in the entry's high bits) and the lattice
       * point of each node, uploaded into @p g.
       */
      void
      fill_lattice(const MeshData &mesh, const std::vector<Index64> &cell_point, StructuredGrid &g)
      {
        const LocalIndex n_cells  = mesh.n_cells();
        const Index64    n_points = g.n_points();
        const Index64    X = g.points[0], Y = g.points[1];
        std::vector<LocalIndex> lattice_node(n_points, -1), lattice_cell(n_points, -1), node_point(mesh.n_nodes, -1);
        for (LocalIndex cell = 0; cell < n_cells; ++cell)
          {
            const Index64 ci = cell_point[cell] & ((Index64(1) << 21) - 1);
            const Index64 cj = (cell_point[cell] >> 21) & ((Index64(1) << 21) - 1);
            const Index64 ck = cell_point[cell] >> 42;
            LocalIndex   &slot = lattice_cell[ci + X * (cj + Y * ck)];
            if (slot >= 0)
              throw std::invalid_argument("dbd structured: cells " + std::to_string(slot) + " and " +
                                          std::to_string(cell) + " occupy the same lattice cell");
            slot = cell;
            for (int a = 0; a < 8; ++a)
              {
                const LocalIndex node  = mesh.cell_nodes[8 * static_cast<std::size_t>(cell) + a];
                LocalIndex       entry = node;
                for (int c = 0; c < 3; ++c)
                  if (mesh.constrained_dofs[3 * static_cast<std::size_t>(node) + c])
                    entry |= LocalIndex(1) << (lattice_node_bits + c);
                const Index64 p     = (ci + (a & 1)) + X * ((cj + ((a >> 1) & 1)) + Y * (ck + ((a >> 2) & 1)));
                LocalIndex   &point = lattice_node[p];
                if ((point >= 0 && point != entry) || (node_point[node] >= 0 && node_point[node] != p))
                  throw std::invalid_argument("dbd structured: node " + std::to_string(node) +
                                              " and another share a lattice point, or it sits at two (a "
                                              "non-conforming mesh)");
                point            = entry;
                node_point[node] = static_cast<LocalIndex>(p);
              }
          }
        g.node                  = DeviceArray<LocalIndex>(lattice_node, "dbd structured: lattice nodes");
        g.node_point            = DeviceArray<LocalIndex>(node_point, "dbd structured: node points");
        g.cell                  = DeviceArray<LocalIndex>(lattice_cell, "dbd structured: lattice cells");
        g.node_class.resize(n_points, "dbd structured: node classes");
        g.node_cells.resize(n_points, "dbd structured: node cells");

      }

      /**
       * The elastic element matrix of the box for each material (a cell of
       * that material computes it; materials without local cells keep cell
       * 0's, never used), and the 27-point stencils summed from it.
       */
      void
      build_stencils(const MeshData &mesh, DeviceOperator::Impl &d)
      {
        StructuredGrid  &g       = d.structured;
        const LocalIndex n_cells = mesh.n_cells();
        g.n_materials = mesh.materials.size();
        std::vector<LocalIndex> representative(g.n_materials, 0);
        std::vector<bool>       found(g.n_materials, false);
        for (LocalIndex cell = 0; cell < n_cells; ++cell)
          if (!found[mesh.cell_material[cell]])
            {
              found[mesh.cell_material[cell]]          = true;
              representative[mesh.cell_material[cell]] = cell;
            }
        const DeviceArray<LocalIndex> representatives(representative, "dbd structured: material cells");
        g.element_matrices.resize(576 * g.n_materials, "dbd structured: element matrices");
        with_element_formulation(d.settings.element_formulation, [&](auto mean_dilatation) {
          QuadratureCellOperator<OnTheFlyGeometry<>, ElasticLaw<>, decltype(mean_dilatation)::value> op{
            d.on_the_fly_geometry(), d.elastic_law(false)};
          compute_element_matrices(op, representatives.data(), 0, static_cast<Index64>(g.n_materials),
                                   g.element_matrices.data());
        });
        const std::vector<double> K = g.element_matrices.to_host();
        std::vector<double>       S(243 * g.n_materials, 0.);
        g.sparse_blocks = true;
        for (std::size_t m = 0; m < g.n_materials; ++m)
          {
            double *Sm = &S[243 * m];
            for (int q = 0; q < 8; ++q)
              for (int b = 0; b < 8; ++b)
                {
                  const int a = 7 - q;
                  int       o = 0;
                  for (int dim = 2; dim >= 0; --dim)
                    o = 3 * o + (((q >> dim) & 1) - 1 + ((b >> dim) & 1) + 1);
                  for (int i = 0; i < 3; ++i)
                    for (int j = 0; j < 3; ++j)
                      Sm[9 * o + 3 * i + j] += K[576 * m + 24 * (3 * b + j) + 3 * a + i];
                }
            double largest_entry = 0, largest_skipped = 0;
            for (int o = 0; o < 27; ++o)
              {
                const int off[3] = {o % 3 - 1, (o / 3) % 3 - 1, o / 9 - 1};
                for (int i = 0; i < 3; ++i)
                  for (int j = 0; j < 3; ++j)
                    {
                      const double value = std::abs(Sm[9 * o + 3 * i + j]);
                      largest_entry      = std::max(largest_entry, value);
                      if (i != j && (off[i] == 0 || off[j] == 0))
                        largest_skipped = std::max(largest_skipped, value);
                    }
              }
            if (found[m] && largest_skipped > 1e-14 * largest_entry)
              g.sparse_blocks = false;
          }
        g.stencils      = DeviceArray<double>(S, "dbd structured: stencils");
        g.host_stencils = std::move(S);

      }

      /**
       * The cells of each lattice point; bit 8 where all eight exist and
       * share material (one whose stencil sits in scratch memory) and factor.
       */
      void
      find_node_cells(DeviceOperator::Impl &d)
      {
        StructuredGrid &g        = d.structured;
        const Index64   n_points = g.n_points();
        const LocalIndex    *cells     = g.cell.data();
        const std::uint16_t *material  = d.cell_material.data();
        const float         *factors   = d.cell_factor_data();
        std::uint16_t       *out       = g.node_cells.data();
        const Index64        points[3] = {g.points[0], g.points[1], g.points[2]};
        for_range("plastix::dbd_structured_node_cells", n_points, KOKKOS_LAMBDA(const Index64 p) {
          const Index64 X = points[0], XY = points[0] * points[1];
          std::uint16_t bits    = 0;
          bool          uniform = true;
          LocalIndex    first   = -1;
          for (int q = 0; q < 8; ++q)
            {
              if (!cell_in_lattice(points, p, q) || cells[p + cell_offset(X, XY, q)] < 0)
                continue;
              const LocalIndex cell = cells[p + cell_offset(X, XY, q)];
              bits |= std::uint16_t(1u << q);
              if (first < 0)
                first = cell;
              else if (material[cell] != material[first] ||
                       (factors != nullptr && !(factors[cell] == factors[first])))
                uniform = false;
            }
          const bool stencil = bits == 0xFF && uniform && material[first] < lattice_scratch_materials;
          out[p] = static_cast<std::uint16_t>(bits | (stencil ? lattice_stencil_node | (material[first] << lattice_material_shift) : 0));
        });
      }

      void
      build_structured_grid(const MeshData &mesh, DeviceOperator::Impl &d)
      {
        StructuredGrid &g = d.structured;
        if (!mesh.constraint_rows.empty())
          throw std::invalid_argument("dbd structured: the mesh has hanging-node constraints; the strategy needs a "
                                      "conforming lattice of equal boxes (use another strategy)");
        if (mesh.n_cells() == 0)
          return;
        if (mesh.n_nodes > lattice_node_mask)
          throw std::invalid_argument("dbd structured: more than 2^28 nodes in one process");
        const std::vector<Index64> cell_point = locate_cells_on_lattice(mesh, g);
        fill_lattice(mesh, cell_point, g);
        build_stencils(mesh, d);
        find_node_cells(d);
        update_structured_classes(d);
        Kokkos::fence();
      }
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#include "../firewall_check.h"
