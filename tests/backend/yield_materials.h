// The elastoplastic materials of the backend return-map tests (von Mises,
// Mohr-Coulomb, Drucker-Prager through the Mohr-Coulomb compression
// meridians), made here from engineering constants independently of
// plastix/material/material.h.
#ifndef PLASTIX_TESTS_BACKEND_YIELD_MATERIALS_H
#define PLASTIX_TESTS_BACKEND_YIELD_MATERIALS_H

#include <plastix/backend/material_constants.h>

#include <cmath>

namespace plastix_test
{
  /** Isotropic elasticity with Young's modulus @p E and Poisson's ratio @p nu. */
  inline plastix::backend::MaterialConstants
  elastic(const double E, const double nu)
  {
    plastix::backend::MaterialConstants m;
    m.lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
    m.mu     = E / (2 * (1 + nu));
    return m;
  }

  /** Von Mises with linear isotropic @p H_iso and kinematic @p H_kin hardening. */
  inline plastix::backend::MaterialConstants
  von_mises(const double E, const double nu, const double sigma_y, const double H_iso, const double H_kin)
  {
    plastix::backend::MaterialConstants m = elastic(E, nu);
    m.yield_stress                        = sigma_y;
    m.isotropic_hardening                 = H_iso;
    m.kinematic_hardening                 = H_kin;
    return m;
  }

  /** Mohr-Coulomb with cohesion @p c, angles in degrees and cohesion hardening @p H. */
  inline plastix::backend::MaterialConstants
  mohr_coulomb(const double E, const double nu, const double c, const double phi_deg, const double psi_deg,
               const double H = 0)
  {
    const double                        pi = 3.14159265358979323846;
    plastix::backend::MaterialConstants m  = elastic(E, nu);
    m.criterion                            = plastix::backend::YieldCriterion::mohr_coulomb;
    m.cohesion                             = c;
    m.cohesion_hardening                   = H;
    m.sin_friction                         = std::sin(phi_deg * pi / 180);
    m.cos_friction                         = std::cos(phi_deg * pi / 180);
    m.sin_dilation                         = std::sin(psi_deg * pi / 180);
    return m;
  }

  /** Drucker-Prager through the compression meridians of Mohr-Coulomb (the outer cone). */
  inline plastix::backend::MaterialConstants
  drucker_prager_outer(const double E, const double nu, const double c, const double phi_deg, const double psi_deg,
                       const double H = 0)
  {
    const double                        pi = 3.14159265358979323846;
    plastix::backend::MaterialConstants m  = elastic(E, nu);
    const double sf = std::sin(phi_deg * pi / 180), sp = std::sin(psi_deg * pi / 180);
    m.criterion          = plastix::backend::YieldCriterion::drucker_prager;
    m.cohesion           = c;
    m.cohesion_hardening = H;
    m.cone_eta           = 6 * sf / (std::sqrt(3.) * (3 - sf));
    m.cone_xi            = 6 * std::cos(phi_deg * pi / 180) / (std::sqrt(3.) * (3 - sf));
    m.cone_eta_bar       = 6 * sp / (std::sqrt(3.) * (3 - sp));
    return m;
  }
} // namespace plastix_test

#endif
