// Finite-strain hyperelasticity at the Gauss points (total Lagrangian): the
// compressible Mooney-Rivlin law, neo-Hookean when its second modulus is 0,
// its first Piola-Kirchhoff stress and the derivative of that stress, and
// the two finite-strain laws of the quadrature cell operator: the stress of
// the current displacement (the internal force) and the consistent tangent
// at stored deformation gradients (Kokkos).
//
// The strain energy per reference volume, with I1 = tr C, I2 = (I1^2 -
// tr C^2) / 2, C = F^T F and J = det F, is
//   W = mu1 / 2 (I1 - 3) + mu2 / 2 (I2 - 3) - (mu1 + 2 mu2) ln J + lambda_J / 2 (ln J)^2,
// stress-free at F = I. Its linearisation at F = I is the small-strain law
// with the shear modulus mu1 + mu2 and the first Lame parameter
// lambda_J + 2 mu2; MaterialConstants gives those two (mu, lambda) and
// mu2 (second_shear_modulus), so that every material has the same
// small-strain limit in both kinematics. With mu2 = 0 it is the neo-Hookean
// law of Bonet and Wood (Nonlinear Continuum Mechanics for Finite Element
// Analysis, sec. 6.4.3) and of Cecka, Lew and Darve ("Application of
// assembly of finite element methods on graphics processors for real-time
// elastodynamics"):
//   P = mu F + (lambda ln J - mu) F^-T.
// A point with J <= 0 (an inverted element) gets a non-finite stress (the
// logarithm of a non-positive number), so that the residual is not finite
// and the nonlinear solver rejects the iterate.
//
// A material with StrainEnergy::isochoric_neo_hookean has instead
//   W = mu / 2 (J^-2/3 I1 - 3) + kappa / 4 (J^2 - 1 - 2 ln J), kappa = lambda + 2 mu / 3,
//   P = mu J^-2/3 (F - I1 / 3 F^-T) + kappa / 2 (J^2 - 1) F^-T,
// with the same small-strain limit (Simo and Miehe; the law of deal.II's
// step-44 and of its code gallery's Cook membrane); J^-2/3 = exp(-2/3 ln J)
// makes it non-finite for J <= 0 as well.
#ifndef PLASTIX_SOURCE_BACKEND_MATERIAL_HYPERELASTIC_LAW_H
#define PLASTIX_SOURCE_BACKEND_MATERIAL_HYPERELASTIC_LAW_H

#include <plastix/backend/material_constants.h>

#include "../kernels/q1_kernels.h"
#include "logarithmic_strain.h"

#include <cstdint>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /** The moduli of the strain energy above, in @p Number. */
      template <typename Number>
      struct HyperelasticModuli
      {
        /** The coefficient of I1. */
        Number mu1;
        /** The coefficient of I2 (0: neo-Hookean). */
        Number mu2;
        /** The coefficient of (ln J)^2. */
        Number lambda_J;

        KOKKOS_INLINE_FUNCTION explicit HyperelasticModuli(const MaterialConstants &m)
          : mu1(static_cast<Number>(m.mu - m.second_shear_modulus))
          , mu2(static_cast<Number>(m.second_shear_modulus))
          , lambda_J(static_cast<Number>(m.lambda - 2. * m.second_shear_modulus))
        {}

        /** The coefficient of F^-T in P: lambda_J ln J - mu1 - 2 mu2 (not finite for J <= 0). */
        KOKKOS_INLINE_FUNCTION Number
        volumetric(const Number J) const
        {
          return lambda_J * static_cast<Number>(natural_logarithm(static_cast<double>(J))) - mu1 - Number(2) * mu2;
        }
      };

      /** The moduli of the isochoric neo-Hookean law at a point with J = det F and I1 = F : F. */
      template <typename Number>
      struct IsochoricNeoHookean
      {
        /** mu J^-2/3 (not finite for J <= 0). */
        Number mu_bar;
        /** The bulk modulus kappa = lambda + 2 mu / 3. */
        Number kappa;
        /** I1 = F : F. */
        Number I1;

        KOKKOS_INLINE_FUNCTION
        IsochoricNeoHookean(const MaterialConstants &m, const Number J, const Number F[3][3])
          : mu_bar(static_cast<Number>(
              m.mu * exponential(-2. / 3. * natural_logarithm(static_cast<double>(J)))))
          , kappa(static_cast<Number>(m.lambda + 2. / 3. * m.mu))
          , I1(0)
        {
          PLASTIX_UNROLL
          for (int i = 0; i < 3; ++i)
            PLASTIX_UNROLL
            for (int j = 0; j < 3; ++j)
              I1 += F[i][j] * F[i][j];
        }
      };

      /**
       * Hencky's elastic energy lambda / 2 (tr e)^2 + mu e : e of the
       * elastic logarithmic strain @p e (6-entry storage, tensor components).
       */
      KOKKOS_INLINE_FUNCTION double
      hencky_energy(const MaterialConstants &m, const double e[6])
      {
        const double tr = e[0] + e[1] + e[2];
        return 0.5 * m.lambda * tr * tr + m.mu * contract_symmetric(e, e);
      }

      /**
       * The strain energy W(F) per reference volume of the material @p m
       * (StrainEnergy); not finite for det F <= 0.
       */
      KOKKOS_INLINE_FUNCTION double
      hyperelastic_energy(const MaterialConstants &m, const double F[3][3])
      {
        double C[3][3];
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            C[i][j] = F[0][i] * F[0][j] + F[1][i] * F[1][j] + F[2][i] * F[2][j];
        const double J = F[0][0] * (F[1][1] * F[2][2] - F[1][2] * F[2][1]) -
                         F[0][1] * (F[1][0] * F[2][2] - F[1][2] * F[2][0]) +
                         F[0][2] * (F[1][0] * F[2][1] - F[1][1] * F[2][0]);
        if (m.strain_energy == StrainEnergy::hencky)
          {
            // The elastic Hencky law (no plastic strain).
            LogarithmicStrain E;
            if (!E.reinit(F))
              return natural_logarithm(J);
            return hencky_energy(m, E.strain);
          }
        const double I1     = C[0][0] + C[1][1] + C[2][2];
        const double log_J  = natural_logarithm(J);
        if (m.strain_energy == StrainEnergy::isochoric_neo_hookean)
          {
            const double kappa = m.lambda + 2. / 3. * m.mu;
            return 0.5 * m.mu * (exponential(-2. / 3. * log_J) * I1 - 3.) + 0.25 * kappa * (J * J - 1. - 2. * log_J);
          }
        double C_C = 0.;
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            C_C += C[i][j] * C[j][i];
        const double I2  = 0.5 * (I1 * I1 - C_C);
        const double mu2 = m.second_shear_modulus;
        return 0.5 * (m.mu - mu2) * (I1 - 3.) + 0.5 * mu2 * (I2 - 3.) - (m.mu + mu2) * log_J +
               0.5 * (m.lambda - 2. * mu2) * log_J * log_J;
      }

      /** The first Piola-Kirchhoff stress P(F) of the material @p m; returns J. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION Number
      hyperelastic_stress(const MaterialConstants &m, const Number F[3][3], Number P[3][3])
      {
        if (m.strain_energy == StrainEnergy::isochoric_neo_hookean)
          {
            Number                              F_inv_T[3][3];
            const Number                        J = determinant_and_inverse_transpose(F, F_inv_T);
            const IsochoricNeoHookean<Number>   k(m, J, F);
            // P = mu_bar (F - I1 / 3 F^-T) + kappa / 2 (J^2 - 1) F^-T
            const Number inverse_coefficient = k.kappa / Number(2) * (J * J - Number(1)) - k.mu_bar * k.I1 / Number(3);
            PLASTIX_UNROLL
            for (int i = 0; i < 3; ++i)
              PLASTIX_UNROLL
              for (int j = 0; j < 3; ++j)
                P[i][j] = k.mu_bar * F[i][j] + inverse_coefficient * F_inv_T[i][j];
            return J;
          }
        const HyperelasticModuli<Number> k(m);
        Number                           F_inv_T[3][3];
        const Number                     J = determinant_and_inverse_transpose(F, F_inv_T);
        // P = mu1 F + mu2 (I1 F - F C) + (lambda_J ln J - mu1 - 2 mu2) F^-T
        const Number volumetric = k.volumetric(J);
        Number       FC[3][3]   = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
        Number       I1         = 0;
        if (k.mu2 != Number(0))
          {
            Number C[3][3];
            PLASTIX_UNROLL
            for (int i = 0; i < 3; ++i)
              PLASTIX_UNROLL
              for (int j = 0; j < 3; ++j)
                C[i][j] = F[0][i] * F[0][j] + F[1][i] * F[1][j] + F[2][i] * F[2][j];
            I1 = C[0][0] + C[1][1] + C[2][2];
            PLASTIX_UNROLL
            for (int i = 0; i < 3; ++i)
              PLASTIX_UNROLL
              for (int j = 0; j < 3; ++j)
                FC[i][j] = F[i][0] * C[0][j] + F[i][1] * C[1][j] + F[i][2] * C[2][j];
          }
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            P[i][j] = k.mu1 * F[i][j] + k.mu2 * (I1 * F[i][j] - FC[i][j]) + volumetric * F_inv_T[i][j];
        return J;
      }

      /**
       * The derivative of the first Piola-Kirchhoff stress at @p F in the
       * direction @p H: dP = A(F) : H with the first elasticity tensor A =
       * dP/dF (material and geometric stiffness in one):
       *   dP = mu1 H + mu2 (2 (F : H) F + I1 H - H C - F (H^T F + F^T H))
       *        + lambda_J (F^-T : H) F^-T - (lambda_J ln J - mu1 - 2 mu2) F^-T H^T F^-T.
       * A has the major symmetry A_iJkL = A_kLiJ (the tangent of a
       * hyperelastic law is symmetric). The isochoric neo-Hookean law has
       *   dP = mu_bar (H - 2/3 (F^-T : H) F - 2/3 (F : H) F^-T + 2/9 I1 (F^-T : H) F^-T
       *        + I1 / 3 F^-T H^T F^-T) + kappa J^2 (F^-T : H) F^-T - kappa / 2 (J^2 - 1) F^-T H^T F^-T.
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      hyperelastic_stress_derivative(const MaterialConstants &m,
                                     const Number             F[3][3],
                                     const Number             H[3][3],
                                     Number                   dP[3][3])
      {
        Number       F_inv_T[3][3];
        const Number J = determinant_and_inverse_transpose(F, F_inv_T);
        // F^-T : H and F^-T H^T F^-T.
        Number trace = 0;
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            trace += F_inv_T[i][j] * H[i][j];
        Number A[3][3], B[3][3];
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            A[i][j] = F_inv_T[i][0] * H[j][0] + F_inv_T[i][1] * H[j][1] + F_inv_T[i][2] * H[j][2];
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            B[i][j] = A[i][0] * F_inv_T[0][j] + A[i][1] * F_inv_T[1][j] + A[i][2] * F_inv_T[2][j];
        if (m.strain_energy == StrainEnergy::isochoric_neo_hookean)
          {
            const IsochoricNeoHookean<Number> k(m, J, F);
            Number                            FH = 0;
            PLASTIX_UNROLL
            for (int i = 0; i < 3; ++i)
              PLASTIX_UNROLL
              for (int j = 0; j < 3; ++j)
                FH += F[i][j] * H[i][j];
            const Number two_thirds = Number(2) / Number(3);
            const Number inverse_coefficient =
              k.mu_bar * (-two_thirds * FH + two_thirds / Number(3) * k.I1 * trace) + k.kappa * J * J * trace;
            const Number B_coefficient = k.mu_bar * k.I1 / Number(3) - k.kappa / Number(2) * (J * J - Number(1));
            PLASTIX_UNROLL
            for (int i = 0; i < 3; ++i)
              PLASTIX_UNROLL
              for (int j = 0; j < 3; ++j)
                dP[i][j] = k.mu_bar * (H[i][j] - two_thirds * trace * F[i][j]) + inverse_coefficient * F_inv_T[i][j] +
                           B_coefficient * B[i][j];
            return;
          }
        const HyperelasticModuli<Number> k(m);
        const Number                     volumetric = k.volumetric(J);
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            dP[i][j] = k.mu1 * H[i][j] + k.lambda_J * trace * F_inv_T[i][j] - volumetric * B[i][j];
        if (k.mu2 == Number(0))
          return;
        // The I2 term: C, F : H, H C and F (H^T F + F^T H).
        Number C[3][3], E[3][3], FH = 0;
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            {
              C[i][j] = F[0][i] * F[0][j] + F[1][i] * F[1][j] + F[2][i] * F[2][j];
              // E = H^T F + F^T H (symmetric)
              E[i][j] = H[0][i] * F[0][j] + H[1][i] * F[1][j] + H[2][i] * F[2][j] + F[0][i] * H[0][j] +
                        F[1][i] * H[1][j] + F[2][i] * H[2][j];
              FH += F[i][j] * H[i][j];
            }
        const Number I1 = C[0][0] + C[1][1] + C[2][2];
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int j = 0; j < 3; ++j)
            {
              const Number HC = H[i][0] * C[0][j] + H[i][1] * C[1][j] + H[i][2] * C[2][j];
              const Number FE = F[i][0] * E[0][j] + F[i][1] * E[1][j] + F[i][2] * E[2][j];
              dP[i][j] += k.mu2 * (Number(2) * FH * F[i][j] + I1 * H[i][j] - HC - FE);
            }
      }

      /**
       * F = I + Grad u at the eight Gauss points of @p cell into @p F (entry
       * (3 i + j) 8 + q), from the cell's geometry @p g and the edge
       * differences @p e of its displacement; returns the number of points
       * whose det F is not positive (a non-finite one counts too). With
       * @p dilatation_ratio's data set (F-bar), F_bar = (J_bar / J)^(1/3) F
       * instead, and (J / J_bar)^(1/3) into @p dilatation_ratio (entry q).
       */
      template <typename Geometry>
      KOKKOS_INLINE_FUNCTION int
      store_cell_deformation_gradients(const Geometry                    &geometry,
                                       const typename Geometry::CellData &g,
                                       const double                       e[3][3][4],
                                       const Index64                      cell,
                                       const Strided<double>             &F,
                                       const Strided<double>             &dilatation_ratio = {})
      {
        int    inverted = 0;
        double J[8], volume = 0, current_volume = 0;
        for (int q = 0; q < 8; ++q)
          {
            double inv[3][3], G[3][3];
            const double JxW = geometry.at(g, q, inv);
            gradient_at_point(e, q, inv, G);
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j)
                {
                  G[i][j] += (i == j) ? 1. : 0.;
                  F(cell, (3 * i + j) * 8 + q) = G[i][j];
                }
            J[q] = determinant(G);
            if (!(J[q] > 0))
              ++inverted;
            volume += JxW;
            current_volume += JxW * J[q];
          }
        if (dilatation_ratio.data != nullptr)
          {
            const double J_bar = current_volume / volume;
            for (int q = 0; q < 8; ++q)
              {
                const double s = f_bar_factor(J_bar, J[q]);
                for (int k = 0; k < 9; ++k)
                  F(cell, k * 8 + q) *= s;
                dilatation_ratio(cell, q) = 1. / s;
              }
          }
        return inverted;
      }

      /** The deformation gradient @p Fq of Gauss point @p q of @p cell as stored (entry (3 i + j) 8 + q). */
      template <typename Value>
      KOKKOS_INLINE_FUNCTION void
      load_deformation_gradient(const Strided<Value> &F, const Index64 cell, const int q, double Fq[3][3])
      {
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            Fq[i][j] = F(cell, (3 * i + j) * 8 + q);
      }

      /**
       * The return in the logarithmic strain space (logarithmic_strain.h) at
       * Gauss point @p q of @p cell for the deformation gradient @p F from
       * the committed @p history (entry k 8 + q holds value k).
       */
      KOKKOS_INLINE_FUNCTION void
      logarithmic_strain_point(const MaterialConstants     &m,
                               const Strided<const double> &history,
                               const Index64                cell,
                               const int                    q,
                               const double                 F[3][3],
                               LogarithmicStrainResult     &r)
      {
        double h[history_fields];
        for (int k = 0; k < history_fields; ++k)
          h[k] = history(cell, k * 8 + q);
        logarithmic_strain_return(m, F, h, r);
      }

      /**
       * Values per Gauss point of the stored tangent of a point in the
       * logarithmic strain space: S (6, the 6-entry storage) and M = dS/dC
       * (36, row-major: dS_k = sum_c M_kc dC_c with dC_c the tensor
       * component c, c >= 3 with its symmetric partner).
       */
      constexpr int logarithmic_strain_tangent_fields = 42;

      /**
       * The return at Gauss point @p q of @p cell at @p F from the committed
       * @p history, stored as S and dS/dC in @p data (entry k 8 + q,
       * logarithmic_strain_tangent_fields values): what the tangent law
       * reads, so that a tangent application does not repeat the return.
       * NaN where det F <= 0.
       */
      KOKKOS_INLINE_FUNCTION void
      store_logarithmic_strain_tangent(const MaterialConstants     &m,
                                       const Strided<const double> &history,
                                       const Index64                cell,
                                       const int                    q,
                                       const double                 F[3][3],
                                       const Strided<double>       &data)
      {
        LogarithmicStrainResult r;
        logarithmic_strain_point(m, history, cell, q, F, r);
        for (int k = 0; k < 6; ++k)
          data(cell, k * 8 + q) = r.S[k];
        double M[6][6];
        if (r.valid)
          r.second_piola_derivatives(M);
        for (int k = 0; k < 6; ++k)
          for (int c = 0; c < 6; ++c)
            data(cell, (6 + 6 * k + c) * 8 + q) = r.valid ? M[k][c] : r.S[0];
      }

      /**
       * The hyperelastic stress of the current displacement, P(I + G), as
       * the finite-strain law of the quadrature cell operator: with it the
       * cell operator's product is the internal force. Times the cell's
       * stiffness factor if @p cell_factors is set. With
       * @p logarithmic_strain, materials with StrainEnergy::hencky take the
       * return in the logarithmic strain space from the committed history
       * (without, the kernels do not hold that code: it raises their
       * register use).
       */
      template <typename Number = double, bool logarithmic_strain = false>
      struct HyperelasticLaw
      {
        using value_type                    = Number;
        static constexpr bool finite_strain = true;
        /** The stress of the displacement itself, not a linearisation. */
        static constexpr bool linearised = false;

        const MaterialConstants *materials     = nullptr;
        const std::uint16_t     *cell_material = nullptr;
        const float             *cell_factors  = nullptr;
        /** The committed history (entry k 8 + q), read with @p logarithmic_strain only. */
        Strided<const double> history;

        KOKKOS_INLINE_FUNCTION void
        first_piola(const Index64 cell, const int q, const Number G[3][3], Number P[3][3]) const
        {
          Number F[3][3];
          PLASTIX_UNROLL
          for (int i = 0; i < 3; ++i)
            PLASTIX_UNROLL
            for (int j = 0; j < 3; ++j)
              F[i][j] = G[i][j] + (i == j ? Number(1) : Number(0));
          const MaterialConstants &m = materials[cell_material[cell]];
          if constexpr (logarithmic_strain)
            if (m.strain_energy == StrainEnergy::hencky)
              {
                double F_d[3][3];
                for (int i = 0; i < 3; ++i)
                  for (int j = 0; j < 3; ++j)
                    F_d[i][j] = static_cast<double>(F[i][j]);
                LogarithmicStrainResult r;
                logarithmic_strain_point(m, history, cell, q, F_d, r);
                for (int i = 0; i < 3; ++i)
                  for (int j = 0; j < 3; ++j)
                    P[i][j] = static_cast<Number>(r.P[i][j]);
                scale_by_cell_factor(cell_factors, cell, &P[0][0], 9);
                return;
              }
          hyperelastic_stress(m, F, P);
          scale_by_cell_factor(cell_factors, cell, &P[0][0], 9);
        }
      };

      /**
       * The consistent tangent at the deformation gradients stored per
       * Gauss point (entry 3 i + j of point q at (cell, (3 i + j) 8 + q)),
       * as the finite-strain law of the quadrature cell operator: with it
       * the cell operator's product is the tangent stiffness times the
       * increment. Times the cell's stiffness factor if @p cell_factors is
       * set.
       */
      template <typename Number = double, bool logarithmic_strain = false>
      struct HyperelasticTangentLaw
      {
        using value_type                    = Number;
        static constexpr bool finite_strain = true;
        /** The derivative at a stored linearisation point. */
        static constexpr bool linearised = true;

        const MaterialConstants *materials     = nullptr;
        const std::uint16_t     *cell_material = nullptr;
        const float             *cell_factors  = nullptr;
        /** The deformation gradients of the linearisation point. */
        Strided<const double> deformation_gradient;
        /**
         * The stored tangent of the return in the logarithmic strain space
         * (store_logarithmic_strain_tangent(): S and dS/dC per point), read
         * with @p logarithmic_strain only, by materials with
         * StrainEnergy::hencky (in double whatever @p Number).
         */
        Strided<const double> tangent_data;
        /**
         * F-bar only: (J / J_bar)^(1/3) per point (entry q), the ratio of
         * the point's deformation gradient to the stored F_bar (the stored
         * deformation gradients are F_bar then); null data otherwise.
         */
        Strided<const double> dilatation_ratio;
        /**
         * F-bar only: the data of each cell at the linearisation point that
         * do not depend on the increment (f_bar.h, f_bar_cell_entries: the
         * reference volume, the mean pressure p_bar and the cell's volume
         * gradient), so that the tangent's product needs no volume pass;
         * null data: the product computes them (f_bar_tangent_volume()).
         */
        Strided<const double> f_bar_cell_data;

        /**
         * The stored deformation gradient @p F of point @p q of @p cell;
         * returns the point's dilatation ratio (1 without one).
         */
        KOKKOS_INLINE_FUNCTION Number
        linearisation_deformation(const Index64 cell, const int q, Number F[3][3]) const
        {
          double F_d[3][3];
          load_deformation_gradient(deformation_gradient, cell, q, F_d);
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
              F[i][j] = static_cast<Number>(F_d[i][j]);
          return dilatation_ratio.data != nullptr ? static_cast<Number>(dilatation_ratio(cell, q)) : Number(1);
        }

        /**
         * The stored deformation gradient @p F of point @p q of @p cell and
         * the law's first Piola-Kirchhoff stress @p P there (times the
         * cell's stiffness factor); returns the point's dilatation ratio (1
         * without one).
         */
        KOKKOS_INLINE_FUNCTION Number
        linearisation_point(const Index64 cell, const int q, Number F[3][3], Number P[3][3]) const
        {
          const MaterialConstants &m = materials[cell_material[cell]];
          double                   F_d[3][3];
          load_deformation_gradient(deformation_gradient, cell, q, F_d);
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
              F[i][j] = static_cast<Number>(F_d[i][j]);
          bool done = false;
          if constexpr (logarithmic_strain)
            if (m.strain_energy == StrainEnergy::hencky)
              {
                // P = F S with the stored S.
                double S[6], S3[3][3];
                for (int k = 0; k < 6; ++k)
                  S[k] = tangent_data(cell, k * 8 + q);
                symmetric_to_matrix(S, S3);
                for (int i = 0; i < 3; ++i)
                  for (int j = 0; j < 3; ++j)
                    P[i][j] = static_cast<Number>(F_d[i][0] * S3[0][j] + F_d[i][1] * S3[1][j] + F_d[i][2] * S3[2][j]);
                done = true;
              }
          if (!done)
            hyperelastic_stress(m, F, P);
          scale_by_cell_factor(cell_factors, cell, &P[0][0], 9);
          return dilatation_ratio.data != nullptr ? static_cast<Number>(dilatation_ratio(cell, q)) : Number(1);
        }

        KOKKOS_INLINE_FUNCTION void
        first_piola(const Index64 cell, const int q, const Number H[3][3], Number dP[3][3]) const
        {
          const MaterialConstants &m = materials[cell_material[cell]];
          if constexpr (logarithmic_strain)
            if (m.strain_energy == StrainEnergy::hencky)
              {
                double F_d[3][3], H_d[3][3], dP_d[3][3];
                load_deformation_gradient(deformation_gradient, cell, q, F_d);
                for (int i = 0; i < 3; ++i)
                  for (int j = 0; j < 3; ++j)
                    H_d[i][j] = static_cast<double>(H[i][j]);
                // dP = H S + F (dS/dC : dC), dC = H^T F + F^T H.
                double dC[6], S[6], dS[6];
                cauchy_green_increment(F_d, H_d, dC);
                for (int k = 0; k < 6; ++k)
                  {
                    S[k]       = tangent_data(cell, k * 8 + q);
                    double sum = 0;
                    for (int c = 0; c < 6; ++c)
                      sum += tangent_data(cell, (6 + 6 * k + c) * 8 + q) * dC[c];
                    dS[k] = sum;
                  }
                first_piola_increment(F_d, H_d, S, dS, dP_d);
                for (int i = 0; i < 3; ++i)
                  for (int j = 0; j < 3; ++j)
                    dP[i][j] = static_cast<Number>(dP_d[i][j]);
                scale_by_cell_factor(cell_factors, cell, &dP[0][0], 9);
                return;
              }
          Number F[3][3];
          PLASTIX_UNROLL
          for (int i = 0; i < 3; ++i)
            PLASTIX_UNROLL
            for (int j = 0; j < 3; ++j)
              F[i][j] = static_cast<Number>(deformation_gradient(cell, (3 * i + j) * 8 + q));
          hyperelastic_stress_derivative(m, F, H, dP);
          scale_by_cell_factor(cell_factors, cell, &dP[0][0], 9);
        }
      };
    } // namespace internal
  } // namespace backend
} // namespace plastix

#endif
