// Kokkos-free constants of one material as the device kernels read them
// (plastix/material/material.h makes them from engineering constants).
#ifndef PLASTIX_BACKEND_MATERIAL_H
#define PLASTIX_BACKEND_MATERIAL_H

namespace plastix
{
  namespace backend
  {
    /**
     * Constants of one material. Elasticity uses lambda and mu; J2
     * plasticity also the initial yield stress and the linear isotropic and
     * kinematic hardening moduli.
     */
    struct Material
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
    };
  } // namespace backend
} // namespace plastix

#endif
