// Kokkos-free interface of the device operator: the matrix-free Q1 operator of one process's mesh.
#ifndef PLASTIX_BACKEND_DEVICE_OPERATOR_H
#define PLASTIX_BACKEND_DEVICE_OPERATOR_H

#include <plastix/backend/config.h>
#include <plastix/backend/mesh_data.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace plastix
{
  namespace backend
  {
    class FiniteStrainState;
    class GaussPointState;

    /**
     * How the cell contributions reach the global vector.
     */
    enum class Strategy
    {
      /** Element by element; contributions added with atomics. */
      ebe_atomic,
      /** Element by element, one launch per colour of cells that share no node; no atomics, bitwise reproducible. */
      ebe_colored,
      /** DoF by DoF (node-wise): each node gathers the rows of its adjacent cells; no write conflicts. */
      dbd,
      /**
       * Element by element in tiles of neighbouring cells (cells sorted
       * along a Morton curve of their centres, OperatorSettings::cells_per_tile
       * per tile): a team gathers the tile's nodal values once, its cells add
       * their contributions in team scratch memory, and only nodes that the
       * tile shares with other tiles are added to the global vector with
       * atomics; nodes whose cells all lie in the tile are stored plainly.
       */
      ebe_tiled,
      /**
       * The process-local stiffness matrix (or consistent tangent) assembled
       * on the device in CSR form and applied as a sparse matrix-vector
       * product: a symbolic pass once (the sparsity of the nodes from the
       * cell -> node table), a numeric pass at set-up and whenever the
       * tangent changes (the cell kernel's element matrices added into the
       * CSR values). 3 to 15 times the memory of the matrix-free
       * strategies; the matrix can be copied out (copy_matrix()) for
       * algebraic multigrid, direct solvers or comparisons.
       */
      assembled,
      /**
       * DoF by DoF on a lattice (the structured indexing of fixed-grid
       * methods): for meshes whose cells are equal axis-parallel boxes of one
       * lattice (uniform boxes, voxel and fixed-grid meshes; holes and
       * several materials allowed, no hanging nodes). One thread per node
       * finds its lattice point, neighbours and cells by index arithmetic, no
       * cell -> node table: a node whose eight cells share material and stiffness
       * factor applies the 27-point stencil of the elastic box matrix summed
       * over them, other nodes the rows of their cells' element matrices;
       * the cells with plastic points of a tangent are added element by
       * element (atomics) with the cell kernel and the thread mapping of the
       * settings (one thread or eight shuffle lanes per cell). Results are
       * stored without atomics. Throws std::invalid_argument for another mesh.
       */
      dbd_structured
    };

    /**
     * How a cell's operator is evaluated.
     */
    enum class CellKernel
    {
      /** Quadrature with inverse Jacobian and JxW stored per quadrature point. */
      stored_geometry,
      /** Quadrature with the Jacobian recomputed from the eight vertex coordinates. */
      geometry_on_the_fly,
      /**
       * A 24x24 element matrix. Cells that are translates of each other with
       * the same material share one matrix (one for a whole uniform "voxel"
       * mesh); other cells get their own.
       */
      element_matrix
    };

    /**
     * How the strain of a cell's Gauss points is formed from the
     * displacement.
     */
    enum class ElementFormulation
    {
      /** Full integration: the strain of each point from its own gradients. */
      full,
      /**
       * B-bar, mean dilatation (Hughes 1980): each point keeps its
       * deviatoric strain and takes the cell average of the dilatation div u
       * as its volumetric strain, in the operator, the tangent, the stress
       * update and the internal force. Cures the volumetric locking of Q1
       * hexahedra under isochoric plastic flow and near incompressibility.
       * Small strain only.
       */
      bbar,
      /**
       * F-bar, its finite-strain counterpart: each point sees F_bar =
       * (J_bar / J)^(1/3) F, its own isochoric part with the cell's volume
       * change J_bar (the current over the reference volume of the cell),
       * in the internal force, the consistent tangent and the return in the
       * logarithmic strain (de Souza Neto, Peric, Dutko and Owen 1996, with
       * the volume-averaged J). Finite strain only (a FiniteStrainState);
       * an operator without one, such as a multigrid level's, applies its
       * linearisation at F = I, which is B-bar.
       */
      fbar
    };

    /**
     * How threads map onto cells in the element-by-element strategies.
     */
    enum class ThreadMapping
    {
      /**
       * Measured choice: on GPUs node for ebe colored, shuffle for ebe
       * atomic and dbd structured with geometry on the fly, cell otherwise;
       * on CPUs shuffle (the lanes' host form) for ebe atomic, ebe colored
       * and dbd structured with the quadrature kernels, cell otherwise.
       * (dbd structured runs one thread per lattice point; the mapping is
       * that of the cells it evaluates element by element, cell or shuffle.)
       */
      automatic,
      /** One thread per cell does the whole cell (good on CPUs). */
      cell,
      /**
       * Eight threads per cell (one per vertex and one per Gauss point) that
       * share the cell's gathered values through team scratch memory (the
       * EbE_Node mapping of U. Kiran's thesis, "Development of GPU-based
       * Strategies for Finite Element Simulation of Elastoplastic Problems";
       * good on GPUs).
       */
      node,
      /**
       * Eight lanes per cell, one per vertex and Gauss point, that exchange
       * values through register shuffles (GPUs: eight threads of a warp; the
       * reference gradients and their transpose by sum factorisation across
       * the lanes), with no scratch memory and few registers per thread.
       * For the quadrature cell kernels (stored geometry, geometry on the
       * fly) of ebe atomic, ebe colored and the element-by-element cells of
       * dbd structured; the element-matrix kernel runs one thread per cell
       * under it. CPUs run the eight lanes of a cell in
       * one thread.
       */
      shuffle
    };

    /** Parse "ebe atomic", "ebe colored", "dbd", "ebe tiled", "assembled", "dbd structured"; throws std::invalid_argument naming the value otherwise. */
    PLASTIX_BACKEND_EXPORT Strategy
    parse_strategy(const std::string &name);

    /** Parse "stored geometry", "geometry on the fly", "element matrix"; throws std::invalid_argument otherwise. */
    PLASTIX_BACKEND_EXPORT CellKernel
    parse_cell_kernel(const std::string &name);

    /** Parse "full", "bbar"; throws std::invalid_argument naming the value otherwise. */
    PLASTIX_BACKEND_EXPORT ElementFormulation
    parse_element_formulation(const std::string &name);

    /** The name parse_element_formulation() accepts. */
    PLASTIX_BACKEND_EXPORT std::string
    to_string(ElementFormulation formulation);

    /** Parse "auto", "cell", "node", "shuffle"; throws std::invalid_argument otherwise. */
    PLASTIX_BACKEND_EXPORT ThreadMapping
    parse_thread_mapping(const std::string &name);

    /** The name parse_thread_mapping() accepts. */
    PLASTIX_BACKEND_EXPORT std::string
    to_string(ThreadMapping mapping);

    /**
     * Whether the element-by-element cells run on eight shuffle lanes with
     * the resolved @p mapping and @p kernel: ThreadMapping::shuffle with a
     * quadrature cell kernel (the element-matrix kernel runs one thread per
     * cell under it).
     */
    PLASTIX_BACKEND_EXPORT bool
    cells_on_shuffle_lanes(ThreadMapping mapping, CellKernel kernel);

    /**
     * Why @p strategy cannot run with the thread mapping @p mapping, or an
     * empty string if it can (automatic always can): ebe tiled and
     * assembled run one thread per cell or matrix row (cell only); dbd
     * structured runs one thread per lattice point, and cell or shuffle
     * choose the threads of its element-by-element cells (not node). The
     * one statement of these rules: the operator refuses such settings with
     * this text, and the application checks its input with it.
     */
    PLASTIX_BACKEND_EXPORT std::string
    thread_mapping_conflict(Strategy strategy, ThreadMapping mapping);

    /** The name parse_strategy() accepts. */
    PLASTIX_BACKEND_EXPORT std::string
    to_string(Strategy strategy);

    /** The name parse_cell_kernel() accepts. */
    PLASTIX_BACKEND_EXPORT std::string
    to_string(CellKernel kernel);

    /** Wall-clock seconds of the passes of Strategy::assembled (device work included). */
    struct AssemblyTimes
    {
      /** The symbolic pass (sparsity), once at construction. */
      double symbolic = 0;
      /** The last numeric pass (values). */
      double numeric = 0;
    };

    /**
     * A process-local matrix in CSR form on the host: rows and columns are
     * the local DoFs (owned, then ghost); row r holds the columns
     * columns[k] and values values[k] for k in [row_offsets[r],
     * row_offsets[r + 1]), columns ascending.
     */
    struct CsrMatrix
    {
      std::vector<std::int64_t> row_offsets;
      std::vector<LocalIndex>   columns;
      std::vector<double>       values;
    };

    /** Choices of the operator. */
    struct OperatorSettings
    {
      /** Scatter strategy. */
      Strategy strategy = Strategy::ebe_atomic;
      /** Cell operator form. */
      CellKernel cell_kernel = CellKernel::stored_geometry;
      /** Strain of the Gauss points: full integration or B-bar. */
      ElementFormulation element_formulation = ElementFormulation::full;
      /**
       * Threads per cell of the element-by-element strategies and of the
       * element-by-element cells of dbd structured (ebe tiled and assembled:
       * always one; dbd structured refuses node).
       */
      ThreadMapping thread_mapping = ThreadMapping::automatic;
      /**
       * Cells per tile of Strategy::ebe_tiled (1 to 128; a tile also ends
       * early where its nodes would not fit into 48 KiB of team scratch
       * memory). 128 is an 8x4x4 block of a structured mesh, the fastest
       * measured on a GPU (doc/benchmarks.md, "GPU: the elastic operator on
       * lattices (uniform meshes)").
       */
      unsigned int cells_per_tile = 128;
    };

    /**
     * The matrix-free operator of small-strain solid mechanics on Q1
     * hexahedra (3 components, 2x2x2 Gauss points) of one process's mesh
     * (MeshData), resident on the device: linear elasticity, or the
     * consistent tangent of the plastic materials when it owns a
     * GaussPointState (create_plasticity_state()). The deal.II-side
     * plastix::MechanicsOperator builds one from a DoFHandler and applies it.
     * All vectors are device arrays over the
     * local DoFs (owned then ghost); ghost entries of a result hold partial
     * sums that the caller adds to their owners (MPI compress).
     */
    class PLASTIX_BACKEND_EXPORT DeviceOperator
    {
    public:
      /** Upload @p mesh and build the data the chosen strategy needs. */
      DeviceOperator(const MeshData &mesh, const OperatorSettings &settings);

      ~DeviceOperator();

      DeviceOperator(const DeviceOperator &) = delete;
      DeviceOperator &
      operator=(const DeviceOperator &) = delete;

      /**
       * dst = A src over the local cells. Constrained DoFs: their src values
       * are ignored by the cells, their dst rows get nothing from the cells,
       * and owned constrained DoFs get dst = src (unit diagonal). With
       * hanging-node lines the operator is C^T A C: the cells see the
       * constrained rows of src interpolated from their lines, the cells'
       * rows of those DoFs are condensed onto the DoFs they depend on, and
       * they get dst = src (owned) or 0 (ghosts). src is not changed (its
       * constrained rows are overwritten during the call and restored).
       */
      void
      apply(const double *src, double *dst) const;

      /**
       * As above on single-precision vectors, evaluated in single
       * precision (the operator's data stay in double precision and are
       * rounded on the fly): the level operators of a mixed-precision
       * multigrid.
       */
      void
      apply(const float *src, float *dst) const;

      /**
       * Whether chebyshev_step() can fuse its update into the application:
       * Strategy::dbd_structured whose lattice pass is the whole operator
       * (no cells with plastic points of a tangent, no hanging-node lines)
       * and no ghost nodes (one process).
       */
      bool
      fuses_chebyshev_step() const;

      /**
       * One step of a Chebyshev-Jacobi iteration with the update fused into
       * apply(): with t = apply(x) (t = x on constrained rows),
       *   out = (1 + factor1) x - factor1 x_old + factor2 inverse_diagonal (rhs - t)
       * on every DoF (without the x_old term if @p x_old is null), in one
       * kernel that does not store t. @p out may be @p x_old, not @p x.
       * Only where fuses_chebyshev_step(); throws otherwise.
       */
      void
      chebyshev_step(const double *x,
                     const double *x_old,
                     const double *rhs,
                     const double *inverse_diagonal,
                     double        factor1,
                     double        factor2,
                     double       *out) const;

      /** As above in single precision. */
      void
      chebyshev_step(const float *x,
                     const float *x_old,
                     const float *rhs,
                     const float *inverse_diagonal,
                     double       factor1,
                     double       factor2,
                     float       *out) const;

      /**
       * dst = C^T A src with no Dirichlet treatment, src taken as it is on
       * every DoF (constrained rows included), used to move prescribed
       * values to the right-hand side. With hanging-node lines the rows of
       * constrained DoFs are condensed (condense()).
       */
      void
      apply_unconstrained(const double *src, double *dst) const;

      /**
       * dst = C^T M src, the mass matrix of the mesh data (MeshData::
       * mass_rows) with no Dirichlet treatment, src taken as it is on every
       * DoF (hanging-node rows interpolated by the caller): inertial forces
       * and kinetic energies (zero where the mesh data have no mass matrix).
       */
      void
      apply_mass(const double *src, double *dst) const;

      /**
       * The operator becomes A + @p factor M (apply(), compute_diagonal(),
       * copy_matrix(); not apply_unconstrained() and the internal forces):
       * the effective stiffness of an implicit time step. 0 (the default)
       * leaves A. Finite and >= 0.
       */
      void
      set_mass_factor(double factor);

      /**
       * The operator becomes A + L with the load stiffness L of the entries
       * (@p rows[k], @p columns[k], @p values[k]) of local DoFs, sorted by
       * row, then column, without duplicates (std::invalid_argument
       * otherwise): the linearisation of a load that depends on the
       * displacement, such as a pressure that follows the deformation, in
       * apply(), compute_diagonal() and copy_matrix(); not in
       * apply_unconstrained() and the internal forces (as the mass term). Rows and columns of
       * Dirichlet DoFs and hanging-node rows are treated as for the cells.
       * L replaces the previous one; no entries remove it. L is taken as
       * not symmetric: has_symmetric_tangent() is false while one is set.
       */
      void
      set_load_stiffness(const std::vector<LocalIndex> &rows,
                         const std::vector<LocalIndex> &columns,
                         const std::vector<double>     &values);

      /**
       * dst <- C^T dst for a vector of local cell contributions (before the
       * ghost exchange): the row of each hanging-node constrained DoF is
       * added, weighted, to the DoFs it depends on and then zeroed, as
       * deal.II's AffineConstraints::condense() does. A no-op without
       * constraint lines.
       */
      void
      condense(double *dst) const;

      /**
       * u_h = sum_k w_k u_{j_k} + scale * inhomogeneities[r] on the row of
       * every constraint line r (owned and ghost rows; @p u needs valid
       * ghost values): deal.II's AffineConstraints::distribute() for the
       * hanging-node lines. @p inhomogeneities: one per line, or null.
       */
      void
      distribute_constraint_lines(double *u, const double *inhomogeneities, double scale) const;

      /** Number of hanging-node constraint lines (MeshData::constraint_rows). */
      std::size_t
      n_constraint_lines() const;

      /**
       * The local contributions to the diagonal of A (1 at owned constrained
       * DoFs); with hanging-node lines the exact diagonal of C^T A C.
       */
      void
      compute_diagonal(double *diagonal) const;

      /**
       * Give the operator a J2 plasticity history at every Gauss point of its
       * cells (zero: all points elastic and stress free), owned by the
       * operator, and make the operator its consistent tangent (use_tangent()
       * is true). An earlier state is replaced. The reference stays valid
       * until release_plasticity_state(), the next call or the operator's
       * destruction.
       */
      GaussPointState &
      create_plasticity_state();

      /** Destroy the plasticity state; the operator is linear elastic again. */
      void
      release_plasticity_state();

      /**
       * Make the operator total-Lagrangian finite-strain hyperelasticity:
       * give it the deformation gradients of a displacement at every Gauss
       * point (the undeformed body first), owned by the operator, and make
       * it the consistent tangent there (FiniteStrainState). Replaces an
       * earlier state. Throws std::invalid_argument if the settings cannot
       * apply it: the strategy dbd structured or the element-matrix cell
       * kernel (both apply one element matrix to congruent cells, which the
       * tangent does not keep), mean dilatation (B-bar is a small-strain
       * formulation), or a plasticity state. The reference stays valid
       * until release_finite_strain_state(), the next call or the
       * operator's destruction.
       */
      FiniteStrainState &
      create_finite_strain_state();

      /** Destroy the finite-strain state; the operator is linear elastic again. */
      void
      release_finite_strain_state();

      /** The finite-strain state, or nullptr if there is none. */
      FiniteStrainState *
      finite_strain_state();

      /** The finite-strain state, or nullptr if there is none. */
      const FiniteStrainState *
      finite_strain_state() const;

      /** The plasticity state, or nullptr if there is none. */
      GaussPointState *
      plasticity_state();

      /** The plasticity state, or nullptr if there is none. */
      const GaussPointState *
      plasticity_state() const;

      /**
       * With a plasticity state, whether apply(), apply_unconstrained() and
       * compute_diagonal() give its consistent tangent (elastic where a
       * point is elastic; @p tangent = true, the default) or linear
       * elasticity (false, e.g. the predictor of a step that reverses the
       * loading). Without a state the operator is elastic either way.
       */
      void
      use_tangent(bool tangent);

      /**
       * Whether the consistent tangent of a plasticity state is symmetric:
       * false if a material has a pressure-dependent yield criterion with a
       * non-associative flow (dilation angle below the friction angle),
       * or while a load stiffness is set (set_load_stiffness()), which CG
       * cannot solve.
       */
      bool
      has_symmetric_tangent() const;

      /**
       * Refresh what the operator stores of the tangent: the matrices of
       * cells with plastic points (element-matrix kernel) and the values of
       * the assembled matrix (Strategy::assembled, a numeric pass); call
       * after each GaussPointState::update(). A no-op for the matrix-free
       * quadrature kernels.
       */
      void
      update_tangent();

      /**
       * The assembled local matrix (Strategy::assembled; throws
       * std::logic_error otherwise) copied to the host: the operator of
       * apply() without its unit rows, i.e. the rows and columns of
       * constrained DoFs are zero (with hanging-node lines: before their
       * condensation, the matrix the cells see). Ghost rows hold this
       * process's partial sums, which belong to their owners.
       */
      CsrMatrix
      copy_matrix() const;

      /** Number of stored entries of the assembled matrix (0 unless Strategy::assembled). */
      std::size_t
      n_matrix_entries() const;

      /** Times of the symbolic and the last numeric pass (zero unless Strategy::assembled). */
      AssemblyTimes
      assembly_times() const;

      /** Settings in use (thread_mapping resolved: never automatic). */
      const OperatorSettings &
      settings() const;

      /** Number of cells. */
      LocalIndex
      n_cells() const;

      /** Number of local DoFs (owned and ghost). */
      LocalIndex
      n_dofs() const;

      /** Number of owned DoFs. */
      LocalIndex
      n_owned_dofs() const;

      /** Number of colours (ebe colored), else 0. */
      unsigned int
      n_colors() const;

      /** Number of tiles (ebe tiled), else 0. */
      std::size_t
      n_tiles() const;

      /** Number of distinct element matrices stored (element-matrix kernel), else 0. */
      std::size_t
      n_element_matrices() const;

      /** Device memory held by the operator's data (bytes). */
      std::size_t
      memory_consumption() const;

      /**
       * Bytes one apply() must at least move through device memory with this
       * strategy: operator data once, src read, dst written (twice with
       * atomics), counted as the benchmark's effective traffic. The vectors
       * hold @p bytes_per_value bytes per entry (8 double, 4 float); the
       * operator data are double in either case.
       */
      std::size_t
      bytes_per_apply(std::size_t bytes_per_value = sizeof(double)) const;

      /** One line describing strategy, kernel and data sizes. */
      std::string
      description() const;

      /**
       * Cell-averaged strain (6 per cell: xx, yy, zz, yz, xz, xy, tensor
       * components) of the displacement @p u, copied to @p host_out of size
       * 6 n_cells().
       */
      void
      cell_average_strain(const double *u, double *host_out) const;

      struct Impl;

      /** Internal data, for the plasticity kernels of the backend. */
      const Impl &
      impl() const;

    private:
      std::unique_ptr<Impl> impl_;
    };
  } // namespace backend
} // namespace plastix

#endif
