// The Mohr-Coulomb and Drucker-Prager return maps of the device backend
// (plastix::backend::pressure_dependent_return_map, the host hook that runs
// the device code) against properties every correct return must have,
// computed here from the yield functions and not from plastix:
//  (a) elastic states: sigma = sigma_0 + C eps and the tangent is C;
//  (b) plastic states (random, in every region): the stress is admissible
//      and on the yield surface (all six Mohr-Coulomb planes, or the cone),
//      sigma = sigma_0 + C (eps - eps_p) with the returned plastic strain,
//      the plastic strain increment is coaxial with the trial stress and a
//      non-negative combination of the flow vectors of the active planes,
//      the hardening variable grows as the flow rule says; also at phi = 0
//      (Tresca, the Drucker-Prager von Mises cylinder: no apex);
//  (c) associative perfect plasticity: the stress is the closest admissible
//      stress to the trial one in the energy norm (sampled);
//  (d) the consistent tangent equals a central finite difference over the
//      strain in every region (main plane, both edges, apex, cone),
//      associative and not, with and without hardening, with an initial
//      stress; it is symmetric exactly when the flow is associative;
//  (e) closed forms: hydrostatic tension to the apex (c cot phi, xi c /
//      eta), the conventional triaxial compression test on the edge
//      sigma_1 = sigma_2 (a linear equation for the multiplier), the
//      first-yield radius 0.146 m of the wellbore of N. R. Vilas Boas, "A CUDA
//      accelerated numerical integration of an elastoplastic problem with the
//      Finite Element Method", MSc thesis, UNICAMP, 2020, and the
//      Drucker-Prager outer cone through the Mohr-Coulomb compression
//      meridian.
// Tangent columns as in j2_return_map: column j >= 3 is a unit engineering
// shear strain (a tensor component 1/2).
#include <plastix/backend/gauss_point_state.h>
#include <plastix/backend/material_constants.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../checker.h"
#include "symmetric_tensors.h"
#include "yield_materials.h"

using plastix::backend::MaterialConstants;
using plastix::backend::ReturnRegion;
using plastix::backend::YieldCriterion;
using plastix_test::V6;
using plastix_test::drucker_prager_outer;
using plastix_test::elastic;
using plastix_test::mohr_coulomb;
using plastix_test::ddot;
using plastix_test::elastic_stress;
using plastix_test::norm;

namespace
{
  plastix_test::Checker checker;

  const double pi = 3.14159265358979323846;

  double
  bulk(const MaterialConstants &m)
  {
    return m.lambda + 2. / 3. * m.mu;
  }

  /** C^-1 s. */
  V6
  compliance(const MaterialConstants &m, const V6 &s)
  {
    V6           e;
    const double p = (s[0] + s[1] + s[2]) / 3;
    for (int k = 0; k < 6; ++k)
      e[k] = (s[k] - (k < 3 ? p : 0.)) / (2 * m.mu) + (k < 3 ? p / (3 * bulk(m)) : 0.);
    return e;
  }

  /**
   * Principal values (descending) by classical Jacobi iteration (always
   * the largest off-diagonal entry; plastix uses cyclic sweeps), accurate to
   * round-off also for repeated values, where the closed-form trigonometric
   * solution of the cubic loses half the digits.
   */
  std::array<double, 3>
  principal_values(const V6 &s)
  {
    long double a[3][3] = {{s[0], s[5], s[4]}, {s[5], s[1], s[3]}, {s[4], s[3], s[2]}};
    for (int it = 0; it < 100; ++it)
      {
        int p = 0, q = 1;
        if (std::abs(a[0][2]) > std::abs(a[p][q]))
          p = 0, q = 2;
        if (std::abs(a[1][2]) > std::abs(a[p][q]))
          p = 1, q = 2;
        if (a[p][q] == 0)
          break;
        // Rotation angle that zeroes a[p][q]: tan(2 t) = 2 a_pq / (a_qq - a_pp).
        const long double t  = 0.5L * std::atan2(2 * a[p][q], a[q][q] - a[p][p]);
        const long double c  = std::cos(t), sn = std::sin(t);
        long double       b[3][3];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            b[i][j] = a[i][j];
        for (int k = 0; k < 3; ++k)
          {
            b[k][p] = c * a[k][p] - sn * a[k][q];
            b[k][q] = sn * a[k][p] + c * a[k][q];
          }
        for (int k = 0; k < 3; ++k)
          {
            a[p][k] = c * b[p][k] - sn * b[q][k];
            a[q][k] = sn * b[p][k] + c * b[q][k];
            if (k != p && k != q)
              a[k][p] = a[p][k], a[k][q] = a[q][k];
          }
        a[p][q] = a[q][p] = 0; // zero by construction
        a[p][p] = c * b[p][p] - sn * b[q][p];
        a[q][q] = sn * b[p][q] + c * b[q][q];
      }
    std::array<double, 3> l = {double(a[0][0]), double(a[1][1]), double(a[2][2])};
    std::sort(l.begin(), l.end(), [](double x, double y) { return x > y; });
    return l;
  }

  /** The largest of the six Mohr-Coulomb yield functions (sigma_max - sigma_min + (..) sin phi - 2 c cos phi). */
  double
  mohr_coulomb_yield(const MaterialConstants &m, const double c, const V6 &s)
  {
    const auto l = principal_values(s);
    return (l[0] - l[2]) + (l[0] + l[2]) * m.sin_friction - 2 * c * m.cos_friction;
  }

  double
  drucker_prager_yield(const MaterialConstants &m, const double c, const V6 &s)
  {
    const double p  = (s[0] + s[1] + s[2]) / 3;
    V6           d  = s;
    for (int k = 0; k < 3; ++k)
      d[k] -= p;
    return std::sqrt(0.5 * ddot(d, d)) + m.cone_eta * p - m.cone_xi * c;
  }

  double
  yield(const MaterialConstants &m, const double c, const V6 &s)
  {
    return m.criterion == YieldCriterion::drucker_prager ? drucker_prager_yield(m, c, s) : mohr_coulomb_yield(m, c, s);
  }

  plastix::backend::PressureDependentPoint
  plastix_map(const MaterialConstants &m, const V6 &ep, const double alpha, const V6 &s0, const V6 &eps)
  {
    return plastix::backend::pressure_dependent_return_map(m, ep.data(), alpha, s0.data(), eps.data());
  }

  /** A random rotation (uniform enough for tests) applied to a principal tensor diag(d). */
  V6
  rotated(const std::array<double, 3> &d, std::mt19937 &rng)
  {
    std::normal_distribution<double> n(0, 1);
    double                           qv[4] = {n(rng), n(rng), n(rng), n(rng)};
    const double nq = std::sqrt(qv[0] * qv[0] + qv[1] * qv[1] + qv[2] * qv[2] + qv[3] * qv[3]);
    for (double &x : qv)
      x /= nq;
    const double w = qv[0], x = qv[1], y = qv[2], z = qv[3];
    const double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    const int row[6] = {0, 1, 2, 1, 0, 0}, col[6] = {0, 1, 2, 2, 2, 1};
    V6        t;
    for (int k = 0; k < 6; ++k)
      {
        t[k] = 0;
        for (int i = 0; i < 3; ++i)
          t[k] += R[row[k]][i] * d[i] * R[col[k]][i];
      }
    return t;
  }

  const char *
  region_name(const ReturnRegion r)
  {
    switch (r)
      {
        case ReturnRegion::elastic:
          return "elastic";
        case ReturnRegion::smooth:
          return "smooth";
        case ReturnRegion::left_edge:
          return "left edge";
        case ReturnRegion::right_edge:
          return "right edge";
        case ReturnRegion::apex:
          return "apex";
      }
    return "?";
  }

  /** Commutator norm |a b - b a| / (|a| |b|) of symmetric tensors. */
  double
  commutator(const V6 &a, const V6 &b)
  {
    const double A[3][3] = {{a[0], a[5], a[4]}, {a[5], a[1], a[3]}, {a[4], a[3], a[2]}};
    const double B[3][3] = {{b[0], b[5], b[4]}, {b[5], b[1], b[3]}, {b[4], b[3], b[2]}};
    double       s       = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        {
          double c = 0;
          for (int k = 0; k < 3; ++k)
            c += A[i][k] * B[k][j] - B[i][k] * A[k][j];
          s += c * c;
        }
    return std::sqrt(s) / std::max(1e-300, norm(a) * norm(b));
  }

  /**
   * The flow vectors (principal, descending order) of the Mohr-Coulomb
   * planes (max, min) with dilation sine sp: (1 + sp) e_max + (-1 + sp) e_min.
   */
  std::array<double, 3>
  flow_vector(const int max, const int min, const double sp)
  {
    std::array<double, 3> n = {0, 0, 0};
    n[max]                  = 1 + sp;
    n[min]                  = -1 + sp;
    return n;
  }

  /**
   * Properties (b) of one plastic result: admissible, on the surface,
   * stress-strain relation, coaxial flow as a non-negative combination of
   * the active flow vectors, hardening increment: the relative violation
   * of each, and whether a multiplier is negative.
   */
  /** Worst relative violations of the properties (b), each on its own. */
  struct Violations
  {
    double yield = 0, stress_strain = 0, coaxial = 0, flow = 0, hardening = 0;
    bool   bad_sign = false;

    void
    merge(const Violations &v)
    {
      yield         = std::max(yield, v.yield);
      stress_strain = std::max(stress_strain, v.stress_strain);
      coaxial       = std::max(coaxial, v.coaxial);
      flow          = std::max(flow, v.flow);
      hardening     = std::max(hardening, v.hardening);
      bad_sign      = bad_sign || v.bad_sign;
    }
  };

  Violations
  plastic_properties(const MaterialConstants &m, const V6 &ep, const double alpha, const V6 &s0, const V6 &eps,
                     const plastix::backend::PressureDependentPoint &r)
  {
    Violations v;
    const double c_new   = m.cohesion + m.cohesion_hardening * r.alpha;
    V6           sig, dep;
    for (int k = 0; k < 6; ++k)
      {
        sig[k] = r.stress[k];
        dep[k] = r.plastic_strain[k] - ep[k];
      }
    const double scale = norm(sig) + m.cohesion;
    v.yield            = std::abs(yield(m, c_new, sig)) / scale; // on the surface (max = 0: admissible)
    // sigma = sigma_0 + C (eps - eps_p).
    V6 ee;
    for (int k = 0; k < 6; ++k)
      ee[k] = eps[k] - r.plastic_strain[k];
    V6 expected = elastic_stress(m, ee);
    for (int k = 0; k < 6; ++k)
      expected[k] += s0[k];
    V6 diff;
    for (int k = 0; k < 6; ++k)
      diff[k] = expected[k] - sig[k];
    v.stress_strain = norm(diff) / scale;
    // Coaxial: the plastic strain increment commutes with the stress.
    const double dep_norm = norm(dep);
    if (dep_norm > 0)
      v.coaxial = commutator(dep, sig);
    // Principal components of the increment along the stress's frame: the
    // increment's eigenvalues paired with the stress's order (coaxial, and
    // for a return the increment's order follows from the flow vectors).
    const auto l_sig = principal_values(sig);
    // Project dep on the stress eigenvectors: since they commute,
    // v_i . dep . v_i are the eigenvalues of dep in the stress order. Take
    // them from dep + t sig with a tiny t to pair the orders robustly.
    std::array<double, 3> d;
    {
      // Diagonalize sig numerically by power-free approach: use the fact that
      // for commuting tensors the eigenvalues of dep + t sig are d_i + t l_i.
      const double t    = 1e3 * dep_norm / std::max(1e-300, norm(sig));
      V6           comb = dep;
      for (int k = 0; k < 6; ++k)
        comb[k] += t * sig[k];
      const auto lc = principal_values(comb);
      for (int i = 0; i < 3; ++i)
        d[i] = lc[i] - t * l_sig[i];
    }
    const double tol = 1e-7 * std::max(dep_norm, 1e-300);
    if (m.criterion == YieldCriterion::mohr_coulomb && r.region != ReturnRegion::apex)
      {
        // Active planes: among (0,2), (0,1), (1,2) those within tolerance of zero.
        const double sf = m.sin_friction, cf = m.cos_friction;
        auto         plane = [&](int a, int b) {
          return ((l_sig[a] - l_sig[b]) + (l_sig[a] + l_sig[b]) * sf - 2 * c_new * cf) / scale;
        };
        std::vector<std::array<double, 3>> flows = {flow_vector(0, 2, m.sin_dilation)};
        if (std::abs(plane(0, 1)) < 1e-9)
          flows.push_back(flow_vector(0, 1, m.sin_dilation));
        if (std::abs(plane(1, 2)) < 1e-9)
          flows.push_back(flow_vector(1, 2, m.sin_dilation));
        // Least squares for the multipliers (one or two vectors).
        std::vector<double> g(flows.size());
        if (flows.size() == 1)
          {
            const auto  &n  = flows[0];
            const double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
            g[0]            = (n[0] * d[0] + n[1] * d[1] + n[2] * d[2]) / nn;
          }
        else
          {
            // Normal equations of the first two (the third, if any, on an
            // edge coincides with the partner by the equal principal values).
            const auto &a = flows[0], &b = flows[1];
            const double aa = a[0] * a[0] + a[1] * a[1] + a[2] * a[2], bb = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
            const double ab = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
            const double ad = a[0] * d[0] + a[1] * d[1] + a[2] * d[2], bd = b[0] * d[0] + b[1] * d[1] + b[2] * d[2];
            const double det = aa * bb - ab * ab;
            g.resize(2);
            g[0] = (bb * ad - ab * bd) / det;
            g[1] = (aa * bd - ab * ad) / det;
            flows.resize(2);
          }
        double res2 = 0, g_sum = 0;
        for (int i = 0; i < 3; ++i)
          {
            double fit = 0;
            for (unsigned int k = 0; k < g.size(); ++k)
              fit += g[k] * flows[k][i];
            res2 += (fit - d[i]) * (fit - d[i]);
          }
        for (const double gk : g)
          {
            if (gk < -tol)
              v.bad_sign = true;
            g_sum += gk;
          }
        v.flow = std::sqrt(res2) / std::max(dep_norm, 1e-300);
        // Hardening: d alpha = 2 cos phi sum d gamma.
        v.hardening = std::abs(r.alpha - alpha - 2 * cf * g_sum) / std::max(1e-300, dep_norm);
      }
    else if (m.criterion == YieldCriterion::drucker_prager && r.region == ReturnRegion::smooth)
      {
        // d eps_p = d gamma (s / (2 sqrt J2) + eta_bar / 3 I), s the returned deviator.
        const double p = (sig[0] + sig[1] + sig[2]) / 3;
        V6           s = sig;
        for (int k = 0; k < 3; ++k)
          s[k] -= p;
        const double J = std::sqrt(0.5 * ddot(s, s));
        V6           n;
        for (int k = 0; k < 6; ++k)
          n[k] = s[k] / (2 * J) + (k < 3 ? m.cone_eta_bar / 3 : 0.);
        const double dg = ddot(n, dep) / ddot(n, n);
        V6           res;
        for (int k = 0; k < 6; ++k)
          res[k] = dep[k] - dg * n[k];
        if (dg < -tol)
          v.bad_sign = true;
        v.flow      = norm(res) / std::max(dep_norm, 1e-300);
        v.hardening = std::abs(r.alpha - alpha - m.cone_xi * dg) / std::max(1e-300, dep_norm);
      }
    else
      {
        // Apex: hydrostatic stress, non-negative plastic volume change.
        const double p = (sig[0] + sig[1] + sig[2]) / 3;
        V6           s = sig;
        for (int k = 0; k < 3; ++k)
          s[k] -= p;
        v.yield = std::max(v.yield, norm(s) / scale);
        if (dep[0] + dep[1] + dep[2] < -tol)
          v.bad_sign = true;
      }
    return v;
  }

  /** A committed state and a total strain. */
  struct State
  {
    V6     ep, s0, eps;
    double alpha;
  };

  /**
   * Random trial stresses around the yield surface: principal values drawn
   * in a box scaled by the cohesion, rotated, with a random split into
   * initial stress, elastic and plastic strain.
   */
  State
  random_state(const MaterialConstants &m, std::mt19937 &rng, const double spread, const double hydro)
  {
    std::uniform_real_distribution<double> u(-1, 1);
    const double                           c = m.cohesion;
    std::array<double, 3>                  d = {hydro * c + spread * c * u(rng), hydro * c + spread * c * u(rng),
                                                hydro * c + spread * c * u(rng)};
    const V6                               trial = rotated(d, rng);
    State                                  st;
    st.alpha = m.cohesion_hardening > 0 ? 0.01 * (1 + u(rng)) : 0.;
    for (int k = 0; k < 6; ++k)
      {
        st.ep[k] = 1e-3 * u(rng);
        st.s0[k] = 0.3 * c * u(rng);
      }
    // eps = ep + C^-1 (trial - s0).
    V6 diff;
    for (int k = 0; k < 6; ++k)
      diff[k] = trial[k] - st.s0[k];
    const V6 e = compliance(m, diff);
    for (int k = 0; k < 6; ++k)
      st.eps[k] = st.ep[k] + e[k];
    return st;
  }

  /** Finite-difference check of the tangent at a state (central, step h relative to |eps|). */
  double
  tangent_error(const MaterialConstants &m, const State &st, const plastix::backend::PressureDependentPoint &r,
                bool &stable)
  {
    const double h      = 1e-7 * std::max(norm(st.eps), 1e-6);
    double       worst  = 0, scale = 0;
    stable              = true;
    double fd[36];
    for (int j = 0; j < 6; ++j)
      {
        V6 ep = st.eps, em = st.eps;
        // Engineering column: tensor component perturbed by h (normal) or h/2 (shear).
        const double step = j < 3 ? h : h / 2;
        ep[j] += step;
        em[j] -= step;
        const auto rp = plastix_map(m, st.ep, st.alpha, st.s0, ep);
        const auto rm = plastix_map(m, st.ep, st.alpha, st.s0, em);
        if (rp.region != r.region || rm.region != r.region)
          stable = false;
        for (int i = 0; i < 6; ++i)
          fd[6 * i + j] = (rp.stress[i] - rm.stress[i]) / (2 * h);
      }
    for (int k = 0; k < 36; ++k)
      {
        worst = std::max(worst, std::abs(fd[k] - r.tangent[k]));
        scale = std::max(scale, std::abs(r.tangent[k]));
      }
    scale = std::max(scale, 2 * m.mu);
    return worst / scale;
  }

  double
  asymmetry(const double t[36])
  {
    double a = 0, s = 0;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j)
        {
          a = std::max(a, std::abs(t[6 * i + j] - t[6 * j + i]));
          s = std::max(s, std::abs(t[6 * i + j]));
        }
    return a / s;
  }
} // namespace

int
main()
{
  std::mt19937 rng(2026);
  const V6     zero = {0, 0, 0, 0, 0, 0};

  struct Case
  {
    std::string       name;
    MaterialConstants m;
  };
  const std::vector<Case> cases = {
    {"MC associative, perfect (Vilas Boas: E 2000, nu 0.2, c 5, phi 20)", mohr_coulomb(2000, 0.2, 5, 20, 20)},
    {"MC non-associative psi 5, perfect", mohr_coulomb(2000, 0.2, 5, 30, 5)},
    {"MC non-associative psi 0, perfect", mohr_coulomb(2000, 0.3, 5, 30, 0)},
    {"MC associative, cohesion hardening H 300", mohr_coulomb(2000, 0.2, 5, 25, 25, 300)},
    {"MC non-associative psi 10, hardening H 100", mohr_coulomb(1e4, 0.25, 10, 35, 10, 100)},
    {"DP outer, associative, perfect", drucker_prager_outer(2000, 0.2, 5, 20, 20)},
    {"DP outer, psi 5, hardening H 200", drucker_prager_outer(2000, 0.3, 5, 30, 5, 200)},
    {"DP outer, psi 0, perfect", drucker_prager_outer(2000, 0.3, 5, 30, 0)},
    {"Tresca (MC phi 0), perfect", mohr_coulomb(2000, 0.2, 5, 0, 0)},
    {"Tresca (MC phi 0), hardening H 300", mohr_coulomb(2000, 0.3, 5, 0, 0, 300)},
    {"DP phi 0 (von Mises cylinder), hardening H 200", drucker_prager_outer(2000, 0.3, 5, 0, 0, 200)},
  };

  std::printf("(a) elastic states\n");
  for (const auto &cs : cases)
    {
      double worst = 0, worst_t = 0;
      bool   all_elastic = true;
      for (int n = 0; n < 50; ++n)
        {
          // Well inside: a small deviator around a compressive mean stress.
          State st = random_state(cs.m, rng, 0.05, -2);
          st.alpha = 0;
          const auto r = plastix_map(cs.m, st.ep, st.alpha, st.s0, st.eps);
          all_elastic  = all_elastic && r.region == ReturnRegion::elastic;
          V6 ee;
          for (int k = 0; k < 6; ++k)
            ee[k] = st.eps[k] - st.ep[k];
          V6 s = elastic_stress(cs.m, ee);
          for (int k = 0; k < 6; ++k)
            worst = std::max(worst, std::abs(s[k] + st.s0[k] - r.stress[k]) / cs.m.cohesion);
          const double l = cs.m.lambda, G = cs.m.mu;
          for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j)
              {
                const double C = i < 3 && j < 3 ? l + (i == j ? 2 * G : 0.) : (i == j ? G : 0.);
                worst_t        = std::max(worst_t, std::abs(C - r.tangent[6 * i + j]) / (2 * G));
              }
        }
      checker.check_true(cs.name + ": 50 states inside stay elastic", all_elastic);
      checker.check(cs.name + ": stress sigma_0 + C eps", worst, 1e-12);
      checker.check(cs.name + ": tangent = C", worst_t, 1e-12);
    }

  std::printf("(b, d) random plastic states in every region: flow rule, yield, tangent\n");
  for (const auto &cs : cases)
    {
      const bool mc = cs.m.criterion == YieldCriterion::mohr_coulomb;
      int        count[5] = {0, 0, 0, 0, 0}, fd_count[5] = {0, 0, 0, 0, 0};
      double     worst_fd[5] = {0, 0, 0, 0, 0}, worst_sym = 0, min_asym = 1e300;
      Violations worst;
      for (int n = 0; n < 4000; ++n)
        {
          const double hydro = std::uniform_real_distribution<double>(-6, 8)(rng);
          const State  st    = random_state(cs.m, rng, 6, hydro);
          const auto   r     = plastix_map(cs.m, st.ep, st.alpha, st.s0, st.eps);
          const int    reg   = static_cast<int>(r.region);
          ++count[reg];
          if (r.region == ReturnRegion::elastic)
            continue;
          worst.merge(plastic_properties(cs.m, st.ep, st.alpha, st.s0, st.eps, r));
          bool         stable;
          const double e = tangent_error(cs.m, st, r, stable);
          if (stable)
            {
              worst_fd[reg] = std::max(worst_fd[reg], e);
              ++fd_count[reg];
            }
          const double a = asymmetry(r.tangent);
          if (r.region == ReturnRegion::apex)
            continue; // the apex tangent is K-like: symmetric for any flow
          worst_sym = std::max(worst_sym, a);
          min_asym  = std::min(min_asym, a);
        }
      std::printf("  %s: elastic %d, smooth %d, left edge %d, right edge %d, apex %d\n", cs.name.c_str(), count[0],
                  count[1], count[2], count[3], count[4]);
      // phi = 0 (Tresca prism, von Mises cylinder) has no apex.
      const bool apex         = mc ? cs.m.sin_friction > 0 : cs.m.cone_eta > 0;
      const int  want_regions = (mc ? 5 : 3) - (apex ? 0 : 1);
      int       seen         = 0;
      for (int k = 0; k < 5; ++k)
        seen += count[k] >= 20 ? 1 : 0;
      checker.check_true(cs.name + ": every region reached at least 20 times", seen == want_regions);
      checker.check(cs.name + ": on the yield surface (relative)", worst.yield, 1e-12);
      checker.check(cs.name + ": sigma = sigma_0 + C (eps - eps_p) (relative)", worst.stress_strain, 1e-12);
      checker.check(cs.name + ": plastic strain increment coaxial with the stress (relative commutator)", worst.coaxial,
            1e-9);
      checker.check(cs.name + ": increment along the active flow vectors (relative residual)", worst.flow, 1e-8);
      checker.check(cs.name + ": hardening variable by the flow rule (relative)", worst.hardening, 1e-8);
      checker.check_true(cs.name + ": non-negative plastic multipliers", !worst.bad_sign);
      for (int k = 1; k < 5; ++k)
        if (fd_count[k] > 0)
          checker.check(cs.name + ": tangent vs finite difference, " + region_name(static_cast<ReturnRegion>(k)) + " (" +
                  std::to_string(fd_count[k]) + " states)",
                worst_fd[k], 2e-6);
      if (cs.m.sin_dilation == cs.m.sin_friction && cs.m.cone_eta_bar == cs.m.cone_eta)
        checker.check(cs.name + ": associative tangent symmetric", worst_sym, 1e-10);
      else
        checker.check_true(cs.name + ": non-associative tangent not symmetric (min asymmetry " + std::to_string(min_asym) +
                     ")",
                   min_asym > 1e-4);
    }

  std::printf("(c) associative perfect plasticity: the closest admissible stress in the energy norm\n");
  for (const int k : {0, 5, 8})
    {
      const MaterialConstants &m         = cases[k].m;
      double                   worst     = 0;
      int                      n_plastic = 0;
      for (int n = 0; n < 400; ++n)
        {
          const State st = random_state(m, rng, 6, std::uniform_real_distribution<double>(-6, 8)(rng));
          const auto  r  = plastix_map(m, st.ep, st.alpha, st.s0, st.eps);
          if (r.region == ReturnRegion::elastic)
            continue;
          ++n_plastic;
          V6 ee;
          for (int j = 0; j < 6; ++j)
            ee[j] = st.eps[j] - st.ep[j];
          V6 trial = elastic_stress(m, ee), sig;
          for (int j = 0; j < 6; ++j)
            {
              trial[j] += st.s0[j];
              sig[j] = r.stress[j];
            }
          auto energy = [&](const V6 &t) {
            V6 d;
            for (int j = 0; j < 6; ++j)
              d[j] = trial[j] - t[j];
            return ddot(d, compliance(m, d));
          };
          const double e0 = energy(sig);
          std::normal_distribution<double> g(0, 1);
          for (int s = 0; s < 200; ++s)
            {
              V6           t;
              const double size = m.cohesion * std::pow(10., -3 + 3 * std::uniform_real_distribution<double>(0, 1)(rng));
              for (int j = 0; j < 6; ++j)
                t[j] = sig[j] + size * g(rng);
              if (yield(m, m.cohesion, t) > 0)
                continue;
              worst = std::max(worst, (e0 - energy(t)) / std::max(e0, 1e-300));
            }
        }
      checker.check(cases[k].name + ": no sampled admissible stress closer than the return (" + std::to_string(n_plastic) +
              " states, relative energy excess)",
            std::max(0., worst), 1e-10);
    }

  std::printf("(e) closed forms\n");
  {
    // Hydrostatic tension beyond the apex.
    const MaterialConstants mc  = mohr_coulomb(2000, 0.2, 5, 20, 20);
    const MaterialConstants dp  = drucker_prager_outer(2000, 0.2, 5, 20, 20);
    const V6                eps = {0.02, 0.02, 0.02, 0, 0, 0};
    const auto              r1 = plastix_map(mc, zero, 0, zero, eps), r2 = plastix_map(dp, zero, 0, zero, eps);
    const double            cot = std::cos(20 * pi / 180) / std::sin(20 * pi / 180);
    double         e1 = 0, e2 = 0;
    for (int k = 0; k < 6; ++k)
      {
        e1 = std::max(e1, std::abs(r1.stress[k] - (k < 3 ? 5 * cot : 0.)));
        e2 = std::max(e2, std::abs(r2.stress[k] - (k < 3 ? 5 * dp.cone_xi / dp.cone_eta : 0.)));
      }
    checker.check_true("MC hydrostatic tension returns to the apex", r1.region == ReturnRegion::apex);
    checker.check("MC hydrostatic tension: sigma = c cot(phi) I [MPa]", e1, 1e-12);
    checker.check_true("DP hydrostatic tension returns to the apex", r2.region == ReturnRegion::apex);
    checker.check("DP hydrostatic tension: sigma = xi c / eta I [MPa]", e2, 1e-12);
    // Apex with hardening: p = cot(phi) (c + H cos(phi)/sin(psi) d eps_v), p = p_tr - K d eps_v.
    const MaterialConstants mh  = mohr_coulomb(2000, 0.2, 5, 20, 20, 300);
    const auto              r3  = plastix_map(mh, zero, 0, zero, eps);
    const double            K   = bulk(mh), ptr = 3 * K * 0.02;
    const double            al  = std::cos(20 * pi / 180) / std::sin(20 * pi / 180);
    const double            dev = (ptr - cot * 5) / (K + cot * 300 * al);
    checker.check("MC apex with cohesion hardening: p [MPa]", std::abs(r3.stress[0] - (ptr - K * dev)), 1e-10);
    checker.check("MC apex with cohesion hardening: alpha", std::abs(r3.alpha - al * dev), 1e-14);
  }
  for (const double psi : {30., 10., 0.})
    {
      // Conventional triaxial compression: eps = diag(el, el, ea), ea << 0.
      // Trial (a, a, b) with a > b returns to the edge sigma_1 = sigma_2; the
      // multiplier of each of the two planes (equal by symmetry) solves
      // (a' - b') + (a' + b') sin phi = 2 c cos phi with
      // a' = a - dg [lambda tr N + 2G (1 + sp)], b' = b - dg [lambda tr N + 2G 2 (-1 + sp)],
      // N = N_13 + N_23 = (1 + sp, 1 + sp, -2 + 2 sp).
      const MaterialConstants m  = mohr_coulomb(2000, 0.2, 5, 30, psi);
      const V6                e  = {-0.001, -0.001, -0.1, 0, 0, 0};
      const auto              r  = plastix_map(m, zero, 0, zero, e);
      const double            l = m.lambda, G = m.mu, sf = m.sin_friction, cf = m.cos_friction, sp = m.sin_dilation;
      const double            tr = e[0] + e[1] + e[2];
      const double   a = l * tr + 2 * G * e[0], b = l * tr + 2 * G * e[2];
      const double   trN = 4 * sp, ra = l * trN + 2 * G * (1 + sp), rb = l * trN + 2 * G * (-2 + 2 * sp);
      // (a - dg ra - b + dg rb) + (a - dg ra + b - dg rb) sf = 2 c cf
      const double dg = ((a - b) + (a + b) * sf - 2 * 5 * cf) / ((ra - rb) + (ra + rb) * sf);
      const double err = std::max({std::abs(r.stress[0] - (a - dg * ra)), std::abs(r.stress[1] - (a - dg * ra)),
                                   std::abs(r.stress[2] - (b - dg * rb))});
      checker.check_true("triaxial compression, psi " + std::to_string(int(psi)) + ": left edge",
                 r.region == ReturnRegion::left_edge);
      checker.check("triaxial compression, psi " + std::to_string(int(psi)) + ": stresses [MPa]", err, 1e-10);
      // The DP outer cone passes through the MC compression meridian: the
      // returned MC stress is on the DP outer cone of the same phi.
      const MaterialConstants dp = drucker_prager_outer(2000, 0.2, 5, 30, psi);
      V6                      s;
      for (int k = 0; k < 6; ++k)
        s[k] = r.stress[k];
      checker.check("triaxial compression, psi " + std::to_string(int(psi)) + ": on the DP outer cone", std::abs(drucker_prager_yield(dp, 5, s)) / 5, 1e-12);
    }
  {
    // Vilas Boas's wellbore: the elastic perturbation sigma_rr = -0.1 / r^2,
    // sigma_tt = +0.1 / r^2, sigma_zz = 0 [MPa] as an initial stress first
    // yields at r = sqrt(0.2 / (2 c cos phi)) = 0.146 m.
    const MaterialConstants m         = mohr_coulomb(2000, 0.2, 5, 20, 20);
    const double            r0        = std::sqrt(0.2 / (2 * 5 * std::cos(20 * pi / 180)));
    auto                    region_at = [&](const double r) {
      const V6 s0 = {-0.1 / (r * r), 0.1 / (r * r), 0, 0, 0, 0};
      return plastix_map(m, zero, 0, s0, zero).region;
    };
    checker.check("wellbore first-yield radius [m] vs 0.146", std::abs(r0 - 0.146), 5e-4);
    checker.check_true("wellbore: elastic at 1.001 r0, plastic at 0.999 r0",
               region_at(1.001 * r0) == ReturnRegion::elastic && region_at(0.999 * r0) != ReturnRegion::elastic);
  }
  {
    // Repeated eigenvalues: an exactly axisymmetric and an exactly
    // hydrostatic-plus-uniaxial trial, rotated; finite differences there.
    const MaterialConstants m = mohr_coulomb(2000, 0.2, 5, 30, 10, 50);
    for (const double psi_case : {0., 1.})
      {
        State st;
        st.alpha = 0;
        st.ep    = zero;
        st.s0    = zero;
        const V6 e = rotated(psi_case == 0 ? std::array<double, 3>{-0.001, -0.001, -0.02} :
                                             std::array<double, 3>{0.004, -0.003, -0.003},
                             rng);
        st.eps = e;
        const auto r = plastix_map(m, st.ep, 0, st.s0, st.eps);
        bool       stable;
        const double err = tangent_error(m, st, r, stable);
        checker.check(std::string("repeated trial eigenvalues (") + region_name(r.region) + "): tangent vs finite difference",
              err, 2e-6);
      }
  }

  if (checker.failures)
    std::printf("FAIL: %d checks failed\n", checker.failures);
  else
    std::printf("all checks passed\n");
  return checker.failures ? 1 : 0;
}
