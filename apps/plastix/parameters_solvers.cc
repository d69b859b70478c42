// The subsections Linear solver, Load stepping and Newton: declaration and checks.
#include <deal.II/base/patterns.h>
#include <deal.II/base/utilities.h>

#include <plastix/core/mechanics_operator.h>

#include "parameters.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace plastix
{
  namespace
  {
    /** The entries of the multigrid preconditioner ("Multigrid ..."), bound to @p data. */
    void
    declare_multigrid_entries(dealii::ParameterHandler &prm, MultigridData &data)
    {
      prm.add_parameter("Multigrid smoother degree", data.smoother_degree,
                        "Degree of the Chebyshev-Jacobi smoother on each multigrid level (pre and "
                        "post smoothing)",
                        dealii::Patterns::Integer(1, 30));
      prm.add_parameter("Multigrid smoothing range", data.smoothing_range,
                        "The multigrid smoother damps eigenvalues of D^-1 A in [lambda_max / range, "
                        "lambda_max] (lambda_max estimated by 12 CG iterations)",
                        dealii::Patterns::Double(1.));
      prm.add_parameter("Multigrid coarse solver", data.coarse_solver,
                        "Solver of the coarsest multigrid level (the coarse mesh): cg (CG on the "
                        "device, preconditioned by Chebyshev-Jacobi, to 'Multigrid coarse "
                        "tolerance'), chebyshev (a Chebyshev-Jacobi polynomial on the device whose "
                        "degree reduces the error by 'Multigrid coarse tolerance'), direct (Amesos "
                        "KLU of the level-0 matrix assembled on the host), dense inverse (the "
                        "explicit inverse of that matrix, computed once, cuSOLVER on a GPU and "
                        "LAPACK on the host, applied by one dense matrix-vector product where the "
                        "kernels run; n^2 doubles of memory for n level-0 DoFs) or amg (one ML "
                        "V-cycle of that matrix, settings below); direct and amg copy the level-0 "
                        "vector to the host per V-cycle. auto: up to 'Multigrid direct solver "
                        "limit' level-0 DoFs dense inverse on a GPU (from 'Multigrid dense "
                        "inverse minimum' DoFs) and direct otherwise, cg above, replaced by the "
                        "dense inverse at a Newton step once the cg solves have taken as long as "
                        "its set-up is estimated to take (up to 46,340 level-0 DoFs); the run "
                        "summary names the choice");
      prm.add_parameter("Multigrid level precision", data.level_precision,
                        "Number type of the V-cycle: double, or single (level operators, "
                        "smoothers and transfers on float vectors, the coarse solve, the outer "
                        "Krylov solver and the Newton iteration in double precision: a "
                        "mixed-precision V-cycle that moves half the bytes; the same iterations as "
                        "double on the stock problems and a faster Newton stage on a GPU, "
                        "doc/solvers.md, \"Multigrid settings\"). single needs Type = cg or belos cg: GMRES and MINRES "
                        "assume a preconditioner that is linear to working precision, and with a "
                        "single-precision V-cycle GMRES reported convergence at a true residual "
                        "far above its tolerance. auto: single under cg and belos cg, double "
                        "under the others");
      prm.add_parameter("Multigrid coarse tolerance", data.coarse_tolerance,
                        "Relative residual reduction of the cg coarse solver; target error "
                        "reduction of the chebyshev coarse solver",
                        dealii::Patterns::Double(1e-12, 0.5));
      prm.add_parameter("Multigrid direct solver limit", data.direct_solver_limit,
                        "Multigrid coarse solver auto uses dense inverse (GPU) or direct (host) "
                        "up to this many level-0 DoFs (a factorisation of a 3D mesh grows much "
                        "faster than its size)",
                        dealii::Patterns::Integer(0));
      prm.add_parameter("Multigrid dense inverse minimum", data.dense_inverse_minimum,
                        "Multigrid coarse solver auto on a GPU uses dense inverse from this many "
                        "level-0 DoFs up to 'Multigrid direct solver limit', and direct below (the "
                        "dense inverse's one-off cuSOLVER set-up, about 0.2 s, pays off only over "
                        "many V-cycles on a small level 0)",
                        dealii::Patterns::Integer(0));
    }

    /** The entries of the ML AMG ("AMG ..."), bound to @p data. */
    void
    declare_amg_entries(dealii::ParameterHandler &prm, AmgData &data)
    {
      prm.add_parameter("AMG aggregation threshold", data.aggregation_threshold,
                        "ML aggregation threshold: couplings weaker than this fraction of the "
                        "diagonal are dropped when aggregating (Preconditioner = amg and the "
                        "multigrid coarse amg)",
                        dealii::Patterns::Double(0.));
      prm.add_parameter("AMG smoother sweeps", data.smoother_sweeps,
                        "ML smoother sweeps per level (the polynomial degree for Chebyshev)",
                        dealii::Patterns::Integer(1, 20));
      prm.add_parameter("AMG smoother", data.smoother_type, "ML smoother on each AMG level");
      prm.add_parameter("AMG rigid body modes", data.rigid_body_modes,
                        "Give ML the six rigid-body modes (from the node coordinates) as near-null "
                        "space, the setting for elasticity; false: ML's three translations");
    }
  } // namespace

  void
  SolverParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Linear solver");
    prm.add_parameter("Type", type,
                      "auto (direct where its factorization is estimated cheap: small meshes, slender and "
                      "thin bodies, on a mesh without local or adaptive refinement, when Preconditioner and "
                      "Operator/Strategy are auto too; else cg, or gmres for a non-symmetric consistent "
                      "tangent); "
                      "Krylov solver: cg or gmres (deal.II SolverCG / SolverGMRES with right "
                      "preconditioning), or belos cg, belos gmres, belos minres (Trilinos Belos "
                      "PseudoBlockCG / PseudoBlockGmres / MINRES). All iterate on device vectors; "
                      "cg and minres need a symmetric positive definite preconditioner (all of "
                      "the choices below are). Or direct: a sparse LU factorization (Trilinos Amesos, "
                      "see Direct solver package) of the matrix assembled on the device, on the host, for small problems "
                      "(up to some 10^5 DoFs); it takes Operator/Strategy = assembled (auto chooses "
                      "it), takes hanging nodes and normal supports (the matrix is condensed as the "
                      "operator is) and ignores the Preconditioner");
    prm.add_parameter("Direct solver package", direct_package,
                      "The Trilinos Amesos package of Type = direct: auto (MUMPS where this Trilinos has it, "
                      "else KLU); MUMPS (multifrontal, nested-dissection ordering: the faster on compact 3D "
                      "meshes); KLU (no nested dissection: fast on small problems and slender or thin bodies)");
    prm.add_parameter("Preconditioner", preconditioner,
                      "auto (multigrid when 'Mesh/Global refinements' >= 1 and the mesh is refined "
                      "uniformly, else chebyshev: also on locally or adaptively refined meshes, with a normal "
                      "support not normal to x, y or z and for a fixed grid that keeps its outside cells); "
                      "none; jacobi (inverse matrix-free diagonal); chebyshev (Chebyshev "
                      "polynomial around Jacobi, eigenvalues estimated by CG); multigrid "
                      "(matrix-free geometric multigrid over the mesh levels on deal.II's "
                      "Multigrid: device level operators, Chebyshev-Jacobi smoothers, transfers "
                      "and coarse solver (see Multigrid coarse solver); needs 'Mesh/Global "
                      "refinements' >= 1); amg (Trilinos ML smoothed-aggregation AMG of the "
                      "assembled elastic matrix on the host, vectors copied per application: "
                      "a comparison baseline)");
    prm.add_parameter("Relative tolerance", relative_tolerance,
                      "Stop when |r| <= max(relative tolerance |b|, absolute tolerance)",
                      dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Absolute tolerance", absolute_tolerance, "See Relative tolerance",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("Maximum iterations", max_iterations,
                      "Iterations after which the solve fails with an error",
                      dealii::Patterns::Integer(1));
    prm.add_parameter("Divergence factor", divergence_factor,
                      "The solve (cg, gmres) fails as soon as the residual exceeds this factor "
                      "times the initial residual, e.g. when a preconditioner is no longer "
                      "positive definite for the tangent; Newton then cuts the step. 0: never "
                      "(the default: CG's residual can rise far above the initial one on "
                      "ill-conditioned problems that converge); otherwise greater than 1",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("Stagnation iterations", stagnation_iterations,
                      "A deal.II cg or gmres solve fails (and Newton cuts the step) when its residual has reached "
                      "no new minimum for this many iterations, instead of running to Maximum iterations; 0: "
                      "never. Belos solves do not check it",
                      dealii::Patterns::Integer(0));
    prm.add_parameter("Chebyshev degree", chebyshev_degree,
                      "Polynomial degree of the Chebyshev preconditioner",
                      dealii::Patterns::Integer(1, 100));
    prm.add_parameter("GMRES restart", gmres_restart, "Krylov vectors kept by GMRES (deal.II and Belos)",
                      dealii::Patterns::Integer(2, 1000));
    prm.add_parameter("Reuse preconditioner", reuse_preconditioner,
                      "When the elastoplastic Newton iteration rebuilds the parts of the "
                      "preconditioner that follow the tangent (Jacobi diagonal, Chebyshev "
                      "eigenvalue estimate, finest multigrid smoother): never (before every "
                      "linear solve), load step (at the first solve of each load step) or "
                      "always (built once for the elastic operator and reused). The coarser "
                      "multigrid levels and AMG are always elastic and built once");
    declare_multigrid_entries(prm, multigrid);
    declare_amg_entries(prm, amg);
    prm.leave_subsection();
  }

  void
  LoadSteppingParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Load stepping");
    prm.add_parameter("Final load factor", final_load_factor,
                      "Load factor of the last step; all loads and prescribed displacements "
                      "are multiplied by the load factor",
                      dealii::Patterns::Double());
    prm.add_parameter("Number of steps", n_steps, "Equal steps from 0 to the final load factor",
                      dealii::Patterns::Integer(1, 100000));
    prm.add_parameter("Load factors", load_factors_text,
                      "Explicit load factors, e.g. '0.333, 0.667, 1' or with unloading "
                      "'0.5, 1, 0.5, 0' (overrides the two entries above)",
                      dealii::Patterns::Anything());
    prm.add_parameter("Minimum increment", minimum_increment,
                      "A step whose Newton iteration fails is halved until its load-factor "
                      "increment falls below this; then the run fails",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("Maximum cuts", max_cuts, "Most halvings of one step",
                      dealii::Patterns::Integer(0, 60));
    prm.add_parameter("Increment growth", increment_growth,
                      "After a cut, each converged step lets the next increment grow by this factor, up to "
                      "the whole remaining increment (a large value goes straight back to it); a new load "
                      "factor starts with its whole increment",
                      dealii::Patterns::Double(1.));
    prm.add_parameter("Steps per run", steps_per_run,
                      "Stop cleanly (exit status 0) after this many converged load steps (time steps of "
                      "a dynamic run) of this run, "
                      "e.g. to fit the time limit of a batch job, and continue with 'plastix --restart' "
                      "from the checkpoint (0: run to the last load factor)",
                      dealii::Patterns::Integer(0));
    prm.leave_subsection();
  }

  void
  LoadSteppingParameters::check()
  {
    load_factors.clear();
    const std::string entry = "Load stepping/Load factors";
    for (const auto &item : split(load_factors_text, ','))
      if (!item.empty())
        load_factors.push_back(parse_double(item, entry));
    if (load_factors.empty())
      for (unsigned int i = 1; i <= n_steps; ++i)
        load_factors.push_back(final_load_factor * i / n_steps);
    double previous = 0;
    for (const double f : load_factors)
      {
        if (f == previous)
          throw InputError(load_factors_text.empty() ? "Load stepping/Final load factor" : entry,
                           "consecutive load factors must differ (got " + std::to_string(f) +
                             " twice; the run starts at 0)");
        previous = f;
      }
  }

  void
  NewtonParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Newton");
    prm.add_parameter("Maximum iterations", max_iterations,
                      "Newton iterations per load step before the step is cut",
                      dealii::Patterns::Integer(1, 1000));
    prm.add_parameter("Residual tolerance", residual_tolerance,
                      "Converged when |f_ext - f_int| (unconstrained DoFs) <= tolerance * "
                      "max(|f_ext|, |reaction forces|, the largest of these so far in the run) ...",
                      dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Displacement tolerance", displacement_tolerance,
                      "... and the last correction |du| <= tolerance * |u|",
                      dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Maximum forcing term", max_forcing_term,
                      "Largest relative tolerance of a linear solve (inexact Newton; the "
                      "forcing term shrinks quadratically with the residual)",
                      dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Minimum forcing term", min_forcing_term,
                      "Smallest relative tolerance of a linear solve", dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Divergence factor", divergence_factor,
                      "A step is cut when its residual exceeds this factor times its first residual",
                      dealii::Patterns::Double(1.));
    prm.add_parameter("Tangent", tangent,
                      "consistent: Newton-Raphson with the consistent tangent (quadratic convergence; "
                      "non-symmetric for psi < phi). initial stiffness: the elastic operator in every "
                      "iteration with Thomas' acceleration (modified initial stiffness, Sloan et al. 2000): "
                      "symmetric, so CG works for any dilation angle; linear convergence");
    prm.add_parameter("Line search steps", line_search_steps,
                      "Backtracking line search: where a Newton correction leaves a residual that is not "
                      "finite (an inverted element at finite strain) or not smaller, its length is halved, "
                      "at most this many times per iteration; 0: full Newton steps",
                      dealii::Patterns::Integer(0, 30));
    prm.leave_subsection();
  }
} // namespace plastix
