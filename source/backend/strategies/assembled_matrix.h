// The process-local stiffness matrix assembled on the device in CSR form
// (Strategy::assembled): a symbolic pass that builds the sparsity from the
// cell -> node table, a numeric pass that adds every cell's element matrix
// into the CSR values, and the sparse matrix-vector product. Backend-internal
// (Kokkos); the data live in DeviceOperator::Impl::matrix.
#ifndef PLASTIX_SOURCE_BACKEND_ASSEMBLED_MATRIX_H
#define PLASTIX_SOURCE_BACKEND_ASSEMBLED_MATRIX_H

#include <plastix/backend/device_array.h>

#include "../kokkos_common.h"
#include "../kernels/q1_kernels.h"

#include <cstdint>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /**
       * A local matrix over the local DoFs (3 per node) whose sparsity is
       * that of the nodes: the three rows of node i have the same columns,
       * 3 per neighbour node (the nodes that share a cell with i, i itself
       * included, ascending in node_columns[node_offsets[i] ...
       * node_offsets[i + 1])). Row 3i + c holds its 3 deg(i) values
       * contiguously from 9 node_offsets[i] + 3 c deg(i), deg(i) =
       * node_offsets[i + 1] - node_offsets[i], entry 3k + d in the column of
       * DoF d of the k-th neighbour: plain CSR values whose column indices
       * follow from the node lists, so that the device stores one index per
       * 3x3 block (12 B per entry in CSR, 8.1 B here); copy_matrix() writes
       * out the CSR indices.
       */
      struct CsrMatrixData
      {
        /** deg(i) prefix sums: n_nodes + 1. */
        DeviceArray<Index64> node_offsets;
        /** Neighbour nodes of each node, ascending. */
        DeviceArray<LocalIndex> node_columns;
        /** The values, 9 per node pair. */
        DeviceArray<double> values;
        /** Number of nodes (rows / 3). */
        Index64 n_nodes = 0;
        /** Seconds of the last symbolic and numeric passes (device work fenced). */
        double symbolic_seconds = 0, numeric_seconds = 0;

        std::size_t
        memory_consumption() const
        {
          return node_offsets.memory_consumption() + node_columns.memory_consumption() +
                 values.memory_consumption();
        }
      };

      /**
       * values[i] <- values[0] + ... + values[i] for i in [0, n) (in place);
       * returns the total, values[n - 1], copied to the host.
       */
      inline Index64
      inclusive_scan_in_place(const char *label, Index64 *values, const Index64 n)
      {
        scan_range(
          label, n, KOKKOS_LAMBDA(const Index64 i, Index64 &partial, const bool final) {
            partial += values[i];
            if (final)
              values[i] = partial;
          });
        Index64 total = 0;
        copy_to_host(&total, values + n - 1, sizeof(Index64));
        return total;
      }

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

        /** Whether candidate k of @p node is the first of its value (a distinct neighbour). */
        KOKKOS_INLINE_FUNCTION bool
        is_first(const Index64 node, const Index64 k) const
        {
          const LocalIndex c = (*this)(node, k);
          for (Index64 l = 0; l < k; ++l)
            if ((*this)(node, l) == c)
              return false;
          return true;
        }
      };

      /**
       * Symbolic pass on the device: the node -> cell lists (counted with
       * atomics, a scan, filled with atomics), then per node the distinct
       * nodes of its cells (each candidate is kept if no earlier candidate
       * of the node equals it: no limit on the number of cells per node),
       * sorted. The result does not depend
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
        const Index64 n_incidences = inclusive_scan_in_place("plastix::csr_cell_offsets", cell_count, n_nodes + 1);
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
            count += candidates.is_first(node, k) ? 1 : 0;
          degree[i] = count;
        });
        const Index64 n_node_entries = inclusive_scan_in_place("plastix::csr_node_offsets", degree, n_nodes + 1);
        matrix.node_columns.resize(n_node_entries, "csr node columns");
        matrix.values.resize(9 * n_node_entries, "csr values");
        matrix.n_nodes         = n_nodes;
        LocalIndex *neighbours = matrix.node_columns.data();
        for_range("plastix::csr_fill", n_nodes, KOKKOS_LAMBDA(const Index64 node) {
          const Index64 begin = degree[node], n = 8 * (first[node + 1] - first[node]);
          Index64       end   = begin;
          for (Index64 k = 0; k < n; ++k)
            {
              if (!candidates.is_first(node, k))
                continue;
              const LocalIndex c = candidates(node, k);
              // Insertion into the sorted list [begin, end).
              Index64 p = end++;
              for (; p > begin && neighbours[p - 1] > c; --p)
                neighbours[p] = neighbours[p - 1];
              neighbours[p] = c;
            }
        });
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
      assemble_numeric(const CellOperator              &cell_operator,
                       const Strided<const LocalIndex> &cell_nodes,
                       const std::uint32_t             *masks,
                       const Index64                    n_cells,
                       CsrMatrixData                   &matrix)
      {
        matrix.values.set_zero();
        const Index64    *node_offsets = matrix.node_offsets.data();
        const LocalIndex *node_columns = matrix.node_columns.data();
        double           *values       = matrix.values.data();
        for_range("plastix::csr_numeric", n_cells, KOKKOS_LAMBDA(const Index64 cell) {
          LocalIndex nodes[8];
          for (int a = 0; a < 8; ++a)
            nodes[a] = cell_nodes(cell, a);
          const std::uint32_t mask = masks[cell];
          for (int b = 0; b < 8; ++b)
            {
              // Start of the row of DoF 3 nodes[a] and of the block column of node b in it.
              Index64 block[8], degree[8];
              for (int a = 0; a < 8; ++a)
                {
                  degree[a] = node_offsets[nodes[a] + 1] - node_offsets[nodes[a]];
                  block[a]  = 9 * node_offsets[nodes[a]] +
                             3 * neighbour_position(node_offsets, node_columns, nodes[a], nodes[b]);
                }
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
                        accumulate(values[block[a] + 3 * c * degree[a] + d], f[3 * a + c]);
                }
            }
        });
      }

      /**
       * Where row 3i + c of a CsrMatrixData starts: entry e of the row is
       * values[first + e] in the column of DoF e % 3 of neighbours[e / 3].
       */
      struct CsrRows
      {
        const Index64    *node_offsets;
        const LocalIndex *node_columns;

        KOKKOS_INLINE_FUNCTION void
        operator()(const Index64 row, Index64 &first, Index64 &n_entries, const LocalIndex *&neighbours) const
        {
          const Index64 node = row / 3, begin = node_offsets[node], degree = node_offsets[node + 1] - begin;
          first      = 9 * begin + 3 * (row % 3) * degree;
          n_entries  = 3 * degree;
          neighbours = node_columns + begin;
        }
      };

      /**
       * y = A x over all local rows. GPUs: a team of rows, the vector lanes
       * of a thread share one row, a block of three entries (one node index)
       * per lane and step; CPUs: one row per iteration. The values
       * are double and rounded to @p Number, as in the matrix-free kernels.
       */
      template <typename Number>
      void
      csr_apply(const CsrMatrixData &matrix, const Number *x, Number *y)
      {
        const Index64     n_rows       = 3 * matrix.n_nodes;
        const Index64    *node_offsets = matrix.node_offsets.data();
        const LocalIndex *node_columns = matrix.node_columns.data();
        const double     *values       = matrix.values.data();
        if (n_rows <= 0)
          return;
        const CsrRows row_start{node_offsets, node_columns};
        if constexpr (on_device)
          {
            // A row: its deg(i) blocks of three entries over 8 vector lanes
            // (27 blocks of an interior node: 4 per lane), 16 rows per team.
            // Of 4, 8, 16 and 32 lanes, 8 measured fastest on a GPU
            // (doc/benchmarks.md, "GPU: the matrix assembled on the device
            // against cuSPARSE").
            using Policy                = TeamPolicy;
            constexpr int lanes         = 8;
            constexpr int rows_per_team = 16;
            const Index64 n_teams     = (n_rows + rows_per_team - 1) / rows_per_team;
            Kokkos::parallel_for(
              "plastix::csr_apply", Policy(static_cast<int>(n_teams), rows_per_team, lanes),
              KOKKOS_LAMBDA(const typename Policy::member_type &team) {
                const Index64 row = static_cast<Index64>(team.league_rank()) * rows_per_team + team.team_rank();
                if (row >= n_rows)
                  return;
                Index64           first = 0, n_entries = 0;
                const LocalIndex *neighbours = nullptr;
                row_start(row, first, n_entries, neighbours);
                const double *v     = values + first;
                const int     n_blocks = static_cast<int>(n_entries / 3);
                Number        sum   = 0;
                Kokkos::parallel_reduce(
                  Kokkos::ThreadVectorRange(team, n_blocks),
                  [&](const int k, Number &partial) {
                    const Number *xk = x + 3 * Index64(neighbours[k]);
                    partial += static_cast<Number>(v[3 * k]) * xk[0] + static_cast<Number>(v[3 * k + 1]) * xk[1] +
                               static_cast<Number>(v[3 * k + 2]) * xk[2];
                  },
                  sum);
                Kokkos::single(Kokkos::PerThread(team), [&]() { y[row] = sum; });
              });
          }
        else
          for_range("plastix::csr_apply", n_rows, KOKKOS_LAMBDA(const Index64 row) {
            Index64           first = 0, n_entries = 0;
            const LocalIndex *neighbours = nullptr;
            row_start(row, first, n_entries, neighbours);
            Number sum = 0;
            for (Index64 e = 0; e < n_entries; ++e)
              sum += static_cast<Number>(values[first + e]) * x[3 * Index64(neighbours[e / 3]) + e % 3];
            y[row] = sum;
          });
      }
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
