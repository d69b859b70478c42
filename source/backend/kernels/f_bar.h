// The F-bar element of finite strain at the Gauss points of a Q1 cell: the
// internal force and the consistent tangent of the modified deformation
// gradient F_bar = (J_bar / J)^(1/3) F, with J_bar the cell's volume-averaged
// J (the current over the reference volume of the cell). Backend-internal
// (Kokkos).
//
// Every point sees F_bar, whose volume change is the cell's and whose
// isochoric part is its own (de Souza Neto, Peric, Dutko and Owen, "Design
// of simple low order finite elements for large strain analysis of nearly
// incompressible solids", IJSS 33, 1996; here with the cell's mean J rather
// than the J of its centre, so that the element is the finite-strain form
// of the mean dilatation of B-bar and is variationally consistent). The
// energy sum_q W(F_bar_q) JxW_q has the gradient
//   f = sum_q B^T P_eff JxW,   P_eff = dev(tau_bar) F^-T + p_bar J F^-T,
// where tau_bar = P_bar F_bar^T is the Kirchhoff stress of the law at F_bar
// and p_bar = <tr tau_bar / (3 J_bar)> the cell average (over the reference
// volume) of its mean Cauchy stress: a point part and a cell part, as in
// B-bar, to which it reduces at small strain (F = I: P_eff = dev sigma +
// p_bar I). Its derivative along H = Grad du, with a = F^-T : H = dJ / J,
// b = dJ_bar / J_bar = <J a> / J_bar and M^T = F^-T H^T F^-T, is
//   dF_bar  = (J_bar / J)^(1/3) H + (b - a) / 3 F_bar,
//   dtau    = dP_bar F_bar^T + P_bar dF_bar^T,   dP_bar = A(F_bar) : dF_bar,
//   dP_eff  = dev(dtau) F^-T - dev(tau_bar) M^T + p_bar J (a F^-T - M^T) + dp_bar J F^-T,
//   dp_bar  = <tr dtau / (3 J_bar)> - p_bar b:
// symmetric for hyperelastic laws (the Hessian of the energy above).
//
// Each point contributes, as the B-bar kernels, 20 numbers: the fluxes
// T[3c + d] = JxW sum_i inv[d][i] L[c][i] of its own part L, T[9] = JxW
// times its contribution to the cell scalar (p_bar, or dp_bar), the fluxes
// T[10..18] of K = J F^-T, and T[19] = JxW; the cell's result is
// sum_q (T_q[0..8] + (sum T[9] / sum T[19]) T_q[10..18]) integrated against
// the shape gradients. The cell averages that the point part needs (J_bar;
// for the tangent also b and p_bar) come from a volume pass over the cell's
// points before.
#ifndef PLASTIX_SOURCE_BACKEND_KERNELS_F_BAR_H
#define PLASTIX_SOURCE_BACKEND_KERNELS_F_BAR_H

#include "../kokkos_common.h"

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /** J = det F and F^-T = cof F / J. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION Number
      determinant_and_inverse_transpose(const Number F[3][3], Number F_inv_T[3][3])
      {
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            {
              const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
              F_inv_T[i][j]  = F[i1][j1] * F[i2][j2] - F[i1][j2] * F[i2][j1];
            }
        const Number J = F[0][0] * F_inv_T[0][0] + F[0][1] * F_inv_T[0][1] + F[0][2] * F_inv_T[0][2];
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            F_inv_T[i][j] /= J;
        return J;
      }

      /** det F. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION Number
      determinant(const Number F[3][3])
      {
        return F[0][0] * (F[1][1] * F[2][2] - F[1][2] * F[2][1]) - F[0][1] * (F[1][0] * F[2][2] - F[1][2] * F[2][0]) +
               F[0][2] * (F[1][0] * F[2][1] - F[1][1] * F[2][0]);
      }

      /**
       * The F-bar factor (J_bar / J)^(1/3) of a point with det F = @p J in a
       * cell of mean @p J_bar; not finite unless both are positive (an
       * inverted point gives a non-finite stress, as in the full element).
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION Number
      f_bar_factor(const Number J_bar, const Number J)
      {
        if (!(J > Number(0)) || !(J_bar > Number(0)))
          return static_cast<Number>(natural_logarithm(-1.)); // not a number
        return static_cast<Number>(cube_root(static_cast<double>(J_bar / J)));
      }

      /** The flux T[3c + d] = JxW sum_i inv[d][i] S[c][i] of the tensor @p S at a point. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      point_flux(const Number inv[3][3], const Number JxW, const Number S[3][3], Number *T)
      {
        PLASTIX_UNROLL
        for (int c = 0; c < 3; ++c)
          PLASTIX_UNROLL
          for (int d = 0; d < 3; ++d)
            T[3 * c + d] = JxW * (inv[d][0] * S[c][0] + inv[d][1] * S[c][1] + inv[d][2] * S[c][2]);
      }

      /** C = A B^T. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      product_transpose(const Number A[3][3], const Number B[3][3], Number C[3][3])
      {
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            C[i][j] = A[i][0] * B[j][0] + A[i][1] * B[j][1] + A[i][2] * B[j][2];
      }

      /** Remove the mean of the diagonal of @p A (returns tr A / 3). */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION Number
      remove_mean(Number A[3][3])
      {
        const Number mean = (A[0][0] + A[1][1] + A[2][2]) / Number(3);
        A[0][0] -= mean;
        A[1][1] -= mean;
        A[2][2] -= mean;
        return mean;
      }

      /**
       * Entries per cell of the F-bar data at the linearisation point that
       * the tangent's product reads instead of its volume pass
       * (HyperelasticTangentLaw::f_bar_cell_data): 0 the reference volume
       * V = sum_q JxW, 1 p_bar, 2 + 3 a + c the cell's volume gradient
       * g = sum_q B^T (J F^-T) JxW (node a, component c), so that
       * g . du = sum_q JxW J a = V b J_bar and the cell part of the
       * product is (sum_q T[9] / V) g.
       */
      constexpr int f_bar_cell_entries = 26;

      /** Volume-pass entries per point of the F-bar internal force: JxW, JxW J. */
      constexpr int f_bar_stress_volume_entries = 2;
      /** Volume-pass entries per point of the F-bar tangent: JxW, JxW J a, JxW tr tau_bar / (3 J_bar). */
      constexpr int f_bar_tangent_volume_entries = 3;

      /** sum_q V[n q + k] / sum_q V[n q] over the 8 points of a volume pass with @p n entries per point. */
      template <int n, typename Number>
      KOKKOS_INLINE_FUNCTION Number
      volume_average(const Number *V, const int k)
      {
        Number volume = 0, integral = 0;
        for (int q = 0; q < 8; ++q)
          {
            volume += V[n * q];
            integral += V[n * q + k];
          }
        return integral / volume;
      }

      /** Volume pass of the internal force at a point with displacement gradient @p G. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      f_bar_stress_volume(const Number G[3][3], const Number JxW, Number V[f_bar_stress_volume_entries])
      {
        Number F[3][3];
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            F[i][j] = G[i][j] + (i == j ? Number(1) : Number(0));
        V[0] = JxW;
        V[1] = JxW * determinant(F);
      }

      /**
       * The 20 entries @p T of a point of the internal force (see above) for
       * the displacement gradient @p G, the inverse Jacobian @p inv, JxW and
       * the volume pass @p V of the cell's points; @p law is the stress law
       * (first_piola(cell, q, F_bar - I, P_bar)).
       */
      template <typename Law, typename Number>
      KOKKOS_INLINE_FUNCTION void
      f_bar_stress_point(const Law     &law,
                         const Index64  cell,
                         const int      q,
                         const Number   G[3][3],
                         const Number   inv[3][3],
                         const Number   JxW,
                         const Number  *V,
                         Number        *T)
      {
        const Number J_bar = volume_average<f_bar_stress_volume_entries>(V, 1);
        Number       F[3][3], F_inv_T[3][3];
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            F[i][j] = G[i][j] + (i == j ? Number(1) : Number(0));
        const Number J = determinant_and_inverse_transpose(F, F_inv_T);
        const Number s = f_bar_factor(J_bar, J);
        Number       G_bar[3][3], F_bar[3][3], P_bar[3][3], tau[3][3];
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            {
              F_bar[i][j] = s * F[i][j];
              G_bar[i][j] = F_bar[i][j] - (i == j ? Number(1) : Number(0));
            }
        law.first_piola(cell, q, G_bar, P_bar);
        product_transpose(P_bar, F_bar, tau);
        const Number p = remove_mean(tau);
        Number       L[3][3], K[3][3];
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            {
              L[i][j] = tau[i][0] * F_inv_T[0][j] + tau[i][1] * F_inv_T[1][j] + tau[i][2] * F_inv_T[2][j];
              K[i][j] = J * F_inv_T[i][j];
            }
        point_flux(inv, JxW, L, T);
        T[9] = JxW * p / J_bar;
        point_flux(inv, JxW, K, T + 10);
        T[19] = JxW;
      }

      /**
       * The linearisation point of a point for the tangent: F_bar as the
       * law stores it, F = ratio F_bar (ratio = (J / J_bar)^(1/3), stored
       * beside it), J_bar = det F_bar, J, F^-T and the law's P_bar.
       */
      /** Tag of FBarLinearisationPoint's constructor without the stress. */
      struct KinematicsOnly
      {};

      template <typename Number>
      struct FBarLinearisationPoint
      {
        Number F_bar[3][3], F_inv_T[3][3], P_bar[3][3];
        Number ratio, J_bar, J;

        template <typename Law>
        KOKKOS_INLINE_FUNCTION
        FBarLinearisationPoint(const Law &law, const Index64 cell, const int q)
        {
          ratio = law.linearisation_point(cell, q, F_bar, P_bar);
          set_kinematics();
        }

        /** The kinematics alone (F_bar, F^-T, J, J_bar; P_bar left unset). */
        template <typename Law>
        KOKKOS_INLINE_FUNCTION
        FBarLinearisationPoint(const Law &law, const Index64 cell, const int q, KinematicsOnly)
        {
          ratio = law.linearisation_deformation(cell, q, F_bar);
          set_kinematics();
        }

        KOKKOS_INLINE_FUNCTION void
        set_kinematics()
        {
          J_bar = determinant_and_inverse_transpose(F_bar, F_inv_T);
          J     = ratio * ratio * ratio * J_bar;
          PLASTIX_UNROLL
          for (int i = 0; i < 3; ++i)
            PLASTIX_UNROLL
            for (int j = 0; j < 3; ++j)
              F_inv_T[i][j] /= ratio;
        }

        /** a = F^-T : H = dJ / J. */
        KOKKOS_INLINE_FUNCTION Number
        dilatation_rate(const Number H[3][3]) const
        {
          Number a = 0;
          PLASTIX_UNROLL
          for (int i = 0; i < 3; ++i)
            PLASTIX_UNROLL
            for (int j = 0; j < 3; ++j)
              a += F_inv_T[i][j] * H[i][j];
          return a;
        }
      };

      /** Volume pass of the tangent at a point for the increment gradient @p H (linearised law @p law). */
      template <typename Law, typename Number>
      KOKKOS_INLINE_FUNCTION void
      f_bar_tangent_volume(const Law     &law,
                           const Index64  cell,
                           const int      q,
                           const Number   H[3][3],
                           const Number   JxW,
                           Number         V[f_bar_tangent_volume_entries])
      {
        if (law.f_bar_cell_data.data != nullptr)
          {
            // p_bar stored: the kinematics alone.
            const FBarLinearisationPoint<Number> x(law, cell, q, KinematicsOnly{});
            V[0] = JxW;
            V[1] = JxW * x.J * x.dilatation_rate(H);
            V[2] = JxW * static_cast<Number>(law.f_bar_cell_data(cell, 1));
            return;
          }
        const FBarLinearisationPoint<Number> x(law, cell, q);
        Number                               tau[3][3];
        product_transpose(x.P_bar, x.F_bar, tau);
        V[0] = JxW;
        V[1] = JxW * x.J * x.dilatation_rate(H);
        V[2] = JxW * (tau[0][0] + tau[1][1] + tau[2][2]) / (Number(3) * x.J_bar);
      }

      /**
       * The entries @p T of a point of the tangent product given the cell's
       * mean <J a> = b J_bar (@p mean_J_a) and @p p_bar: T[0..8] and T[9]
       * always, the cell part's flux T[10..18] and T[19] = JxW if
       * @p with_cell_flux (without it the caller adds the cell part from
       * the stored volume gradient, f_bar_cell_entries).
       */
      template <bool with_cell_flux, typename Law, typename Number>
      KOKKOS_INLINE_FUNCTION void
      f_bar_tangent_point_parts(const Law     &law,
                                const Index64  cell,
                                const int      q,
                                const Number   H[3][3],
                                const Number   inv[3][3],
                                const Number   JxW,
                                const Number   mean_J_a,
                                const Number   p_bar,
                                Number        *T)
      {
        const FBarLinearisationPoint<Number> x(law, cell, q);
        const Number b     = mean_J_a / x.J_bar;
        const Number a     = x.dilatation_rate(H);
        // dF_bar = H / ratio + (b - a) / 3 F_bar, and the law's dP_bar.
        Number dF_bar[3][3], dP_bar[3][3];
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            dF_bar[i][j] = H[i][j] / x.ratio + (b - a) / Number(3) * x.F_bar[i][j];
        law.first_piola(cell, q, dF_bar, dP_bar);
        // tau and dtau = dP_bar F_bar^T + P_bar dF_bar^T, both without their mean.
        Number tau[3][3], dtau[3][3], second[3][3];
        product_transpose(x.P_bar, x.F_bar, tau);
        product_transpose(dP_bar, x.F_bar, dtau);
        product_transpose(x.P_bar, dF_bar, second);
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            dtau[i][j] += second[i][j];
        remove_mean(tau);
        const Number dp = remove_mean(dtau);
        // M^T = F^-T H^T F^-T.
        Number HF[3][3], MT[3][3];
        PLASTIX_UNROLL
        for (int l = 0; l < 3; ++l)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            HF[l][j] = H[0][l] * x.F_inv_T[0][j] + H[1][l] * x.F_inv_T[1][j] + H[2][l] * x.F_inv_T[2][j];
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            MT[i][j] = x.F_inv_T[i][0] * HF[0][j] + x.F_inv_T[i][1] * HF[1][j] + x.F_inv_T[i][2] * HF[2][j];
        // L = dev(dtau) F^-T - dev(tau) M^T + p_bar J (a F^-T - M^T).
        Number L[3][3];
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            {
              Number l = 0;
              PLASTIX_UNROLL
              for (int k = 0; k < 3; ++k)
                l += dtau[i][k] * x.F_inv_T[k][j] - tau[i][k] * MT[k][j];
              L[i][j] = l + p_bar * x.J * (a * x.F_inv_T[i][j] - MT[i][j]);
            }
        point_flux(inv, JxW, L, T);
        T[9] = JxW * (dp / x.J_bar - p_bar * b);
        if constexpr (with_cell_flux)
          {
            // K = J F^-T.
            Number K[3][3];
            PLASTIX_UNROLL
            for (int i = 0; i < 3; ++i)
              PLASTIX_UNROLL
              for (int j = 0; j < 3; ++j)
                K[i][j] = x.J * x.F_inv_T[i][j];
            point_flux(inv, JxW, K, T + 10);
            T[19] = JxW;
          }
      }

      /**
       * The 20 entries @p T of a point of the tangent product (see above)
       * for the increment gradient @p H, the inverse Jacobian @p inv, JxW
       * and the volume pass @p V of the cell's points; @p law is the
       * linearised law (first_piola(cell, q, dF_bar, dP_bar) and
       * linearisation_point()).
       */
      template <typename Law, typename Number>
      KOKKOS_INLINE_FUNCTION void
      f_bar_tangent_point(const Law     &law,
                          const Index64  cell,
                          const int      q,
                          const Number   H[3][3],
                          const Number   inv[3][3],
                          const Number   JxW,
                          const Number  *V,
                          Number        *T)
      {
        f_bar_tangent_point_parts<true>(law, cell, q, H, inv, JxW,
                                        volume_average<f_bar_tangent_volume_entries>(V, 1),
                                        volume_average<f_bar_tangent_volume_entries>(V, 2), T);
      }
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
