// Pressure-dependent plasticity at one Gauss point: Mohr-Coulomb and
// Drucker-Prager with linear cohesion hardening and an initial (in-situ)
// stress, returned in principal-stress space (de Souza Neto, Peric & Owen,
// Computational Methods for Plasticity, boxes 8.4-8.8; as in N. R. Vilas
// Boas, "A CUDA accelerated numerical integration of an elastoplastic
// problem with the Finite Element Method", MSc thesis, UNICAMP, 2020,
// sec. 2.7), with the consistent tangent of the isotropic return assembled
// from its principal-space Jacobian.
// Stresses are positive in tension. Backend-internal (Kokkos).
//
// The return works on the trial stress sigma_tr = sigma_0 + C (eps - eps_p_n)
// with principal values q_1 >= q_2 >= q_3 and eigenvectors v_i. The returned
// stress has the same eigenvectors (the return is isotropic) and principal
// values sigma_i(q); with g_ij = d sigma_i / d q_j the consistent tangent is
//   D de = sum_ij (g C_p)_ij (v_j.de.v_j) v_i(x)v_i
//        + sum_{i<j} 2G r_ij (v_i.de.v_j) (v_i(x)v_j + v_j(x)v_i),
//   r_ij = (sigma_i - sigma_j) / (q_i - q_j)   (its limit
//          (g_ii - g_ij - g_ji + g_jj) / 2 when q_i = q_j),
// with C_p = lambda 1(x)1 + 2G I the principal elasticity.
#ifndef PLASTIX_SOURCE_BACKEND_MATERIAL_PRESSURE_DEPENDENT_H
#define PLASTIX_SOURCE_BACKEND_MATERIAL_PRESSURE_DEPENDENT_H

#include <plastix/backend/material_constants.h>

#include "../kokkos_common.h"

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      using backend::ReturnRegion;

      KOKKOS_INLINE_FUNCTION double
      magnitude(const double x)
      {
        return x < 0 ? -x : x;
      }

      /**
       * Eigenvalues @p value (descending) and unit eigenvectors of the
       * symmetric tensor @p s (storage xx, yy, zz, yz, xz, xy) by cyclic
       * Jacobi rotations; eigenvector i is (vector[0][i], vector[1][i],
       * vector[2][i]). Accurate to round-off also for repeated eigenvalues.
       */
      KOKKOS_INLINE_FUNCTION void
      symmetric_eigensystem(const double s[6], double value[3], double vector[3][3])
      {
        double a[3][3] = {{s[0], s[5], s[4]}, {s[5], s[1], s[3]}, {s[4], s[3], s[2]}};
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            vector[i][j] = i == j ? 1. : 0.;
        double scale = 0;
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            scale += a[i][j] * a[i][j];
        for (int sweep = 0; sweep < 20; ++sweep)
          {
            const double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
            if (off <= 1e-36 * scale || off == 0.)
              break;
            for (int p = 0; p < 2; ++p)
              for (int r = p + 1; r < 3; ++r)
                {
                  if (a[p][r] == 0.)
                    continue;
                  const double theta = (a[r][r] - a[p][p]) / (2. * a[p][r]);
                  const double t     = (theta >= 0 ? 1. : -1.) / (magnitude(theta) + square_root(theta * theta + 1.));
                  const double c     = 1. / square_root(t * t + 1.);
                  const double sn    = t * c;
                  // A <- J^T A J with the rotation J in the (p, r) plane.
                  for (int k = 0; k < 3; ++k)
                    {
                      const double akp = a[k][p], akr = a[k][r];
                      a[k][p]          = c * akp - sn * akr;
                      a[k][r]          = sn * akp + c * akr;
                    }
                  for (int k = 0; k < 3; ++k)
                    {
                      const double apk = a[p][k], ark = a[r][k];
                      a[p][k]          = c * apk - sn * ark;
                      a[r][k]          = sn * apk + c * ark;
                    }
                  for (int k = 0; k < 3; ++k)
                    {
                      const double vkp = vector[k][p], vkr = vector[k][r];
                      vector[k][p]     = c * vkp - sn * vkr;
                      vector[k][r]     = sn * vkp + c * vkr;
                    }
                }
          }
        for (int i = 0; i < 3; ++i)
          value[i] = a[i][i];
        // Sort descending (three elements), eigenvectors alike.
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2 - i; ++j)
            if (value[j] < value[j + 1])
              {
                const double t = value[j];
                value[j]       = value[j + 1];
                value[j + 1]   = t;
                for (int k = 0; k < 3; ++k)
                  {
                    const double w   = vector[k][j];
                    vector[k][j]     = vector[k][j + 1];
                    vector[k][j + 1] = w;
                  }
              }
      }

      /** Solve the 2x2 system [[a, b], [b, a]] x = r (a != |b| for the materials allowed). */
      KOKKOS_INLINE_FUNCTION void
      solve_symmetric_2x2(const double a, const double b, const double r0, const double r1, double &x0, double &x1)
      {
        const double det = a * a - b * b;
        x0               = (a * r0 - b * r1) / det;
        x1               = (a * r1 - b * r0) / det;
      }

      /** Principal-space result of a pressure-dependent return. */
      struct PrincipalReturn
      {
        /** Returned principal stresses (in the order of the trial ones). */
        double       sigma[3];
        /** g_ij = d sigma_i / d q_j. */
        double       jacobian[3][3];
        /** Increment of the accumulated plastic strain (the hardening variable). */
        double       d_alpha;
        ReturnRegion region;

        /** No plastic flow: sigma = q, the identity Jacobian. */
        KOKKOS_INLINE_FUNCTION void
        set_elastic(const double q[3])
        {
          for (int i = 0; i < 3; ++i)
            {
              sigma[i] = q[i];
              for (int j = 0; j < 3; ++j)
                jacobian[i][j] = i == j ? 1. : 0.;
            }
          d_alpha = 0;
          region  = ReturnRegion::elastic;
        }

        /**
         * Return to the apex of a cone (Mohr-Coulomb or Drucker-Prager) of
         * bulk modulus @p K: the hydrostatic stress p = @p apex_ratio c with
         * c = c_n + @p H d_alpha, d_alpha = @p hardening_ratio times the
         * plastic volume change d_eps_v = (p_tr - p) / K.
         */
        KOKKOS_INLINE_FUNCTION void
        set_apex(const double q[3],
                 const double K,
                 const double H,
                 const double c_n,
                 const double apex_ratio,
                 const double hardening_ratio)
        {
          const double p_tr   = (q[0] + q[1] + q[2]) / 3.;
          const double stiff  = K + H * hardening_ratio * apex_ratio;
          const double d_epsv = (p_tr - apex_ratio * c_n) / stiff;
          const double p      = p_tr - K * d_epsv;
          const double dp     = (1. - K / stiff) / 3.;
          for (int i = 0; i < 3; ++i)
            {
              sigma[i] = p;
              for (int j = 0; j < 3; ++j)
                jacobian[i][j] = dp;
            }
          d_alpha = hardening_ratio * d_epsv;
          region  = ReturnRegion::apex;
        }
      };

      /**
       * Mohr-Coulomb return of the trial principal stresses q (q_0 >= q_1 >=
       * q_2) with the cohesion @p c_n at the start of the step:
       * Phi = (s_1 - s_3) + (s_1 + s_3) sin phi - 2 c cos phi, flow potential
       * with psi, c = c_n + H d_alpha, d_alpha = 2 cos phi (d gamma_a + d
       * gamma_b) on the planes and edges and cos phi / sin psi times the
       * plastic volume change at the apex (no hardening at the apex if psi = 0).
       */
      KOKKOS_INLINE_FUNCTION void
      mohr_coulomb_return(const MaterialConstants &m, const double c_n, const double q[3], PrincipalReturn &r)
      {
        const double G = m.mu, K = m.lambda + 2. / 3. * m.mu, H = m.cohesion_hardening;
        const double sf = m.sin_friction, cf = m.cos_friction, sp = m.sin_dilation;
        const double scale = magnitude(q[0]) + magnitude(q[2]) + 2. * c_n * cf;
        r.set_elastic(q);

        const double phi_main = (q[0] - q[2]) + (q[0] + q[2]) * sf - 2. * c_n * cf;
        if (phi_main <= 1e-14 * scale)
          return; // elastic
        // Stress change per unit multiplier of the flow vectors of the
        // planes (1, 3) [main], (1, 2) [right edge partner] and (2, 3) [left
        // edge partner]: C N with N = (1 + sp) e_max + (-1 + sp) e_min.
        const double up   = 2. * G * (1. + sp / 3.) + 2. * K * sp;   // -(C N)_max
        const double mid  = (4. * G / 3. - 2. * K) * sp;             // -(C N)_other
        const double down = 2. * G * (1. - sp / 3.) - 2. * K * sp;   // -(C N)_min
        const double h    = 4. * H * cf * cf;
        const double a    = 4. * G * (1. + sf * sp / 3.) + 4. * K * sf * sp;
        // Gradient of a yield plane (max, min) over q: (1 + sf) e_max + (-1 + sf) e_min.
        const double n_main[3] = {1. + sf, 0., -1. + sf};
        const double r_main[3] = {up, -mid, -down}; // C N_main

        // Main plane.
        {
          const double dg = phi_main / (a + h);
          double       s[3];
          for (int i = 0; i < 3; ++i)
            s[i] = q[i] - dg * r_main[i];
          const double tol = 1e-12 * scale;
          if (s[0] + tol >= s[1] && s[1] + tol >= s[2])
            {
              for (int i = 0; i < 3; ++i)
                {
                  r.sigma[i] = s[i];
                  for (int j = 0; j < 3; ++j)
                    r.jacobian[i][j] -= r_main[i] * n_main[j] / (a + h);
                }
              r.d_alpha = 2. * cf * dg;
              r.region  = ReturnRegion::smooth;
              return;
            }
        }

        // An edge: the right one (s_2 = s_3, partner plane (1, 2)) or the
        // left one (s_1 = s_2, partner plane (2, 3)).
        const bool right = (1. - sp) * q[0] - 2. * q[1] + (1. + sp) * q[2] > 0;
        double     n_b[3], r_b[3], b;
        if (right)
          {
            n_b[0] = 1. + sf, n_b[1] = -1. + sf, n_b[2] = 0.;
            r_b[0] = up, r_b[1] = -down, r_b[2] = -mid;
            b      = 2. * G * (1. + sf + sp - sf * sp / 3.) + 4. * K * sf * sp;
          }
        else
          {
            n_b[0] = 0., n_b[1] = 1. + sf, n_b[2] = -1. + sf;
            r_b[0] = -mid, r_b[1] = up, r_b[2] = -down;
            b      = 2. * G * (1. - sf - sp - sf * sp / 3.) + 4. * K * sf * sp;
          }
        const double phi_b = n_b[0] * q[0] + n_b[1] * q[1] + n_b[2] * q[2] - 2. * c_n * cf;
        {
          double dga, dgb;
          solve_symmetric_2x2(a + h, b + h, phi_main, phi_b, dga, dgb);
          double s[3];
          for (int i = 0; i < 3; ++i)
            s[i] = q[i] - dga * r_main[i] - dgb * r_b[i];
          const double tol = 1e-12 * scale;
          // Tresca (phi = 0) is a prism without an apex: its edge return is
          // admissible whenever the main plane's is not.
          if ((s[0] + tol >= s[1] && s[1] + tol >= s[2]) || sf == 0.)
            {
              // d(dga, dgb)/dq = M^-1 (n_main, n_b).
              const double det = (a + h) * (a + h) - (b + h) * (b + h);
              for (int j = 0; j < 3; ++j)
                {
                  const double da = ((a + h) * n_main[j] - (b + h) * n_b[j]) / det;
                  const double db = ((a + h) * n_b[j] - (b + h) * n_main[j]) / det;
                  for (int i = 0; i < 3; ++i)
                    r.jacobian[i][j] -= r_main[i] * da + r_b[i] * db;
                }
              for (int i = 0; i < 3; ++i)
                r.sigma[i] = s[i];
              r.d_alpha = 2. * cf * (dga + dgb);
              r.region  = right ? ReturnRegion::right_edge : ReturnRegion::left_edge;
              return;
            }
        }

        // Apex (phi > 0): sigma_i = cot(phi) c, d_alpha = cos(phi) / sin(psi) d_eps_v.
        r.set_apex(q, K, H, c_n, cf / sf, sp > 0 ? cf / sp : 0.);
      }

      /**
       * Drucker-Prager return of the trial principal stresses q with the
       * cohesion @p c_n: Phi = sqrt(J2) + eta p - xi c, flow potential
       * sqrt(J2) + eta_bar p, c = c_n + H d_alpha with d_alpha = xi d gamma on
       * the cone and xi / eta_bar times the plastic volume change at the apex
       * (no hardening at the apex if eta_bar = 0).
       */
      KOKKOS_INLINE_FUNCTION void
      drucker_prager_return(const MaterialConstants &m, const double c_n, const double q[3], PrincipalReturn &r)
      {
        const double G = m.mu, K = m.lambda + 2. / 3. * m.mu, H = m.cohesion_hardening;
        const double eta = m.cone_eta, xi = m.cone_xi, eta_bar = m.cone_eta_bar;
        r.set_elastic(q);

        const double p_tr = (q[0] + q[1] + q[2]) / 3.;
        double       s[3];
        for (int i = 0; i < 3; ++i)
          s[i] = q[i] - p_tr;
        const double J   = square_root(0.5 * (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]));
        const double Phi = J + eta * p_tr - xi * c_n;
        const double scale = J + magnitude(eta * p_tr) + xi * c_n;
        if (Phi <= 1e-14 * scale)
          return; // elastic
        const double A  = 1. / (G + K * eta * eta_bar + xi * xi * H);
        const double dg = Phi * A;
        if (J - G * dg >= 0)
          {
            const double f = 1. - G * dg / J;
            for (int i = 0; i < 3; ++i)
              r.sigma[i] = p_tr - K * eta_bar * dg + f * s[i];
            for (int j = 0; j < 3; ++j)
              {
                const double ddg = A * (s[j] / (2. * J) + eta / 3.);
                for (int i = 0; i < 3; ++i)
                  {
                    const double ds = (i == j ? 1. : 0.) - 1. / 3.;
                    r.jacobian[i][j] = 1. / 3. - K * eta_bar * ddg + f * ds -
                                       G * s[i] * (ddg / J - dg * s[j] / (2. * J * J * J));
                  }
              }
            r.d_alpha = xi * dg;
            r.region  = ReturnRegion::smooth;
            return;
          }
        // Apex: p = xi / eta c, d_alpha = xi / eta_bar d_eps_v. With eta = 0
        // (the von Mises cylinder, phi = 0) the cone return above always holds.
        r.set_apex(q, K, H, c_n, xi / eta, eta_bar > 0 ? xi / eta_bar : 0.);
      }

      /** Result of a pressure-dependent return at one point. */
      struct PressureDependentResult
      {
        double       stress[6];
        double       plastic_strain[6];
        double       alpha;
        /**
         * Consistent tangent on tensor components: d stress_i = sum_j
         * tangent[i][j] d eps_j where d eps_j for j >= 3 is the tensor shear
         * component (its symmetric partner included), storage xx, yy, zz,
         * yz, xz, xy. Not symmetric for a non-associative flow.
         */
        double       tangent[6][6];
        ReturnRegion region;
      };

      /**
       * Stress update of Mohr-Coulomb or Drucker-Prager (by m.criterion) at
       * one point from the total strain @p eps, the committed plastic strain
       * and accumulated plastic strain, and the initial stress @p sigma_0
       * (all in the storage xx, yy, zz, yz, xz, xy, tensor components).
       */
      KOKKOS_INLINE_FUNCTION void
      pressure_dependent_return_map(const MaterialConstants &m,
                                    const double             eps[6],
                                    const double             plastic_strain_n[6],
                                    const double             alpha_n,
                                    const double             sigma_0[6],
                                    PressureDependentResult &out)
      {
        const double G = m.mu, lambda = m.lambda, K = m.lambda + 2. / 3. * m.mu;
        double       ee[6];
        for (int k = 0; k < 6; ++k)
          ee[k] = eps[k] - plastic_strain_n[k];
        const double tr = ee[0] + ee[1] + ee[2];
        double       trial[6];
        for (int k = 0; k < 6; ++k)
          trial[k] = sigma_0[k] + 2. * G * ee[k] + (k < 3 ? lambda * tr : 0.);

        double q[3], v[3][3];
        symmetric_eigensystem(trial, q, v);
        PrincipalReturn r;
        const double    c_n = m.cohesion + m.cohesion_hardening * alpha_n;
        if (m.criterion == YieldCriterion::drucker_prager)
          drucker_prager_return(m, c_n, q, r);
        else
          mohr_coulomb_return(m, c_n, q, r);
        out.region = r.region;
        out.alpha  = alpha_n + r.d_alpha;

        // Dyads v_i (x) v_j in the 6-entry storage.
        constexpr int row[6] = {0, 1, 2, 1, 0, 0}, col[6] = {0, 1, 2, 2, 2, 1};
        double        dyad[3][3][6];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 6; ++k)
              dyad[i][j][k] = 0.5 * (v[row[k]][i] * v[col[k]][j] + v[row[k]][j] * v[col[k]][i]);

        // Stress and plastic strain: delta eps_p = C^-1 (sigma_tr - sigma).
        double d_sigma[6];
        for (int k = 0; k < 6; ++k)
          {
            double s = 0;
            for (int i = 0; i < 3; ++i)
              s += r.sigma[i] * dyad[i][i][k];
            out.stress[k] = s;
            d_sigma[k]    = trial[k] - s;
          }
        const double d_p = (d_sigma[0] + d_sigma[1] + d_sigma[2]) / 3.;
        for (int k = 0; k < 6; ++k)
          out.plastic_strain[k] =
            plastic_strain_n[k] + (d_sigma[k] - (k < 3 ? d_p : 0.)) / (2. * G) + (k < 3 ? d_p / (3. * K) : 0.);

        // Tangent: the principal part (g C_p) and the spin part.
        double gc[3][3];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            gc[i][j] = lambda * (r.jacobian[i][0] + r.jacobian[i][1] + r.jacobian[i][2]) + 2. * G * r.jacobian[i][j];
        double       spin[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
        const double q_scale    = magnitude(q[0]) + magnitude(q[1]) + magnitude(q[2]);
        for (int i = 0; i < 3; ++i)
          for (int j = i + 1; j < 3; ++j)
            {
              const double gap = q[i] - q[j];
              const double ratio =
                gap > 1e-9 * q_scale && gap > 0 ?
                  (r.sigma[i] - r.sigma[j]) / gap :
                  0.5 * (r.jacobian[i][i] - r.jacobian[i][j] - r.jacobian[j][i] + r.jacobian[j][j]);
              spin[i][j] = 2. * G * ratio;
            }
        // Column c: response to the tensor-component increment c (with its
        // symmetric partner), whose value on v_i.de.v_j is 2 dyad[i][j][c]
        // for shear and dyad[i][j][c] for normal components.
        for (int c = 0; c < 6; ++c)
          {
            const double w = c < 3 ? 1. : 2.;
            double       proj[3][3];
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j)
                proj[i][j] = w * dyad[i][j][c];
            for (int k = 0; k < 6; ++k)
              {
                double s = 0;
                for (int i = 0; i < 3; ++i)
                  for (int j = 0; j < 3; ++j)
                    s += gc[i][j] * proj[j][j] * dyad[i][i][k];
                for (int i = 0; i < 3; ++i)
                  for (int j = i + 1; j < 3; ++j)
                    s += spin[i][j] * proj[i][j] * 2. * dyad[i][j][k];
                out.tangent[k][c] = s;
              }
          }
      }
    } // namespace internal
  } // namespace backend
} // namespace plastix

#endif
