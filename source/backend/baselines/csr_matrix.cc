// Assembled CSR stiffness matrix (baseline) and a portable SpMV.
#include <plastix/backend/device_operator.h>

#include "csr_matrix.h"

#include "../operator_impl.h"

#include <algorithm>
#include <stdexcept>

namespace plastix
{
  namespace backend
  {
    CsrMatrixHost
    assemble_csr_matrix(const MeshData &mesh)
    {
      // The element matrices come from the operator's element-matrix kernel
      // (one per group of congruent cells).
      OperatorSettings settings;
      settings.strategy       = Strategy::ebe_atomic;
      settings.cell_kernel    = CellKernel::element_matrix;
      settings.thread_mapping = ThreadMapping::cell;
      const DeviceOperator    op(mesh, settings);
      const auto                &d        = op.impl();
      const std::vector<double>  matrices = d.matrices.to_host();
      const std::vector<LocalIndex> group = d.cell_group.to_host();

      const LocalIndex n_nodes = mesh.n_nodes, n_cells = mesh.n_cells();
      // Node adjacency (nodes sharing a cell), sorted.
      std::vector<std::vector<LocalIndex>> neighbours(n_nodes);
      for (LocalIndex cell = 0; cell < n_cells; ++cell)
        for (int a = 0; a < 8; ++a)
          for (int b = 0; b < 8; ++b)
            neighbours[mesh.cell_nodes[8 * cell + a]].push_back(mesh.cell_nodes[8 * cell + b]);
      std::size_t n_entries = 0;
      for (auto &list : neighbours)
        {
          std::sort(list.begin(), list.end());
          list.erase(std::unique(list.begin(), list.end()), list.end());
          n_entries += 9 * list.size();
        }
      if (n_entries >= (std::size_t(1) << 31))
        throw std::runtime_error("assemble_csr_matrix: " + std::to_string(n_entries) +
                                 " entries do not fit 32-bit CSR indices");

      CsrMatrixHost A;
      A.n_rows = 3 * n_nodes;
      A.row_offsets.resize(A.n_rows + 1);
      A.columns.resize(n_entries);
      A.values.assign(n_entries, 0.);
      std::int32_t offset = 0;
      for (LocalIndex n = 0; n < n_nodes; ++n)
        for (int c = 0; c < 3; ++c)
          {
            A.row_offsets[3 * n + c] = offset;
            for (const LocalIndex m : neighbours[n])
              for (int e = 0; e < 3; ++e)
                A.columns[offset++] = 3 * m + e;
          }
      A.row_offsets[A.n_rows] = offset;

      for (LocalIndex cell = 0; cell < n_cells; ++cell)
        {
          const double *K = &matrices[576 * static_cast<std::size_t>(group[cell])];
          for (int a = 0; a < 8; ++a)
            {
              const LocalIndex na = mesh.cell_nodes[8 * cell + a];
              for (int b = 0; b < 8; ++b)
                {
                  const LocalIndex nb       = mesh.cell_nodes[8 * cell + b];
                  const auto      &list     = neighbours[na];
                  const auto       position = std::lower_bound(list.begin(), list.end(), nb) - list.begin();
                  for (int c = 0; c < 3; ++c)
                    {
                      const LocalIndex row = 3 * na + c;
                      if (mesh.constrained_dofs[row])
                        continue;
                      for (int e = 0; e < 3; ++e)
                        if (!mesh.constrained_dofs[3 * nb + e])
                          A.values[A.row_offsets[row] + 3 * position + e] += K[24 * (3 * a + c) + 3 * b + e];
                    }
                }
            }
        }
      for (LocalIndex row = 0; row < A.n_rows; ++row)
        if (mesh.constrained_dofs[row] && row < 3 * mesh.n_owned_nodes)
          for (std::int32_t k = A.row_offsets[row]; k < A.row_offsets[row + 1]; ++k)
            if (A.columns[k] == row)
              A.values[k] = 1.;
      return A;
    }

    DeviceCsrMatrix::DeviceCsrMatrix(const CsrMatrixHost &matrix)
      : n_rows(matrix.n_rows)
      , row_offsets(matrix.row_offsets, "CSR row offsets")
      , columns(matrix.columns, "CSR columns")
      , values(matrix.values, "CSR values")
    {}

    void
    DeviceCsrMatrix::vmult(const double *src, double *dst) const
    {
      const std::int32_t *rows = row_offsets.data();
      const std::int32_t *cols = columns.data();
      const double       *vals = values.data();
      internal::for_range("plastix::csr_spmv", n_rows, KOKKOS_LAMBDA(const internal::Index64 row) {
        double sum = 0;
        for (std::int32_t k = rows[row]; k < rows[row + 1]; ++k)
          sum += vals[k] * src[cols[k]];
        dst[row] = sum;
      });
    }

    std::size_t
    DeviceCsrMatrix::memory_consumption() const
    {
      return row_offsets.memory_consumption() + columns.memory_consumption() + values.memory_consumption();
    }

    std::size_t
    DeviceCsrMatrix::n_nonzeros() const
    {
      return values.size();
    }
  } // namespace backend
} // namespace plastix

#include "../firewall_check.h"
