// The adapter's extraction of backend::MeshData from deal.II objects (operator_mesh_data.h).
#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_tools.h>

#include "operator_mesh_data.h"

#include <optional>
#include <stdexcept>

namespace plastix
{
  namespace internal
  {
    void
    add_dirichlet_weights(const dealii::AffineConstraints<double>   &hanging,
                          const dealii::Utilities::MPI::Partitioner &partitioner,
                          backend::MeshData                         &mesh)
    {
      mesh.dirichlet_offsets.assign(1, 0);
      for (const backend::LocalIndex row : mesh.constraint_rows)
        {
          const auto global = partitioner.local_to_global(row);
          if (const auto *entries = hanging.get_constraint_entries(global))
            for (const auto &[column, weight] : *entries)
              if (partitioner.in_local_range(column) || partitioner.is_ghost_entry(column))
                {
                  const auto local = partitioner.global_to_local(column);
                  if (mesh.constrained_dofs[local])
                    {
                      mesh.dirichlet_columns.push_back(local);
                      mesh.dirichlet_weights.push_back(weight);
                    }
                }
          mesh.dirichlet_offsets.push_back(mesh.dirichlet_columns.size());
        }
      if (mesh.dirichlet_columns.empty())
        mesh.dirichlet_offsets.clear();
    }

    void
    check_discretization(const dealii::Mapping<3>                &mapping,
                         const dealii::FiniteElement<3>          &fe,
                         const dealii::AffineConstraints<double> &constraints)
    {
      const auto *mapping_q = dynamic_cast<const dealii::MappingQ<3> *>(&mapping);
      if (mapping_q == nullptr || mapping_q->get_degree() != 1)
        throw std::invalid_argument(
          "plastix::MechanicsOperator: only the trilinear mapping (MappingQ(1)) is "
          "supported; the geometry is computed from the cell vertices");
      if (fe.n_components() != 3 || fe.n_dofs_per_cell() != 24 || fe.degree != 1 ||
          fe.n_base_elements() != 1 || fe.base_element(0).get_name() != "FE_Q<3>(1)")
        throw std::invalid_argument(
          "plastix::MechanicsOperator needs FESystem(FE_Q(1), 3); got " + fe.get_name());
      if (!constraints.is_closed())
        throw std::invalid_argument("plastix::MechanicsOperator: the AffineConstraints are not closed "
                                    "(call close() after adding all constraints)");
    }

    void
    find_local_dofs(const dealii::DoFHandler<3>             &dof_handler,
                    const dealii::AffineConstraints<double> &constraints,
                    const unsigned int                       level,
                    const bool                               applies_ghost_cells,
                    LocalDofs                               &dofs)
    {
      const bool on_level = level != dealii::numbers::invalid_unsigned_int;
      // A serial mesh: every cell is owned, so every DoF is active and owned
      // (deal.II's search visits every cell).
      if (dynamic_cast<const dealii::parallel::TriangulationBase<3> *>(&dof_handler.get_triangulation()) == nullptr)
        dofs.active = on_level ? dof_handler.locally_owned_mg_dofs(level) : dof_handler.locally_owned_dofs();
      else if (applies_ghost_cells)
        dealii::DoFTools::extract_locally_relevant_level_dofs(dof_handler, level, dofs.active);
      else if (on_level)
        dealii::DoFTools::extract_locally_active_level_dofs(dof_handler, dofs.active, level);
      else
        dealii::DoFTools::extract_locally_active_dofs(dof_handler, dofs.active);
      bool has_lines = false;
      for (const auto i : dofs.active)
        if (const auto *entries = constraints.get_constraint_entries(i))
          has_lines = has_lines || !entries->empty();
      if (has_lines && !on_level)
        {
          dealii::IndexSet relevant;
          dealii::DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
          dofs.hanging.reinit(relevant);
          dealii::DoFTools::make_hanging_node_constraints(dof_handler, dofs.hanging);
          dofs.hanging.close();
        }
      auto is_dirichlet = [&](const dealii::types::global_dof_index i) {
        const auto *entries = constraints.get_constraint_entries(i);
        return constraints.is_constrained(i) && (entries == nullptr || entries->empty());
      };
      std::vector<dealii::types::global_dof_index> columns;
      for (const auto i : dofs.active)
        if (const auto *entries = constraints.get_constraint_entries(i))
          if (!entries->empty())
            {
              for (const auto &entry : *entries)
                columns.push_back(entry.first);
              if (const auto *raw = dofs.hanging.get_constraint_entries(i))
                for (const auto &entry : *raw)
                  if (is_dirichlet(entry.first))
                    columns.push_back(entry.first);
            }
      std::sort(columns.begin(), columns.end());
      columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
      dofs.line_columns = dealii::IndexSet(dofs.active.size());
      dofs.line_columns.add_indices(columns.begin(), columns.end());
    }

    void
    add_ghost_level_cells(const dealii::DoFHandler<3>  &dof_handler,
                          const unsigned int            level,
                          CellCollector                &cells,
                          internal::CollectiveFailure  &failures)
    {
      using CellData  = CellCollector::GivenCellData;
      using LevelCell = dealii::Triangulation<3>::level_cell_iterator;
      std::map<dealii::CellId, CellData> ghost_data;
      dealii::GridTools::exchange_cell_data_to_level_ghosts<CellData, dealii::Triangulation<3>>(
        dof_handler.get_triangulation(),
        [&](const LevelCell &cell) {
          // A bad factor is reported by the owner; the ghost copy takes 1.
          return std::optional<CellData>(CellData(cell->material_id(), cells.owned_level_factor(cell->index())));
        },
        [&](const LevelCell &cell, const CellData &data) { ghost_data[cell->id()] = data; },
        [&](const LevelCell &cell) { return cell->level() == static_cast<int>(level); });
      failures.guard([&] {
        for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
          if (cell->is_ghost_on_level())
            {
              const auto data = ghost_data.find(cell->id());
              if (data == ghost_data.end())
                throw std::logic_error("plastix::MechanicsOperator: ghost cell " + cell->id().to_string() +
                                       " of level " + std::to_string(level) + " got no data from its owner");
              cells.add(cell, &data->second);
            }
      });
    }

    void
    collect_constraint_lines(const dealii::AffineConstraints<double>   &constraints,
                             const dealii::Utilities::MPI::Partitioner &partitioner,
                             const LocalDofs                           &dofs,
                             const std::vector<bool>                   &touched,
                             backend::MeshData                         &mesh,
                             ConstrainedRows                           &rows)
    {
      const std::size_t n_local = partitioner.locally_owned_size() + partitioner.n_ghost_indices();
      // DoFs outside the owned cells are DoFs that hanging-node lines depend
      // on; any other one means the index sets do not fit the mesh.
      for (std::size_t i = 0; i < n_local; ++i)
        if (!touched[i] && !dofs.line_columns.is_element(partitioner.local_to_global(i)))
          throw std::invalid_argument("plastix::MechanicsOperator: DoF " +
                                      std::to_string(partitioner.local_to_global(i)) +
                                      " belongs to no locally owned cell");
      mesh.constraint_offsets.push_back(0);
      for (std::size_t i = 0; i < n_local; ++i)
        {
          const auto global = partitioner.local_to_global(i);
          if (!constraints.is_constrained(global))
            continue;
          const bool  owned   = i < partitioner.locally_owned_size();
          const auto *entries = constraints.get_constraint_entries(global);
          if (entries == nullptr || entries->empty())
            {
              mesh.constrained_dofs[i] = 1;
              if (owned)
                {
                  rows.owned.push_back(i);
                  rows.owned_values.push_back(constraints.get_inhomogeneity(global));
                }
              continue;
            }
          mesh.constraint_rows.push_back(i);
          for (const auto &[column, weight] : *entries)
            {
              if (!partitioner.in_local_range(column) && !partitioner.is_ghost_entry(column))
                throw std::invalid_argument("plastix::MechanicsOperator: DoF " + std::to_string(global) +
                                            " is constrained to DoF " + std::to_string(column) +
                                            ", which is not locally relevant (build the constraints "
                                            "on the locally relevant DoFs)");
              if (constraints.is_constrained(column))
                throw std::invalid_argument("plastix::MechanicsOperator: DoF " + std::to_string(global) +
                                            " is constrained to DoF " + std::to_string(column) +
                                            ", which is constrained itself");
              mesh.constraint_columns.push_back(partitioner.global_to_local(column));
              mesh.constraint_weights.push_back(weight);
            }
          mesh.constraint_offsets.push_back(mesh.constraint_columns.size());
          rows.line_values.push_back(constraints.get_inhomogeneity(global));
          if (owned)
            {
              rows.owned.push_back(i);
              rows.owned_values.push_back(0.);
              ++rows.n_owned_lines;
            }
        }
      if (mesh.constraint_rows.empty())
        mesh.constraint_offsets.clear();
      else if (dofs.hanging.n_constraints() > 0)
        add_dirichlet_weights(dofs.hanging, partitioner, mesh);
    }

    backend::OperatorSettings
    backend_settings(const MechanicsOperator::AdditionalData &additional_data)
    {
      backend::OperatorSettings settings;
      settings.strategy            = additional_data.strategy;
      settings.cell_kernel         = additional_data.cell_kernel;
      settings.thread_mapping      = additional_data.thread_mapping;
      settings.element_formulation = additional_data.element_formulation;
      return settings;
    }
  } // namespace internal
} // namespace plastix
