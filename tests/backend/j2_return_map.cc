// The J2 return map of the device backend (plastix::backend::j2_return_map,
// the host-callable hook that runs the device code) against properties that
// any correct implementation must have, computed here from the formulas and
// not from plastix:
//  (a) elastic trial states: the stress is C : (eps - eps_p) and the tangent
//      is the isotropic elastic matrix (lambda, mu);
//  (b) plastic states: consistency (von Mises of stress - back stress equals
//      sigma_y + H alpha with the updated alpha and back stress), normality
//      (the correction is deviatoric and along the trial relative stress,
//      which stays the direction of the returned one), an independent
//      closed-form return, and the uniaxial closed form (the single-element
//      cube of U. Kiran, "Development of GPU-based Strategies for Finite
//      Element Simulation of Elastoplastic Problems", PhD thesis, IIT
//      Guwahati, 2023: 600 MPa at eps_z = 0.0052727..., tangent modulus
//      E H / (E + H));
//  (c) the consistent tangent equals a central finite difference of the
//      return map over the strain, for isotropic, kinematic, mixed hardening
//      and perfect plasticity, at random plastic states;
//  (d) the tangent is symmetric;
// with linear and with Voce saturation hardening (sigma_y = sigma_0 + H alpha
// + (sigma_inf - sigma_0) (1 - exp(-delta alpha)); the independent return
// finds the multiplier by bisection, and the uniaxial closed form inverts
// sigma = sigma_y(eps_p) for the necking steel of J. C. Simo, "A framework
// for finite strain elastoplasticity based on maximum plastic dissipation
// and the multiplicative decomposition", CMAME 66 (1988)).
//
// Convention found in the code (and checked here): strains and stresses are
// passed as tensor components xx, yy, zz, yz, xz, xy; column j of the tangent
// is the stress response to a unit *engineering* strain increment in
// component j (for j >= 3 a tensor shear increment of 1/2), i.e. the usual
// symmetric 6x6 Voigt matrix (mu, not 2 mu, on the shear diagonal). A finite
// difference over the tensor component j >= 3 therefore equals twice column j.
#include <plastix/backend/gauss_point_state.h>
#include <plastix/backend/mesh_data.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../checker.h"
#include "symmetric_tensors.h"

using plastix::backend::MaterialConstants;
using plastix_test::V6;
using plastix_test::ddot;
using plastix_test::elastic_stress;
using plastix_test::norm;

namespace
{
  plastix_test::Checker checker;

  MaterialConstants
  material(const double E, const double nu, const double sy, const double H, const double Hk,
           const double sigma_inf = 0, const double delta = 0)
  {
    MaterialConstants m;
    m.lambda              = E * nu / ((1 + nu) * (1 - 2 * nu));
    m.mu                  = E / (2 * (1 + nu));
    m.yield_stress        = sy;
    m.isotropic_hardening = H;
    m.kinematic_hardening = Hk;
    if (sigma_inf > sy)
      {
        m.voce_saturation = sigma_inf - sy;
        m.voce_rate       = delta;
      }
    return m;
  }

  /** A tabulated yield stress through @p points (alpha, sigma_y) with kinematic hardening @p Hk. */
  MaterialConstants
  tabulated(const double E, const double nu, const double Hk, const std::vector<std::array<double, 2>> &points)
  {
    MaterialConstants m = material(E, nu, points[0][1], 0, Hk);
    m.hardening_points  = static_cast<int>(points.size());
    for (std::size_t k = 0; k < points.size(); ++k)
      {
        m.hardening_alpha[k]  = points[k][0];
        m.hardening_stress[k] = points[k][1];
      }
    return m;
  }

  /** The segment of the table that holds alpha (the number of points if beyond the last). */
  int
  table_segment(const MaterialConstants &m, const double alpha)
  {
    int k = 1;
    while (k < m.hardening_points && !(alpha < m.hardening_alpha[k]))
      ++k;
    return k;
  }

  /** The yield stress at the accumulated plastic strain alpha (linear plus Voce, or the table). */
  double
  kappa_of(const MaterialConstants &m, const double alpha)
  {
    if (m.hardening_points > 0)
      {
        const int k = table_segment(m, alpha);
        if (k == m.hardening_points)
          return m.hardening_stress[k - 1];
        const double t = (alpha - m.hardening_alpha[k - 1]) / (m.hardening_alpha[k] - m.hardening_alpha[k - 1]);
        return (1 - t) * m.hardening_stress[k - 1] + t * m.hardening_stress[k];
      }
    return m.yield_stress + m.isotropic_hardening * alpha + m.voce_saturation * (1 - std::exp(-m.voce_rate * alpha));
  }

  /** Its slope (from the right at the table's points). */
  double
  kappa_slope(const MaterialConstants &m, const double alpha)
  {
    if (m.hardening_points > 0)
      {
        const int k = table_segment(m, alpha);
        return k == m.hardening_points ? 0. :
                                         (m.hardening_stress[k] - m.hardening_stress[k - 1]) /
                                           (m.hardening_alpha[k] - m.hardening_alpha[k - 1]);
      }
    return m.isotropic_hardening + m.voce_saturation * m.voce_rate * std::exp(-m.voce_rate * alpha);
  }

  V6
  dev(const V6 &a)
  {
    V6           d  = a;
    const double tr = (a[0] + a[1] + a[2]) / 3;
    for (int k = 0; k < 3; ++k)
      d[k] -= tr;
    return d;
  }

  double
  von_mises(const V6 &a)
  {
    const V6 s = dev(a);
    return std::sqrt(1.5 * ddot(s, s));
  }

  /** The plastix return map: stress, tangent (row-major 6x6), plastic flag. */
  struct Result
  {
    V6     stress;
    double tangent[36];
    bool   plastic;
  };

  Result
  plastix_map(const MaterialConstants &m, const V6 &ep, const double alpha, const V6 &beta, const V6 &eps)
  {
    Result r;
    r.plastic = plastix::backend::j2_return_map(m, ep.data(), alpha, beta.data(), eps.data(), r.stress.data(), r.tangent);
    return r;
  }

  /**
   * Independent return map from the textbook formulas (Simo & Hughes, box
   * 3.2, with Prager kinematic hardening written in back-stress form):
   * returns stress, new alpha and back stress.
   */
  struct Reference
  {
    V6     stress, beta;
    double alpha, dgamma;
    bool   plastic;
  };

  Reference
  reference_map(const MaterialConstants &m, const V6 &ep, const double alpha, const V6 &beta, const V6 &eps)
  {
    V6 ee;
    for (int k = 0; k < 6; ++k)
      ee[k] = eps[k] - ep[k];
    const V6 trial = elastic_stress(m, ee);
    V6       xi    = dev(trial);
    for (int k = 0; k < 6; ++k)
      xi[k] -= beta[k];
    const double f = std::sqrt(1.5) * norm(xi) - kappa_of(m, alpha);
    Reference    r;
    r.stress  = trial;
    r.beta    = beta;
    r.alpha   = alpha;
    r.dgamma  = 0;
    r.plastic = f > 0;
    if (!r.plastic)
      return r;
    // Consistency of f(sigma_tr - 2G sqrt(3/2) dg n - beta - sqrt(2/3) Hk dg n) = sy + H (alpha + dg):
    // sqrt(3/2) |xi| - 3G dg - Hk dg = sy + H alpha + H dg.
    // With Voce hardening the multiplier solves it by bisection on [0, f / (3G + Hk)].
    double dg = f / (3 * m.mu + m.isotropic_hardening + m.kinematic_hardening);
    if (m.voce_saturation > 0 || m.hardening_points > 0)
      {
        double lo = 0, hi = f / (3 * m.mu + m.kinematic_hardening);
        for (int i = 0; i < 200; ++i)
          {
            const double mid = 0.5 * (lo + hi);
            const double g   = std::sqrt(1.5) * norm(xi) - (3 * m.mu + m.kinematic_hardening) * mid - kappa_of(m, alpha + mid);
            (g > 0 ? lo : hi) = mid;
          }
        dg = 0.5 * (lo + hi);
      }
    const double nn = norm(xi);
    for (int k = 0; k < 6; ++k)
      {
        const double n = xi[k] / nn;
        r.stress[k] -= 2 * m.mu * std::sqrt(1.5) * dg * n;
        r.beta[k] += std::sqrt(2. / 3.) * m.kinematic_hardening * dg * n;
      }
    r.alpha  = alpha + dg;
    r.dgamma = dg;
    return r;
  }

  /** max |a_i - b_i| / scale. */
  double
  max_difference(const V6 &a, const V6 &b, const double scale)
  {
    double d = 0;
    for (int k = 0; k < 6; ++k)
      d = std::max(d, std::abs(a[k] - b[k]));
    return d / scale;
  }

  /** A random deviatoric tensor with tensor-norm 1. */
  V6
  random_deviator(std::mt19937 &rng)
  {
    std::uniform_real_distribution<double> u(-1, 1);
    V6                                     a;
    for (auto &x : a)
      x = u(rng);
    a = dev(a);
    const double n = norm(a);
    for (auto &x : a)
      x /= n;
    return a;
  }

  /** Random committed history and a strain at which the point yields with f >= 5 % of the yield stress. */
  struct State
  {
    V6     ep, beta, eps;
    double alpha;
  };

  State
  random_plastic_state(const MaterialConstants &m, std::mt19937 &rng)
  {
    std::uniform_real_distribution<double> u(0, 1), s(-1, 1);
    const double                           e_y = m.yield_stress / (2 * m.mu); // shear strain scale of yield
    State                                  st;
    const V6                               dp = random_deviator(rng);
    const double                           a  = 0.5 * e_y * u(rng);
    for (int k = 0; k < 6; ++k)
      st.ep[k] = std::sqrt(1.5) * a * dp[k]; // as if reached in one step: alpha = a
    st.alpha = a * (1 + u(rng));             // plus some earlier (reversed) flow
    for (int k = 0; k < 6; ++k)
      st.beta[k] = std::sqrt(2. / 3.) * m.kinematic_hardening * a * dp[k];
    for (int attempt = 0; attempt < 1000; ++attempt)
      {
        const V6     d   = random_deviator(rng);
        const double vol = 0.5 * e_y * s(rng);
        const double mag = e_y * (1 + 4 * u(rng));
        for (int k = 0; k < 6; ++k)
          st.eps[k] = st.ep[k] + mag * d[k] + (k < 3 ? vol : 0.);
        V6 ee;
        for (int k = 0; k < 6; ++k)
          ee[k] = st.eps[k] - st.ep[k];
        V6 xi = dev(elastic_stress(m, ee));
        for (int k = 0; k < 6; ++k)
          xi[k] -= st.beta[k];
        const double kappa = kappa_of(m, st.alpha);
        if (std::sqrt(1.5) * norm(xi) >= 1.05 * kappa)
          return st;
      }
    std::printf("could not draw a plastic state\n");
    std::exit(2);
  }

  /** Column scaling of the tangent: a finite difference over tensor component j is w_j times column j. */
  constexpr double w[6] = {1, 1, 1, 2, 2, 2};

  /**
   * Largest difference between the tangent and a central finite difference
   * of the plastix stress over the strain, relative to the largest tangent
   * entry.
   */
  double
  tangent_fd_error(const MaterialConstants &m, const State &st, const double *tangent)
  {
    const double h     = 1e-6 * m.yield_stress / (2 * m.mu);
    double       error = 0, scale = 0;
    for (int i = 0; i < 36; ++i)
      scale = std::max(scale, std::abs(tangent[i]));
    for (int j = 0; j < 6; ++j)
      {
        V6 ep = st.eps, em = st.eps;
        ep[j] += h;
        em[j] -= h;
        const Result rp = plastix_map(m, st.ep, st.alpha, st.beta, ep);
        const Result rm = plastix_map(m, st.ep, st.alpha, st.beta, em);
        for (int i = 0; i < 6; ++i)
          {
            const double fd = (rp.stress[i] - rm.stress[i]) / (2 * h);
            error           = std::max(error, std::abs(fd - w[j] * tangent[6 * i + j]));
          }
      }
    return error / scale;
  }

  double
  asymmetry(const double *t)
  {
    double a = 0, scale = 0;
    for (int i = 0; i < 36; ++i)
      scale = std::max(scale, std::abs(t[i]));
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < i; ++j)
        a = std::max(a, std::abs(t[6 * i + j] - t[6 * j + i]));
    return a / scale;
  }

  /** Inverse of a 6x6 matrix (Gauss-Jordan with partial pivoting). */
  bool
  invert6(const double *a_in, double *inv)
  {
    double a[6][12];
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 12; ++j)
        a[i][j] = j < 6 ? a_in[6 * i + j] : (j - 6 == i ? 1. : 0.);
    for (int c = 0; c < 6; ++c)
      {
        int p = c;
        for (int r = c + 1; r < 6; ++r)
          if (std::abs(a[r][c]) > std::abs(a[p][c]))
            p = r;
        if (a[p][c] == 0)
          return false;
        for (int j = 0; j < 12; ++j)
          std::swap(a[c][j], a[p][j]);
        const double d = a[c][c];
        for (int j = 0; j < 12; ++j)
          a[c][j] /= d;
        for (int r = 0; r < 6; ++r)
          if (r != c)
            {
              const double f = a[r][c];
              for (int j = 0; j < 12; ++j)
                a[r][j] -= f * a[c][j];
            }
      }
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j)
        inv[6 * i + j] = a[i][6 + j];
    return true;
  }
} // namespace

int
main()
{
  std::mt19937 rng(20240611);
  // The steel of Kiran's cube (Pa) and the other benchmark materials (MPa),
  // with the hardening split in four ways.
  struct Case
  {
    const char        *name;
    MaterialConstants  m;
  };
  const Case cases[] = {
    {"isotropic (cube: E 200e9, H 66e9)", material(200e9, 0.3, 450e6, 66e9, 0)},
    {"kinematic only (H_kin 20e3)", material(200e3, 0.3, 250, 0, 20e3)},
    {"mixed (H 10e3, H_kin 30e3, nu 0.29)", material(206.9e3, 0.29, 450, 10e3, 30e3)},
    {"perfect plasticity (H = 0)", material(200e3, 0.3, 250, 0, 0)},
    {"Voce (Simo's steel: sigma_0 450, sigma_inf 715, delta 16.93, H 129.24)",
     material(206.9e3, 0.29, 450, 129.24, 0, 715, 16.93)},
    {"Voce, steep (delta 2000), with H_kin 10e3", material(200e3, 0.3, 250, 0, 10e3, 400, 2000)},
    {"tabulated (slopes 50e3, 60e3, 4.3e3, then flat), with H_kin 5e3",
     tabulated(200e3, 0.3, 5e3, {{{0, 250}, {0.001, 300}, {0.003, 420}, {0.01, 450}}})},
  };

  std::printf("(a) elastic trial states\n");
  for (const auto &c : cases)
    {
      const MaterialConstants &m = c.m;
      double                   worst_stress = 0, worst_tangent = 0;
      bool                     never_plastic = true;
      for (int t = 0; t < 50; ++t)
        {
          State st = random_plastic_state(m, rng);
          // Scale the elastic strain down until the trial state lies inside the yield surface.
          V6     ee;
          for (int k = 0; k < 6; ++k)
            ee[k] = st.eps[k] - st.ep[k];
          V6 xi = dev(elastic_stress(m, ee));
          for (int k = 0; k < 6; ++k)
            xi[k] -= st.beta[k];
          const double kappa  = kappa_of(m, st.alpha);
          // A strain at which f = -10 % kappa, in the direction of the random plastic one.
          V6 eps;
          // eta(e) = 2G dev(e) - beta: choose dev(e) = (beta + 0.9 kappa / q(xi) xi) / 2G.
          const double q = std::sqrt(1.5) * norm(xi);
          for (int k = 0; k < 6; ++k)
            eps[k] = st.ep[k] + (st.beta[k] + 0.9 * kappa / q * xi[k]) / (2 * m.mu) +
                     (k < 3 ? (ee[0] + ee[1] + ee[2]) / 3 : 0.);
          const Result r = plastix_map(m, st.ep, st.alpha, st.beta, eps);
          never_plastic  = never_plastic && !r.plastic;
          V6 e_el;
          for (int k = 0; k < 6; ++k)
            e_el[k] = eps[k] - st.ep[k];
          worst_stress = std::max(worst_stress, max_difference(r.stress, elastic_stress(m, e_el), m.yield_stress));
          // Elastic Voigt matrix: lambda + 2 mu / lambda among normals, mu on the shear diagonal.
          for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j)
              {
                const double expected = (i < 3 && j < 3 ? m.lambda : 0.) + (i == j ? (i < 3 ? 2 * m.mu : m.mu) : 0.);
                worst_tangent         = std::max(worst_tangent, std::abs(r.tangent[6 * i + j] - expected) / m.mu);
              }
        }
      std::printf(" %s\n", c.name);
      checker.check_true("  no elastic state reported plastic", never_plastic);
      checker.check("  stress vs lambda tr(e) I + 2 mu e (/sigma_y)", worst_stress, 1e-12);
      checker.check("  tangent vs elastic matrix (/mu)", worst_tangent, 1e-13);
    }
  {
    // Zero yield stress means an elastic material, even at large strain.
    const MaterialConstants m = material(200e3, 0.3, 0, 1e3, 0);
    const V6       z = {0, 0, 0, 0, 0, 0}, eps = {0.01, -0.02, 0.005, 0.01, 0, 0.03};
    const Result   r = plastix_map(m, z, 0, z, eps);
    checker.check_true(" yield stress 0: elastic (documented '0 = elastic')", !r.plastic);
    checker.check(" yield stress 0: elastic stress", max_difference(r.stress, elastic_stress(m, eps), 1.), 1e-9);
  }

  std::printf("(b) plastic states: consistency, normality, independent return map\n");
  for (const auto &c : cases)
    {
      const MaterialConstants &m = c.m;
      double          consistency = 0, normality = 0, volumetric = 0, reference = 0, direction = 0;
      bool            all_plastic = true;
      for (int t = 0; t < 200; ++t)
        {
          const State  st  = random_plastic_state(m, rng);
          const Result r   = plastix_map(m, st.ep, st.alpha, st.beta, st.eps);
          all_plastic      = all_plastic && r.plastic;
          V6 ee;
          for (int k = 0; k < 6; ++k)
            ee[k] = st.eps[k] - st.ep[k];
          const V6 trial = elastic_stress(m, ee);
          // The correction and the plastic multiplier recovered from it.
          V6 corr;
          for (int k = 0; k < 6; ++k)
            corr[k] = trial[k] - r.stress[k];
          volumetric       = std::max(volumetric, std::abs(corr[0] + corr[1] + corr[2]) / m.yield_stress);
          V6 xi_tr         = dev(trial);
          for (int k = 0; k < 6; ++k)
            xi_tr[k] -= st.beta[k];
          const double nx  = norm(xi_tr);
          const double nc  = norm(corr);
          // Normality: the correction is parallel to the trial relative stress.
          double       cross = 0;
          for (int k = 0; k < 6; ++k)
            cross = std::max(cross, std::abs(corr[k] / nc - xi_tr[k] / nx));
          normality        = std::max(normality, cross);
          const double dg  = nc / (2 * m.mu * std::sqrt(1.5));
          // Updated history from the flow rule and the hardening laws.
          const double alpha = st.alpha + dg;
          V6           xi;
          const V6     s = dev(r.stress);
          for (int k = 0; k < 6; ++k)
            xi[k] = s[k] - (st.beta[k] + std::sqrt(2. / 3.) * m.kinematic_hardening * dg * xi_tr[k] / nx);
          const double kappa = kappa_of(m, alpha);
          consistency        = std::max(consistency, std::abs(std::sqrt(1.5) * norm(xi) - kappa) / kappa);
          // The returned relative stress keeps the trial direction.
          double d = 0;
          for (int k = 0; k < 6; ++k)
            d = std::max(d, std::abs(xi[k] / norm(xi) - xi_tr[k] / nx));
          direction            = std::max(direction, d);
          const Reference ref  = reference_map(m, st.ep, st.alpha, st.beta, st.eps);
          reference            = std::max(reference, max_difference(r.stress, ref.stress, m.yield_stress));
        }
      std::printf(" %s (200 random states with f >= 0.05 kappa)\n", c.name);
      checker.check_true("  all reported plastic", all_plastic);
      checker.check("  consistency |q(s - beta) - sigma_y(alpha)| / kappa", consistency, 1e-12);
      checker.check("  correction deviatoric |tr| / sigma_y", volumetric, 1e-11);
      checker.check("  normality: correction parallel to dev(trial) - beta", normality, 1e-10);
      checker.check("  returned relative stress keeps the trial direction", direction, 1e-10);
      checker.check("  stress vs independent closed-form return (/sigma_y)", reference, 1e-11);
    }

  {
    std::printf("(b) uniaxial closed form (Kiran's cube: 600 MPa, E 200 GPa, nu 0.3, sigma_y 450 MPa, H 66 GPa)\n");
    // Mixed hardening too: monotonic uniaxial stress gives sigma = sigma_y + (H + H_kin) eps_p.
    for (const double hk : {0., 20e9})
      {
        const MaterialConstants m  = material(200e9, 0.3, 450e6, 66e9, hk);
        const double            E  = 200e9, nu = 0.3, sigma = 600e6;
        const double            Ht = 66e9 + hk;
        const double            p  = (sigma - 450e6) / Ht;
        const V6                z  = {0, 0, 0, 0, 0, 0};
        const double   ez = sigma / E + p, ex = -nu * sigma / E - p / 2;
        const V6       eps = {ex, ex, ez, 0, 0, 0};
        if (hk == 0)
          {
            std::printf("  eps_z = %.10f (closed form 0.003 + 150/66000 = %.10f), eps_x = %.10f\n", ez,
                        0.003 + 150. / 66000., ex);
            checker.check("  eps_z of Kiran's table 0.0052727", std::abs(ez - (0.003 + 150. / 66000.)), 1e-15);
            checker.check("  eps_x of Kiran's table -0.0020363636", std::abs(ex - (-0.0009 - 0.5 * 150. / 66000.)), 1e-15);
          }
        const Result r    = plastix_map(m, z, 0, z, eps);
        const V6     want = {0, 0, sigma, 0, 0, 0};
        char         what[160];
        std::snprintf(what, sizeof what, "  H_kin %g: plastic and stress = (0, 0, 600 MPa, 0, 0, 0) (/600 MPa)", hk);
        checker.check_true(std::string(what) + " plastic", r.plastic);
        checker.check(what, max_difference(r.stress, want, sigma), 1e-13);
        // Uniaxial tangent modulus: 1 / (D^-1)_zz = E Ht / (E + Ht).
        double inv[36];
        invert6(r.tangent, inv);
        const double Et = E * Ht / (E + Ht);
        std::snprintf(what, sizeof what, "  H_kin %g: uniaxial tangent modulus 1/(D^-1)_zz vs E Ht/(E+Ht) = %.6g", hk, Et);
        checker.check(what, std::abs(1 / inv[14] - Et) / Et, 1e-12);
        // Lateral contraction under uniaxial stress increments: -(D^-1)_xz / (D^-1)_zz = (nu/E + 1/(2 Ht)) Et.
        const double nut = (nu / E + 0.5 / Ht) * Et;
        std::snprintf(what, sizeof what, "  H_kin %g: tangent lateral ratio vs (nu/E + 1/(2 Ht)) Et", hk);
        checker.check(what, std::abs(-inv[2] / inv[14] - nut) / nut, 1e-12);
        // Below yield: 200 MPa is elastic, eps_z = 0.001, eps_x = -0.0003.
        const V6     e200 = {-0.0003, -0.0003, 0.001, 0, 0, 0};
        const Result r200 = plastix_map(m, z, 0, z, e200);
        checker.check_true("  200 MPa state elastic", !r200.plastic);
        checker.check("  200 MPa stress (/200 MPa)", max_difference(r200.stress, {0, 0, 200e6, 0, 0, 0}, 200e6), 1e-13);
      }
  }

  for (const bool table : {false, true})
    {
      std::printf(table ? "(b) uniaxial closed form with a tabulated yield stress (MPa)\n" :
                          "(b) uniaxial closed form with Voce hardening (Simo's steel, MPa)\n");
      // Monotonic uniaxial stress sigma: the plastic strain solves sigma = sigma_y(eps_p) (bisection), the
      // strain is sigma / E + eps_p axially and -nu sigma / E - eps_p / 2 laterally; the tangent modulus is
      // E h / (E + h) with h = sigma_y'(eps_p).
      const double            E = table ? 200e3 : 206.9e3, nu = table ? 0.3 : 0.29;
      const MaterialConstants m = table ? tabulated(E, nu, 0, {{{0, 250}, {0.001, 300}, {0.003, 420}, {0.01, 450}}}) :
                                          material(E, nu, 450, 129.24, 0, 715, 16.93);
      const V6                z = {0, 0, 0, 0, 0, 0};
      for (const double sigma : table ? std::vector<double>{280., 350., 440.} : std::vector<double>{500., 650., 714.})
        {
          double lo = 0, hi = 10;
          for (int i = 0; i < 200; ++i)
            {
              const double mid = 0.5 * (lo + hi);
              (kappa_of(m, mid) < sigma ? lo : hi) = mid;
            }
          const double p   = 0.5 * (lo + hi);
          const V6     eps = {-nu * sigma / E - p / 2, -nu * sigma / E - p / 2, sigma / E + p, 0, 0, 0};
          const Result r   = plastix_map(m, z, 0, z, eps);
          char         what[160];
          std::snprintf(what, sizeof what, "  sigma %g (eps_p %.4g): plastic, stress = (0, 0, sigma) (/sigma)", sigma, p);
          checker.check_true(std::string(what) + " plastic", r.plastic);
          checker.check(what, max_difference(r.stress, {0, 0, sigma, 0, 0, 0}, sigma), 1e-12);
          double inv[36];
          invert6(r.tangent, inv);
          const double h  = kappa_slope(m, p);
          const double Et = E * h / (E + h);
          std::snprintf(what, sizeof what, "  sigma %g: uniaxial tangent modulus vs E h/(E+h) = %.6g", sigma, Et);
          checker.check(what, std::abs(1 / inv[14] - Et) / Et, 1e-9);
        }
    }

  std::printf("(c) consistent tangent vs central finite differences of the return map (10 random states each)\n");
  std::printf("(d) symmetry of the tangent\n");
  for (const auto &c : cases)
    {
      double fd = 0, sym = 0, fd_elastic = 0;
      for (int t = 0; t < 10; ++t)
        {
          const State  st = random_plastic_state(c.m, rng);
          const Result r  = plastix_map(c.m, st.ep, st.alpha, st.beta, st.eps);
          fd              = std::max(fd, tangent_fd_error(c.m, st, r.tangent));
          sym             = std::max(sym, asymmetry(r.tangent));
          // Elastic: strain well inside the yield surface around the history.
          State se = st;
          for (int k = 0; k < 6; ++k)
            se.eps[k] = st.ep[k] + st.beta[k] / (2 * c.m.mu) + 0.01 * (st.eps[k] - st.ep[k]);
          const Result re = plastix_map(c.m, se.ep, se.alpha, se.beta, se.eps);
          if (!re.plastic)
            fd_elastic = std::max(fd_elastic, tangent_fd_error(c.m, se, re.tangent));
          else
            fd_elastic = 1;
        }
      std::printf(" %s\n", c.name);
      checker.check("  plastic: max |D - FD| / max |D|", fd, 1e-6);
      checker.check("  elastic: max |D - FD| / max |D|", fd_elastic, 1e-6);
      checker.check("  max |D_ij - D_ji| / max |D|", sym, 1e-14);
    }
  {
    // A tangent that ignored the algorithmic term (the continuum elastoplastic
    // tangent) would differ from the finite difference by O(dgamma): make
    // sure the test sees that on a strongly plastic state.
    const MaterialConstants m  = cases[0].m;
    const V6                z  = {0, 0, 0, 0, 0, 0};
    State                   st{z, z, {0.001, -0.004, 0.003, 0.002, -0.001, 0.0015}, 0};
    const Result            r  = plastix_map(m, st.ep, st.alpha, st.beta, st.eps);
    double         continuum[36];
    const double   G  = m.mu, K = m.lambda + 2 * G / 3, Ht = m.isotropic_hardening;
    V6             s  = dev(elastic_stress(m, st.eps));
    const double   ns = norm(s);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j)
        {
          const double idev = (i == j ? (i < 3 ? 1. : 0.5) : 0.) - (i < 3 && j < 3 ? 1. / 3 : 0.);
          continuum[6 * i + j] = (i < 3 && j < 3 ? K : 0.) + 2 * G * idev -
                                 6 * G * G / (3 * G + Ht) * s[i] / ns * s[j] / ns;
        }
    const double e_cont = tangent_fd_error(m, st, continuum);
    const double e_alg  = tangent_fd_error(m, st, r.tangent);
    std::printf(" sensitivity: continuum tangent misses the FD by %.3e, plastix's by %.3e\n", e_cont, e_alg);
    checker.check_true("  the finite-difference check detects the continuum tangent (> 1e-3)", e_cont > 1e-3);
  }

  std::printf(checker.failures == 0 ? "all checks passed\n" : "%d checker.check(s) FAILED\n", checker.failures);
  return checker.failures == 0 ? 0 : 1;
}
