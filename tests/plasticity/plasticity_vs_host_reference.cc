// plastix elastoplasticity against an independent host implementation
// (host_j2_reference.h: deal.II FEValues assembly of internal force and
// consistent tangent matrix, its own radial return, Newton with a direct
// solver) on small versions of every benchmark geometry of prm/ with their
// materials, boundary conditions and load steps, with B-bar and on two of
// them with full integration (the default).
//
// Per load step, two comparisons:
//  1. kernels: at the reference's converged displacement u_k (same DoF
//     numbering: the reference runs on plastix::Discretization's DoFHandler)
//     and the same committed history, plastix::PlasticityState::update()
//     must give the reference's internal force (all rows: reactions too) and
//     plastic point / cell counts, and the operator, then the consistent
//     tangent, must act like the reference's tangent matrix (and have its
//     diagonal), and the tangent must be the derivative of the internal
//     force (central differences). A tangent bug would not change converged
//     displacements, so it is checked here directly.
//  2. the application driver: plastix::ElastoplasticProblem::run() with
//     tight tolerances and every mesh vertex as a monitor point must give
//     the reference displacements at every vertex (relative l2) and the
//     reference's number of plastic Gauss points, step by step (CSV).
//
// Usage: test_plasticity_vs_host_reference <prm directory> [case name]

// Test: ranks 1 2; arguments prm; labels long
#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/timer.h>

#include <plastix/core/runtime.h>

#include "plasticity_comparison.h"
#include "test_environment.h"

#include <stdexcept>

#include <cctype>
#include <iostream>
#include <sstream>

using namespace dealii;

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    if (argc < 2)
      throw std::invalid_argument(std::string("usage: ") + argv[0] + " <prm directory> [case]");
    const std::string prm_dir = argv[1];
    const std::string only    = argc > 2 ? argv[2] : "";

    struct Case
    {
      std::string name;
      std::string prm_file;
      /** Extra .prm text: the smaller mesh (and fewer load steps where said). */
      std::string overrides;
    };
    // Smaller versions of the benchmarks; materials, boundary conditions and
    // load factors are those of the prm files unless said.
    const std::vector<Case> cases = {
      {"cube single element", "cube_single_element.prm", ""},
      // The C1-C5 set-up (clamped bottom, 800 MPa in one step) on 6 x 6 x 6 cells.
      {"cube C1 set-up", "cube_C1.prm", "subsection Mesh\n set Global refinements = 1\nend\n"},
      {"L-bracket", "l_bracket.prm", "subsection Mesh\n set Global refinements = 0\nend\n"},
      // 30 x 2 x 8 cells (8 through the height, so that Gauss points near the
      // surface yield at the benchmark loads; refinement 1 stays elastic).
      {"cantilever (voxel)", "cantilever_voxel.prm",
       "subsection Mesh\n set Subdivisions = 30, 2, 8\n set Global refinements = 0\nend\n"},
      {"plate with holes", "plate_with_holes.prm", "subsection Mesh\n set Global refinements = 0\nend\n"},
      // The coarsest mesh of the generator (3600 cells, the most expensive
      // case); only the final load (1306 plastic points), in one step from zero.
      {"cut-out cantilever", "cutout_cantilever.prm",
       "subsection Mesh\n set Global refinements = 0\nend\nsubsection Load stepping\n set Load factors = 1\nend\n"},
      {"cylinder", "cylinder.prm", "subsection Mesh\n set Global refinements = 2\nend\n"},
      {"sphere", "sphere.prm", "subsection Mesh\n set Global refinements = 2\nend\n"},
      // All cases run B-bar (common settings below); full integration (the
      // default) on two of them, against the reference's full integration.
      // Simo's steel of the L-bracket with its Voce saturation (the
      // reference finds the multiplier by bisection, plastix by Newton).
      {"L-bracket, Voce hardening", "l_bracket.prm",
       "subsection Mesh\n set Global refinements = 0\nend\nsubsection Materials\n set Isotropic hardening = 129.24\n"
       " set Saturation yield stress = 715\n set Saturation rate = 16.93\nend\n"},
      // A tabulated yield stress with pieces of rising and falling slope.
      {"L-bracket, tabulated hardening", "l_bracket.prm",
       "subsection Mesh\n set Global refinements = 0\nend\nsubsection Materials\n set Yield stress = 0\n"
       " set Isotropic hardening = 0\n set Hardening curve = 0: 450; 0.002: 520; 0.004: 600; 0.05: 650\nend\n"},
      {"L-bracket, full integration", "l_bracket.prm",
       "subsection Mesh\n set Global refinements = 0\nend\nsubsection Operator\n set Element formulation = full\nend\n"},
      {"cylinder, full integration", "cylinder.prm",
       "subsection Mesh\n set Global refinements = 2\nend\nsubsection Operator\n set Element formulation = full\nend\n"},
    };

    for (const auto &c : cases)
      {
        if (!only.empty() && c.name != only)
          continue;
        Timer timer;
        env.pout << "\n=== " << c.name << " (" << c.prm_file << ", " << env.n_ranks << " rank(s))" << std::endl;
        std::string dir_name = c.name;
        for (auto &ch : dir_name)
          if (!std::isalnum(static_cast<unsigned char>(ch)))
            ch = '_';
        const std::string output_dir = "output_plasticity_vs_host_reference_np" + std::to_string(env.n_ranks) + "/" + dir_name;
        // Tight Newton tolerances and (nearly) exact linear solves at the end.
        const std::string common =
          "subsection Newton\n set Residual tolerance = 1e-12\n set Displacement tolerance = 1e-12\n"
          " set Minimum forcing term = 1e-13\n set Maximum iterations = 50\nend\n"
          "subsection Linear solver\n set Maximum iterations = 100000\nend\n"
          "subsection Output\n set Directory = " + output_dir + "\n set Write VTU = false\nend\n"
          "subsection Monitor\n set Write plot = false\nend\n"
          "subsection Operator\n set Element formulation = bbar\nend\n";
        // The case's overrides last: they may choose full integration.
        const std::string text = plastix_test::read_text(prm_dir + "/" + c.prm_file) + "\n" + common + c.overrides;
        // The problem, and its parameters with every vertex monitored (for the driver run).
        plastix_test::VertexMonitoredProblem problem(text, env.comm);
        const auto                          &load_factors = problem.parameters.load_stepping.load_factors;

        // 1. The reference, and plastix's kernels at its states.
        env.pout << "  " << problem.d.triangulation->n_global_active_cells() << " cells, "
                 << problem.d.dof_handler.n_dofs() << " DoFs, "
             << problem.vertices.size() << " vertices, load factors";
        for (const double f : load_factors)
          env.pout << ' ' << f;
        env.pout << std::endl;
        const plastix_test::ReferenceSolution reference =
          plastix_test::solve_reference(problem.parameters, problem.d, problem.vertex_index, checker, env.out);
        plastix_test::check_kernels(problem.d, reference, checker, true, env.out);
        const double reference_seconds = timer.wall_time();

        // 2. The application driver with every vertex monitored.
        timer.restart();
        const plastix_test::DriverSolution driver =
          plastix_test::run_driver(problem.parameters, load_factors, problem.vertex_index, env.comm, checker);
        if (!driver.ok)
          continue;
        env.pout << "  plastix driver: " << driver.summary.newton_iterations << " Newton iterations, "
             << driver.summary.linear_iterations << " linear iterations, " << driver.summary.n_cuts
             << " cuts, final |R|/F " << driver.summary.relative_residual << std::endl;
        for (unsigned int k = 0; k < load_factors.size(); ++k)
          {
            checker.check("  step " + std::to_string(k + 1) + ": driver displacement at all vertices vs reference, relative l2",
                          plastix_test::relative_difference(driver.vertex_values[k], reference.vertex_values[k]), 1e-8);
            checker.check_true("  step " + std::to_string(k + 1) + ": driver plastic points " +
                                 std::to_string(driver.plastic_points[k]) + " == reference " +
                                 std::to_string(reference.plastic_points[k]),
                               driver.plastic_points[k] == reference.plastic_points[k]);
          }
        env.pout << "  time: reference and kernel checks " << reference_seconds << " s, plastix driver " << timer.wall_time()
             << " s" << std::endl;
      }
  });
}
