// Unloading and reversed loading through the elastoplastic driver
// (plastix::ElastoplasticProblem), against closed forms of the uniaxial
// single-element cube (E 200 GPa, nu 0.3, sigma_y 450 MPa, hardening modulus
// 66 GPa, traction 600 MPa at load factor 1):
//  1. unloading to exactly zero load, elastic (0.5, 0) and after yielding
//     (to the residual plastic strain eps_p = 150/66000): the run must finish
//     and give u = 0 resp. eps_z = eps_p, eps_x = -eps_p/2;
//  2. reversed loading to -700 MPa with isotropic hardening (reverse yield at
//     -600 MPa) and with kinematic hardening (Bauschinger: reverse yield at
//     150 - 450 = -300 MPa), every step against its closed form;
//  3. elastic unloading after plastic loading must converge without step
//     cuts: the cube from 600 to 300 MPa, and a cantilever beam from its
//     plastic peak load to 30 %.
// Parts 1 and 3 guard two fixed bugs: Newton had no force scale at zero
// load, and the predictor of an unloading step used the algorithmic tangent
// of the previous step's last iterate, which overshoots.
//
// Usage: test_plasticity_unloading <prm directory>

// Test: ranks 1 2; arguments prm
#include <deal.II/base/conditional_ostream.h>

#include <plastix/core/runtime.h>

#include "plasticity_test_tools.h"
#include "test_environment.h"

#include <stdexcept>

#include <cmath>
#include <iomanip>
#include <iostream>

using namespace dealii;

namespace
{
  double
  csv_resolution(const double x)
  {
    return x == 0 ? 1e-300 : 0.5 * std::pow(10., std::floor(std::log10(std::abs(x))) - 9);
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    if (argc < 2)
      throw std::invalid_argument(std::string("usage: ") + argv[0] + " <prm directory>");
    const std::string cube    = plastix_test::read_text(std::string(argv[1]) + "/cube_single_element.prm");
    const std::string out_dir = "output_plasticity_unloading_np" + std::to_string(env.n_ranks);
    env.pout << std::setprecision(10);
    const double E = 200e9, nu = 0.3, sy = 450e6, Hm = 66e9, load = 600e6;

    // Runs the driver; returns false (and prints why) if it throws.
    auto run = [&](const std::string &text, plastix::Parameters &p, plastix::RunSummary &summary) {
      p = plastix_test::parameters_from_text(text);
      std::string log;
      try
        {
          summary = plastix_test::run_elastoplastic(p, env.comm, &log);
          return true;
        }
      catch (const std::exception &e)
        {
          env.pout << "  the run failed: " << e.what() << std::endl;
          return false;
        }
    };
    auto overrides = [&](const std::string &name, const std::string &factors) {
      return "\nsubsection Output\n set Directory = " + out_dir + "/" + name +
             "\n set Write VTU = false\nend\nsubsection Monitor\n set Write plot = false\nend\n"
             "subsection Load stepping\n set Load factors = " +
             factors + "\nend\n";
    };
    // Checks the CSV rows of a cube run along the load factors @p factors against the closed
    // form of uniaxial stress with linear mixed hardening (H isotropic, Hk kinematic), which
    // follows the history: yield if |sigma - X| > sigma_y + H alpha, then the plastic strain
    // changes by sign(sigma - X) f / (H + Hk), alpha by |d eps_p|, X by Hk d eps_p.
    auto check_cube = [&](const plastix::Parameters &p, const std::vector<double> &factors, const double H,
                          const double Hk, const std::string &label) {
      const auto csv   = plastix_test::read_csv(p.output.directory + "/" + p.output.base_name + ".csv");
      double     worst = 0, ep = 0, alpha = 0, X = 0;
      bool       all   = true;
      for (const double f : factors)
        {
          const double sigma = f * load;
          const double g     = std::abs(sigma - X) - (sy + H * alpha);
          if (g > 0)
            {
              const double d = (sigma > X ? 1. : -1.) * g / (H + Hk);
              ep += d;
              alpha += std::abs(d);
              X += Hk * d;
            }
          const double ez = sigma / E + ep, ex = -nu * sigma / E - 0.5 * ep;
          const std::vector<double> *row = nullptr;
          for (const auto &r : csv.rows)
            if (std::abs(r[1] - f) < 1e-9)
              row = &r;
          if (!row)
            {
              all = false;
              continue;
            }
          const double uz = (*row)[csv.column("top_uz")], ux = (*row)[csv.column("top_ux")];
          env.pout << "    load factor " << std::setw(13) << f << ": eps_z " << std::setw(14) << uz << " (closed form "
               << std::setw(14) << ez << "), eps_x " << std::setw(14) << ux << " (" << std::setw(14) << ex << ")"
               << std::endl;
          worst = std::max({worst, std::abs(uz - ez) / (1e-10 * std::abs(ez) + csv_resolution(ez) + 1e-18),
                            std::abs(ux - ex) / (1e-10 * std::abs(ex) + csv_resolution(ex) + 1e-18)});
        }
      checker.check_true(label + ": a CSV row for every load factor", all);
      checker.check(label + ": max |eps - closed form| / (1e-10 |eps| + CSV rounding)", worst, 1.);
    };

    // ----------------------------------------------------------- 1. to zero
    env.pout << "\n=== 1. unloading to zero load (" << env.n_ranks << " rank(s))" << std::endl;
    {
      plastix::Parameters p;
      plastix::RunSummary summary;
      const bool          ok = run(cube + overrides("zero_elastic", "0.5, 0"), p, summary);
      checker.check_true("  elastic cube, load factors 0.5, 0: the run finishes", ok);
      if (ok)
        checker.check("  elastic cube: max |u| at zero load / 1e-3 (max |u| at 0.5 is 5.4e-4)",
                      summary.max_displacement / 1e-3, 1e-12);
    }
    {
      // 600 MPa, then back in quarter steps (elastic unloading) to zero.
      const std::vector<double> factors = {1. / 3, 2. / 3, 1, 0.75, 0.5, 0.25, 0};
      plastix::Parameters       p;
      plastix::RunSummary       summary;
      const bool ok = run(cube + overrides("zero_plastic", "0.333333333333333333, 0.666666666666666667, 1, 0.75, 0.5, "
                                                           "0.25, 0"),
                          p, summary);
      checker.check_true("  plastic cube, 600 MPa and back to zero: the run finishes", ok);
      if (ok)
        check_cube(p, factors, Hm, 0., "  plastic cube to zero");
    }

    // ---------------------------------------------------------- 2. reversal
    env.pout << "\n=== 2. reversed loading to -700 MPa (" << env.n_ranks << " rank(s))" << std::endl;
    {
      const std::vector<double> factors = {1. / 3, 2. / 3, 1, 0.75, 0.5, 0.25, -0.25, -0.45, -0.75, -0.9, -7. / 6};
      const std::string         list = "0.333333333333333333, 0.666666666666666667, 1, 0.75, 0.5, 0.25, -0.25, -0.45, "
                               "-0.75, -0.9, -1.16666666666666667";
      // Isotropic: the yield stress is 600 MPa after the peak in both directions.
      {
        plastix::Parameters p;
        plastix::RunSummary summary;
        env.pout << "  isotropic hardening (H 66 GPa):" << std::endl;
        if (run(cube + overrides("reverse_isotropic", list), p, summary))
          check_cube(p, factors, Hm, 0., "  isotropic reversal");
        else
          checker.check_true("  isotropic reversal: the run finishes", false);
      }
      // Kinematic (Prager): back stress X = H_kin eps_p; yield when |sigma - X| = sigma_y.
      {
        plastix::Parameters p;
        plastix::RunSummary summary;
        env.pout << "  kinematic hardening (H_kin 66 GPa, H 0):" << std::endl;
        if (run(cube + overrides("reverse_kinematic", list) +
                  "subsection Materials\n set Isotropic hardening = 0\n set Kinematic hardening = 66e9\nend\n",
                p, summary))
          check_cube(p, factors, 0., Hm, "  kinematic reversal (Bauschinger)");
        else
          checker.check_true("  kinematic reversal: the run finishes", false);
      }
    }

    // ------------------------------------------------------- 3. no cuts
    env.pout << "\n=== 3. elastic unloading after yielding converges without step cuts (" << env.n_ranks << " rank(s))"
         << std::endl;
    {
      plastix::Parameters p;
      plastix::RunSummary summary;
      const bool ok = run(cube + overrides("unload_cube", "0.333333333333333333, 0.666666666666666667, 1, 0.5"), p,
                          summary);
      checker.check_true("  cube 600 -> 300 MPa: the run finishes", ok);
      if (ok)
        {
          env.pout << "  cube: " << summary.n_cuts << " step cuts, " << summary.newton_iterations
               << " Newton iterations in all" << std::endl;
          checker.check_true("  cube 600 -> 300 MPa in one step: no step cuts", summary.n_cuts == 0);
        }
    }
    {
      const std::string   beam = plastix_test::mixed_hardening_beam_prm();
      plastix::Parameters p;
      plastix::RunSummary summary;
      const bool          ok = run(beam + overrides("unload_beam", "0.6, 1, 0.3"), p, summary);
      checker.check_true("  beam (80 cells, 104 plastic points at the peak) 1 -> 0.3: the run finishes", ok);
      if (ok)
        {
          env.pout << "  beam: " << summary.n_cuts << " step cuts, " << summary.newton_iterations
               << " Newton iterations, " << summary.linear_iterations << " linear iterations in all" << std::endl;
          checker.check_true("  beam unloading 1 -> 0.3 in one step: no step cuts", summary.n_cuts == 0);
        }
    }
  });
}
