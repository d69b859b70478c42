// Material constants from engineering constants, with their input checks.
#include <deal.II/base/exceptions.h>

#include <plastix/material/material.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace plastix
{
  backend::Material
  make_material(const double E,
                const double nu,
                const double yield_stress,
                const double isotropic_hardening,
                const double kinematic_hardening)
  {
    if (!(E > 0))
      throw std::invalid_argument("Young's modulus must be positive, got E = " +
                                  std::to_string(E));
    if (!std::isfinite(E))
      throw std::invalid_argument("Young's modulus must be finite, got E = " + std::to_string(E));
    if (!(nu > -1. && nu < 0.5))
      throw std::invalid_argument(
        "Poisson's ratio must lie in (-1, 0.5), got nu = " + std::to_string(nu) +
        (nu >= 0.5 ? " (nu >= 0.5 is incompressible: the bulk modulus is infinite)" : ""));
    if (!(yield_stress >= 0))
      throw std::invalid_argument("yield stress must not be negative, got " +
                                  std::to_string(yield_stress));
    if (!(isotropic_hardening >= 0) || !(kinematic_hardening >= 0) || !std::isfinite(isotropic_hardening) ||
        !std::isfinite(kinematic_hardening))
      throw std::invalid_argument("hardening moduli must be finite and not negative");
    backend::Material m;
    m.lambda              = E * nu / ((1. + nu) * (1. - 2. * nu));
    m.mu                  = E / (2. * (1. + nu));
    m.yield_stress        = yield_stress;
    m.isotropic_hardening = isotropic_hardening;
    m.kinematic_hardening = kinematic_hardening;
    return m;
  }

  const backend::Material &
  material_of(const MaterialTable &materials, const dealii::types::material_id id)
  {
    const auto it = materials.find(id);
    AssertThrow(it != materials.end(), dealii::ExcMessage("no material for material id " + std::to_string(id)));
    return it->second;
  }
} // namespace plastix
