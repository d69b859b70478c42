// Limit loads under displacement control, a test that fails on volumetric
// locking: prm/stepped_plate.prm (a thin plate pulled through narrow arms,
// quarter, elastic-perfectly plastic, pulled by a prescribed end
// displacement to about ten times first yield), the reaction R1_x on the
// plate's mid-section against the arm's net-section limit load:
//  - plane strain (u_z = 0 on both faces): P_L = 2/sqrt(3) sigma_y A_net,
//    refinements 0 and 1;
//  - the thin plate as the .prm has it (z free, close to plane stress):
//    P_L = sigma_y A_net, refinement 0, and refinement 0 with the corner
//    x > 33, y < 5 next to the measured face refined twice locally (hanging
//    nodes, also on edges ending on that face: its reaction collects their
//    forces).
// With B-bar (the default of elastoplastic runs) the reaction must reach
// P_L within 1 % and stay on a flat plateau: the slope over the last three
// load steps below 1e-4 of the elastic slope (first step). Full integration
// runs too: its reaction keeps climbing (slope above 1e-3 of the elastic
// one, end reaction above 1.02 P_L), which shows that the plateau checks
// would catch locking. 1 and 2 ranks (mpirun variants), the
// same bounds.

// Test: ranks 1 2; arguments prm; labels long
#include "plasticity_test_tools.h"
#include "test_environment.h"

#include <stdexcept>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <string>

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    if (argc < 2)
      throw std::invalid_argument(std::string("usage: ") + argv[0] + " <prm directory>");
    const std::string prm_text = plastix_test::read_text(std::string(argv[1]) + "/stepped_plate.prm");
    const std::string out_dir  = "output_plastic_limit_load_np" + std::to_string(env.n_ranks);
    const double      sigma_y = 200, net_area = 10 * 0.5;

    struct Case
    {
      std::string  name;
      bool         plane_strain;
      unsigned int refinement;
      std::string  formulation;
      /** 'Mesh/Local refinement region' (two local refinements), or empty. */
      std::string  local_region = "";
    };
    const std::vector<Case> cases = {
      {"plane strain", true, 0, "bbar"},  {"plane strain", true, 0, "full"},  {"plane strain", true, 1, "bbar"},
      {"plane strain", true, 1, "full"},  {"thin plate", false, 0, "bbar"},   {"thin plate", false, 0, "full"},
      // Hanging nodes: the corner x > 33, y < 5 refined twice next to the
      // face whose reaction is measured (hanging nodes on edges that end on it).
      {"thin plate, refined locally at the measured face", false, 0, "bbar", "(x > 33) && (y < 5)"},
    };
    env.pout << std::setprecision(6);
    for (const auto &c : cases)
      {
        const double limit = (c.plane_strain ? 2 / std::sqrt(3.) : 1.) * sigma_y * net_area;
        const std::string label = c.name + ", refinement " + std::to_string(c.refinement) + ", " +
                                  (c.formulation == "bbar" ? "B-bar" : "full integration");
        env.pout << "\n=== " << label << " (" << env.n_ranks << " rank(s)); P_L = " << limit << std::endl;
        const std::string dir = out_dir + "/" + (c.plane_strain ? "plane_strain_" : "thin_") +
                                std::to_string(c.refinement) + "_" + c.formulation +
                                (c.local_region.empty() ? "" : "_local");
        std::string text = prm_text + "\nsubsection Mesh\n set Global refinements = " + std::to_string(c.refinement) +
                           "\nend\nsubsection Operator\n set Element formulation = " + c.formulation +
                           "\nend\nsubsection Output\n set Directory = " + dir +
                           "\n set Write VTU = false\nend\nsubsection Monitor\n set Write plot = false\nend\n";
        if (!c.local_region.empty())
          text += "subsection Mesh\n set Local refinements = 2\n set Local refinement region = " + c.local_region +
                  "\nend\n";
        if (c.plane_strain)
          text += "subsection Boundary conditions\n set Dirichlet = 0: x = -0.3; 1: x = 0; 3: y = 0; 4: z = 0; "
                  "5: z = 0\nend\n";
        const plastix::Parameters parameters = plastix_test::parameters_from_text(text);
        plastix::RunSummary       summary;
        if (!plastix_test::run_elastoplastic_checked(parameters, env.comm, checker, env.out, summary))
          continue;
        const plastix_test::Csv csv =
          plastix_test::read_csv(parameters.output.directory + "/" + parameters.output.base_name + ".csv");
        const auto &factors = parameters.load_stepping.load_factors;
        // Step cuts add rows (the thin plate cuts once where the arm yields).
        checker.check_true("  the last load factor reached (" + std::to_string(csv.rows.size()) + " rows, " +
                             std::to_string(summary.n_cuts) + " cuts)",
                           csv.rows.size() >= factors.size() && csv.rows.back()[1] == factors.back());
        if (csv.rows.size() < 4)
          continue;
        const int reaction = csv.column("R1_x"), end_ux = csv.column("end_ux");
        env.pout << "  u_end      R1_x / P_L\n";
        for (const auto &row : csv.rows)
          env.pout << "  " << std::setw(9) << row[end_ux] << "  " << row[reaction] / limit << "\n";
        const std::size_t n     = csv.rows.size();
        const double elastic   = csv.rows[0][reaction] / csv.rows[0][end_ux];
        const double plateau   = (csv.rows[n - 1][reaction] - csv.rows[n - 4][reaction]) /
                               (csv.rows[n - 1][end_ux] - csv.rows[n - 4][end_ux]);
        const double end_ratio = csv.rows[n - 1][reaction] / limit;
        env.pout << "  slope of the last three steps / elastic slope " << plateau / elastic << ", end reaction / P_L "
                 << end_ratio << ", " << summary.n_cells << " cells" << std::endl;
        // (On the locally refined mesh some Gauss points yield in the first step.)
        if (c.local_region.empty())
          checker.check_true("  elastic in the first step", csv.rows[0][csv.column("plastic_points")] == 0);
        if (c.formulation == "bbar")
          {
            checker.check("  B-bar: end reaction vs P_L, relative", std::abs(end_ratio - 1), 1e-2);
            checker.check("  B-bar: plateau slope / elastic slope", std::abs(plateau / elastic), 1e-4);
          }
        else
          {
            checker.check_true("  full integration locks: plateau slope / elastic slope " +
                                 std::to_string(plateau / elastic) + " > 1e-3",
                               plateau / elastic > 1e-3);
            checker.check_true("  full integration locks: end reaction / P_L " + std::to_string(end_ratio) + " > 1.02",
                               end_ratio > 1.02);
          }
      }
  });
}
