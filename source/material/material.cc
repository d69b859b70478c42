// Material constants from engineering constants, with their input checks.
#include <deal.II/base/exceptions.h>

#include <plastix/material/material.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace plastix
{
  backend::MaterialConstants
  make_material(const double E,
                const double nu,
                const double yield_stress,
                const double isotropic_hardening,
                const double kinematic_hardening,
                const double saturation_yield_stress,
                const double saturation_rate)
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
    if (saturation_yield_stress != 0 &&
        !(saturation_yield_stress >= yield_stress && yield_stress > 0 && std::isfinite(saturation_yield_stress)))
      throw std::invalid_argument("the saturation yield stress (Voce) must be finite and at least the yield stress " +
                                  std::to_string(yield_stress) + " > 0, got " + std::to_string(saturation_yield_stress));
    if (!(saturation_rate >= 0) || !std::isfinite(saturation_rate))
      throw std::invalid_argument("the saturation rate (Voce) must be finite and not negative, got " +
                                  std::to_string(saturation_rate));
    if ((saturation_yield_stress > yield_stress) != (saturation_rate > 0))
      throw std::invalid_argument(saturation_rate > 0 ?
                                    "a saturation rate (Voce) needs a saturation yield stress above the yield stress" :
                                    "a saturation yield stress (Voce) above the yield stress needs a saturation rate > 0");
    backend::MaterialConstants m;
    m.lambda              = E * nu / ((1. + nu) * (1. - 2. * nu));
    m.mu                  = E / (2. * (1. + nu));
    m.yield_stress        = yield_stress;
    m.isotropic_hardening = isotropic_hardening;
    m.kinematic_hardening = kinematic_hardening;
    if (saturation_yield_stress > yield_stress)
      {
        m.voce_saturation = saturation_yield_stress - yield_stress;
        m.voce_rate       = saturation_rate;
      }
    return m;
  }

  backend::MaterialConstants
  with_hardening_curve(backend::MaterialConstants m, const std::vector<std::array<double, 2>> &points)
  {
    const auto point = [&points](const std::size_t k) {
      std::ostringstream text;
      text << "(" << points[k][0] << ", " << points[k][1] << ")";
      return text.str();
    };
    if (points.size() < 2 || points.size() > static_cast<std::size_t>(backend::max_hardening_points))
      throw std::invalid_argument("a hardening curve has 2 to " + std::to_string(backend::max_hardening_points) +
                                  " points (alpha, sigma_y), got " + std::to_string(points.size()));
    if (!(points[0][0] == 0.) || !(points[0][1] > 0.) || !std::isfinite(points[0][1]))
      throw std::invalid_argument("the first point of a hardening curve is (0, initial yield stress > 0), got " +
                                  point(0));
    if (m.yield_stress != 0. && m.yield_stress != points[0][1])
      throw std::invalid_argument("the yield stress " + std::to_string(m.yield_stress) +
                                  " differs from the hardening curve's first point " + point(0) +
                                  " (set one of them)");
    for (std::size_t k = 1; k < points.size(); ++k)
      if (!(points[k][0] > points[k - 1][0]) || !(points[k][1] >= points[k - 1][1]) ||
          !std::isfinite(points[k][0]) || !std::isfinite(points[k][1]))
        throw std::invalid_argument("the points of a hardening curve must have increasing alpha and a yield "
                                    "stress that does not decrease, got " +
                                    point(k - 1) + " then " + point(k));
    if (m.isotropic_hardening != 0. || m.voce_saturation != 0.)
      throw std::invalid_argument("a hardening curve replaces the isotropic and Voce hardening: set them to 0");
    m.yield_stress     = points[0][1];
    m.hardening_points = static_cast<int>(points.size());
    for (std::size_t k = 0; k < points.size(); ++k)
      {
        m.hardening_alpha[k]  = points[k][0];
        m.hardening_stress[k] = points[k][1];
      }
    return m;
  }

  backend::MaterialConstants
  make_hyperelastic_material(const double                E,
                             const double                nu,
                             const double                second_shear_modulus,
                             const backend::StrainEnergy strain_energy)
  {
    backend::MaterialConstants m = make_material(E, nu);
    const double               mu2 = second_shear_modulus;
    if (!(mu2 >= 0) || !std::isfinite(mu2) || mu2 > m.mu || mu2 > 0.5 * m.lambda)
      {
        std::ostringstream text;
        text << "the second shear modulus (Mooney-Rivlin mu2) must lie in [0, min(mu, lambda / 2)] = [0, "
             << std::min(m.mu, 0.5 * m.lambda) << "], got " << mu2;
        throw std::invalid_argument(text.str());
      }
    if (strain_energy != backend::StrainEnergy::mooney_rivlin && mu2 != 0)
      throw std::invalid_argument(std::string("the ") +
                                  (strain_energy == backend::StrainEnergy::hencky ? "Hencky" : "isochoric neo-Hookean") +
                                  " law has no second shear modulus (mu2 = 0), got " + std::to_string(mu2));
    m.second_shear_modulus = mu2;
    m.strain_energy        = strain_energy;
    return m;
  }

  backend::MaterialConstants
  without_yield(const backend::MaterialConstants &m)
  {
    backend::MaterialConstants elastic;
    elastic.lambda               = m.lambda;
    elastic.mu                   = m.mu;
    elastic.second_shear_modulus = m.second_shear_modulus;
    elastic.strain_energy        = m.strain_energy;
    elastic.density              = m.density;
    return elastic;
  }

  namespace
  {
    /** The checks of make_mohr_coulomb() and make_drucker_prager(). */
    void
    check_pressure_dependent(const double cohesion,
                             const double friction_angle,
                             const double dilation_angle,
                             const double cohesion_hardening)
    {
      if (!(friction_angle >= 0 && friction_angle < 90))
        throw std::invalid_argument("friction angle must lie in [0, 90) degrees, got " + std::to_string(friction_angle));
      if (!(dilation_angle >= 0 && dilation_angle <= friction_angle))
        throw std::invalid_argument("dilation angle must lie in [0, friction angle = " +
                                    std::to_string(friction_angle) + "] degrees, got " + std::to_string(dilation_angle));
      if (!(cohesion > 0) || !std::isfinite(cohesion))
        throw std::invalid_argument("cohesion must be positive and finite, got " + std::to_string(cohesion));
      if (!(cohesion_hardening >= 0) || !std::isfinite(cohesion_hardening))
        throw std::invalid_argument("cohesion hardening modulus must be finite and not negative, got " +
                                    std::to_string(cohesion_hardening));
    }

    constexpr double degree = 3.14159265358979323846 / 180.;
  } // namespace

  backend::MaterialConstants
  make_mohr_coulomb(const double E,
                    const double nu,
                    const double cohesion,
                    const double friction_angle,
                    const double dilation_angle,
                    const double cohesion_hardening)
  {
    backend::MaterialConstants m = make_material(E, nu);
    check_pressure_dependent(cohesion, friction_angle, dilation_angle, cohesion_hardening);
    m.criterion          = backend::YieldCriterion::mohr_coulomb;
    m.cohesion           = cohesion;
    m.cohesion_hardening = cohesion_hardening;
    m.sin_friction       = std::sin(friction_angle * degree);
    m.cos_friction       = std::cos(friction_angle * degree);
    m.sin_dilation       = std::sin(dilation_angle * degree);
    return m;
  }

  backend::MaterialConstants
  make_drucker_prager(const double       E,
                      const double       nu,
                      const double       cohesion,
                      const double       friction_angle,
                      const double       dilation_angle,
                      const ConeMatching matching,
                      const double       cohesion_hardening)
  {
    backend::MaterialConstants m = make_mohr_coulomb(E, nu, cohesion, friction_angle, dilation_angle, cohesion_hardening);
    m.criterion         = backend::YieldCriterion::drucker_prager;
    // eta(angle) of the matching and, for the friction angle, xi = eta(phi) cot(phi) (eqs. 6.121-6.123),
    // written without cot(phi) so that phi = 0 gives the von Mises cylinder sqrt(J2) = xi c.
    const auto eta = [matching](const double angle) {
      const double s = std::sin(angle * degree), t = std::tan(angle * degree);
      switch (matching)
        {
          case ConeMatching::outer:
            return 6. * s / (std::sqrt(3.) * (3. - s));
          case ConeMatching::inner:
            return 6. * s / (std::sqrt(3.) * (3. + s));
          case ConeMatching::plane_strain:
            return 3. * t / std::sqrt(9. + 12. * t * t);
        }
      return 0.;
    };
    const double s = m.sin_friction, c = m.cos_friction, t = std::tan(friction_angle * degree);
    switch (matching)
      {
        case ConeMatching::outer:
          m.cone_xi = 6. * c / (std::sqrt(3.) * (3. - s));
          break;
        case ConeMatching::inner:
          m.cone_xi = 6. * c / (std::sqrt(3.) * (3. + s));
          break;
        case ConeMatching::plane_strain:
          m.cone_xi = 3. / std::sqrt(9. + 12. * t * t);
          break;
      }
    m.cone_eta     = eta(friction_angle);
    m.cone_eta_bar = eta(dilation_angle);
    return m;
  }

  const backend::MaterialConstants &
  material_of(const MaterialTable &materials, const dealii::types::material_id id)
  {
    const auto it = materials.find(id);
    AssertThrow(it != materials.end(), dealii::ExcMessage("no material for material id " + std::to_string(id)));
    return it->second;
  }
} // namespace plastix
