// The choices of the linear solvers and preconditioners as enums, each with
// its one table of .prm names (enum_patterns.h), and the Dirichlet boundaries
// that the preconditioners built from the mesh need.
#ifndef PLASTIX_SOLVERS_SOLVER_TYPES_H
#define PLASTIX_SOLVERS_SOLVER_TYPES_H

#include <deal.II/base/types.h>
#include <deal.II/fe/component_mask.h>

#include <plastix/base/enum_patterns.h>

#include <map>

#include <string>
#include <utility>
#include <vector>

namespace plastix
{
  /**
   * The boundaries with prescribed displacements, by boundary id, with the
   * prescribed components: the multigrid levels and the AMG matrix get zero
   * constraints there (the values themselves do not matter to a
   * preconditioner).
   */
  using DirichletBoundaries = std::map<dealii::types::boundary_id, dealii::ComponentMask>;

  /** Krylov method of LinearSolver (all of them iterate on device vectors). */
  enum class SolverType
  {
    /** deal.II SolverCG. */
    cg,
    /** deal.II SolverGMRES with right preconditioning. */
    gmres,
    /** Trilinos Belos PseudoBlockCG. */
    belos_cg,
    /** Trilinos Belos PseudoBlockGmres. */
    belos_gmres,
    /** Trilinos Belos MINRES. */
    belos_minres,
    /**
     * Sparse direct solver: a Trilinos Amesos factorization
     * (DirectSolverPackage) of the operator's matrix
     * (MechanicsOperator::copy_matrix(), so Strategy = assembled; constraint
     * lines condensed), on the host; for small problems.
     */
    direct
  };

  /** The Trilinos Amesos package of SolverType::direct. */
  enum class DirectSolverPackage
  {
    /**
     * MUMPS: multifrontal LU with a nested-dissection ordering, the faster
     * on compact 3D meshes. Only where Trilinos was built with it.
     */
    mumps,
    /**
     * KLU: left-looking LU with a fill-reducing ordering but no nested
     * dissection, fast on small problems and on slender and thin bodies;
     * always in Amesos.
     */
    klu
  };

  /**
   * Whether the Krylov method @p type needs a symmetric operator (CG and
   * MINRES): the one rule by which the solvers (LinearSolver) and the
   * application's input checks refuse a non-symmetric tangent.
   */
  inline bool
  needs_symmetric_operator(const SolverType type)
  {
    return type == SolverType::cg || type == SolverType::belos_cg || type == SolverType::belos_minres;
  }

  /** Krylov method of a Belos solve (solve_with_belos()). */
  enum class BelosSolverType
  {
    /** Belos::PseudoBlockCGSolMgr. */
    cg,
    /** Belos::PseudoBlockGmresSolMgr. */
    gmres,
    /** Belos::MinresSolMgr. */
    minres
  };

  /** Preconditioner of LinearSolver. */
  enum class PreconditionerType
  {
    /** The identity. */
    none,
    /** The inverse matrix-free diagonal. */
    jacobi,
    /** A Chebyshev polynomial around Jacobi. */
    chebyshev,
    /** Matrix-free geometric multigrid over the mesh levels (MultigridPreconditioner). */
    multigrid,
    /** Trilinos ML AMG of the assembled elastic matrix on the host (AmgPreconditioner). */
    amg
  };

  /** When the Newton solves rebuild the preconditioner. */
  enum class PreconditionerReuse
  {
    /** Every Newton iteration. */
    never,
    /** Once per load step. */
    load_step,
    /** Once per run (while the operator layout stays). */
    always
  };

  /** Solver of the coarsest multigrid level (level 0, the coarse mesh). */
  enum class CoarseSolverType
  {
    /**
     * If level 0 has at most MultigridData::direct_solver_limit DoFs:
     * dense_inverse where the kernels run on a GPU and level 0 has at least
     * MultigridData::dense_inverse_minimum DoFs, direct otherwise; cg above
     * the limit.
     */
    automatic,
    /** Sparse direct solver (Trilinos Amesos KLU: level 0 is small) of the assembled level-0 matrix, on the host. */
    direct,
    /**
     * The explicit inverse of the assembled level-0 matrix (Cholesky
     * factorisation and inversion once per run: cuSOLVER on a GPU, LAPACK
     * on the host), applied where the kernels run by one dense
     * matrix-vector product: no host round trip on one rank. Memory n^2
     * doubles for n level-0 DoFs.
     */
    dense_inverse,
    /** One V-cycle of Trilinos ML AMG on the assembled level-0 matrix, on the host. */
    amg,
    /** CG on the device, preconditioned by Chebyshev-Jacobi, to a relative tolerance (a variable preconditioner). */
    cg,
    /** A Chebyshev-Jacobi polynomial on the device whose degree reaches a target error reduction (a fixed, symmetric operator). */
    chebyshev
  };

  /** Number type of the multigrid levels. */
  enum class LevelPrecision
  {
    /** Level operators, smoothers, transfers and the coarse solver in double precision. */
    double_precision,
    /**
     * All of them in single precision (float vectors and arithmetic, the
     * operator data rounded on the fly) inside the double-precision outer
     * Krylov solver: a mixed-precision V-cycle that moves half the bytes.
     */
    single_precision
  };

  /** Smoother of Trilinos ML AMG on each level. */
  enum class AmgSmoother
  {
    /** ML "Chebyshev". */
    chebyshev,
    /** ML "symmetric Gauss-Seidel". */
    symmetric_gauss_seidel
  };

  template <>
  struct EnumNames<SolverType>
  {
    static constexpr const char *what = "linear solver type";
    static std::vector<std::pair<SolverType, std::string>>
    table()
    {
      return {{SolverType::cg, "cg"},
              {SolverType::gmres, "gmres"},
              {SolverType::belos_cg, "belos cg"},
              {SolverType::belos_gmres, "belos gmres"},
              {SolverType::belos_minres, "belos minres"},
              {SolverType::direct, "direct"}};
    }
  };

  template <>
  struct EnumNames<DirectSolverPackage>
  {
    static constexpr const char *what = "direct solver package";
    static std::vector<std::pair<DirectSolverPackage, std::string>>
    table()
    {
      return {{DirectSolverPackage::mumps, "MUMPS"}, {DirectSolverPackage::klu, "KLU"}};
    }
  };

  template <>
  struct EnumNames<BelosSolverType>
  {
    static constexpr const char *what = "Belos solver type";
    static std::vector<std::pair<BelosSolverType, std::string>>
    table()
    {
      return {{BelosSolverType::cg, "cg"}, {BelosSolverType::gmres, "gmres"}, {BelosSolverType::minres, "minres"}};
    }
  };

  template <>
  struct EnumNames<PreconditionerType>
  {
    static constexpr const char *what = "preconditioner";
    static std::vector<std::pair<PreconditionerType, std::string>>
    table()
    {
      return {{PreconditionerType::none, "none"},           {PreconditionerType::jacobi, "jacobi"},
              {PreconditionerType::chebyshev, "chebyshev"}, {PreconditionerType::multigrid, "multigrid"},
              {PreconditionerType::amg, "amg"}};
    }
  };

  template <>
  struct EnumNames<PreconditionerReuse>
  {
    static constexpr const char *what = "preconditioner reuse";
    static std::vector<std::pair<PreconditionerReuse, std::string>>
    table()
    {
      return {{PreconditionerReuse::never, "never"},
              {PreconditionerReuse::load_step, "load step"},
              {PreconditionerReuse::always, "always"}};
    }
  };

  template <>
  struct EnumNames<CoarseSolverType>
  {
    static constexpr const char *what = "multigrid coarse solver";
    static std::vector<std::pair<CoarseSolverType, std::string>>
    table()
    {
      return {{CoarseSolverType::automatic, "auto"},
              {CoarseSolverType::direct, "direct"},
              {CoarseSolverType::dense_inverse, "dense inverse"},
              {CoarseSolverType::amg, "amg"},
              {CoarseSolverType::cg, "cg"},
              {CoarseSolverType::chebyshev, "chebyshev"}};
    }
  };

  template <>
  struct EnumNames<LevelPrecision>
  {
    static constexpr const char *what = "multigrid level precision";
    static std::vector<std::pair<LevelPrecision, std::string>>
    table()
    {
      return {{LevelPrecision::double_precision, "double"}, {LevelPrecision::single_precision, "single"}};
    }
  };

  template <>
  struct EnumNames<AmgSmoother>
  {
    static constexpr const char *what = "AMG smoother";
    static std::vector<std::pair<AmgSmoother, std::string>>
    table()
    {
      return {{AmgSmoother::chebyshev, "Chebyshev"}, {AmgSmoother::symmetric_gauss_seidel, "symmetric Gauss-Seidel"}};
    }
  };

  /** The .prm name of @p type: auto, direct, dense inverse, amg, cg or chebyshev. */
  inline std::string
  to_string(const CoarseSolverType type)
  {
    return enum_name(type);
  }

  /** The .prm name of @p precision: double or single. */
  inline std::string
  to_string(const LevelPrecision precision)
  {
    return enum_name(precision);
  }
} // namespace plastix

PLASTIX_ENUM_PATTERN(plastix::SolverType)
PLASTIX_ENUM_PATTERN(plastix::BelosSolverType)
PLASTIX_ENUM_PATTERN(plastix::PreconditionerType)
PLASTIX_ENUM_PATTERN(plastix::PreconditionerReuse)
PLASTIX_ENUM_PATTERN(plastix::CoarseSolverType)
PLASTIX_ENUM_PATTERN(plastix::LevelPrecision)
PLASTIX_ENUM_PATTERN(plastix::AmgSmoother)

#endif
