// The adapter's extraction of backend::MeshData from deal.II objects:
// checks of the discretization, the local DoFs, the cells (nodes,
// coordinates, materials, stiffness factors, springs) and the constraint
// lines (internal to source/core/mechanics_operator.cc and this file's
// source).
#ifndef PLASTIX_SOURCE_CORE_OPERATOR_MESH_DATA_H
#define PLASTIX_SOURCE_CORE_OPERATOR_MESH_DATA_H

#include <deal.II/base/partitioner.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/full_matrix.h>

#include <plastix/backend/device_operator.h>
#include <plastix/backend/mesh_data.h>
#include <plastix/core/boundary_springs.h>
#include <plastix/core/collective_failure.h>
#include <plastix/core/mass_matrix.h>
#include <plastix/core/mechanics_operator.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace plastix
{
  namespace internal
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
                          backend::MeshData                         &mesh);

    /** The mapping, element and constraints that the operator takes; std::invalid_argument otherwise. */
    void
    check_discretization(const dealii::Mapping<3>                &mapping,
                         const dealii::FiniteElement<3>          &fe,
                         const dealii::AffineConstraints<double> &constraints);

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
                    LocalDofs                               &dofs);

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
        if (additional_data.mass_matrix != MassMatrix::none)
          {
            for (const auto &[id, material] : materials)
              if (!(material.density > 0.) || !std::isfinite(material.density))
                throw std::invalid_argument("plastix::MechanicsOperator: material id " + std::to_string(id) +
                                            " has density " + std::to_string(material.density) +
                                            "; a mass matrix needs a finite density > 0");
            mass_values = std::make_unique<dealii::FEValues<3>>(mapping, fe, dealii::QGauss<3>(2),
                                                                dealii::update_values | dealii::update_JxW_values);
            mass_matrix.reinit(24, 24);
            if (additional_data.mass_matrix == MassMatrix::lumped)
              lumped_mass.assign(mesh.node_coordinates.size(), 0.);
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
        if (mass_values)
          add_mass(cell, mesh.materials[it->second].density);
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
       * Move the entries of the springs and of the mass matrix into
       * MeshData: a DoF pair of two cells or spring faces comes once for
       * each, so sort, then sum the entries of equal pairs; the lumped mass
       * is already summed per DoF.
       */
      void
      finish_sparse_terms()
      {
        merge_entries(spring_entries, mesh.spring_rows, mesh.spring_columns, mesh.spring_values);
        merge_entries(mass_entries, mesh.mass_rows, mesh.mass_columns, mesh.mass_values);
        for (std::size_t dof = 0; dof < lumped_mass.size(); ++dof)
          if (lumped_mass[dof] != 0.)
            {
              mesh.mass_rows.push_back(dof);
              mesh.mass_columns.push_back(dof);
              mesh.mass_values.push_back(lumped_mass[dof]);
            }
        std::vector<double>().swap(lumped_mass);
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
          append_entries(spring_matrix, spring_entries);
      }

      struct MatrixEntry;

      /** The mass matrix of @p cell with @p density (MassMatrix, add_cell_mass_matrix()). */
      template <typename CellIterator>
      void
      add_mass(const CellIterator &cell, const double density)
      {
        mass_values->reinit(dealii::Triangulation<3>::cell_iterator(cell));
        mass_matrix = 0;
        add_cell_mass_matrix(*mass_values, density, additional_data.mass_matrix, 1., mass_matrix);
        // A lumped mass is diagonal: summed per DoF here rather than sorted from cell entries.
        if (!lumped_mass.empty())
          for (unsigned int i = 0; i < 24; ++i)
            lumped_mass[partitioner.global_to_local(dof_indices[i])] += mass_matrix(i, i);
        else
          append_entries(mass_matrix, mass_entries);
      }

      /** The nonzero entries of the cell matrix @p matrix as (row, column, value) of local DoFs. */
      void
      append_entries(const dealii::FullMatrix<double> &matrix, std::vector<MatrixEntry> &entries) const
      {
        for (unsigned int i = 0; i < 24; ++i)
          for (unsigned int j = 0; j < 24; ++j)
            if (matrix(i, j) != 0.)
              entries.push_back({static_cast<backend::LocalIndex>(partitioner.global_to_local(dof_indices[i])),
                                 static_cast<backend::LocalIndex>(partitioner.global_to_local(dof_indices[j])),
                                 matrix(i, j)});
      }

      /**
       * Sort @p entries by row and column, sum the entries of equal pairs
       * (a DoF pair of two cells or faces comes once for each) into (@p rows,
       * @p columns, @p values), and free @p entries.
       */
      static void
      merge_entries(std::vector<MatrixEntry>         &entries,
                    std::vector<backend::LocalIndex> &rows,
                    std::vector<backend::LocalIndex> &columns,
                    std::vector<double>              &values)
      {
        std::sort(entries.begin(), entries.end(), [](const MatrixEntry &a, const MatrixEntry &b) {
          return a.row < b.row || (a.row == b.row && a.column < b.column);
        });
        for (const MatrixEntry &entry : entries)
          if (!rows.empty() && rows.back() == entry.row && columns.back() == entry.column)
            values.back() += entry.value;
          else
            {
              rows.push_back(entry.row);
              columns.push_back(entry.column);
              values.push_back(entry.value);
            }
        entries = {};
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

      struct MatrixEntry
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
      std::vector<MatrixEntry>                             spring_entries;
      std::unique_ptr<dealii::FEValues<3>>                 mass_values;
      dealii::FullMatrix<double>                           mass_matrix;
      std::vector<MatrixEntry>                             mass_entries;
      /** The lumped mass per local DoF (MassMatrix::lumped), until finish_sparse_terms(). */
      std::vector<double>                                  lumped_mass;
    };

    /**
     * The ghost cells of @p level, after the owned ones, with their owners'
     * material ids and stiffness factors (collective).
     */
    void
    add_ghost_level_cells(const dealii::DoFHandler<3>  &dof_handler,
                          const unsigned int            level,
                          CellCollector                &cells,
                          internal::CollectiveFailure  &failures);

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
                             ConstrainedRows                           &rows);

    /** The backend's settings from the adapter's AdditionalData. */
    backend::OperatorSettings
    backend_settings(const MechanicsOperator::AdditionalData &additional_data);
  } // namespace internal
} // namespace plastix

#endif
