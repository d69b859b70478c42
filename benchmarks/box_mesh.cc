// Structured box meshes for backend-only tests and benchmarks (plain C++).
#include "box_mesh.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace plastix
{
  namespace backend
  {
    namespace
    {
      /** A small deterministic generator (splitmix64), identical on every machine. */
      double
      unit_random(std::uint64_t &state)
      {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z               = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z               = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z               = z ^ (z >> 31);
        return (z >> 11) * (1.0 / 9007199254740992.0);
      }

      std::uint64_t
      morton_key(std::uint64_t i, std::uint64_t j, std::uint64_t k)
      {
        std::uint64_t key = 0;
        for (int b = 0; b < 21; ++b)
          key |= ((i >> b) & 1u) << (3 * b) | ((j >> b) & 1u) << (3 * b + 1) |
                 ((k >> b) & 1u) << (3 * b + 2);
        return key;
      }
    } // namespace

    MeshData
    make_box_mesh(const BoxMeshDescription &desc, const bool morton_order)
    {
      const int nx = desc.n_cells[0], ny = desc.n_cells[1], nz = desc.n_cells[2];
      const int px = nx + 1, py = ny + 1, pz = nz + 1;
      MeshData  mesh;
      mesh.n_nodes       = px * py * pz;
      mesh.n_owned_nodes = mesh.n_nodes;
      mesh.node_coordinates.resize(3 * static_cast<std::size_t>(mesh.n_nodes));
      const double  h[3]  = {desc.extent[0] / nx, desc.extent[1] / ny, desc.extent[2] / nz};
      std::uint64_t state = desc.seed;
      for (int k = 0; k < pz; ++k)
        for (int j = 0; j < py; ++j)
          for (int i = 0; i < px; ++i)
            {
              const std::size_t node     = i + px * (j + static_cast<std::size_t>(py) * k);
              const int         index[3] = {i, j, k};
              const int         last[3]  = {nx, ny, nz};
              for (int d = 0; d < 3; ++d)
                {
                  double x = index[d] * h[d];
                  if (desc.distortion > 0)
                    {
                      const double r        = 2. * unit_random(state) - 1.;
                      const bool   interior = index[0] > 0 && index[0] < nx &&
                                            index[1] > 0 && index[1] < ny &&
                                            index[2] > 0 && index[2] < nz;
                      (void)last;
                      if (interior)
                        x += desc.distortion * h[d] * r;
                    }
                  mesh.node_coordinates[3 * node + d] = x;
                }
            }
      std::vector<std::size_t> order(static_cast<std::size_t>(nx) * ny * nz);
      std::iota(order.begin(), order.end(), 0);
      if (morton_order)
        {
          std::vector<std::uint64_t> keys(order.size());
          for (std::size_t c = 0; c < order.size(); ++c)
            keys[c] = morton_key(c % nx, (c / nx) % ny, c / (static_cast<std::size_t>(nx) * ny));
          std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return keys[a] < keys[b];
          });
        }
      mesh.cell_nodes.reserve(8 * order.size());
      for (const std::size_t c : order)
        {
          const int i = c % nx, j = (c / nx) % ny, k = c / (static_cast<std::size_t>(nx) * ny);
          for (int v = 0; v < 8; ++v)
            {
              const int di = v & 1, dj = (v >> 1) & 1, dk = (v >> 2) & 1;
              mesh.cell_nodes.push_back((i + di) + px * ((j + dj) + py * (k + dk)));
            }
        }
      mesh.materials     = {desc.material};
      mesh.cell_material.assign(order.size(), 0);
      mesh.constrained_dofs.assign(3 * static_cast<std::size_t>(mesh.n_nodes), 0);
      if (desc.clamp_x0)
        for (int k = 0; k < pz; ++k)
          for (int j = 0; j < py; ++j)
            for (int c = 0; c < 3; ++c)
              mesh.constrained_dofs[3 * (px * (j + static_cast<std::size_t>(py) * k)) + c] = 1;
      return mesh;
    }

    void
    number_nodes_by_cells(MeshData &mesh)
    {
      std::vector<LocalIndex> new_index(mesh.n_nodes, -1);
      LocalIndex              next = 0;
      for (auto &node : mesh.cell_nodes)
        {
          if (new_index[node] < 0)
            new_index[node] = next++;
          node = new_index[node];
        }
      std::vector<double>       coordinates(mesh.node_coordinates.size());
      std::vector<std::uint8_t> constrained(mesh.constrained_dofs.size());
      for (LocalIndex n = 0; n < mesh.n_nodes; ++n)
        for (int c = 0; c < 3; ++c)
          {
            coordinates[3 * static_cast<std::size_t>(new_index[n]) + c] = mesh.node_coordinates[3 * static_cast<std::size_t>(n) + c];
            constrained[3 * static_cast<std::size_t>(new_index[n]) + c] = mesh.constrained_dofs[3 * static_cast<std::size_t>(n) + c];
          }
      mesh.node_coordinates = std::move(coordinates);
      mesh.constrained_dofs = std::move(constrained);
    }
  } // namespace backend
} // namespace plastix
