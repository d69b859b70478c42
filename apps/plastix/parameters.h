// Run parameters of the plastix application, read from a .prm file with
// deal.II's ParameterHandler. Each struct declares and reads one subsection
// (the ExaDG/Lethe pattern).
#ifndef PLASTIX_APP_PARAMETERS_H
#define PLASTIX_APP_PARAMETERS_H

#include <deal.II/base/parameter_handler.h>
#include <deal.II/base/point.h>
#include <deal.II/base/symmetric_tensor.h>
#include <deal.II/base/types.h>

#include <plastix/base/enum_patterns.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/runtime.h>
#include <plastix/material/material.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/load_stepping.h>
#include <plastix/solvers/newton.h>
#include <plastix/solvers/solver_types.h>
#include <plastix/solvers/time_integration.h>

#include "load_amplitude.h"
#include "parameter_parsing.h"
#include "voxel_image.h"

#include <array>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace plastix
{
  /** The geometries of 'Mesh/Geometry' (MeshParameters::declare() describes each). */
  enum class GeometryType
  {
    box,
    cantilever,
    l_shaped,
    l_bracket,
    plate_with_holes,
    cutout_cantilever,
    cylinder,
    sphere,
    /** A quarter annulus slab graded radially (the wellbore cross-section in plane strain). */
    wellbore,
    /**
     * Cook's membrane: the tapered panel with the corners (0, 0), (48, 44),
     * (48, 60), (0, 44) in x-y, 1 thick in z (the finite-strain benchmark).
     */
    cook_membrane,
    /**
     * A quarter of a solid round bar (axis z) of 'Outer radius' and
     * 'Cylinder length' whose radius falls linearly to (1 - 'Neck
     * imperfection') times it at z = 0, the plane of the neck (the necking
     * benchmark of large-strain plasticity).
     */
    necking_bar,
    /**
     * A body given as a function, embedded in a fixed grid of equal cells
     * (the fixed-grid method): cells cut by the body's boundary get a
     * stiffness factor from their material volume fraction.
     */
    fixed_grid,
    /** A gmsh or Abaqus file. */
    file
  };

  template <>
  struct EnumNames<GeometryType>
  {
    static constexpr const char *what = "geometry";
    static std::vector<std::pair<GeometryType, std::string>>
    table()
    {
      return {{GeometryType::box, "box"},
              {GeometryType::cantilever, "cantilever"},
              {GeometryType::l_shaped, "L-shaped"},
              {GeometryType::l_bracket, "L-bracket"},
              {GeometryType::plate_with_holes, "plate with holes"},
              {GeometryType::cutout_cantilever, "cut-out cantilever"},
              {GeometryType::cylinder, "cylinder"},
              {GeometryType::sphere, "sphere"},
              {GeometryType::wellbore, "wellbore"},
              {GeometryType::cook_membrane, "Cook's membrane"},
              {GeometryType::necking_bar, "necking bar"},
              {GeometryType::fixed_grid, "fixed grid"},
              {GeometryType::file, "file"}};
    }
  };

  /** Elastic or elastoplastic run ('Problem/Type'). */
  enum class ProblemType
  {
    /** One linear solve. */
    elastic,
    /** Plasticity (von Mises, Mohr-Coulomb, Drucker-Prager) with Newton-Raphson over load steps. */
    elastoplastic
  };

  template <>
  struct EnumNames<ProblemType>
  {
    static constexpr const char *what = "problem type";
    static std::vector<std::pair<ProblemType, std::string>>
    table()
    {
      return {{ProblemType::elastic, "elastic"}, {ProblemType::elastoplastic, "elastoplastic"}};
    }
  };

  /** The kinematics of the run ('Problem/Kinematics'). */
  enum class Kinematics
  {
    /** Small strains and displacements: the strain is the symmetric gradient of u. */
    small_strain,
    /**
     * Total-Lagrangian finite strain: F = I + Grad u, hyperelastic materials
     * (compressible neo-Hookean or Mooney-Rivlin), Newton-Raphson over the
     * load steps.
     */
    finite_strain
  };

  template <>
  struct EnumNames<Kinematics>
  {
    static constexpr const char *what = "kinematics";
    static std::vector<std::pair<Kinematics, std::string>>
    table()
    {
      return {{Kinematics::small_strain, "small strain"}, {Kinematics::finite_strain, "finite strain"}};
    }
  };

  /** What marks cells for adaptive refinement between load steps ('Mesh/Adaptive refinement/Indicator'). */
  enum class RefinementIndicator
  {
    /** No adaptive refinement. */
    none,
    /** deal.II's KellyErrorEstimator on the displacement (jumps of its gradient across faces). */
    kelly,
    /**
     * The increment of equivalent plastic strain over the last load step
     * (cell average over the Gauss points) times the cell diameter.
     */
    plastic_strain_increment
  };

  template <>
  struct EnumNames<RefinementIndicator>
  {
    static constexpr const char *what = "refinement indicator";
    static std::vector<std::pair<RefinementIndicator, std::string>>
    table()
    {
      return {{RefinementIndicator::none, "none"},
              {RefinementIndicator::kelly, "kelly"},
              {RefinementIndicator::plastic_strain_increment, "plastic strain increment"}};
    }
  };
} // namespace plastix

namespace plastix
{
  template <>
  struct EnumNames<VoxelType>
  {
    static constexpr const char *what = "voxel type";
    static std::vector<std::pair<VoxelType, std::string>>
    table()
    {
      return {{VoxelType::uint8, "uint8"},     {VoxelType::int8, "int8"},   {VoxelType::uint16, "uint16"},
              {VoxelType::int16, "int16"},     {VoxelType::uint32, "uint32"}, {VoxelType::int32, "int32"},
              {VoxelType::float32, "float32"}, {VoxelType::float64, "float64"}};
    }
  };
} // namespace plastix

PLASTIX_ENUM_PATTERN(plastix::GeometryType)
PLASTIX_ENUM_PATTERN(plastix::VoxelType)
PLASTIX_ENUM_PATTERN(plastix::ProblemType)
PLASTIX_ENUM_PATTERN(plastix::Kinematics)
PLASTIX_ENUM_PATTERN(plastix::RefinementIndicator)

namespace plastix
{
  /** Subsection "Mesh/Adaptive refinement": refinement and coarsening between load steps. */
  struct AdaptiveRefinementParameters
  {
    /** What marks the cells; none switches adaptivity off. */
    RefinementIndicator indicator = RefinementIndicator::none;
    /** Fraction of the active cells (largest indicator first) refined each time. */
    double refine_fraction = 0.3;
    /** Fraction of the active cells (smallest indicator first) coarsened each time. */
    double coarsen_fraction = 0.;
    /** No cell is refined beyond this level (0 = the coarse mesh). */
    unsigned int maximum_level = 4;
    /** Adapt after every interval-th converged load step. */
    unsigned int interval = 1;

    /** True if the mesh changes between load steps. */
    bool
    enabled() const
    {
      return indicator != RefinementIndicator::none;
    }

    /** Whether the mesh is adapted after converged load step @p step (1-based) when @p step is not the last. */
    bool
    due_after(const unsigned int step) const
    {
      return enabled() && step > 0 && step % interval == 0;
    }
  };

  /** Subsection "Mesh". */
  /** Subsection "Mesh/Fixed grid": the body and its volume fractions. */
  struct FixedGridParameters
  {
    /** FunctionParser expression of x, y, z (pi known): the body is where it is negative. */
    std::string body;
    /** A voxel image as the body instead (NRRD, or a raw volume described by image_size and image_type). */
    std::string image_file;
    /** Voxels in x, y, z of a raw image file (NRRD files carry their own). */
    std::vector<unsigned int> image_size{0, 0, 0};
    /** Voxel type of a raw image file. */
    VoxelType image_type = VoxelType::uint8;
    /** The body of an image is where the voxel value is at least this. */
    double threshold = 0.5;
    /**
     * 'Material regions': "id: expression; ..."; a cell takes the id of the
     * first region whose expression (of x, y, z and v, the body's value:
     * the image value or the Body expression) is negative at its centre.
     */
    std::string material_regions;
    /** Sample points per direction and cell for the volume fraction (samples^3 per cell). */
    unsigned int samples = 4;
    /** Delta: the stiffness factor of a cell is xi + Delta (1 - xi), xi its volume fraction. */
    double void_stiffness = 1e-6;
    /** Keep the cells outside the body (xi = 0, stiffness factor Delta) in the mesh. */
    bool keep_outside_cells = false;
  };

  struct MeshParameters
  {
    /** The geometry (see declare() for each). */
    GeometryType geometry = GeometryType::box;
    /** Lower and upper corner of box-like geometries. */
    dealii::Point<3> lower_corner{0., 0., 0.};
    dealii::Point<3> upper_corner{1., 1., 1.};
    /** Coarse cells per direction. */
    std::vector<unsigned int> subdivisions{4, 4, 4};
    /** Uniform refinements after creation. */
    unsigned int global_refinements = 0;
    /**
     * Local refinements after the uniform ones: each refines the active cells
     * whose centre makes local_refinement_region positive (hanging nodes).
     */
    unsigned int local_refinements = 0;
    /** FunctionParser expression of x, y, z (and pi): where to refine locally. */
    std::string local_refinement_region;
    /** Refinement and coarsening between load steps. */
    AdaptiveRefinementParameters adaptive;
    /** Random displacement of interior vertices, as a fraction of the shortest adjacent edge (plastix's own, a function of the vertex position, so that every rank moves a vertex alike). */
    double distortion = 0.;
    /** Mesh file (gmsh .msh or Abaqus .inp) for geometry = file. */
    std::string file;
    /** Factor applied to the coordinates of a mesh file. */
    double scale = 1.;
    /** Radii of the cylinder and sphere geometries (the necking bar: its outer radius). */
    double inner_radius = 1., outer_radius = 2.;
    /** Axial length of the cylinder and necking bar geometries (the thickness of the wellbore slab). */
    double cylinder_length = 0.25;
    /** Necking bar: the relative reduction of the radius at z = 0, the imperfection that starts the neck. */
    double neck_imperfection = 0.018;
    /** Wellbore geometry: ratio of the radial sizes of neighbouring coarse cells (1: uniform). */
    double radial_growth = 1.;
    /** The body of Geometry = fixed grid. */
    FixedGridParameters fixed_grid;

    void
    declare(dealii::ParameterHandler &prm);
    /** Check values that ParameterHandler's patterns cannot check. */
    void
    check() const;
  };

  /**
   * One material: elastic constants and, for plasticity, the yield data of
   * its criterion (von Mises: yield stress and hardening moduli;
   * Mohr-Coulomb and Drucker-Prager: cohesion, angles, cohesion hardening,
   * and for Drucker-Prager the cone matching). The entries of the other
   * criteria are not used.
   */
  struct MaterialDescription
  {
    double young_modulus       = 200e9;
    double poisson_ratio       = 0.3;
    /** Which yield surface (and flow rule) the material has. */
    backend::YieldCriterion criterion = backend::YieldCriterion::von_mises;
    double yield_stress        = 0.;
    double isotropic_hardening = 0.;
    double kinematic_hardening = 0.;
    /** Voce saturation yield stress sigma_inf (0: linear isotropic hardening only). */
    double saturation_yield_stress = 0.;
    /** Voce saturation rate delta. */
    double saturation_rate = 0.;
    /** A tabulated yield stress, 'alpha: sigma_y; ...' (empty: none). */
    std::string hardening_curve;
    /** Cohesion c (stress units). */
    double cohesion = 0.;
    /** Friction angle phi in degrees. */
    double friction_angle = 0.;
    /** Dilation angle psi in degrees, or "associative" (psi = phi). */
    std::string dilation_angle = "associative";
    /** Cohesion increase per unit accumulated plastic strain. */
    double cohesion_hardening = 0.;
    /** How a Drucker-Prager cone matches the Mohr-Coulomb pyramid. */
    ConeMatching cone_matching = ConeMatching::outer;
    /** The Mooney-Rivlin modulus mu2 at finite strain (0: neo-Hookean). */
    double second_shear_modulus = 0.;
    /** The strain energy at finite strain. */
    backend::StrainEnergy strain_energy = backend::StrainEnergy::mooney_rivlin;
    /** Mass density (dynamics, 'Time integration'); 0: none given. */
    double density = 0.;

    /**
     * The backend material (make_material(), make_mohr_coulomb() or
     * make_drucker_prager(), with the finite-strain modulus of
     * make_hyperelastic_material()); InputError naming @p where and the value if
     * it is not physical.
     */
    backend::MaterialConstants
    make(const std::string &where) const;
    /** Whether the material can yield (a positive yield stress, or a pressure-dependent criterion). */
    bool
    can_yield() const;
    /** Whether its consistent tangent is symmetric (not a dilation angle below the friction angle). */
    bool
    has_symmetric_tangent() const;
  };

  /** Subsection "Materials". */
  struct MaterialParameters
  {
    /** The material of every material id not listed in per_material_id. */
    MaterialDescription default_material;
    /** Text of "Per material id" (parsed in check()). */
    std::string per_material_id_text;
    /** Materials by material id, parsed from per_material_id_text. */
    std::map<dealii::types::material_id, MaterialDescription> per_material_id;

    void
    declare(dealii::ParameterHandler &prm);
    /** Parse the per-material-id list and check that every material is physical. */
    void
    check();
  };

  /** A prescribed displacement on one boundary id. */
  struct DirichletCondition
  {
    dealii::types::boundary_id boundary_id = 0;
    /** Which components are prescribed. */
    std::array<bool, 3> components{{false, false, false}};
    /** The prescribed values of those components (at load factor 1). */
    std::array<double, 3> values{{0., 0., 0.}};
  };

  /** A surface load on one boundary id. */
  struct TractionCondition
  {
    dealii::types::boundary_id boundary_id = 0;
    /** Traction vector (force per area, at load factor 1). */
    std::array<double, 3> traction{{0., 0., 0.}};
    /** Pressure (force per area along the inward normal, at load factor 1); added to the traction. */
    double pressure = 0.;
  };

  /** A force at a vertex of the mesh. */
  struct PointLoad
  {
    /** Where it acts (a vertex of the mesh). */
    dealii::Point<3> location;
    /** The force (at load factor 1). */
    std::array<double, 3> force{{0., 0., 0.}};
  };

  /** Subsection "Boundary conditions". */
  struct BoundaryParameters
  {
    /** The entry "Dirichlet" as given ("id: components = values; ..."). */
    std::string dirichlet_text = "0: xyz = 0, 0, 0";
    /** The entry "Traction" as given. */
    std::string traction_text;
    /** The entry "Pressure" as given. */
    std::string pressure_text;
    /** Body force per volume. */
    dealii::Point<3> body_force{0., 0., 0.};
    /** The entry "Point loads" as given ("x, y, z: fx, fy, fz; ..."). */
    std::string point_loads_text;
    /**
     * The kinds of load held at their full value at every load factor
     * ("body force", "traction", "pressure", "point loads", comma
     * separated); the others and the prescribed displacements follow the
     * load factor.
     */
    std::string constant_loads;
    /**
     * Subsection "Amplitudes": the amplitude of each kind of load as given,
     * by the kind ("dirichlet", "traction", "pressure", "body force",
     * "point loads"); empty: the load factor (LoadAmplitude::parse()).
     */
    std::map<std::string, std::string> amplitude_texts;
    /** The entry "Normal supports" as given (boundary ids, comma separated). */
    std::string normal_supports_text;
    /** The entry "Springs" as given ("id: k_n, k_t; ..."). */
    std::string springs_text;
    /**
     * The entry "Follower pressure": the pressures act on the deformed
     * surface (FollowerPressure; finite strain only) instead of the
     * reference one.
     */
    bool follower_pressure = false;

    /** The Dirichlet conditions parsed by check(). */
    std::vector<DirichletCondition> dirichlet;
    /** The tractions and pressures parsed by check(). */
    std::vector<TractionCondition> tractions;
    /** The point loads parsed by check(). */
    std::vector<PointLoad> point_loads;
    /**
     * The boundary ids of the normal supports parsed by check(): the
     * displacement along the face normal is zero there, the tangential
     * components are free (rollers on a face of any orientation, deal.II's
     * VectorTools::compute_no_normal_flux_constraints()).
     */
    std::vector<dealii::types::boundary_id> normal_supports;
    /**
     * The springs parsed by check(): elastic supports on boundary faces with
     * a normal and a tangential stiffness per unit area (BoundarySpring).
     */
    BoundarySprings springs;
    /** The amplitudes of amplitude_texts parsed by check(), by kind (given ones only). */
    std::map<std::string, LoadAmplitude> amplitudes;

    void
    declare(dealii::ParameterHandler &prm);
    /** Parse the condition lists. */
    void
    check();
    /** The boundaries and components of the Dirichlet conditions, for the preconditioners. */
    DirichletBoundaries
    dirichlet_boundaries() const;
    /** Whether the loads of kind @p kind ("body force", "traction", ...) are held constant. */
    bool
    is_constant(const std::string &kind) const;
    /** The pressures by boundary id (summed where an id is given twice), at load factor 1. */
    std::map<dealii::types::boundary_id, double>
    pressures() const;
    /** Whether any load is held constant (Constant loads names a kind that is given). */
    bool
    has_constant_loads() const;
    /**
     * Whether a load of kind @p kind (one of force_kinds(), or "dirichlet":
     * a non-zero prescribed displacement) is given.
     */
    bool
    is_given(const std::string &kind) const;
    /**
     * The amplitude of the loads of kind @p kind (one of force_kinds() or
     * "dirichlet"): 1 if held by Constant loads, the Amplitudes entry if
     * given, else the load factor.
     */
    LoadAmplitude
    amplitude(const std::string &kind) const;
    /** The entry of the amplitude of @p kind: "Boundary conditions/Amplitudes/Traction" for "traction". */
    static std::string
    amplitude_entry(const std::string &kind);
    /** The kinds of force: "body force", "traction", "pressure", "point loads". */
    static const std::vector<std::string> &
    force_kinds();
  };

  /**
   * Subsection "Initial stress": the in-situ stress sigma_0(x) of the
   * Mohr-Coulomb and Drucker-Prager materials, carried in their Gauss-point
   * state (PlasticityState::set_initial_stress()). The loads of the
   * boundary conditions are changes from the in-situ state: the internal
   * force of sigma_0 at u = 0 is held as a constant load at every load
   * factor, so that u = 0 is in equilibrium before the first step.
   */
  struct InitialStressParameters
  {
    /** FunctionParser expressions of x, y, z: 'xx; yy; zz; yz; xz; xy'. */
    std::string expression = "0; 0; 0; 0; 0; 0";
    /** Constants of the expressions: 'name = value, ...'. */
    std::string constants_text;
    /** The constants parsed by check(). */
    std::map<std::string, double> constants;

    void
    declare(dealii::ParameterHandler &prm);
    /** Parse the constants and the expressions (InputError naming the entry). */
    void
    check();
    /** Whether sigma_0 is zero everywhere (all six expressions '0'). */
    bool
    is_zero() const;
    /** sigma_0 as a function of the point (a FunctionParser of the expressions). */
    std::function<dealii::SymmetricTensor<2, 3>(const dealii::Point<3> &)>
    function() const;
  };

  struct ProblemParameters;

  /** Subsection "Operator". */
  struct OperatorParameters
  {
    /** Scatter strategy; Parameters::check() resolves auto (resolve_strategy()). */
    AutoOr<backend::Strategy> strategy;
    /** Cell kernel; Parameters::check() resolves auto (resolve_cell_kernel()). */
    AutoOr<backend::CellKernel> cell_kernel;
    /** Threads per cell (automatic: resolved by the backend). */
    backend::ThreadMapping thread_mapping = backend::ThreadMapping::automatic;
    /** Element formulation; Parameters::check() resolves auto (resolve_element_formulation()). */
    AutoOr<backend::ElementFormulation> element_formulation;
    /** How the ranks exchange ghost values (plastix::Runtime). */
    GhostExchange ghost_exchange = GhostExchange::automatic;

    void
    declare(dealii::ParameterHandler &prm);
    /**
     * Cell kernel = auto: the kernel measured fastest (doc/benchmarks.md)
     * for this build's device, the problem and the mesh: element
     * matrix for small-strain elastic runs on meshes of congruent cells (generated
     * boxes and voxel geometries without distortion: one shared matrix);
     * otherwise geometry on the fly on GPUs and stored geometry on the host.
     */
    void
    resolve_cell_kernel(const ProblemParameters &problem, const MeshParameters &mesh);
    /**
     * Strategy = auto (after resolve_cell_kernel()): dbd structured on
     * lattice meshes (equal axis-parallel boxes, no hanging nodes) unless the
     * thread mapping is node or the run is finite strain; otherwise ebe tiled for elastic runs with the
     * element-matrix kernel on meshes of congruent cells (one matrix read
     * from scratch memory, measured faster than ebe atomic: doc/benchmarks.md),
     * ebe atomic otherwise (ebe tiled is slower with the quadrature kernels
     * and with a matrix per cell) and whenever the thread mapping needs
     * several threads per cell. Parameters::check() makes it assembled
     * first when the linear solver is direct.
     */
    void
    resolve_strategy(const ProblemParameters &problem, const MeshParameters &mesh);
    /**
     * Element formulation = auto: B-bar for elastoplastic runs (J2 flow is
     * isochoric: fully integrated Q1 cells lock once it spreads,
     * doc/validation.md section 7), full integration (deal.II's step-8
     * operator) for elastic runs, small or finite strain.
     */
    void
    resolve_element_formulation(const ProblemParameters &problem);
    /**
     * The operator choices for MechanicsOperator::reinit() (a cell kernel
     * still auto: stored geometry; a strategy still auto: ebe atomic).
     */
    MechanicsOperator::AdditionalData
    get_additional_data() const;
    /**
     * "ebe atomic / element matrix (auto)" etc.; with the thread mapping the
     * backend resolved, @p resolved_mapping, where it gives a cell several
     * threads: "ebe atomic / geometry on the fly (auto) / shuffle lanes
     * (auto)" (for dbd structured: the lanes of its element-by-element cells).
     */
    std::string
    description(backend::ThreadMapping resolved_mapping = backend::ThreadMapping::cell) const;
  };

  /** Subsection "Linear solver": the LinearSolverData of the run's solves. */
  struct SolverParameters : LinearSolverData
  {
    /**
     * Type = auto takes the direct solver where the estimated work of its
     * factorization (estimate_direct_solver_work()) is at most this: some
     * 0.3 s of Amesos KLU on the development machine, while a slender or
     * thin body of that size can take a Krylov solver many times longer
     * or defeat it (doc/solvers.md, "The sparse direct solver").
     */
    static constexpr double direct_solver_work = 1e8;
    /** The same for elastoplastic and finite-strain runs, which factorize once per Newton iteration. */
    static constexpr double direct_solver_work_elastoplastic = 1e7;

    void
    declare(dealii::ParameterHandler &prm);
  };

  /** Subsection "Output". */
  struct OutputParameters
  {
    std::string directory = "output";
    std::string base_name = "solution";
    bool        write_vtu = true;
    /** One-line summary appended to this file (empty: none). */
    std::string summary_file;
    /**
     * Write a checkpoint (Directory/checkpoint) after every this many
     * converged load steps of an elastoplastic run; 0: by wall time only.
     */
    unsigned int checkpoint_interval = 0;
    /**
     * Also write one after a converged load step when this many seconds
     * have passed since the run started or since the last checkpoint; 0:
     * by step count only (both 0: no checkpoints except where 'Load
     * stepping/Steps per run' stops a run).
     */
    double checkpoint_wall_time = 600.;
    /**
     * Cell quantities written besides the stresses, a comma-separated
     * selection of "strain" (the cell-average strain tensor), "principal
     * stresses" (values and directions), "pressure" (-tr sigma / 3) and
     * "nodal stresses" (volume-weighted vertex averages, point data).
     */
    std::string additional_quantities;

    void
    declare(dealii::ParameterHandler &prm);

    /** Whether @p quantity is one of the additional quantities. */
    bool
    writes(const std::string &quantity) const;
  };

  /** Subsection "Problem". */
  struct ProblemParameters
  {
    /** Elastic or elastoplastic. */
    ProblemType type = ProblemType::elastic;
    /** Small or finite strain. */
    Kinematics kinematics = Kinematics::small_strain;

    void
    declare(dealii::ParameterHandler &prm);

    /**
     * Whether the run goes through load steps with Newton-Raphson
     * (ElastoplasticProblem): elastoplastic or finite strain. Such runs keep
     * point data per Gauss point, so the operator has no element matrices.
     */
    bool
    is_incremental() const;
  };

  /**
   * Subsection "Load stepping": load factors of the elastoplastic run and the
   * step cutting of LoadStepping (LoadSteppingData: the load factors, parsed
   * in check(), Minimum increment, Maximum cuts).
   */
  struct LoadSteppingParameters : public LoadSteppingData
  {
    /** Load factor at the end of the run (multiplies loads and prescribed displacements). */
    double final_load_factor = 1.;
    /** Number of equal load steps up to the final factor. */
    unsigned int n_steps = 1;
    /** Explicit list of load factors, unloading allowed (overrides the two entries above). */
    std::string load_factors_text;
    /**
     * Stop cleanly after this many converged load steps of this run (0: run
     * to the end), e.g. to fit a batch job's time limit; with checkpoints on,
     * 'plastix --restart' continues.
     */
    unsigned int steps_per_run = 0;

    void
    declare(dealii::ParameterHandler &prm);
    void
    check();
  };

  /**
   * Subsection "Time integration": a dynamic run (Elastodynamics) instead of
   * statics when Integrator is not none.
   */
  struct TimeIntegrationParameters : public TimeIntegrationData
  {
    /** "none" (statics) or a TimeIntegrator name; parsed in check(). */
    std::string integrator_name = "none";
    /** The run ends at this time (> 0). */
    double end_time = 1.;
    /** The mass matrix (consistent or lumped; central differences takes its row sums). */
    MassMatrix mass_matrix = MassMatrix::consistent;
    /**
     * Central differences: with Time step = 0 the step is this fraction of
     * the estimated critical step; a given step above the estimate is
     * refused.
     */
    double critical_step_fraction = 0.9;
    /** Write the VTU (and a monitor row) every this many steps (and at the end). */
    unsigned int output_interval = 10;
    /**
     * Implicit integrators: a step whose Newton iteration fails is retried
     * with half the time step, at most this many times in a row; each
     * converged step doubles the step again, up to Time step.
     */
    unsigned int max_cuts = 6;
    /** The initial displacement and velocity: three expressions in x, y, z separated by ';'. */
    std::string initial_displacement = "0; 0; 0";
    std::string initial_velocity     = "0; 0; 0";
    /**
     * The amplitude of the loads over time t (an expression of t or a table
     * 't: a, ...', LoadAmplitude; the prescribed displacements stay
     * constant); parsed into amplitude in check().
     */
    std::string   load_amplitude = "1";
    LoadAmplitude amplitude;

    void
    declare(dealii::ParameterHandler &prm);
    /** Parse the integrator and check the values (InputError naming the entry). */
    void
    check();
    /** An expression of the initial state (initial_displacement or initial_velocity) as a function of x, y, z. */
    static std::shared_ptr<dealii::Function<3>>
    vector_function(const std::string &expressions);
    /**
     * Whether the three expressions are the number 0 each (the default), so
     * that the state needs no interpolation (which evaluates the expressions
     * at the eight vertices of every cell: seconds on meshes of millions of
     * cells).
     */
    static bool
    is_zero(const std::string &expressions);
    /** Whether the run is dynamic (Integrator is not none). */
    bool
    is_dynamic() const;
  };

  /** Subsection "Newton": the settings of NewtonRaphson. */
  struct NewtonParameters : public NewtonData
  {
    void
    declare(dealii::ParameterHandler &prm);
  };

  /** A point whose displacement is recorded each load step. */
  struct MonitorPoint
  {
    std::string      name;
    dealii::Point<3> location;
  };

  /** Subsection "Monitor": curves written as CSV (and PNG) per load step. */
  struct MonitorParameters
  {
    /** 'name: x, y, z; ...' */
    std::string points_text;
    /** Boundary ids whose reaction forces are recorded, e.g. '0, 4'. */
    std::string reactions_text = "";
    /** CSV column on the x axis of the plot ('' = the first displacement or reaction column). */
    std::string plot_x_column;
    /** CSV column on the y axis of the plot. */
    std::string plot_y_column = "load_factor";
    /** Units in the axis labels of the plot (labels only: plastix has no unit system). */
    std::string length_unit = "m", force_unit = "N";
    /** Write the gnuplot script and, if gnuplot is installed, the PNG. */
    bool write_plot = true;

    std::vector<MonitorPoint>               points;
    std::vector<dealii::types::boundary_id> reaction_ids;

    void
    declare(dealii::ParameterHandler &prm);
    /** Parse the points and reaction ids; check that the plot columns are in csv_columns(). */
    void
    check();

    /** Names of the CSV columns: step, load factor, iteration counts, then the monitored values. */
    std::vector<std::string>
    csv_columns() const;
  };

  /** All parameters of a run. */
  struct Parameters
  {
    ProblemParameters      problem;
    MeshParameters         mesh;
    MaterialParameters materials;
    InitialStressParameters initial_stress;
    BoundaryParameters boundary;
    OperatorParameters op;
    SolverParameters   solver;
    OutputParameters   output;
    LoadSteppingParameters load_stepping;
    NewtonParameters       newton;
    MonitorParameters      monitor;
    TimeIntegrationParameters time_integration;

    /** The text of the parameter file read by read() (a checkpoint keeps it). */
    std::string file_text;

    /**
     * What read() found worth a warning (parameter_warnings()): one line each,
     * for the application to print once.
     */
    std::vector<std::string> warnings;

    /** Declare every subsection in @p prm (values are bound to the members). */
    void
    declare(dealii::ParameterHandler &prm);

    /**
     * Read @p file into the members. Throws InputError with the file name,
     * line and entry for a missing file, an unknown entry or a value that
     * does not fit the entry's pattern, and for values check() rejects.
     */
    void
    read(dealii::ParameterHandler &prm, const std::string &file);

    /**
     * Checks beyond the patterns (physical materials, parsable lists, output
     * names, the memory the mesh would need), all before any mesh is built.
     */
    void
    check();

    /**
     * The output names: a plain base name and summary file name, an output
     * directory that is (or can be created as) a writable folder, a summary
     * file that is not a folder.
     */
    void
    check_output() const;

    /**
     * The choices that finite strain refuses (InputError naming the entry):
     * plasticity, dbd structured, the element-matrix kernel, B-bar, the
     * initial-stiffness method, checkpoints and runs in parts.
     */
    void
    check_finite_strain() const;
    /**
     * The choices that a dynamic run refuses (InputError naming the entry):
     * plasticity, checkpoints, adaptive refinement, runs in parts, a
     * material without a density.
     */
    void
    check_dynamics() const;
    /**
     * The operator and solver choices against each other (direct and the
     * assembled strategy, the thread mapping of the strategy, dbd structured
     * and the mesh, the divergence factor, single-precision levels).
     */
    void
    check_operator_and_solver() const;

    /**
     * Normal supports and springs against the solver and the reactions, and
     * what multigrid needs of the mesh; picks the preconditioner that auto
     * stands for where these decide it.
     */
    void
    check_supports_and_preconditioner();

    /**
     * Whether the operator of the Newton solves is symmetric: elastic runs,
     * the initial-stiffness tangent, and consistent tangents of associative
     * materials (a dilation angle below the friction angle is not).
     */
    bool
    has_symmetric_tangent() const;

    /**
     * Resolve 'Linear solver/Type = auto': direct (Amesos KLU) where the
     * estimated work of the factorization is small
     * (SolverParameters::direct_solver_work) on a mesh without local or
     * adaptive refinement, when the preconditioner and the operator strategy
     * are auto too (or the strategy is assembled); otherwise cg for a
     * symmetric operator, gmres for one that is not.
     */
    void
    resolve_solver_type();
  };

  /**
   * Throw InputError if the parameter file @p file includes (deal.II's
   * 'include' statement) a file that is missing or includes itself, directly
   * or through others (@p chain: the files that include it).
   */
  void
  check_includes(const std::string &file, std::vector<std::string> chain);

  /** @p text with every run of white space (newlines too) replaced by one blank, trimmed. */
  std::string
  one_line(const std::string &text);

  /**
   * Throw InputError naming the entry if any value of @p prm holds a token
   * that reads as a number but is not finite (nan, inf, 1e400, ...).
   */
  void
  check_finite_numbers(const dealii::ParameterHandler &prm);

  /**
   * Compare the memory the requested mesh would need (estimated from its
   * number of cells before anything is allocated) with the memory of the
   * host and of the device; throw InputError naming the mesh entries and
   * the sizes if it does not fit. Defined in input_checks.cc.
   */
  void
  check_memory_estimate(const Parameters &parameters);
} // namespace plastix

#endif
