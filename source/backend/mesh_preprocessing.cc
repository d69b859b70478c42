// Host-side preprocessing of the mesh for the operator's strategies and cell
// kernels: colours, tiles along a Morton curve, node-to-cell lists,
// congruent-cell groups.
#include "mesh_preprocessing.h"

#include "operator_impl.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>

namespace plastix
{
  namespace backend
  {
    namespace
    {
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
    } // namespace

    namespace internal
    {
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


      void
      build_tiles(const MeshData &mesh, const unsigned int cells_per_tile, DeviceOperator::Impl &d)
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

      void
      node_cell_lists(const MeshData &mesh, std::vector<LocalIndex> &offsets, std::vector<LocalIndex> &entries)
      {
        const LocalIndex n_nodes = mesh.n_nodes;
        const LocalIndex n_cells = mesh.n_cells();
        offsets.assign(n_nodes + 1, 0);
        for (const LocalIndex node : mesh.cell_nodes)
          ++offsets[node + 1];
        for (LocalIndex n = 0; n < n_nodes; ++n)
          offsets[n + 1] += offsets[n];
        if (n_cells >= (1 << 28))
          throw std::runtime_error("dbd: more than 2^28 cells in one process");
        entries.resize(offsets.back());
        std::vector<LocalIndex> next(offsets.begin(), offsets.end() - 1);
        for (LocalIndex cell = 0; cell < n_cells; ++cell)
          for (int a = 0; a < 8; ++a)
            entries[next[mesh.cell_nodes[8 * cell + a]]++] = (cell << 3) | a;
      }
    } // namespace internal
  } // namespace backend
} // namespace plastix

#include "firewall_check.h"
