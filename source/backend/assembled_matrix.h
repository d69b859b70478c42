// The process-local stiffness matrix assembled on the device in CSR form
// (Strategy::assembled): a symbolic pass that builds the sparsity from the
// cell -> node table, a numeric pass that adds every cell's element matrix
// into the CSR values, and the sparse matrix-vector product. Backend-internal
// (Kokkos); the data live in MechanicsOperator::Impl::matrix.
#ifndef PLASTIX_SOURCE_BACKEND_ASSEMBLED_MATRIX_H
#define PLASTIX_SOURCE_BACKEND_ASSEMBLED_MATRIX_H

#include <plastix/backend/device_array.h>

#include "kokkos_common.h"
#include "q1_kernels.h"

#include <cstdint>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /**
       * A local matrix over the local DoFs (3 per node) in CSR form whose
       * sparsity is that of the nodes: the three rows of node i have the
       * same columns, 3 per neighbour node (the nodes that share a cell with
       * i, i itself included, in ascending order). Row 3i + c starts at
       * 9 node_offsets[i] + 3 c deg(i), deg(i) = node_offsets[i + 1] -
       * node_offsets[i], and its entry 3k + d is the column of DoF d of the
       * neighbour node_columns[node_offsets[i] + k]. row_offsets and columns
       * are that same structure in the plain CSR arrays that SpMV libraries
       * take.
       */
      struct CsrMatrixData
      {
        /** deg(i) prefix sums: n_nodes + 1. */
        DeviceArray<Index64> node_offsets;
        /** Neighbour nodes of each node, ascending. */
        DeviceArray<LocalIndex> node_columns;
        /** CSR row offsets: 3 n_nodes + 1. */
        DeviceArray<Index64> row_offsets;
        /** CSR column (local DoF) of each entry. */
        DeviceArray<LocalIndex> columns;
        /** CSR values. */
        DeviceArray<double> values;
        /** Seconds of the last symbolic and numeric passes (device work fenced). */
        double symbolic_seconds = 0, numeric_seconds = 0;

        Index64
        n_entries() const
        {
          return static_cast<Index64>(values.size());
        }

        std::size_t
        memory_consumption() const
        {
          return node_offsets.memory_consumption() + node_columns.memory_consumption() +
                 row_offsets.memory_consumption() + columns.memory_consumption() + values.memory_consumption();
        }
      };

      /** The vertices of the cells of each node, in the order of its node -> cell list. */
      struct NodeCandidates
      {
        Strided<const LocalIndex> cell_nodes;
        const LocalIndex         *cells;
        const Index64            *first;

        KOKKOS_INLINE_FUNCTION LocalIndex
        operator()(const Index64 node, const Index64 k) const
        {
          return cell_nodes(cells[first[node] + k / 8], static_cast<int>(k % 8));
        }
      };

      /**
       * Symbolic pass on the device: the node -> cell lists (counted with
       * atomics, a scan, filled with atomics), then per node the distinct
       * nodes of its cells (each candidate is kept if no earlier candidate
       * of the node equals it: no limit on the number of cells per node),
       * sorted, and the CSR arrays of the DoFs. The result does not depend
       * on the order in which the atomics were served.
       */
      inline void
      assemble_symbolic(const Strided<const LocalIndex> &cell_nodes,
                        const Index64                    n_cells,
                        const Index64                    n_nodes,
                        CsrMatrixData                   &matrix)
      {
        // Node -> cell lists.
        DeviceArray<Index64> cell_offsets(n_nodes + 1, "node cell offsets");
        cell_offsets.set_zero();
        Index64 *cell_count = cell_offsets.data();
        for_range("plastix::csr_count_cells", n_cells, KOKKOS_LAMBDA(const Index64 cell) {
          for (int a = 0; a < 8; ++a)
            Kokkos::atomic_add(&cell_count[cell_nodes(cell, a) + 1], Index64(1));
        });
        Kokkos::parallel_scan(
          "plastix::csr_cell_offsets", RangePolicy(0, n_nodes + 1),
          KOKKOS_LAMBDA(const Index64 i, Index64 &partial, const bool final) {
            partial += cell_count[i];
            if (final)
              cell_count[i] = partial;
          });
        Index64 n_incidences = 0;
        copy_to_host(&n_incidences, cell_count + n_nodes, sizeof(Index64));
        DeviceArray<Index64>    cursor(n_nodes, "node cell cursor");
        DeviceArray<LocalIndex> node_cells(n_incidences, "node cells");
        Index64                *next  = cursor.data();
        LocalIndex             *cells = node_cells.data();
        const Index64          *first = cell_offsets.data();
        for_range("plastix::csr_cursor", n_nodes, KOKKOS_LAMBDA(const Index64 i) { next[i] = first[i]; });
        for_range("plastix::csr_fill_cells", n_cells, KOKKOS_LAMBDA(const Index64 cell) {
          for (int a = 0; a < 8; ++a)
            {
              const Index64 slot = Kokkos::atomic_fetch_add(&next[cell_nodes(cell, a)], Index64(1));
              cells[slot]        = static_cast<LocalIndex>(cell);
            }
        });

        // Distinct neighbours per node: count, scan, fill, sort.
        matrix.node_offsets.resize(n_nodes + 1, "csr node offsets");
        Index64 *degree = matrix.node_offsets.data();
        // Candidate k of node i: vertex k % 8 of its (k / 8)-th cell.
        const NodeCandidates candidates{cell_nodes, cells, first};
        for_range("plastix::csr_degree", n_nodes + 1, KOKKOS_LAMBDA(const Index64 i) {
          if (i == 0)
            {
              degree[0] = 0;
              return;
            }
          const Index64 node = i - 1, n = 8 * (first[node + 1] - first[node]);
          Index64       count = 0;
          for (Index64 k = 0; k < n; ++k)
            {
              const LocalIndex c    = candidates(node, k);
              bool             seen = false;
              for (Index64 l = 0; l < k && !seen; ++l)
                seen = candidates(node, l) == c;
              count += seen ? 0 : 1;
            }
          degree[i] = count;
        });
        Kokkos::parallel_scan(
          "plastix::csr_node_offsets", RangePolicy(0, n_nodes + 1),
          KOKKOS_LAMBDA(const Index64 i, Index64 &partial, const bool final) {
            partial += degree[i];
            if (final)
              degree[i] = partial;
          });
        Index64 n_node_entries = 0;
        copy_to_host(&n_node_entries, degree + n_nodes, sizeof(Index64));
        matrix.node_columns.resize(n_node_entries, "csr node columns");
        matrix.row_offsets.resize(3 * n_nodes + 1, "csr row offsets");
        matrix.columns.resize(9 * n_node_entries, "csr columns");
        matrix.values.resize(9 * n_node_entries, "csr values");
        LocalIndex *neighbours = matrix.node_columns.data();
        Index64    *rows       = matrix.row_offsets.data();
        LocalIndex *columns    = matrix.columns.data();
        for_range("plastix::csr_fill", n_nodes, KOKKOS_LAMBDA(const Index64 node) {
          const Index64 begin = degree[node], n = 8 * (first[node + 1] - first[node]);
          Index64       end   = begin;
          for (Index64 k = 0; k < n; ++k)
            {
              const LocalIndex c    = candidates(node, k);
              bool             seen = false;
              for (Index64 l = 0; l < k && !seen; ++l)
                seen = candidates(node, l) == c;
              if (seen)
                continue;
              // Insertion into the sorted list [begin, end).
              Index64 p = end++;
              for (; p > begin && neighbours[p - 1] > c; --p)
                neighbours[p] = neighbours[p - 1];
              neighbours[p] = c;
            }
          const Index64 deg = end - begin;
          for (int c = 0; c < 3; ++c)
            {
              const Index64 row_begin = 9 * begin + 3 * c * deg;
              rows[3 * node + c]      = row_begin;
              for (Index64 k = 0; k < deg; ++k)
                for (int d = 0; d < 3; ++d)
                  columns[row_begin + 3 * k + d] = 3 * neighbours[begin + k] + d;
            }
        });
        const Index64 n_entries = 9 * n_node_entries;
        copy_to_device(rows + 3 * n_nodes, &n_entries, sizeof(Index64));
      }

      /** Position of @p column in the sorted neighbour list of @p node (the list must hold it). */
      KOKKOS_INLINE_FUNCTION Index64
      neighbour_position(const Index64 *node_offsets, const LocalIndex *node_columns, const LocalIndex node,
                         const LocalIndex column)
      {
        Index64 lo = node_offsets[node], hi = node_offsets[node + 1];
        while (hi - lo > 1)
          {
            const Index64 mid = (lo + hi) / 2;
            if (node_columns[mid] <= column)
              lo = mid;
            else
              hi = mid;
          }
        return lo - node_offsets[node];
      }

      /**
       * Numeric pass on the device: the values set to zero, then each
       * cell's element matrix, column by column from @p cell_operator
       * (K e_j), added into its CSR slots with atomics; entries in the row
       * or the column of a constrained DoF (bit of @p masks) are left out,
       * as the masked matrix-free operator leaves them out.
       */
      template <typename CellOperator>
      void
      assemble_numeric(const CellOperator             &cell_operator,
                       const Strided<const LocalIndex> &cell_nodes,
                       const std::uint32_t             *masks,
                       const Index64                    n_cells,
                       CsrMatrixData                   &matrix)
      {
        matrix.values.set_zero();
        const Index64    *node_offsets = matrix.node_offsets.data();
        const LocalIndex *node_columns = matrix.node_columns.data();
        const Index64    *rows         = matrix.row_offsets.data();
        double           *values       = matrix.values.data();
        for_range("plastix::csr_numeric", n_cells, KOKKOS_LAMBDA(const Index64 cell) {
          LocalIndex nodes[8];
          for (int a = 0; a < 8; ++a)
            nodes[a] = cell_nodes(cell, a);
          const std::uint32_t mask = masks[cell];
          for (int b = 0; b < 8; ++b)
            {
              Index64 position[8];
              for (int a = 0; a < 8; ++a)
                position[a] = neighbour_position(node_offsets, node_columns, nodes[a], nodes[b]);
              for (int d = 0; d < 3; ++d)
                {
                  const int j = 3 * b + d;
                  if ((mask >> j) & 1u)
                    continue;
                  double u[24], f[24];
                  for (int k = 0; k < 24; ++k)
                    u[k] = (k == j) ? 1. : 0.;
                  cell_operator.apply(cell, u, f);
                  for (int a = 0; a < 8; ++a)
                    for (int c = 0; c < 3; ++c)
                      if (!((mask >> (3 * a + c)) & 1u))
                        accumulate(values[rows[3 * nodes[a] + c] + 3 * position[a] + d], f[3 * a + c]);
                }
            }
        });
      }

      /**
       * y = A x over all local rows. GPUs: a team of rows, the vector lanes
       * of a thread share one row (coalesced reads of its entries); CPUs:
       * one row per iteration. The values are double and rounded to
       * @p Number, as in the matrix-free kernels.
       */
      template <typename Number>
      void
      csr_apply(const CsrMatrixData &matrix, const Number *x, Number *y)
      {
        const Index64     n_rows  = static_cast<Index64>(matrix.row_offsets.size()) - 1;
        const Index64    *rows    = matrix.row_offsets.data();
        const LocalIndex *columns = matrix.columns.data();
        const double     *values  = matrix.values.data();
        if (n_rows <= 0)
          return;
        if constexpr (on_device)
          {
            using Policy              = Kokkos::TeamPolicy<ExecutionSpace>;
            constexpr int rows_per_team = 8, lanes = 16;
            const Index64 n_teams     = (n_rows + rows_per_team - 1) / rows_per_team;
            Kokkos::parallel_for(
              "plastix::csr_apply", Policy(static_cast<int>(n_teams), rows_per_team, lanes),
              KOKKOS_LAMBDA(const typename Policy::member_type &team) {
                const Index64 row = static_cast<Index64>(team.league_rank()) * rows_per_team + team.team_rank();
                if (row >= n_rows)
                  return;
                Number sum = 0;
                Kokkos::parallel_reduce(
                  Kokkos::ThreadVectorRange(team, rows[row + 1] - rows[row]),
                  [&](const Index64 k, Number &partial) {
                    const Index64 e = rows[row] + k;
                    partial += static_cast<Number>(values[e]) * x[columns[e]];
                  },
                  sum);
                Kokkos::single(Kokkos::PerThread(team), [&]() { y[row] = sum; });
              });
          }
        else
          for_range("plastix::csr_apply", n_rows, KOKKOS_LAMBDA(const Index64 row) {
            Number sum = 0;
            for (Index64 e = rows[row]; e < rows[row + 1]; ++e)
              sum += static_cast<Number>(values[e]) * x[columns[e]];
            y[row] = sum;
          });
      }
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
