// Elastoplasticity at finite strain in the Lagrangian logarithmic strain
// space at one Gauss point (Kokkos): the kinematics that let the
// small-strain return maps (j2_plasticity.h, pressure_dependent.h) run
// unchanged at large strains, and the first Piola-Kirchhoff stress and its
// consistent derivative.
//
// The formulation is the additive one of C. Miehe, N. Apel and M.
// Lambrecht, "Anisotropic additive plasticity in the logarithmic strain
// space: modular kinematic formulation and implementation based on
// incremental minimization principles for standard materials", CMAME 191
// (2002): with C = F^T F and the Hencky strain E = 1/2 ln C,
//   1. a small-strain law (a return map with its history) takes E for the
//      strain and gives the stress T conjugate to E and its tangent
//      D = dT/dE (the plastic strain, the back stress, alpha are the
//      small-strain history, in logarithmic strain);
//   2. the second Piola-Kirchhoff stress is S = T : 2 dE/dC and P = F S;
//   3. dP = H S + F dS with dC = H^T F + F^T H and
//      dS = 2 dE/dC : D : dE/dC : dC + T : 2 d^2E/dC^2 : dC.
// The derivatives of the isotropic tensor function E(C) come from the
// spectral decomposition C = sum c_i N_i (x) N_i (Daleckii-Krein): in the
// eigenbasis, dE_ij = f[c_i, c_j] dC_ij and (d^2E[A, B])_ij = sum_k
// f[c_i, c_k, c_j] (A_ik B_kj + B_ik A_kj) with the divided differences of
// f(c) = 1/2 ln c, which hold for repeated eigenvalues as well (the
// divided differences become derivatives there). T need not be coaxial
// with C (kinematic hardening, an initial stress).
//
// For isotropic yield functions without kinematic hardening and coaxial
// (proportional) loading the model equals the multiplicative split F =
// Fe Fp with the elastic Hencky strain (J. C. Simo, "Algorithms for static
// and dynamic multiplicative plasticity that preserve the classical return
// mapping schemes of the infinitesimal theory", CMAME 99 (1992)); unlike
// it, it takes every small-strain model as it is (kinematic hardening,
// Mohr-Coulomb with an initial stress), with the small-strain history
// layout. At small strains E -> sym Grad u and S, P -> T: the small-strain
// results are its limit. A point with det F <= 0 gets a non-finite stress.
#ifndef PLASTIX_SOURCE_BACKEND_MATERIAL_LOGARITHMIC_STRAIN_H
#define PLASTIX_SOURCE_BACKEND_MATERIAL_LOGARITHMIC_STRAIN_H

#include <plastix/backend/material_constants.h>

#include "j2_plasticity.h"
#include "pressure_dependent.h"

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /**
       * The first divided difference f[a, b] = (f(a) - f(b)) / (a - b) of
       * f(c) = 1/2 ln c for a, b > 0, f'(b) = 1 / (2 b) at a = b; a series
       * where the two are close, so that it is accurate to round-off for
       * all a, b.
       */
      KOKKOS_INLINE_FUNCTION double
      half_log_first_difference(const double a, const double b)
      {
        const double x = (a - b) / b;
        if (magnitude(x) < 1e-3)
          // log(1 + x) / x to x^4 (the next term is below 2e-16).
          return (1. + x * (-1. / 2. + x * (1. / 3. + x * (-1. / 4. + x / 5.)))) / (2. * b);
        return natural_logarithm(a / b) / (2. * (a - b));
      }

      /**
       * The second divided difference f[x, y, z] of f(c) = 1/2 ln c for
       * x >= y >= z > 0 with the first ones @p f_xy = f[x, y] and @p f_yz =
       * f[y, z] (symmetric in its arguments; f''(x) / 2 = -1 / (4 x^2) where
       * all three are equal). Where the three lie within a relative spread
       * of 1e-3 it is the Taylor series about their mean m, sum_p f^(p)(m) /
       * p! h_(p-2)(x - m, y - m, z - m) with the complete homogeneous
       * symmetric polynomials h (to p = 6: below 1e-15 relative);
       * otherwise (f[x, y] - f[y, z]) / (x - z) (at most 1e-10 relative
       * error).
       */
      KOKKOS_INLINE_FUNCTION double
      half_log_second_difference(const double x, const double y, const double z, const double f_xy, const double f_yz)
      {
        if (x - z > 1e-3 * x)
          return (f_xy - f_yz) / (x - z);
        const double mean         = (x + y + z) / 3.;
        const double deviation[3] = {x - mean, y - mean, z - mean};
        // h[k] = h_k(deviation), by h_k(x_1..x_j) = h_k(x_1..x_j-1) + x_j h_k-1(x_1..x_j).
        double h[5] = {1., 0., 0., 0., 0.};
        for (int j = 0; j < 3; ++j)
          for (int k = 1; k < 5; ++k)
            h[k] += deviation[j] * h[k - 1];
        // f^(p)(m) / p! = (-1)^(p-1) / (2 p m^p).
        double sum = 0., power = mean * mean, sign = -1.;
        for (int p = 2; p <= 6; ++p)
          {
            sum += sign / (2. * p * power) * h[p - 2];
            power *= mean;
            sign = -sign;
          }
        return sum;
      }

      /** A symmetric tensor from the 6-entry storage (xx, yy, zz, yz, xz, xy) to 3x3. */
      KOKKOS_INLINE_FUNCTION void
      symmetric_to_matrix(const double s[6], double A[3][3])
      {
        A[0][0] = s[0];
        A[1][1] = s[1];
        A[2][2] = s[2];
        A[1][2] = A[2][1] = s[3];
        A[0][2] = A[2][0] = s[4];
        A[0][1] = A[1][0] = s[5];
      }

      /** The symmetric part of a 3x3 tensor in the 6-entry storage. */
      KOKKOS_INLINE_FUNCTION void
      matrix_to_symmetric(const double A[3][3], double s[6])
      {
        s[0] = A[0][0];
        s[1] = A[1][1];
        s[2] = A[2][2];
        s[3] = 0.5 * (A[1][2] + A[2][1]);
        s[4] = 0.5 * (A[0][2] + A[2][0]);
        s[5] = 0.5 * (A[0][1] + A[1][0]);
      }

      /** Q^T A Q (@p transpose_first true: into the eigenbasis) or Q A Q^T (back). */
      KOKKOS_INLINE_FUNCTION void
      rotate(const double Q[3][3], const double A[3][3], const bool transpose_first, double R[3][3])
      {
        double W[3][3];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            {
              double s = 0;
              for (int k = 0; k < 3; ++k)
                s += (transpose_first ? Q[k][i] : Q[i][k]) * A[k][j];
              W[i][j] = s;
            }
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            {
              double s = 0;
              for (int k = 0; k < 3; ++k)
                s += W[i][k] * (transpose_first ? Q[k][j] : Q[j][k]);
              R[i][j] = s;
            }
      }

      /**
       * The spectral data of the Hencky strain E = 1/2 ln C of one
       * deformation gradient: what the stress and its derivative need
       * besides the small-strain law.
       */
      struct LogarithmicStrain
      {
        /** Eigenvalues c_i of C (descending). */
        double c[3];
        /** Eigenvectors: N_i = (Q[0][i], Q[1][i], Q[2][i]). */
        double Q[3][3];
        /** E in the 6-entry storage (tensor components). */
        double strain[6];
        /** theta_ij = f[c_i, c_j] of f = 1/2 ln (dE_ij = theta_ij dC_ij in the eigenbasis). */
        double theta[3][3];
        /** zeta_ikj = f[c_i, c_k, c_j] (symmetric in i, k, j): the second derivative of E(C). */
        double zeta[3][3][3];

        /**
         * The Hencky strain of @p F; false (and nothing else set) if
         * det F is not positive or F not finite.
         */
        KOKKOS_INLINE_FUNCTION bool
        reinit(const double F[3][3])
        {
          const double J = F[0][0] * (F[1][1] * F[2][2] - F[1][2] * F[2][1]) -
                           F[0][1] * (F[1][0] * F[2][2] - F[1][2] * F[2][0]) +
                           F[0][2] * (F[1][0] * F[2][1] - F[1][1] * F[2][0]);
          if (!(J > 0.) || !(J < 1e300))
            return false;
          double C[6];
          C[0] = F[0][0] * F[0][0] + F[1][0] * F[1][0] + F[2][0] * F[2][0];
          C[1] = F[0][1] * F[0][1] + F[1][1] * F[1][1] + F[2][1] * F[2][1];
          C[2] = F[0][2] * F[0][2] + F[1][2] * F[1][2] + F[2][2] * F[2][2];
          C[3] = F[0][1] * F[0][2] + F[1][1] * F[1][2] + F[2][1] * F[2][2];
          C[4] = F[0][0] * F[0][2] + F[1][0] * F[1][2] + F[2][0] * F[2][2];
          C[5] = F[0][0] * F[0][1] + F[1][0] * F[1][1] + F[2][0] * F[2][1];
          symmetric_eigensystem(C, c, Q);
          // C is positive definite; round-off can only spoil eigenvalues of
          // a C so ill-conditioned that F is numerically singular.
          if (!(c[2] > 0.))
            return false;
          double log_c[3];
          for (int i = 0; i < 3; ++i)
            log_c[i] = 0.5 * natural_logarithm(c[i]);
          for (int k = 0; k < 6; ++k)
            {
              constexpr int row[6] = {0, 1, 2, 1, 0, 0}, col[6] = {0, 1, 2, 2, 2, 1};
              strain[k] = log_c[0] * Q[row[k]][0] * Q[col[k]][0] + log_c[1] * Q[row[k]][1] * Q[col[k]][1] +
                          log_c[2] * Q[row[k]][2] * Q[col[k]][2];
            }
          for (int i = 0; i < 3; ++i)
            for (int j = i; j < 3; ++j)
              theta[i][j] = theta[j][i] = half_log_first_difference(c[i], c[j]);
          // c is descending: for indices a <= b <= d, c_a >= c_b >= c_d.
          for (int a = 0; a < 3; ++a)
            for (int b = a; b < 3; ++b)
              for (int d = b; d < 3; ++d)
                {
                  const double z = half_log_second_difference(c[a], c[b], c[d], theta[a][b], theta[b][d]);
                  zeta[a][b][d] = zeta[a][d][b] = zeta[b][a][d] = zeta[b][d][a] = zeta[d][a][b] = zeta[d][b][a] = z;
                }
          return true;
        }

        /** Q^T s Q: the symmetric tensor @p s (6-entry storage) in the eigenbasis. */
        KOKKOS_INLINE_FUNCTION void
        to_eigenbasis(const double s[6], double A_e[3][3]) const
        {
          double A[3][3];
          symmetric_to_matrix(s, A);
          rotate(Q, A, true, A_e);
        }

        /** S = T : 2 dE/dC for the stress @p T conjugate to E (6-entry storage both). */
        KOKKOS_INLINE_FUNCTION void
        second_piola(const double T[6], double S[6]) const
        {
          double A[3][3], B[3][3];
          symmetric_to_matrix(T, A);
          rotate(Q, A, true, B);
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
              B[i][j] *= 2. * theta[i][j];
          rotate(Q, B, false, A);
          matrix_to_symmetric(A, S);
        }

        /**
         * The derivative dS of second_piola() in the direction @p dC (6-entry
         * storage) for the stress @p T of the small-strain law and its
         * tangent @p D on tensor components (dT_k = sum_j D[k][j] dE_j, j >= 3
         * the tensor shear component with its symmetric partner).
         */
        template <typename Tangent>
        KOKKOS_INLINE_FUNCTION void
        second_piola_derivative(const double T[6], const Tangent &D, const double dC[6], double dS[6]) const
        {
          double T_e[3][3];
          to_eigenbasis(T, T_e);
          second_piola_derivative_from_eigenbasis(T_e, D, dC, dS);
        }

        /** second_piola_derivative() with T given in the eigenbasis (to_eigenbasis()). */
        template <typename Tangent>
        KOKKOS_INLINE_FUNCTION void
        second_piola_derivative_from_eigenbasis(const double    T_e[3][3],
                                                const Tangent  &D,
                                                const double    dC[6],
                                                double          dS[6]) const
        {
          double A[3][3], dC_e[3][3], dE_e[3][3];
          to_eigenbasis(dC, dC_e);
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
              dE_e[i][j] = theta[i][j] * dC_e[i][j];
          double dE[6], dT[6];
          rotate(Q, dE_e, false, A);
          matrix_to_symmetric(A, dE);
          D.apply(dE, dT);
          double dT_e[3][3];
          symmetric_to_matrix(dT, A);
          rotate(Q, A, true, dT_e);
          double dS_e[3][3];
          for (int i = 0; i < 3; ++i)
            for (int j = i; j < 3; ++j)
              {
                double s = 2. * theta[i][j] * dT_e[i][j];
                for (int k = 0; k < 3; ++k)
                  s += 2. * zeta[i][k][j] * (T_e[i][k] * dC_e[k][j] + dC_e[i][k] * T_e[k][j]);
                dS_e[i][j] = dS_e[j][i] = s;
              }
          rotate(Q, dS_e, false, A);
          matrix_to_symmetric(A, dS);
        }
      };

      /** dC = H^T F + F^T H, the increment of C = F^T F in the direction @p H (6-entry storage). */
      KOKKOS_INLINE_FUNCTION void
      cauchy_green_increment(const double F[3][3], const double H[3][3], double dC[6])
      {
        dC[0] = 2. * (H[0][0] * F[0][0] + H[1][0] * F[1][0] + H[2][0] * F[2][0]);
        dC[1] = 2. * (H[0][1] * F[0][1] + H[1][1] * F[1][1] + H[2][1] * F[2][1]);
        dC[2] = 2. * (H[0][2] * F[0][2] + H[1][2] * F[1][2] + H[2][2] * F[2][2]);
        // (H^T F + F^T H)_ij = sum_k H_ki F_kj + F_ki H_kj.
        constexpr int row[3] = {1, 0, 0}, col[3] = {2, 2, 1};
        for (int s = 0; s < 3; ++s)
          {
            const int i = row[s], j = col[s];
            dC[3 + s]   = H[0][i] * F[0][j] + H[1][i] * F[1][j] + H[2][i] * F[2][j] + F[0][i] * H[0][j] +
                        F[1][i] * H[1][j] + F[2][i] * H[2][j];
          }
      }

      /** dP = H S + F dS of P = F S (S, dS in the 6-entry storage). */
      KOKKOS_INLINE_FUNCTION void
      first_piola_increment(const double F[3][3],
                            const double H[3][3],
                            const double S[6],
                            const double dS[6],
                            double       dP[3][3])
      {
        double S3[3][3], dS3[3][3];
        symmetric_to_matrix(S, S3);
        symmetric_to_matrix(dS, dS3);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            {
              double sum = 0;
              for (int k = 0; k < 3; ++k)
                sum += H[i][k] * S3[k][j] + F[i][k] * dS3[k][j];
              dP[i][j] = sum;
            }
      }

      /** A small-strain tangent as a 6x6 matrix on tensor components (pressure-dependent returns). */
      struct MatrixTangent
      {
        double matrix[6][6];

        KOKKOS_INLINE_FUNCTION void
        apply(const double e[6], double s[6]) const
        {
          for (int k = 0; k < 6; ++k)
            {
              double sum = 0;
              for (int j = 0; j < 6; ++j)
                sum += matrix[k][j] * e[j];
              s[k] = sum;
            }
        }
      };

      /** The J2 tangent K I (x) I + a I_dev + b n (x) n. */
      struct J2Tangent
      {
        double K, a, b, n[6];

        KOKKOS_INLINE_FUNCTION void
        apply(const double e[6], double s[6]) const
        {
          tangent_stress(K, a, b, n, e, s);
        }
      };

      /**
       * The result of the finite-strain return at one point: the stresses,
       * the small-strain law's tangent and history, the kinematics.
       */
      struct LogarithmicStrainResult
      {
        /** False where det F <= 0: then the stresses are NaN and nothing else is set. */
        bool valid;
        /** First Piola-Kirchhoff stress. */
        double P[3][3];
        /** Second Piola-Kirchhoff stress (6-entry storage). */
        double S[6];
        /** The stress T conjugate to E (6-entry storage). */
        double T[6];
        /** The history after the step (history_fields: plastic strain, alpha, back or initial stress). */
        double history[history_fields];
        /** Whether the point yields. */
        bool plastic;
        /** dT/dE: J2's (used if j2) or the 6x6 matrix. */
        bool          j2;
        J2Tangent     j2_tangent;
        MatrixTangent matrix_tangent;
        LogarithmicStrain kinematics;

        /** dS for the direction @p dC of C (6-entry storage). */
        KOKKOS_INLINE_FUNCTION void
        second_piola_derivative(const double dC[6], double dS[6]) const
        {
          if (j2)
            kinematics.second_piola_derivative(T, j2_tangent, dC, dS);
          else
            kinematics.second_piola_derivative(T, matrix_tangent, dC, dS);
        }

        /** M = dS/dC by columns: dS_k = sum_c M[k][c] dC_c (6-entry storage, c >= 3 with its partner). */
        KOKKOS_INLINE_FUNCTION void
        second_piola_derivatives(double M[6][6]) const
        {
          double T_e[3][3];
          kinematics.to_eigenbasis(T, T_e);
          for (int c = 0; c < 6; ++c)
            {
              double dC[6] = {0, 0, 0, 0, 0, 0}, dS[6];
              dC[c]        = 1.;
              if (j2)
                kinematics.second_piola_derivative_from_eigenbasis(T_e, j2_tangent, dC, dS);
              else
                kinematics.second_piola_derivative_from_eigenbasis(T_e, matrix_tangent, dC, dS);
              for (int k = 0; k < 6; ++k)
                M[k][c] = dS[k];
            }
        }

        /** dP for the direction @p H at the deformation gradient @p F of the return. */
        KOKKOS_INLINE_FUNCTION void
        first_piola_derivative(const double F[3][3], const double H[3][3], double dP[3][3]) const
        {
          double dC[6], dS[6];
          cauchy_green_increment(F, H, dC);
          second_piola_derivative(dC, dS);
          first_piola_increment(F, H, S, dS, dP);
        }
      };

      /**
       * The return of the material @p m at the deformation gradient @p F
       * from the committed history @p history_n (the small-strain layout:
       * plastic strain 0-5, alpha 6, back stress (J2) or initial stress
       * (Mohr-Coulomb, Drucker-Prager) 7-12), with the small-strain return
       * of the material's criterion at the Hencky strain.
       */
      KOKKOS_INLINE_FUNCTION void
      logarithmic_strain_return(const MaterialConstants &m,
                                const double             F[3][3],
                                const double             history_n[history_fields],
                                LogarithmicStrainResult &r)
      {
        r.valid = r.kinematics.reinit(F);
        if (!r.valid)
          {
            const double nan = square_root(-1.); // a quiet NaN on host and device
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j)
                r.P[i][j] = nan;
            for (int k = 0; k < 6; ++k)
              r.S[k] = r.T[k] = nan;
            r.plastic = false;
            return;
          }
        const double *plastic_strain_n = history_n;
        const double  alpha_n          = history_n[6];
        const double *stress_like_n    = history_n + 7;
        const double *E                = r.kinematics.strain;
        r.j2                           = m.criterion == YieldCriterion::von_mises;
        if (r.j2)
          {
            ReturnMapResult j2;
            j2_return_map(m, E, plastic_strain_n, alpha_n, stress_like_n, j2);
            for (int k = 0; k < 6; ++k)
              {
                r.T[k]                     = j2.stress[k];
                r.history[k]               = j2.plastic_strain[k];
                r.history[7 + k]           = j2.back_stress[k];
                r.j2_tangent.n[k]          = j2.n[k];
              }
            r.history[6]     = j2.alpha;
            r.plastic        = j2.plastic;
            r.j2_tangent.K   = m.lambda + 2. / 3. * m.mu;
            r.j2_tangent.a   = j2.a;
            r.j2_tangent.b   = j2.b;
          }
        else
          {
            PressureDependentResult pd;
            pressure_dependent_return_map(m, E, plastic_strain_n, alpha_n, stress_like_n, pd);
            for (int k = 0; k < 6; ++k)
              {
                r.T[k]           = pd.stress[k];
                r.history[k]     = pd.plastic_strain[k];
                r.history[7 + k] = stress_like_n[k];
                for (int j = 0; j < 6; ++j)
                  r.matrix_tangent.matrix[k][j] = pd.tangent[k][j];
              }
            r.history[6] = pd.alpha;
            r.plastic    = pd.region != ReturnRegion::elastic;
          }
        r.kinematics.second_piola(r.T, r.S);
        double S3[3][3];
        symmetric_to_matrix(r.S, S3);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            r.P[i][j] = F[i][0] * S3[0][j] + F[i][1] * S3[1][j] + F[i][2] * S3[2][j];
      }
    } // namespace internal
  } // namespace backend
} // namespace plastix

#endif
