// Matrix-free multigrid transfer of Q1 vector fields (Kokkos).
#include <plastix/backend/device_array.h>
#include <plastix/backend/q1_transfer.h>
#include <plastix/backend/vector_operations.h>

#include "kokkos_common.h"

#include <cmath>
#include <limits>
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
      // The cell-wise form may be left empty where the gather form is given.
      const bool cell_form = !gather_form || !fine_cell_nodes.empty() || !fine_node_weights.empty();
      if (coarse_cell_nodes.size() % 8 != 0 || (cell_form && fine_cell_nodes.size() != 27 * n_cells()))
        throw std::invalid_argument("TransferData: need 8 coarse and 27 fine nodes per coarse cell");
      if ((cell_form && fine_node_weights.size() != static_cast<std::size_t>(n_fine_nodes)) ||
          coarse_constrained.size() != 3 * static_cast<std::size_t>(n_coarse_nodes) ||
          fine_constrained.size() != 3 * static_cast<std::size_t>(n_fine_nodes))
        throw std::invalid_argument("TransferData: weights and constraint flags do not match the node counts");
      if (gather_form)
        {
          if (fine_node_position.size() != fine_node_cell.size() ||
              fine_node_cell.size() > static_cast<std::size_t>(n_fine_nodes))
            throw std::invalid_argument("TransferData: the fine nodes' cells and positions do not match");
          for (std::size_t f = 0; f < fine_node_cell.size(); ++f)
            if (fine_node_cell[f] < 0 || static_cast<std::size_t>(fine_node_cell[f]) >= n_cells() ||
                fine_node_position[f] >= 27)
              throw std::invalid_argument("TransferData: fine node " + std::to_string(f) +
                                          " has no valid cell and position");
          if (coarse_row_start.empty() || coarse_row_start.size() > static_cast<std::size_t>(n_coarse_nodes) + 1 ||
              coarse_row_start.front() != 0 ||
              coarse_row_start.back() != static_cast<std::int64_t>(coarse_row_fine_nodes.size()) ||
              coarse_row_midpoint_axes.size() != coarse_row_fine_nodes.size())
            throw std::invalid_argument("TransferData: the restriction's rows do not match their entries");
          for (std::size_t c = 0; c + 1 < coarse_row_start.size(); ++c)
            if (coarse_row_start[c + 1] < coarse_row_start[c])
              throw std::invalid_argument("TransferData: the restriction's rows are not ascending");
          for (std::size_t e = 0; e < coarse_row_fine_nodes.size(); ++e)
            if (coarse_row_fine_nodes[e] < 0 || coarse_row_fine_nodes[e] >= n_fine_nodes ||
                coarse_row_midpoint_axes[e] > 3)
              throw std::invalid_argument("TransferData: restriction entry " + std::to_string(e) + " out of range");
        }
      for (const LocalIndex n : coarse_cell_nodes)
        if (n < 0 || n >= n_coarse_nodes)
          throw std::invalid_argument("TransferData: coarse node " + std::to_string(n) + " out of range");
      for (const LocalIndex n : fine_cell_nodes)
        if (n < 0 || n >= n_fine_nodes)
          throw std::invalid_argument("TransferData: fine node " + std::to_string(n) + " out of range");
    }

    struct Q1Transfer::Impl
    {
      /** Whether both transfers gather (fine_owner_cell and the rows below, possibly empty). */
      bool                      gathers        = false;
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
       * (one process), or per owned fine node in the gather form given by
       * the caller: one coarse cell that holds it and its lattice position
       * there (0..26). The prolongation then runs one thread per such fine
       * node that interpolates there and stores without atomics; otherwise
       * empty (the cell-wise form with weights and atomics).
       */
      DeviceArray<LocalIndex>   fine_owner_cell;
      DeviceArray<std::uint8_t> fine_owner_position;
      /**
       * The restriction's rows where the fine nodes' owner cells exist: per
       * coarse node the fine nodes its interpolation reaches (the columns of
       * P, transposed), coarse_row_start[c] to coarse_row_start[c + 1] in
       * coarse_row_entries, each the fine node in the low 30 bits and in the
       * top two the number k of axes along which the fine node is a
       * midpoint (weight 2^-k). One thread per coarse node then sums its row
       * and stores without atomics; otherwise empty.
       */
      DeviceArray<LocalIndex>    coarse_row_start;
      DeviceArray<std::uint32_t> coarse_row_entries;
    };

    namespace
    {
      /** Bits of a fine node in Q1Transfer::Impl::coarse_row_entries. */
      constexpr int           restriction_node_bits = 30;
      constexpr std::uint32_t restriction_node_mask = (std::uint32_t(1) << restriction_node_bits) - 1;
    } // namespace

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
       * The three entries of a node from @p value: stored, or added with
       * @p add; constrained entries are left out (zero when storing).
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      store_node(Number *target, const std::uint8_t *constrained, const Number value[3], const bool add)
      {
        for (int c = 0; c < 3; ++c)
          {
            if (constrained[c])
              {
                if (!add)
                  target[c] = 0;
              }
            else
              target[c] = add ? target[c] + value[c] : value[c];
          }
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
        if (d.gathers)
          {
            // One thread per fine node with a cell, in the vectors' order: no atomics, no zeroing.
            const LocalIndex   *owner_cell     = d.fine_owner_cell.data();
            const std::uint8_t *owner_position = d.fine_owner_position.data();
            for_range("plastix::prolongate", static_cast<Index64>(d.fine_owner_cell.size()),
                      KOKKOS_LAMBDA(const Index64 f) {
              Number value[3];
              interpolate_at(coarse_nodes, coarse_constrained, coarse, owner_cell[f], owner_position[f], value);
              store_node(fine + 3 * f, fine_constrained + 3 * f, value, add);
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
        const std::uint8_t *coarse_constrained = d.coarse_constrained.data();
        const std::uint8_t *fine_constrained   = d.fine_constrained.data();
        if (d.gathers)
          {
            // One thread per coarse node with a row, in the vectors' order:
            // its row of R = P^T summed and stored (or added), no atomics,
            // no zeroing.
            const LocalIndex    *row_start = d.coarse_row_start.data();
            const std::uint32_t *entries   = d.coarse_row_entries.data();
            const Index64        n_rows    = d.coarse_row_start.size() > 0 ? d.coarse_row_start.size() - 1 : 0;
            for_range("plastix::restrict", n_rows, KOKKOS_LAMBDA(const Index64 c) {
              Number sum[3] = {0, 0, 0};
              for (LocalIndex e = row_start[c]; e < row_start[c + 1]; ++e)
                {
                  const std::uint32_t entry = entries[e];
                  const Index64       f     = entry & restriction_node_mask;
                  const int           k     = static_cast<int>(entry >> restriction_node_bits);
                  const Number        w     = k == 0 ? Number(1) : k == 1 ? Number(0.5) : k == 2 ? Number(0.25) :
                                                                                             Number(0.125);
                  for (int i = 0; i < 3; ++i)
                    if (!fine_constrained[3 * f + i])
                      sum[i] += w * fine[3 * f + i];
                }
              store_node(coarse + 3 * c, coarse_constrained + 3 * c, sum, add);
            });
            return;
          }
        if (!add)
          vector_operations::set(3 * static_cast<std::size_t>(d.n_coarse_nodes), Number(0), coarse);
        const LocalIndex *coarse_nodes = d.coarse_cell_nodes.data();
        const LocalIndex *fine_nodes   = d.fine_cell_nodes.data();
        const double     *weights      = d.fine_node_weights.data();
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
      d.coarse_constrained = DeviceArray<std::uint8_t>(data.coarse_constrained, "transfer coarse constraints");
      d.fine_constrained   = DeviceArray<std::uint8_t>(data.fine_constrained, "transfer fine constraints");

      // The gather form: per fine node its cell and position, per coarse
      // node its row of P^T (fine node, midpoint axes). Packed into 32 bits
      // per entry below, so it needs fewer than 2^30 local fine nodes.
      std::vector<LocalIndex>   owner_cell;
      std::vector<std::uint8_t> owner_position;
      std::vector<std::int64_t> row_start;
      std::vector<LocalIndex>   row_fine_nodes;
      std::vector<std::uint8_t> row_axes;
      const bool fits_packing = static_cast<std::uint64_t>(d.n_fine_nodes) <= restriction_node_mask + std::uint64_t(1);
      if (data.gather_form)
        {
          if (!fits_packing)
            throw std::invalid_argument("TransferData: the gather form needs fewer than 2^30 local fine nodes");
          owner_cell     = data.fine_node_cell;
          owner_position = data.fine_node_position;
          row_start      = data.coarse_row_start;
          row_fine_nodes = data.coarse_row_fine_nodes;
          row_axes       = data.coarse_row_midpoint_axes;
        }
      else if (fits_packing && d.n_fine_nodes > 0)
        {
          // One process: derive the gather form where each fine node's
          // weight is one over its number of local coarse cells (all its
          // cells on this process): any one of them then gives the whole
          // interpolated value.
          owner_cell.assign(d.n_fine_nodes, -1);
          owner_position.assign(d.n_fine_nodes, 0);
          std::vector<int> local_cells(d.n_fine_nodes, 0);
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
          if (all_local)
            {
              // The restriction's rows: the transpose of the prolongation as
              // it interpolates in the owner cells (per fine node the 1, 2, 4
              // or 8 coarse vertices whose factor at its position is not
              // zero), bucketed by coarse node with the fine nodes ascending.
              const auto for_each_column = [&](const LocalIndex f, const auto &visit) {
                const std::size_t cell = owner_cell[f];
                const int         q    = owner_position[f];
                const int         p[3] = {q % 3, (q / 3) % 3, q / 9};
                int               k    = 0;
                for (int dim = 0; dim < 3; ++dim)
                  k += p[dim] == 1;
                for (int a = 0; a < 8; ++a)
                  {
                    bool reaches = true;
                    for (int dim = 0; dim < 3; ++dim)
                      reaches = reaches && (p[dim] == 1 || p[dim] == 2 * ((a >> dim) & 1));
                    if (reaches)
                      visit(data.coarse_cell_nodes[8 * cell + a], k);
                  }
              };
              row_start.assign(d.n_coarse_nodes + 1, 0);
              for (LocalIndex f = 0; f < d.n_fine_nodes; ++f)
                for_each_column(f, [&](const LocalIndex c, int) { ++row_start[c + 1]; });
              for (Index64 c = 0; c < d.n_coarse_nodes; ++c)
                row_start[c + 1] += row_start[c];
              row_fine_nodes.resize(row_start.back());
              row_axes.resize(row_start.back());
              std::vector<std::int64_t> next(row_start.begin(), row_start.end() - 1);
              for (LocalIndex f = 0; f < d.n_fine_nodes; ++f)
                for_each_column(f, [&](const LocalIndex c, const int k) {
                  row_fine_nodes[next[c]] = f;
                  row_axes[next[c]++]     = static_cast<std::uint8_t>(k);
                });
            }
          else
            owner_cell.clear();
        }

      const bool gathers = data.gather_form || !owner_cell.empty();
      if (gathers && (row_start.empty() ? 0 : row_start.back()) <= std::numeric_limits<LocalIndex>::max())
        {
          d.gathers             = true;
          d.fine_owner_cell     = DeviceArray<LocalIndex>(owner_cell, "transfer fine owner cells");
          d.fine_owner_position = DeviceArray<std::uint8_t>(owner_position, "transfer fine owner positions");
          std::vector<std::uint32_t> entries(row_fine_nodes.size());
          for (std::size_t e = 0; e < entries.size(); ++e)
            entries[e] = static_cast<std::uint32_t>(row_fine_nodes[e]) |
                         (static_cast<std::uint32_t>(row_axes[e]) << restriction_node_bits);
          d.coarse_row_start   = DeviceArray<LocalIndex>(std::vector<LocalIndex>(row_start.begin(), row_start.end()),
                                                       "transfer restriction rows");
          d.coarse_row_entries = DeviceArray<std::uint32_t>(entries, "transfer restriction entries");
        }
      else if (data.gather_form)
        throw std::invalid_argument("TransferData: too many restriction entries for the gather form");
      // The cell-wise form (weights and atomics) only where the transfers do not gather.
      if (!d.gathers)
        {
          d.fine_cell_nodes   = DeviceArray<LocalIndex>(data.fine_cell_nodes, "transfer fine nodes");
          d.fine_node_weights = DeviceArray<double>(data.fine_node_weights, "transfer weights");
        }
    }

    bool
    Q1Transfer::gathers() const
    {
      return impl_->gathers;
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
             d.fine_owner_position.memory_consumption() + d.coarse_row_start.memory_consumption() +
             d.coarse_row_entries.memory_consumption();
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
