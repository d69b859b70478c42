// Every operator strategy (ebe atomic, ebe colored, dbd, ebe tiled, assembled;
// dbd structured on the voxel beam: its plastic cells go element by element) x cell kernel
// (stored geometry, geometry on the fly, element matrix) x thread mapping
// (cell, node, shuffle; ebe tiled and assembled: cell only; dbd structured: cell and
// shuffle, the threads of its plastic cells), full integration and (voxel beam) B-bar,
// on small elastoplastic problems with mixed (isotropic +
// kinematic) hardening, loading, unloading and reversed plastic loading:
//  - at the states of the independent host reference (host_j2_reference.h),
//    each combination's PlasticityState::update() gives the reference
//    internal force and plastic counts, and its tangent operator the
//    reference tangent matrix action and diagonal (1e-12);
//  - the application driver with each combination gives the reference
//    displacements at every vertex, the same plastic point counts, and all
//    combinations agree with each other to round-off of the Newton
//    tolerance (1e-10 relative; vs the reference 1e-9).
// The problems: a voxel cantilever (congruent cells: one shared element
// matrix for all elastic cells) and the same beam with randomly distorted
// interior vertices (one matrix per cell). Run with 1 and 2 ranks; the mesh
// (sum of the vertex coordinates) and the norm of the reference's final
// displacement are compared with values stored from a 1-rank run, so the
// rank counts must agree too (Mesh/Distortion moves vertices as a function
// of their position, not of the order the ranks store them in).

// Test: ranks 1 2; labels long
#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/timer.h>

#include <plastix/core/runtime.h>

#include "plasticity_comparison.h"
#include "test_environment.h"

#include <iostream>
#include <sstream>

using namespace dealii;

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {

    // plastix_test::mixed_hardening_beam_prm() loaded into the plastic range,
    // unloaded, then loaded in the opposite direction until it yields in
    // reverse (Bauschinger effect of the back stress).
    const std::string base = plastix_test::mixed_hardening_beam_prm() + R"(
  subsection Load stepping
    set Load factors = 0.6, 1, 0.8, 0.3, -0.4, -1
  end
  subsection Newton
    set Residual tolerance     = 1e-12
    set Displacement tolerance = 1e-12
    set Minimum forcing term   = 1e-13
    set Maximum iterations     = 50
  end
  subsection Linear solver
    set Maximum iterations = 100000
  end
  subsection Output
    set Write VTU = false
  end
  subsection Monitor
    set Write plot = false
  end
  )";
    struct Problem
    {
      std::string name, overrides;
      /** l2 norm of the reference's vertex displacements at the last step and sum of all vertex coordinates (stored, 1 rank). */
      double stored_norm, stored_coordinate_sum;
    };
    const std::vector<Problem> problems = {
      // B-bar (the default of elastoplastic runs): the beam moves 13.6 % (voxel) and 14.6 % (distorted)
      // further than with full integration (5.4681900780102 and 5.3564716921638), which locks.
      {"voxel beam, full integration", "subsection Operator\n set Element formulation = full\nend\n", 5.4681900780102,
       11550.},
      {"distorted beam (auto: B-bar)", "subsection Mesh\n set Distortion = 0.25\nend\n", 6.1365113579867,
       11545.903117690304},
      {"voxel beam, B-bar", "subsection Operator\n set Element formulation = bbar\nend\n", 6.2112048353832, 11550.},
    };
    const std::vector<std::string> strategies = {"ebe atomic", "ebe colored", "dbd",
                                                 "ebe tiled",  "assembled",   "dbd structured"};
    const std::vector<std::string> kernels    = {"stored geometry", "geometry on the fly", "element matrix"};
    const std::vector<std::string> mappings   = {"cell", "node", "shuffle"};

    for (const auto &problem : problems)
      {
        Timer timer;
        env.pout << "\n=== " << problem.name << " (" << env.n_ranks << " rank(s))" << std::endl;
        const std::string         text = base + problem.overrides;
        plastix_test::VertexMonitoredProblem monitored(text, env.comm);
        const auto                            &load_factors = monitored.parameters.load_stepping.load_factors;
        double                          coordinate_sum = 0;
        for (const auto &v : monitored.vertices)
          coordinate_sum += v[0] + v[1] + v[2];
        env.pout << "  " << monitored.d.triangulation->n_global_active_cells() << " cells, "
                 << monitored.d.dof_handler.n_dofs()
             << " DoFs, sum of the vertex coordinates " << std::setprecision(17) << coordinate_sum
             << std::setprecision(6) << std::endl;
        // The mesh must not depend on the number of ranks.
        checker.check("  mesh: sum of the vertex coordinates vs the stored value (1 rank), relative",
                      std::abs(coordinate_sum - problem.stored_coordinate_sum) / problem.stored_coordinate_sum, 1e-13);
        const plastix_test::ReferenceSolution reference =
          plastix_test::solve_reference(monitored.parameters, monitored.d, monitored.vertex_index, checker, env.out);
        {
          // The history matters: reversed yielding at the last step.
          checker.check_true("  reference: plastic points at the peak load and again after reversal",
                             reference.plastic_points[1] > 0 && reference.plastic_points.back() > 0);
          double norm = 0;
          for (const double v : reference.vertex_values.back())
            norm += v * v;
          norm = std::sqrt(norm);
          env.pout << "  reference final vertex displacement norm " << std::setprecision(14) << norm
               << std::setprecision(6) << std::endl;
          checker.check("  reference final displacement norm vs the stored value (1 rank), relative",
                        std::abs(norm - problem.stored_norm) / problem.stored_norm, 1e-10);
        }

        std::vector<std::vector<double>> first_values;
        std::string                      first_name;
        unsigned int                     min_newton = 1000, max_newton = 0;
        for (const auto &strategy : strategies)
          for (const auto &kernel : kernels)
            for (const auto &mapping : mappings)
              {
                if ((strategy == "ebe tiled" || strategy == "assembled") &&
                    mapping != "cell") // one thread per cell / row
                  continue;
                // One thread per lattice point; cell or shuffle lanes for the plastic cells.
                if (strategy == "dbd structured" && mapping == "node")
                  continue;
                // dbd structured needs a lattice of equal boxes: not the distorted beam.
                if (strategy == "dbd structured" && problem.name.find("distorted") != std::string::npos)
                  continue;
                const std::string name = strategy + " / " + kernel + " / " + mapping;
                env.pout << "  " << name << std::endl;
                // Kernels at the reference states, with this operator.
                plastix::Parameters p = monitored.parameters;
                p.op.strategy         = plastix::parse_enum<plastix::backend::Strategy>(strategy);
                p.op.cell_kernel      = plastix::parse_enum<plastix::backend::CellKernel>(kernel);
                p.op.thread_mapping   = plastix::parse_enum<plastix::backend::ThreadMapping>(mapping);
                monitored.d.op.reinit(monitored.d.dof_handler, monitored.d.constraints, monitored.d.materials,
                                      p.op.get_additional_data());
                plastix_test::check_kernels(monitored.d, reference, checker, false, env.out, "    kernels: ");

                // The driver.
                std::string dir = name;
                for (auto &ch : dir)
                  if (!std::isalnum(static_cast<unsigned char>(ch)))
                    ch = '_';
                p.output.directory = "output_plasticity_strategies_np" + std::to_string(env.n_ranks) + "/" +
                                     (problem.name == "voxel beam" ? "voxel_" : "distorted_") + dir;
                const plastix_test::DriverSolution driver =
                  plastix_test::run_driver(p, load_factors, monitored.vertex_index, env.comm, checker, "    ");
                if (!driver.ok)
                  continue;
                double       worst_reference = 0, worst_first = 0;
                bool         counts          = true;
                unsigned int newton          = 0;
                for (unsigned int k = 0; k < load_factors.size(); ++k)
                  {
                    worst_reference =
                      std::max(worst_reference,
                               plastix_test::relative_difference(driver.vertex_values[k], reference.vertex_values[k]));
                    if (!first_values.empty())
                      worst_first = std::max(worst_first,
                                             plastix_test::relative_difference(driver.vertex_values[k], first_values[k]));
                    counts = counts && driver.plastic_points[k] == reference.plastic_points[k];
                    newton += driver.newton_iterations[k];
                  }
                min_newton = std::min(min_newton, newton);
                max_newton = std::max(max_newton, newton);
                env.pout << "    driver: " << newton << " Newton iterations, " << driver.summary.linear_iterations
                     << " linear iterations, " << driver.summary.n_cuts << " cuts" << std::endl;
                checker.check("    driver: displacements vs reference, all steps, max relative l2", worst_reference, 1e-9);
                checker.check_true("    driver: plastic points == reference, all steps", counts);
                checker.check_true("    driver: no step cuts", driver.summary.n_cuts == 0);
                if (first_values.empty())
                  {
                    first_values = driver.vertex_values;
                    first_name   = name;
                  }
                else
                  checker.check("    driver: displacements vs " + first_name + ", all steps, max relative l2",
                                worst_first, 1e-10);
              }
        // Information only: round-off decides the last iteration near the tolerance.
        env.pout << "  Newton iterations over all steps: " << min_newton << " to " << max_newton << std::endl;
        env.pout << "  time " << timer.wall_time() << " s" << std::endl;
      }
  });
}
