// deal.II-facing matrix-free operator of small-strain solid mechanics on the
// device, usable wherever deal.II expects a matrix (SolverCG, LinearOperator,
// PreconditionChebyshev).
#ifndef PLASTIX_CORE_MECHANICS_OPERATOR_H
#define PLASTIX_CORE_MECHANICS_OPERATOR_H

#include <deal.II/base/config.h>
#include <deal.II/base/subscriptor.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>

#include <plastix/backend/device_array.h>
#include <plastix/backend/device_operator.h>
#include <plastix/base/enum_patterns.h>
#include <plastix/core/boundary_springs.h>
#include <plastix/core/device_vector.h>
#include <plastix/core/mass_matrix.h>
#include <plastix/material/material.h>

#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace plastix
{
  class FiniteStrainState;
  class PlasticityState;

  /**
   * How a rank gets the complete rows of the DoFs it owns on a mesh split
   * over several ranks (MechanicsOperator::AdditionalData::shared_rows).
   */
  enum class SharedRows
  {
    /**
     * Ghost cells for the multigrid levels of a parallel::distributed mesh
     * on several ranks (reinit_level()), partial sums otherwise.
     */
    automatic,
    /**
     * Each rank applies its own cells and sends its partial sums of other
     * ranks' rows to their owners (compress()): two ghost exchanges per
     * application.
     */
    partial_sums,
    /**
     * Each rank also applies the cells of its ghost layer, so the rows it
     * owns are complete without the others' partial sums: one ghost exchange
     * per application (the ghost values; vectors hold the DoFs of the ghost
     * cells as ghosts). Multigrid levels of a parallel::distributed mesh
     * only (reinit_level()), and no plasticity on them.
     */
    ghost_cells
  };

  /**
   * The matrix-free operator of small-strain solid mechanics for a
   * DoFHandler with FESystem(FE_Q(1), 3) on hexahedra, 2x2x2 Gauss points,
   * resident on the device (plastix backend).
   *
   * As deal.II's MatrixFree operators do, it acts on the homogeneous problem
   * of the given AffineConstraints: rows and columns of constrained DoFs are
   * zero except a unit diagonal; their prescribed values enter through
   * lift_inhomogeneities(). Dirichlet lines (no entries) and hanging-node
   * lines (u_h = sum_j c_hj u_j + g_h, from make_hanging_node_constraints()
   * on an adaptively refined mesh) are supported: with the latter the
   * operator is C^T A C on the unconstrained DoFs, evaluated on the device
   * (the cells see the constrained values interpolated from their lines,
   * the rows of constrained DoFs are condensed onto the DoFs they depend
   * on), with unit rows at constrained DoFs; set_constrained_values() is
   * AffineConstraints::distribute() on the device.
   *
   * Serial and parallel (parallel::distributed::Triangulation) meshes work
   * alike: vectors are DeviceVectors over the locally owned DoFs plus the
   * ghost DoFs of the locally owned cells, and vmult() exchanges ghosts.
   */
  class MechanicsOperator : public dealii::Subscriptor
  {
  public:
    using size_type  = dealii::types::global_dof_index;
    using value_type = double;

    /** Choices of the device operator. */
    struct AdditionalData
    {
      /** Constructor with the defaults: EbE atomic, stored geometry, full integration. */
      AdditionalData(backend::Strategy           strategy       = backend::Strategy::ebe_atomic,
                     backend::CellKernel         cell_kernel    = backend::CellKernel::stored_geometry,
                     backend::ThreadMapping      thread_mapping = backend::ThreadMapping::automatic,
                     backend::ElementFormulation element_formulation = backend::ElementFormulation::full)
        : strategy(strategy)
        , cell_kernel(cell_kernel)
        , thread_mapping(thread_mapping)
        , element_formulation(element_formulation)
      {}

      /** EbE with atomics, EbE coloured, or DbD. */
      backend::Strategy strategy;
      /** Stored geometry, geometry on the fly, or element matrices. */
      backend::CellKernel cell_kernel;
      /** Threads per cell of the EbE strategies (automatic: the measured fastest, backend::ThreadMapping). */
      backend::ThreadMapping thread_mapping;
      /**
       * Full integration or B-bar (mean dilatation, against volumetric
       * locking); the multigrid levels of the preconditioners take it over.
       */
      backend::ElementFormulation element_formulation;

      /**
       * Stiffness factor of a cell, or empty (1 everywhere): the cell's
       * stiffness, consistent tangent and internal force are multiplied by
       * it, the stresses at its Gauss points are not (backend::MeshData::
       * cell_factors). Called for every locally owned cell, active cells in
       * reinit() and the level's cells in reinit_level() (the multigrid
       * levels, the AMG matrix and the multigrid coarse matrix get their own
       * cells' factors), so a function of the cell's geometry serves all
       * levels. The fixed-grid method: xi + Delta (1 - xi), xi the
       * cell's material volume fraction; density-based topology
       * optimisation: the penalised density. Finite and positive; the
       * device keeps it in single precision (one float per cell).
       */
      CellStiffnessFactor cell_stiffness_factor;

      /**
       * How the rows of DoFs shared with other ranks get complete
       * (SharedRows); automatic: ghost cells on the levels of a
       * parallel::distributed mesh on several ranks, partial sums otherwise.
       * Ghost cells take their material id and stiffness factor from their
       * owner (GridTools::exchange_cell_data_to_level_ghosts()).
       */
      SharedRows shared_rows = SharedRows::automatic;

      /**
       * Springs on boundary faces by boundary id (elastic supports,
       * BoundarySpring), or none: their stiffness is added to the operator,
       * its diagonal, its assembled matrix and, as S u, to the internal
       * force. Level operators (reinit_level()) take the level cells' faces
       * on those boundaries.
       */
      BoundarySprings boundary_springs;

      /**
       * The mass matrix M built with the operator (none: statics); every
       * material needs a density > 0 then (std::invalid_argument otherwise).
       * Level operators (reinit_level()) build it on the level's cells.
       */
      MassMatrix mass_matrix = MassMatrix::none;

      /**
       * The factor c of the operator A + c M (set_mass_factor()): the
       * effective stiffness of an implicit time step; the level operators
       * of the preconditioners take it over. 0: A.
       */
      double mass_factor = 0.;
    };

    MechanicsOperator();
    ~MechanicsOperator() override;

    /**
     * Build the device data for the locally owned cells of @p dof_handler.
     * @p mapping must be the trilinear (degree 1) mapping: plastix computes
     * the geometry from the cell vertices. @p constraints must hold the
     * lines of all DoFs of the locally owned cells (build it on the locally
     * relevant DoFs). Every material id of the mesh needs an entry in
     * @p materials.
     */
    void
    reinit(const dealii::Mapping<3>                &mapping,
           const dealii::DoFHandler<3>             &dof_handler,
           const dealii::AffineConstraints<double> &constraints,
           const MaterialTable                     &materials,
           const AdditionalData                    &additional_data = AdditionalData());

    /** As above with the trilinear mapping. */
    void
    reinit(const dealii::DoFHandler<3>             &dof_handler,
           const dealii::AffineConstraints<double> &constraints,
           const MaterialTable                     &materials,
           const AdditionalData                    &additional_data = AdditionalData());

    /**
     * Build the device data of multigrid level @p level of @p dof_handler:
     * the level cells owned by this rank (is_locally_owned_on_level()) and
     * the level DoFs (get_mg_dof_indices(); locally_owned_mg_dofs(level)
     * plus the level DoFs of the owned level cells as ghosts). The DoFHandler
     * needs level DoFs (distribute_mg_dofs(); a parallel::distributed mesh
     * built with construct_multigrid_hierarchy). @p level_constraints holds
     * the Dirichlet lines of this level in level numbering (e.g. the
     * boundary indices of MGConstrainedDoFs); level cells use the material
     * of their own material id (children inherit it when refined). The
     * operator then acts on level vectors exactly as reinit() does on active
     * ones; cell_average_strain() and plasticity refer to the level cells.
     * With SharedRows::ghost_cells (the automatic choice on several ranks)
     * the level's ghost cells are applied too and the ghost DoFs are the
     * locally relevant level DoFs; such an operator has no plasticity.
     */
    void
    reinit_level(const dealii::Mapping<3>                &mapping,
                 const dealii::DoFHandler<3>             &dof_handler,
                 const dealii::AffineConstraints<double> &level_constraints,
                 const MaterialTable                     &materials,
                 unsigned int                             level,
                 const AdditionalData                    &additional_data = AdditionalData());

    /**
     * dst = A src. On single-precision vectors (Number = float) the
     * operator is evaluated in single precision, its data (geometry, element
     * matrices, tangent) rounded on the fly: the level operators of a
     * mixed-precision multigrid V-cycle.
     */
    template <typename Number>
    void
    vmult(device::Vector<Number> &dst, const device::Vector<Number> &src) const;

    /** dst = A^T src = A src (the operator is symmetric). */
    template <typename Number>
    void
    Tvmult(device::Vector<Number> &dst, const device::Vector<Number> &src) const;

    /**
     * One step of a Chebyshev-Jacobi iteration in one kernel where the
     * operator allows it (backend::DeviceOperator::fuses_chebyshev_step()
     * and one process): with t = A x,
     *   out = (1 + factor1) x - factor1 x_old + factor2 inverse_diagonal (rhs - t)
     * (no x_old term if @p x_old is null; @p out may be @p x_old, not @p x).
     * Returns false and does nothing otherwise: the caller then applies
     * vmult() and updates the vectors itself. All vectors have the
     * operator's layout.
     */
    template <typename Number>
    bool
    chebyshev_step(const device::Vector<Number> &x,
                   const device::Vector<Number> *x_old,
                   const device::Vector<Number> &rhs,
                   const device::Vector<Number> &inverse_diagonal,
                   double                        factor1,
                   double                        factor2,
                   device::Vector<Number>       &out) const;

    /** dst += A src. */
    template <typename Number>
    void
    vmult_add(device::Vector<Number> &dst, const device::Vector<Number> &src) const;

    /** dst += A^T src. */
    template <typename Number>
    void
    Tvmult_add(device::Vector<Number> &dst, const device::Vector<Number> &src) const;

#if DEAL_II_VERSION_GTE(9, 5, 0)
    /**
     * deal.II's distributed vector in its default memory space: device
     * memory where deal.II's Kokkos has a device (CUDA, HIP, SYCL), host
     * memory otherwise. The operator applies to it as to a DeviceVector, so a
     * program can hand the vectors of deal.II's Portable::MatrixFree
     * operators, SolverCG, PreconditionChebyshev and LinearOperator to
     * plastix without converting them.
     */
    using DefaultMemoryVector = dealii::LinearAlgebra::distributed::Vector<double, dealii::MemorySpace::Default>;

    /**
     * dst = A src on deal.II's vectors. Without copies where the vectors
     * have the operator's layout (initialize_dof_vector(), or any
     * partitioner with the same owned and ghost DoFs) and their memory is
     * the backend's (both on the device, or both on the host): the ghost
     * values of @p src are exchanged by deal.II (restored to the state @p src
     * had), the kernels read and write the vectors' memory, and the rows of
     * @p dst are completed by deal.II's compress(). Otherwise, with the same
     * owned DoFs and another ghost set or deal.II's vectors in host memory
     * beside a device backend, through the operator's own vectors (one copy
     * of the owned entries each way). Throws std::invalid_argument for
     * vectors of other owned DoFs and for deal.II device memory beside a host
     * backend.
     */
    void
    vmult(DefaultMemoryVector &dst, const DefaultMemoryVector &src) const;

    /** dst = A^T src = A src on deal.II's vectors. */
    void
    Tvmult(DefaultMemoryVector &dst, const DefaultMemoryVector &src) const;

    /** dst += A src on deal.II's vectors. */
    void
    vmult_add(DefaultMemoryVector &dst, const DefaultMemoryVector &src) const;

    /** dst += A^T src on deal.II's vectors. */
    void
    Tvmult_add(DefaultMemoryVector &dst, const DefaultMemoryVector &src) const;

    /** Give @p vector the operator's layout (zeroed): the layout vmult() applies to without copies. */
    void
    initialize_dof_vector(DefaultMemoryVector &vector) const;

    /** The diagonal of the operator (1 on constrained DoFs) in a deal.II vector of the operator's layout. */
    void
    compute_diagonal(DefaultMemoryVector &diagonal) const;
#endif

    /** Global number of rows. */
    size_type
    m() const;

    /** Global number of columns. */
    size_type
    n() const;

    /**
     * Matrix entry (i, i): the diagonal (computed on first use). Off-diagonal
     * entries are not available matrix-free and throw. For deal.II code that
     * asks a matrix for its diagonal.
     */
    double
    el(size_type i, size_type j) const;

    /** Give @p vector (double or float) the layout of the operator (zeroed). */
    template <typename Number>
    void
    initialize_dof_vector(device::Vector<Number> &vector) const;

    /** The diagonal of the operator (1 on constrained DoFs). */
    void
    compute_diagonal(DeviceVector &diagonal) const;

    /**
     * The matrix of vmult() as a Trilinos matrix distributed like the
     * operator's vectors, assembled on the device: the operator's strategy
     * must be backend::Strategy::assembled (reinit() with it), whose CSR
     * matrix is copied to the host, its ghost rows added at their owners
     * (compress(add)), and unit diagonal entries put at the constrained
     * DoFs. The elastic matrix, or the consistent tangent of the current
     * state. With constraint lines (hanging nodes, supports normal to an
     * inclined face) the device matrix A is the cells' one and the copy is
     * condensed on the host to C^T A C, as vmult() applies it. For algebraic
     * multigrid, direct solvers and comparisons with deal.II's assembly.
     * Throws std::logic_error for another strategy.
     */
    void
    copy_matrix(dealii::TrilinosWrappers::SparseMatrix &matrix) const;

    /**
     * Add the constraints of the operator, homogeneous, to @p constraints:
     * u_i = 0 on the DoFs with prescribed values (Dirichlet, supports normal
     * to a face along an axis) and u_i = sum_j w_ij u_j on the DoFs of
     * constraint lines (hanging nodes, supports normal to an inclined face),
     * for the locally owned DoFs and the ghosts of the owned cells that
     * @p constraints can store. DoFs that @p constraints constrains already
     * are left as they are. Not closed: call close() after it. So that a
     * matrix assembled elsewhere (the AMG matrix) is the matrix of this
     * operator.
     */
    void
    add_homogeneous_constraints(dealii::AffineConstraints<double> &constraints) const;

    /**
     * The inverse diagonal, as a Jacobi preconditioner uses it (computed in
     * double precision, rounded for a float vector).
     */
    template <typename Number>
    void
    compute_inverse_diagonal(device::Vector<Number> &inverse_diagonal) const;

    /**
     * Move the prescribed values g of the constraints to the right-hand side
     * of A0 u = rhs: rhs -= A g on unconstrained rows, rhs = g on constrained
     * rows. The solution of the homogeneous operator then carries the
     * prescribed values. @p scale multiplies g (load stepping).
     */
    void
    lift_inhomogeneities(DeviceVector &rhs, double scale = 1.) const;

    /**
     * Make @p u satisfy the constraints with the prescribed values scaled by
     * @p scale: u = scale g on Dirichlet DoFs, u_h = sum_j c_hj u_j + scale
     * g_h on hanging-node DoFs (AffineConstraints::distribute() on the
     * device; ghost values are updated for it).
     */
    void
    set_constrained_values(DeviceVector &u, double scale = 1.) const;

    /**
     * Set u = 0 on the constrained DoFs (Dirichlet and hanging-node rows),
     * as a residual of the homogeneous problem needs.
     */
    void
    set_constrained_zero(DeviceVector &u) const;

    /**
     * force <- C^T force for a vector assembled without constraints (for
     * example by assemble_external_force()): the entry of each hanging-node
     * DoF is distributed to the DoFs it depends on and zeroed, as deal.II's
     * AffineConstraints::condense() does. A no-op on a conforming mesh.
     * Dirichlet rows are left as they are.
     */
    void
    condense(DeviceVector &force) const;

    /**
     * The internal force f = C^T A u of the elastic operator on every DoF,
     * Dirichlet rows included: there it holds the reaction (for the DoFs of a
     * boundary, their sum is the force that the supports exert). @p u must
     * satisfy the constraints (set_constrained_values()); the rows of
     * hanging-node DoFs are condensed as condense() does. Throws
     * std::logic_error while a plasticity state exists: its
     * PlasticityState::update() gives the internal force then.
     */
    void
    compute_internal_force(const DeviceVector &u, DeviceVector &force) const;

    /**
     * Global number of constraint lines with entries (hanging nodes and
     * supports normal to an inclined face; 0 on a conforming mesh without
     * them).
     */
    dealii::types::global_dof_index
    n_hanging_node_constraints() const;

    /**
     * The largest over the smallest stiffness factor of the locally owned
     * cells of all ranks (AdditionalData::cell_stiffness_factor); 1 without
     * factors.
     */
    double
    cell_stiffness_contrast() const;

    /**
     * The same before an operator exists: @p cell_stiffness_factor (empty:
     * 1) on the locally owned active cells of @p triangulation, over all
     * ranks. Collective. Rank without cells: the others' contrast.
     */
    static double
    cell_stiffness_contrast(const dealii::Triangulation<3> &triangulation,
                            const CellStiffnessFactor      &cell_stiffness_factor);

    /**
     * Cell-averaged strain of the locally owned cells (6 values each: xx,
     * yy, zz, yz, xz, xy), in the order of the locally owned active cells.
     * @p u needs no valid ghosts (they are updated here).
     */
    std::vector<double>
    cell_average_strain(const DeviceVector &u) const;

    /**
     * Give the operator J2 plasticity: a PlasticityState with a history at
     * every Gauss point of the locally owned cells, zero (all points elastic
     * and stress free), owned by the operator, whose consistent tangent the
     * operator is from then on (use_tangent()). An earlier state is
     * replaced. reinit() and reinit_level() discard the state together with
     * the cells it belongs to: call this again after them (and
     * PlasticityState::set_committed_history() to carry a history over).
     */
    PlasticityState &
    enable_plasticity();

    /** Discard the plasticity state: the operator is linear elastic again. */
    void
    disable_plasticity();

    /** Whether the operator has a plasticity state (enable_plasticity()). */
    bool
    has_plasticity() const;

    /** The plasticity state; throws std::logic_error if there is none. */
    PlasticityState &
    plasticity();

    /** The plasticity state; throws std::logic_error if there is none. */
    const PlasticityState &
    plasticity() const;

    /**
     * Make the operator total-Lagrangian finite-strain hyperelasticity
     * (compressible Mooney-Rivlin, neo-Hookean when a material's
     * second_shear_modulus is 0): a FiniteStrainState holding the
     * deformation gradients at every Gauss point, the undeformed body first,
     * owned by the operator, whose consistent tangent the operator is from
     * then on. An earlier state is replaced; reinit() and reinit_level()
     * discard it. Throws std::invalid_argument (naming the setting) if the
     * operator's AdditionalData cannot apply it (Strategy::dbd_structured,
     * CellKernel::element_matrix, B-bar) or if it has a plasticity state,
     * std::logic_error before reinit() and for a level operator that
     * applies its ghost cells.
     */
    FiniteStrainState &
    enable_finite_strain();

    /** Discard the finite-strain state: the operator is small-strain linear elastic again. */
    void
    disable_finite_strain();

    /** Whether the operator has a finite-strain state (enable_finite_strain()). */
    bool
    has_finite_strain() const;

    /** The finite-strain state; throws std::logic_error if there is none. */
    FiniteStrainState &
    finite_strain();

    /** The finite-strain state; throws std::logic_error if there is none. */
    const FiniteStrainState &
    finite_strain() const;

    /**
     * The operator becomes A + @p factor M (vmult(), the diagonal, the
     * assembled matrix; not the internal force): the effective stiffness
     * K + c M of an implicit time step. Kept in get_additional_data(), so
     * preconditioners built afterwards take it over. Needs
     * AdditionalData::mass_matrix (std::logic_error otherwise); finite and
     * >= 0.
     */
    void
    set_mass_factor(double factor);

    /**
     * @p dst = M @p src (no Dirichlet treatment; src's constrained rows as
     * they are, hanging-node rows condensed as for the internal force):
     * inertial forces, kinetic energy 1/2 v.Mv. Needs AdditionalData::
     * mass_matrix (std::logic_error otherwise).
     */
    void
    apply_mass(const DeviceVector &src, DeviceVector &dst) const;

    /** Whether the operator has a mass matrix (AdditionalData::mass_matrix). */
    bool
    has_mass() const;

    /**
     * The operator becomes A + L, L the load stiffness of the entries
     * (@p rows[k], @p columns[k], @p values[k]) of global DoF indices: the
     * linearisation of a load that depends on the displacement (minus the
     * derivative of the external force), such as a pressure that follows
     * the deformation (FollowerPressure). Each rank gives the contributions
     * of its own cells (any order, repeated pairs summed); rows and columns
     * must be DoFs of those cells (std::invalid_argument otherwise). L
     * enters vmult(), the diagonal and the assembled matrix, not the
     * internal force (compute_internal_force()) or the lifting of
     * prescribed values (lift_inhomogeneities()); Dirichlet rows and columns and hanging-node rows are
     * treated as for the cells. It replaces the previous L; no entries
     * remove it. While one is set, has_symmetric_tangent() is false. Not
     * collective. Multigrid level operators do not take it over: their
     * cycles precondition A + L with A.
     */
    void
    set_load_stiffness(const std::vector<dealii::types::global_dof_index> &rows,
                       const std::vector<dealii::types::global_dof_index> &columns,
                       const std::vector<double>                          &values);

    /**
     * With plasticity, whether the operator is the consistent tangent of its
     * state (@p tangent = true, the default after enable_plasticity()) or
     * linear elasticity (false, e.g. the predictor of a load step that
     * reverses the loading). Without plasticity it is elastic either way.
     */
    void
    use_tangent(bool tangent);

    /**
     * Whether the tangent is symmetric: false if a material is Mohr-Coulomb
     * or Drucker-Prager with a dilation angle below its friction angle
     * (non-associative flow) or while a load stiffness is set
     * (set_load_stiffness()). CG needs it symmetric.
     */
    bool
    has_symmetric_tangent() const;

    /** The layout of the vectors. */
    const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &
    get_partitioner() const;

    /**
     * The choices this operator was built with (the last reinit() or
     * reinit_level()). The preconditioners of LinearSolver take them over
     * for what they build of the same operator: the multigrid level
     * operators, the level-0 and AMG matrices.
     */
    const AdditionalData &
    get_additional_data() const;

    /** The device operator. */
    const backend::DeviceOperator &
    backend_operator() const;

    /** Number of locally owned cells (ghost cells applied under SharedRows::ghost_cells not included). */
    unsigned int
    n_locally_owned_cells() const;

    /** Device memory of the operator data (bytes, this rank). */
    std::size_t
    memory_consumption() const;

    /** One line: strategy, kernel, data size. */
    std::string
    description() const;

  private:
    friend class FiniteStrainState;
    friend class PlasticityState;

    /**
     * The tangent changed (PlasticityState::update(),
     * FiniteStrainState::update()): refresh what the device operator stores
     * of it and forget the cached diagonal.
     */
    void
    tangent_changed();

    /** reinit() (@p level = numbers::invalid_unsigned_int) and reinit_level(). */
    void
    setup(const dealii::Mapping<3>                &mapping,
          const dealii::DoFHandler<3>             &dof_handler,
          const dealii::AffineConstraints<double> &constraints,
          const MaterialTable                     &materials,
          unsigned int                             level,
          const AdditionalData                    &new_additional_data);

    /** The choices of the last reinit() or reinit_level(). */
    AdditionalData                                               additional_data;
    std::unique_ptr<backend::DeviceOperator>                  device_operator;
    std::shared_ptr<const dealii::Utilities::MPI::Partitioner>   partitioner;
    backend::DeviceArray<backend::LocalIndex>                    constrained_owned_dofs;
    backend::DeviceArray<double>                                 constrained_owned_values;
    /** u_h of the hanging-node lines from their columns (+ scale g_h); updates ghosts. */
    void
    distribute_hanging_nodes(DeviceVector &u, double scale) const;

    backend::DeviceArray<double>                                 line_inhomogeneities;
    /**
     * A host copy of the device's constraints (local indices, the layout
     * of backend::MeshData), for copy_matrix() and
     * add_homogeneous_constraints(): the DoFs with prescribed values
     * (fixed) and the constraint lines.
     */
    struct HostConstraintLines
    {
      std::vector<backend::LocalIndex> fixed;
      std::vector<backend::LocalIndex> rows;
      std::vector<backend::LocalIndex> offsets;
      std::vector<backend::LocalIndex> columns;
      std::vector<double>              weights;
    } host_lines;
    dealii::types::global_dof_index                              n_global_constraint_lines = 0;
    /** cell_stiffness_contrast(). */
    double                                                       stiffness_contrast = 1.;
    /**
     * After a kernel that wrote the rows of the local DoFs: with partial
     * sums the ghost rows go to their owners (compress()), with ghost cells
     * the owned rows are complete and the ghost rows are cleared.
     */
    template <typename Number>
    void
    complete_owned_rows(device::Vector<Number> &vector) const;

#if DEAL_II_VERSION_GTE(9, 5, 0)
    /** vmult() (@p add false) or vmult_add() on deal.II's vectors. */
    void
    apply_to_default_memory_vectors(DefaultMemoryVector &dst, const DefaultMemoryVector &src, bool add) const;
#endif

    /** SharedRows::ghost_cells in effect: the ghost cells are applied too. */
    bool                                                         applies_ghost_cells = false;
    /** The locally owned cells: the first ones of the device operator. */
    unsigned int                                                 n_owned_cells = 0;
    mutable DeviceVector                                         temporary;
    mutable device::Vector<float>                                temporary_float;
#if DEAL_II_VERSION_GTE(9, 5, 0)
    /** The owned entries of deal.II vectors that the kernels cannot use in place (vmult()). */
    mutable DeviceVector copied_source;
    mutable DeviceVector copied_product;
#endif
    mutable std::unique_ptr<DeviceVector>                        cached_diagonal;
    /** The materials of the last reinit(). */
    MaterialTable                                                material_table;
    /** The plasticity state (after device_operator: destroyed before it). */
    std::unique_ptr<PlasticityState>                             plasticity_state;
    /** The finite-strain state (after device_operator: destroyed before it). */
    std::unique_ptr<FiniteStrainState>                           finite_strain_state;
  };
  namespace internal
  {
    /** (value, backend::to_string(value)) for each of @p values: the backend holds the names. */
    template <typename Enum>
    std::vector<std::pair<Enum, std::string>>
    backend_enum_table(const std::initializer_list<Enum> values)
    {
      std::vector<std::pair<Enum, std::string>> table;
      for (const Enum value : values)
        table.emplace_back(value, backend::to_string(value));
      return table;
    }
  } // namespace internal

  template <>
  struct EnumNames<backend::Strategy>
  {
    static constexpr const char *what = "operator strategy";
    static std::vector<std::pair<backend::Strategy, std::string>>
    table()
    {
      using backend::Strategy;
      return internal::backend_enum_table(
        {Strategy::ebe_atomic, Strategy::ebe_colored, Strategy::dbd, Strategy::ebe_tiled, Strategy::assembled,
         Strategy::dbd_structured});
    }
  };

  template <>
  struct EnumNames<backend::CellKernel>
  {
    static constexpr const char *what = "cell kernel";
    static std::vector<std::pair<backend::CellKernel, std::string>>
    table()
    {
      using backend::CellKernel;
      return internal::backend_enum_table(
        {CellKernel::stored_geometry, CellKernel::geometry_on_the_fly, CellKernel::element_matrix});
    }
  };

  template <>
  struct EnumNames<backend::ElementFormulation>
  {
    static constexpr const char *what = "element formulation";
    static std::vector<std::pair<backend::ElementFormulation, std::string>>
    table()
    {
      using backend::ElementFormulation;
      return internal::backend_enum_table({ElementFormulation::full, ElementFormulation::bbar, ElementFormulation::fbar});
    }
  };

  template <>
  struct EnumNames<backend::ThreadMapping>
  {
    static constexpr const char *what = "thread mapping";
    static std::vector<std::pair<backend::ThreadMapping, std::string>>
    table()
    {
      using backend::ThreadMapping;
      return internal::backend_enum_table(
        {ThreadMapping::automatic, ThreadMapping::cell, ThreadMapping::node, ThreadMapping::shuffle});
    }
  };
} // namespace plastix

PLASTIX_ENUM_PATTERN(plastix::backend::Strategy)
PLASTIX_ENUM_PATTERN(plastix::backend::CellKernel)
PLASTIX_ENUM_PATTERN(plastix::backend::ThreadMapping)
PLASTIX_ENUM_PATTERN(plastix::backend::ElementFormulation)

#endif
