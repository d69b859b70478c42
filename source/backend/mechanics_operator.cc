// Construction and dispatch of the matrix-free Q1 mechanics operator.
#include <plastix/backend/mechanics_operator.h>

#include "plasticity_impl.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

namespace plastix
{
  namespace backend
  {
    using internal::Index64;

    Strategy
    parse_strategy(const std::string &name)
    {
      if (name == "ebe atomic")
        return Strategy::ebe_atomic;
      if (name == "ebe colored")
        return Strategy::ebe_colored;
      if (name == "dbd")
        return Strategy::dbd;
      if (name == "ebe tiled")
        return Strategy::ebe_tiled;
      if (name == "assembled")
        return Strategy::assembled;
      if (name == "dbd structured")
        return Strategy::dbd_structured;
      throw std::invalid_argument("unknown operator strategy '" + name +
                                  "' (expected: ebe atomic, ebe colored, dbd, ebe tiled, assembled, dbd structured)");
    }

    CellKernel
    parse_cell_kernel(const std::string &name)
    {
      if (name == "stored geometry")
        return CellKernel::stored_geometry;
      if (name == "geometry on the fly")
        return CellKernel::geometry_on_the_fly;
      if (name == "element matrix")
        return CellKernel::element_matrix;
      throw std::invalid_argument(
        "unknown cell kernel '" + name +
        "' (expected: stored geometry, geometry on the fly, element matrix)");
    }

    ElementFormulation
    parse_element_formulation(const std::string &name)
    {
      if (name == "full")
        return ElementFormulation::full;
      if (name == "bbar")
        return ElementFormulation::bbar;
      throw std::invalid_argument("unknown element formulation '" + name + "' (expected: full, bbar)");
    }

    std::string
    to_string(const ElementFormulation formulation)
    {
      switch (formulation)
        {
          case ElementFormulation::full:
            return "full";
          case ElementFormulation::bbar:
            return "bbar";
        }
      return "?";
    }

    ThreadMapping
    parse_thread_mapping(const std::string &name)
    {
      if (name == "auto")
        return ThreadMapping::automatic;
      if (name == "cell")
        return ThreadMapping::cell;
      if (name == "node")
        return ThreadMapping::node;
      if (name == "shuffle")
        return ThreadMapping::shuffle;
      throw std::invalid_argument("unknown thread mapping '" + name + "' (expected: auto, cell, node, shuffle)");
    }

    std::string
    to_string(const ThreadMapping mapping)
    {
      switch (mapping)
        {
          case ThreadMapping::automatic:
            return "auto";
          case ThreadMapping::cell:
            return "cell";
          case ThreadMapping::node:
            return "node";
          case ThreadMapping::shuffle:
            return "shuffle";
        }
      return "?";
    }

    bool
    cells_on_shuffle_lanes(const ThreadMapping mapping, const CellKernel kernel)
    {
      return mapping == ThreadMapping::shuffle && kernel != CellKernel::element_matrix;
    }

    std::string
    to_string(const Strategy strategy)
    {
      switch (strategy)
        {
          case Strategy::ebe_atomic:
            return "ebe atomic";
          case Strategy::ebe_colored:
            return "ebe colored";
          case Strategy::dbd:
            return "dbd";
          case Strategy::ebe_tiled:
            return "ebe tiled";
          case Strategy::assembled:
            return "assembled";
          case Strategy::dbd_structured:
            return "dbd structured";
        }
      return "?";
    }

    std::string
    to_string(const CellKernel kernel)
    {
      switch (kernel)
        {
          case CellKernel::stored_geometry:
            return "stored geometry";
          case CellKernel::geometry_on_the_fly:
            return "geometry on the fly";
          case CellKernel::element_matrix:
            return "element matrix";
        }
      return "?";
    }

    void
    MeshData::check_constraint_lines() const
    {
      const std::size_t n_lines = constraint_rows.size();
      if (n_lines == 0 && constraint_offsets.empty() && constraint_columns.empty() && constraint_weights.empty())
        return;
      if (constraint_offsets.size() != n_lines + 1 || constraint_offsets.front() != 0 ||
          static_cast<std::size_t>(constraint_offsets.back()) != constraint_columns.size() ||
          constraint_weights.size() != constraint_columns.size())
        throw std::invalid_argument("MeshData: the constraint lines are not in CSR form (offsets of size "
                                    "lines + 1 from 0 to the number of columns, one weight per column)");
      const LocalIndex  n_local_dofs = n_dofs();
      std::vector<char> is_row(n_local_dofs, 0);
      for (const LocalIndex row : constraint_rows)
        {
          if (row < 0 || row >= n_local_dofs)
            throw std::invalid_argument("MeshData: constraint row " + std::to_string(row) + " outside [0, " +
                                        std::to_string(n_local_dofs) + ")");
          if (is_row[row] || constrained_dofs[row])
            throw std::invalid_argument("MeshData: DoF " + std::to_string(row) +
                                        " has two constraints (two lines, or a line and a Dirichlet flag)");
          is_row[row] = 1;
        }
      for (std::size_t r = 0; r < n_lines; ++r)
        {
          if (constraint_offsets[r + 1] < constraint_offsets[r])
            throw std::invalid_argument("MeshData: constraint offsets decrease");
          for (LocalIndex k = constraint_offsets[r]; k < constraint_offsets[r + 1]; ++k)
            {
              const LocalIndex column = constraint_columns[k];
              if (column < 0 || column >= n_local_dofs)
                throw std::invalid_argument("MeshData: constraint column " + std::to_string(column) +
                                            " outside [0, " + std::to_string(n_local_dofs) + ")");
              if (is_row[column] || constrained_dofs[column])
                throw std::invalid_argument(
                  "MeshData: DoF " + std::to_string(constraint_rows[r]) + " is constrained to DoF " +
                  std::to_string(column) +
                  ", which is constrained itself (chains must be resolved: close() the AffineConstraints)");
              if (!std::isfinite(constraint_weights[k]))
                throw std::invalid_argument("MeshData: a constraint weight is not finite");
            }
        }
      if (dirichlet_offsets.empty() && dirichlet_columns.empty() && dirichlet_weights.empty())
        return;
      if (dirichlet_offsets.size() != n_lines + 1 || dirichlet_offsets.front() != 0 ||
          static_cast<std::size_t>(dirichlet_offsets.back()) != dirichlet_columns.size() ||
          dirichlet_weights.size() != dirichlet_columns.size())
        throw std::invalid_argument("MeshData: the Dirichlet weights of the constraint lines are not in CSR form");
      for (std::size_t r = 0; r < n_lines; ++r)
        for (LocalIndex k = dirichlet_offsets[r]; k < dirichlet_offsets[r + 1]; ++k)
          {
            const LocalIndex column = dirichlet_columns[k];
            if (column < 0 || column >= n_local_dofs || !constrained_dofs[column])
              throw std::invalid_argument("MeshData: a Dirichlet weight of a constraint line refers to DoF " +
                                          std::to_string(column) + ", which is not a local Dirichlet DoF");
            if (!std::isfinite(dirichlet_weights[k]))
              throw std::invalid_argument("MeshData: a constraint weight is not finite");
          }
    }

    void
    MeshData::check_consistency() const
    {
      if (cell_nodes.size() % 8 != 0)
        throw std::invalid_argument("MeshData: cell_nodes must hold 8 nodes per cell");
      if (n_owned_nodes < 0 || n_owned_nodes > n_nodes)
        throw std::invalid_argument("MeshData: n_owned_nodes outside [0, n_nodes]");
      if (node_coordinates.size() != 3 * static_cast<std::size_t>(n_nodes))
        throw std::invalid_argument("MeshData: node_coordinates must hold 3 values per node");
      if (cell_material.size() != static_cast<std::size_t>(n_cells()))
        throw std::invalid_argument("MeshData: cell_material must hold one entry per cell");
      if (constrained_dofs.size() != 3 * static_cast<std::size_t>(n_nodes))
        throw std::invalid_argument("MeshData: constrained_dofs must hold one flag per DoF");
      for (const LocalIndex node : cell_nodes)
        if (node < 0 || node >= n_nodes)
          throw std::invalid_argument("MeshData: cell_nodes refers to node " +
                                      std::to_string(node) + " outside [0, " +
                                      std::to_string(n_nodes) + ")");
      for (const auto m : cell_material)
        if (m >= materials.size())
          throw std::invalid_argument("MeshData: cell_material refers to material " +
                                      std::to_string(m) + " but only " +
                                      std::to_string(materials.size()) +
                                      " are defined");
      check_constraint_lines();
      if (!cell_factors.empty())
        {
          if (cell_factors.size() != static_cast<std::size_t>(n_cells()))
            throw std::invalid_argument("MeshData: cell_factors must be empty or hold one factor per cell");
          for (std::size_t cell = 0; cell < cell_factors.size(); ++cell)
            if (!(cell_factors[cell] > 0) || !std::isfinite(cell_factors[cell]))
              throw std::invalid_argument("MeshData: the stiffness factor of cell " + std::to_string(cell) + " is " +
                                          std::to_string(cell_factors[cell]) + "; it must be finite and positive");
        }
      for (std::size_t i = 0; i < materials.size(); ++i)
        if (!(materials[i].mu > 0) || !(3 * materials[i].lambda + 2 * materials[i].mu > 0))
          throw std::invalid_argument("MeshData: material " + std::to_string(i) +
                                      " is not positive definite (mu > 0 and "
                                      "3 lambda + 2 mu > 0 required)");
    }

    namespace
    {
      /** Greedy colouring: cells of one colour share no node. */
      void
      color_cells(const MeshData            &mesh,
                  std::vector<LocalIndex>   &sorted_cells,
                  std::vector<LocalIndex>   &offsets)
      {
        const LocalIndex              n_cells = mesh.n_cells();
        std::vector<std::uint64_t>    used(mesh.n_nodes, 0);
        std::vector<int>              color(n_cells);
        int                           n_colors = 0;
        for (LocalIndex cell = 0; cell < n_cells; ++cell)
          {
            std::uint64_t taken = 0;
            for (int a = 0; a < 8; ++a)
              taken |= used[mesh.cell_nodes[8 * cell + a]];
            if (~taken == 0)
              throw std::runtime_error("ebe colored: more than 64 colours needed "
                                       "(a node is shared by too many cells); use ebe atomic");
            int c = 0;
            while ((taken >> c) & 1u)
              ++c;
            color[cell] = c;
            n_colors    = std::max(n_colors, c + 1);
            for (int a = 0; a < 8; ++a)
              used[mesh.cell_nodes[8 * cell + a]] |= (std::uint64_t(1) << c);
          }
        offsets.assign(n_colors + 1, 0);
        for (LocalIndex cell = 0; cell < n_cells; ++cell)
          ++offsets[color[cell] + 1];
        for (int c = 0; c < n_colors; ++c)
          offsets[c + 1] += offsets[c];
        sorted_cells.resize(n_cells);
        std::vector<LocalIndex> next(offsets.begin(), offsets.end() - 1);
        for (LocalIndex cell = 0; cell < n_cells; ++cell)
          sorted_cells[next[color[cell]]++] = cell;
      }

      /** Interleave the low 21 bits of x, y, z (x lowest) into a 63-bit Morton code. */
      std::uint64_t
      morton_code(const std::array<std::uint64_t, 3> &q)
      {
        std::uint64_t code = 0;
        for (int bit = 0; bit < 21; ++bit)
          for (int d = 0; d < 3; ++d)
            code |= ((q[d] >> bit) & 1u) << (3 * bit + d);
        return code;
      }

      /**
       * Tiles of Strategy::ebe_tiled: the cells sorted along a Morton curve
       * of their centres (on a grid of the smallest cell extent per axis, so
       * that the cells of a structured mesh fall into aligned blocks), cut
       * into runs of @p cells_per_tile cells, with each tile's node list, the
       * position of every cell vertex in it, and the node flags (constrained
       * components, interior to the tile).
       */
      void
      build_tiles(const MeshData &mesh, const unsigned int cells_per_tile, MechanicsOperator::Impl &d)
      {
        const LocalIndex n_cells = mesh.n_cells();
        if (n_cells == 0)
          return;
        std::array<double, 3> lower{}, extent{};
        for (int c = 0; c < 3; ++c)
          {
            lower[c]  = std::numeric_limits<double>::max();
            extent[c] = std::numeric_limits<double>::max();
          }
        std::vector<double> centres(3 * static_cast<std::size_t>(n_cells));
        for (LocalIndex cell = 0; cell < n_cells; ++cell)
          for (int c = 0; c < 3; ++c)
            {
              double lo = std::numeric_limits<double>::max(), hi = -lo, sum = 0;
              for (int a = 0; a < 8; ++a)
                {
                  const double x = mesh.node_coordinates[3 * mesh.cell_nodes[8 * cell + a] + c];
                  lo             = std::min(lo, x);
                  hi             = std::max(hi, x);
                  sum += x;
                }
              centres[3 * cell + c] = sum / 8;
              lower[c]              = std::min(lower[c], lo);
              if (hi > lo)
                extent[c] = std::min(extent[c], hi - lo);
            }
        std::vector<std::pair<std::uint64_t, LocalIndex>> keys(n_cells);
        for (LocalIndex cell = 0; cell < n_cells; ++cell)
          {
            std::array<std::uint64_t, 3> q{};
            for (int c = 0; c < 3; ++c)
              {
                const double h = extent[c] < std::numeric_limits<double>::max() ? extent[c] : 1.;
                q[c] = static_cast<std::uint64_t>(
                  std::min(std::max((centres[3 * cell + c] - lower[c]) / h, 0.), double((1u << 21) - 1)));
              }
            keys[cell] = {morton_code(q), cell};
          }
        std::sort(keys.begin(), keys.end());

        std::vector<int> cells_of_node(mesh.n_nodes, 0);
        for (const LocalIndex node : mesh.cell_nodes)
          ++cells_of_node[node];
        const int most_cells_of_a_node = *std::max_element(cells_of_node.begin(), cells_of_node.end());

        // A tile also ends before its team scratch memory (see
        // TiledElementByElementApply::scratch_bytes) would exceed the 48 KiB a
        // GPU block gets without opting in, less what Kokkos keeps of it for
        // team reductions ((team size + 2) doubles and an int64) and a margin
        // for alignment: irregular tiles (an L-shaped fixed grid) that asked
        // for the whole 48 KiB failed with "insufficient shared memory".
        const std::size_t scratch_limit = 48 * 1024 - (cells_per_tile + 2) * sizeof(double) - 256;
        const std::size_t fixed_bytes   = sizeof(double) * (24 * cells_per_tile + 576);
        const std::size_t bytes_per_node = 3 * sizeof(double) + sizeof(int) * (1 + most_cells_of_a_node);
        if (fixed_bytes + 8 * bytes_per_node > scratch_limit)
          throw std::invalid_argument("ebe tiled: a node is shared by " + std::to_string(most_cells_of_a_node) +
                                      " cells; tiles of " + std::to_string(cells_per_tile) +
                                      " cells do not fit into 48 KiB of scratch memory (use fewer cells per tile)");
        const std::size_t max_tile_nodes = (scratch_limit - fixed_bytes) / bytes_per_node;

        std::vector<LocalIndex>    tile_cells, cell_offsets{0}, tile_nodes, node_offsets{0};
        std::vector<std::uint16_t> tile_vertex;
        std::vector<std::uint8_t>  flags;
        std::vector<int>           local(mesh.n_nodes, -1), cells_in_tile(mesh.n_nodes, 0);
        tile_cells.reserve(n_cells);
        tile_vertex.reserve(8 * static_cast<std::size_t>(n_cells));
        int max_nodes = 0, max_node_cells = 0;
        for (std::size_t begin = 0; begin < keys.size();)
          {
            const std::size_t first_node = tile_nodes.size();
            std::size_t       end        = begin;
            for (; end < keys.size() && end < begin + cells_per_tile; ++end)
              {
                const LocalIndex cell      = keys[end].second;
                std::size_t      new_nodes = 0;
                for (int a = 0; a < 8; ++a)
                  new_nodes += local[mesh.cell_nodes[8 * cell + a]] < 0 ? 1 : 0;
                if (end > begin && tile_nodes.size() - first_node + new_nodes > max_tile_nodes)
                  break;
                tile_cells.push_back(cell);
                for (int a = 0; a < 8; ++a)
                  {
                    const LocalIndex node = mesh.cell_nodes[8 * cell + a];
                    if (local[node] < 0)
                      {
                        local[node] = static_cast<int>(tile_nodes.size() - first_node);
                        tile_nodes.push_back(node);
                      }
                    ++cells_in_tile[node];
                    tile_vertex.push_back(static_cast<std::uint16_t>(local[node]));
                  }
              }
            begin = end;
            for (std::size_t i = first_node; i < tile_nodes.size(); ++i)
              {
                const LocalIndex node = tile_nodes[i];
                std::uint8_t     f    = cells_in_tile[node] == cells_of_node[node] ? internal::tile_interior_node : 0;
                for (int c = 0; c < 3; ++c)
                  if (mesh.constrained_dofs[3 * node + c])
                    f |= static_cast<std::uint8_t>(1u << c);
                flags.push_back(f);
                max_node_cells      = std::max(max_node_cells, cells_in_tile[node]);
                local[node]         = -1;
                cells_in_tile[node] = 0;
              }
            max_nodes = std::max(max_nodes, static_cast<int>(tile_nodes.size() - first_node));
            cell_offsets.push_back(static_cast<LocalIndex>(tile_cells.size()));
            node_offsets.push_back(static_cast<LocalIndex>(tile_nodes.size()));
          }
        d.n_tiles            = cell_offsets.size() - 1;
        d.max_nodes_per_tile      = max_nodes;
        d.max_cells_per_tile_node = max_node_cells;
        d.tile_cells         = DeviceArray<LocalIndex>(tile_cells, "tile cells");
        d.tile_cell_offsets  = DeviceArray<LocalIndex>(cell_offsets, "tile cell offsets");
        d.tile_nodes         = DeviceArray<LocalIndex>(tile_nodes, "tile nodes");
        d.tile_node_offsets  = DeviceArray<LocalIndex>(node_offsets, "tile node offsets");
        d.tile_vertex        = DeviceArray<std::uint16_t>(tile_vertex, "tile vertices");
        d.tile_node_flags    = DeviceArray<std::uint8_t>(flags, "tile node flags");
      }

      /**
       * Group cells whose vertices are translates of each other (same
       * material) so that one element matrix serves the group; returns the
       * group of each cell and a representative cell of each group.
       */
      void
      group_congruent_cells(const MeshData          &mesh,
                            std::vector<LocalIndex> &cell_group,
                            std::vector<LocalIndex> &representatives)
      {
        using Key = std::array<long long, 22>;
        std::map<Key, LocalIndex> groups;
        const LocalIndex          n_cells = mesh.n_cells();
        cell_group.resize(n_cells);
        representatives.clear();
        // One absolute tolerance for all cells, 1e-9 of the smallest cell's
        // diagonal: rounding differences of generated meshes collapse, real
        // shape differences do not, and neither do sizes (a tolerance
        // relative to each cell's own size would make a cell and its half-size
        // copy congruent: same key, one matrix, twice the stiffness of the
        // smaller).
        auto diagonal = [&](const LocalIndex cell) {
          const double *x0 = &mesh.node_coordinates[3 * mesh.cell_nodes[8 * cell]];
          const double *x7 = &mesh.node_coordinates[3 * mesh.cell_nodes[8 * cell + 7]];
          return std::sqrt((x7[0] - x0[0]) * (x7[0] - x0[0]) + (x7[1] - x0[1]) * (x7[1] - x0[1]) +
                           (x7[2] - x0[2]) * (x7[2] - x0[2]));
        };
        double smallest = std::numeric_limits<double>::max();
        for (LocalIndex cell = 0; cell < n_cells; ++cell)
          smallest = std::min(smallest, diagonal(cell));
        const double tolerance = 1e-9 * smallest;
        for (LocalIndex cell = 0; cell < n_cells; ++cell)
          {
            const double *x0 = &mesh.node_coordinates[3 * mesh.cell_nodes[8 * cell]];
            Key           key;
            for (int a = 1; a < 8; ++a)
              {
                const double *xa = &mesh.node_coordinates[3 * mesh.cell_nodes[8 * cell + a]];
                for (int i = 0; i < 3; ++i)
                  key[3 * (a - 1) + i] = std::llround((xa[i] - x0[i]) / tolerance);
              }
            key[21]                  = mesh.cell_material[cell];
            const auto [it, is_new]  = groups.emplace(key, static_cast<LocalIndex>(representatives.size()));
            if (is_new)
              representatives.push_back(cell);
            cell_group[cell] = it->second;
          }
      }

      /** Copy an n_items x n_entries host table (row-major) into the device layout. */
      template <typename T>
      std::vector<T>
      to_device_layout(const std::vector<T> &row_major,
                       const Index64         n_items,
                       const Index64         n_entries,
                       Index64              &stride_item,
                       Index64              &stride_entry,
                       const bool            thread_per_item)
      {
        internal::default_strides(n_items, n_entries, stride_item, stride_entry, thread_per_item);
        std::vector<T> result(row_major.size());
        for (Index64 i = 0; i < n_items; ++i)
          for (Index64 e = 0; e < n_entries; ++e)
            result[i * stride_item + e * stride_entry] = row_major[i * n_entries + e];
        return result;
      }
    } // namespace

    namespace internal
    {
      /** Inverse Jacobians and JxW of every cell and Gauss point, computed on the device. */
      void
      store_geometry(const OnTheFlyGeometry<> &source, const Strided<double> &target, const Index64 n_cells)
      {
        for_range("plastix::store_geometry", n_cells, KOKKOS_LAMBDA(const Index64 cell) {
          OnTheFlyGeometry<>::CellData c;
          source.load(cell, c);
          for (int q = 0; q < 8; ++q)
            {
              double       inv[3][3];
              const double JxW = source.at(c, q, inv);
              for (int k = 0; k < 9; ++k)
                target(cell, 10 * q + k) = inv[k / 3][k % 3];
              target(cell, 10 * q + 9) = JxW;
            }
        });
      }

      /**
       * Slots of the flagged cells (prefix sum): list[slot] = cell, and
       * index[cell] = n_groups + slot for flagged cells, group[cell] else.
       * Returns the number of flagged cells.
       */
      Index64
      enumerate_flagged(const std::uint8_t *flag,
                        const LocalIndex   *group,
                        const LocalIndex    n_groups,
                        const Index64       n_cells,
                        LocalIndex         *list,
                        LocalIndex         *index)
      {
        Index64 total = 0;
        scan_range(
          "plastix::enumerate_plastic_cells",
          n_cells,
          KOKKOS_LAMBDA(const Index64 cell, Index64 &offset, const bool final) {
            if (final)
              {
                if (flag[cell])
                  {
                    list[offset] = static_cast<LocalIndex>(cell);
                    index[cell]  = n_groups + static_cast<LocalIndex>(offset);
                  }
                else
                  index[cell] = group[cell];
              }
            if (flag[cell])
              ++offset;
          },
          total);
        return total;
      }

      /** Number of cells with a non-positive Jacobian determinant at a Gauss point. */
      Index64
      count_inverted_cells(const OnTheFlyGeometry<> &geometry, const Index64 n_cells)
      {
        Index64 n_bad = 0;
        reduce_range(
          "plastix::check_jacobians",
          n_cells,
          KOKKOS_LAMBDA(const Index64 cell, Index64 &bad) {
            OnTheFlyGeometry<>::CellData c;
            geometry.load(cell, c);
            for (int q = 0; q < 8; ++q)
              {
                double inv[3][3];
                if (!(geometry.at(c, q, inv) > 0))
                  {
                    ++bad;
                    break;
                  }
              }
          },
          n_bad);
        return n_bad;
      }
    } // namespace internal

    namespace
    {
      /**
       * The hanging-node lines of @p mesh on the device, their transpose
       * (per column DoF) for the condensation, the line of each DoF and the
       * cells with constrained vertex DoFs for the diagonal.
       */
      void
      upload_constraint_lines(const MeshData &mesh, MechanicsOperator::Impl &d)
      {
        d.n_constraint_lines = mesh.constraint_rows.size();
        if (d.n_constraint_lines == 0)
          return;
        d.constraint_rows    = DeviceArray<LocalIndex>(mesh.constraint_rows, "constraint rows");
        d.constraint_offsets = DeviceArray<LocalIndex>(mesh.constraint_offsets, "constraint offsets");
        d.constraint_columns = DeviceArray<LocalIndex>(mesh.constraint_columns, "constraint columns");
        d.constraint_weights = DeviceArray<double>(mesh.constraint_weights, "constraint weights");

        // Transpose: column DoF -> (line, weight), columns in increasing order.
        std::map<LocalIndex, std::vector<std::pair<LocalIndex, double>>> by_column;
        for (std::size_t r = 0; r < d.n_constraint_lines; ++r)
          for (LocalIndex k = mesh.constraint_offsets[r]; k < mesh.constraint_offsets[r + 1]; ++k)
            by_column[mesh.constraint_columns[k]].emplace_back(static_cast<LocalIndex>(r),
                                                               mesh.constraint_weights[k]);
        std::vector<LocalIndex> column_dofs, column_offsets{0}, column_lines;
        std::vector<double>     column_weights;
        for (const auto &[column, entries] : by_column)
          {
            column_dofs.push_back(column);
            for (const auto &[line, weight] : entries)
              {
                column_lines.push_back(line);
                column_weights.push_back(weight);
              }
            column_offsets.push_back(static_cast<LocalIndex>(column_lines.size()));
          }
        d.column_dofs    = DeviceArray<LocalIndex>(column_dofs, "constraint column dofs");
        d.column_offsets = DeviceArray<LocalIndex>(column_offsets, "constraint column offsets");
        d.column_lines   = DeviceArray<LocalIndex>(column_lines, "constraint column lines");
        d.column_weights = DeviceArray<double>(column_weights, "constraint column weights");

        std::vector<LocalIndex> line_of_dof(mesh.n_dofs(), -1);
        for (std::size_t r = 0; r < d.n_constraint_lines; ++r)
          line_of_dof[mesh.constraint_rows[r]] = static_cast<LocalIndex>(r);
        std::vector<LocalIndex> cells;
        for (LocalIndex cell = 0; cell < mesh.n_cells(); ++cell)
          for (int a = 0; a < 8; ++a)
            {
              const LocalIndex node = mesh.cell_nodes[8 * cell + a];
              if (line_of_dof[3 * node] >= 0 || line_of_dof[3 * node + 1] >= 0 || line_of_dof[3 * node + 2] >= 0)
                {
                  cells.push_back(cell);
                  break;
                }
            }
        d.line_of_dof       = DeviceArray<LocalIndex>(line_of_dof, "line of dof");
        d.constrained_cells = DeviceArray<LocalIndex>(cells, "cells with constrained dofs");
        if (!mesh.dirichlet_offsets.empty())
          {
            d.dirichlet_offsets = DeviceArray<LocalIndex>(mesh.dirichlet_offsets, "constraint dirichlet offsets");
            d.dirichlet_columns = DeviceArray<LocalIndex>(mesh.dirichlet_columns, "constraint dirichlet columns");
            d.dirichlet_weights = DeviceArray<double>(mesh.dirichlet_weights, "constraint dirichlet weights");
          }
        d.saved_row_values.resize(d.n_constraint_lines, "saved constrained values");
        d.saved_row_values_float.resize(d.n_constraint_lines, "saved constrained values");
      }
    } // namespace

    namespace
    {
      /** The numeric pass of Strategy::assembled with the current law (elastic or tangent). */
      void
      assemble_matrix_values(MechanicsOperator::Impl &d);
    } // namespace

    MechanicsOperator::MechanicsOperator(const MeshData         &mesh,
                                         const OperatorSettings &settings)
      : impl_(std::make_unique<Impl>())
    {
      mesh.check_consistency();
      Impl &d          = *impl_;
      d.settings       = settings;
      // Strategies that run one thread per cell, node or row refuse these mappings.
      const bool several_threads_per_cell =
        settings.thread_mapping == ThreadMapping::node || settings.thread_mapping == ThreadMapping::shuffle;
      if (settings.strategy == Strategy::ebe_tiled)
        {
          if (several_threads_per_cell)
            throw std::invalid_argument("ebe tiled runs one thread per cell: thread mapping '" +
                                        to_string(settings.thread_mapping) + "' does not apply");
          if (settings.cells_per_tile < 1 || settings.cells_per_tile > 128)
            throw std::invalid_argument("ebe tiled: cells per tile must lie in [1, 128], not " +
                                        std::to_string(settings.cells_per_tile));
          d.settings.thread_mapping = ThreadMapping::cell;
        }
      if (settings.strategy == Strategy::assembled)
        {
          if (several_threads_per_cell)
            throw std::invalid_argument("assembled: the matrix is applied by rows; thread mapping '" +
                                        to_string(settings.thread_mapping) + "' does not apply");
          d.settings.thread_mapping = ThreadMapping::cell;
        }
      // dbd structured runs one thread per lattice point; the thread mapping
      // is that of its element-by-element pass (the cells the lattice leaves:
      // those with plastic points of a tangent, the stored-stress products),
      // one thread or eight shuffle lanes per cell.
      if (settings.strategy == Strategy::dbd_structured && settings.thread_mapping == ThreadMapping::node)
        throw std::invalid_argument("dbd structured runs one thread per node: thread mapping 'node' does not apply "
                                    "(cell or shuffle choose the threads of its element-by-element cells)");
      // Measured (doc/benchmarks.md, "GPU: the elastic operator on general
      // meshes (distorted, curved, file meshes)" and "GPU: plastic kernels
      // (J2)"; doc/design.md, "Designs tried and not kept"): on GPUs eight
      // threads per cell pay off for ebe colored (each colour is a small,
      // sparse launch) and, with geometry on the fly, the shuffle lanes for
      // ebe atomic and for the element-by-element cells of dbd structured;
      // otherwise one thread per cell. On CPUs the lanes' host form (one
      // thread holding a cell's eight lanes) is the faster quadrature kernel
      // for the EbE strategies, stored geometry included, with Kokkos Serial
      // and OpenMP alike; the element-matrix kernel runs one thread per
      // cell either way.
      if (d.settings.thread_mapping == ThreadMapping::automatic)
        {
          const bool element_by_element = settings.strategy == Strategy::ebe_atomic ||
                                          settings.strategy == Strategy::ebe_colored ||
                                          settings.strategy == Strategy::dbd_structured;
          if (!internal::on_device)
            d.settings.thread_mapping = element_by_element && settings.cell_kernel != CellKernel::element_matrix ?
                                          ThreadMapping::shuffle :
                                          ThreadMapping::cell;
          else
            d.settings.thread_mapping =
              settings.strategy == Strategy::ebe_colored ? ThreadMapping::node :
              (settings.strategy == Strategy::ebe_atomic || settings.strategy == Strategy::dbd_structured) &&
                  settings.cell_kernel == CellKernel::geometry_on_the_fly ?
                                                           ThreadMapping::shuffle :
                                                           ThreadMapping::cell;
        }
      // One GPU thread per cell reads structure-of-arrays data; teams of a
      // cell and CPU threads read array-of-structures data. The shuffle
      // lanes of a cell share the per-cell layout of one thread per cell:
      // its other kernels (diagonal, stress update) run one thread per cell.
      const bool thread_per_cell = d.settings.thread_mapping != ThreadMapping::node;
      d.n_cells        = mesh.n_cells();
      d.n_nodes        = mesh.n_nodes;
      d.n_owned_nodes  = mesh.n_owned_nodes;

      d.cell_nodes = DeviceArray<LocalIndex>(
        to_device_layout(mesh.cell_nodes, d.n_cells, 8, d.cell_nodes_stride_cell, d.cell_nodes_stride_node,
                         thread_per_cell),
        "cell nodes");
      d.coordinates   = DeviceArray<double>(mesh.node_coordinates, "node coordinates");
      d.materials     = DeviceArray<Material>(mesh.materials, "materials");
      d.cell_material = DeviceArray<std::uint16_t>(mesh.cell_material, "cell materials");
      if (!mesh.cell_factors.empty())
        d.cell_factor = DeviceArray<float>(mesh.cell_factors, "cell stiffness factors");
      for (const Material &m : mesh.materials)
        if (m.criterion != YieldCriterion::von_mises)
          {
            d.pressure_dependent = true;
            if (m.criterion == YieldCriterion::mohr_coulomb ? m.sin_dilation != m.sin_friction :
                                                              m.cone_eta_bar != m.cone_eta)
              d.symmetric_tangent = false;
          }

      std::vector<std::uint32_t> masks(d.n_cells, 0);
      for (LocalIndex cell = 0; cell < d.n_cells; ++cell)
        for (int a = 0; a < 8; ++a)
          for (int c = 0; c < 3; ++c)
            if (mesh.constrained_dofs[3 * mesh.cell_nodes[8 * cell + a] + c])
              masks[cell] |= (1u << (3 * a + c));
      d.cell_constraint_mask = DeviceArray<std::uint32_t>(masks, "constraint masks");

      std::vector<LocalIndex> constrained_owned, constrained_all;
      for (LocalIndex dof = 0; dof < mesh.n_dofs(); ++dof)
        if (mesh.constrained_dofs[dof])
          {
            constrained_all.push_back(dof);
            if (dof < mesh.n_owned_dofs())
              constrained_owned.push_back(dof);
          }
      d.constrained_owned_dofs = DeviceArray<LocalIndex>(constrained_owned, "constrained dofs");
      d.constrained_dofs       = DeviceArray<LocalIndex>(constrained_all, "constrained dofs");
      upload_constraint_lines(mesh, d);
      d.springs = internal::build_boundary_springs(mesh);

      if (settings.strategy == Strategy::ebe_colored)
        {
          std::vector<LocalIndex> sorted;
          color_cells(mesh, sorted, d.color_offsets);
          d.colored_cells = DeviceArray<LocalIndex>(sorted, "colored cells");
        }
      else if (settings.strategy == Strategy::ebe_tiled)
        build_tiles(mesh, settings.cells_per_tile, d);
      else if (settings.strategy == Strategy::dbd)
        {
          std::vector<LocalIndex> offsets(d.n_nodes + 1, 0);
          for (const LocalIndex node : mesh.cell_nodes)
            ++offsets[node + 1];
          for (LocalIndex n = 0; n < d.n_nodes; ++n)
            offsets[n + 1] += offsets[n];
          if (d.n_cells >= (1 << 28))
            throw std::runtime_error("dbd: more than 2^28 cells in one process");
          std::vector<LocalIndex> entries(offsets.back());
          std::vector<LocalIndex> next(offsets.begin(), offsets.end() - 1);
          for (LocalIndex cell = 0; cell < d.n_cells; ++cell)
            for (int a = 0; a < 8; ++a)
              entries[next[mesh.cell_nodes[8 * cell + a]]++] = (cell << 3) | a;
          d.node_offsets = DeviceArray<LocalIndex>(offsets, "node offsets");
          d.node_entries = DeviceArray<LocalIndex>(entries, "node cell lists");
        }

      if (settings.cell_kernel == CellKernel::stored_geometry)
        {
          internal::default_strides(d.n_cells,
                                    internal::stored_geometry_entries,
                                    d.geometry_stride_cell,
                                    d.geometry_stride_entry,
                                    thread_per_cell);
          d.geometry.resize(static_cast<std::size_t>(d.n_cells) * internal::stored_geometry_entries,
                            "stored geometry");
          internal::store_geometry(d.on_the_fly_geometry(),
                                   {d.geometry.data(), d.geometry_stride_cell, d.geometry_stride_entry},
                                   d.n_cells);
        }
      else if (settings.cell_kernel == CellKernel::element_matrix)
        {
          std::vector<LocalIndex> groups, representatives;
          group_congruent_cells(mesh, groups, representatives);
          d.n_matrices            = representatives.size();
          d.cell_group            = DeviceArray<LocalIndex>(groups, "cell matrix group");
          d.cell_matrix           = DeviceArray<LocalIndex>(groups, "cell matrix index");
          d.matrix_representative = DeviceArray<LocalIndex>(representatives, "matrix cells");
          d.matrices.resize(576 * d.n_matrices, "element matrices");
          internal::with_element_formulation(settings.element_formulation, [&](auto mean_dilatation) {
            internal::QuadratureCellOperator<internal::OnTheFlyGeometry<>, internal::ElasticLaw<>,
                                             decltype(mean_dilatation)::value>
              op{d.on_the_fly_geometry(), d.elastic_law(false)};
            internal::compute_element_matrices(op,
                                               d.matrix_representative.data(),
                                               0,
                                               d.n_matrices,
                                               d.matrices.data());
          });
        }
      Kokkos::fence();

      // A negative Jacobian means a tangled or wrongly oriented cell: the
      // operator would not be positive definite.
      const Index64 n_bad = internal::count_inverted_cells(d.on_the_fly_geometry(), d.n_cells);
      if (n_bad > 0)
        throw std::invalid_argument(
          std::to_string(n_bad) +
          " cells have a non-positive Jacobian determinant at a Gauss point "
          "(tangled, degenerate or inverted hexahedra)");

      if (settings.strategy == Strategy::dbd_structured)
        internal::build_structured_grid(mesh, d);

      if (settings.strategy == Strategy::assembled)
        {
          const auto start = std::chrono::steady_clock::now();
          internal::assemble_symbolic(d.cell_node_table(), d.n_cells, d.n_nodes, d.matrix);
          Kokkos::fence();
          d.matrix.symbolic_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          assemble_matrix_values(d);
        }
    }

    MechanicsOperator::~MechanicsOperator() = default;

    namespace
    {
      /**
       * Run @p action with the quadrature cell operator of the chosen
       * geometry and the current law, evaluated in @p Number: the J2 tangent
       * if a plasticity state is attached, linear elasticity otherwise.
       */
      template <typename Number = double, typename Action>
      void
      with_quadrature_operator(const MechanicsOperator::Impl &d, const Action &action)
      {
        const bool stored = d.settings.cell_kernel == CellKernel::stored_geometry;
        internal::with_element_formulation(d.settings.element_formulation, [&](auto mean_dilatation) {
          constexpr bool bbar     = decltype(mean_dilatation)::value;
          auto           with_law = [&](const auto &law) {
            using Law = std::decay_t<decltype(law)>;
            if (stored)
              action(internal::QuadratureCellOperator<internal::StoredGeometry<Number>, Law, bbar>{
                d.template stored_geometry<Number>(), law});
            else
              action(internal::QuadratureCellOperator<internal::OnTheFlyGeometry<Number>, Law, bbar>{
                d.template on_the_fly_geometry<Number>(), law});
          };
          if (d.plasticity != nullptr)
            with_law(d.plasticity->template tangent_law<Number>());
          else
            with_law(d.template elastic_law<Number>());
        });
      }

      template <typename Number>
      internal::MatrixCellOperator<Number>
      matrix_operator(const MechanicsOperator::Impl &d)
      {
        internal::MatrixCellOperator<Number> op;
        op.matrices     = d.matrices.data();
        op.cell_matrix  = d.cell_matrix.data();
        op.own_matrices = d.plastic_matrices.data();
        op.n_shared     = static_cast<LocalIndex>(d.n_matrices);
        op.cell_factors = d.cell_factor_data();
        return op;
      }

      void
      assemble_matrix_values(MechanicsOperator::Impl &d)
      {
        const auto start = std::chrono::steady_clock::now();
        with_quadrature_operator(d, [&](const auto &op) {
          internal::assemble_numeric(op, d.cell_node_table(), d.cell_constraint_mask.data(), d.n_cells, d.matrix);
        });
        Kokkos::fence();
        d.matrix.numeric_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }

      /**
       * Strategy::dbd_structured: the lattice pass, then the cells it leaves
       * (those with plastic points of a tangent) element by element with
       * atomics, with the cell kernel of the settings.
       */
      template <typename Number>
      void
      apply_structured(const MechanicsOperator::Impl &d, const Number *src, Number *dst, const bool masked)
      {
        internal::apply_structured(d, src, dst, masked);
        if (d.structured.n_other_cells > 0)
          {
            auto with_operator = [&](const auto &op) {
              using CellOperator = std::decay_t<decltype(op)>;
              const auto set_members = [&](auto &functor) {
                functor.cell_operator = op;
                functor.cell_nodes    = d.cell_node_table();
                functor.masks         = d.cell_constraint_mask.data();
                functor.cell_list     = d.structured.other_cells.data();
                functor.src           = src;
                functor.dst           = dst;
              };
              // Eight shuffle lanes per cell (ThreadMapping::shuffle) or one thread per cell.
              if constexpr (internal::is_quadrature_operator<CellOperator>::value)
                if (d.settings.thread_mapping == ThreadMapping::shuffle)
                  {
                    internal::with_element_by_element_variant<internal::LaneElementByElementApply, CellOperator>(
                      masked, true, [&](auto functor) {
                        set_members(functor);
                        internal::launch_lanes("plastix::dbd_structured_other_cells_shuffle",
                                               functor,
                                               internal::Index64(0),
                                               d.structured.n_other_cells);
                      });
                    return;
                  }
              internal::with_element_by_element_variant<internal::ElementByElementApply, CellOperator>(
                masked, true, [&](auto functor) {
                  set_members(functor);
                  internal::for_range("plastix::dbd_structured_other_cells", d.structured.n_other_cells, functor);
                });
            };
            if (d.settings.cell_kernel == CellKernel::element_matrix)
              with_operator(matrix_operator<Number>(d));
            else
              with_quadrature_operator<Number>(d, with_operator);
          }
        // The lattice pass wrote the unit rows of the constrained owned DoFs
        // itself; the element-by-element pass may have added to them since.
        if (masked && (d.structured.n_other_cells > 0 || d.structured.n_points() == 0))
          vector_operations::copy_entries(d.constrained_owned_dofs.size(), d.constrained_owned_dofs.data(), src, dst);
      }

      template <typename Number>
      void
      apply_cells(const MechanicsOperator::Impl &d, const Number *src, Number *dst, const bool masked)
      {
        if (d.settings.strategy == Strategy::dbd_structured)
          {
            apply_structured(d, src, dst, masked);
            return;
          }
        if (masked && d.settings.strategy == Strategy::assembled)
          {
            internal::csr_apply(d.matrix, src, dst);
            vector_operations::copy_entries(d.constrained_owned_dofs.size(), d.constrained_owned_dofs.data(), src,
                                            dst);
            return;
          }
        const bool one_matrix =
          d.settings.cell_kernel == CellKernel::element_matrix && d.n_matrices == 1 && d.n_plastic_matrices == 0;
        if (one_matrix && d.settings.strategy == Strategy::ebe_tiled)
          {
            // One matrix for the whole mesh, read from scratch memory.
            internal::launch_tiled<true>(d, matrix_operator<Number>(d), src, dst, masked);
            if (masked)
              vector_operations::copy_entries(d.constrained_owned_dofs.size(), d.constrained_owned_dofs.data(),
                                              src, dst);
          }
        else if (one_matrix && d.settings.strategy == Strategy::ebe_atomic &&
                 d.settings.thread_mapping != ThreadMapping::node)
          {
            // One matrix for the whole mesh: read it from scratch memory.
            internal::Index64 n_dofs = 3 * static_cast<internal::Index64>(d.n_nodes);
            vector_operations::set(n_dofs, Number(0), dst);
            auto run = [&](auto functor) {
              functor.matrix       = d.matrices.data();
              functor.cell_factors = d.cell_factor_data();
              functor.cell_nodes   = d.cell_node_table();
              functor.masks      = d.cell_constraint_mask.data();
              functor.src        = src;
              functor.dst        = dst;
              internal::launch_shared_matrix(functor, d.n_cells);
            };
            if (masked)
              {
                run(internal::SharedMatrixElementByElementApply<Number, true>{});
                vector_operations::copy_entries(d.constrained_owned_dofs.size(), d.constrained_owned_dofs.data(),
                                                src, dst);
              }
            else
              run(internal::SharedMatrixElementByElementApply<Number, false>{});
          }
        else if (d.settings.cell_kernel == CellKernel::element_matrix)
          internal::launch_apply(d, matrix_operator<Number>(d), src, dst, masked);
        else
          with_quadrature_operator<Number>(d,
                                           [&](const auto &op) { internal::launch_apply(d, op, src, dst, masked); });
      }

      /**
       * The cells' product, then the boundary springs' (without the rows and
       * columns of Dirichlet DoFs if @p masked, so the unit rows stay).
       */
      template <typename Number>
      void
      apply_current(const MechanicsOperator::Impl &d, const Number *src, Number *dst, const bool masked)
      {
        apply_cells(d, src, dst, masked);
        internal::add_boundary_springs(d.springs, src, dst, masked);
      }

      /**
       * dst = C^T A C src with unit rows at constrained DoFs: the cells see
       * the constrained rows of src interpolated from their lines (src is
       * restored afterwards; only those few entries change meanwhile).
       */
      template <typename Number>
      void
      apply_constrained(const MechanicsOperator::Impl &d, const Number *src, Number *dst, Number *saved)
      {
        if (d.n_constraint_lines == 0)
          {
            apply_current(d, src, dst, true);
            return;
          }
        Number *interpolated = const_cast<Number *>(src);
        internal::interpolate_constrained_rows(d, interpolated, saved);
        apply_current(d, src, dst, true);
        internal::restore_constrained_rows(d, interpolated, saved);
        internal::condense_constrained_rows(d, dst, src);
      }
    } // namespace

    void
    MechanicsOperator::apply(const double *src, double *dst) const
    {
      apply_constrained(*impl_, src, dst, impl_->saved_row_values.data());
    }

    void
    MechanicsOperator::apply(const float *src, float *dst) const
    {
      apply_constrained(*impl_, src, dst, impl_->saved_row_values_float.data());
    }

    bool
    MechanicsOperator::fuses_chebyshev_step() const
    {
      const Impl &d = *impl_;
      return d.settings.strategy == Strategy::dbd_structured && d.structured.n_other_cells == 0 &&
             d.n_constraint_lines == 0 && d.n_owned_nodes == d.n_nodes && d.structured.n_points() > 0 &&
             d.springs.empty();
    }

    namespace
    {
      template <typename Number>
      void
      fused_chebyshev_step(const MechanicsOperator             &op,
                           const MechanicsOperator::Impl       &d,
                           const Number                        *x,
                           const Number                        *x_old,
                           const Number                        *rhs,
                           const Number                        *inverse_diagonal,
                           const double                         factor1,
                           const double                         factor2,
                           Number                              *out)
      {
        if (!op.fuses_chebyshev_step())
          throw std::logic_error("MechanicsOperator::chebyshev_step: the operator cannot fuse the update "
                                 "(check fuses_chebyshev_step() first)");
        internal::ChebyshevEpilogue<Number> epilogue;
        epilogue.rhs              = rhs;
        epilogue.inverse_diagonal = inverse_diagonal;
        epilogue.x_old            = x_old;
        epilogue.out              = out;
        epilogue.factor1          = static_cast<Number>(factor1);
        epilogue.factor2          = static_cast<Number>(factor2);
        internal::chebyshev_step_structured(d, x, epilogue);
      }
    } // namespace

    void
    MechanicsOperator::chebyshev_step(const double *x,
                                      const double *x_old,
                                      const double *rhs,
                                      const double *inverse_diagonal,
                                      const double  factor1,
                                      const double  factor2,
                                      double       *out) const
    {
      fused_chebyshev_step(*this, *impl_, x, x_old, rhs, inverse_diagonal, factor1, factor2, out);
    }

    void
    MechanicsOperator::chebyshev_step(const float *x,
                                      const float *x_old,
                                      const float *rhs,
                                      const float *inverse_diagonal,
                                      const double factor1,
                                      const double factor2,
                                      float       *out) const
    {
      fused_chebyshev_step(*this, *impl_, x, x_old, rhs, inverse_diagonal, factor1, factor2, out);
    }

    void
    MechanicsOperator::apply_unconstrained(const double *src, double *dst) const
    {
      apply_current(*impl_, src, dst, false);
      condense(dst);
    }

    void
    MechanicsOperator::condense(double *dst) const
    {
      if (impl_->n_constraint_lines > 0)
        {
          internal::add_rows_to_dirichlet_columns(*impl_, dst);
          internal::condense_constrained_rows<double>(*impl_, dst, nullptr);
        }
    }

    void
    MechanicsOperator::distribute_constraint_lines(double *u, const double *inhomogeneities, const double scale) const
    {
      if (impl_->n_constraint_lines > 0)
        internal::interpolate_constrained_rows<double>(*impl_, u, nullptr, inhomogeneities, scale);
    }

    std::size_t
    MechanicsOperator::n_constraint_lines() const
    {
      return impl_->n_constraint_lines;
    }

    void
    MechanicsOperator::compute_diagonal(double *diagonal) const
    {
      // The element-matrix kernel has no stored geometry: its diagonal comes
      // from the same quadrature with the geometry recomputed.
      const Impl &d = *impl_;
      with_quadrature_operator(d, [&](const auto &op) {
        internal::launch_diagonal(d, op, diagonal);
        internal::add_boundary_spring_diagonal(d.springs, diagonal);
        if (d.n_constraint_lines > 0)
          {
            internal::add_constrained_diagonal(d, op, diagonal);
            internal::set_constrained_rows(d, diagonal, static_cast<const double *>(nullptr), 1.);
          }
      });
    }

    PlasticityState &
    MechanicsOperator::create_plasticity_state()
    {
      release_plasticity_state();
      impl_->plasticity_state.reset(new PlasticityState(*this));
      use_tangent(true);
      return *impl_->plasticity_state;
    }

    void
    MechanicsOperator::release_plasticity_state()
    {
      if (impl_->plasticity_state == nullptr)
        return;
      use_tangent(false);
      impl_->plasticity_state.reset();
    }

    PlasticityState *
    MechanicsOperator::plasticity_state()
    {
      return impl_->plasticity_state.get();
    }

    const PlasticityState *
    MechanicsOperator::plasticity_state() const
    {
      return impl_->plasticity_state.get();
    }

    void
    MechanicsOperator::use_tangent(const bool tangent)
    {
      const PlasticityState *state = impl_->plasticity_state.get();
      impl_->plasticity = tangent && state != nullptr ? &state->impl() : nullptr;
      update_tangent();
    }

    namespace
    {
      /** The element matrices of the cells with plastic points (element-matrix kernel), or the shared ones only. */
      void
      update_element_matrices(MechanicsOperator::Impl &d)
      {
        if (d.settings.cell_kernel != CellKernel::element_matrix)
          return;
        if (d.plasticity == nullptr)
          {
            d.cell_matrix.copy_from(d.cell_group);
            d.n_plastic_matrices = 0;
            return;
          }
        // Enumerate the cells with plastic points; each gets its own matrix.
        const std::uint8_t *plastic = d.plasticity->cell_plastic.data();
        d.plastic_cells.resize(d.n_cells, "plastic cells");
        LocalIndex       *list      = d.plastic_cells.data();
        LocalIndex       *index     = d.cell_matrix.data();
        const LocalIndex *group     = d.cell_group.data();
        const LocalIndex  n_groups  = static_cast<LocalIndex>(d.n_matrices);
        const Index64     n_plastic = internal::enumerate_flagged(plastic, group, n_groups, d.n_cells, list, index);
        if (static_cast<std::size_t>(n_plastic) * 576 > d.plastic_matrices.size())
          d.plastic_matrices.resize(static_cast<std::size_t>(n_plastic * 1.25 + 16) * 576, "plastic element matrices");
        d.n_plastic_matrices = n_plastic;
        internal::with_element_formulation(d.settings.element_formulation, [&](auto mean_dilatation) {
          internal::compute_element_matrices(
            internal::QuadratureCellOperator<internal::OnTheFlyGeometry<>, internal::TangentLaw<>,
                                             decltype(mean_dilatation)::value>{d.on_the_fly_geometry(),
                                                                               d.plasticity->tangent_law(false)},
            list, 0, n_plastic, d.plastic_matrices.data());
        });
      }
    } // namespace

    void
    MechanicsOperator::update_tangent()
    {
      Impl &d = *impl_;
      update_element_matrices(d);
      if (d.settings.strategy == Strategy::assembled && d.matrix.node_offsets.size() > 0)
        assemble_matrix_values(d);
      if (d.settings.strategy == Strategy::dbd_structured && d.structured.node_cells.size() > 0)
        internal::update_structured_classes(d);
    }

    CsrMatrix
    MechanicsOperator::copy_matrix() const
    {
      const Impl &d = *impl_;
      if (d.settings.strategy != Strategy::assembled)
        throw std::logic_error("MechanicsOperator::copy_matrix(): the operator's strategy is '" +
                               to_string(d.settings.strategy) + "', not 'assembled'");
      // The CSR column indices from the node lists (the device keeps one per 3x3 block).
      const std::vector<internal::Index64> node_offsets = d.matrix.node_offsets.to_host();
      const std::vector<LocalIndex>        node_columns = d.matrix.node_columns.to_host();
      CsrMatrix                            matrix;
      matrix.values = d.matrix.values.to_host();
      matrix.row_offsets.reserve(3 * d.matrix.n_nodes + 1);
      matrix.columns.reserve(matrix.values.size());
      for (internal::Index64 node = 0; node < d.matrix.n_nodes; ++node)
        for (int c = 0; c < 3; ++c)
          {
            matrix.row_offsets.push_back(static_cast<std::int64_t>(matrix.columns.size()));
            for (internal::Index64 k = node_offsets[node]; k < node_offsets[node + 1]; ++k)
              for (int e = 0; e < 3; ++e)
                matrix.columns.push_back(3 * node_columns[k] + e);
          }
      matrix.row_offsets.push_back(static_cast<std::int64_t>(matrix.columns.size()));
      internal::add_boundary_springs(d.springs, matrix);
      return matrix;
    }

    std::size_t
    MechanicsOperator::n_matrix_entries() const
    {
      return impl_->matrix.values.size();
    }

    AssemblyTimes
    MechanicsOperator::assembly_times() const
    {
      return {impl_->matrix.symbolic_seconds, impl_->matrix.numeric_seconds};
    }

    bool
    MechanicsOperator::has_symmetric_tangent() const
    {
      return impl_->symmetric_tangent;
    }

    const OperatorSettings &
    MechanicsOperator::settings() const
    {
      return impl_->settings;
    }

    LocalIndex
    MechanicsOperator::n_cells() const
    {
      return impl_->n_cells;
    }

    LocalIndex
    MechanicsOperator::n_dofs() const
    {
      return 3 * impl_->n_nodes;
    }

    LocalIndex
    MechanicsOperator::n_owned_dofs() const
    {
      return 3 * impl_->n_owned_nodes;
    }

    unsigned int
    MechanicsOperator::n_colors() const
    {
      return impl_->color_offsets.empty() ? 0 : impl_->color_offsets.size() - 1;
    }

    std::size_t
    MechanicsOperator::n_tiles() const
    {
      return impl_->n_tiles;
    }

    std::size_t
    MechanicsOperator::n_element_matrices() const
    {
      return impl_->n_matrices;
    }

    namespace
    {
      /** Device memory of the tiles of Strategy::ebe_tiled. */
      std::size_t
      tile_memory(const MechanicsOperator::Impl &d)
      {
        return d.tile_cells.memory_consumption() + d.tile_cell_offsets.memory_consumption() +
               d.tile_nodes.memory_consumption() + d.tile_node_offsets.memory_consumption() +
               d.tile_vertex.memory_consumption() + d.tile_node_flags.memory_consumption();
      }

      /** Device memory of the hanging-node lines. */
      std::size_t
      constraint_memory(const MechanicsOperator::Impl &d)
      {
        return d.constraint_rows.memory_consumption() + d.constraint_offsets.memory_consumption() +
               d.constraint_columns.memory_consumption() + d.constraint_weights.memory_consumption() +
               d.column_dofs.memory_consumption() + d.column_offsets.memory_consumption() +
               d.column_lines.memory_consumption() + d.column_weights.memory_consumption() +
               d.dirichlet_offsets.memory_consumption() + d.dirichlet_columns.memory_consumption() +
               d.dirichlet_weights.memory_consumption() + d.line_of_dof.memory_consumption() +
               d.constrained_cells.memory_consumption() + d.saved_row_values.memory_consumption() +
               d.saved_row_values_float.memory_consumption();
      }
    } // namespace

    std::size_t
    MechanicsOperator::memory_consumption() const
    {
      const Impl &d = *impl_;
      return d.cell_nodes.memory_consumption() + d.coordinates.memory_consumption() +
             d.materials.memory_consumption() + d.cell_material.memory_consumption() +
             d.cell_factor.memory_consumption() +
             d.cell_constraint_mask.memory_consumption() +
             d.constrained_owned_dofs.memory_consumption() +
             d.constrained_dofs.memory_consumption() + d.geometry.memory_consumption() +
             d.colored_cells.memory_consumption() + d.node_offsets.memory_consumption() +
             d.node_entries.memory_consumption() + d.matrices.memory_consumption() +
             d.cell_matrix.memory_consumption() + d.cell_group.memory_consumption() +
             d.plastic_matrices.memory_consumption() + d.plastic_cells.memory_consumption() +
             d.matrix_representative.memory_consumption() + tile_memory(d) + constraint_memory(d) +
             d.matrix.memory_consumption() + d.structured.memory_consumption();
    }

    std::size_t
    MechanicsOperator::bytes_per_apply(const std::size_t bytes_per_value) const
    {
      const Impl       &d      = *impl_;
      const std::size_t n_dofs = 3 * static_cast<std::size_t>(d.n_nodes);
      if (d.settings.strategy == Strategy::assembled)
        // The matrix (values, one node index per 3x3 block, node offsets) once, src read, dst written.
        return d.matrix.memory_consumption() + 2 * bytes_per_value * n_dofs;
      if (d.settings.strategy == Strategy::dbd_structured)
        // src read once, dst written once, the lattice's node entries and
        // node classes once; cell data only for the nodes that are not
        // stencil nodes (not counted: a few per cent on a full box).
        return 2 * bytes_per_value * n_dofs + d.structured.node.memory_consumption() +
               d.structured.node_class.memory_consumption() + d.structured.node_point.memory_consumption();
      // src read once; dst written once (DbD) or zeroed, then read and
      // written by the accumulation (EbE).
      std::size_t bytes = bytes_per_value * n_dofs * (d.settings.strategy == Strategy::dbd ? 2 : 4);
      bytes += d.cell_nodes.memory_consumption() + d.cell_constraint_mask.memory_consumption() +
               d.cell_factor.memory_consumption();
      switch (d.settings.cell_kernel)
        {
          case CellKernel::stored_geometry:
            bytes += d.geometry.memory_consumption() + d.cell_material.memory_consumption();
            break;
          case CellKernel::geometry_on_the_fly:
            bytes += d.coordinates.memory_consumption() + d.cell_material.memory_consumption();
            break;
          case CellKernel::element_matrix:
            bytes += d.matrices.memory_consumption() + d.cell_matrix.memory_consumption() +
                     576 * sizeof(double) * d.n_plastic_matrices;
            break;
        }
      if (d.settings.strategy == Strategy::dbd)
        bytes += d.node_offsets.memory_consumption() + d.node_entries.memory_consumption();
      if (d.settings.strategy == Strategy::ebe_colored)
        bytes += d.colored_cells.memory_consumption();
      if (d.settings.strategy == Strategy::ebe_tiled)
        {
          // The tiles replace the constraint masks, and the cell -> node
          // table unless the cell kernel reads it for the vertex coordinates.
          bytes += tile_memory(d) - d.cell_constraint_mask.memory_consumption();
          if (d.settings.cell_kernel != CellKernel::geometry_on_the_fly)
            bytes -= d.cell_nodes.memory_consumption();
        }
      return bytes;
    }

    std::string
    MechanicsOperator::description() const
    {
      const Impl        &d = *impl_;
      std::ostringstream s;
      s << to_string(d.settings.strategy) << ", " << to_string(d.settings.cell_kernel) << ", "
        << (d.settings.strategy == Strategy::dbd ? "thread per node" :
            d.settings.strategy == Strategy::dbd_structured ?
              (cells_on_shuffle_lanes(d.settings.thread_mapping, d.settings.cell_kernel) ?
                 "thread per node, 8 shuffle lanes per element-by-element cell" :
                 "thread per node") :
            d.settings.strategy == Strategy::assembled ? "rows of the CSR matrix" :
                                                   d.settings.thread_mapping == ThreadMapping::node ? "8 threads per cell" :
            cells_on_shuffle_lanes(d.settings.thread_mapping, d.settings.cell_kernel) ? "8 shuffle lanes per cell" :
                                                                                                      "thread per cell")
        << ", "
        << d.n_cells << " cells, " << 3 * d.n_nodes << " local DoFs";
      if (d.settings.element_formulation == ElementFormulation::bbar)
        s << ", B-bar";
      if (d.settings.strategy == Strategy::ebe_colored)
        s << ", " << n_colors() << " colours";
      if (d.settings.strategy == Strategy::ebe_tiled)
        s << ", " << d.n_tiles << " tiles of " << d.settings.cells_per_tile << " cells (at most "
          << d.max_nodes_per_tile << " nodes)";
      if (d.settings.cell_kernel == CellKernel::element_matrix)
        s << ", " << d.n_matrices << " element matrices";
      if (d.settings.strategy == Strategy::assembled)
        s << ", " << d.matrix.values.size() << " matrix entries";
      if (d.settings.strategy == Strategy::dbd_structured)
        s << ", lattice of " << d.structured.points[0] << " x " << d.structured.points[1] << " x "
          << d.structured.points[2] << " points";
      if (d.cell_factor.size() > 0)
        s << ", stiffness factor per cell";
      s << ", " << memory_consumption() / 1048576.0 << " MiB";
      return s.str();
    }

    void
    MechanicsOperator::cell_average_strain(const double *u, double *host_out) const
    {
      const Impl                     &d          = *impl_;
      const internal::OnTheFlyGeometry<> geometry = d.on_the_fly_geometry();
      const auto                      cell_nodes = d.cell_node_table();
      DeviceArray<double>             out(6 * static_cast<std::size_t>(d.n_cells), "cell strain");
      double                         *result = out.data();
      internal::for_range("plastix::cell_strain", d.n_cells, KOKKOS_LAMBDA(const Index64 cell) {
        LocalIndex nodes[8];
        double     values[24];
        internal::gather_cell_values(cell_nodes, cell, 0u, u, nodes, values);
        double e[3][3][4];
        internal::vector_edge_differences(values, e);
        internal::OnTheFlyGeometry<>::CellData g;
        geometry.load(cell, g);
        double sum[6] = {0, 0, 0, 0, 0, 0}, volume = 0;
        for (int q = 0; q < 8; ++q)
          {
            double       inv[3][3], eps[6];
            const double JxW = geometry.at(g, q, inv);
            internal::strain_at_point(e, q, inv, eps);
            for (int k = 0; k < 6; ++k)
              sum[k] += JxW * eps[k];
            volume += JxW;
          }
        for (int k = 0; k < 6; ++k)
          result[6 * cell + k] = sum[k] / volume;
      });
      copy_to_host(host_out, out.data(), out.memory_consumption());
    }

    const MechanicsOperator::Impl &
    MechanicsOperator::impl() const
    {
      return *impl_;
    }
  } // namespace backend
} // namespace plastix

#include "firewall_check.h"
