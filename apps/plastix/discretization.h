// The pieces every plastix run needs: mesh, DoFs, constraints, materials, the
// device operator and the external force; plus VTU output of a solution.
#ifndef PLASTIX_APP_DISCRETIZATION_H
#define PLASTIX_APP_DISCRETIZATION_H

#include <deal.II/base/thread_management.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/follower_pressure.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/solvers/linear_solver.h>

#include "mesh_generation.h"
#include "output.h"
#include "parameters.h"
#include "vtu_writer.h"

#include <functional>
#include <list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace plastix
{
  /**
   * Mesh, FESystem(FE_Q(1),3) DoFs, Dirichlet constraints (load factor 1),
   * material table, device operator and external force (load factor 1) of a
   * run, built in stages so that a driver can time them.
   */
  class Discretization
  {
  public:
    Discretization(const Parameters &parameters, MPI_Comm communicator);

    /** Waits for the level DoFs if they are still being distributed. */
    ~Discretization();

    /**
     * Create (or read) and refine the mesh: a serial dealii::Triangulation
     * on one rank (p4est's forest costs most of the set-up there and gives
     * nothing), a parallel::distributed::Triangulation on more.
     */
    void
    make_mesh();

    /**
     * Instead of make_mesh(): the mesh saved in @p file (a checkpoint's,
     * see checkpoint_mesh_file()) on the coarse mesh of the parameters, as
     * a parallel::distributed::Triangulation on any number of ranks.
     */
    void
    load_mesh(const std::string &file);

    /**
     * The parameter file text a checkpoint stores: the parameters read, with
     * a mesh file named by its absolute path so that a restart finds it from
     * any working directory.
     */
    std::string
    checkpoint_parameter_text() const;

    /** Distribute DoFs, build constraints, materials and the device operator. */
    void
    setup();

    /**
     * The first part of setup(): mesh ids checked, DoFs distributed, Dirichlet
     * constraints, the level DoFs of a multigrid hierarchy, and the
     * rigid-body check. On one process with more than one host thread and a
     * mesh without hanging nodes the level DoFs are distributed by a task
     * that runs on while the Dirichlet constraints are built, the rigid-body
     * check runs (it reads only the active DoFs, the vertices and the
     * constraints), setup_operator() builds the operator and the driver
     * assembles the loads and sets up the Gauss-point state and the monitor;
     * initialize_solver() waits for it. These touch the active DoFs and the
     * mesh, the task the level DoFs and the mesh's user flags, which none of
     * them uses (deal.II's hanging-node constraints would: with hanging
     * nodes the level DoFs are distributed in line, after the constraints).
     * On several processes distribute_mg_dofs() communicates and runs in
     * line.
     */
    void
    setup_dofs();

    /** Wall time [s] of the parts of the last setup_dofs() on this process. */
    struct DofsStageTimes
    {
      /** Material and boundary ids checked against the parameters. */
      double id_checks = 0.;
      /** DoFHandler::distribute_dofs(). */
      double distribute = 0.;
      /**
       * DoFHandler::distribute_mg_dofs() (runs with a multigrid hierarchy
       * only), from its start to its end, also where it ran in the background.
       */
      double level_dofs = 0.;
      /**
       * Whether the level DoFs were distributed in the background of the
       * constraints, the rigid-body check and the operator stage.
       */
      bool level_dofs_in_background = false;
      /** How long the first initialize_solver() (the preconditioner's set-up) waited for them. */
      double level_dofs_wait = 0.;
      /** The Dirichlet constraints. */
      double constraints = 0.;
      /** The check that the constraints hold every rigid-body motion. */
      double rigid_body_check = 0.;
    };

    /** Parts of the last setup_dofs(). */
    DofsStageTimes dofs_stage_times;

    /** dofs_stage_times in one line, e.g. "distribute 0.9, level DoFs 0.6, ...". */
    std::string
    dofs_stage_description() const;

    /**
     * The second part of setup(): the material table and the device
     * operator. The level DoFs of setup_dofs() may still be distributed in
     * the background: initialize_solver() waits for them, and nothing in
     * between may read the level DoFs or use the mesh's user flags.
     */
    void
    setup_operator();

    /**
     * The device operator's choices of the parameters ('Operator'), with
     * the fixed grid's stiffness factors for Geometry = fixed grid: the data
     * of the operator and of the preconditioners' levels.
     */
    MechanicsOperator::AdditionalData
    operator_data() const;

    /** Make fixed_grid for Geometry = fixed grid (after the mesh was made or loaded). */
    void
    make_fixed_grid_fractions();

    /** Append the cell fields of the geometry (fixed grid: volume_fraction) to @p fields. */
    void
    add_geometry_fields(CellFields &fields) const;

    /**
     * (Re)build the preconditioner of @p solver for the operator, DoFHandler,
     * materials and Dirichlet boundaries of this discretization; first waits
     * for the level DoFs of setup_dofs() where they are still being
     * distributed in the background.
     */
    void
    initialize_solver(LinearSolver &solver, bool new_load_step = true);

    /**
     * Assemble the external forces (host) and copy them to the device:
     * external_force, the loads that follow the load factor (at factor 1),
     * constant_force, those of 'Boundary conditions/Constant loads', and
     * amplified_forces, one for each kind of load given with an amplitude
     * ('Boundary conditions/Amplitudes'); the pressures go to
     * follower_pressure instead when they follow the deformation.
     */
    void
    assemble_external_force();

    /**
     * The external force of every load at load factor 1 (after
     * assemble_external_force()): external_force, constant_force and each of
     * amplified_forces times its amplitude at 1.
     */
    DeviceVector
    force_at_load_factor_one() const;

    /** Copy @p u to a host vector with the locally relevant ghosts updated. */
    dealii::LinearAlgebra::distributed::Vector<double>
    to_host(const DeviceVector &u) const;

    /**
     * Write displacement @p u and @p cell_fields as VTU/PVTU into @p output
     * (staged), named base_name_<counter>; returns the PVTU file name.
     */
    std::string
    write_vtu(StagedOutput       &output,
              const DeviceVector &u,
              const CellFields   &cell_fields,
              const std::string  &base_name,
              unsigned int        counter,
              const PointFields  &point_fields = {}) const;

    const Parameters                          &parameters;
    MPI_Comm                                   communicator;
    /**
     * The volume fractions of Geometry = fixed grid (else null). Declared
     * before the mesh, so that it outlives it: the mesh's signals clear its
     * cache.
     */
    std::unique_ptr<FixedGridFractions>        fixed_grid;
    /** The mesh (made by make_mesh() or load_mesh()). */
    std::unique_ptr<dealii::Triangulation<3>>  triangulation;
    dealii::FESystem<3>                             fe;
    dealii::DoFHandler<3>                           dof_handler;
    dealii::AffineConstraints<double>               constraints;
    MaterialTable                                   materials;
    MechanicsOperator                               op;
    /** External force of the loads that follow the load factor, at load factor 1 (device). */
    DeviceVector external_force;
    /** External force of the constant loads (device; zero without them). */
    DeviceVector constant_force;
    /** A kind of load with its own amplitude: its force at amplitude 1. */
    struct AmplifiedForce
    {
      /** The kind (one of BoundaryParameters::force_kinds()). */
      std::string kind;
      /** Its amplitude over the load factor. */
      LoadAmplitude amplitude;
      /** Its external force at amplitude 1 (device). */
      DeviceVector force;
    };
    /**
     * The kinds of load given with an amplitude (a list: the Newton
     * iteration keeps references to the forces).
     */
    std::list<AmplifiedForce> amplified_forces;
    /**
     * The pressures when they follow the deformation ('Boundary
     * conditions/Follower pressure'; then not part of the forces above),
     * else null; made by assemble_external_force().
     */
    std::unique_ptr<FollowerPressure> follower_pressure;
    /** The amplitude of the follower pressure over the load factor (empty: the load factor). */
    std::function<double(double)> follower_pressure_amplitude;

  private:
    /**
     * The boundaries whose components the preconditioner's multigrid levels
     * fix: the Dirichlet ones and, with multigrid, the normal supports (each
     * normal to one axis, whose component it fixes).
     */
    DirichletBoundaries level_boundaries;

    /** Join the level-DoF task of setup_dofs() (if any); rethrows what it threw. */
    void
    wait_for_level_dofs();

    /** distribute_mg_dofs() running in the background of the operator stage (declared last: joined first). */
    dealii::Threads::Task<void> level_dofs_task;
  };
} // namespace plastix

#endif
