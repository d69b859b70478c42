// Matrix-free geometric multigrid as a preconditioner of CG: the iteration
// count must stay bounded under mesh refinement. Two problems, each on a fixed
// coarse mesh refined 1, 2, 3 and 4 times (the first mesh and three
// refinements of it), through the library path of the application
// (create_mesh with the multigrid hierarchy, make_dirichlet_constraints,
// assemble_external_force, lift_inhomogeneities, LinearSolver with
// 'cg + multigrid', relative tolerance 1e-8):
//   - cube: unit cube, 2 x 2 x 2 coarse cells, clamped at z = 0, traction
//     800 MPa on z = 1 (prm/cube_C1.prm's problem; 8^3 .. 32^3 cells);
//   - cantilever: prm/default.prm's 10 x 1 x 1 m beam, 10 x 1 x 1 coarse
//     cells (40 .. 40960 cells).
// Each with every coarse solver: auto (direct on these small coarse meshes),
// the device cg and chebyshev, the host amg and the dense inverse (refined up
// to 3 times). The dense inverse gives direct's iterations and solution (to
// 1e-10), and refuses a body that no Dirichlet boundary holds.
// Checked: every solve reaches |b - A x| <= 1e-8 |b| (explicit residual), and
// the iterations on each refined mesh are at most 1.5 times those on the
// first mesh. Also: the V-cycle is symmetric (x^T M y = y^T M x for random
// x, y, to 1e-10), which CG and MINRES need, with the fixed coarse solvers
// (direct, chebyshev, amg; cg to a tolerance is a variable preconditioner).
// Mixed precision (Multigrid level precision = single: the whole V-cycle on
// float vectors inside double CG): the same explicit residual 1e-8, the same
// bound on the iterations under refinement, the solution equal to the
// double-precision one to 1e-6 (both solves stop at 1e-8), and the V-cycle
// symmetric to single-precision round-off (1e-5); and the load scaled by
// 1e-45, 1e-30 and 1e30 (units) gives the scaled solution in as many
// iterations, in single precision as in double.
// LinearSolverData's multigrid defaults (those of the .prm files) equal
// MultigridData's, which they mirror.
// And Preconditioner = auto picks what the documentation says: multigrid
// with the direct coarse solver on a refined mesh whose level 0 has at most
// 'Multigrid direct solver limit' DoFs, cg above, chebyshev on a mesh
// without levels. Run with 1 and 2 ranks.

// Test: ranks 1 2; labels long
#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/backend/dense_inverse.h>
#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/runtime.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/preconditioners.h>

#include "loads.h"
#include "mesh_generation.h"
#include "parameters.h"

#include "test_environment.h"

#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>

using namespace dealii;

namespace
{
  struct Result
  {
    unsigned long long n_dofs;
    unsigned int       iterations;
    double             residual = 0, setup = 0, solve = 0, symmetry = 0;
    std::string        hierarchy, name;
    LinearAlgebra::distributed::Vector<double> solution;
  };

  Result
  run(plastix::Parameters p, const unsigned int refinements, const MPI_Comm comm, const std::string &coarse,
      const std::string &preconditioner = "multigrid", const std::string &precision = "double",
      const double load_scale = 1.)
  {
    p.mesh.global_refinements = refinements;
    p.check();
    parallel::distributed::Triangulation<3> triangulation(
      comm, Triangulation<3>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
    plastix::create_mesh(p.mesh, triangulation);
    const FESystem<3> fe(FE_Q<3>(1), 3);
    DoFHandler<3>     dof_handler(triangulation);
    dof_handler.distribute_dofs(fe);
    AffineConstraints<double> constraints;
    plastix::make_dirichlet_constraints(dof_handler, p.boundary, constraints);
    const auto                 materials = plastix::make_material_table(dof_handler, p.materials);
    plastix::MechanicsOperator op;
    op.reinit(dof_handler, constraints, materials);
    LinearAlgebra::distributed::Vector<double> force(op.get_partitioner());
    plastix::assemble_external_force(dof_handler, p.boundary, force);
    plastix::DeviceVector b, x;
    op.initialize_dof_vector(b);
    b.copy_from_host(force);
    op.lift_inhomogeneities(b);
    b *= load_scale;

    p.solver.type                      = plastix::SolverType::cg;
    p.solver.preconditioner =
      Patterns::Tools::Convert<plastix::AutoOr<plastix::PreconditionerType>>::to_value(preconditioner);
    p.solver.multigrid.coarse_solver   = plastix::parse_enum<plastix::CoarseSolverType>(coarse);
    p.solver.multigrid.level_precision = plastix::parse_enum<plastix::LevelPrecision>(precision);
    p.solver.relative_tolerance      = 1e-8;
    plastix::LinearSolver solver(p.solver);
    solver.initialize(op, dof_handler, materials, p.boundary.dirichlet_boundaries());
    op.initialize_dof_vector(x);
    op.set_constrained_values(x);
    const auto statistics = solver.solve(x, b);

    Result result;
    result.n_dofs     = dof_handler.n_dofs();
    result.iterations = statistics.iterations;
    result.setup      = statistics.setup_time;
    result.solve      = statistics.solve_time;
    result.hierarchy  = solver.preconditioner_description();
    result.name       = solver.name();
    plastix::DeviceVector r;
    op.vmult(r, x);
    r.sadd(-1., 1., b);
    result.residual = r.l2_norm() / b.l2_norm();
    result.solution.reinit(op.get_partitioner());
    x.copy_to_host(result.solution);
    if (solver.get_multigrid() == nullptr)
      return result;

    // Symmetry of the V-cycle on random vectors (zero on constrained DoFs).
    plastix::DeviceVector u, v, Mu, Mv;
    for (plastix::DeviceVector *w : {&u, &v})
      {
        LinearAlgebra::distributed::Vector<double> host(op.get_partitioner());
        std::mt19937 generator(17 + (w == &v) + 7 * Utilities::MPI::this_mpi_process(comm));
        std::uniform_real_distribution<double> distribution(-1., 1.);
        for (unsigned int i = 0; i < host.locally_owned_size(); ++i)
          host.local_element(i) = distribution(generator);
        op.initialize_dof_vector(*w);
        w->copy_from_host(host);
        op.set_constrained_zero(*w);
      }
    solver.get_multigrid()->vmult(Mu, u);
    solver.get_multigrid()->vmult(Mv, v);
    const double vMu = v * Mu, uMv = u * Mv;
    result.symmetry  = std::abs(vMu - uMv) / std::max(std::abs(vMu), 1e-300);
    return result;
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    {
      // LinearSolverData (the .prm defaults) nests a MultigridData: a program
      // that builds the preconditioner itself gets the same defaults.
      const plastix::LinearSolverData solver;
      const plastix::MultigridData    multigrid;
      checker.check_true("LinearSolverData's multigrid defaults equal MultigridData's (smoother degree, smoothing "
                         "range, coarse solver, coarse tolerance, direct solver limit, dense inverse minimum)",
                         solver.multigrid.smoother_degree == multigrid.smoother_degree &&
                           solver.multigrid.smoothing_range == multigrid.smoothing_range &&
                           solver.multigrid.coarse_solver == multigrid.coarse_solver &&
                           solver.multigrid.coarse_tolerance == multigrid.coarse_tolerance &&
                           solver.multigrid.direct_solver_limit == multigrid.direct_solver_limit &&
                           solver.multigrid.dense_inverse_minimum == multigrid.dense_inverse_minimum);
    }
    plastix::Parameters cube;
    cube.mesh.geometry                            = plastix::GeometryType::box;
    cube.mesh.subdivisions                        = {2, 2, 2};
    cube.materials.default_material.young_modulus = 200e9;
    cube.materials.default_material.poisson_ratio = 0.3;
    cube.boundary.dirichlet_text                  = "4: xyz = 0, 0, 0";
    cube.boundary.traction_text                   = "5: 0, 0, 800e6";

    plastix::Parameters cantilever;
    cantilever.mesh.geometry                            = plastix::GeometryType::cantilever;
    cantilever.mesh.upper_corner                        = Point<3>(10, 1, 1);
    cantilever.mesh.subdivisions                        = {10, 1, 1};
    cantilever.materials.default_material.young_modulus = 200e9;
    cantilever.materials.default_material.poisson_ratio = 0.3;
    cantilever.boundary.dirichlet_text                  = "0: xyz = 0, 0, 0";
    cantilever.boundary.traction_text                   = "1: 0, 0, -1e6";

    for (const auto &[name, parameters] : {std::make_pair("cube", cube), std::make_pair("cantilever", cantilever)})
      {
        for (const auto &[coarse, precision] : std::vector<std::pair<std::string, std::string>>{{"auto", "double"},
                                                                                               {"cg", "double"},
                                                                                               {"chebyshev", "double"},
                                                                                               {"amg", "double"},
                                                                                               {"dense inverse", "double"},
                                                                                               {"dense inverse", "single"},
                                                                                               {"auto", "single"},
                                                                                               {"cg", "single"},
                                                                                               {"chebyshev", "single"}})
          {
            env.pout << name << ", coarse " << coarse << ", " << precision << " precision, "
                 << Utilities::MPI::n_mpi_processes(env.comm) << " rank(s):\n";
            unsigned int first = 0;
            const unsigned int max_refinements = coarse == "auto" ? 4 : 3;
            for (unsigned int refinements = 1; refinements <= max_refinements; ++refinements)
              {
                const Result      r    = run(parameters, refinements, env.comm, coarse, "multigrid", precision);
                const std::string what = std::string(name) + ", coarse " + coarse + ", " + precision +
                                         ", refinements " + std::to_string(refinements);
                env.pout << "  refinements " << refinements << ": " << r.n_dofs << " DoFs, " << r.iterations
                     << " CG iterations, setup " << std::setprecision(3) << r.setup << " s, solve " << r.solve
                     << " s; " << r.hierarchy << "\n";
                checker.check(what + ": |b - A x| / |b|", r.residual, 1.5e-8);
                if (coarse != "cg")
                  checker.check(what + ": V-cycle symmetry |v.Mu - u.Mv| / |v.Mu|", r.symmetry,
                                precision == "single" ? 1e-5 : 1e-10);
                if (precision == "single")
                  {
                    // The same problem solved in double precision.
                    const Result reference = run(parameters, refinements, env.comm, coarse);
                    auto         difference = r.solution;
                    difference -= reference.solution;
                    checker.check(what + ": |x_single - x_double| / |x_double|",
                                  difference.l2_norm() / reference.solution.l2_norm(), 1e-6);
                  }
                if (refinements == 1)
                  first = r.iterations;
                else
                  checker.check(what + ": iterations / iterations on the first mesh (" +
                                  std::to_string(r.iterations) + " / " + std::to_string(first) + ")",
                                static_cast<double>(r.iterations) / first, 1.5);
              }
          }
      }

    // The dense inverse coarse solver is the direct one to round-off: the
    // same iterations and solution (both CG runs stop at 1e-8, their
    // preconditioners differ by the round-off of two factorisations).
    for (const auto &[name, parameters] : {std::make_pair("cube", cube), std::make_pair("cantilever", cantilever)})
      for (unsigned int refinements = 1; refinements <= 2; ++refinements)
        {
          const Result direct = run(parameters, refinements, env.comm, "direct");
          const Result dense  = run(parameters, refinements, env.comm, "dense inverse");
          const std::string what = std::string(name) + ", refinements " + std::to_string(refinements) +
                                   ", coarse dense inverse against direct";
          // Factorised by cuSOLVER on a GPU, by LAPACK on the host.
          const std::string factorisation = plastix::backend::DenseInverse::can_factorize() ? "cuSOLVER" : "LAPACK";
          checker.check_true(what + ": " + dense.hierarchy,
                             dense.hierarchy.find("coarse dense inverse (" + factorisation) != std::string::npos);
          checker.check_true(what + ": iterations " + std::to_string(dense.iterations) + " and " +
                               std::to_string(direct.iterations),
                             dense.iterations == direct.iterations);
          auto difference = dense.solution;
          difference -= direct.solution;
          checker.check(what + ": |x_dense - x_direct| / |x_direct|",
                        difference.l2_norm() / direct.solution.l2_norm(), 1e-10);
        }

    // A body that nothing holds: the level-0 matrix is singular, and the
    // dense inverse says so on every rank.
    {
      plastix::Parameters floating        = cube;
      floating.boundary.dirichlet_text    = "";
      floating.boundary.traction_text     = "5: 0, 0, 800e6";
      std::string message;
      try
        {
          run(floating, 1, env.comm, "dense inverse");
        }
      catch (const std::exception &error)
        {
          message = error.what();
        }
      checker.check_true("a floating body, coarse dense inverse: " + message,
                         message.find("is not positive definite") != std::string::npos);
    }

    // Units: the cube with its load scaled by 1e-45, 1e-30 and 1e30 gives
    // the scaled solution in as many iterations. A load of 1e-45 makes the
    // residual denormal in float: a single-precision V-cycle that does not
    // scale its input loses every digit and CG stalls (it did: 10000
    // iterations without convergence where double precision took 9).
    {
      const Result reference = run(cube, 2, env.comm, "auto", "multigrid", "single");
      for (const double scale : {1e-45, 1e-30, 1e30})
        for (const std::string precision : {"single", "double"})
          {
            const Result       r = run(cube, 2, env.comm, "auto", "multigrid", precision, scale);
            std::ostringstream what;
            what << "cube, load x " << scale << ", " << precision << " (" << r.iterations << " it., unscaled "
                 << reference.iterations << ")";
            checker.check(what.str() + ": |b - A x| / |b|", r.residual, 1.5e-8);
            auto difference = r.solution;
            difference *= 1. / scale;
            difference -= reference.solution;
            checker.check(what.str() + ": |x / scale - x_unscaled| / |x_unscaled|",
                          difference.l2_norm() / reference.solution.l2_norm(), 1e-6);
            checker.check(what.str() + ": iterations / unscaled iterations",
                          static_cast<double>(r.iterations) / reference.iterations, 1.2);
          }
    }

    // Preconditioner = auto.
    {
      const Result refined = run(cube, 1, env.comm, "auto", "auto");
      checker.check_true("auto on a refined mesh, level 0 small: " + refined.name,
                         refined.name == "cg + multigrid (coarse direct) (auto)");
      plastix::Parameters limited = cube;
      limited.solver.multigrid.direct_solver_limit = 20;
      const Result large_coarse = run(limited, 1, env.comm, "auto", "auto");
      checker.check_true("auto on a refined mesh, level 0 above the direct solver limit: " + large_coarse.name,
                         large_coarse.name == "cg + multigrid (coarse cg) (auto)");
      const Result single = run(cube, 0, env.comm, "auto", "auto");
      checker.check_true("auto on a mesh without levels: " + single.name, single.name == "cg + chebyshev (auto)");
      checker.check(std::string("auto on a mesh without levels: |b - A x| / |b|"), single.residual, 1.5e-8);
    }
  });
}
