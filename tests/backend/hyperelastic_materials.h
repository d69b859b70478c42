// The materials of the finite-strain backend tests.
#ifndef PLASTIX_TESTS_BACKEND_HYPERELASTIC_MATERIALS_H
#define PLASTIX_TESTS_BACKEND_HYPERELASTIC_MATERIALS_H

#include <plastix/backend/material_constants.h>

namespace plastix_test
{
  /**
   * The hyperelastic material whose small-strain limit has Young's modulus
   * @p E and Poisson's ratio @p nu, with the Mooney-Rivlin modulus mu2 =
   * @p mu2_fraction mu (0: neo-Hookean).
   */
  inline plastix::backend::MaterialConstants
  hyperelastic_material(const double E, const double nu, const double mu2_fraction)
  {
    plastix::backend::MaterialConstants m;
    m.lambda               = E * nu / ((1 + nu) * (1 - 2 * nu));
    m.mu                   = E / (2 * (1 + nu));
    m.second_shear_modulus = mu2_fraction * m.mu;
    return m;
  }
} // namespace plastix_test

#endif
