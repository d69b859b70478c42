// Kokkos-free access to the finite-strain elastoplastic return of the device
// kernels in the Lagrangian logarithmic strain space (the small-strain J2,
// Mohr-Coulomb and Drucker-Prager returns at the Hencky strain E = 1/2 ln C),
// evaluated on the host with the code the device runs: for tests and host
// references.
#ifndef PLASTIX_BACKEND_LOGARITHMIC_STRAIN_PLASTICITY_H
#define PLASTIX_BACKEND_LOGARITHMIC_STRAIN_PLASTICITY_H

#include <plastix/backend/config.h>
#include <plastix/backend/material_constants.h>

namespace plastix
{
  namespace backend
  {
    /** The number of history values per Gauss point (the small-strain layout). */
    constexpr int logarithmic_strain_history_size = 13;

    /** The result of logarithmic_strain_return() at one point. */
    struct LogarithmicStrainPoint
    {
      /** False where det F <= 0 (then the stresses are NaN). */
      bool valid;
      /** Whether the point yields. */
      bool plastic;
      /** First Piola-Kirchhoff stress (row-major 3x3). */
      double first_piola[9];
      /** Second Piola-Kirchhoff stress (xx, yy, zz, yz, xz, xy). */
      double second_piola[6];
      /** The stress conjugate to the Hencky strain, the small-strain law's stress (xx, yy, zz, yz, xz, xy). */
      double conjugate_stress[6];
      /** The Hencky strain E = 1/2 ln C (tensor components xx, yy, zz, yz, xz, xy). */
      double strain[6];
      /**
       * The history after the step: plastic (logarithmic) strain 0-5,
       * accumulated plastic strain 6, back stress (von Mises) or initial
       * stress (Mohr-Coulomb, Drucker-Prager) 7-12.
       */
      double history[logarithmic_strain_history_size];
    };

    /**
     * The return of @p material at the deformation gradient @p F (row-major
     * 3x3) from the committed @p history (the layout of
     * LogarithmicStrainPoint::history; zeros, with the initial stress in
     * 7-12 where there is one, for a virgin point).
     */
    PLASTIX_BACKEND_EXPORT LogarithmicStrainPoint
    logarithmic_strain_return(const MaterialConstants &material,
                              const double             F[9],
                              const double             history[logarithmic_strain_history_size]);

    /**
     * The consistent derivative @p dP (row-major 3x3) of the first
     * Piola-Kirchhoff stress of logarithmic_strain_return() at @p F with the
     * committed @p history fixed, in the direction @p H.
     */
    PLASTIX_BACKEND_EXPORT void
    logarithmic_strain_stress_derivative(const MaterialConstants &material,
                                         const double             F[9],
                                         const double             history[logarithmic_strain_history_size],
                                         const double             H[9],
                                         double                   dP[9]);
  } // namespace backend
} // namespace plastix

#endif
