// The sparse terms of the operator (boundary springs, mass matrix) on the device and their products.
#include "sparse_terms.h"

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
        upload_rows(const std::vector<LocalIndex> &entry_rows,
                    const std::vector<LocalIndex> &entry_columns,
                    const std::vector<double>     &entry_values,
                    const Keep                    &keep)
        {
          std::vector<LocalIndex> rows, offsets, columns;
          std::vector<double>     values;
          for (std::size_t k = 0; k < entry_rows.size(); ++k)
            {
              if (!keep(k))
                continue;
              if (rows.empty() || rows.back() != entry_rows[k])
                {
                  rows.push_back(entry_rows[k]);
                  offsets.push_back(static_cast<LocalIndex>(columns.size()));
                }
              columns.push_back(entry_columns[k]);
              values.push_back(entry_values[k]);
            }
          offsets.push_back(static_cast<LocalIndex>(columns.size()));
          SparseRows matrix;
          matrix.n_rows  = rows.size();
          matrix.rows    = DeviceArray<LocalIndex>(rows, "sparse term rows");
          matrix.offsets = DeviceArray<LocalIndex>(offsets, "sparse term offsets");
          matrix.columns = DeviceArray<LocalIndex>(columns, "sparse term columns");
          matrix.values  = DeviceArray<double>(values, "sparse term values");
          return matrix;
        }

        template <typename Number>
        void
        add_rows(const SparseRows &matrix, const Number *src, Number *dst, const double scale)
        {
          if (matrix.n_rows == 0)
            return;
          const LocalIndex *rows    = matrix.rows.data();
          const LocalIndex *offsets = matrix.offsets.data();
          const LocalIndex *columns = matrix.columns.data();
          const double     *values  = matrix.values.data();
          const Number      factor  = static_cast<Number>(scale);
          for_range("plastix::sparse_term", matrix.n_rows, KOKKOS_LAMBDA(const Index64 r) {
            Number sum = 0;
            for (LocalIndex k = offsets[r]; k < offsets[r + 1]; ++k)
              sum += static_cast<Number>(values[k]) * src[columns[k]];
            dst[rows[r]] += factor * sum;
          });
        }
      } // namespace

      SparseTerm
      build_sparse_term(const MeshData                &mesh,
                        const std::vector<LocalIndex> &entry_rows,
                        const std::vector<LocalIndex> &entry_columns,
                        const std::vector<double>     &entry_values,
                        const char                    *what)
      {
        SparseTerm term;
        if (entry_rows.empty())
          return term;
        const std::size_t n_entries = entry_rows.size();
        if (entry_columns.size() != n_entries || entry_values.size() != n_entries)
          throw std::invalid_argument(std::string("MeshData: the rows, columns and values of the ") + what +
                                      " differ in size");
        for (std::size_t k = 0; k < n_entries; ++k)
          {
            if (entry_rows[k] < 0 || entry_rows[k] >= mesh.n_dofs() || entry_columns[k] < 0 ||
                entry_columns[k] >= mesh.n_dofs())
              throw std::invalid_argument(std::string("MeshData: entry ") + std::to_string(k) + " of the " + what +
                                          " is outside the local DoFs");
            if (k > 0 && (entry_rows[k] < entry_rows[k - 1] ||
                          (entry_rows[k] == entry_rows[k - 1] &&
                           entry_columns[k] <= entry_columns[k - 1])))
              throw std::invalid_argument(std::string("MeshData: the entries of the ") + what +
                                          " are not sorted by row and column");
          }
        const auto is_dirichlet = [&](const LocalIndex dof) { return mesh.constrained_dofs[dof] != 0; };
        // An entry of the operator's products: neither its row nor its column is a Dirichlet DoF.
        const auto is_free = [&](const std::size_t k) {
          return !is_dirichlet(entry_rows[k]) && !is_dirichlet(entry_columns[k]);
        };
        term.all  = upload_rows(entry_rows, entry_columns, entry_values, [](std::size_t) { return true; });
        term.free = upload_rows(entry_rows, entry_columns, entry_values, is_free);
        for (std::size_t k = 0; k < n_entries; ++k)
          if (is_free(k))
            {
              term.host_rows.push_back(entry_rows[k]);
              term.host_columns.push_back(entry_columns[k]);
              term.host_values.push_back(entry_values[k]);
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
            const LocalIndex a = entry_rows[k], b = entry_columns[k];
            for_each_term(a, [&](const LocalIndex i, const double w_i) {
              for_each_term(b, [&](const LocalIndex j, const double w_j) {
                if (i == j)
                  {
                    diagonal[i] += w_i * w_j * entry_values[k];
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
        term.diagonal_dofs   = DeviceArray<LocalIndex>(dofs, "sparse term diagonal dofs");
        term.diagonal_values = DeviceArray<double>(values, "sparse term diagonal values");
        return term;
      }

      template <typename Number>
      void
      add_sparse_term(const SparseTerm &term, const Number *src, Number *dst, const bool masked, const double scale)
      {
        add_rows(masked ? term.free : term.all, src, dst, scale);
      }

      void
      add_sparse_term_diagonal(const SparseTerm &term, double *diagonal, const double scale)
      {
        const std::size_t n = term.diagonal_dofs.size();
        if (n == 0)
          return;
        const LocalIndex *dofs   = term.diagonal_dofs.data();
        const double     *values = term.diagonal_values.data();
        for_range("plastix::sparse_term_diagonal", n,
                  KOKKOS_LAMBDA(const Index64 k) { diagonal[dofs[k]] += scale * values[k]; });
      }

      void
      add_sparse_term(const SparseTerm &term, CsrMatrix &matrix, const double scale)
      {
        for (std::size_t k = 0; k < term.host_rows.size(); ++k)
          {
            const LocalIndex row   = term.host_rows[k];
            const auto       begin = matrix.columns.begin() + matrix.row_offsets[row];
            const auto       end   = matrix.columns.begin() + matrix.row_offsets[row + 1];
            const auto       entry = std::lower_bound(begin, end, term.host_columns[k]);
            if (entry == end || *entry != term.host_columns[k])
              throw std::logic_error("plastix: a sparse term (springs, mass) couples DoFs " + std::to_string(row) + " and " +
                                     std::to_string(term.host_columns[k]) +
                                     ", which share no cell of the assembled matrix");
            matrix.values[entry - matrix.columns.begin()] += scale * term.host_values[k];
          }
      }

      template void
      add_sparse_term<double>(const SparseTerm &, const double *, double *, bool, double);
      template void
      add_sparse_term<float>(const SparseTerm &, const float *, float *, bool, double);
    } // namespace internal
  } // namespace backend
} // namespace plastix
