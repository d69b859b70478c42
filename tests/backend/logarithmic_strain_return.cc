// The finite-strain elastoplastic return of the device kernels in the
// Lagrangian logarithmic strain space (plastix::backend::
// logarithmic_strain_return, the host hook that runs the device code)
// against properties computed here from the formulas, not from plastix:
//  (a) Hencky elasticity at a diagonal F: T = lambda tr(E) I + 2 mu E with
//      E = diag(ln lambda_i), P_ii = T_ii / lambda_i;
//  (b) objectivity P(R F) = R P(F) at plastic points with history, and
//      isotropy P(F R) = P(F) R of a virgin point;
//  (c) the small-strain limit: P -> the small-strain stress as F -> I;
//  (d) isochoric uniaxial stretch to lambda = 2 (perfect and Voce
//      hardening): the Kirchhoff stress F S F^T is uniaxial with the yield
//      stress at the accumulated plastic strain, which is ln lambda -
//      tau / (3 G), solved here by bisection;
//  (e) the consistent derivative dP equals a central difference of P over
//      F for Hencky elasticity, J2 (linear, Voce with kinematic hardening),
//      Mohr-Coulomb and Drucker-Prager, at random, rotated, repeated and
//      nearly repeated stretches, with histories whose stress is not
//      coaxial with C;
//  (f) the derivative is major-symmetric for elasticity and associative J2;
//  (g) an inverted F gives a non-finite stress;
//  (h) simple shear to gamma = 2 in 40 committed steps (rotating principal
//      axes, kinematic hardening) against an independent integration of the
//      same model (doc/validation/hencky_simple_shear.py: the matrix
//      logarithm by inverse scaling and squaring, S by complex steps).
#include <plastix/backend/gauss_point_state.h>
#include <plastix/backend/logarithmic_strain_plasticity.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../checker.h"
#include "tensors3.h"
#include "yield_materials.h"

using plastix::backend::LogarithmicStrainPoint;
using plastix::backend::MaterialConstants;
using plastix::backend::YieldCriterion;

namespace
{
  plastix_test::Checker checker;

  using plastix_test::M3;
  using plastix_test::difference;
  using plastix_test::drucker_prager_outer;
  using plastix_test::elastic;
  using plastix_test::mohr_coulomb;
  using plastix_test::norm;
  using plastix_test::product;
  using plastix_test::transpose;
  using plastix_test::von_mises;
  using History = std::array<double, plastix::backend::logarithmic_strain_history_size>;

  M3
  diagonal(const double a, const double b, const double c)
  {
    return {a, 0, 0, 0, b, 0, 0, 0, c};
  }

  /** The rotation by @p angle about the axis @p axis (normalised here). */
  M3
  rotation(std::array<double, 3> axis, const double angle)
  {
    const double n = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    for (double &a : axis)
      a /= n;
    return plastix_test::rotation(angle, axis);
  }

  M3
  stress(const MaterialConstants &m, const M3 &F, const History &h)
  {
    const LogarithmicStrainPoint p = plastix::backend::logarithmic_strain_return(m, F.data(), h.data());
    M3                           P;
    std::copy(p.first_piola, p.first_piola + 9, P.begin());
    return P;
  }

  M3
  derivative(const MaterialConstants &m, const M3 &F, const History &h, const M3 &H)
  {
    M3 dP;
    plastix::backend::logarithmic_strain_stress_derivative(m, F.data(), h.data(), H.data(), dP.data());
    return dP;
  }

  /** (a) Hencky elasticity at a diagonal stretch against the closed form. */
  void
  check_hencky_elasticity()
  {
    const MaterialConstants m = elastic(1000, 0.3);
    const double            l[3] = {1.5, 0.8, 1.1};
    const History           virgin{};
    const M3                P = stress(m, diagonal(l[0], l[1], l[2]), virgin);
    const double            tr = std::log(l[0]) + std::log(l[1]) + std::log(l[2]);
    M3                      expected{};
    for (int i = 0; i < 3; ++i)
      expected[4 * i] = (m.lambda * tr + 2 * m.mu * std::log(l[i])) / l[i];
    checker.check("Hencky elasticity at diag(1.5, 0.8, 1.1): |P - closed form| / |P|",
                  difference(P, expected) / norm(expected), 1e-13);
    checker.check("stress-free at F = I: |P|", norm(stress(m, diagonal(1, 1, 1), virgin)), 1e-13);
  }

  /** A history from a plastic step to @p F_previous from a virgin point (initial stress @p s0, if any). */
  History
  history_after(const MaterialConstants &m, const M3 &F_previous, const std::array<double, 6> &s0 = {})
  {
    History h{};
    if (m.criterion != YieldCriterion::von_mises)
      std::copy(s0.begin(), s0.end(), h.begin() + 7);
    const LogarithmicStrainPoint p = plastix::backend::logarithmic_strain_return(m, F_previous.data(), h.data());
    History                      out;
    std::copy(p.history, p.history + out.size(), out.begin());
    return out;
  }

  /** (b) objectivity and isotropy. */
  void
  check_frame_invariance()
  {
    const MaterialConstants m = von_mises(200e3, 0.3, 250, 1000, 5000);
    const M3 F_previous       = {1.02, 0.01, 0.0, -0.005, 0.99, 0.004, 0.003, 0.0, 1.0};
    const History h           = history_after(m, F_previous);
    const M3 F                = {1.3, 0.2, -0.1, 0.05, 0.85, 0.1, -0.05, 0.15, 0.95};
    const M3 R                = rotation({1, 2, -1}, 0.7);
    const M3 P                = stress(m, F, h);
    checker.check("objectivity with a kinematic-hardening history: |P(R F) - R P(F)| / |P|",
                  difference(stress(m, product(R, F), h), product(R, P)) / norm(P), 1e-12);
    const History virgin{};
    const M3      P0 = stress(m, F, virgin);
    checker.check("isotropy of a virgin point: |P(F R) - P(F) R| / |P|",
                  difference(stress(m, product(F, R), virgin), product(P0, R)) / norm(P0), 1e-12);
  }

  /** (c) the small-strain limit (J2, plastic): P -> the small-strain return at eps = sym Grad u. */
  void
  check_small_strain_limit()
  {
    const MaterialConstants m = von_mises(200e3, 0.3, 250, 1000, 0);
    const M3                G = {1.0, 0.4, -0.2, 0.1, -0.6, 0.3, 0.5, -0.1, 0.2};
    const History           virgin{};
    for (const double t : {1e-2, 3e-3})
      {
        M3 F;
        for (int k = 0; k < 9; ++k)
          F[k] = (k % 4 == 0 ? 1. : 0.) + t * G[k];
        const double eps[6] = {t * G[0], t * G[4], t * G[8], 0.5 * t * (G[5] + G[7]), 0.5 * t * (G[2] + G[6]),
                               0.5 * t * (G[1] + G[3])};
        double       sigma[6], tangent[36];
        const double zero[6]  = {0, 0, 0, 0, 0, 0};
        const bool   yields   = plastix::backend::j2_return_map(m, zero, 0., zero, eps, sigma, tangent);
        M3           expected = {sigma[0], sigma[5], sigma[4], sigma[5], sigma[1], sigma[3], sigma[4], sigma[3], sigma[2]};
        const M3     P        = stress(m, F, virgin);
        checker.check_true("small-strain limit at |Grad u| ~ " + std::to_string(t) + ": the small-strain point yields",
                           yields);
        checker.check("small-strain limit at |Grad u| ~ " + std::to_string(t) +
                        ": |P - sigma_small(sym Grad u)| / |sigma| / |Grad u|",
                      difference(P, expected) / norm(expected) / (t * norm(G)), 2.);
      }
  }

  /** sigma_y(alpha) with Voce saturation. */
  double
  voce(const MaterialConstants &m, const double alpha)
  {
    return m.yield_stress + m.isotropic_hardening * alpha + m.voce_saturation * (1 - std::exp(-m.voce_rate * alpha));
  }

  /** (d) isochoric uniaxial stretch to lambda = 2 from a virgin point. */
  void
  check_uniaxial_stretch()
  {
    MaterialConstants perfect = von_mises(206.9e3, 0.29, 450, 0, 0);
    MaterialConstants saturating = perfect;
    saturating.isotropic_hardening = 129.24;
    saturating.voce_saturation     = 715 - 450;
    saturating.voce_rate           = 16.93;
    const double lambda            = 2;
    const M3     F                 = diagonal(lambda, 1 / std::sqrt(lambda), 1 / std::sqrt(lambda));
    for (const MaterialConstants *m : {&perfect, &saturating})
      {
        // tau_eq = sigma_y(alpha), alpha = ln(lambda) - tau_eq / (3 G): bisection on alpha.
        double low = 0, high = std::log(lambda);
        for (int it = 0; it < 200; ++it)
          {
            const double a = 0.5 * (low + high);
            (std::log(lambda) - voce(*m, a) / (3 * m->mu) > a ? low : high) = a;
          }
        const double alpha = 0.5 * (low + high), tau = voce(*m, alpha);
        const History virgin{};
        const auto    p = plastix::backend::logarithmic_strain_return(*m, F.data(), virgin.data());
        // Kirchhoff stress F S F^T: diag(2/3, -1/3, -1/3) tau (no pressure: det F = 1).
        M3 S{};
        S[0] = p.second_piola[0], S[4] = p.second_piola[1], S[8] = p.second_piola[2];
        S[5] = S[7] = p.second_piola[3], S[2] = S[6] = p.second_piola[4], S[1] = S[3] = p.second_piola[5];
        const M3     kirchhoff = product(product(F, S), transpose(F));
        const M3     expected  = diagonal(2 * tau / 3, -tau / 3, -tau / 3);
        const std::string name = m->voce_saturation > 0 ? "Voce" : "perfect";
        checker.check("uniaxial stretch 2, " + name + ": |tau - closed form| / tau", difference(kirchhoff, expected) / tau,
                      1e-12);
        checker.check("uniaxial stretch 2, " + name + ": |alpha - closed form|", std::abs(p.history[6] - alpha), 1e-12);
        checker.check("uniaxial stretch 2, " + name + ": |P_11 - 2 tau / (3 lambda)| / tau",
                      std::abs(p.first_piola[0] - 2 * tau / (3 * lambda)) / tau, 1e-12);
      }
  }

  struct Case
  {
    std::string       name;
    MaterialConstants m;
    M3                F;
    History           h;
    /** Whether the point must yield at F (and so the plastic tangent is checked). */
    bool plastic;
  };

  /** (e), (f): central differences and symmetry of the derivative. */
  void
  check_derivative()
  {
    std::mt19937                           rng(11);
    std::uniform_real_distribution<double> unit(-1, 1);
    const M3 rotated = product(rotation({0.3, -1, 0.5}, 1.1), M3{1.25, 0.1, 0.0, 0.05, 0.9, -0.08, 0.02, 0.07, 1.05});
    const M3 previous = {1.03, 0.02, -0.01, 0.0, 0.98, 0.01, 0.01, -0.02, 1.0};

    const MaterialConstants hencky   = elastic(1000, 0.3);
    const MaterialConstants j2       = von_mises(200e3, 0.3, 250, 2000, 0);
    MaterialConstants       j2_mixed = von_mises(200e3, 0.3, 250, 1000, 20000);
    j2_mixed.voce_saturation         = 200;
    j2_mixed.voce_rate               = 20;
    const MaterialConstants mc       = mohr_coulomb(2000, 0.25, 5, 30, 10, 200);
    const MaterialConstants dp       = drucker_prager_outer(2000, 0.25, 5, 30, 10, 200);
    const std::array<double, 6> in_situ = {-20, -25, -30, 2, -1, 3};

    std::vector<Case> cases = {
      {"Hencky, random stretch and rotation", hencky, rotated, {}, false},
      {"Hencky, repeated stretch", hencky, diagonal(1.3, 1.3, 0.7), {}, false},
      {"Hencky, nearly repeated stretch", hencky, diagonal(1.1, 1.1 + 1e-9, 0.9), {}, false},
      {"Hencky, F = I", hencky, diagonal(1, 1, 1), {}, false},
      {"J2 linear, rotated", j2, rotated, history_after(j2, previous), true},
      {"J2 linear, repeated", j2, diagonal(1.2, 1.2, 0.7), {}, true},
      {"J2 Voce + kinematic, rotated, history", j2_mixed, rotated, history_after(j2_mixed, previous), true},
      {"J2 Voce + kinematic, nearly repeated", j2_mixed, diagonal(1.15, 1.15 + 1e-8, 0.8),
       history_after(j2_mixed, previous), true},
      {"Mohr-Coulomb psi 10, in-situ stress, rotated", mc,
       product(diagonal(1.06, 0.97, 0.92), rotation({1, 1, 0}, 0.4)), history_after(mc, previous, in_situ), true},
      {"Drucker-Prager psi 10, in-situ stress, rotated", dp,
       product(diagonal(1.06, 0.97, 0.92), rotation({1, 1, 0}, 0.4)), history_after(dp, previous, in_situ), true},
    };
    for (const Case &c : cases)
      {
        const auto p = plastix::backend::logarithmic_strain_return(c.m, c.F.data(), c.h.data());
        if (c.plastic)
          checker.check_true(c.name + ": the point yields", p.plastic);
        const double scale = norm(stress(c.m, c.F, c.h)) + c.m.mu;
        double       worst = 0;
        for (int d = 0; d < 12; ++d)
          {
            M3 H{};
            if (d < 9)
              H[d] = 1;
            else
              for (double &x : H)
                x = unit(rng);
            const double step = 1e-6;
            M3           Fp = c.F, Fm = c.F;
            for (int k = 0; k < 9; ++k)
              {
                Fp[k] += step * H[k];
                Fm[k] -= step * H[k];
              }
            const M3 Pp = stress(c.m, Fp, c.h), Pm = stress(c.m, Fm, c.h);
            M3       fd;
            for (int k = 0; k < 9; ++k)
              fd[k] = (Pp[k] - Pm[k]) / (2 * step);
            worst = std::max(worst, difference(derivative(c.m, c.F, c.h, H), fd) / (scale * norm(H)));
          }
        checker.check(c.name + ": |dP - central difference| / (|A| |H|)", worst, 2e-7);
        if (c.m.criterion == YieldCriterion::von_mises)
          {
            double asymmetry = 0;
            for (int a = 0; a < 9; ++a)
              for (int b = 0; b < a; ++b)
                {
                  M3 Ha{}, Hb{};
                  Ha[a] = Hb[b] = 1;
                  asymmetry     = std::max(asymmetry, std::abs(derivative(c.m, c.F, c.h, Ha)[b] -
                                                           derivative(c.m, c.F, c.h, Hb)[a]));
                }
            checker.check(c.name + ": major symmetry |A_aB - A_bA| / |A|", asymmetry / scale, 1e-12);
          }
      }
  }

  /**
   * (h) simple shear F = I + gamma e_x (x) e_y to gamma = 2 in 40 steps of J2
   * with mixed hardening, each step's history committed, against the
   * independent integration of doc/validation/hencky_simple_shear.py (matrix
   * logarithm by inverse scaling and squaring, S by complex steps): P and
   * the accumulated plastic strain at gamma = 0.5, 1, 1.5, 2. The principal
   * axes of C rotate, and the back stress is not coaxial with C.
   */
  void
  check_simple_shear()
  {
    const MaterialConstants m = von_mises(200e3, 0.3, 250, 1000, 5000);
    // python3 doc/validation/hencky_simple_shear.py: alpha, then P row-major (P_xz = P_yz = P_zx = P_zy = 0).
    const double reference[4][10] = {
      {2.801253806636617e-01, -3.322833010817403e+02, 1.082079252444140e+03, 0, 1.186457415014326e+03,
       -2.087563251403711e+02, 0, 0, 0, 0},
      {5.582248164133715e-01, -1.089746619331965e+03, 1.848919645770227e+03, 0, 2.608092672208682e+03,
       -7.591730264384551e+02, 0, 0, 0, 0},
      {8.246230430933821e-01, -2.037835229616541e+03, 2.364638025848486e+03, 0, 4.628320739583101e+03,
       -1.509121809156411e+03, 0, 0, 0, 0},
      {1.070812250011793e+00, -2.996489132846902e+03, 2.655209367536404e+03, 0, 7.283068571988597e+03,
       -2.313929602226096e+03, 0, 0, 0, 0}};
    History h{};
    double  worst_stress = 0, worst_alpha = 0;
    for (int step = 1; step <= 40; ++step)
      {
        M3 F  = diagonal(1, 1, 1);
        F[1]  = 2. * step / 40;
        const auto p = plastix::backend::logarithmic_strain_return(m, F.data(), h.data());
        std::copy(p.history, p.history + h.size(), h.begin());
        if (step % 10 != 0)
          continue;
        const double *r = reference[step / 10 - 1];
        M3            expected;
        std::copy(r + 1, r + 10, expected.begin());
        M3 P;
        std::copy(p.first_piola, p.first_piola + 9, P.begin());
        worst_stress = std::max(worst_stress, difference(P, expected) / norm(expected));
        worst_alpha  = std::max(worst_alpha, std::abs(p.history[6] - r[0]) / r[0]);
      }
    checker.check("simple shear to gamma = 2, J2 mixed hardening: |P - independent integration| / |P|",
                  worst_stress, 1e-10);
    checker.check("simple shear to gamma = 2: |alpha - independent integration| / alpha", worst_alpha, 1e-10);
  }

  /** (g) an inverted deformation gradient. */
  void
  check_inverted()
  {
    const MaterialConstants m = von_mises(200e3, 0.3, 250, 1000, 0);
    const History           virgin{};
    const M3                F = diagonal(1.1, 0.9, -0.1);
    const auto              p = plastix::backend::logarithmic_strain_return(m, F.data(), virgin.data());
    checker.check_true("an inverted F is reported and gives a non-finite stress",
                       !p.valid && !std::isfinite(p.first_piola[0]));
  }
} // namespace

int
main()
{
  check_hencky_elasticity();
  check_frame_invariance();
  check_small_strain_limit();
  check_uniaxial_stretch();
  check_derivative();
  check_inverted();
  check_simple_shear();
  std::printf("%s\n", checker.failures == 0 ? "PASSED" : "FAILED");
  return checker.failures == 0 ? 0 : 1;
}
