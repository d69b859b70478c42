// The finite-strain hyperelastic laws of the device kernels (compressible
// Mooney-Rivlin, neo-Hookean with mu2 = 0; the isochoric neo-Hookean law of
// deal.II's step-44) and their cell kernel, evaluated on
// the host with the device code: stress-free reference, closed forms of
// simple shear (Rivlin's universal relation) and pure dilatation,
// objectivity, the small-strain limit, finite differences and the major
// symmetry of the tangent, and on a distorted hexahedron: finite differences
// of the cell's internal force against the cell tangent, a rigid rotation
// of 90 degrees without force, the symmetric cell tangent and the
// non-finite force of an inverted cell.
#include <plastix/backend/hyperelasticity.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "../checker.h"
#include "hyperelastic_materials.h"
#include "tensors3.h"

using plastix::backend::MaterialConstants;

namespace
{
  plastix_test::Checker checker;

  using plastix_test::M3;
  using plastix_test::difference;
  using plastix_test::dot;
  using plastix_test::norm;
  using plastix_test::product;
  using plastix_test::rotation;
  using plastix_test::transpose;
  using V24 = std::array<double, 24>;

  M3
  stress(const MaterialConstants &m, const M3 &F)
  {
    M3 P;
    plastix::backend::hyperelastic_stress(m, F.data(), P.data());
    return P;
  }

  M3
  stress_derivative(const MaterialConstants &m, const M3 &F, const M3 &H)
  {
    M3 dP;
    plastix::backend::hyperelastic_stress_derivative(m, F.data(), H.data(), dP.data());
    return dP;
  }

  /** A deformation gradient I + s R with entries of R uniform in [-1, 1] and det F > 0. */
  M3
  random_deformation(std::mt19937 &rng, const double s)
  {
    std::uniform_real_distribution<double> uniform(-1, 1);
    for (;;)
      {
        M3 F;
        for (int k = 0; k < 9; ++k)
          F[k] = (k % 4 == 0 ? 1. : 0.) + s * uniform(rng);
        const double J = F[0] * (F[4] * F[8] - F[5] * F[7]) - F[1] * (F[3] * F[8] - F[5] * F[6]) +
                         F[2] * (F[3] * F[7] - F[4] * F[6]);
        if (J > 0.2)
          return F;
      }
  }

  M3
  random_direction(std::mt19937 &rng)
  {
    std::uniform_real_distribution<double> uniform(-1, 1);
    M3                                     H;
    for (double &h : H)
      h = uniform(rng);
    return H;
  }

  /** Largest relative error of the central difference of P along H against dP[H] over the steps tried. */
  double
  tangent_error(const MaterialConstants &m, const M3 &F, const M3 &H)
  {
    const M3 exact = stress_derivative(m, F, H);
    double   best  = 1e300;
    for (const double h : {1e-4, 1e-5, 1e-6})
      {
        M3 Fp = F, Fm = F;
        for (int k = 0; k < 9; ++k)
          {
            Fp[k] += h * H[k];
            Fm[k] -= h * H[k];
          }
        const M3 Pp = stress(m, Fp), Pm = stress(m, Fm);
        M3       fd;
        for (int k = 0; k < 9; ++k)
          fd[k] = (Pp[k] - Pm[k]) / (2 * h);
        best = std::min(best, difference(fd, exact) / norm(exact));
      }
    return best;
  }

  void
  check_point_law(const std::string &name, const MaterialConstants &m, std::mt19937 &rng)
  {
    std::printf("%s (lambda %.4g, mu %.4g, mu2 %.4g)\n", name.c_str(), m.lambda, m.mu, m.second_shear_modulus);
    const M3     I    = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double mu1  = m.mu - m.second_shear_modulus, mu2 = m.second_shear_modulus;
    const double scale = m.lambda + 2 * m.mu;

    checker.check("  P(I) = 0", norm(stress(m, I)) / scale, 1e-15);

    // Simple shear F = I + gamma e1 (x) e2: J = 1, sigma = P F^T; the
    // isochoric law gives sigma = mu dev(F F^T).
    const bool isochoric = m.strain_energy == plastix::backend::StrainEnergy::isochoric_neo_hookean;
    for (const double gamma : {0.1, 0.5, 2.})
      {
        const M3     F     = {1, gamma, 0, 0, 1, 0, 0, 0, 1};
        const M3     sigma = product(stress(m, F), transpose(F));
        const double g2    = gamma * gamma;
        const M3     expected =
          isochoric ? M3{2 * m.mu * g2 / 3, m.mu * gamma, 0, m.mu * gamma, -m.mu * g2 / 3, 0, 0, 0, -m.mu * g2 / 3} :
                      M3{(mu1 + mu2) * g2, (mu1 + mu2) * gamma, 0, (mu1 + mu2) * gamma, 0, 0, 0, 0, mu2 * g2};
        checker.check("  simple shear gamma " + std::to_string(gamma).substr(0, 3) +
                        (isochoric ? ": sigma = mu dev(F F^T)" :
                                     ": sigma = (mu1 + mu2) [gamma^2, gamma; gamma, 0] + mu2 gamma^2 e3 (x) e3"),
                      difference(sigma, expected) / ((mu1 + mu2) * (gamma + g2)), 1e-14);
        checker.check("  simple shear: Rivlin's universal relation sigma11 - sigma22 = gamma sigma12",
                      std::abs(sigma[0] - sigma[4] - gamma * sigma[1]) / ((mu1 + mu2) * g2), 1e-14);
      }

    // Pure dilatation F = s I: P = (mu1 s + 2 mu2 s^3 + (lambda_J ln s^3 - mu1 - 2 mu2) / s) I,
    // isochoric: P = kappa / 2 (s^6 - 1) / s I.
    for (const double s : {0.7, 1.3})
      {
        const double lambda_J = m.lambda - 2 * mu2, kappa = m.lambda + 2 * m.mu / 3;
        const double p        = isochoric ? kappa / 2 * (std::pow(s, 6) - 1) / s :
                                            mu1 * s + 2 * mu2 * s * s * s +
                                       (lambda_J * std::log(s * s * s) - mu1 - 2 * mu2) / s;
        const M3     F        = {s, 0, 0, 0, s, 0, 0, 0, s};
        const M3     expected = {p, 0, 0, 0, p, 0, 0, 0, p};
        checker.check("  dilatation " + std::to_string(s).substr(0, 3) + ": closed form",
                      difference(stress(m, F), expected) / std::abs(p), 1e-14);
      }

    // Objectivity: P(R) = 0 and P(R F) = R P(F).
    const M3 R90 = rotation(M_PI / 2, {0, 0, 1});
    checker.check("  rigid rotation of 90 degrees: P = 0", norm(stress(m, R90)) / scale, 1e-15);
    double worst_objectivity = 0;
    for (int t = 0; t < 20; ++t)
      {
        const M3 F = random_deformation(rng, 0.4);
        std::uniform_real_distribution<double> uniform(-1, 1);
        std::array<double, 3>                  n = {uniform(rng), uniform(rng), uniform(rng)};
        const double                           l = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (double &c : n)
          c /= l;
        const M3 R = rotation(3 * uniform(rng), n);
        const M3 P = stress(m, F);
        worst_objectivity = std::max(worst_objectivity, difference(stress(m, product(R, F)), product(R, P)) / norm(P));
      }
    checker.check("  objectivity P(R F) = R P(F), 20 random F and R", worst_objectivity, 1e-13);

    // The small-strain limit: dP at F = I is the linear elastic stress of sym(H).
    {
      const M3 H  = random_direction(rng);
      const M3 dP = stress_derivative(m, I, H);
      const double tr = H[0] + H[4] + H[8];
      M3           linear;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          linear[3 * i + j] = m.mu * (H[3 * i + j] + H[3 * j + i]) + (i == j ? m.lambda * tr : 0.);
      checker.check("  tangent at F = I = lambda tr(eps) I + 2 mu eps", difference(dP, linear) / norm(linear), 1e-14);
    }

    // Finite differences and the major symmetry B : dP[H] = H : dP[B].
    double worst_fd = 0, worst_symmetry = 0;
    for (int t = 0; t < 40; ++t)
      {
        const M3 F = random_deformation(rng, t < 20 ? 0.1 : 0.6);
        const M3 H = random_direction(rng), B = random_direction(rng);
        worst_fd   = std::max(worst_fd, tangent_error(m, F, H));
        const double a = dot(B, stress_derivative(m, F, H)), b = dot(H, stress_derivative(m, F, B));
        worst_symmetry = std::max(worst_symmetry, std::abs(a - b) / (std::abs(a) + std::abs(b)));
      }
    checker.check("  tangent vs central differences of P, 40 random F", worst_fd, 1e-8);

    // W(F): zero at F = I and at a rigid rotation; P = dW/dF by central differences.
    checker.check("  W(I) = 0", std::abs(plastix::backend::hyperelastic_energy(m, I.data())) / scale, 1e-15);
    double worst_energy = 0;
    for (int t = 0; t < 20; ++t)
      {
        const M3 F = random_deformation(rng, t < 10 ? 0.1 : 0.6);
        const M3 P = stress(m, F);
        M3       fd;
        for (int k = 0; k < 9; ++k)
          {
            const double h  = 1e-6;
            M3           Fp = F, Fm = F;
            Fp[k] += h;
            Fm[k] -= h;
            fd[k] = (plastix::backend::hyperelastic_energy(m, Fp.data()) -
                     plastix::backend::hyperelastic_energy(m, Fm.data())) /
                    (2 * h);
          }
        worst_energy = std::max(worst_energy, difference(fd, P) / norm(P));
      }
    checker.check("  P vs central differences of W, 20 random F", worst_energy, 1e-7);
    checker.check("  major symmetry of the tangent, 40 random F", worst_symmetry, 1e-13);

    // The sensitivity of the finite-difference check: it sees a tangent entry off by 1e-4 of the norm.
    {
      const M3 F = random_deformation(rng, 0.6), H = random_direction(rng);
      const M3 dP = stress_derivative(m, F, H);
      M3       perturbed = dP;
      perturbed[1] += 1e-4 * norm(dP);
      M3 Fp = F, Fm = F;
      for (int k = 0; k < 9; ++k)
        {
          Fp[k] += 1e-6 * H[k];
          Fm[k] -= 1e-6 * H[k];
        }
      M3 fd;
      const M3 Pp = stress(m, Fp), Pm = stress(m, Fm);
      for (int k = 0; k < 9; ++k)
        fd[k] = (Pp[k] - Pm[k]) / 2e-6;
      checker.check_true("  the finite-difference check detects a relative tangent error of 1e-4",
                         difference(fd, perturbed) / norm(dP) > 1e-5);
    }
  }

  V24
  cell_force(const MaterialConstants &m, const V24 &X, const V24 &u)
  {
    V24 f;
    plastix::backend::hyperelastic_cell_force(m, X.data(), u.data(), f.data());
    return f;
  }

  V24
  cell_tangent(const MaterialConstants &m, const V24 &X, const V24 &u, const V24 &du)
  {
    V24 df;
    plastix::backend::hyperelastic_cell_tangent(m, X.data(), u.data(), du.data(), df.data());
    return df;
  }

  void
  check_cell(const std::string &name, const MaterialConstants &m, std::mt19937 &rng)
  {
    std::printf("%s: one distorted hexahedron\n", name.c_str());
    std::uniform_real_distribution<double> uniform(-1, 1);
    // The unit cube (deal.II's vertex order), its vertices moved by up to 0.15.
    V24 X;
    for (int a = 0; a < 8; ++a)
      for (int i = 0; i < 3; ++i)
        X[3 * a + i] = ((a >> i) & 1) + 0.15 * uniform(rng);
    auto random_vector = [&](const double s) {
      V24 v;
      for (double &x : v)
        x = s * uniform(rng);
      return v;
    };
    const double stiffness = m.lambda + 2 * m.mu;

    // A rigid rotation of 90 degrees about (1, 1, 1) / sqrt(3): u = (R - I) X.
    {
      const double r = 1 / std::sqrt(3.);
      const M3     R = rotation(M_PI / 2, {r, r, r});
      V24          u;
      for (int a = 0; a < 8; ++a)
        for (int i = 0; i < 3; ++i)
          u[3 * a + i] = R[3 * i] * X[3 * a] + R[3 * i + 1] * X[3 * a + 1] + R[3 * i + 2] * X[3 * a + 2] - X[3 * a + i];
      checker.check("  rigid rotation of 90 degrees: internal force / (lambda + 2 mu)",
                    norm(cell_force(m, X, u)) / stiffness, 1e-14);
    }

    // Finite differences of the force against the tangent, and the tangent's symmetry.
    double worst_fd = 0, worst_symmetry = 0;
    for (int t = 0; t < 10; ++t)
      {
        const V24 u  = random_vector(t < 5 ? 0.05 : 0.2);
        const V24 du = random_vector(1.), dw = random_vector(1.);
        const V24 K_du = cell_tangent(m, X, u, du);
        double    best = 1e300;
        for (const double h : {1e-4, 1e-5, 1e-6})
          {
            V24 up = u, um = u;
            for (int k = 0; k < 24; ++k)
              {
                up[k] += h * du[k];
                um[k] -= h * du[k];
              }
            const V24 fp = cell_force(m, X, up), fm = cell_force(m, X, um);
            V24       error;
            for (int k = 0; k < 24; ++k)
              error[k] = (fp[k] - fm[k]) / (2 * h) - K_du[k];
            best = std::min(best, norm(error) / norm(K_du));
          }
        worst_fd = std::max(worst_fd, best);
        const double a = dot(dw, K_du), b = dot(du, cell_tangent(m, X, u, dw));
        worst_symmetry = std::max(worst_symmetry, std::abs(a - b) / (std::abs(a) + std::abs(b)));
      }
    checker.check("  cell tangent vs central differences of the cell force, 10 random u", worst_fd, 1e-8);
    checker.check("  cell tangent symmetric (dead loads), 10 random u", worst_symmetry, 1e-13);

    // The small-strain limit: the force of a displacement of 1e-7 is the tangent at 0 times it.
    {
      const V24 u    = random_vector(1e-7);
      const V24 zero{};
      const V24 f    = cell_force(m, X, u), K_u = cell_tangent(m, X, zero, u);
      V24       error;
      for (int k = 0; k < 24; ++k)
        error[k] = f[k] - K_u[k];
      checker.check("  small displacements: f(u) = K(0) u to relative 1e-5", norm(error) / norm(K_u), 1e-5);
    }

    // An inverted cell (the top face pushed through the bottom one): the force is not finite.
    {
      V24 u{};
      for (int a = 4; a < 8; ++a)
        u[3 * a + 2] = -2.5;
      const V24 f      = cell_force(m, X, u);
      bool      finite = true;
      for (const double v : f)
        finite = finite && std::isfinite(v);
      checker.check_true("  inverted cell (J < 0 at the points): the internal force is not finite", !finite);
    }
  }
} // namespace

int
main()
{
  std::mt19937 rng(20261129);
  const MaterialConstants neo_hookean   = plastix_test::hyperelastic_material(1., 0.3, 0.);
  const MaterialConstants mooney_rivlin = plastix_test::hyperelastic_material(1., 0.3, 0.3);
  // Cook's membrane's rubber (mu = 422.5 kPa, nu = 0.3; kPa) and a nearly incompressible one.
  const MaterialConstants cook       = plastix_test::hyperelastic_material(2 * 422.5 * 1.3, 0.3, 0.);
  const MaterialConstants near_rigid = plastix_test::hyperelastic_material(1., 0.49, 0.2);
  check_point_law("neo-Hookean", neo_hookean, rng);
  check_point_law("Mooney-Rivlin, mu2 = 0.3 mu", mooney_rivlin, rng);
  check_point_law("neo-Hookean, Cook's membrane rubber", cook, rng);
  check_point_law("Mooney-Rivlin, nu = 0.49, mu2 = 0.2 mu", near_rigid, rng);
  const MaterialConstants isochoric =
    plastix_test::hyperelastic_material(1., 0.3, 0., plastix::backend::StrainEnergy::isochoric_neo_hookean);
  const MaterialConstants isochoric_near_rigid =
    plastix_test::hyperelastic_material(1., 0.49, 0., plastix::backend::StrainEnergy::isochoric_neo_hookean);
  check_point_law("isochoric neo-Hookean", isochoric, rng);
  check_point_law("isochoric neo-Hookean, nu = 0.49", isochoric_near_rigid, rng);
  check_cell("neo-Hookean", neo_hookean, rng);
  check_cell("isochoric neo-Hookean", isochoric, rng);
  check_cell("Mooney-Rivlin, mu2 = 0.3 mu", mooney_rivlin, rng);
  check_cell("Mooney-Rivlin, nu = 0.49, mu2 = 0.2 mu", near_rigid, rng);

  std::printf(checker.failures == 0 ? "all checks passed\n" : "%d check(s) FAILED\n", checker.failures);
  return checker.failures == 0 ? 0 : 1;
}
