// Mesh, DoFs, constraints, operator and output shared by the drivers.
#include <deal.II/base/multithread_info.h>
#include <deal.II/base/timer.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>

#include "discretization.h"
#include "input_checks.h"
#include "loads.h"
#include "mesh_generation.h"

#include <filesystem>
#include <iomanip>
#include <sstream>

namespace plastix
{
  namespace
  {
    /** Multigrid (or auto, which picks it on a refined mesh) needs the level hierarchy. */
    bool
    needs_level_hierarchy(const Parameters &parameters)
    {
      return parameters.solver.preconditioner == PreconditionerType::multigrid ||
             (!parameters.solver.preconditioner.is_resolved() &&
              parameters.mesh.global_refinements >= 1 && parameters.mesh.local_refinements == 0 &&
              !parameters.mesh.adaptive.enabled());
    }
  } // namespace

  Discretization::Discretization(const Parameters &parameters, MPI_Comm communicator)
    : parameters(parameters)
    , communicator(communicator)
    , fe(dealii::FE_Q<3>(1), 3)
  {}

  Discretization::~Discretization()
  {
    // A task that threw has nobody to report to any more (a throw from
    // the set-up is already on its way): only wait.
    try
      {
        wait_for_level_dofs();
      }
    catch (...)
      {}
  }

  void
  Discretization::wait_for_level_dofs()
  {
    if (!level_dofs_task.joinable())
      return;
    dealii::Timer timer;
    // Task::join() waits and rethrows; afterwards the task is no longer joinable.
    auto task = std::move(level_dofs_task);
    level_dofs_task = dealii::Threads::Task<void>();
    task.join();
    dofs_stage_times.level_dofs_wait = timer.wall_time();
  }

  void
  Discretization::make_mesh()
  {
    // The multigrid preconditioner needs the level hierarchy (level DoFs);
    // other runs keep deal.II's defaults.
    const bool levels    = needs_level_hierarchy(parameters);
    const auto smoothing = levels ? dealii::Triangulation<3>::limit_level_difference_at_vertices :
                                    dealii::Triangulation<3>::none;
    // Adaptive runs use p4est's mesh on one rank too: deal.II's
    // CellDataTransfer and SolutionTransfer for p4est carry the history and
    // the displacement, and checkpoints store the adapted mesh as it is.
    if (dealii::Utilities::MPI::n_mpi_processes(communicator) == 1 && !parameters.mesh.adaptive.enabled())
      triangulation = std::make_unique<dealii::Triangulation<3>>(smoothing);
    else
      triangulation = std::make_unique<dealii::parallel::distributed::Triangulation<3>>(
        communicator, smoothing,
        levels ? dealii::parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy :
                 dealii::parallel::distributed::Triangulation<3>::default_setting);
    create_mesh(parameters.mesh, *triangulation);
    make_fixed_grid_fractions();
    dof_handler.reinit(*triangulation);
  }

  void
  Discretization::load_mesh(const std::string &file)
  {
    const bool levels = needs_level_hierarchy(parameters);
    auto       distributed = std::make_unique<dealii::parallel::distributed::Triangulation<3>>(
      communicator,
      levels ? dealii::Triangulation<3>::limit_level_difference_at_vertices : dealii::Triangulation<3>::none,
      levels ? dealii::parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy :
               dealii::parallel::distributed::Triangulation<3>::default_setting);
    plastix::load_mesh(parameters.mesh, *distributed, file);
    triangulation = std::move(distributed);
    make_fixed_grid_fractions();
    dof_handler.reinit(*triangulation);
  }

  std::string
  Discretization::checkpoint_parameter_text() const
  {
    std::string text = parameters.file_text;
    if (parameters.mesh.geometry == GeometryType::file)
      text += "\nsubsection Mesh\n  set File = " + std::filesystem::absolute(parameters.mesh.file).string() +
              "\nend\n";
    if (parameters.mesh.geometry == GeometryType::fixed_grid && !parameters.mesh.fixed_grid.image_file.empty())
      text += "\nsubsection Mesh\n  subsection Fixed grid\n    set Image file = " +
              std::filesystem::absolute(parameters.mesh.fixed_grid.image_file).string() + "\n  end\nend\n";
    return text;
  }

  void
  Discretization::setup()
  {
    setup_dofs();
    setup_operator();
  }

  void
  Discretization::setup_dofs()
  {
    // A task of an earlier call (initialize_solver() normally joins it) writes the stage times.
    wait_for_level_dofs();
    dofs_stage_times = DofsStageTimes();
    dealii::Timer timer;
    const auto    lap = [&timer](double &seconds) {
      seconds = timer.wall_time();
      timer.restart();
    };
    check_mesh_ids(parameters, *triangulation);
    lap(dofs_stage_times.id_checks);
    dof_handler.distribute_dofs(fe);
    lap(dofs_stage_times.distribute);
    make_dirichlet_constraints(dof_handler, parameters.boundary, constraints);
    lap(dofs_stage_times.constraints);
    // Level DoFs for multigrid on the same DoFHandler (else the multigrid
    // preconditioner would distribute the active DoFs a second time): where
    // multigrid is chosen, or auto takes it (LinearSolver's rule on these
    // constraints and stiffness factors; it takes chebyshev with a support
    // normal to an inclined or curved face, which the levels cannot hold).
    const bool level_dofs =
      needs_level_hierarchy(parameters) && triangulation->n_global_levels() > 1 &&
      (parameters.solver.preconditioner.is_resolved() ?
         parameters.solver.preconditioner == PreconditionerType::multigrid :
         LinearSolver::automatic_preconditioner(dof_handler, constraints, operator_data().cell_stiffness_factor) ==
           PreconditionerType::multigrid);
    const auto distribute_level_dofs = [this]() {
      dealii::Timer level_timer;
      dof_handler.distribute_mg_dofs();
      dofs_stage_times.level_dofs = level_timer.wall_time();
    };
    // A serial mesh only: on p4est's mesh distribute_mg_dofs() calls MPI,
    // which deal.II initializes for one thread at a time. And no hanging
    // nodes: the operator's set-up then builds hanging-node constraints,
    // which borrow the mesh's user flags as distribute_mg_dofs() does.
    // Without them nothing until the preconditioner's set-up uses the user
    // flags or the level DoFs.
    dofs_stage_times.level_dofs_in_background =
      level_dofs && dealii::MultithreadInfo::n_threads() > 1 && !triangulation->has_hanging_nodes() &&
      dynamic_cast<const dealii::parallel::TriangulationBase<3> *>(triangulation.get()) == nullptr;
    if (dofs_stage_times.level_dofs_in_background)
      level_dofs_task = dealii::Threads::new_task(distribute_level_dofs);
    else if (level_dofs)
      distribute_level_dofs();
    timer.restart();
    // While a level-DoF task runs (the check reads the active DoFs, the
    // vertices and the constraints, none of which distribute_mg_dofs()
    // writes, and no user flags): a singular problem stops here, before the
    // operator is built.
    check_rigid_body_motions(dof_handler, constraints, parameters.boundary.normal_supports,
                             parameters.boundary.springs);
    check_reactions_on_normal_supports(parameters, dof_handler, constraints);
    level_boundaries = parameters.boundary.dirichlet_boundaries();
    if (level_dofs)
      for (const auto &[id, mask] : normal_support_components(normal_support_axes(parameters, *triangulation)))
        level_boundaries[id] = mask;
    lap(dofs_stage_times.rigid_body_check);
  }

  std::string
  Discretization::dofs_stage_description() const
  {
    std::ostringstream text;
    text << std::setprecision(3) << "id checks " << dofs_stage_times.id_checks << ", distribute "
         << dofs_stage_times.distribute << ", constraints " << dofs_stage_times.constraints << ", rigid-body check "
         << dofs_stage_times.rigid_body_check << ", level DoFs " << dofs_stage_times.level_dofs;
    if (dofs_stage_times.level_dofs_in_background)
      text << " (in the background of the rigid-body check and the operator stage;"
           << " the preconditioner's set-up waited " << dofs_stage_times.level_dofs_wait << " for them)";
    return text.str();
  }

  void
  Discretization::make_fixed_grid_fractions()
  {
    fixed_grid.reset();
    if (parameters.mesh.geometry == GeometryType::fixed_grid)
      {
        fixed_grid = std::make_unique<FixedGridFractions>(parameters.mesh);
        // The cached fractions follow the mesh: forget them when it changes.
        triangulation->signals.any_change.connect([grid = fixed_grid.get()]() { grid->clear(); });
      }
  }

  MechanicsOperator::AdditionalData
  Discretization::operator_data() const
  {
    MechanicsOperator::AdditionalData data = parameters.op.get_additional_data();
    data.boundary_springs                  = parameters.boundary.springs;
    if (parameters.time_integration.is_dynamic())
      data.mass_matrix = parameters.time_integration.mass_matrix;
    if (fixed_grid)
      data.cell_stiffness_factor = [grid = fixed_grid.get()](const dealii::TriaIterator<dealii::CellAccessor<3>> &cell) {
        return grid->stiffness_factor(cell);
      };
    return data;
  }

  void
  Discretization::add_geometry_fields(CellFields &fields) const
  {
    if (!fixed_grid)
      return;
    std::vector<double> fractions;
    for (const auto &cell : triangulation->active_cell_iterators())
      if (cell->is_locally_owned())
        fractions.push_back((*fixed_grid)(cell));
    fields.emplace_back("volume_fraction", std::move(fractions));
  }

  void
  Discretization::setup_operator()
  {
    materials = make_material_table(dof_handler, parameters.materials);
    // The materials of an elastic finite-strain run do not yield (a Hencky
    // material with a yield stress would: the finite-strain state holds its
    // plastic history).
    if (parameters.problem.type == ProblemType::elastic && parameters.problem.kinematics == Kinematics::finite_strain)
      for (auto &[id, m] : materials)
        m = without_yield(m);
    try
      {
        op.reinit(dof_handler, constraints, materials, operator_data());
      }
    catch (const std::invalid_argument &error)
      {
        throw InputError(parameters.mesh.geometry == GeometryType::file ? "Mesh/File" : "Mesh/Distortion", error.what());
      }
  }

  void
  Discretization::initialize_solver(LinearSolver &solver, const bool new_load_step)
  {
    // The multigrid hierarchy reads the level DoFs.
    wait_for_level_dofs();
    solver.initialize(op, dof_handler, materials, level_boundaries, new_load_step);
  }

  DeviceVector
  Discretization::force_at_load_factor_one() const
  {
    DeviceVector force(external_force);
    force.add(1., constant_force);
    for (const AmplifiedForce &amplified : amplified_forces)
      force.add(amplified.amplitude(1.), amplified.force);
    return force;
  }

  void
  Discretization::assemble_external_force()
  {
    const BoundaryParameters &boundary = parameters.boundary;
    std::vector<std::string>  ramped, held;
    amplified_forces.clear();
    follower_pressure.reset();
    follower_pressure_amplitude = {};
    const bool follows = parameters.problem.kinematics == Kinematics::finite_strain && boundary.follower_pressure &&
                         boundary.is_given("pressure");
    for (const std::string &kind : BoundaryParameters::force_kinds())
      {
        const LoadAmplitude amplitude = boundary.amplitude(kind);
        if (follows && kind == "pressure")
          {
            // On the deformed surface: evaluated at every Newton iterate, not assembled here.
            follower_pressure = std::make_unique<FollowerPressure>(dof_handler, op, boundary.pressures());
            if (amplitude.kind() == LoadAmplitude::Kind::constant)
              follower_pressure_amplitude = [](double) { return 1.; };
            else if (!amplitude.follows_load_factor())
              follower_pressure_amplitude = amplitude;
            continue;
          }
        if (amplitude.follows_load_factor())
          ramped.push_back(kind);
        else if (amplitude.kind() == LoadAmplitude::Kind::constant)
          held.push_back(kind);
        else if (boundary.is_given(kind))
          amplified_forces.push_back({kind, amplitude, DeviceVector()});
      }
    dealii::LinearAlgebra::distributed::Vector<double> force(op.get_partitioner());
    // The loads of hanging-node DoFs belong to the DoFs they follow.
    const auto assemble = [&](const std::vector<std::string> &kinds, DeviceVector &result) {
      op.initialize_dof_vector(result);
      if (kinds.empty())
        return;
      plastix::assemble_external_force(dof_handler, boundary, force, kinds);
      result.copy_from_host(force);
      op.condense(result);
    };
    assemble(ramped, external_force);
    assemble(held, constant_force);
    for (AmplifiedForce &amplified : amplified_forces)
      assemble({amplified.kind}, amplified.force);
  }

  dealii::LinearAlgebra::distributed::Vector<double>
  Discretization::to_host(const DeviceVector &u) const
  {
    dealii::IndexSet relevant;
    dealii::DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    dealii::LinearAlgebra::distributed::Vector<double> host(dof_handler.locally_owned_dofs(), relevant,
                                                            communicator);
    u.copy_to_host(host);
    host.update_ghost_values();
    return host;
  }

  std::string
  Discretization::write_vtu(StagedOutput       &output,
                            const DeviceVector &u,
                            const CellFields   &cell_fields,
                            const std::string  &base_name,
                            const unsigned int  counter,
                            const PointFields  &point_fields) const
  {
    // Own writer: deal.II 9.4's DataOut writes cell data as point data of per-cell patches.
    // A fixed grid's kept outside cells (volume fraction 0) are left out of the output.
    std::function<bool(const dealii::DoFHandler<3>::active_cell_iterator &)> write_cell;
    if (fixed_grid && parameters.mesh.fixed_grid.keep_outside_cells)
      write_cell = [this](const dealii::DoFHandler<3>::active_cell_iterator &cell) { return (*fixed_grid)(cell) > 0; };
    return write_vtu_with_cell_data(output.staged_directory(), dof_handler, to_host(u), cell_fields, base_name,
                                    counter, communicator, write_cell, point_fields);
  }
} // namespace plastix
