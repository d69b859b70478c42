// The materials of the finite-strain backend tests.
#ifndef PLASTIX_TESTS_BACKEND_HYPERELASTIC_MATERIALS_H
#define PLASTIX_TESTS_BACKEND_HYPERELASTIC_MATERIALS_H

#include <plastix/backend/material_constants.h>

namespace plastix_test
{
  /**
   * The hyperelastic material whose small-strain limit has Young's modulus
   * @p E and Poisson's ratio @p nu, with the Mooney-Rivlin modulus mu2 =
   * @p mu2_fraction mu (0: neo-Hookean), or with the strain energy
   * @p energy (the isochoric neo-Hookean law takes mu2_fraction 0).
   */
  inline plastix::backend::MaterialConstants
  hyperelastic_material(const double                          E,
                        const double                          nu,
                        const double                          mu2_fraction,
                        const plastix::backend::StrainEnergy energy = plastix::backend::StrainEnergy::mooney_rivlin)
  {
    plastix::backend::MaterialConstants m;
    m.lambda               = E * nu / ((1 + nu) * (1 - 2 * nu));
    m.mu                   = E / (2 * (1 + nu));
    m.second_shear_modulus = mu2_fraction * m.mu;
    m.strain_energy        = energy;
    return m;
  }
} // namespace plastix_test

#endif
