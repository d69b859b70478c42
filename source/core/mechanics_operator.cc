// deal.II adapter: DoFHandler, constraints and materials -> backend data.
#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/trilinos_sparsity_pattern.h>

#include <plastix/backend/plasticity.h>
#include <plastix/backend/vector_operations.h>
#include <plastix/core/collective_failure.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/material/plasticity.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace plastix
{
  namespace ops = backend::vector_operations;

  namespace
  {
    /**
     * A closed AffineConstraints has folded the weights of hanging-node
     * lines on Dirichlet DoFs into inhomogeneities. deal.II's hanging-node
     * constraints of the same DoFHandler give them back, so that condense()
     * can pass the force of such a hanging node on to the clamped DoFs (the
     * reactions), as the unconstrained virtual work says.
     */
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

    /** The mapping, element and constraints that the operator takes; std::invalid_argument otherwise. */
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

    /**
     * The DoFs of the operator on this process besides the owned ones: the
     * DoFs of the owned cells (of the ghost cells too with @p
     * applies_ghost_cells) and the DoFs that their constraint lines depend
     * on, with deal.II's hanging-node constraints of the active mesh (not
     * closed with the Dirichlet lines: their weights on Dirichlet DoFs, for
     * add_dirichlet_weights()).
     */
    struct LocalDofs
    {
      /** The DoFs of the cells the operator visits. */
      dealii::IndexSet active;
      /** The DoFs that constraint lines of active DoFs depend on. */
      dealii::IndexSet line_columns;
      /** Hanging-node constraints of the active mesh; empty without lines or on a level. */
      dealii::AffineConstraints<double> hanging;
    };

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

    /**
     * Collects the cells that the operator visits into backend::MeshData:
     * the local node of each vertex, the coordinates, the material index and
     * stiffness factor, and the boundary springs' face matrices as (row,
     * column, value) of local DoFs.
     */
    class CellCollector
    {
    public:
      /** The material id and stiffness factor of a ghost cell, from its owner. */
      using GivenCellData = std::pair<unsigned int, float>;

      CellCollector(const dealii::Mapping<3>                     &mapping,
                    const dealii::DoFHandler<3>                  &dof_handler,
                    const dealii::Utilities::MPI::Partitioner    &partitioner,
                    const MaterialTable                          &materials,
                    const MechanicsOperator::AdditionalData      &additional_data,
                    const unsigned int                            level,
                    const bool                                    applies_ghost_cells,
                    backend::MeshData                            &mesh)
        : partitioner(partitioner)
        , additional_data(additional_data)
        , level(level)
        , on_level(level != dealii::numbers::invalid_unsigned_int)
        , mesh(mesh)
        , dof_indices(24)
      {
        const dealii::FiniteElement<3> &fe = dof_handler.get_fe();
        for (unsigned int i = 0; i < 24; ++i)
          {
            const auto [component, vertex] = fe.system_to_component_index(i);
            cell_dof[vertex][component]    = i;
          }
        for (const auto &[id, material] : materials)
          {
            material_index[id] = mesh.materials.size();
            mesh.materials.push_back(material);
          }
        const dealii::Triangulation<3> &triangulation = dof_handler.get_triangulation();
        // At most the mesh's cells of that level, or its active cells (ghost and artificial ones included).
        const std::size_t max_cells = on_level ? triangulation.n_cells(level) : triangulation.n_active_cells();
        mesh.cell_nodes.reserve(8 * max_cells);
        mesh.cell_material.reserve(max_cells);
        if (additional_data.cell_stiffness_factor)
          mesh.cell_factors.reserve(max_cells);
        touched.assign(mesh.node_coordinates.size(), false);
        // The factors of the owned level cells by their index on the level,
        // for their ghost copies on other ranks: the callback runs once per cell.
        if (applies_ghost_cells && additional_data.cell_stiffness_factor)
          owned_level_factors.assign(triangulation.n_raw_cells(level), 1.f);
        if (!additional_data.boundary_springs.empty())
          {
            spring_face_values = std::make_unique<dealii::FEFaceValues<3>>(mapping, fe, dealii::QGauss<2>(2),
                                                                           boundary_spring_update_flags());
            spring_matrix.reinit(24, 24);
          }
      }

      /** Add @p cell (@p given: a ghost cell's data from its owner, null for an owned cell). */
      template <typename CellIterator>
      void
      add(const CellIterator &cell, const GivenCellData *given)
      {
        if (on_level)
          cell->get_mg_dof_indices(dof_indices);
        else
          cell->get_dof_indices(dof_indices);
        add_vertices(cell);
        if (spring_face_values)
          add_springs(cell);
        const auto it = material_index.find(given != nullptr ? given->first : cell->material_id());
        if (it == material_index.end())
          throw std::invalid_argument("plastix::MechanicsOperator: no material given for "
                                      "material id " +
                                      std::to_string(given != nullptr ? given->first : cell->material_id()) +
                                      (on_level ? " (on multigrid level " + std::to_string(level) +
                                                    "; a level cell has its own material id, which its children inherit when refined)" :
                                                  std::string()));
        mesh.cell_material.push_back(it->second);
        if (additional_data.cell_stiffness_factor && given != nullptr)
          mesh.cell_factors.push_back(given->second);
        else if (additional_data.cell_stiffness_factor)
          add_stiffness_factor(cell);
      }

      /** The stiffness factor of the owned level cell @p cell_index for its ghost copies (1 if none). */
      float
      owned_level_factor(const unsigned int cell_index) const
      {
        return owned_level_factors.empty() ? 1.f : owned_level_factors[cell_index];
      }

      /**
       * Move the springs' entries into MeshData: a DoF pair on the edge of
       * two spring faces comes once per face, so sort, then sum the entries
       * of equal pairs.
       */
      void
      finish_springs()
      {
        std::sort(spring_entries.begin(), spring_entries.end(), [](const SpringEntry &a, const SpringEntry &b) {
          return a.row < b.row || (a.row == b.row && a.column < b.column);
        });
        for (const SpringEntry &entry : spring_entries)
          if (!mesh.spring_rows.empty() && mesh.spring_rows.back() == entry.row &&
              mesh.spring_columns.back() == entry.column)
            mesh.spring_values.back() += entry.value;
          else
            {
              mesh.spring_rows.push_back(entry.row);
              mesh.spring_columns.push_back(entry.column);
              mesh.spring_values.push_back(entry.value);
            }
        spring_entries = {};
      }

      /** Whether a cell has local DoF @p i. */
      std::vector<bool> touched;
      /** The first invalid stiffness factor, reported after the collective set-up on every rank. */
      std::string factor_error;

    private:
      template <typename CellIterator>
      void
      add_vertices(const CellIterator &cell)
      {
        for (unsigned int v = 0; v < 8; ++v)
          {
            const std::size_t l0 = partitioner.global_to_local(dof_indices[cell_dof[v][0]]);
            const std::size_t l1 = partitioner.global_to_local(dof_indices[cell_dof[v][1]]);
            const std::size_t l2 = partitioner.global_to_local(dof_indices[cell_dof[v][2]]);
            if (l0 % 3 != 0 || l1 != l0 + 1 || l2 != l0 + 2)
              throw std::invalid_argument(
                "plastix::MechanicsOperator: the DoFs x, y, z of a vertex must have "
                "consecutive indices (deal.II's default numbering); got " +
                std::to_string(dof_indices[cell_dof[v][0]]) + ", " + std::to_string(dof_indices[cell_dof[v][1]]) +
                ", " + std::to_string(dof_indices[cell_dof[v][2]]));
            const std::size_t node = l0 / 3;
            mesh.cell_nodes.push_back(node);
            for (unsigned int d = 0; d < 3; ++d)
              mesh.node_coordinates[3 * node + d] = cell->vertex(v)[d];
            touched[l0] = touched[l1] = touched[l2] = true;
          }
      }

      template <typename CellIterator>
      void
      add_springs(const CellIterator &cell)
      {
        spring_matrix = 0;
        if (add_boundary_spring_matrices(*spring_face_values, cell, additional_data.boundary_springs, spring_matrix))
          for (unsigned int i = 0; i < 24; ++i)
            for (unsigned int j = 0; j < 24; ++j)
              if (spring_matrix(i, j) != 0.)
                spring_entries.push_back(
                  {static_cast<backend::LocalIndex>(partitioner.global_to_local(dof_indices[i])),
                   static_cast<backend::LocalIndex>(partitioner.global_to_local(dof_indices[j])),
                   spring_matrix(i, j)});
      }

      template <typename CellIterator>
      void
      add_stiffness_factor(const CellIterator &cell)
      {
        const double factor =
          additional_data.cell_stiffness_factor(dealii::TriaIterator<dealii::CellAccessor<3>>(cell));
        // What the device takes as a stiffness factor (MeshData::cell_factors, one float).
        const bool good = factor > 0 && std::isfinite(factor) && factor < std::numeric_limits<float>::max();
        if (!good && factor_error.empty())
          factor_error = "plastix::MechanicsOperator: the stiffness factor of cell " + cell->id().to_string() +
                         " is " + std::to_string(factor) + "; it must be finite and positive";
        mesh.cell_factors.push_back(good ? static_cast<float>(factor) : 1.f);
        if (!owned_level_factors.empty())
          owned_level_factors[cell->index()] = mesh.cell_factors.back();
      }

      struct SpringEntry
      {
        backend::LocalIndex row, column;
        double              value;
      };

      const dealii::Utilities::MPI::Partitioner           &partitioner;
      const MechanicsOperator::AdditionalData             &additional_data;
      const unsigned int                                   level;
      const bool                                           on_level;
      backend::MeshData                                   &mesh;
      /** Which cell DoF is component c of vertex v. */
      unsigned int                                         cell_dof[8][3];
      std::map<dealii::types::material_id, std::uint16_t>  material_index;
      std::vector<dealii::types::global_dof_index>         dof_indices;
      std::vector<float>                                   owned_level_factors;
      std::unique_ptr<dealii::FEFaceValues<3>>             spring_face_values;
      dealii::FullMatrix<double>                           spring_matrix;
      std::vector<SpringEntry>                             spring_entries;
    };

    /**
     * The ghost cells of @p level, after the owned ones, with their owners'
     * material ids and stiffness factors (collective).
     */
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

    /** The constrained rows of the owned DoFs and the inhomogeneities of the lines. */
    struct ConstrainedRows
    {
      /** Owned constrained DoFs (Dirichlet and lines) and their prescribed values (0 for lines). */
      std::vector<backend::LocalIndex> owned;
      std::vector<double>              owned_values;
      /** The inhomogeneity of each line with entries. */
      std::vector<double> line_values;
      unsigned long long  n_owned_lines = 0;
    };

    /**
     * Dirichlet lines (no entries) become unit rows (MeshData::constrained_dofs);
     * lines with entries (hanging nodes) the device's C^T A C
     * (MeshData::constraint_*). Both kinds are the constrained rows that
     * set_constrained_zero() clears. Also checks that every local DoF
     * belongs to a cell or is a column of a line.
     */
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

    /** The backend's settings from the adapter's AdditionalData. */
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
  } // namespace

  MechanicsOperator::MechanicsOperator() = default;

  MechanicsOperator::~MechanicsOperator() = default;

  void
  MechanicsOperator::reinit(const dealii::DoFHandler<3>             &dof_handler,
                            const dealii::AffineConstraints<double> &constraints,
                            const MaterialTable                     &materials,
                            const AdditionalData                    &additional_data)
  {
    const dealii::MappingQ<3> mapping(1);
    reinit(mapping, dof_handler, constraints, materials, additional_data);
  }

  void
  MechanicsOperator::reinit(const dealii::Mapping<3>                &mapping,
                            const dealii::DoFHandler<3>             &dof_handler,
                            const dealii::AffineConstraints<double> &constraints,
                            const MaterialTable                     &materials,
                            const AdditionalData                    &additional_data)
  {
    setup(mapping, dof_handler, constraints, materials, dealii::numbers::invalid_unsigned_int, additional_data);
  }

  void
  MechanicsOperator::reinit_level(const dealii::Mapping<3>                &mapping,
                                  const dealii::DoFHandler<3>             &dof_handler,
                                  const dealii::AffineConstraints<double> &level_constraints,
                                  const MaterialTable                     &materials,
                                  const unsigned int                       level,
                                  const AdditionalData                    &additional_data)
  {
    if (level >= dof_handler.get_triangulation().n_global_levels())
      throw std::invalid_argument("plastix::MechanicsOperator::reinit_level: level " + std::to_string(level) +
                                  " does not exist (the mesh has " +
                                  std::to_string(dof_handler.get_triangulation().n_global_levels()) + " levels)");
    if (!dof_handler.has_level_dofs())
      throw std::invalid_argument("plastix::MechanicsOperator::reinit_level: the DoFHandler has no level DoFs "
                                  "(call distribute_mg_dofs(); parallel meshes need the "
                                  "construct_multigrid_hierarchy setting)");
    setup(mapping, dof_handler, level_constraints, materials, level, additional_data);
  }

  void
  MechanicsOperator::setup(const dealii::Mapping<3>                &mapping,
                           const dealii::DoFHandler<3>             &dof_handler,
                           const dealii::AffineConstraints<double> &constraints,
                           const MaterialTable                     &materials,
                           const unsigned int                       level,
                           const AdditionalData                    &additional_data)
  {
    // The state belongs to the cells being replaced.
    disable_plasticity();
    material_table = materials;
    // level == invalid_unsigned_int: the active cells and DoFs; otherwise the
    // cells and level DoFs of that multigrid level.
    const bool on_level = level != dealii::numbers::invalid_unsigned_int;
    const dealii::Triangulation<3> &triangulation = dof_handler.get_triangulation();
    const bool                      distributed =
      dynamic_cast<const dealii::parallel::DistributedTriangulationBase<3> *>(&triangulation) != nullptr;
    if (additional_data.shared_rows == SharedRows::ghost_cells && (!on_level || !distributed))
      throw std::invalid_argument("plastix::MechanicsOperator: SharedRows::ghost_cells needs a multigrid level "
                                  "(reinit_level()) of a parallel::distributed mesh");
    applies_ghost_cells =
      on_level && additional_data.shared_rows != SharedRows::partial_sums && distributed &&
      dealii::Utilities::MPI::n_mpi_processes(dof_handler.get_communicator()) > 1;
    check_discretization(mapping, dof_handler.get_fe(), constraints);

    // Local DoF index layout: owned, then the ghosts of the owned cells (of
    // the ghost cells too under SharedRows::ghost_cells) and the DoFs that
    // hanging-node lines of their DoFs depend on.
    const dealii::IndexSet &owned = on_level ? dof_handler.locally_owned_mg_dofs(level) : dof_handler.locally_owned_dofs();
    LocalDofs               dofs;
    find_local_dofs(dof_handler, constraints, level, applies_ghost_cells, dofs);
    dealii::IndexSet ghosts = dofs.active;
    ghosts.add_indices(dofs.line_columns);
    ghosts.subtract_set(owned);
    partitioner = std::make_shared<dealii::Utilities::MPI::Partitioner>(owned, ghosts, dof_handler.get_communicator());

    // A failure on one rank must stop every rank, none left waiting in a
    // collective step below (also a user's stiffness-factor callback that
    // throws): the local steps run guarded, the collective ones on every
    // rank, and all ranks throw at the end.
    internal::CollectiveFailure failures("plastix::MechanicsOperator (set-up)");

    const std::size_t n_local = partitioner->locally_owned_size() + partitioner->n_ghost_indices();
    failures.guard([&] {
      if (partitioner->locally_owned_size() % 3 != 0 || n_local % 3 != 0)
        throw std::invalid_argument(
          "plastix::MechanicsOperator: the three DoFs of each vertex must be numbered "
          "consecutively (deal.II's default numbering); was the DoFHandler renumbered "
          "component-wise?");
    });

    backend::MeshData mesh;
    mesh.n_nodes       = n_local / 3;
    mesh.n_owned_nodes = partitioner->locally_owned_size() / 3;
    mesh.node_coordinates.assign(n_local, 0.);
    mesh.constrained_dofs.assign(n_local, 0);
    CellCollector cells(mapping, dof_handler, *partitioner, materials, additional_data, level, applies_ghost_cells,
                        mesh);
    failures.guard([&] {
      if (on_level)
        {
          for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
            if (cell->is_locally_owned_on_level())
              cells.add(cell, nullptr);
        }
      else
        for (const auto &cell : dof_handler.active_cell_iterators())
          if (cell->is_locally_owned())
            cells.add(cell, nullptr);
    });
    n_owned_cells = mesh.cell_material.size();
    if (applies_ghost_cells)
      add_ghost_level_cells(dof_handler, level, cells, failures);
    cells.finish_springs();

    ConstrainedRows rows;
    failures.guard([&] {
      collect_constraint_lines(constraints, *partitioner, dofs, cells.touched, mesh, rows);
      constrained_owned_dofs   = backend::DeviceArray<backend::LocalIndex>(rows.owned, "constrained dofs");
      constrained_owned_values = backend::DeviceArray<double>(rows.owned_values, "prescribed values");
      line_inhomogeneities     = backend::DeviceArray<double>(rows.line_values, "hanging-node inhomogeneities");
    });
    n_global_constraint_lines =
      dealii::Utilities::MPI::sum<unsigned long long>(rows.n_owned_lines, dof_handler.get_communicator());

    if (cells.factor_error.empty())
      failures.guard([&] {
        device_operator = std::make_unique<backend::MechanicsOperator>(mesh, backend_settings(additional_data));
      });
    // A bad cell or any failure on one rank stops every rank.
    try
      {
        failures.throw_on_every_rank(partitioner->get_mpi_communicator(), cells.factor_error);
      }
    catch (...)
      {
        device_operator.reset();
        throw;
      }
    cached_diagonal.reset();
    temporary.reinit(partitioner);
  }

  template <typename Number>
  void
  MechanicsOperator::vmult(device::Vector<Number> &dst, const device::Vector<Number> &src) const
  {
    src.update_ghost_values();
    if (dst.get_partitioner() != partitioner)
      dst.reinit(partitioner, true);
    device_operator->apply(src.device_data(), dst.device_data());
    complete_owned_rows(dst);
  }

  template <typename Number>
  void
  MechanicsOperator::complete_owned_rows(device::Vector<Number> &vector) const
  {
    if (applies_ghost_cells)
      vector.zero_out_ghost_values();
    else
      vector.compress(dealii::VectorOperation::add);
  }

  template <typename Number>
  bool
  MechanicsOperator::chebyshev_step(const device::Vector<Number> &x,
                                    const device::Vector<Number> *x_old,
                                    const device::Vector<Number> &rhs,
                                    const device::Vector<Number> &inverse_diagonal,
                                    const double                  factor1,
                                    const double                  factor2,
                                    device::Vector<Number>       &out) const
  {
    // One process: no ghost exchange, so every row is complete after the one kernel.
    if (partitioner->n_mpi_processes() != 1 || !device_operator->fuses_chebyshev_step())
      return false;
    const auto same_layout = [this](const device::Vector<Number> &v) {
      return v.get_partitioner().get() == partitioner.get() ||
             v.get_partitioner()->locally_owned_range() == partitioner->locally_owned_range();
    };
    if (!same_layout(x) || !same_layout(rhs) || !same_layout(inverse_diagonal) || !same_layout(out) ||
        (x_old != nullptr && !same_layout(*x_old)))
      return false;
    device_operator->chebyshev_step(x.device_data(),
                                    x_old != nullptr ? x_old->device_data() : nullptr,
                                    rhs.device_data(),
                                    inverse_diagonal.device_data(),
                                    factor1,
                                    factor2,
                                    out.device_data());
    return true;
  }

  template <typename Number>
  void
  MechanicsOperator::Tvmult(device::Vector<Number> &dst, const device::Vector<Number> &src) const
  {
    vmult(dst, src);
  }

  template <typename Number>
  void
  MechanicsOperator::vmult_add(device::Vector<Number> &dst, const device::Vector<Number> &src) const
  {
    auto &product = [this]() -> device::Vector<Number> & {
      if constexpr (std::is_same<Number, float>::value)
        return temporary_float;
      else
        return temporary;
    }();
    vmult(product, src);
    dst.add(Number(1), product);
  }

  template <typename Number>
  void
  MechanicsOperator::Tvmult_add(device::Vector<Number> &dst, const device::Vector<Number> &src) const
  {
    vmult_add(dst, src);
  }

  MechanicsOperator::size_type
  MechanicsOperator::m() const
  {
    return partitioner->size();
  }

  MechanicsOperator::size_type
  MechanicsOperator::n() const
  {
    return partitioner->size();
  }

  double
  MechanicsOperator::el(const size_type i, const size_type j) const
  {
    if (i != j)
      throw std::logic_error("plastix::MechanicsOperator::el: off-diagonal entries are not "
                             "available from a matrix-free operator");
    if (!cached_diagonal)
      {
        cached_diagonal = std::make_unique<DeviceVector>();
        compute_diagonal(*cached_diagonal);
      }
    return (*cached_diagonal)(i);
  }

  template <typename Number>
  void
  MechanicsOperator::initialize_dof_vector(device::Vector<Number> &vector) const
  {
    vector.reinit(partitioner);
  }

  void
  MechanicsOperator::copy_matrix(dealii::TrilinosWrappers::SparseMatrix &matrix) const
  {
    AssertThrow(device_operator, dealii::ExcMessage("plastix::MechanicsOperator::copy_matrix(): not initialized"));
    if (n_global_constraint_lines > 0)
      throw std::logic_error("plastix::MechanicsOperator::copy_matrix(): the mesh has hanging-node constraints; the "
                             "device matrix is the cells' matrix before their condensation");
    const backend::CsrMatrix local = device_operator->copy_matrix();
    const auto              &p     = *partitioner;
    const std::size_t        n_local = local.row_offsets.size() - 1;
    std::vector<dealii::types::global_dof_index> global(n_local);
    for (std::size_t i = 0; i < n_local; ++i)
      global[i] = p.local_to_global(i);
    dealii::IndexSet relevant = p.locally_owned_range();
    relevant.add_indices(p.ghost_indices());

    // Every local row, ghost rows included: their partial sums go to the
    // owners; with ghost cells the owned rows only, which are complete.
    const std::size_t n_rows = applies_ghost_cells ? p.locally_owned_size() : n_local;
    dealii::TrilinosWrappers::SparsityPattern sparsity(p.locally_owned_range(), p.locally_owned_range(), relevant,
                                                       p.get_mpi_communicator());
    std::vector<dealii::types::global_dof_index> columns;
    for (std::size_t i = 0; i < n_rows; ++i)
      {
        columns.clear();
        for (auto k = local.row_offsets[i]; k < local.row_offsets[i + 1]; ++k)
          columns.push_back(global[local.columns[k]]);
        sparsity.add_entries(global[i], columns.begin(), columns.end());
      }
    sparsity.compress();
    matrix.reinit(sparsity);
    for (std::size_t i = 0; i < n_rows; ++i)
      {
        columns.clear();
        for (auto k = local.row_offsets[i]; k < local.row_offsets[i + 1]; ++k)
          columns.push_back(global[local.columns[k]]);
        const auto first = local.row_offsets[i];
        matrix.add(global[i], columns.size(), columns.data(), local.values.data() + first, false);
      }
    for (const auto i : constrained_owned_dofs.to_host())
      matrix.add(global[i], global[i], 1.);
    matrix.compress(dealii::VectorOperation::add);
  }

  void
  MechanicsOperator::compute_diagonal(DeviceVector &diagonal) const
  {
    diagonal.reinit(partitioner, true);
    device_operator->compute_diagonal(diagonal.device_data());
    complete_owned_rows(diagonal);
  }

  template <typename Number>
  void
  MechanicsOperator::compute_inverse_diagonal(device::Vector<Number> &inverse_diagonal) const
  {
    if constexpr (std::is_same<Number, double>::value)
      {
        compute_diagonal(inverse_diagonal);
        ops::invert_diagonal(inverse_diagonal.locally_owned_size(), inverse_diagonal.device_data());
      }
    else
      {
        DeviceVector inverse;
        compute_inverse_diagonal(inverse);
        inverse_diagonal.copy_converted(1., inverse);
      }
  }

  void
  MechanicsOperator::set_constrained_values(DeviceVector &u, const double scale) const
  {
    // u_c = scale g_c on the constrained entries only.
    ops::assign_entries(constrained_owned_dofs.size(),
                        constrained_owned_dofs.data(),
                        constrained_owned_values.data(),
                        u.device_data(),
                        scale);
    distribute_hanging_nodes(u, scale);
  }

  void
  MechanicsOperator::distribute_hanging_nodes(DeviceVector &u, const double scale) const
  {
    if (device_operator->n_constraint_lines() == 0)
      return;
    u.update_ghost_values();
    device_operator->distribute_constraint_lines(u.device_data(), line_inhomogeneities.data(), scale);
  }

  void
  MechanicsOperator::condense(DeviceVector &force) const
  {
    if (n_global_constraint_lines == 0)
      return;
    // Ghost rows hold nothing of an assembled vector; the owned rows of
    // constrained DoFs go to the DoFs they depend on (owned or ghost).
    force.zero_out_ghost_values();
    device_operator->condense(force.device_data());
    force.compress(dealii::VectorOperation::add);
  }

  void
  MechanicsOperator::compute_internal_force(const DeviceVector &u, DeviceVector &force) const
  {
    if (has_plasticity())
      throw std::logic_error("plastix::MechanicsOperator::compute_internal_force: the operator has a plasticity "
                             "state; PlasticityState::update() computes the internal force");
    if (force.get_partitioner() != partitioner)
      force.reinit(partitioner, true);
    u.update_ghost_values();
    device_operator->apply_unconstrained(u.device_data(), force.device_data());
    complete_owned_rows(force);
  }

  void
  MechanicsOperator::set_constrained_zero(DeviceVector &u) const
  {
    ops::set_entries(constrained_owned_dofs.size(), constrained_owned_dofs.data(), 0., u.device_data());
  }

  void
  MechanicsOperator::lift_inhomogeneities(DeviceVector &rhs, const double scale) const
  {
    DeviceVector g(partitioner);
    set_constrained_values(g, scale);
    g.update_ghost_values();
    device_operator->apply_unconstrained(g.device_data(), temporary.device_data());
    complete_owned_rows(temporary);
    rhs.add(-1., temporary);
    // Constrained rows carry the prescribed value (unit diagonal).
    ops::copy_entries(constrained_owned_dofs.size(), constrained_owned_dofs.data(),
                      g.device_data(), rhs.device_data());
  }

  std::vector<double>
  MechanicsOperator::cell_average_strain(const DeviceVector &u) const
  {
    u.update_ghost_values();
    std::vector<double> result(6 * static_cast<std::size_t>(device_operator->n_cells()));
    device_operator->cell_average_strain(u.device_data(), result.data());
    // The owned cells come first; ghost cells (SharedRows::ghost_cells) are not the caller's.
    result.resize(6 * static_cast<std::size_t>(n_owned_cells));
    return result;
  }

  PlasticityState &
  MechanicsOperator::enable_plasticity()
  {
    if (device_operator == nullptr)
      throw std::logic_error("plastix::MechanicsOperator::enable_plasticity: call reinit() first");
    if (applies_ghost_cells)
      throw std::logic_error("plastix::MechanicsOperator::enable_plasticity: a level operator that applies its ghost "
                             "cells (SharedRows::ghost_cells) carries no plasticity; use SharedRows::partial_sums");
    disable_plasticity();
    backend::PlasticityState &state = device_operator->create_plasticity_state();
    plasticity_state.reset(new PlasticityState(*this, state));
    cached_diagonal.reset();
    return *plasticity_state;
  }

  void
  MechanicsOperator::disable_plasticity()
  {
    plasticity_state.reset();
    if (device_operator != nullptr)
      device_operator->release_plasticity_state();
    cached_diagonal.reset();
  }

  bool
  MechanicsOperator::has_plasticity() const
  {
    return plasticity_state != nullptr;
  }

  bool
  MechanicsOperator::has_symmetric_tangent() const
  {
    return device_operator == nullptr || device_operator->has_symmetric_tangent();
  }

  PlasticityState &
  MechanicsOperator::plasticity()
  {
    if (plasticity_state == nullptr)
      throw std::logic_error("plastix::MechanicsOperator: no plasticity state (call enable_plasticity())");
    return *plasticity_state;
  }

  const PlasticityState &
  MechanicsOperator::plasticity() const
  {
    if (plasticity_state == nullptr)
      throw std::logic_error("plastix::MechanicsOperator: no plasticity state (call enable_plasticity())");
    return *plasticity_state;
  }

  void
  MechanicsOperator::use_tangent(const bool tangent)
  {
    if (device_operator != nullptr)
      device_operator->use_tangent(tangent);
    cached_diagonal.reset();
  }

  void
  MechanicsOperator::tangent_changed()
  {
    device_operator->update_tangent();
    cached_diagonal.reset();
  }

  const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &
  MechanicsOperator::get_partitioner() const
  {
    return partitioner;
  }

  const backend::MechanicsOperator &
  MechanicsOperator::backend_operator() const
  {
    return *device_operator;
  }

  unsigned int
  MechanicsOperator::n_locally_owned_cells() const
  {
    return n_owned_cells;
  }

  std::size_t
  MechanicsOperator::memory_consumption() const
  {
    return device_operator->memory_consumption() + constrained_owned_dofs.memory_consumption() +
           constrained_owned_values.memory_consumption() + line_inhomogeneities.memory_consumption() +
           temporary.memory_consumption();
  }

  std::string
  MechanicsOperator::description() const
  {
    if (n_global_constraint_lines == 0)
      return device_operator->description();
    return device_operator->description() + ", " + std::to_string(n_global_constraint_lines) +
           " hanging-node constraints (C^T A C on the device)";
  }

  dealii::types::global_dof_index
  MechanicsOperator::n_hanging_node_constraints() const
  {
    return n_global_constraint_lines;
  }

#define PLASTIX_INSTANTIATE(Number)                                                                            \
  template void MechanicsOperator::vmult(device::Vector<Number> &, const device::Vector<Number> &) const;      \
  template void MechanicsOperator::Tvmult(device::Vector<Number> &, const device::Vector<Number> &) const;     \
  template bool MechanicsOperator::chebyshev_step(const device::Vector<Number> &,                              \
                                                  const device::Vector<Number> *,                              \
                                                  const device::Vector<Number> &,                              \
                                                  const device::Vector<Number> &,                              \
                                                  double,                                                      \
                                                  double,                                                      \
                                                  device::Vector<Number> &) const;                             \
  template void MechanicsOperator::vmult_add(device::Vector<Number> &, const device::Vector<Number> &) const;  \
  template void MechanicsOperator::Tvmult_add(device::Vector<Number> &, const device::Vector<Number> &) const; \
  template void MechanicsOperator::initialize_dof_vector(device::Vector<Number> &) const;                      \
  template void MechanicsOperator::compute_inverse_diagonal(device::Vector<Number> &) const;
  PLASTIX_INSTANTIATE(double)
  PLASTIX_INSTANTIATE(float)
#undef PLASTIX_INSTANTIATE
} // namespace plastix
