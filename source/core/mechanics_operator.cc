// deal.II adapter: DoFHandler, constraints and materials -> backend data.
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe.h>
#include <deal.II/fe/mapping_q.h>

#include <plastix/backend/plasticity.h>
#include <plastix/backend/vector_operations.h>
#include <plastix/core/mechanics_operator.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace plastix
{
  namespace ops = backend::vector_operations;

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
    // level == invalid_unsigned_int: the active cells and DoFs; otherwise the
    // cells and level DoFs of that multigrid level.
    const bool on_level = level != dealii::numbers::invalid_unsigned_int;
    const auto *mapping_q = dynamic_cast<const dealii::MappingQ<3> *>(&mapping);
    if (mapping_q == nullptr || mapping_q->get_degree() != 1)
      throw std::invalid_argument(
        "plastix::MechanicsOperator: only the trilinear mapping (MappingQ(1)) is "
        "supported; the geometry is computed from the cell vertices");

    const dealii::FiniteElement<3> &fe = dof_handler.get_fe();
    if (fe.n_components() != 3 || fe.n_dofs_per_cell() != 24 || fe.degree != 1 ||
        fe.n_base_elements() != 1 || fe.base_element(0).get_name() != "FE_Q<3>(1)")
      throw std::invalid_argument(
        "plastix::MechanicsOperator needs FESystem(FE_Q(1), 3); got " + fe.get_name());

    // Local DoF index layout: owned, then the ghosts of the owned cells.
    const dealii::IndexSet &owned = on_level ? dof_handler.locally_owned_mg_dofs(level) : dof_handler.locally_owned_dofs();
    dealii::IndexSet        active;
    if (on_level)
      dealii::DoFTools::extract_locally_active_level_dofs(dof_handler, active, level);
    else
      dealii::DoFTools::extract_locally_active_dofs(dof_handler, active);
    dealii::IndexSet ghosts = active;
    ghosts.subtract_set(owned);
    partitioner = std::make_shared<dealii::Utilities::MPI::Partitioner>(
      owned, ghosts, dof_handler.get_communicator());

    const std::size_t n_local = partitioner->locally_owned_size() + partitioner->n_ghost_indices();
    if (partitioner->locally_owned_size() % 3 != 0 || n_local % 3 != 0)
      throw std::invalid_argument(
        "plastix::MechanicsOperator: the three DoFs of each vertex must be numbered "
        "consecutively (deal.II's default numbering); was the DoFHandler renumbered "
        "component-wise?");

    // Which cell DoF is component c of vertex v.
    unsigned int cell_dof[8][3];
    for (unsigned int i = 0; i < 24; ++i)
      {
        const auto [component, vertex] = fe.system_to_component_index(i);
        cell_dof[vertex][component]    = i;
      }

    backend::MeshData mesh;
    mesh.n_nodes       = n_local / 3;
    mesh.n_owned_nodes = partitioner->locally_owned_size() / 3;
    mesh.node_coordinates.assign(n_local, 0.);
    mesh.constrained_dofs.assign(n_local, 0);

    std::map<dealii::types::material_id, std::uint16_t> material_index;
    for (const auto &[id, material] : materials)
      {
        material_index[id] = mesh.materials.size();
        mesh.materials.push_back(material);
      }

    std::vector<bool>                             touched(n_local, false);
    std::vector<dealii::types::global_dof_index> dof_indices(24);
    auto add_cell = [&](const auto &cell) {
        if (on_level)
          cell->get_mg_dof_indices(dof_indices);
        else
          cell->get_dof_indices(dof_indices);
        for (unsigned int v = 0; v < 8; ++v)
          {
            const std::size_t l0 = partitioner->global_to_local(dof_indices[cell_dof[v][0]]);
            const std::size_t l1 = partitioner->global_to_local(dof_indices[cell_dof[v][1]]);
            const std::size_t l2 = partitioner->global_to_local(dof_indices[cell_dof[v][2]]);
            if (l0 % 3 != 0 || l1 != l0 + 1 || l2 != l0 + 2)
              throw std::invalid_argument(
                "plastix::MechanicsOperator: the DoFs x, y, z of a vertex must have "
                "consecutive indices (deal.II's default numbering); got " +
                std::to_string(dof_indices[cell_dof[v][0]]) + ", " +
                std::to_string(dof_indices[cell_dof[v][1]]) + ", " +
                std::to_string(dof_indices[cell_dof[v][2]]));
            const std::size_t node = l0 / 3;
            mesh.cell_nodes.push_back(node);
            for (unsigned int d = 0; d < 3; ++d)
              mesh.node_coordinates[3 * node + d] = cell->vertex(v)[d];
            touched[l0] = touched[l1] = touched[l2] = true;
          }
        const auto it = material_index.find(cell->material_id());
        if (it == material_index.end())
          throw std::invalid_argument("plastix::MechanicsOperator: no material given for "
                                      "material id " +
                                      std::to_string(cell->material_id()) +
                                      (on_level ? " (on multigrid level " + std::to_string(level) +
                                                    "; a level cell has its own material id, which its children inherit when refined)" :
                                                  std::string()));
        mesh.cell_material.push_back(it->second);
    };
    if (on_level)
      {
        for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
          if (cell->is_locally_owned_on_level())
            add_cell(cell);
      }
    else
      for (const auto &cell : dof_handler.active_cell_iterators())
        if (cell->is_locally_owned())
          add_cell(cell);
    for (std::size_t i = 0; i < n_local; ++i)
      if (!touched[i])
        throw std::invalid_argument("plastix::MechanicsOperator: DoF " +
                                    std::to_string(partitioner->local_to_global(i)) +
                                    " belongs to no locally owned cell");

    std::vector<backend::LocalIndex> owned_constrained;
    std::vector<double>              owned_values;
    for (std::size_t i = 0; i < n_local; ++i)
      {
        const auto global = partitioner->local_to_global(i);
        if (!constraints.is_constrained(global))
          continue;
        const auto *entries = constraints.get_constraint_entries(global);
        if (entries != nullptr && !entries->empty())
          throw std::invalid_argument(
            "plastix::MechanicsOperator supports only Dirichlet-type constraints; DoF " +
            std::to_string(global) +
            " is constrained to other DoFs (hanging-node or periodic constraint)");
        mesh.constrained_dofs[i] = 1;
        if (i < partitioner->locally_owned_size())
          {
            owned_constrained.push_back(i);
            owned_values.push_back(constraints.get_inhomogeneity(global));
          }
      }
    constrained_owned_dofs   = backend::DeviceArray<backend::LocalIndex>(owned_constrained, "constrained dofs");
    constrained_owned_values = backend::DeviceArray<double>(owned_values, "prescribed values");

    backend::OperatorSettings settings;
    settings.strategy    = additional_data.strategy;
    settings.cell_kernel = additional_data.cell_kernel;
    settings.thread_mapping = additional_data.thread_mapping;
    settings.element_formulation = additional_data.element_formulation;
    // A bad cell on one rank must stop every rank (no rank left waiting).
    std::string error;
    try
      {
        device_operator = std::make_unique<backend::MechanicsOperator>(mesh, settings);
      }
    catch (const std::invalid_argument &e)
      {
        error = e.what();
      }
    for (const auto &message : dealii::Utilities::MPI::all_gather(partitioner->get_mpi_communicator(), error))
      if (!message.empty())
        throw std::invalid_argument(message);
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
    dst.compress(dealii::VectorOperation::add);
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
  MechanicsOperator::compute_diagonal(DeviceVector &diagonal) const
  {
    diagonal.reinit(partitioner, true);
    device_operator->compute_diagonal(diagonal.device_data());
    diagonal.compress(dealii::VectorOperation::add);
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
    ops::assign_entries(constrained_owned_dofs.size(),
                        constrained_owned_dofs.data(),
                        constrained_owned_values.data(),
                        u.device_data());
    if (scale != 1.)
      {
        // Scale only the constrained entries: u_c = scale g_c.
        temporary.reinit(partitioner);
        ops::assign_entries(constrained_owned_dofs.size(),
                            constrained_owned_dofs.data(),
                            constrained_owned_values.data(),
                            temporary.device_data());
        ops::set_entries(constrained_owned_dofs.size(), constrained_owned_dofs.data(), 0., u.device_data());
        u.add(scale, temporary);
      }
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
    temporary.compress(dealii::VectorOperation::add);
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
    return result;
  }

  void
  MechanicsOperator::attach_plasticity_state(const backend::PlasticityState *state)
  {
    device_operator->set_plasticity_state(state);
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
    return device_operator->n_cells();
  }

  std::size_t
  MechanicsOperator::memory_consumption() const
  {
    return device_operator->memory_consumption() + constrained_owned_dofs.memory_consumption() +
           constrained_owned_values.memory_consumption() + temporary.memory_consumption();
  }

  std::string
  MechanicsOperator::description() const
  {
    return device_operator->description();
  }

#define PLASTIX_INSTANTIATE(Number)                                                                            \
  template void MechanicsOperator::vmult(device::Vector<Number> &, const device::Vector<Number> &) const;      \
  template void MechanicsOperator::Tvmult(device::Vector<Number> &, const device::Vector<Number> &) const;     \
  template void MechanicsOperator::vmult_add(device::Vector<Number> &, const device::Vector<Number> &) const;  \
  template void MechanicsOperator::Tvmult_add(device::Vector<Number> &, const device::Vector<Number> &) const; \
  template void MechanicsOperator::initialize_dof_vector(device::Vector<Number> &) const;                      \
  template void MechanicsOperator::compute_inverse_diagonal(device::Vector<Number> &) const;
  PLASTIX_INSTANTIATE(double)
  PLASTIX_INSTANTIATE(float)
#undef PLASTIX_INSTANTIATE
} // namespace plastix
