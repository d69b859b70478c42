// Matrix-free multigrid transfer of Q1 vector fields (Kokkos).
#include <plastix/backend/device_array.h>
#include <plastix/backend/q1_transfer.h>
#include <plastix/backend/vector_operations.h>

#include "kokkos_common.h"

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
    };

    namespace internal
    {
      /**
       * Prolongation, one thread per lattice point of a coarse cell (27 per
       * cell): the value interpolated from the cell's vertices that touch
       * it (1, 2, 4 or 8), added with the point's weight to the fine node.
       */
      template <typename Number>
      void
      prolongate(const Q1Transfer::Impl &d, const Number *coarse, Number *fine, const bool add)
      {
        if (!add)
          vector_operations::set(3 * static_cast<std::size_t>(d.n_fine_nodes), Number(0), fine);
        const LocalIndex   *coarse_nodes       = d.coarse_cell_nodes.data();
        const LocalIndex   *fine_nodes         = d.fine_cell_nodes.data();
        const double       *weights            = d.fine_node_weights.data();
        const std::uint8_t *coarse_constrained = d.coarse_constrained.data();
        const std::uint8_t *fine_constrained   = d.fine_constrained.data();
        for_range("plastix::prolongate", 27 * d.n_cells, KOKKOS_LAMBDA(const Index64 i) {
          const Index64 cell = i / 27;
          const int     q    = static_cast<int>(i % 27);
          // Per axis: the vertex bits that reach lattice position p (0: bit
          // 0, 2: bit 1, 1: both) and their factor (1, or 1/2 at the midpoint).
          const int    p[3] = {q % 3, (q / 3) % 3, q / 9};
          int          first[3], last[3];
          Number       factor = 1;
          for (int dim = 0; dim < 3; ++dim)
            {
              first[dim] = p[dim] == 2 ? 1 : 0;
              last[dim]  = p[dim] == 0 ? 0 : 1;
              if (p[dim] == 1)
                factor *= Number(0.5);
            }
          Number value[3] = {0, 0, 0};
          for (int z = first[2]; z <= last[2]; ++z)
            for (int y = first[1]; y <= last[1]; ++y)
              for (int x = first[0]; x <= last[0]; ++x)
                {
                  const Index64 node = coarse_nodes[8 * cell + x + 2 * y + 4 * z];
                  for (int c = 0; c < 3; ++c)
                    if (!coarse_constrained[3 * node + c])
                      value[c] += coarse[3 * node + c];
                }
          const Index64 f     = fine_nodes[27 * cell + q];
          const Number  scale = factor * static_cast<Number>(weights[f]);
          for (int c = 0; c < 3; ++c)
            if (!fine_constrained[3 * f + c])
              accumulate(fine[3 * f + c], scale * value[c]);
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
             d.fine_constrained.memory_consumption();
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
