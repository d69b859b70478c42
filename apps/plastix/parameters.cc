// Reading a parameter file, the subsections Problem and Operator, and the checks across subsections.
#include <deal.II/base/exceptions.h>
#include <deal.II/base/patterns.h>
#include <deal.II/base/utilities.h>

#include <plastix/backend/device.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/solvers/direct_solver.h>

#include "input_checks.h"
#include "mesh_generation.h"
#include "parameter_warnings.h"
#include "parameters.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace plastix
{
  void
  check_includes(const std::string &file, std::vector<std::string> chain)
  {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto      canonical = fs::weakly_canonical(file, ec).string();
    if (std::find(chain.begin(), chain.end(), canonical) != chain.end())
      throw InputError("", "parameter file '" + file + "' includes itself (through " +
                             (chain.size() > 1 ? "'" + chain.back() + "'" : std::string("its own include")) + ")");
    if (chain.size() > 16)
      throw InputError("", "parameter files include each other more than 16 levels deep (at '" + file + "')");
    chain.push_back(canonical);
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
      {
        const std::string t = trim(line.substr(0, line.find('#')));
        if (t.rfind("include", 0) == 0 && t.size() > 7 && std::isspace(static_cast<unsigned char>(t[7])))
          {
            const std::string included = trim(t.substr(7));
            if (!fs::is_regular_file(included, ec))
              throw InputError("", "parameter file '" + file + "' includes '" + included +
                                     "', which is not a readable file");
            check_includes(included, chain);
          }
      }
  }

  std::string
  one_line(const std::string &text)
  {
    std::string result;
    bool        space = false;
    for (const char c : text)
      {
        if (std::isspace(static_cast<unsigned char>(c)))
          space = !result.empty();
        else
          {
            if (space)
              result.push_back(' ');
            space = false;
            result.push_back(c);
          }
      }
    return result;
  }

  void
  check_finite_numbers(const dealii::ParameterHandler &prm)
  {
    // Every entry with its subsection path, from deal.II's short PRM output.
    std::ostringstream printed;
    prm.print_parameters(printed, dealii::ParameterHandler::ShortPRM);
    std::istringstream       lines(printed.str());
    std::vector<std::string> path;
    for (std::string line; std::getline(lines, line);)
      {
        const std::string t = trim(line);
        if (t.rfind("subsection ", 0) == 0)
          path.push_back(trim(t.substr(11)));
        else if (t == "end")
          {
            if (!path.empty())
              path.pop_back();
          }
        else if (t.rfind("set ", 0) == 0)
          {
            const auto eq = t.find('=');
            if (eq == std::string::npos)
              continue;
            std::string entry;
            for (const auto &section : path)
              entry += section + "/";
            entry += trim(t.substr(4, eq - 4));
            // Every token that reads as a number must be finite.
            const std::string value = t.substr(eq + 1);
            std::size_t       begin = 0;
            while (begin < value.size())
              {
                const std::size_t end   = value.find_first_of(",;:= \t", begin);
                const std::string token = value.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
                if (!token.empty())
                  {
                    char        *stop = nullptr;
                    const double x    = std::strtod(token.c_str(), &stop);
                    if (stop != token.c_str() && *stop == '\0' && !std::isfinite(x))
                      throw InputError(entry, "'" + token + "' is not a finite number");
                  }
                if (end == std::string::npos)
                  break;
                begin = end + 1;
              }
          }
      }
  }


  void
  OperatorParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Operator");
    prm.add_parameter("Strategy", strategy,
                      "How cell contributions reach the global vector: element by element with "
                      "atomic adds, element by element by colour (bitwise reproducible), "
                      "DoF by DoF (each node gathers from its cells), or element by element in "
                      "tiles of 128 neighbouring cells that sum in scratch memory and add only "
                      "the nodes shared with other tiles atomically; or assembled: the "
                      "local stiffness matrix (tangent) assembled on the device in CSR form "
                      "and applied as a sparse matrix-vector product (about 0.7 kB of device "
                      "memory per DoF); or dbd structured: DoF by DoF on a lattice of equal boxes "
                      "(no cell -> node table; the 27-point stencil of the box where the eight cells "
                      "of a node agree; plastic cells element by element; generated boxes, voxel "
                      "geometries and fixed grids without distortion or local refinement). auto: "
                      "dbd structured on such lattices; otherwise ebe tiled for elastic runs whose "
                      "cell kernel is element matrix on meshes of congruent cells (one shared "
                      "matrix), and ebe atomic");
    prm.add_parameter("Cell kernel", cell_kernel,
                      "How a cell applies its operator: quadrature with stored inverse "
                      "Jacobians, quadrature with the Jacobian recomputed from the vertices, "
                      "or 24x24 element matrices (one shared by congruent cells, e.g. all "
                      "cells of a uniform mesh). auto: the measured fastest, geometry on the "
                      "fly with dbd structured (it serves only the plastic cells and the "
                      "diagonal there), element matrix for elastic runs on other generated "
                      "meshes of congruent cells, otherwise geometry on the fly on GPUs and "
                      "stored geometry on the host");
    prm.add_parameter("Thread mapping", thread_mapping,
                      "Threads per cell of the element-by-element strategies: cell (one thread "
                      "does a cell), node (eight threads share a cell: one per vertex and Gauss "
                      "point; not with ebe tiled or dbd structured), shuffle (eight threads per "
                      "cell that exchange values through register shuffles; for the quadrature "
                      "cell kernels of ebe atomic, ebe colored and the element-by-element cells "
                      "of dbd structured, those with plastic points; on CPUs one thread holds the "
                      "eight lanes), auto (on GPUs node for ebe colored, shuffle for ebe atomic "
                      "and dbd structured with geometry on the fly; on CPUs shuffle for all three "
                      "with the quadrature kernels; cell otherwise)");
    prm.add_parameter("Element formulation", element_formulation,
                      "Strain of the Gauss points: full (full integration, each point its own "
                      "strain), bbar (small strain: B-bar, mean dilatation: each point keeps its "
                      "deviatoric strain and takes the cell average of the volumetric strain) or "
                      "fbar (finite strain: F-bar, each point keeps the isochoric part of its "
                      "deformation gradient and takes the cell's volume change); both cure the "
                      "volumetric locking of Q1 cells under plastic flow or near "
                      "incompressibility. auto: bbar for small-strain and fbar for finite-strain "
                      "elastoplastic runs (J2 flow is isochoric), full for elastic ones (deal.II's "
                      "step-8 operator; choose bbar or fbar for nearly incompressible materials)");
    prm.add_parameter("Ghost exchange", ghost_exchange,
                      "How MPI ranks exchange the ghost values of their vectors (every operator "
                      "application, transfer and smoother step): mpi (copied to the host, sent "
                      "with MPI and copied back; the host waits for the device twice per "
                      "exchange) or shared memory (ranks of one node read each other's buffers: "
                      "on GPUs one GPU reads the other's memory peer to peer through CUDA IPC, "
                      "ordered by flags that the GPUs' streams write and wait for, with no MPI "
                      "message and no host wait per exchange; on CPUs shared host memory; ranks on other nodes through MPI; an "
                      "error if two ranks of a node cannot map each other's memory). auto: shared "
                      "memory between the ranks of a node that can map each other's GPU memory, "
                      "mpi otherwise and on CPUs");
    prm.leave_subsection();
  }

  namespace
  {
    /** Whether the chosen Krylov method needs a symmetric operator (not yet known for auto). */
    bool
    chosen_solver_needs_symmetric_operator(const AutoOr<SolverType> &type)
    {
      return type.is_resolved() && plastix::needs_symmetric_operator(type.value);
    }

    /** Generated meshes whose cells are translates of each other (one element matrix per material). */
    bool
    congruent_cells(const MeshParameters &mesh)
    {
      return mesh.distortion == 0. && mesh.geometry != GeometryType::cylinder &&
             mesh.geometry != GeometryType::sphere && mesh.geometry != GeometryType::wellbore &&
             mesh.geometry != GeometryType::cook_membrane && mesh.geometry != GeometryType::necking_bar &&
             mesh.geometry != GeometryType::file;
    }

    /**
     * Generated meshes of equal axis-parallel boxes on one lattice (box,
     * cantilever, L-shaped and voxel geometries, the fixed grid; no
     * distortion, no local or adaptive refinement): what dbd structured
     * needs.
     */
    bool
    lattice_mesh(const MeshParameters &mesh)
    {
      return congruent_cells(mesh) && mesh.local_refinements == 0 && !mesh.adaptive.enabled();
    }

    /** Whether @p strategy runs with the thread mapping @p mapping (the backend's rule). */
    bool
    runs_with(const backend::Strategy strategy, const backend::ThreadMapping mapping)
    {
      return backend::thread_mapping_conflict(strategy, mapping).empty();
    }
  } // namespace

  void
  OperatorParameters::resolve_cell_kernel(const ProblemParameters &problem, const MeshParameters &mesh)
  {
    if (cell_kernel.is_resolved())
      return;
    using backend::CellKernel;
    // dbd structured (auto on lattices) computes the lattice's matrices itself; the cell kernel serves its
    // plastic cells and the diagonal, where the geometry on the fly needs no stored data.
    const bool structured = strategy == backend::Strategy::dbd_structured ||
                            (!strategy.is_resolved() && problem.kinematics == Kinematics::small_strain &&
                             lattice_mesh(mesh) && runs_with(backend::Strategy::dbd_structured, thread_mapping));
    if (structured)
      cell_kernel.resolve(CellKernel::geometry_on_the_fly);
    else if (!problem.is_incremental() && congruent_cells(mesh))
      cell_kernel.resolve(CellKernel::element_matrix);
    else
      cell_kernel.resolve(backend::device_memory_is_separate() ? CellKernel::geometry_on_the_fly :
                                                                 CellKernel::stored_geometry);
  }


  void
  OperatorParameters::resolve_strategy(const ProblemParameters &problem, const MeshParameters &mesh)
  {
    if (strategy.is_resolved())
      return;
    if (problem.kinematics == Kinematics::small_strain && lattice_mesh(mesh) &&
        runs_with(backend::Strategy::dbd_structured, thread_mapping))
      strategy.resolve(backend::Strategy::dbd_structured);
    else
      strategy.resolve(!problem.is_incremental() && cell_kernel == backend::CellKernel::element_matrix &&
                           congruent_cells(mesh) && runs_with(backend::Strategy::ebe_tiled, thread_mapping) ?
                         backend::Strategy::ebe_tiled :
                         backend::Strategy::ebe_atomic);
  }

  void
  OperatorParameters::resolve_element_formulation(const ProblemParameters &problem)
  {
    if (element_formulation.is_resolved())
      return;
    // B-bar is the small-strain formulation, F-bar the finite-strain one.
    element_formulation.resolve(problem.type != ProblemType::elastoplastic ? backend::ElementFormulation::full :
                                problem.kinematics == Kinematics::small_strain ? backend::ElementFormulation::bbar :
                                                                                 backend::ElementFormulation::fbar);
  }

  MechanicsOperator::AdditionalData
  OperatorParameters::get_additional_data() const
  {
    return {strategy.is_resolved() ? strategy.value : backend::Strategy::ebe_atomic,
            cell_kernel.is_resolved() ? cell_kernel.value : backend::CellKernel::stored_geometry,
            thread_mapping,
            element_formulation.is_resolved() ? element_formulation.value : backend::ElementFormulation::full};
  }

  std::string
  OperatorParameters::description(const backend::ThreadMapping resolved_mapping) const
  {
    std::string text = strategy.description() + " / " + cell_kernel.description();
    if (resolved_mapping == backend::ThreadMapping::node ||
        backend::cells_on_shuffle_lanes(resolved_mapping, cell_kernel.value))
      text += std::string(resolved_mapping == backend::ThreadMapping::shuffle ? " / shuffle lanes" : " / node threads") +
              (thread_mapping == backend::ThreadMapping::automatic ? " (auto)" : "");
    if (element_formulation == backend::ElementFormulation::bbar)
      text += " / B-bar" + std::string(element_formulation.automatic ? " (auto)" : "");
    else if (element_formulation == backend::ElementFormulation::fbar)
      text += " / F-bar" + std::string(element_formulation.automatic ? " (auto)" : "");
    return text;
  }

  void
  ProblemParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Problem");
    prm.add_parameter("Type", type,
                      "elastic: linear elasticity, one linear solve at load factor 1 (the monitor's CSV "
                      "row of each load factor of 'Load stepping' scales it); elastoplastic: von "
                      "Mises (J2), Mohr-Coulomb or Drucker-Prager plasticity (Materials/Yield "
                      "criterion) with Newton iterations over the load steps of 'Load stepping'");
    prm.add_parameter("Kinematics", kinematics,
                      "small strain, or finite strain: total-Lagrangian hyperelasticity (compressible "
                      "neo-Hookean, or Mooney-Rivlin with Materials/Second shear modulus; Problem/Type = "
                      "elastic) solved by Newton iterations over the load steps of 'Load stepping'");
    prm.leave_subsection();
  }

  bool
  ProblemParameters::is_incremental() const
  {
    return type == ProblemType::elastoplastic || kinematics == Kinematics::finite_strain;
  }

  void
  Parameters::declare(dealii::ParameterHandler &prm)
  {
    problem.declare(prm);
    load_stepping.declare(prm);
    newton.declare(prm);
    time_integration.declare(prm);
    monitor.declare(prm);
    mesh.declare(prm);
    materials.declare(prm);
    initial_stress.declare(prm);
    boundary.declare(prm);
    op.declare(prm);
    solver.declare(prm);
    output.declare(prm);
    declare_renamed_entries(prm);
  }

  void
  Parameters::read(dealii::ParameterHandler &prm, const std::string &file)
  {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(file, ec))
      throw InputError("", "cannot open parameter file '" + file + "': no such file");
    if (!fs::is_regular_file(file, ec))
      throw InputError("", "parameter file '" + file + "' is not a regular file");
    std::string text;
    {
      std::ifstream in(file);
      if (!in)
        throw InputError("", "cannot open parameter file '" + file + "'");
      std::stringstream buffer;
      buffer << in.rdbuf();
      text = buffer.str();
    }
    // An empty file (or one of comments only) would silently run the default
    // problem: that is almost certainly not what was meant.
    bool sets_an_entry = false;
    {
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);)
        {
          const std::string t = trim(line);
          if (t.rfind("set ", 0) == 0 || t.rfind("set\t", 0) == 0)
            sets_an_entry = true;
        }
    }
    check_includes(file, {});
    if (!sets_an_entry)
      throw InputError("", "parameter file '" + file +
                             "' sets no entry (start from the output of 'plastix --print-parameters')");
    try
      {
        prm.parse_input(file, "", false, true);
      }
    catch (const dealii::ExceptionBase &error)
      {
        std::ostringstream message;
        error.print_info(message);
        throw InputError("", "in parameter file '" + file + "': " + one_line(message.str()));
      }
    check_finite_numbers(prm);
    file_text = text;
    check();
    warnings = parameter_warnings(*this, entries_set_in(text));
  }

  bool
  Parameters::has_symmetric_tangent() const
  {
    // The finite-strain tangent is symmetric (hyperelastic), but for a follower pressure's load stiffness.
    if (problem.kinematics == Kinematics::finite_strain && boundary.follower_pressure && boundary.is_given("pressure"))
      return false;
    if (problem.type != ProblemType::elastoplastic || newton.tangent != NewtonTangent::consistent)
      return true;
    bool symmetric = materials.default_material.has_symmetric_tangent();
    for (const auto &[id, m] : materials.per_material_id)
      symmetric = symmetric && m.has_symmetric_tangent();
    return symmetric;
  }

  void
  Parameters::resolve_solver_type()
  {
    if (solver.type.is_resolved())
      return;
    // The sparse direct solver where it can take the problem and the user
    // chose no preconditioner or strategy of the iterative path.
    const double limit  = problem.is_incremental() ? SolverParameters::direct_solver_work_elastoplastic :
                                                                          SolverParameters::direct_solver_work;
    const bool   direct = !solver.preconditioner.is_resolved() &&
                        (op.strategy.automatic || op.strategy.value == backend::Strategy::assembled) &&
                        mesh.local_refinements == 0 && !mesh.adaptive.enabled() &&
                        estimate_direct_solver_work(mesh) <= limit;
    solver.type.resolve(direct ? SolverType::direct : has_symmetric_tangent() ? SolverType::cg : SolverType::gmres);
  }

  void
  Parameters::check()
  {
    mesh.check();
    materials.check();
    initial_stress.check();
    boundary.check();
    load_stepping.check();
    monitor.check();
    resolve_solver_type();
    // The direct solver factorizes the matrix that the assembled strategy
    // builds on the device: auto takes it.
    if (solver.type == SolverType::direct)
      op.strategy.resolve(backend::Strategy::assembled);
    if (!solver.direct_package.automatic && !DirectSolver::available(solver.direct_package.value))
      throw InputError("Linear solver/Direct solver package",
                       enum_name(solver.direct_package.value) +
                         " is not in this build's Trilinos Amesos: use KLU or auto");
    op.resolve_cell_kernel(problem, mesh);
    op.resolve_strategy(problem, mesh);
    op.resolve_element_formulation(problem);
    time_integration.check();
    if (problem.kinematics == Kinematics::finite_strain)
      check_finite_strain();
    else if (op.element_formulation == backend::ElementFormulation::fbar)
      throw InputError("Operator/Element formulation", "F-bar is a finite-strain element formulation; small strain "
                                                       "takes bbar (B-bar) or full");
    else if (boundary.follower_pressure)
      throw InputError("Boundary conditions/Follower pressure",
                       "a pressure on the deformed surface needs Problem/Kinematics = finite strain (small "
                       "strain has one configuration)");
    if (time_integration.is_dynamic())
      check_dynamics();
    if (problem.type == ProblemType::elastoplastic)
      {
        bool yields = materials.default_material.can_yield();
        for (const auto &[id, m] : materials.per_material_id)
          yields = yields || m.can_yield();
        if (!yields)
          throw InputError("Materials/Yield stress",
                           "Problem type is elastoplastic but no material can yield (a positive yield stress, "
                           "or Yield criterion = Mohr-Coulomb or Drucker-Prager)");
        // Before any mesh is built: the Newton solves of a non-symmetric
        // consistent tangent need a Krylov method for it.
        if (!has_symmetric_tangent() && chosen_solver_needs_symmetric_operator(solver.type))
          throw InputError("Linear solver/Type",
                           enum_name(solver.type.value) + " needs a symmetric operator, but the consistent tangent is "
                           "not (a dilation angle below the friction angle): use gmres or belos gmres, or "
                           "Newton/Tangent = initial stiffness");
      }
    else if (!initial_stress.is_zero())
      throw InputError("Initial stress/Stress",
                       "an initial stress needs Problem/Type = elastoplastic (it lives in the Gauss-point state)");
    check_operator_and_solver();
    check_supports_and_preconditioner();
    if (mesh.adaptive.enabled() && (problem.type != ProblemType::elastoplastic || time_integration.is_dynamic()))
      throw InputError("Mesh/Adaptive refinement/Indicator",
                       "adapts the mesh between load steps, which only elastoplastic runs have (Problem/Type); "
                       "dynamic runs do not adapt either");
    if (solver.preconditioner == PreconditionerType::multigrid && mesh.global_refinements == 0)
      throw InputError("Linear solver/Preconditioner",
                       "multigrid needs mesh levels: set 'Mesh/Global refinements' >= 1 (or use chebyshev)");
    check_output();
    check_memory_estimate(*this);
  }

  void
  Parameters::check_finite_strain() const
  {
    if (problem.type == ProblemType::elastoplastic)
      {
        // Plasticity at finite strain is formulated in the logarithmic strain.
        const auto check_hencky = [](const MaterialDescription &m, const std::string &where) {
          if (m.can_yield() && m.strain_energy != backend::StrainEnergy::hencky)
            throw InputError(where, "an elastoplastic material at finite strain needs Strain energy = Hencky "
                                    "(plasticity in the logarithmic strain), not " +
                                      enum_name(m.strain_energy));
        };
        check_hencky(materials.default_material, "Materials/Strain energy");
        for (const auto &[id, m] : materials.per_material_id)
          check_hencky(m, "Materials/Per material id");
      }
    if (op.strategy == backend::Strategy::dbd_structured)
      throw InputError("Operator/Strategy", "dbd structured computes small-strain lattice matrices; finite strain "
                                            "needs another strategy (or auto)");
    if (op.cell_kernel == backend::CellKernel::element_matrix)
      throw InputError("Operator/Cell kernel", "element matrix stores small-strain matrices; finite strain needs "
                                               "stored geometry or geometry on the fly (or auto)");
    if (op.element_formulation == backend::ElementFormulation::bbar)
      throw InputError("Operator/Element formulation", "B-bar is a small-strain element formulation; finite strain "
                                                       "takes fbar (F-bar) or full");
    if (newton.tangent == NewtonTangent::initial_stiffness)
      throw InputError("Newton/Tangent", "initial stiffness is a method for plasticity; finite strain takes the "
                                         "consistent tangent");
    // Central differences solve no linear system.
    const bool solves =
      !time_integration.is_dynamic() || time_integration.integrator != TimeIntegrator::central_differences;
    if (!has_symmetric_tangent() && chosen_solver_needs_symmetric_operator(solver.type) && solves)
      throw InputError("Linear solver/Type",
                       enum_name(solver.type.value) + " needs a symmetric operator, but the tangent " +
                         (boundary.follower_pressure ? std::string("with a follower pressure") :
                                                       std::string("of a dilation angle below the friction angle")) +
                         " is not: use gmres, belos gmres or direct (or auto)");
    // Checkpoints of finite-strain runs: elastoplastic (u and the history) and dynamic ones (u, v and a).
    const bool restartable = time_integration.is_dynamic() || problem.type == ProblemType::elastoplastic;
    if (output.checkpoint_interval > 0 && !restartable)
      throw InputError("Output/Checkpoint interval", "quasi-static elastic runs write no checkpoints "
                                                     "(restart is for elastoplastic and dynamic runs)");
    if (load_stepping.steps_per_run > 0 && !restartable)
      throw InputError("Load stepping/Steps per run", "a quasi-static elastic run is not continued from a "
                                                      "checkpoint: it runs all its load steps");
  }

  void
  Parameters::check_operator_and_solver() const
  {
    if (solver.type == SolverType::direct)
      {
        if (!(op.strategy == backend::Strategy::assembled))
          throw InputError("Linear solver/Type",
                           "direct factorizes the matrix assembled on the device: set Operator/Strategy = "
                           "assembled or auto, not " + backend::to_string(op.strategy.value));
      }
    const std::string conflict = backend::thread_mapping_conflict(op.strategy.value, op.thread_mapping);
    if (!conflict.empty())
      throw InputError("Operator/Thread mapping", conflict);
    // A mesh file may be a lattice (the backend checks it); generated meshes are known here.
    if (op.strategy == backend::Strategy::dbd_structured && mesh.geometry != GeometryType::file && !lattice_mesh(mesh))
      throw InputError("Operator/Strategy",
                       "dbd structured needs a mesh of equal axis-parallel boxes on one lattice, but " +
                         std::string(mesh.distortion != 0. ? "'Mesh/Distortion' moves the vertices" :
                                     mesh.local_refinements > 0 ? "'Mesh/Local refinements' makes hanging nodes" :
                                     mesh.adaptive.enabled()    ? "adaptive refinement makes hanging nodes" :
                                                                  "this geometry's cells are not boxes") +
                         ": use auto or another strategy");
    if (solver.divergence_factor > 0 && solver.divergence_factor <= 1)
      {
        std::ostringstream value;
        value << solver.divergence_factor;
        throw InputError("Linear solver/Divergence factor", "must be 0 (never) or greater than 1, not " + value.str());
      }
    if (solver.multigrid.level_precision == LevelPrecision::single_precision && !solver.is_conjugate_gradients())
      throw InputError("Linear solver/Multigrid level precision",
                       "single needs Type = cg or belos cg (" + enum_name(solver.type.value) +
                         " assumes a preconditioner that is linear to double precision): use double or auto");
  }

  void
  Parameters::check_supports_and_preconditioner()
  {
    // The multigrid levels know prescribed components only: a normal
    // support normal to an axis is one, an inclined or curved one is not
    // (checked on the mesh, normal_support_components(); auto then takes
    // chebyshev, LinearSolver::automatic_preconditioner()).
    // The reaction of a spring face is the springs' force; with prescribed
    // components on the same face it would mix two kinds of support.
    for (const auto id : monitor.reaction_ids)
      if (boundary.springs.count(id) > 0)
        {
          bool supported = std::find(boundary.normal_supports.begin(), boundary.normal_supports.end(), id) !=
                           boundary.normal_supports.end();
          for (const auto &d : boundary.dirichlet)
            supported = supported || d.boundary_id == id;
          if (supported)
            throw InputError("Monitor/Reactions", "boundary id " + std::to_string(id) +
                                                    " has springs and a Dirichlet condition or normal support; its "
                                                    "reaction would mix the two: give the springs a boundary id of "
                                                    "their own");
        }
    if (solver.preconditioner == PreconditionerType::multigrid && mesh.local_refinements > 0)
      throw InputError("Linear solver/Preconditioner",
                       "multigrid needs a uniformly refined mesh, but 'Mesh/Local refinements' makes hanging "
                       "nodes: use auto, chebyshev, jacobi or amg");
    if (solver.preconditioner == PreconditionerType::multigrid && mesh.adaptive.enabled())
      throw InputError("Linear solver/Preconditioner",
                       "multigrid needs a uniformly refined mesh, but 'Mesh/Adaptive refinement' makes hanging "
                       "nodes: use auto, chebyshev, jacobi or amg");
  }
} // namespace plastix
