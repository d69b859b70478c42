// J2 (von Mises) plasticity with isotropic (linear, Voce or tabulated) and
// linear kinematic hardening at one Gauss point: the backward-Euler radial
// return, its consistent tangent,
// and the laws of the tangent operator and the internal force
// (elastic_law.h says what a law is). Backend-internal (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_MATERIAL_J2_PLASTICITY_H
#define PLASTIX_SOURCE_BACKEND_MATERIAL_J2_PLASTICITY_H

#include <plastix/backend/material_constants.h>

#include "../kernels/q1_kernels.h"
#include "elastic_law.h"

#include <cstdint>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /** Fields of the history per Gauss point: plastic strain (6), alpha (1), back stress (6). */
      constexpr int history_fields = 13;
      /** Fields of the tangent per Gauss point: a, b, n (6). */
      constexpr int tangent_fields = 8;
      /** Fields of the general tangent per Gauss point: the 6x6 matrix on tensor components, row-major. */
      constexpr int general_tangent_fields = 36;
      /** Fields of the stress per Gauss point. */
      constexpr int stress_fields = 6;


      /** Double contraction of symmetric tensors in the 6-entry storage. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION Number
      contract_symmetric(const Number a[6], const Number b[6])
      {
        return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + Number(2) * (a[3] * b[3] + a[4] * b[4] + a[5] * b[5]);
      }

      /** Result of the return map at one point. */
      struct ReturnMapResult
      {
        double stress[6];
        double plastic_strain[6];
        double alpha;
        double back_stress[6];
        /** Tangent: D = K I(x)I + a I_dev + b n(x)n. */
        double a, b, n[6];
        bool   plastic;
        double dgamma;
      };

      /**
       * The von Mises yield stress at the accumulated plastic strain alpha,
       * sigma_0 + H alpha + (sigma_inf - sigma_0) (1 - exp(-delta alpha)) or
       * the table's (MaterialConstants::hardening_points), and its slope
       * d sigma_y / d alpha (from the right at the table's points, 0 past the
       * last) in @p slope.
       */
      KOKKOS_INLINE_FUNCTION double
      j2_yield_stress(const MaterialConstants &m, const double alpha, double &slope)
      {
        if (m.hardening_points > 0)
          {
            for (int k = 1; k < m.hardening_points; ++k)
              if (alpha < m.hardening_alpha[k])
                {
                  slope = (m.hardening_stress[k] - m.hardening_stress[k - 1]) /
                          (m.hardening_alpha[k] - m.hardening_alpha[k - 1]);
                  return m.hardening_stress[k - 1] + slope * (alpha - m.hardening_alpha[k - 1]);
                }
            slope = 0.;
            return m.hardening_stress[m.hardening_points - 1];
          }
        slope          = m.isotropic_hardening;
        double sigma_y = m.yield_stress + m.isotropic_hardening * alpha;
        if (m.voce_saturation > 0)
          {
            const double decay = exponential(-m.voce_rate * alpha);
            sigma_y += m.voce_saturation * (1. - decay);
            slope += m.voce_saturation * m.voce_rate * decay;
          }
        return sigma_y;
      }

      /**
       * Backward-Euler radial return of J2 plasticity with mixed hardening.
       * The multiplier solves g(dgamma) = q_tr - (3 G + H_kin) dgamma -
       * sigma_y(alpha_n + dgamma) = 0: in closed form for linear hardening,
       * otherwise (Voce, a table) by Newton's method safeguarded by
       * bisection. g falls strictly (sigma_y does not fall), so its root
       * lies in [0, f / (3 G + H_kin)]; with Voce g is convex and the Newton
       * iterates from 0 rise monotonically to it, and on a table's linear
       * pieces Newton is exact once in the root's piece.
       */
      KOKKOS_INLINE_FUNCTION void
      j2_return_map(const MaterialConstants &m,
                    const double             eps[6],
                    const double             plastic_strain_n[6],
                    const double             alpha_n,
                    const double             back_stress_n[6],
                    ReturnMapResult         &r)
      {
        const double G  = m.mu;
        const double K  = m.lambda + 2. / 3. * m.mu;
        const double tr = eps[0] + eps[1] + eps[2];
        double       eta[6];
        for (int k = 0; k < 6; ++k)
          {
            const double dev = eps[k] - plastic_strain_n[k] - (k < 3 ? tr / 3. : 0.);
            eta[k]           = 2. * G * dev - back_stress_n[k];
          }
        const double norm_eta = square_root(contract_symmetric(eta, eta));
        const double q_tr     = 1.2247448713915890491 * norm_eta; // sqrt(3/2)
        double       slope    = 0.;
        const double f        = q_tr - j2_yield_stress(m, alpha_n, slope);
        r.plastic             = m.yield_stress > 0 && f > 0;
        if (!r.plastic)
          {
            for (int k = 0; k < 6; ++k)
              {
                r.plastic_strain[k] = plastic_strain_n[k];
                r.back_stress[k]    = back_stress_n[k];
                r.stress[k]         = eta[k] + back_stress_n[k] + (k < 3 ? K * tr : 0.);
                r.n[k]              = 0;
              }
            r.alpha  = alpha_n;
            r.a      = 2. * G;
            r.b      = 0;
            r.dgamma = 0;
            return;
          }
        double dgamma = f / (3. * G + m.isotropic_hardening + m.kinematic_hardening);
        if (m.voce_saturation > 0 || m.hardening_points > 0)
          {
            const double stiffness = 3. * G + m.kinematic_hardening;
            double       low = 0., high = f / stiffness;
            dgamma = 0.;
            for (int iteration = 0; iteration < 100; ++iteration)
              {
                const double g = q_tr - stiffness * dgamma - j2_yield_stress(m, alpha_n + dgamma, slope);
                if (g > 0.)
                  low = dgamma;
                else
                  high = dgamma;
                if ((g < 0. ? -g : g) <= 1e-15 * q_tr || high - low <= 1e-16 * high)
                  break;
                // A slope of 0 (past a table's last point) puts the step on the bound, which is the root.
                double next = dgamma + g / (stiffness + slope);
                if (!(next > low && next <= high))
                  next = 0.5 * (low + high);
                dgamma = next;
              }
          }
        // The hardening slope at the end of the step enters the consistent tangent.
        (void)j2_yield_stress(m, alpha_n + dgamma, slope);
        const double H_total = slope + m.kinematic_hardening;
        const double s32     = 1.2247448713915890491;  // sqrt(3/2)
        const double s23     = 0.81649658092772603273; // sqrt(2/3)
        for (int k = 0; k < 6; ++k)
          {
            const double n      = eta[k] / norm_eta;
            const double s_tr   = eta[k] + back_stress_n[k];
            r.n[k]              = n;
            r.plastic_strain[k] = plastic_strain_n[k] + s32 * dgamma * n;
            r.back_stress[k]    = back_stress_n[k] + s23 * m.kinematic_hardening * dgamma * n;
            r.stress[k]         = s_tr - 2. * G * s32 * dgamma * n + (k < 3 ? K * tr : 0.);
          }
        r.alpha  = alpha_n + dgamma;
        r.a      = 2. * G * (1. - 3. * G * dgamma / q_tr);
        r.b      = 6. * G * G * (dgamma / q_tr - 1. / (3. * G + H_total));
        r.dgamma = dgamma;
      }

      /** Tangent stress increment: K tr(e) I + a dev(e) + b (n:e) n. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      tangent_stress(const Number K,
                     const Number a,
                     const Number b,
                     const Number n[6],
                     const Number eps[6],
                     Number       sig[6])
      {
        const Number tr   = eps[0] + eps[1] + eps[2];
        const Number ndot = contract_symmetric(n, eps);
        for (int k = 0; k < 6; ++k)
          sig[k] = a * (eps[k] - (k < 3 ? tr / Number(3) : Number(0))) + b * ndot * n[k] +
                   (k < 3 ? K * tr : Number(0));
      }

      /**
       * The consistent tangent as a material law of the quadrature operator:
       * elastic in cells without plastic points (no per-point data read),
       * otherwise the stored a, b, n (J2) or the stored 6x6 matrix on tensor
       * components (pressure-dependent criteria).
       */
      template <typename Number = double>
      struct TangentLaw
      {
        using value_type = Number;

        const MaterialConstants *materials     = nullptr;
        const std::uint16_t     *cell_material = nullptr;
        const std::uint8_t      *cell_plastic  = nullptr;
        /** The tangent fields in the precision of the application (GaussPointState::Impl::tangent_law()). */
        Strided<const Number> tangent;
        /** Stiffness factors (MeshData::cell_factors), or null. */
        const float *cell_factors = nullptr;

        KOKKOS_INLINE_FUNCTION void
        stress(const Index64 cell, const int q, const Number eps[6], Number sig[6]) const
        {
          unscaled_stress(cell, q, eps, sig);
          scale_by_cell_factor(cell_factors, cell, sig, 6);
        }

        /** The tangent stress of the material point, without the cell's stiffness factor. */
        KOKKOS_INLINE_FUNCTION void
        unscaled_stress(const Index64 cell, const int q, const Number eps[6], Number sig[6]) const
        {
          const MaterialConstants &m = materials[cell_material[cell]];
          const Number    K = static_cast<Number>(m.lambda + 2. / 3. * m.mu);
          if (!cell_plastic[cell])
            {
              const Number zero[6] = {0, 0, 0, 0, 0, 0};
              tangent_stress(K, static_cast<Number>(2. * m.mu), Number(0), zero, eps, sig);
              return;
            }
          if (m.criterion != YieldCriterion::von_mises)
            {
              for (int i = 0; i < 6; ++i)
                {
                  Number s = 0;
                  for (int j = 0; j < 6; ++j)
                    s += static_cast<Number>(tangent(cell, (6 * i + j) * 8 + q)) * eps[j];
                  sig[i] = s;
                }
              return;
            }
          Number n[6];
          for (int k = 0; k < 6; ++k)
            n[k] = static_cast<Number>(tangent(cell, (2 + k) * 8 + q));
          tangent_stress(K, static_cast<Number>(tangent(cell, q)), static_cast<Number>(tangent(cell, 8 + q)), n, eps,
                         sig);
        }
      };

      /** The stored trial stress, whatever the strain: B^T sigma gives the internal force. */
      struct StoredStressLaw
      {
        using value_type = double;

        Strided<const double> stress_data;
        /** Stiffness factors (MeshData::cell_factors), or null. */
        const float *cell_factors = nullptr;

        KOKKOS_INLINE_FUNCTION void
        stress(const Index64 cell, const int q, const double *, double sig[6]) const
        {
          for (int k = 0; k < 6; ++k)
            sig[k] = stress_data(cell, k * 8 + q);
          scale_by_cell_factor(cell_factors, cell, sig, 6);
        }
      };
    } // namespace internal
  } // namespace backend
} // namespace plastix

#endif
