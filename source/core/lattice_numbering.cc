// DoF numbering for meshes of equal boxes on one lattice.
#include <deal.II/base/index_set.h>
#include <deal.II/fe/fe.h>

#include <plastix/core/lattice_numbering.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

namespace plastix
{
  namespace
  {
    using dealii::types::global_dof_index;

    /**
     * New numbers (indexed by the position within @p owned) that order the
     * owned DoFs lexicographically by the lattice position of their vertex,
     * components innermost. @p for_each_cell(action) calls action(cell,
     * dof_indices) for every locally owned cell of the level or the active
     * mesh.
     */
    template <typename ForEachCell>
    std::vector<global_dof_index>
    lattice_order(const dealii::IndexSet &owned, const dealii::FiniteElement<3> &fe, const ForEachCell &for_each_cell)
    {
      const std::size_t n_owned = owned.n_elements();
      // The spacing of the first cell and the lowest vertex 0: the lattice.
      bool                  first = true;
      std::array<double, 3> h{}, origin{};
      for_each_cell([&](const auto &cell, const std::vector<global_dof_index> &) {
        for (unsigned int d = 0; d < 3; ++d)
          {
            if (first)
              h[d] = cell->vertex(7)[d] - cell->vertex(0)[d];
            origin[d] = first ? cell->vertex(0)[d] : std::min(origin[d], cell->vertex(0)[d]);
          }
        first = false;
      });
      if (first || !(h[0] > 0 && h[1] > 0 && h[2] > 0))
        {
          // No owned cell, or not a box in deal.II's vertex order: keep the numbering.
          std::vector<global_dof_index> same(n_owned);
          for (std::size_t k = 0; k < n_owned; ++k)
            same[k] = owned.nth_index_in_set(k);
          return same;
        }

      // The lattice position of each owned DoF: 3 (i + X (j + Y k)) + component
      // over the bounding box of the positions.
      constexpr std::int64_t          none = -1;
      std::vector<std::array<std::int64_t, 4>> position(n_owned, {none, none, none, none});
      std::array<std::int64_t, 3>     largest{0, 0, 0};
      for_each_cell([&](const auto &cell, const std::vector<global_dof_index> &dofs) {
        for (unsigned int i = 0; i < dofs.size(); ++i)
          {
            if (!owned.is_element(dofs[i]))
              continue;
            auto &p = position[owned.index_within_set(dofs[i])];
            if (p[3] != none)
              continue;
            const auto [component, vertex] = fe.system_to_component_index(i);
            for (unsigned int d = 0; d < 3; ++d)
              {
                p[d]        = std::llround((cell->vertex(vertex)[d] - origin[d]) / h[d]);
                largest[d]  = std::max(largest[d], p[d]);
              }
            p[3] = component;
          }
      });
      const std::int64_t X = largest[0] + 1, Y = largest[1] + 1, Z = largest[2] + 1;
      auto               key = [&](const std::array<std::int64_t, 4> &p) { return 3 * (p[0] + X * (p[1] + Y * p[2])) + p[3]; };

      // Counting sort over the lattice where it is not much larger than the
      // DoFs; a comparison sort otherwise, or where two DoFs share a key
      // (not a lattice).
      std::vector<std::size_t> order;
      order.reserve(n_owned);
      bool unique = 3 * X * Y * Z <= 8 * static_cast<std::int64_t>(n_owned) + 4096;
      if (unique)
        {
          std::vector<std::int64_t> slot(3 * X * Y * Z, none);
          for (std::size_t k = 0; k < n_owned && unique; ++k)
            if (position[k][0] != none)
              {
                std::int64_t &s = slot[key(position[k])];
                unique          = s == none;
                s               = static_cast<std::int64_t>(k);
              }
          if (unique)
            for (const std::int64_t k : slot)
              if (k != none)
                order.push_back(static_cast<std::size_t>(k));
        }
      if (!unique)
        {
          order.clear();
          for (std::size_t k = 0; k < n_owned; ++k)
            if (position[k][0] != none)
              order.push_back(k);
          std::stable_sort(order.begin(), order.end(),
                           [&](const std::size_t a, const std::size_t b) { return key(position[a]) < key(position[b]); });
        }
      // DoFs of no owned cell (none in deal.II's ownership rules) keep their order at the end.
      for (std::size_t k = 0; k < n_owned; ++k)
        if (position[k][0] == none)
          order.push_back(k);

      std::vector<global_dof_index> new_numbers(n_owned);
      for (std::size_t rank = 0; rank < n_owned; ++rank)
        new_numbers[order[rank]] = owned.nth_index_in_set(rank);
      return new_numbers;
    }
  } // namespace

  void
  renumber_dofs_on_lattice(dealii::DoFHandler<3> &dof_handler)
  {
    const auto &fe = dof_handler.get_fe();
    std::vector<global_dof_index> dofs(fe.n_dofs_per_cell());
    {
      const auto new_numbers =
        lattice_order(dof_handler.locally_owned_dofs(), fe, [&](const auto &action) {
          for (const auto &cell : dof_handler.active_cell_iterators())
            if (cell->is_locally_owned())
              {
                cell->get_dof_indices(dofs);
                action(cell, dofs);
              }
        });
      dof_handler.renumber_dofs(new_numbers);
    }
    if (!dof_handler.has_level_dofs())
      return;
    // Every level on every process (the renumbering exchanges ghost indices).
    const auto &triangulation = dof_handler.get_triangulation();
    for (unsigned int level = 0; level < triangulation.n_global_levels(); ++level)
      {
        const auto new_numbers =
          lattice_order(dof_handler.locally_owned_mg_dofs(level), fe, [&](const auto &action) {
            if (level >= triangulation.n_levels())
              return;
            for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
              if (cell->is_locally_owned_on_level())
                {
                  cell->get_mg_dof_indices(dofs);
                  action(cell, dofs);
                }
          });
        dof_handler.renumber_dofs(level, new_numbers);
      }
  }
} // namespace plastix
