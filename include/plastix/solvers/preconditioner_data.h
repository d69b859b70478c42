// Settings of the preconditioners that LinearSolverData nests: the geometric
// multigrid and Trilinos ML AMG.
#ifndef PLASTIX_SOLVERS_PRECONDITIONER_DATA_H
#define PLASTIX_SOLVERS_PRECONDITIONER_DATA_H

#include <deal.II/base/types.h>

#include <plastix/base/enum_patterns.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/solvers/solver_types.h>

namespace plastix
{
  /** Settings of Trilinos ML smoothed-aggregation AMG for elasticity. */
  struct AmgData
  {
    /** ML "aggregation: threshold": drop couplings weaker than this (relative to the diagonal). */
    double aggregation_threshold = 1e-4;
    /** Smoother sweeps per level (ML "smoother: sweeps"; the Chebyshev degree for Chebyshev). */
    unsigned int smoother_sweeps = 2;
    /** ML smoother. */
    AmgSmoother smoother_type = AmgSmoother::chebyshev;
    /**
     * Near-null space: the six rigid-body modes from the DoF coordinates
     * (true, the setting for elasticity) or ML's default of three
     * translations per node (false).
     */
    bool rigid_body_modes = true;
  };

  /** Settings of the matrix-free geometric multigrid. */
  struct MultigridData
  {
    /**
     * Number type of the V-cycle (the outer solver stays in double
     * precision). Single: the same iterations as double on the stock
     * problems and a faster Newton stage on a GPU (doc/solvers.md), for
     * CG only: the V-cycle in float is not linear to double precision,
     * which CG tolerates and GMRES does not. Auto (the default):
     * LinearSolver resolves it to single under the CG solvers and double
     * under GMRES and MINRES (LinearSolver::level_precision());
     * MultigridPreconditioner runs an unresolved auto in double.
     */
    AutoOr<LevelPrecision> level_precision;
    /**
     * Degree of the Chebyshev-Jacobi smoother (pre and post) on every level
     * above the coarsest. 3: the shortest linear solves of most stock runs
     * on a GPU and on the host (doc/solvers.md, "Multigrid settings");
     * problems that need many iterations per Newton step can gain from 4.
     */
    unsigned int smoother_degree = 3;
    /** The smoother targets eigenvalues in [lambda_max / range, lambda_max] of D^-1 A. */
    double smoothing_range = 15.;
    /** CG iterations that estimate lambda_max of each level. */
    unsigned int eigenvalue_iterations = 12;
    /**
     * Solver of level 0. CoarseSolverType::automatic picks by the size of
     * level 0 (direct_solver_limit, dense_inverse_minimum); where it picks cg
     * for a level 0 the dense inverse can take (46,340 DoFs), it times the cg
     * solves and replaces them by the dense inverse at a new tangent
     * (MultigridPreconditioner::update_fine_level()) once they have taken as
     * long as the dense inverse's set-up is estimated to take (on a GPU
     * 3.5 ns per entry of the n x n matrix and 0.2 s; on the host n^3 flops
     * at 1 GFlop/s). As in the ski-rental problem, a run then spends at
     * most about twice what the better fixed choice would have cost (where
     * the estimate holds); runs whose coarse cg needs many iterations gain
     * most (doc/solvers.md). The level-0 matrix
     * is then assembled: the fine operator's
     * MechanicsOperator::AdditionalData::cell_stiffness_factor must still be
     * valid.
     */
    CoarseSolverType coarse_solver = CoarseSolverType::automatic;
    /**
     * CoarseSolverType::automatic picks dense_inverse (kernels on a GPU, from
     * dense_inverse_minimum level-0 DoFs) or direct up to this many level-0
     * DoFs, cg above.
     */
    dealii::types::global_dof_index direct_solver_limit = 5000;
    /**
     * CoarseSolverType::automatic on a GPU picks dense_inverse from this many
     * level-0 DoFs (and direct below): cuSOLVER's set-up has a fixed cost
     * (0.2 s in the estimate of coarse_solver), paid once, which the host
     * round trips that direct needs in every V-cycle repay only over many
     * V-cycles when level 0 is small (doc/solvers.md).
     */
    dealii::types::global_dof_index dense_inverse_minimum = 2000;
    /**
     * Accuracy of the iterative coarse solvers: the relative residual
     * reduction of cg, the target error reduction of chebyshev.
     */
    double coarse_tolerance = 1e-2;
    /** Most iterations of the cg coarse solver (it stops there without an error). */
    unsigned int coarse_max_iterations = 200;
    /** ML settings of CoarseSolverType::amg (LinearSolver takes LinearSolverData::amg). */
    AmgData coarse_amg;
  };

} // namespace plastix

#endif
