// Krylov solvers and preconditioners for the device operator, chosen in the
// .prm file; the iteration runs on DeviceVectors (no host copies).
#ifndef PLASTIX_SOLVERS_LINEAR_SOLVER_H
#define PLASTIX_SOLVERS_LINEAR_SOLVER_H

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_control.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/solvers/preconditioner_data.h>
#include <plastix/solvers/solver_types.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace plastix
{
  class MultigridPreconditioner;
  enum class LevelPrecision;
  class AmgPreconditioner;
  class DirectSolver;

  /** A linear solve that did not reach its tolerance; the message says how far it got. */
  class SolverError : public std::runtime_error
  {
  public:
    using std::runtime_error::runtime_error;
  };

  /**
   * Settings of a LinearSolver: the Krylov method, the preconditioner and
   * their parameters (the .prm subsection 'Linear solver' of the plastix
   * application fills them).
   */
  struct LinearSolverData
  {
    /**
     * Krylov method: deal.II CG or GMRES, or Trilinos Belos CG, GMRES or
     * MINRES, on device vectors; or direct (an Amesos factorization of the
     * assembled matrix on the host, direct_package, no preconditioner). Automatic is for the caller
     * to resolve (AutoOr::resolve()) before it constructs a LinearSolver,
     * which refuses an unresolved one: the choice of direct depends on the
     * size of the problem and needs Strategy::assembled when the operator
     * is built (the plastix application resolves it from the mesh
     * parameters).
     */
    AutoOr<SolverType> type = SolverType::cg;
    /**
     * The Amesos package of SolverType::direct; automatic: MUMPS where
     * Trilinos has it, else KLU (resolved by the LinearSolver constructor).
     */
    AutoOr<DirectSolverPackage> direct_package;
    /**
     * The preconditioner; automatic: LinearSolver chooses multigrid on a
     * mesh with levels, else chebyshev, for each new operator
     * (LinearSolver::automatic_preconditioner()).
     */
    AutoOr<PreconditionerType> preconditioner;
    /** Stop when the residual is below relative_tolerance |b| ... */
    double relative_tolerance = 1e-8;
    /** ... or below this absolute value, whichever is larger. */
    double absolute_tolerance = 0.;
    /** Most iterations; more is a SolverError. */
    unsigned int max_iterations = 10000;
    /**
     * A solve with deal.II CG or GMRES fails (SolverError) as soon as the
     * residual exceeds this factor times the initial one, instead of running
     * to max_iterations (e.g. CG with a preconditioner that the tangent has
     * made singular); 0 (the default): never. Must be 0 or greater than 1.
     * Off by default: CG's residual is not monotone, and on ill-conditioned
     * problems it can rise far above the initial one on the way to
     * convergence (223 times after one AMG-preconditioned iteration on a
     * cantilever with nu = 0.4999).
     */
    double divergence_factor = 0;
    /**
     * A solve with deal.II CG or GMRES fails (SolverError) when its residual
     * has reached no new minimum for this many iterations (a stagnating
     * solve, which would otherwise run to max_iterations); 0: never. The
     * default leaves a margin of more than two to the longest stretch
     * without progress measured in a converging solve (840 iterations, a
     * near-singular tangent; doc/solvers.md). Belos solves do not check it.
     */
    unsigned int stagnation_iterations = 2000;
    /** Degree of the Chebyshev-Jacobi preconditioner (PreconditionerType::chebyshev). */
    unsigned int chebyshev_degree = 4;
    /** Krylov vectors of GMRES before a restart. */
    unsigned int gmres_restart = 50;
    /** When the Newton solves rebuild the preconditioner. */
    PreconditionerReuse reuse_preconditioner = PreconditionerReuse::never;
    /**
     * The geometric multigrid (PreconditionerType::multigrid). Its level
     * precision auto is resolved here (level_precision()), its coarse AMG is
     * amg below, and its level operators take the choices of the operator
     * it preconditions (initialize()).
     */
    MultigridData multigrid;
    /**
     * ML AMG (PreconditionerType::amg, and the multigrid's coarse amg). The
     * element formulation, stiffness factors and springs are those of the
     * operator it preconditions (initialize()).
     */
    AmgData amg;

    /**
     * Whether the Krylov method is conjugate gradients (cg, belos cg): the
     * methods whose residual recurrence tolerates a single-precision V-cycle,
     * which is not linear to double precision (GMRES and MINRES need one
     * that is).
     */
    bool
    is_conjugate_gradients() const;
  };

  /** What a solve did. */
  struct SolverStatistics
  {
    unsigned int iterations        = 0;
    double       initial_residual  = 0;
    double       final_residual    = 0;
    /**
     * Seconds spent by the last initialize() (building or refreshing the
     * preconditioner: diagonal, eigenvalue estimates, multigrid hierarchy,
     * AMG; 0 if it reused the preconditioner).
     */
    double setup_time = 0;
    /** Seconds spent iterating. */
    double solve_time = 0;
  };

  /**
   * Solves A x = b with the operator of the plastix device backend.
   *
   * SolverType::direct factorizes the operator's matrix (copied from the
   * device by MechanicsOperator::copy_matrix(): the operator must use
   * backend::Strategy::assembled; hanging-node and normal-support lines
   * are condensed into it) with
   * Trilinos Amesos KLU on the host at every set-up that refreshes the
   * operator-dependent parts (so the Newton tangent is factorized anew
   * unless the preconditioner is reused); its solve is one forward and
   * backward substitution, reported as one iteration with the true residual.
   *
   * Solvers ('Linear solver/Type'): deal.II SolverCG or SolverGMRES (right
   * preconditioning), or Trilinos Belos CG, GMRES or MINRES on
   * DeviceVectors (plastix::solve_with_belos()). Preconditioners
   * ('Linear solver/Preconditioner'): none, Jacobi (the inverse
   * matrix-free diagonal), Chebyshev-Jacobi (deal.II
   * PreconditionChebyshev), matrix-free geometric multigrid
   * (MultigridPreconditioner: device level operators, smoothers and
   * transfers) or Trilinos ML AMG on the assembled elastic matrix
   * (AmgPreconditioner, on the host).
   *
   * Multigrid and AMG need the DoFHandler, the materials and the Dirichlet
   * boundaries, so they are set up by the initialize() variants that take
   * them; multigrid and AMG precondition with the elastic operator on the
   * coarser levels (multigrid) or altogether (AMG).
   *
   * Reuse ('Linear solver/Reuse preconditioner'): initialize() is called
   * before every solve; whether it rebuilds the operator-dependent parts
   * (Jacobi diagonal, Chebyshev eigenvalue estimate, the finest multigrid
   * smoother) depends on the setting: never (rebuild on every call), load
   * step (only on calls with new_load_step = true) or always (build once,
   * for the operator of the first call). A new operator (another object or
   * a re-initialized one) always triggers a full set-up.
   */
  class LinearSolver
  {
  public:
    /** Choose solver and preconditioner. */
    explicit LinearSolver(const LinearSolverData &data);

    ~LinearSolver();

    /**
     * (Re)build the preconditioner for @p op; call when the operator
     * changed. For none, jacobi and chebyshev only; multigrid and amg throw
     * std::invalid_argument (use one of the overloads below).
     */
    void
    initialize(const MechanicsOperator &op, bool new_load_step = true);

    /**
     * As above, for any preconditioner: @p op acts on the active DoFs of
     * @p dof_handler with the materials @p materials; @p dirichlet gives the
     * boundaries with prescribed displacements and their components (zero
     * constraints on the multigrid levels; the AMG matrix takes the
     * constraints of @p op). The
     * multigrid level operators and the AMG matrix take the choices of
     * @p op (MechanicsOperator::get_additional_data()). All references must
     * stay valid while this solver is used.
     */
    void
    initialize(const MechanicsOperator     &op,
               const dealii::DoFHandler<3> &dof_handler,
               const MaterialTable         &materials,
               const DirichletBoundaries   &dirichlet,
               bool                         new_load_step = true);

    /**
     * Solve op x = b starting from x. The tolerance is max(relative |b|,
     * absolute) unless @p tolerance_override > 0. Throws SolverError if the
     * iteration does not converge within the maximum number of iterations.
     *
     * A multigrid with single-precision levels whose set-up fails (values
     * outside the range of float) is rebuilt with double-precision levels,
     * which it keeps from then on. One whose solve fails (thin or very
     * stiff parts that make the float V-cycle stall) is rebuilt in double
     * precision and the solve restarts from the initial x: if it converges,
     * the multigrid keeps double precision; if not, the failure is the
     * problem's, the single-precision multigrid is restored and the first
     * SolverError thrown. Rank 0 reports a switch on standard error
     * ("plastix: warning: ...").
     */
    SolverStatistics
    solve(DeviceVector &x, const DeviceVector &b, double tolerance_override = 0.);

    /**
     * "cg + jacobi", "belos minres + multigrid (coarse chebyshev)" etc.;
     * "(auto)" marks a preconditioner chosen by Preconditioner = auto.
     */
    std::string
    name() const;

    /** The Krylov method ('Linear solver/Type'). */
    SolverType
    solver_type() const;

    /** Whether the Krylov method needs a symmetric operator (CG, MINRES). */
    bool
    needs_symmetric_operator() const;

    /**
     * The preconditioner in one line (for multigrid: levels, DoFs per level,
     * smoother, coarse solver and the set-up time of each part).
     */
    std::string
    preconditioner_description() const;

    /**
     * Preconditioner = auto takes chebyshev where the cells' stiffness
     * factors span more than this ratio (a fixed grid that keeps its outside
     * cells): the rediscretized multigrid levels cannot follow such a
     * contrast (doc/solvers.md, "Stiffness factors": 48 multigrid against
     * 510 Jacobi iterations at 1e3, 1,938 against 910 at 1e6).
     */
    static constexpr double max_multigrid_stiffness_contrast = 1e4;

    /**
     * The preconditioner Preconditioner = auto gives on @p triangulation
     * with @p n_constraint_lines_with_entries constraint lines that have
     * entries (over all ranks) and cells whose stiffness factors span
     * @p cell_stiffness_contrast: multigrid if the mesh has the multigrid
     * hierarchy (a serial triangulation, or a distributed one with
     * construct_multigrid_hierarchy), at least two levels and all active
     * cells on the finest, no such lines (hanging nodes, or a support normal
     * to an inclined or curved face: the levels know prescribed components
     * only) and a contrast up to max_multigrid_stiffness_contrast; otherwise
     * chebyshev. The one place of this rule; the two overloads below give
     * it its inputs.
     */
    static PreconditionerType
    automatic_preconditioner(const dealii::Triangulation<3>       &triangulation,
                             dealii::types::global_dof_index n_constraint_lines_with_entries,
                             double                          cell_stiffness_contrast);

    /**
     * The rule above for @p op on @p dof_handler (what initialize() resolves
     * auto to); chebyshev without a DoFHandler.
     */
    static PreconditionerType
    automatic_preconditioner(const MechanicsOperator &op, const dealii::DoFHandler<3> *dof_handler);

    /**
     * The rule above before an operator exists, for the constraints
     * @p constraints on @p dof_handler and the stiffness factors
     * @p cell_stiffness_factor (those the operator will take): a program
     * that distributes the level DoFs only where multigrid can be chosen
     * asks this. Collective over the DoFHandler's communicator.
     */
    static PreconditionerType
    automatic_preconditioner(const dealii::DoFHandler<3>             &dof_handler,
                             const dealii::AffineConstraints<double> &constraints,
                             const CellStiffnessFactor               &cell_stiffness_factor = {});

    /**
     * The number type of the multigrid levels that @p parameters ask for:
     * Multigrid level precision = double or single as given; auto: single
     * under Type = cg and belos cg, double under the GMRES and MINRES types
     * (they need a preconditioner that is linear to double precision).
     */
    static LevelPrecision
    level_precision(const LinearSolverData &data);

    /** How often initialize() built or refreshed the preconditioner (reuse statistics). */
    unsigned int
    n_preconditioner_setups() const;

    /** The multigrid preconditioner (nullptr unless Preconditioner = multigrid and initialized). */
    const MultigridPreconditioner *
    get_multigrid() const;

    /** Whether a failed single-precision multigrid solve switched the levels to double precision. */
    bool
    switched_to_double_levels() const;

    /**
     * A solve of an operator with at most this many rows that fails names
     * the sparse direct solver in its message.
     */
    static constexpr dealii::types::global_dof_index direct_solver_hint_size = 50000;

  private:
    /**
     * Build or refresh the parts that depend on the operator's current
     * values; a failed eigenvalue estimate becomes a SolverError.
     */
    void
    refresh_operator_dependent_parts();

    /** The SolverError of a preconditioner set-up whose eigenvalue estimate failed. */
    SolverError
    setup_failure(const dealii::SolverControl::NoConvergence &error) const;

    /** Build the multigrid hierarchy for the level precision of the parameters. */
    void
    build_multigrid();

    /**
     * Rebuild the multigrid with double-precision levels after its
     * single-precision version failed (@p reason), keep that precision, and
     * say so on rank 0.
     */
    void
    switch_to_double_levels(const std::string &reason);

    /** One solve with the current preconditioner (solve() without the fallback). */
    SolverStatistics
    solve_once(DeviceVector &x, const DeviceVector &b, double tolerance_override);

    /** The settings; an automatic preconditioner holds what it stands for with the current operator. */
    LinearSolverData                                           parameters;
    const MechanicsOperator                                   *op = nullptr;
    std::shared_ptr<const dealii::Utilities::MPI::Partitioner> op_layout;
    const dealii::DoFHandler<3>                               *dof_handler = nullptr;
    /** What the multigrid hierarchy was built for (copies of initialize()'s arguments). */
    MaterialTable                     multigrid_materials;
    DirichletBoundaries               multigrid_dirichlet;
    /** A failed single-precision solve switched the multigrid levels to double. */
    bool switched_to_double = false;
    using Jacobi    = dealii::DiagonalMatrix<DeviceVector>;
    using Chebyshev = dealii::PreconditionChebyshev<MechanicsOperator, DeviceVector, Jacobi>;
    std::shared_ptr<Jacobi>                  jacobi;
    std::unique_ptr<Chebyshev>               chebyshev;
    std::unique_ptr<MultigridPreconditioner> multigrid;
    std::unique_ptr<AmgPreconditioner>       amg;
    /** The sparse direct solver (SolverType::direct) and the matrix it factorized. */
    std::unique_ptr<DirectSolver> direct;
    double                                   setup_time = 0;
    unsigned int                             n_setups   = 0;
  };
} // namespace plastix

#endif
