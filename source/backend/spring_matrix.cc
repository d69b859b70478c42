// Boundary springs: the spring matrix on the device and its products.
#include "spring_matrix.h"

#include "kokkos_common.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      namespace
      {
        /** Upload the entries k of (rows, columns, values) with keep(k), grouped by row. */
        template <typename Keep>
        SparseRows
        upload_rows(const MeshData &mesh, const Keep &keep)
        {
          std::vector<LocalIndex> rows, offsets, columns;
          std::vector<double>     values;
          for (std::size_t k = 0; k < mesh.spring_rows.size(); ++k)
            {
              if (!keep(k))
                continue;
              if (rows.empty() || rows.back() != mesh.spring_rows[k])
                {
                  rows.push_back(mesh.spring_rows[k]);
                  offsets.push_back(static_cast<LocalIndex>(columns.size()));
                }
              columns.push_back(mesh.spring_columns[k]);
              values.push_back(mesh.spring_values[k]);
            }
          offsets.push_back(static_cast<LocalIndex>(columns.size()));
          SparseRows matrix;
          matrix.n_rows  = rows.size();
          matrix.rows    = DeviceArray<LocalIndex>(rows, "spring rows");
          matrix.offsets = DeviceArray<LocalIndex>(offsets, "spring offsets");
          matrix.columns = DeviceArray<LocalIndex>(columns, "spring columns");
          matrix.values  = DeviceArray<double>(values, "spring values");
          return matrix;
        }

        template <typename Number>
        void
        add_rows(const SparseRows &matrix, const Number *src, Number *dst)
        {
          if (matrix.n_rows == 0)
            return;
          const LocalIndex *rows    = matrix.rows.data();
          const LocalIndex *offsets = matrix.offsets.data();
          const LocalIndex *columns = matrix.columns.data();
          const double     *values  = matrix.values.data();
          for_range("plastix::boundary_springs", matrix.n_rows, KOKKOS_LAMBDA(const Index64 r) {
            Number sum = 0;
            for (LocalIndex k = offsets[r]; k < offsets[r + 1]; ++k)
              sum += static_cast<Number>(values[k]) * src[columns[k]];
            dst[rows[r]] += sum;
          });
        }
      } // namespace

      BoundarySpringData
      build_boundary_springs(const MeshData &mesh)
      {
        BoundarySpringData springs;
        if (mesh.spring_rows.empty())
          return springs;
        const std::size_t n_entries = mesh.spring_rows.size();
        if (mesh.spring_columns.size() != n_entries || mesh.spring_values.size() != n_entries)
          throw std::invalid_argument("MeshData: spring_rows, spring_columns and spring_values differ in size");
        for (std::size_t k = 0; k < n_entries; ++k)
          {
            if (mesh.spring_rows[k] < 0 || mesh.spring_rows[k] >= mesh.n_dofs() || mesh.spring_columns[k] < 0 ||
                mesh.spring_columns[k] >= mesh.n_dofs())
              throw std::invalid_argument("MeshData: spring entry " + std::to_string(k) + " is outside the local DoFs");
            if (k > 0 && (mesh.spring_rows[k] < mesh.spring_rows[k - 1] ||
                          (mesh.spring_rows[k] == mesh.spring_rows[k - 1] &&
                           mesh.spring_columns[k] <= mesh.spring_columns[k - 1])))
              throw std::invalid_argument("MeshData: the spring entries are not sorted by row and column");
          }
        const auto is_dirichlet = [&](const LocalIndex dof) { return mesh.constrained_dofs[dof] != 0; };
        // An entry of the operator's products: neither its row nor its column is a Dirichlet DoF.
        const auto is_free = [&](const std::size_t k) {
          return !is_dirichlet(mesh.spring_rows[k]) && !is_dirichlet(mesh.spring_columns[k]);
        };
        springs.all  = upload_rows(mesh, [](std::size_t) { return true; });
        springs.free = upload_rows(mesh, is_free);
        for (std::size_t k = 0; k < n_entries; ++k)
          if (is_free(k))
            {
              springs.host_rows.push_back(mesh.spring_rows[k]);
              springs.host_columns.push_back(mesh.spring_columns[k]);
              springs.host_values.push_back(mesh.spring_values[k]);
            }

        // diag(C^T S C): a hanging-node row a stands for sum_j w_j e_j.
        std::vector<LocalIndex> line_of(mesh.n_dofs(), -1);
        for (std::size_t r = 0; r < mesh.constraint_rows.size(); ++r)
          line_of[mesh.constraint_rows[r]] = static_cast<LocalIndex>(r);
        const auto for_each_term = [&](const LocalIndex dof, const auto &action) {
          if (line_of[dof] < 0)
            action(dof, 1.);
          else
            for (LocalIndex e = mesh.constraint_offsets[line_of[dof]]; e < mesh.constraint_offsets[line_of[dof] + 1];
                 ++e)
              action(mesh.constraint_columns[e], mesh.constraint_weights[e]);
        };
        std::vector<double> diagonal(mesh.n_dofs(), 0.);
        std::vector<bool>   touched(mesh.n_dofs(), false);
        for (std::size_t k = 0; k < n_entries; ++k)
          {
            if (!is_free(k))
              continue;
            const LocalIndex a = mesh.spring_rows[k], b = mesh.spring_columns[k];
            for_each_term(a, [&](const LocalIndex i, const double w_i) {
              for_each_term(b, [&](const LocalIndex j, const double w_j) {
                if (i == j)
                  {
                    diagonal[i] += w_i * w_j * mesh.spring_values[k];
                    touched[i] = true;
                  }
              });
            });
          }
        std::vector<LocalIndex> dofs;
        std::vector<double>     values;
        for (LocalIndex i = 0; i < mesh.n_dofs(); ++i)
          if (touched[i] && line_of[i] < 0 && !is_dirichlet(i))
            {
              dofs.push_back(i);
              values.push_back(diagonal[i]);
            }
        springs.diagonal_dofs   = DeviceArray<LocalIndex>(dofs, "spring diagonal dofs");
        springs.diagonal_values = DeviceArray<double>(values, "spring diagonal values");
        return springs;
      }

      template <typename Number>
      void
      add_boundary_springs(const BoundarySpringData &springs, const Number *src, Number *dst, const bool masked)
      {
        add_rows(masked ? springs.free : springs.all, src, dst);
      }

      void
      add_boundary_spring_diagonal(const BoundarySpringData &springs, double *diagonal)
      {
        const std::size_t n = springs.diagonal_dofs.size();
        if (n == 0)
          return;
        const LocalIndex *dofs   = springs.diagonal_dofs.data();
        const double     *values = springs.diagonal_values.data();
        for_range("plastix::boundary_spring_diagonal", n,
                  KOKKOS_LAMBDA(const Index64 k) { diagonal[dofs[k]] += values[k]; });
      }

      void
      add_boundary_springs(const BoundarySpringData &springs, CsrMatrix &matrix)
      {
        for (std::size_t k = 0; k < springs.host_rows.size(); ++k)
          {
            const LocalIndex row   = springs.host_rows[k];
            const auto       begin = matrix.columns.begin() + matrix.row_offsets[row];
            const auto       end   = matrix.columns.begin() + matrix.row_offsets[row + 1];
            const auto       entry = std::lower_bound(begin, end, springs.host_columns[k]);
            if (entry == end || *entry != springs.host_columns[k])
              throw std::logic_error("plastix: a boundary spring couples DoFs " + std::to_string(row) + " and " +
                                     std::to_string(springs.host_columns[k]) +
                                     ", which share no cell of the assembled matrix");
            matrix.values[entry - matrix.columns.begin()] += springs.host_values[k];
          }
      }

      template void
      add_boundary_springs<double>(const BoundarySpringData &, const double *, double *, bool);
      template void
      add_boundary_springs<float>(const BoundarySpringData &, const float *, float *, bool);
    } // namespace internal
  } // namespace backend
} // namespace plastix
