// portable-elasticity-bench: the Q1 elastic problem as a deal.II user writes
// it for a GPU with deal.II alone. The operator is Portable::MatrixFree's
// (reference::PortableElasticity, the operator of deal.II's test
// matrix_free_kokkos/elasticity_01); it is timed alone and inside conjugate
// gradients with Jacobi and, from deal.II 9.8, with deal.II's geometric
// multigrid on MemorySpace::Default vectors (MGTransferMatrixFree,
// Chebyshev smoothers and coarse smoother, the settings of elasticity_01).
//
// It needs deal.II only (9.7 or later; built with a CUDA Kokkos for the GPU),
// not plastix's other prerequisites, so that it also builds against a minimal
// deal.II on a GPU machine (benchmarks/portable/CMakeLists.txt). The plastix
// side of the comparison is plastix-bench and the plastix application on the
// same mesh and problem (scripts/gpu-portable-side-by-side.sh,
// doc/benchmarks.md, "deal.II's Portable::MatrixFree").
//
// Mesh and problem: the unit cube in n^3 cells (subdivided_hyper_cube of
// n / 2^k cells refined k times, as plastix-bench), optionally
// GridTools::distort_random(d, keep boundary, seed); E = 200e9, nu = 0.3;
// clamped on z = 0 (boundary id 4), traction (0, 0, 800e6) on z = 1 (id 5):
// the elastic version of the application's cube C5 (prm/cube_C5.prm).
//
// usage: portable-elasticity-bench [--sizes 32,64] [--distortion d] [--seed s]
//          [--repeats r] [--batch b] [--solve] [--tolerance t]
#include <deal.II/base/config.h>

#include "bench_tools.h"
#include "portable_reference_operator.h"

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/utilities.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>

#if DEAL_II_VERSION_GTE(9, 8, 0)
#  include <deal.II/multigrid/mg_coarse.h>
#  include <deal.II/multigrid/mg_matrix.h>
#  include <deal.II/multigrid/mg_smoother.h>
#  include <deal.II/multigrid/mg_transfer_global_coarsening.h>
#  include <deal.II/multigrid/mg_transfer_matrix_free.h>
#  include <deal.II/multigrid/multigrid.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{
  using namespace dealii;
  using Clock      = std::chrono::steady_clock;
  using plastix::bench::median;
  using plastix::bench::seconds_since;
  using Operator   = plastix::reference::PortableElasticity;
  using VectorType = Operator::VectorType;

  struct Options
  {
    std::vector<unsigned int> sizes      = {32};
    double                    distortion = 0.;
    unsigned int              seed       = 42;
    unsigned int              repeats    = 30;
    unsigned int              batch      = 5;
    bool                      solve      = false;
    double                    tolerance  = 1e-8;
  };

  const char *usage_text =
    "usage: portable-elasticity-bench [options]\n"
    "  --sizes n1,n2,...  cells per direction of the unit cube (n^3 cells, 3(n+1)^3 DoFs); default 32\n"
    "  --distortion d     GridTools::distort_random(d), boundary kept; default 0 (uniform)\n"
    "  --seed s           random seed of the distortion; default 42\n"
    "  --repeats r        timed samples of the operator; default 30\n"
    "  --batch b          applications per sample; default 5\n"
    "  --solve            also solve with CG and Jacobi, and (deal.II 9.8 and later) CG and multigrid\n"
    "  --tolerance t      relative residual of the solves; default 1e-8\n"
    "  --help             this text\n";

  Options
  parse_options(int argc, char **argv)
  {
    Options o;
    for (int i = 1; i < argc; ++i)
      {
        const std::string arg  = argv[i];
        const bool        more = i + 1 < argc;
        if (arg == "--help" || arg == "-h")
          {
            std::cout << usage_text;
            std::exit(0);
          }
        else if (arg == "--sizes" && more)
          {
            o.sizes.clear();
            for (const auto &item : Utilities::split_string_list(argv[++i], ','))
              {
                const int n = std::stoi(item);
                if (n < 1)
                  throw std::invalid_argument("--sizes needs positive cell counts");
                o.sizes.push_back(n);
              }
          }
        else if (arg == "--distortion" && more)
          o.distortion = std::stod(argv[++i]);
        else if (arg == "--seed" && more)
          o.seed = std::stoi(argv[++i]);
        else if (arg == "--repeats" && more)
          o.repeats = std::stoi(argv[++i]);
        else if (arg == "--batch" && more)
          o.batch = std::stoi(argv[++i]);
        else if (arg == "--solve")
          o.solve = true;
        else if (arg == "--tolerance" && more)
          o.tolerance = std::stod(argv[++i]);
        else
          throw std::invalid_argument("unknown or incomplete option '" + arg + "' (see --help)");
      }
    if (o.sizes.empty() || o.repeats < 1 || o.batch < 1 || !(o.distortion >= 0. && o.distortion < 0.5) ||
        !(o.tolerance > 0. && o.tolerance < 1.))
      throw std::invalid_argument("need sizes, repeats >= 1, batch >= 1, 0 <= distortion < 0.5, 0 < tolerance < 1");
    return o;
  }

  /**
   * Wait for the device: a reduction returns its value to the host only after
   * the kernels before it have finished (deal.II offers no fence of its own;
   * the benchmark stays free of Kokkos). Its cost, one read of the vector, is
   * spread over a batch of applications.
   */
  double
  synchronize(const VectorType &v)
  {
    return v.l2_norm();
  }

  /** Clamped on id 4, the hanging-node constraints (none on these meshes). */
  void
  make_constraints(const DoFHandler<3> &dof_handler, AffineConstraints<double> &constraints)
  {
    constraints.clear();
    constraints.reinit(dof_handler.locally_owned_dofs(), DoFTools::extract_locally_relevant_dofs(dof_handler));
    DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    DoFTools::make_zero_boundary_constraints(dof_handler, 4, constraints);
    constraints.close();
  }

  /** The load vector of the traction on id 5, on the device. */
  void
  assemble_traction(const DoFHandler<3>             &dof_handler,
                    const AffineConstraints<double> &constraints,
                    const double                     traction,
                    VectorType                      &rhs)
  {
    LinearAlgebra::distributed::Vector<double, MemorySpace::Host> host(rhs.get_partitioner());
    const MappingQ<3>                    mapping(1);
    FEFaceValues<3>                      face_values(mapping, dof_handler.get_fe(), QGauss<2>(2),
                                                     update_values | update_JxW_values);
    const unsigned int                   dofs_per_cell = dof_handler.get_fe().n_dofs_per_cell();
    Vector<double>                       cell_rhs(dofs_per_cell);
    std::vector<types::global_dof_index> indices(dofs_per_cell);
    for (const auto &cell : dof_handler.active_cell_iterators())
      for (const auto &face : cell->face_iterators())
        if (face->at_boundary() && face->boundary_id() == 5)
          {
            face_values.reinit(cell, face);
            cell_rhs = 0.;
            for (unsigned int q = 0; q < face_values.n_quadrature_points; ++q)
              for (unsigned int i = 0; i < dofs_per_cell; ++i)
                if (dof_handler.get_fe().system_to_component_index(i).first == 2)
                  cell_rhs[i] += traction * face_values.shape_value(i, q) * face_values.JxW(q);
            cell->get_dof_indices(indices);
            constraints.distribute_local_to_global(cell_rhs, indices, host);
          }
    host.compress(VectorOperation::add);
    rhs.import_elements(host, VectorOperation::insert);
  }

  struct SolveResult
  {
    unsigned int iterations = 0;
    double       setup_s    = 0.;
    double       solve_s    = 0.;
    double       relative_residual = 0.;
  };

  template <typename Preconditioner>
  SolveResult
  solve(const Operator &op, const VectorType &rhs, const Preconditioner &preconditioner, const double tolerance)
  {
    VectorType solution;
    op.initialize_dof_vector(solution);
    synchronize(rhs);
    SolverControl        control(100000, tolerance * rhs.l2_norm(), false, false);
    SolverCG<VectorType> cg(control);
    const auto           start = Clock::now();
    cg.solve(op, solution, rhs, preconditioner);
    synchronize(solution);
    SolveResult result;
    result.solve_s    = seconds_since(start);
    result.iterations = control.last_step();
    VectorType residual;
    op.initialize_dof_vector(residual);
    op.vmult(residual, solution);
    residual.sadd(-1., 1., rhs);
    result.relative_residual = residual.l2_norm() / rhs.l2_norm();
    if (!std::isfinite(result.relative_residual) || !std::isfinite(solution.l2_norm()))
      throw std::runtime_error("the solve gave a non-finite result");
    return result;
  }

#if DEAL_II_VERSION_GTE(9, 8, 0)
  /**
   * CG with deal.II's geometric multigrid on the device vectors: levels from
   * MGTransferGlobalCoarseningTools::create_geometric_coarsening_sequence(),
   * a PortableElasticity per level, MGTwoLevelTransferCopyToHost between
   * levels, Chebyshev smoothers of degree 5 around the inverse diagonal
   * (smoothing range 20, 20 eigenvalue iterations) and that smoother as the
   * coarse solver: deal.II's test matrix_free_kokkos/elasticity_01.
   */
  SolveResult
  solve_multigrid(const DoFHandler<3>            &dof_handler,
                  const Operator                 &fine_operator,
                  const VectorType               &rhs,
                  const plastix::backend::MaterialConstants &material,
                  const double                    tolerance)
  {
    using Smoother = PreconditionChebyshev<Operator, VectorType, DiagonalMatrix<VectorType>>;
    using Transfer = MGTransferMatrixFree<3, double, MemorySpace::Default>;

    synchronize(rhs);
    const auto start = Clock::now();
    const auto coarse =
      MGTransferGlobalCoarseningTools::create_geometric_coarsening_sequence(dof_handler.get_triangulation());
    const unsigned int                       min_level = 0, max_level = coarse.size() - 1;
    MGLevelObject<DoFHandler<3>>             mg_dofs(min_level, max_level);
    MGLevelObject<AffineConstraints<double>> mg_constraints(min_level, max_level);
    MGLevelObject<Operator>                  mg_operators(min_level, max_level);
    MGLevelObject<MGTwoLevelTransferCopyToHost<3, VectorType>> transfers(min_level, max_level);
    for (unsigned int level = min_level; level <= max_level; ++level)
      {
        mg_dofs[level].reinit(*coarse[level]);
        mg_dofs[level].distribute_dofs(dof_handler.get_fe());
        make_constraints(mg_dofs[level], mg_constraints[level]);
        mg_operators[level].reinit(mg_dofs[level], mg_constraints[level], material);
      }
    for (unsigned int level = min_level; level < max_level; ++level)
      transfers[level + 1].reinit(mg_dofs[level + 1], mg_dofs[level], mg_constraints[level + 1], mg_constraints[level]);
    Transfer transfer(transfers, [&](const auto level, auto &v) { mg_operators[level].initialize_dof_vector(v); });
    mg::Matrix<VectorType>                          mg_matrix(mg_operators);
    MGLevelObject<typename Smoother::AdditionalData> smoother_data(min_level, max_level);
    for (unsigned int level = min_level; level <= max_level; ++level)
      {
        smoother_data[level].preconditioner      = mg_operators[level].inverse_diagonal();
        smoother_data[level].smoothing_range     = 20.;
        smoother_data[level].degree              = 5;
        smoother_data[level].eig_cg_n_iterations = 20;
        // The Lanczos estimate of CG needs LAPACK (TridiagonalMatrix), which a
        // minimal deal.II lacks: power iteration there.
#  ifndef DEAL_II_WITH_LAPACK
        smoother_data[level].eigenvalue_algorithm = Smoother::AdditionalData::EigenvalueAlgorithm::power_iteration;
#  endif
        smoother_data[level].constraints.copy_from(mg_constraints[level]);
      }
    MGSmootherPrecondition<Operator, Smoother, VectorType> smoother;
    smoother.initialize(mg_operators, smoother_data);
    MGCoarseGridApplySmoother<VectorType> coarse_solver;
    coarse_solver.initialize(smoother);
    Multigrid<VectorType> mg(mg_matrix, coarse_solver, transfer, smoother, smoother, min_level, max_level);
    PreconditionMG<3, VectorType, Transfer> preconditioner(dof_handler, mg, transfer);
    const double setup_s = seconds_since(start);
    SolveResult result   = solve(fine_operator, rhs, preconditioner, tolerance);
    result.setup_s     = setup_s;
    return result;
  }
#endif

  void
  run(const Options &o, const unsigned int n)
  {
    unsigned int n0 = n, k = 0;
    while (n0 % 2 == 0 && n0 > 2)
      {
        n0 /= 2;
        ++k;
      }
    Triangulation<3> tria(Triangulation<3>::limit_level_difference_at_vertices);
    GridGenerator::subdivided_hyper_cube(tria, n0, 0., 1., true);
    tria.refine_global(k);
    if (o.distortion > 0)
      GridTools::distort_random(o.distortion, tria, true, o.seed);
    const FESystem<3> fe(FE_Q<3>(1), 3);
    DoFHandler<3>     dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    AffineConstraints<double> constraints;
    make_constraints(dof_handler, constraints);

    plastix::backend::MaterialConstants material{};
    const double                        E = 200e9, nu = 0.3;
    material.lambda = E * nu / ((1. + nu) * (1. - 2. * nu));
    material.mu     = E / (2. * (1. + nu));

    auto start = Clock::now();
    Operator op;
    op.reinit(dof_handler, constraints, material);
    VectorType src, dst;
    op.initialize_dof_vector(src);
    op.initialize_dof_vector(dst);
    synchronize(dst);
    const double setup_s = seconds_since(start);

    // A smooth source with zeros on the constrained DoFs, as a CG vector has.
    {
      LinearAlgebra::distributed::Vector<double, MemorySpace::Host> host(src.get_partitioner());
      for (unsigned int i = 0; i < host.locally_owned_size(); ++i)
        {
          const auto global    = host.get_partitioner()->local_to_global(i);
          host.local_element(i) = constraints.is_constrained(global) ? 0. : std::sin(1e-3 * global);
        }
      src.import_elements(host, VectorOperation::insert);
    }
    for (unsigned int i = 0; i < 3; ++i)
      op.vmult_homogeneous(dst, src);
    synchronize(dst);
    std::vector<double> samples;
    for (unsigned int r = 0; r < o.repeats; ++r)
      {
        start = Clock::now();
        for (unsigned int b = 0; b < o.batch; ++b)
          op.vmult_homogeneous(dst, src);
        synchronize(dst);
        samples.push_back(seconds_since(start) / o.batch);
      }
    const double apply_s = median(samples);
    const double n_dofs  = dof_handler.n_dofs();
    std::printf("| %u | %.0f | Portable::MatrixFree apply | %.3f ms | %.2f GDoF/s | set-up %.3f s |\n",
                n, n_dofs, 1e3 * apply_s, n_dofs / apply_s * 1e-9, setup_s);

    if (!o.solve)
      return;
    VectorType rhs;
    op.initialize_dof_vector(rhs);
    assemble_traction(dof_handler, constraints, 800e6, rhs);
    const SolveResult jacobi = solve(op, rhs, *op.inverse_diagonal(), o.tolerance);
    std::printf("| %u | %.0f | CG + Jacobi | %u iterations | %.3f s (%.3f ms per iteration) | residual %.1e |\n",
                n, n_dofs, jacobi.iterations, jacobi.solve_s, 1e3 * jacobi.solve_s / std::max(1u, jacobi.iterations),
                jacobi.relative_residual);
#if DEAL_II_VERSION_GTE(9, 8, 0)
    const SolveResult multigrid = solve_multigrid(dof_handler, op, rhs, material, o.tolerance);
    std::printf("| %u | %.0f | CG + multigrid | %u iterations | %.3f s (set-up %.3f s) | residual %.1e |\n",
                n, n_dofs, multigrid.iterations, multigrid.solve_s, multigrid.setup_s, multigrid.relative_residual);
#endif
  }
} // namespace

int
main(int argc, char **argv)
{
  try
    {
      // Only the program name goes to MPI_InitFinalize: deal.II hands the
      // arguments to PETSc, which warns at exit about those it did not use.
      int                              mpi_argc = 1;
      Utilities::MPI::MPI_InitFinalize mpi(mpi_argc, argv, 1);
      const Options                    o = parse_options(argc, argv);
      std::printf("portable-elasticity-bench: deal.II %s, distortion %g, %u x %u applications, tolerance %g\n",
                  DEAL_II_PACKAGE_VERSION, o.distortion, o.repeats, o.batch, o.tolerance);
      std::printf("| n | DoFs | what | time | rate | other |\n|---|---|---|---|---|---|\n");
      for (const unsigned int n : o.sizes)
        run(o, n);
    }
  catch (const std::exception &e)
    {
      std::cerr << "portable-elasticity-bench: " << e.what() << std::endl;
      return 1;
    }
  return 0;
}
