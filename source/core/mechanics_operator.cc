// deal.II adapter: DoFHandler, constraints and materials -> backend data.
#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/trilinos_sparsity_pattern.h>

#include <plastix/backend/finite_strain_state.h>
#include <plastix/backend/gauss_point_state.h>
#include <plastix/backend/vector_operations.h>
#include <plastix/core/collective_failure.h>
#include <plastix/core/finite_strain_state.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>

#include "operator_mesh_data.h"

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
     * The largest over the smallest of the stiffness factors of all ranks
     * from each rank's extremes (a rank without cells passes the largest
     * double and 0), in one reduction.
     */
    double
    stiffness_contrast_over_ranks(const double smallest, const double largest, const MPI_Comm communicator)
    {
      const double local[2] = {smallest, -largest};
      double       extremes[2];
      dealii::Utilities::MPI::min(local, communicator, extremes);
      return -extremes[1] > 0. ? -extremes[1] / extremes[0] : 1.;
    }
  } // namespace
  using internal::add_ghost_level_cells;
  using internal::backend_settings;
  using internal::CellCollector;
  using internal::check_discretization;
  using internal::collect_constraint_lines;
  using internal::ConstrainedRows;
  using internal::find_local_dofs;
  using internal::LocalDofs;


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
                           const AdditionalData                    &new_additional_data)
  {
    // The states belong to the cells being replaced.
    disable_plasticity();
    disable_finite_strain();
    material_table  = materials;
    additional_data = new_additional_data;
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
    cells.finish_sparse_terms();

    ConstrainedRows rows;
    failures.guard([&] {
      collect_constraint_lines(constraints, *partitioner, dofs, cells.touched, mesh, rows);
      constrained_owned_dofs   = backend::DeviceArray<backend::LocalIndex>(rows.owned, "constrained dofs");
      constrained_owned_values = backend::DeviceArray<double>(rows.owned_values, "prescribed values");
      line_inhomogeneities     = backend::DeviceArray<double>(rows.line_values, "hanging-node inhomogeneities");
      host_lines = {{}, mesh.constraint_rows, mesh.constraint_offsets, mesh.constraint_columns,
                    mesh.constraint_weights};
      for (std::size_t i = 0; i < n_local; ++i)
        if (mesh.constrained_dofs[i] != 0)
          host_lines.fixed.push_back(i);
    });
    n_global_constraint_lines =
      dealii::Utilities::MPI::sum<unsigned long long>(rows.n_owned_lines, dof_handler.get_communicator());
    // Without a stiffness factor (the same on every rank) no reduction.
    if (additional_data.cell_stiffness_factor)
      {
        // The factors of the owned cells come first (the ghost cells' after them).
        const auto owned_end =
          mesh.cell_factors.begin() + std::min<std::size_t>(n_owned_cells, mesh.cell_factors.size());
        const auto [smallest, largest] = std::minmax_element(mesh.cell_factors.begin(), owned_end);
        stiffness_contrast             = stiffness_contrast_over_ranks(
          smallest == owned_end ? std::numeric_limits<double>::max() : *smallest,
          largest == owned_end ? 0. : *largest, dof_handler.get_communicator());
      }
    else
      stiffness_contrast = 1.;

    if (cells.factor_error.empty())
      failures.guard([&] {
        device_operator = std::make_unique<backend::DeviceOperator>(mesh, backend_settings(additional_data));
        if (additional_data.mass_matrix != MassMatrix::none)
          device_operator->set_mass_factor(additional_data.mass_factor);
        else if (additional_data.mass_factor != 0.)
          throw std::invalid_argument("plastix::MechanicsOperator: AdditionalData::mass_factor is not 0 "
                                      "but there is no mass matrix (AdditionalData::mass_matrix)");
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
    const backend::CsrMatrix local = device_operator->copy_matrix();
    const auto              &p     = *partitioner;
    const std::size_t        n_local = local.row_offsets.size() - 1;
    std::vector<dealii::types::global_dof_index> global(n_local);
    for (std::size_t i = 0; i < n_local; ++i)
      global[i] = p.local_to_global(i);
    dealii::IndexSet relevant = p.locally_owned_range();
    relevant.add_indices(p.ghost_indices());

    // Every local row, ghost rows included: their partial sums go to the
    // owners; with ghost cells the owned rows only, which are complete
    // (multigrid levels, which have no constraint lines).
    const std::size_t n_rows = applies_ghost_cells ? p.locally_owned_size() : n_local;
    if (applies_ghost_cells && !host_lines.rows.empty())
      throw std::logic_error("plastix::MechanicsOperator::copy_matrix(): constraint lines with ghost cells");

    // The condensation C^T A C: a constrained DoF's row and column go to
    // the DoFs of its line with its weights (the lines' columns are
    // unconstrained: one level), as AffineConstraints::
    // distribute_local_to_global() does for a cell matrix. line_of[i] is the
    // line of local DoF i, or -1.
    std::vector<int> line_of(n_local, -1);
    for (std::size_t r = 0; r < host_lines.rows.size(); ++r)
      line_of[host_lines.rows[r]] = static_cast<int>(r);
    const auto for_each_target = [&](const std::size_t i, const auto &action) {
      if (line_of[i] < 0)
        action(global[i], 1.);
      else
        for (auto k = host_lines.offsets[line_of[i]]; k < host_lines.offsets[line_of[i] + 1]; ++k)
          action(global[host_lines.columns[k]], host_lines.weights[k]);
    };
    // The condensed entries of local row i, grouped by global row with
    // their columns sorted and merged: (row, columns, values) to action.
    std::vector<std::pair<dealii::types::global_dof_index, std::pair<dealii::types::global_dof_index, double>>>
                                                 entries;
    std::vector<dealii::types::global_dof_index> columns;
    std::vector<double>                          values;
    const auto for_each_row = [&](const std::size_t i, const auto &action) {
      entries.clear();
      for (auto k = local.row_offsets[i]; k < local.row_offsets[i + 1]; ++k)
        for_each_target(i, [&](const auto row, const double row_weight) {
          for_each_target(local.columns[k], [&](const auto column, const double column_weight) {
            entries.push_back({row, {column, row_weight * column_weight * local.values[k]}});
          });
        });
      std::sort(entries.begin(), entries.end(), [](const auto &a, const auto &b) {
        return a.first < b.first || (a.first == b.first && a.second.first < b.second.first);
      });
      for (std::size_t first = 0; first < entries.size();)
        {
          columns.clear();
          values.clear();
          std::size_t last = first;
          for (; last < entries.size() && entries[last].first == entries[first].first; ++last)
            if (!columns.empty() && columns.back() == entries[last].second.first)
              values.back() += entries[last].second.second;
            else
              {
                columns.push_back(entries[last].second.first);
                values.push_back(entries[last].second.second);
              }
          action(entries[first].first);
          first = last;
        }
    };

    dealii::TrilinosWrappers::SparsityPattern sparsity(p.locally_owned_range(), p.locally_owned_range(), relevant,
                                                       p.get_mpi_communicator());
    for (std::size_t i = 0; i < n_rows; ++i)
      for_each_row(i, [&](const auto row) { sparsity.add_entries(row, columns.begin(), columns.end()); });
    for (const auto i : constrained_owned_dofs.to_host())
      sparsity.add(global[i], global[i]);
    sparsity.compress();
    matrix.reinit(sparsity);
    for (std::size_t i = 0; i < n_rows; ++i)
      for_each_row(i, [&](const auto row) { matrix.add(row, columns.size(), columns.data(), values.data(), false); });
    for (const auto i : constrained_owned_dofs.to_host())
      matrix.add(global[i], global[i], 1.);
    matrix.compress(dealii::VectorOperation::add);
  }

  void
  MechanicsOperator::add_homogeneous_constraints(dealii::AffineConstraints<double> &constraints) const
  {
    AssertThrow(device_operator,
                dealii::ExcMessage("plastix::MechanicsOperator::add_homogeneous_constraints(): not initialized"));
    const auto &p = *partitioner;
    for (const auto i : host_lines.fixed)
      {
        const auto row = p.local_to_global(i);
        if (constraints.can_store_line(row) && !constraints.is_constrained(row))
          constraints.add_line(row);
      }
    for (std::size_t r = 0; r < host_lines.rows.size(); ++r)
      {
        const auto row = p.local_to_global(host_lines.rows[r]);
        if (!constraints.can_store_line(row) || constraints.is_constrained(row))
          continue;
        constraints.add_line(row);
        for (auto k = host_lines.offsets[r]; k < host_lines.offsets[r + 1]; ++k)
          constraints.add_entry(row, p.local_to_global(host_lines.columns[k]), host_lines.weights[k]);
      }
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
    // The ghost exchange is collective: skipped only where no rank has a line.
    if (n_global_constraint_lines == 0)
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
    backend::GaussPointState &state = device_operator->create_plasticity_state();
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

  FiniteStrainState &
  MechanicsOperator::enable_finite_strain()
  {
    if (device_operator == nullptr)
      throw std::logic_error("plastix::MechanicsOperator::enable_finite_strain: call reinit() first");
    if (applies_ghost_cells)
      throw std::logic_error("plastix::MechanicsOperator::enable_finite_strain: a level operator that applies its "
                             "ghost cells (SharedRows::ghost_cells) carries no finite-strain state");
    disable_finite_strain();
    backend::FiniteStrainState &state = device_operator->create_finite_strain_state();
    finite_strain_state.reset(new FiniteStrainState(*this, state));
    cached_diagonal.reset();
    return *finite_strain_state;
  }

  void
  MechanicsOperator::disable_finite_strain()
  {
    finite_strain_state.reset();
    if (device_operator != nullptr)
      device_operator->release_finite_strain_state();
    cached_diagonal.reset();
  }

  void
  MechanicsOperator::set_mass_factor(const double factor)
  {
    if (!has_mass())
      throw std::logic_error("plastix::MechanicsOperator::set_mass_factor: the operator has no mass matrix "
                             "(AdditionalData::mass_matrix)");
    device_operator->set_mass_factor(factor);
    additional_data.mass_factor = factor;
    cached_diagonal.reset();
  }

  void
  MechanicsOperator::set_load_stiffness(const std::vector<dealii::types::global_dof_index> &rows,
                                        const std::vector<dealii::types::global_dof_index> &columns,
                                        const std::vector<double>                          &values)
  {
    if (device_operator == nullptr)
      throw std::logic_error("plastix::MechanicsOperator::set_load_stiffness: call reinit() first");
    if (columns.size() != rows.size() || values.size() != rows.size())
      throw std::invalid_argument("plastix::MechanicsOperator::set_load_stiffness: the rows, columns and values "
                                  "differ in size");
    const auto local = [&](const dealii::types::global_dof_index dof) {
      if (!partitioner->in_local_range(dof) && !partitioner->is_ghost_entry(dof))
        throw std::invalid_argument("plastix::MechanicsOperator::set_load_stiffness: DoF " + std::to_string(dof) +
                                    " is not a DoF of this rank's cells");
      return static_cast<backend::LocalIndex>(partitioner->global_to_local(dof));
    };
    // Sorted by (row, column); equal pairs summed.
    std::vector<std::pair<std::pair<backend::LocalIndex, backend::LocalIndex>, double>> entries;
    entries.reserve(rows.size());
    for (std::size_t k = 0; k < rows.size(); ++k)
      entries.push_back({{local(rows[k]), local(columns[k])}, values[k]});
    std::sort(entries.begin(), entries.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<backend::LocalIndex> local_rows, local_columns;
    std::vector<double>              local_values;
    for (const auto &[pair, value] : entries)
      if (!local_rows.empty() && local_rows.back() == pair.first && local_columns.back() == pair.second)
        local_values.back() += value;
      else
        {
          local_rows.push_back(pair.first);
          local_columns.push_back(pair.second);
          local_values.push_back(value);
        }
    device_operator->set_load_stiffness(local_rows, local_columns, local_values);
    cached_diagonal.reset();
  }

  void
  MechanicsOperator::apply_mass(const DeviceVector &src, DeviceVector &dst) const
  {
    if (!has_mass())
      throw std::logic_error("plastix::MechanicsOperator::apply_mass: the operator has no mass matrix "
                             "(AdditionalData::mass_matrix)");
    if (dst.get_partitioner() != partitioner)
      dst.reinit(partitioner, true);
    src.update_ghost_values();
    device_operator->apply_mass(src.device_data(), dst.device_data());
    complete_owned_rows(dst);
  }

  bool
  MechanicsOperator::has_mass() const
  {
    return additional_data.mass_matrix != MassMatrix::none;
  }

  bool
  MechanicsOperator::has_finite_strain() const
  {
    return finite_strain_state != nullptr;
  }

  FiniteStrainState &
  MechanicsOperator::finite_strain()
  {
    if (finite_strain_state == nullptr)
      throw std::logic_error("plastix::MechanicsOperator: no finite-strain state (call enable_finite_strain())");
    return *finite_strain_state;
  }

  const FiniteStrainState &
  MechanicsOperator::finite_strain() const
  {
    if (finite_strain_state == nullptr)
      throw std::logic_error("plastix::MechanicsOperator: no finite-strain state (call enable_finite_strain())");
    return *finite_strain_state;
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

  const MechanicsOperator::AdditionalData &
  MechanicsOperator::get_additional_data() const
  {
    return additional_data;
  }

  const backend::DeviceOperator &
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

  double
  MechanicsOperator::cell_stiffness_contrast() const
  {
    return stiffness_contrast;
  }

  double
  MechanicsOperator::cell_stiffness_contrast(const dealii::Triangulation<3> &triangulation,
                                             const CellStiffnessFactor      &cell_stiffness_factor)
  {
    if (!cell_stiffness_factor)
      return 1.;
    double smallest = std::numeric_limits<double>::max(), largest = 0.;
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          const double factor = cell_stiffness_factor(cell);
          smallest            = std::min(smallest, factor);
          largest             = std::max(largest, factor);
        }
    return stiffness_contrast_over_ranks(smallest, largest, triangulation.get_communicator());
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
  template void MechanicsOperator::compute_inverse_diagonal(device::Vector<Number> &) const;                   \
  template void MechanicsOperator::complete_owned_rows(device::Vector<Number> &) const;
  PLASTIX_INSTANTIATE(double)
  PLASTIX_INSTANTIATE(float)
#undef PLASTIX_INSTANTIATE
} // namespace plastix
