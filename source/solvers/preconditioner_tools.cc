// What the host-side preconditioners share (preconditioner_tools.h).
#include <deal.II/fe/fe.h>

#include <plastix/backend/dense_inverse.h>
#include <plastix/backend/device.h>

#include "preconditioner_tools.h"

namespace plastix
{
  namespace internal
  {
    CellDofTable::CellDofTable(const dealii::FiniteElement<3> &fe)
    {
      for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
        {
          const auto [component, vertex] = fe.system_to_component_index(i);
          index[vertex][component]       = i;
        }
    }

    std::vector<double>
    owned_dof_coordinates(const dealii::DoFHandler<3> &dof_handler, const unsigned int level)
    {
      const bool              on_level = level != dealii::numbers::invalid_unsigned_int;
      const dealii::IndexSet &owned = on_level ? dof_handler.locally_owned_mg_dofs(level) : dof_handler.locally_owned_dofs();
      const CellDofTable      table(dof_handler.get_fe());
      std::vector<double>     coordinates(3 * owned.n_elements(), 0.);
      std::vector<dealii::types::global_dof_index> dofs(dof_handler.get_fe().n_dofs_per_cell());
      auto visit = [&](const auto &cell) {
        if (on_level)
          cell->get_mg_dof_indices(dofs);
        else
          cell->get_dof_indices(dofs);
        for (unsigned int v = 0; v < 8; ++v)
          for (unsigned int c = 0; c < 3; ++c)
            if (owned.is_element(dofs[table.index[v][c]]))
              {
                const auto row = owned.index_within_set(dofs[table.index[v][c]]);
                for (unsigned int d = 0; d < 3; ++d)
                  coordinates[3 * row + d] = cell->vertex(v)[d];
              }
      };
      if (on_level)
        {
          for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
            if (cell->is_locally_owned_on_level())
              visit(cell);
        }
      else
        for (const auto &cell : dof_handler.active_cell_iterators())
          if (cell->is_locally_owned())
            visit(cell);
      return coordinates;
    }

    void
    copy_to_trilinos(const DeviceVector &src, dealii::TrilinosWrappers::MPI::Vector &dst)
    {
      AssertThrow(dst.locally_owned_size() == src.locally_owned_size(),
                  dealii::ExcMessage("plastix: host and device vector layouts differ"));
      backend::copy_to_host(dst.begin(), src.device_data(), src.locally_owned_size() * sizeof(double));
    }

    void
    copy_from_trilinos(const dealii::TrilinosWrappers::MPI::Vector &src, DeviceVector &dst)
    {
      AssertThrow(dst.locally_owned_size() == src.locally_owned_size(),
                  dealii::ExcMessage("plastix: host and device vector layouts differ"));
      backend::copy_to_device(dst.device_data(), src.begin(), dst.locally_owned_size() * sizeof(double));
    }

    double
    dense_inverse_setup_estimate(const dealii::types::global_dof_index n)
    {
      const double entries = static_cast<double>(n) * static_cast<double>(n);
      return backend::DenseInverse::can_factorize() ? 3.5e-9 * entries + 0.2 : 1e-9 * entries * static_cast<double>(n);
    }
  } // namespace internal
} // namespace plastix
