// Matrix-free multigrid transfer of Q1 vector fields (Kokkos).
#include <plastix/backend/device_array.h>
#include <plastix/backend/q1_transfer.h>
#include <plastix/backend/vector_operations.h>

#include "kokkos_common.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace plastix
{
  namespace backend
  {
    using internal::Index64;

    void
    TransferData::check_consistency() const
    {
      if (coarse_cell_nodes.size() % 8 != 0 || fine_cell_nodes.size() != 27 * n_cells())
        throw std::invalid_argument("TransferData: need 8 coarse and 27 fine nodes per coarse cell");
      if (fine_node_weights.size() != static_cast<std::size_t>(n_fine_nodes) ||
          coarse_constrained.size() != 3 * static_cast<std::size_t>(n_coarse_nodes) ||
          fine_constrained.size() != 3 * static_cast<std::size_t>(n_fine_nodes))
        throw std::invalid_argument("TransferData: weights and constraint flags do not match the node counts");
      for (const LocalIndex n : coarse_cell_nodes)
        if (n < 0 || n >= n_coarse_nodes)
          throw std::invalid_argument("TransferData: coarse node " + std::to_string(n) + " out of range");
      for (const LocalIndex n : fine_cell_nodes)
        if (n < 0 || n >= n_fine_nodes)
          throw std::invalid_argument("TransferData: fine node " + std::to_string(n) + " out of range");
    }

    struct Q1Transfer::Impl
    {
      Index64                   n_cells        = 0;
      Index64                   n_coarse_nodes = 0;
      Index64                   n_fine_nodes   = 0;
      DeviceArray<LocalIndex>   coarse_cell_nodes;
      DeviceArray<LocalIndex>   fine_cell_nodes;
      DeviceArray<double>       fine_node_weights;
      DeviceArray<std::uint8_t> coarse_constrained;
      DeviceArray<std::uint8_t> fine_constrained;
      /**
       * Per fine node, where every fine node's coarse cells are all local
       * (one process): one coarse cell that holds it and its lattice
       * position there (0..26). The prolongation then runs one thread per
       * fine node that interpolates there and stores without atomics;
       * otherwise empty (the cell-wise form with weights and atomics).
       */
      DeviceArray<LocalIndex>   fine_owner_cell;
      DeviceArray<std::uint8_t> fine_owner_position;
    };

    namespace internal
    {
      /**
       * The interpolation at lattice position @p q (0..26, x fastest) of
       * coarse cell @p cell from the cell's unconstrained vertex values: per
       * axis the vertex bits that reach the position (0: bit 0, 2: bit 1, 1:
       * both) and their factor (1, or 1/2 at the midpoint).
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      interpolate_at(const LocalIndex   *coarse_nodes,
                     const std::uint8_t *coarse_constrained,
                     const Number       *coarse,
                     const Index64       cell,
                     const int           q,
                     Number              value[3])
      {
        const int p[3] = {q % 3, (q / 3) % 3, q / 9};
        int       first[3], last[3];
        Number    factor = 1;
        for (int dim = 0; dim < 3; ++dim)
          {
            first[dim] = p[dim] == 2 ? 1 : 0;
            last[dim]  = p[dim] == 0 ? 0 : 1;
            if (p[dim] == 1)
              factor *= Number(0.5);
          }
        for (int c = 0; c < 3; ++c)
          value[c] = 0;
        for (int z = first[2]; z <= last[2]; ++z)
          for (int y = first[1]; y <= last[1]; ++y)
            for (int x = first[0]; x <= last[0]; ++x)
              {
                const Index64 node = coarse_nodes[8 * cell + x + 2 * y + 4 * z];
                for (int c = 0; c < 3; ++c)
                  if (!coarse_constrained[3 * node + c])
                    value[c] += coarse[3 * node + c];
              }
        for (int c = 0; c < 3; ++c)
          value[c] *= factor;
      }

      /**
       * Prolongation. With the fine nodes' owner cells (one process): one
       * thread per fine node, the value interpolated in its owner cell,
       * stored or added plainly. Otherwise one thread per lattice point of
       * a coarse cell (27 per cell): the value interpolated there, added
       * atomically with the point's weight to the fine node.
       */
      template <typename Number>
      void
      prolongate(const Q1Transfer::Impl &d, const Number *coarse, Number *fine, const bool add)
      {
        const LocalIndex   *coarse_nodes       = d.coarse_cell_nodes.data();
        const std::uint8_t *coarse_constrained = d.coarse_constrained.data();
        const std::uint8_t *fine_constrained   = d.fine_constrained.data();
        if (d.fine_owner_cell.size() > 0)
          {
            // One thread per fine node, in the vectors' order: no atomics, no zeroing.
            const LocalIndex   *owner_cell     = d.fine_owner_cell.data();
            const std::uint8_t *owner_position = d.fine_owner_position.data();
            for_range("plastix::prolongate", d.n_fine_nodes, KOKKOS_LAMBDA(const Index64 f) {
              Number value[3];
              interpolate_at(coarse_nodes, coarse_constrained, coarse, owner_cell[f], owner_position[f], value);
              for (int c = 0; c < 3; ++c)
                {
                  Number &target = fine[3 * f + c];
                  if (fine_constrained[3 * f + c])
                    {
                      if (!add)
                        target = 0;
                    }
                  else
                    target = add ? target + value[c] : value[c];
                }
            });
            return;
          }
        if (!add)
          vector_operations::set(3 * static_cast<std::size_t>(d.n_fine_nodes), Number(0), fine);
        const LocalIndex *fine_nodes = d.fine_cell_nodes.data();
        const double     *weights    = d.fine_node_weights.data();
        for_range("plastix::prolongate", 27 * d.n_cells, KOKKOS_LAMBDA(const Index64 i) {
          const Index64 cell = i / 27;
          const int     q    = static_cast<int>(i % 27);
          Number        value[3];
          interpolate_at(coarse_nodes, coarse_constrained, coarse, cell, q, value);
          const Index64 f      = fine_nodes[27 * cell + q];
          const Number  weight = static_cast<Number>(weights[f]);
          for (int c = 0; c < 3; ++c)
            if (!fine_constrained[3 * f + c])
              accumulate(fine[3 * f + c], weight * value[c]);
        });
      }

      /**
       * Restriction (the transpose), one thread per vertex of a coarse cell
       * (8 per cell): the weighted fine values of the 8 lattice points that
       * its interpolation weight reaches, added to the coarse node.
       */
      template <typename Number>
      void
      restrict_to_coarse(const Q1Transfer::Impl &d, const Number *fine, Number *coarse, const bool add)
      {
        if (!add)
          vector_operations::set(3 * static_cast<std::size_t>(d.n_coarse_nodes), Number(0), coarse);
        const LocalIndex   *coarse_nodes       = d.coarse_cell_nodes.data();
        const LocalIndex   *fine_nodes         = d.fine_cell_nodes.data();
        const double       *weights            = d.fine_node_weights.data();
        const std::uint8_t *coarse_constrained = d.coarse_constrained.data();
        const std::uint8_t *fine_constrained   = d.fine_constrained.data();
        for_range("plastix::restrict", 8 * d.n_cells, KOKKOS_LAMBDA(const Index64 i) {
          const Index64 cell = i / 8;
          const int     a    = static_cast<int>(i % 8);
          Number        sum[3] = {0, 0, 0};
          // The 8 lattice points that vertex a reaches: per axis its own end
          // (factor 1) or the midpoint (factor 1/2).
          for (int k = 0; k < 8; ++k)
            {
              int    q      = 0;
              Number factor = 1;
              for (int dim = 0, stride = 1; dim < 3; ++dim, stride *= 3)
                if ((k >> dim) & 1)
                  {
                    q += stride;
                    factor *= Number(0.5);
                  }
                else
                  q += stride * 2 * ((a >> dim) & 1);
              const Index64 f = fine_nodes[27 * cell + q];
              const Number  w = factor * static_cast<Number>(weights[f]);
              for (int c = 0; c < 3; ++c)
                if (!fine_constrained[3 * f + c])
                  sum[c] += w * fine[3 * f + c];
            }
          const Index64 node = coarse_nodes[8 * cell + a];
          for (int c = 0; c < 3; ++c)
            if (!coarse_constrained[3 * node + c])
              accumulate(coarse[3 * node + c], sum[c]);
        });
      }
    } // namespace internal

    Q1Transfer::Q1Transfer(const TransferData &data)
      : impl_(std::make_unique<Impl>())
    {
      data.check_consistency();
      Impl &d              = *impl_;
      d.n_cells            = static_cast<Index64>(data.n_cells());
      d.n_coarse_nodes     = data.n_coarse_nodes;
      d.n_fine_nodes       = data.n_fine_nodes;
      d.coarse_cell_nodes  = DeviceArray<LocalIndex>(data.coarse_cell_nodes, "transfer coarse cells");
      d.fine_cell_nodes    = DeviceArray<LocalIndex>(data.fine_cell_nodes, "transfer fine nodes");
      d.fine_node_weights  = DeviceArray<double>(data.fine_node_weights, "transfer weights");
      d.coarse_constrained = DeviceArray<std::uint8_t>(data.coarse_constrained, "transfer coarse constraints");
      d.fine_constrained   = DeviceArray<std::uint8_t>(data.fine_constrained, "transfer fine constraints");

      // The gather form of the prolongation where each fine node's weight
      // is one over its number of local coarse cells (all its cells on this
      // process): any one of them then gives the whole interpolated value.
      std::vector<LocalIndex>   owner_cell(d.n_fine_nodes, -1);
      std::vector<std::uint8_t> owner_position(d.n_fine_nodes, 0);
      std::vector<int>          local_cells(d.n_fine_nodes, 0);
      for (std::size_t cell = 0; cell < data.n_cells(); ++cell)
        for (int q = 0; q < 27; ++q)
          {
            const LocalIndex f = data.fine_cell_nodes[27 * cell + q];
            ++local_cells[f];
            if (owner_cell[f] < 0)
              {
                owner_cell[f]     = static_cast<LocalIndex>(cell);
                owner_position[f] = static_cast<std::uint8_t>(q);
              }
          }
      bool all_local = true;
      for (LocalIndex f = 0; f < d.n_fine_nodes && all_local; ++f)
        all_local = owner_cell[f] >= 0 && std::abs(data.fine_node_weights[f] * local_cells[f] - 1.) <= 1e-12;
      if (all_local && d.n_fine_nodes > 0)
        {
          d.fine_owner_cell     = DeviceArray<LocalIndex>(owner_cell, "transfer fine owner cells");
          d.fine_owner_position = DeviceArray<std::uint8_t>(owner_position, "transfer fine owner positions");
        }
    }

    Q1Transfer::~Q1Transfer() = default;

    void
    Q1Transfer::prolongate(const double *coarse, double *fine, const bool add) const
    {
      internal::prolongate(*impl_, coarse, fine, add);
    }

    void
    Q1Transfer::prolongate(const float *coarse, float *fine, const bool add) const
    {
      internal::prolongate(*impl_, coarse, fine, add);
    }

    void
    Q1Transfer::restrict_to_coarse(const double *fine, double *coarse, const bool add) const
    {
      internal::restrict_to_coarse(*impl_, fine, coarse, add);
    }

    void
    Q1Transfer::restrict_to_coarse(const float *fine, float *coarse, const bool add) const
    {
      internal::restrict_to_coarse(*impl_, fine, coarse, add);
    }

    std::size_t
    Q1Transfer::memory_consumption() const
    {
      const Impl &d = *impl_;
      return d.coarse_cell_nodes.memory_consumption() + d.fine_cell_nodes.memory_consumption() +
             d.fine_node_weights.memory_consumption() + d.coarse_constrained.memory_consumption() +
             d.fine_constrained.memory_consumption() + d.fine_owner_cell.memory_consumption() +
             d.fine_owner_position.memory_consumption();
    }

    std::size_t
    Q1Transfer::bytes_per_pair(const std::size_t bytes_per_value) const
    {
      const Impl &d = *impl_;
      // Each of the two reads the transfer data once and its source once;
      // its destination is zeroed, then read and written by the atomic
      // accumulation.
      return 2 * memory_consumption() + bytes_per_value * 3 * 4 * (d.n_coarse_nodes + d.n_fine_nodes);
    }
  } // namespace backend
} // namespace plastix

#include "firewall_check.h"
