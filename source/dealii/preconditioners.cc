// Geometric multigrid on device-resident level operators, and ML AMG.
#include <deal.II/base/index_set.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/utilities.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/affine_constraints.templates.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/sparsity_tools.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_tools.h>

#include <plastix/backend/device.h>
#include <plastix/dealii/preconditioners.h>
#include <plastix/dealii/reference_operators.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

namespace plastix
{
  namespace
  {
    /** Which cell DoF is component c of vertex v (FESystem(FE_Q(1), 3)). */
    struct CellDofTable
    {
      explicit CellDofTable(const dealii::FiniteElement<3> &fe)
      {
        for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
          {
            const auto [component, vertex] = fe.system_to_component_index(i);
            index[vertex][component]       = i;
          }
      }
      unsigned int index[8][3];
    };

    /**
     * x, y, z of the vertex of each locally owned DoF (3 values per owned
     * row), from the owned cells of @p level (numbers::invalid_unsigned_int:
     * the active cells).
     */
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

    /** Copy the owned entries of a DeviceVector into a Trilinos vector of the same layout. */
    void
    copy_to_trilinos(const DeviceVector &src, dealii::TrilinosWrappers::MPI::Vector &dst)
    {
      AssertThrow(dst.locally_owned_size() == src.locally_owned_size(),
                  dealii::ExcMessage("plastix: host and device vector layouts differ"));
      backend::copy_to_host(dst.begin(), src.device_data(), src.locally_owned_size() * sizeof(double));
    }

    /** Copy the owned entries of a Trilinos vector into a DeviceVector of the same layout. */
    void
    copy_from_trilinos(const dealii::TrilinosWrappers::MPI::Vector &src, DeviceVector &dst)
    {
      AssertThrow(dst.locally_owned_size() == src.locally_owned_size(),
                  dealii::ExcMessage("plastix: host and device vector layouts differ"));
      backend::copy_to_device(dst.device_data(), src.begin(), dst.locally_owned_size() * sizeof(double));
    }
  } // namespace

  // ------------------------------------------------------------------ AMG

  AmgPreconditioner::AmgPreconditioner() = default;

  AmgPreconditioner::~AmgPreconditioner() = default;

  void
  AmgPreconditioner::initialize(const dealii::DoFHandler<3>           &dof_handler,
                                const MaterialTable                   &materials,
                                const std::vector<DirichletCondition> &dirichlet,
                                const AmgData                         &data)
  {
    // Homogeneous Dirichlet rows/columns, as in the device operator.
    dealii::IndexSet relevant;
    dealii::DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    dealii::AffineConstraints<double> constraints(relevant);
    for (const auto &condition : dirichlet)
      dealii::DoFTools::make_zero_boundary_constraints(
        dof_handler, condition.boundary_id, constraints,
        dealii::ComponentMask(std::vector<bool>(condition.components.begin(), condition.components.end())));
    constraints.close();
    reference::assemble_trilinos_matrix(dof_handler, constraints, materials, own_matrix);
    initialize(own_matrix, owned_dof_coordinates(dof_handler, dealii::numbers::invalid_unsigned_int), data);
  }

  void
  AmgPreconditioner::initialize(const dealii::TrilinosWrappers::SparseMatrix &new_matrix,
                                const std::vector<double>                    &coordinates,
                                const AmgData                                &data)
  {
    matrix = &new_matrix;
    const dealii::IndexSet owned = matrix->locally_owned_range_indices();
    AssertThrow(coordinates.size() == 3 * owned.n_elements(),
                dealii::ExcMessage("AmgPreconditioner: need 3 coordinates per owned row"));

    dealii::TrilinosWrappers::PreconditionAMG::AdditionalData amg_data;
    amg_data.elliptic              = true;
    amg_data.higher_order_elements = false;
    amg_data.n_cycles              = 1;
    amg_data.aggregation_threshold = data.aggregation_threshold;
    amg_data.smoother_sweeps       = data.smoother_sweeps;
    if (data.smoother_type == "Chebyshev")
      amg_data.smoother_type = "Chebyshev";
    else if (data.smoother_type == "symmetric Gauss-Seidel")
      amg_data.smoother_type = "symmetric Gauss-Seidel";
    else
      throw std::invalid_argument("AmgPreconditioner: unknown smoother '" + data.smoother_type + "'");
    amg_data.coarse_type = "Amesos-KLU";

    Teuchos::ParameterList              parameters;
    std::unique_ptr<Epetra_MultiVector> distributed_modes;
    amg_data.set_parameters(parameters, distributed_modes, *matrix);
    // Three unknowns per node: ML aggregates nodes, not single DoFs.
    parameters.set("PDE equations", 3);
    if (data.rigid_body_modes)
      {
        // Six rigid-body modes, coordinates relative to the global centroid
        // (each rank must use the same origin). Row k is component k % 3
        // (MechanicsOperator's numbering: x, y, z of a vertex consecutive).
        const std::size_t n = owned.n_elements();
        double            sum[4] = {0, 0, 0, static_cast<double>(n / 3)};
        for (std::size_t k = 0; k < n; k += 3)
          for (unsigned int d = 0; d < 3; ++d)
            sum[d] += coordinates[3 * k + d];
        dealii::Utilities::MPI::sum(dealii::ArrayView<const double>(sum, 4), matrix->get_mpi_communicator(),
                                    dealii::ArrayView<double>(sum, 4));
        const double centroid[3] = {sum[0] / std::max(sum[3], 1.), sum[1] / std::max(sum[3], 1.),
                                    sum[2] / std::max(sum[3], 1.)};
        null_space.assign(6 * n, 0.);
        for (std::size_t k = 0; k < n; ++k)
          {
            const unsigned int c = k % 3;
            const double       x = coordinates[3 * k] - centroid[0], y = coordinates[3 * k + 1] - centroid[1],
                         z = coordinates[3 * k + 2] - centroid[2];
            null_space[c * n + k] = 1.;
            // Rotations about z, x, y: (-y, x, 0), (0, -z, y), (z, 0, -x).
            const double rz[3] = {-y, x, 0.}, rx[3] = {0., -z, y}, ry[3] = {z, 0., -x};
            null_space[3 * n + k] = rz[c];
            null_space[4 * n + k] = rx[c];
            null_space[5 * n + k] = ry[c];
          }
        parameters.set("null space: type", "pre-computed");
        parameters.set("null space: dimension", 6);
        parameters.set("null space: vectors", null_space.data());
        parameters.set("null space: add default vectors", false);
      }
    amg.initialize(*matrix, parameters);
    host_src.reinit(owned, matrix->get_mpi_communicator());
    host_dst.reinit(owned, matrix->get_mpi_communicator());
  }

  void
  AmgPreconditioner::vmult(dealii::TrilinosWrappers::MPI::Vector       &dst,
                           const dealii::TrilinosWrappers::MPI::Vector &src) const
  {
    amg.vmult(dst, src);
  }

  void
  AmgPreconditioner::vmult(DeviceVector &dst, const DeviceVector &src) const
  {
    copy_to_trilinos(src, host_src);
    amg.vmult(host_dst, host_src);
    if (dst.get_partitioner() != src.get_partitioner())
      dst.reinit(src, true);
    copy_from_trilinos(host_dst, dst);
  }

  const dealii::TrilinosWrappers::SparseMatrix &
  AmgPreconditioner::get_matrix() const
  {
    AssertThrow(matrix != nullptr, dealii::ExcMessage("AmgPreconditioner not initialized"));
    return *matrix;
  }

  // ------------------------------------------------------------ Multigrid

  /** Operator, smoother, vectors of one level and the transfer from the level below. */
  struct MultigridPreconditioner::Level
  {
    using Jacobi    = dealii::DiagonalMatrix<DeviceVector>;
    using Chebyshev = dealii::PreconditionChebyshev<MechanicsOperator, DeviceVector, Jacobi>;

    /** The level's own operator (coarser levels); the finest level uses the caller's. */
    std::unique_ptr<MechanicsOperator> own_operator;
    const MechanicsOperator           *op = nullptr;
    std::shared_ptr<Jacobi>            inverse_diagonal;
    Chebyshev                          smoother;
    /** Solution, right-hand side (coarser levels) and residual. */
    mutable DeviceVector x, b, r;

    /** Transfer between this level and the one below (levels >= 1). */
    std::unique_ptr<backend::DeviceCsrMatrix>                  prolongation, restriction;
    std::shared_ptr<const dealii::Utilities::MPI::Partitioner> transfer_layout;
    /** Vector in transfer_layout: prolongated values, or the residual with the ghosts restriction needs. */
    mutable DeviceVector transfer_vector;
  };

  MultigridPreconditioner::MultigridPreconditioner() = default;

  MultigridPreconditioner::~MultigridPreconditioner() = default;

  void
  MultigridPreconditioner::initialize(const MechanicsOperator               &fine_operator,
                                      const dealii::DoFHandler<3>           &dof_handler,
                                      const MaterialTable                   &new_materials,
                                      const std::vector<DirichletCondition> &dirichlet,
                                      const MultigridData                   &new_data)
  {
    data      = new_data;
    materials = &new_materials;
    levels.clear();
    coarse_direct.reset();
    coarse_amg.reset();

    const auto    &tria         = dof_handler.get_triangulation();
    const MPI_Comm communicator = dof_handler.get_communicator();
    const auto    *parallel     = dynamic_cast<const dealii::parallel::TriangulationBase<3> *>(&tria);
    if (parallel != nullptr && !parallel->is_multilevel_hierarchy_constructed())
      throw std::invalid_argument(
        "plastix multigrid: the triangulation has no multigrid hierarchy (build the "
        "parallel::distributed::Triangulation with construct_multigrid_hierarchy)");
    const unsigned int n_levels = tria.n_global_levels();
    if (n_levels < 2)
      throw std::invalid_argument("plastix multigrid: the mesh has a single level; it needs at least one "
                                  "global refinement ('Mesh/Global refinements' >= 1)");
    const unsigned int finest = n_levels - 1;
    {
      unsigned long long owned_finest = 0;
      for (const auto &cell : tria.cell_iterators_on_level(finest))
        if (cell->is_locally_owned_on_level() && cell->is_active())
          ++owned_finest;
      if (dealii::Utilities::MPI::sum(owned_finest, communicator) != tria.n_global_active_cells())
        throw std::invalid_argument("plastix multigrid: all active cells must lie on the finest level "
                                    "(a uniformly refined mesh)");
    }
    if (data.coarse_solver != "direct" && data.coarse_solver != "amg")
      throw std::invalid_argument("plastix multigrid: unknown coarse solver '" + data.coarse_solver +
                                  "' (direct or amg)");

    // Level DoFs: the caller's DoFHandler if it has them, else an own one
    // on the same mesh (its active numbering is not used).
    if (dof_handler.has_level_dofs())
      level_dofs = &dof_handler;
    else
      {
        own_level_dofs = std::make_unique<dealii::DoFHandler<3>>(tria);
        own_level_dofs->distribute_dofs(dof_handler.get_fe());
        own_level_dofs->distribute_mg_dofs();
        level_dofs = own_level_dofs.get();
      }

    // Zero Dirichlet constraints of every level, and the active boundary DoFs
    // of the finest level (zero rows of the last prolongation).
    dealii::MGConstrainedDoFs mg_constrained;
    mg_constrained.initialize(*level_dofs);
    dealii::IndexSet fine_boundary(dof_handler.n_dofs());
    for (const auto &condition : dirichlet)
      {
        const dealii::ComponentMask mask(std::vector<bool>(condition.components.begin(), condition.components.end()));
        mg_constrained.make_zero_boundary_constraints(*level_dofs, {condition.boundary_id}, mask);
        fine_boundary.add_indices(dealii::DoFTools::extract_boundary_dofs(dof_handler, mask, {condition.boundary_id}));
      }
    level_boundary.resize(n_levels);
    for (unsigned int l = 0; l < finest; ++l)
      level_boundary[l] = mg_constrained.get_boundary_indices(l);

    const dealii::MappingQ<3> mapping(1);
    for (unsigned int l = 0; l < n_levels; ++l)
      {
        levels.push_back(std::make_unique<Level>());
        Level &level = *levels.back();
        if (l < finest)
          {
            dealii::IndexSet relevant;
            dealii::DoFTools::extract_locally_relevant_level_dofs(*level_dofs, l, relevant);
            dealii::AffineConstraints<double> constraints(relevant);
            for (const auto i : level_boundary[l])
              if (relevant.is_element(i))
                constraints.add_line(i);
            constraints.close();
            level.own_operator = std::make_unique<MechanicsOperator>();
            level.own_operator->reinit_level(mapping, *level_dofs, constraints, *materials, l, data.level_operator);
            level.op = level.own_operator.get();
            level.op->initialize_dof_vector(level.x);
            level.op->initialize_dof_vector(level.b);
          }
        else
          level.op = &fine_operator;
        level.op->initialize_dof_vector(level.r);
        if (l > 0)
          setup_transfer(l, dof_handler, fine_boundary);
        if (l > 0)
          setup_smoother(l);
      }
    setup_coarse_solver();
  }

  void
  MultigridPreconditioner::setup_smoother(const unsigned int l)
  {
    Level &level           = *levels[l];
    level.inverse_diagonal = std::make_shared<Level::Jacobi>();
    level.op->compute_inverse_diagonal(level.inverse_diagonal->get_vector());
    Level::Chebyshev::AdditionalData smoother_data;
    smoother_data.degree              = data.smoother_degree;
    smoother_data.smoothing_range     = data.smoothing_range;
    smoother_data.eig_cg_n_iterations = data.eigenvalue_iterations;
    smoother_data.preconditioner      = level.inverse_diagonal;
    level.smoother.initialize(*level.op, smoother_data);
    // Estimate the eigenvalues now, so that the set-up cost is paid here and
    // not in the first V-cycle.
    DeviceVector ones;
    level.op->initialize_dof_vector(ones);
    ones = 1.;
    level.smoother.estimate_eigenvalues(ones);
  }

  void
  MultigridPreconditioner::update_fine_level()
  {
    AssertThrow(!levels.empty(), dealii::ExcMessage("MultigridPreconditioner not initialized"));
    setup_smoother(levels.size() - 1);
  }

  void
  MultigridPreconditioner::setup_transfer(const unsigned int           l,
                                          const dealii::DoFHandler<3> &active_dofs,
                                          const dealii::IndexSet      &fine_boundary)
  {
    const unsigned int finest         = active_dofs.get_triangulation().n_global_levels() - 1;
    const bool         fine_is_active = l == finest;
    Level             &fine           = *levels[l];
    const Level       &coarse         = *levels[l - 1];
    const auto        &fe             = level_dofs->get_fe();
    const unsigned int dofs_per_cell  = fe.n_dofs_per_cell();
    const MPI_Comm     communicator   = active_dofs.get_communicator();
    const auto        &coarse_layout  = *coarse.op->get_partitioner();
    const auto        &fine_layout    = fine.op->get_partitioner();

    // Rows: the fine DoFs of the children of the coarse cells owned here,
    // each computed from the first such cell (any cell gives the same value
    // of the continuous coarse function). Coarse Dirichlet columns and fine
    // Dirichlet rows are left out.
    std::map<dealii::types::global_dof_index, std::vector<std::pair<std::int32_t, double>>> rows;
    std::vector<dealii::types::global_dof_index> coarse_dofs(dofs_per_cell), fine_dofs(dofs_per_cell);
    for (const auto &cell : level_dofs->mg_cell_iterators_on_level(l - 1))
      {
        if (!cell->is_locally_owned_on_level())
          continue;
        if (!cell->has_children())
          throw std::logic_error("plastix multigrid: an owned level cell without children below the finest level");
        cell->get_mg_dof_indices(coarse_dofs);
        for (unsigned int c = 0; c < cell->n_children(); ++c)
          {
            const auto child = cell->child(c);
            if (fine_is_active)
              {
                // The active DoFs of the child, through the caller's DoFHandler.
                const typename dealii::DoFHandler<3>::cell_iterator active_child(&active_dofs.get_triangulation(),
                                                                                 child->level(), child->index(),
                                                                                 &active_dofs);
                if (!active_child->is_locally_owned() && !active_child->is_ghost())
                  throw std::logic_error("plastix multigrid: a child of an owned level cell is neither owned nor "
                                         "a ghost on the active mesh (unexpected partition)");
                active_child->get_dof_indices(fine_dofs);
              }
            else
              child->get_mg_dof_indices(fine_dofs);
            const dealii::FullMatrix<double> &embedding =
              fe.get_prolongation_matrix(c, dealii::RefinementCase<3>::isotropic_refinement);
            for (unsigned int i = 0; i < dofs_per_cell; ++i)
              {
                const auto global = fine_dofs[i];
                if (rows.count(global) != 0)
                  continue;
                auto &row = rows[global];
                if (fine_is_active ? fine_boundary.is_element(global) : level_boundary[l].is_element(global))
                  continue;
                for (unsigned int j = 0; j < dofs_per_cell; ++j)
                  if (std::abs(embedding(i, j)) > 1e-12 && !level_boundary[l - 1].is_element(coarse_dofs[j]))
                    row.emplace_back(coarse_layout.global_to_local(coarse_dofs[j]), embedding(i, j));
              }
          }
      }

    // Layout of the fine side: owned DoFs plus the rows computed here. The
    // operator's own layout serves if it already has all those ghosts.
    const dealii::IndexSet &owned = fine_layout->locally_owned_range();
    dealii::IndexSet        needed(owned.size());
    for (const auto &row : rows)
      if (!owned.is_element(row.first))
        needed.add_index(row.first);
    needed.compress();
    const dealii::IndexSet &operator_ghosts = fine_layout->ghost_indices();
    const bool              fits = dealii::Utilities::MPI::min((needed & operator_ghosts) == needed ? 1 : 0,
                                                  communicator) == 1;
    fine.transfer_layout = fits ? fine_layout :
                                  std::make_shared<const dealii::Utilities::MPI::Partitioner>(owned, needed,
                                                                                            communicator);
    const auto &layout = *fine.transfer_layout;

    // Weights 1 / (ranks computing the row): the sum at the owner is exact.
    dealii::LinearAlgebra::distributed::Vector<double> count(fine.transfer_layout);
    for (const auto &row : rows)
      count.local_element(layout.global_to_local(row.first)) += 1.;
    count.compress(dealii::VectorOperation::add);
    count.update_ghost_values();

    const std::size_t    n_fine_local = layout.locally_owned_size() + layout.n_ghost_indices();
    const std::size_t    n_coarse_local = coarse_layout.locally_owned_size() + coarse_layout.n_ghost_indices();
    backend::CsrMatrixHost P;
    P.n_rows = n_fine_local;
    P.row_offsets.assign(n_fine_local + 1, 0);
    std::vector<const std::vector<std::pair<std::int32_t, double>> *> row_of(n_fine_local, nullptr);
    for (const auto &row : rows)
      row_of[layout.global_to_local(row.first)] = &row.second;
    for (std::size_t i = 0; i < n_fine_local; ++i)
      {
        if (row_of[i] != nullptr)
          {
            const double weight = 1. / count.local_element(i);
            for (const auto &[column, value] : *row_of[i])
              {
                P.columns.push_back(column);
                P.values.push_back(weight * value);
              }
          }
        P.row_offsets[i + 1] = P.columns.size();
      }
    // Restriction R = P^T: rows are the coarse local DoFs.
    backend::CsrMatrixHost R;
    R.n_rows = n_coarse_local;
    R.row_offsets.assign(n_coarse_local + 1, 0);
    for (const auto column : P.columns)
      ++R.row_offsets[column + 1];
    for (std::size_t i = 0; i < n_coarse_local; ++i)
      R.row_offsets[i + 1] += R.row_offsets[i];
    R.columns.resize(P.columns.size());
    R.values.resize(P.values.size());
    std::vector<std::int32_t> fill(R.row_offsets.begin(), R.row_offsets.end() - 1);
    for (std::size_t i = 0; i < n_fine_local; ++i)
      for (std::int32_t k = P.row_offsets[i]; k < P.row_offsets[i + 1]; ++k)
        {
          const std::int32_t position = fill[P.columns[k]]++;
          R.columns[position]         = i;
          R.values[position]          = P.values[k];
        }
    fine.prolongation = std::make_unique<backend::DeviceCsrMatrix>(P);
    fine.restriction  = std::make_unique<backend::DeviceCsrMatrix>(R);
    fine.transfer_vector.reinit(fine.transfer_layout);
  }

  void
  MultigridPreconditioner::setup_coarse_solver()
  {
    // Level-0 stiffness matrix, assembled like the device operator (QGauss(2),
    // trilinear mapping, symmetric gradients), Dirichlet rows/columns zero
    // with a positive diagonal.
    const unsigned int      level = 0;
    const MPI_Comm          communicator = level_dofs->get_communicator();
    const dealii::IndexSet &owned        = level_dofs->locally_owned_mg_dofs(level);
    dealii::IndexSet        relevant;
    dealii::DoFTools::extract_locally_relevant_level_dofs(*level_dofs, level, relevant);
    dealii::AffineConstraints<double> constraints(relevant);
    for (const auto i : level_boundary[level])
      if (relevant.is_element(i))
        constraints.add_line(i);
    constraints.close();
    dealii::DynamicSparsityPattern dsp(relevant);
    dealii::MGTools::make_sparsity_pattern(*level_dofs, dsp, level);
    dealii::SparsityTools::distribute_sparsity_pattern(dsp, owned, communicator, relevant);
    coarse_matrix.reinit(owned, owned, dsp, communicator);

    const auto                      &fe = level_dofs->get_fe();
    const dealii::MappingQ<3>        mapping(1);
    const dealii::QGauss<3>          quadrature(2);
    dealii::FEValues<3>              fe_values(mapping, fe, quadrature, dealii::update_gradients | dealii::update_JxW_values);
    const dealii::FEValuesExtractors::Vector displacement(0);
    const unsigned int               n = fe.n_dofs_per_cell();
    dealii::FullMatrix<double>       cell_matrix(n, n);
    std::vector<dealii::types::global_dof_index> dofs(n);
    std::vector<dealii::SymmetricTensor<2, 3>>   eps(n);
    std::vector<double>                          divergence(n);
    for (const auto &cell : level_dofs->mg_cell_iterators_on_level(level))
      {
        if (!cell->is_locally_owned_on_level())
          continue;
        fe_values.reinit(cell);
        const auto &m = materials->at(cell->material_id());
        cell_matrix   = 0;
        for (unsigned int q = 0; q < quadrature.size(); ++q)
          {
            for (unsigned int i = 0; i < n; ++i)
              {
                eps[i]        = fe_values[displacement].symmetric_gradient(i, q);
                divergence[i] = dealii::trace(eps[i]);
              }
            for (unsigned int i = 0; i < n; ++i)
              for (unsigned int j = 0; j < n; ++j)
                cell_matrix(i, j) +=
                  (m.lambda * divergence[i] * divergence[j] + 2. * m.mu * (eps[i] * eps[j])) * fe_values.JxW(q);
          }
        cell->get_mg_dof_indices(dofs);
        constraints.distribute_local_to_global(cell_matrix, dofs, coarse_matrix);
      }
    coarse_matrix.compress(dealii::VectorOperation::add);
    coarse_src.reinit(owned, communicator);
    coarse_dst.reinit(owned, communicator);

    if (data.coarse_solver == "direct")
      {
        coarse_control = std::make_unique<dealii::SolverControl>(1, 0);
        coarse_direct  = std::make_unique<dealii::TrilinosWrappers::SolverDirect>(*coarse_control);
        coarse_direct->initialize(coarse_matrix);
      }
    else
      {
        coarse_amg = std::make_unique<AmgPreconditioner>();
        coarse_amg->initialize(coarse_matrix, owned_dof_coordinates(*level_dofs, level), data.coarse_amg);
      }
  }

  void
  MultigridPreconditioner::v_cycle(const unsigned int l, DeviceVector &x, const DeviceVector &b) const
  {
    if (l == 0)
      {
        // Coarse level on the host: one round trip of the (small) level-0 vector.
        copy_to_trilinos(b, coarse_src);
        if (coarse_direct)
          coarse_direct->solve(coarse_dst, coarse_src);
        else
          coarse_amg->vmult(coarse_dst, coarse_src);
        copy_from_trilinos(coarse_dst, x);
        return;
      }
    const Level &level  = *levels[l];
    const Level &coarse = *levels[l - 1];

    // Pre-smoothing from zero, residual.
    level.smoother.vmult(x, b);
    level.op->vmult(level.r, x);
    level.r.sadd(-1., 1., b);

    // Restriction: b_coarse = R r (the fine ghosts needed by R first).
    const DeviceVector *residual = &level.r;
    if (level.transfer_layout != level.r.get_partitioner())
      {
        level.transfer_vector.equ(1., level.r);
        residual = &level.transfer_vector;
      }
    residual->update_ghost_values();
    level.restriction->vmult(residual->device_data(), coarse.b.device_data());
    coarse.b.compress(dealii::VectorOperation::add);

    v_cycle(l - 1, coarse.x, coarse.b);

    // Prolongation: x += P x_coarse (rows of other ranks' DoFs summed at their owners).
    coarse.x.update_ghost_values();
    level.prolongation->vmult(coarse.x.device_data(), level.transfer_vector.device_data());
    level.transfer_vector.compress(dealii::VectorOperation::add);
    x.add(1., level.transfer_vector);

    // Post-smoothing.
    level.smoother.step(x, b);
  }

  void
  MultigridPreconditioner::vmult(DeviceVector &dst, const DeviceVector &src) const
  {
    AssertThrow(!levels.empty(), dealii::ExcMessage("MultigridPreconditioner not initialized"));
    const MechanicsOperator &fine = *levels.back()->op;
    if (dst.get_partitioner() != fine.get_partitioner())
      fine.initialize_dof_vector(dst);
    v_cycle(levels.size() - 1, dst, src);
  }

  unsigned int
  MultigridPreconditioner::n_levels() const
  {
    return levels.size();
  }

  std::vector<dealii::types::global_dof_index>
  MultigridPreconditioner::n_dofs_per_level() const
  {
    std::vector<dealii::types::global_dof_index> n;
    for (const auto &level : levels)
      n.push_back(level->op->m());
    return n;
  }

  std::string
  MultigridPreconditioner::description() const
  {
    std::ostringstream text;
    text << levels.size() << " levels (DoFs";
    for (const auto n : n_dofs_per_level())
      text << ' ' << n;
    text << "), Chebyshev(" << data.smoother_degree << ") smoother, coarse " << data.coarse_solver;
    return text.str();
  }
} // namespace plastix
