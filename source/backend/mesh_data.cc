// Consistency checks of the mesh data that the operator uploads.
#include <plastix/backend/mesh_data.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace plastix
{
  namespace backend
  {
    void
    MeshData::check_constraint_lines() const
    {
      const std::size_t n_lines = constraint_rows.size();
      if (n_lines == 0 && constraint_offsets.empty() && constraint_columns.empty() && constraint_weights.empty())
        return;
      if (constraint_offsets.size() != n_lines + 1 || constraint_offsets.front() != 0 ||
          static_cast<std::size_t>(constraint_offsets.back()) != constraint_columns.size() ||
          constraint_weights.size() != constraint_columns.size())
        throw std::invalid_argument("MeshData: the constraint lines are not in CSR form (offsets of size "
                                    "lines + 1 from 0 to the number of columns, one weight per column)");
      const LocalIndex  n_local_dofs = n_dofs();
      std::vector<char> is_row(n_local_dofs, 0);
      for (const LocalIndex row : constraint_rows)
        {
          if (row < 0 || row >= n_local_dofs)
            throw std::invalid_argument("MeshData: constraint row " + std::to_string(row) + " outside [0, " +
                                        std::to_string(n_local_dofs) + ")");
          if (is_row[row] || constrained_dofs[row])
            throw std::invalid_argument("MeshData: DoF " + std::to_string(row) +
                                        " has two constraints (two lines, or a line and a Dirichlet flag)");
          is_row[row] = 1;
        }
      for (std::size_t r = 0; r < n_lines; ++r)
        {
          if (constraint_offsets[r + 1] < constraint_offsets[r])
            throw std::invalid_argument("MeshData: constraint offsets decrease");
          for (LocalIndex k = constraint_offsets[r]; k < constraint_offsets[r + 1]; ++k)
            {
              const LocalIndex column = constraint_columns[k];
              if (column < 0 || column >= n_local_dofs)
                throw std::invalid_argument("MeshData: constraint column " + std::to_string(column) +
                                            " outside [0, " + std::to_string(n_local_dofs) + ")");
              if (is_row[column] || constrained_dofs[column])
                throw std::invalid_argument(
                  "MeshData: DoF " + std::to_string(constraint_rows[r]) + " is constrained to DoF " +
                  std::to_string(column) +
                  ", which is constrained itself (chains must be resolved: close() the AffineConstraints)");
              if (!std::isfinite(constraint_weights[k]))
                throw std::invalid_argument("MeshData: a constraint weight is not finite");
            }
        }
      if (dirichlet_offsets.empty() && dirichlet_columns.empty() && dirichlet_weights.empty())
        return;
      if (dirichlet_offsets.size() != n_lines + 1 || dirichlet_offsets.front() != 0 ||
          static_cast<std::size_t>(dirichlet_offsets.back()) != dirichlet_columns.size() ||
          dirichlet_weights.size() != dirichlet_columns.size())
        throw std::invalid_argument("MeshData: the Dirichlet weights of the constraint lines are not in CSR form");
      for (std::size_t r = 0; r < n_lines; ++r)
        for (LocalIndex k = dirichlet_offsets[r]; k < dirichlet_offsets[r + 1]; ++k)
          {
            const LocalIndex column = dirichlet_columns[k];
            if (column < 0 || column >= n_local_dofs || !constrained_dofs[column])
              throw std::invalid_argument("MeshData: a Dirichlet weight of a constraint line refers to DoF " +
                                          std::to_string(column) + ", which is not a local Dirichlet DoF");
            if (!std::isfinite(dirichlet_weights[k]))
              throw std::invalid_argument("MeshData: a constraint weight is not finite");
          }
    }

    void
    MeshData::check_consistency() const
    {
      if (cell_nodes.size() % 8 != 0)
        throw std::invalid_argument("MeshData: cell_nodes must hold 8 nodes per cell");
      if (n_owned_nodes < 0 || n_owned_nodes > n_nodes)
        throw std::invalid_argument("MeshData: n_owned_nodes outside [0, n_nodes]");
      if (node_coordinates.size() != 3 * static_cast<std::size_t>(n_nodes))
        throw std::invalid_argument("MeshData: node_coordinates must hold 3 values per node");
      if (cell_material.size() != static_cast<std::size_t>(n_cells()))
        throw std::invalid_argument("MeshData: cell_material must hold one entry per cell");
      if (constrained_dofs.size() != 3 * static_cast<std::size_t>(n_nodes))
        throw std::invalid_argument("MeshData: constrained_dofs must hold one flag per DoF");
      for (const LocalIndex node : cell_nodes)
        if (node < 0 || node >= n_nodes)
          throw std::invalid_argument("MeshData: cell_nodes refers to node " +
                                      std::to_string(node) + " outside [0, " +
                                      std::to_string(n_nodes) + ")");
      for (const auto m : cell_material)
        if (m >= materials.size())
          throw std::invalid_argument("MeshData: cell_material refers to material " +
                                      std::to_string(m) + " but only " +
                                      std::to_string(materials.size()) +
                                      " are defined");
      check_constraint_lines();
      if (!cell_factors.empty())
        {
          if (cell_factors.size() != static_cast<std::size_t>(n_cells()))
            throw std::invalid_argument("MeshData: cell_factors must be empty or hold one factor per cell");
          for (std::size_t cell = 0; cell < cell_factors.size(); ++cell)
            if (!(cell_factors[cell] > 0) || !std::isfinite(cell_factors[cell]))
              throw std::invalid_argument("MeshData: the stiffness factor of cell " + std::to_string(cell) + " is " +
                                          std::to_string(cell_factors[cell]) + "; it must be finite and positive");
        }
      for (std::size_t i = 0; i < materials.size(); ++i)
        if (!(materials[i].mu > 0) || !(3 * materials[i].lambda + 2 * materials[i].mu > 0))
          throw std::invalid_argument("MeshData: material " + std::to_string(i) +
                                      " is not positive definite (mu > 0 and "
                                      "3 lambda + 2 mu > 0 required)");
    }
  } // namespace backend
} // namespace plastix

#include "firewall_check.h"
