// The elastoplastic Newton iteration with multigrid-preconditioned tangent
// solves, through the application driver (plastix::ElastoplasticProblem).
// A small version of prm/cube_C1.prm: unit cube, 2 x 2 x 2 coarse cells
// refined twice (8^3 cells), clamped at z = 0, traction 800 MPa on z = 1 in
// four load steps, E = 200 GPa, nu = 0.3, sigma_y = 450 MPa, H = 66 GPa
// (the cube yields at the clamp), Newton tolerance 1e-8.
// Runs: cg + jacobi (the reference), cg + multigrid with 'Reuse
// preconditioner' = never, load step and always, the same in single
// precision (mixed-precision V-cycle: the finest level applies the tangent
// on float vectors), belos cg + multigrid, cg + multigrid whose automatic
// coarse solver takes cg (its direct solver limit below level 0's 81 DoFs)
// and replaces it by the dense inverse at a later Newton step (double and
// single), cg + amg. Checked: every run converges (all load steps, no step cuts), yields,
// and its maximum displacement agrees with the reference to 1e-6 relative;
// multigrid needs far fewer linear iterations than Jacobi (at most a quarter).
// The table of Newton/linear iterations and times is printed. 1 and 2 ranks.

// Test: ranks 1 2
#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/timer.h>

#include <plastix/backend/dense_inverse.h>
#include <plastix/core/runtime.h>

#include "elastic_problem.h"
#include "parameters.h"

#include "test_environment.h"

#include <filesystem>
#include <iomanip>
#include <iostream>

using namespace dealii;

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    const std::string directory =
      "output-multigrid-newton-np" + std::to_string(Utilities::MPI::n_mpi_processes(env.comm));
    try
      {
        struct Run
        {
          std::string type, preconditioner, reuse, precision = "double";
          /** 'Multigrid direct solver limit' 10: auto takes cg on the 81 level-0 DoFs, and switches. */
          bool coarse_switch = false;
        };
        const std::vector<Run> runs = {{"cg", "jacobi", "never"},
                                       {"cg", "multigrid", "never"},
                                       {"cg", "multigrid", "load step"},
                                       {"cg", "multigrid", "always"},
                                       {"cg", "multigrid", "never", "single"},
                                       {"cg", "multigrid", "always", "single"},
                                       {"belos cg", "multigrid", "never"},
                                       {"cg", "multigrid", "never", "double", true},
                                       {"cg", "multigrid", "never", "single", true},
                                       {"cg", "amg", "never"}};
        double       reference_displacement = 0;
        unsigned int reference_linear       = 0;
        for (const auto &run : runs)
          {
            plastix::Parameters p;
            p.problem.type                                   = plastix::ProblemType::elastoplastic;
            p.mesh.geometry                                  = plastix::GeometryType::box;
            p.mesh.subdivisions                              = {2, 2, 2};
            p.mesh.global_refinements                        = 2;
            p.materials.default_material.young_modulus       = 200e9;
            p.materials.default_material.poisson_ratio       = 0.3;
            p.materials.default_material.yield_stress        = 450e6;
            p.materials.default_material.isotropic_hardening = 66e9;
            p.boundary.dirichlet_text                        = "4: xyz = 0, 0, 0";
            p.boundary.traction_text                         = "5: 0, 0, 800e6";
            p.load_stepping.n_steps                          = 4;
            p.newton.residual_tolerance                      = 1e-8;
            p.newton.displacement_tolerance                  = 1e-8;
            p.solver.type                       = plastix::parse_enum<plastix::SolverType>(run.type);
            p.solver.preconditioner             = plastix::parse_enum<plastix::PreconditionerType>(run.preconditioner);
            p.solver.reuse_preconditioner       = plastix::parse_enum<plastix::PreconditionerReuse>(run.reuse);
            p.solver.multigrid.level_precision = plastix::parse_enum<plastix::LevelPrecision>(run.precision);
            if (run.coarse_switch)
              p.solver.multigrid.direct_solver_limit = 10;
            p.output.directory                               = directory;
            p.output.write_vtu                               = false;
            p.monitor.write_plot                             = false;
            p.check();
            const std::string what = run.type + " + " + run.preconditioner + ", reuse " + run.reuse +
                                     (run.precision == "single" ? ", single" : "") +
                                     (run.coarse_switch ? ", coarse auto above its limit" : "");
            try
              {
                Timer                     timer;
                plastix::ElastoplasticProblem problem(p, env.comm);
                const plastix::RunSummary summary = problem.run();
                const double              seconds = timer.wall_time();
                env.pout << "  " << std::left << std::setw(38) << what << std::right << ": " << summary.n_steps
                     << " steps, " << summary.newton_iterations << " Newton, " << std::setw(5)
                     << summary.linear_iterations << " linear iterations, " << summary.yielded_points
                     << " yielded points, max |u| " << std::setprecision(8) << summary.max_displacement
                     << std::setprecision(3) << ", " << seconds << " s" << std::setprecision(6) << "\n";
                checker.check(what + ": load steps done (of 4) and step cuts", (summary.n_steps == 4 ? 0 : 1) + summary.n_cuts, 0);
                checker.check(what + ": yielded Gauss points > 0 (0 = yes)", summary.yielded_points > 0 ? 0 : 1, 0);
                if (run.coarse_switch && !plastix::backend::DenseInverse::can_factorize())
                  // On the host the dense inverse's estimated set-up is 81^3
                  // flops at 1 GFlop/s (0.5 ms): the cg solves of the first
                  // Newton step take longer, so a later step switches. (On a
                  // GPU the estimate includes cuSOLVER's start, 0.2 s, which
                  // these few solves may not reach.)
                  checker.check_true(what + ": the coarse cg was replaced by the dense inverse (" + summary.solver +
                                       ")",
                                     summary.solver.find("coarse cg, then dense inverse") != std::string::npos);
                else if (run.coarse_switch)
                  env.pout << "    (GPU: " << summary.solver << ")\n";
                else if (run.preconditioner == "multigrid")
                  checker.check_true(what + ": no coarse switch (" + summary.solver + ")",
                                     summary.solver.find("then") == std::string::npos);
                if (run.preconditioner == "jacobi")
                  {
                    reference_displacement = summary.max_displacement;
                    reference_linear       = summary.linear_iterations;
                  }
                else
                  {
                    checker.check(what + ": max |u| vs cg + jacobi",
                          std::abs(summary.max_displacement - reference_displacement) / reference_displacement, 1e-6);
                    if (run.preconditioner == "multigrid")
                      checker.check(what + ": linear iterations / those of cg + jacobi",
                            static_cast<double>(summary.linear_iterations) / reference_linear, 0.25);
                  }
              }
            catch (const std::exception &error)
              {
                checker.fail(what + " threw: " + error.what());
              }
          }
      }
    catch (const std::exception &error)
      {
        env.fail(error);
      }
    MPI_Barrier(env.comm);
    if (Utilities::MPI::this_mpi_process(env.comm) == 0)
      std::filesystem::remove_all(directory);
  });
}
