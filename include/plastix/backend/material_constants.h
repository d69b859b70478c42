// Kokkos-free constants of one material as the device kernels read them
// (plastix/material/material.h makes them from engineering constants).
#ifndef PLASTIX_BACKEND_MATERIAL_CONSTANTS_H
#define PLASTIX_BACKEND_MATERIAL_CONSTANTS_H

#include <cstdint>

namespace plastix
{
  namespace backend
  {
    /** The most points of a tabulated hardening curve (MaterialConstants::hardening_points). */
    constexpr int max_hardening_points = 16;

    /** The yield criterion of a material. */
    enum class YieldCriterion : std::uint8_t
    {
      /**
       * Von Mises (J2), with isotropic (linear plus Voce saturation) and
       * linear kinematic hardening; elastic if the yield stress is 0.
       */
      von_mises,
      /**
       * Mohr-Coulomb (cohesion c, friction angle phi, dilation angle psi),
       * returned in principal-stress space to the main plane, the two edges
       * or the apex; linear cohesion hardening.
       */
      mohr_coulomb,
      /**
       * Drucker-Prager, sqrt(J2) + eta p - xi c <= 0 with the flow potential
       * sqrt(J2) + eta_bar p; returned to the cone or its apex; linear
       * cohesion hardening.
       */
      drucker_prager
    };

    /** The strain energy of a material at finite strain (the same small-strain limit: lambda and mu). */
    enum class StrainEnergy : std::uint8_t
    {
      /**
       * Compressible Mooney-Rivlin, W = (mu - mu2) / 2 (I1 - 3) + mu2 / 2
       * (I2 - 3) - (mu + mu2) ln J + (lambda - 2 mu2) / 2 (ln J)^2;
       * neo-Hookean (Bonet and Wood) for mu2 = 0.
       */
      mooney_rivlin,
      /**
       * Neo-Hookean in the isochoric invariant with a separate volumetric
       * energy, W = mu / 2 (J^-2/3 I1 - 3) + kappa / 4 (J^2 - 1 - 2 ln J),
       * kappa = lambda + 2 mu / 3 (Simo and Miehe; deal.II's step-44 and its
       * code gallery's Cook membrane).
       */
      isochoric_neo_hookean,
      /**
       * Hencky's energy in the logarithmic strain E = 1/2 ln C, W = lambda /
       * 2 (tr E_e)^2 + mu E_e : E_e with E_e = E - E_p: the law in which
       * plasticity at finite strain is formulated (the small-strain return
       * of the criterion at E, in the Lagrangian logarithmic strain space
       * of Miehe, Apel and Lambrecht; plastic strain, accumulated plastic
       * strain and back stress are its history). Without yield (yield
       * stress 0, von Mises) it is hyperelastic; second_shear_modulus is 0.
       */
      hencky
    };

    /** Where the return map of a pressure-dependent material ended at a point. */
    enum class ReturnRegion : int
    {
      /** No yield. */
      elastic    = 0,
      /** The main plane of Mohr-Coulomb, the smooth cone of Drucker-Prager. */
      smooth     = 1,
      /** The Mohr-Coulomb edge sigma_1 = sigma_2 (triaxial compression). */
      left_edge  = 2,
      /** The Mohr-Coulomb edge sigma_2 = sigma_3 (triaxial extension). */
      right_edge = 3,
      /** The apex (hydrostatic tension beyond the cohesion). */
      apex       = 4
    };

    /**
     * Constants of one material. Elasticity uses lambda and mu; J2
     * plasticity also the initial yield stress and the linear isotropic and
     * kinematic hardening moduli; Mohr-Coulomb and Drucker-Prager the
     * cohesion, the sines and cosine of the friction and dilation angles
     * (or the cone constants) and the cohesion hardening modulus. Stresses
     * are positive in tension.
     */
    struct MaterialConstants
    {
      /** First Lame parameter. */
      double lambda = 0;
      /** Shear modulus. */
      double mu = 0;
      /** Initial yield stress (von Mises); 0 (the default) means purely elastic. */
      double yield_stress = 0;
      /** Linear isotropic hardening modulus H (slope of yield stress over equivalent plastic strain). */
      double isotropic_hardening = 0;
      /** Linear kinematic hardening modulus (Prager, back stress rate = 2/3 H_kin plastic strain rate). */
      double kinematic_hardening = 0;
      /**
       * Voce saturation of the isotropic hardening (von Mises): the yield
       * stress is sigma_0 + H alpha + voce_saturation (1 - exp(-voce_rate
       * alpha)), voce_saturation = sigma_inf - sigma_0 >= 0; 0 (the
       * default) leaves the hardening linear.
       */
      double voce_saturation = 0;
      /** The rate delta of the Voce saturation (> 0 where voce_saturation > 0). */
      double voce_rate = 0;
      /**
       * A tabulated yield stress (von Mises) instead of the linear and Voce
       * terms: sigma_y(alpha) is linear between the points
       * (hardening_alpha[k], hardening_stress[k]), k < hardening_points,
       * and constant beyond the last; the first point is (0,
       * yield_stress). 0 (the default): no table.
       */
      int hardening_points = 0;
      /** The accumulated plastic strains of the table, from 0, increasing. */
      double hardening_alpha[max_hardening_points] = {};
      /** The yield stresses of the table, not decreasing. */
      double hardening_stress[max_hardening_points] = {};

      /** Which yield criterion applies. */
      YieldCriterion criterion = YieldCriterion::von_mises;
      /** Cohesion c of Mohr-Coulomb and Drucker-Prager (at zero accumulated plastic strain). */
      double cohesion = 0;
      /** Linear cohesion hardening: c = cohesion + cohesion_hardening * accumulated plastic strain. */
      double cohesion_hardening = 0;
      /** sin(phi) of the friction angle phi (Mohr-Coulomb). */
      double sin_friction = 0;
      /** cos(phi) of the friction angle phi (Mohr-Coulomb). */
      double cos_friction = 1;
      /** sin(psi) of the dilation angle psi (Mohr-Coulomb); psi = phi is associative. */
      double sin_dilation = 0;
      /** Drucker-Prager friction coefficient eta of sqrt(J2) + eta p - xi c. */
      double cone_eta = 0;
      /** Drucker-Prager cohesion coefficient xi of sqrt(J2) + eta p - xi c. */
      double cone_xi = 0;
      /** Drucker-Prager dilatancy coefficient eta_bar of the flow potential sqrt(J2) + eta_bar p. */
      double cone_eta_bar = 0;
      /**
       * The second modulus mu2 of the compressible Mooney-Rivlin law at
       * finite strain (the coefficient of (I2 - 3) / 2); 0: neo-Hookean.
       * The finite-strain laws take lambda and mu as the constants of their
       * small-strain limit: the coefficient of (I1 - 3) / 2 is mu - mu2.
       */
      double second_shear_modulus = 0;
      /** The strain energy at finite strain (second_shear_modulus is 0 for isochoric_neo_hookean). */
      StrainEnergy strain_energy = StrainEnergy::mooney_rivlin;
      /**
       * Mass density (per reference volume), for the mass matrix of
       * dynamics; 0: none given (statics). The stiffness kernels do not
       * read it.
       */
      double density = 0;
    };
  } // namespace backend
} // namespace plastix

#endif
