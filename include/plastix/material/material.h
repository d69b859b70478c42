// The materials of plastix: isotropic linear elasticity with von Mises (J2)
// plasticity and linear isotropic and kinematic hardening, by deal.II
// material id. The device point kernels (elastic law, radial return,
// consistent tangent) live in the backend; plastix/core/plasticity_state.h
// holds the Gauss-point history of a plastic run.
#ifndef PLASTIX_MATERIAL_MATERIAL_H
#define PLASTIX_MATERIAL_MATERIAL_H

#include <deal.II/base/types.h>
#include <deal.II/grid/tria_accessor.h>
#include <deal.II/grid/tria_iterator.h>

#include <plastix/backend/material_constants.h>
#include <plastix/base/enum_patterns.h>

#include <array>
#include <functional>
#include <map>
#include <vector>

namespace plastix
{
  /** Material constants by deal.II material id. */
  using MaterialTable = std::map<dealii::types::material_id, backend::MaterialConstants>;

  /**
   * A stiffness factor per cell (active or level cell), or empty for 1
   * everywhere: MechanicsOperator::AdditionalData::cell_stiffness_factor.
   */
  using CellStiffnessFactor = std::function<double(const dealii::TriaIterator<dealii::CellAccessor<3>> &)>;

  /**
   * Lame constants and plasticity data of an isotropic material from Young's
   * modulus @p E and Poisson's ratio @p nu. A @p yield_stress of 0 (the
   * default) or +infinity makes the material purely elastic, also when a
   * PlasticityState is attached. Throws std::invalid_argument naming the bad
   * value if E is not positive and finite, nu is outside (-1, 0.5), the
   * yield stress is negative or NaN, or a hardening modulus is negative or
   * not finite.
   *
   * The isotropic hardening is linear, sigma_y(alpha) = sigma_0 + H alpha,
   * unless @p saturation_yield_stress sigma_inf is not 0: then Voce
   * saturation is added, sigma_y(alpha) = sigma_0 + H alpha + (sigma_inf -
   * sigma_0) (1 - exp(-delta alpha)) with delta = @p saturation_rate. That
   * needs sigma_inf >= sigma_0 > 0 finite and delta > 0 exactly when
   * sigma_inf > sigma_0 (both are refused otherwise).
   */
  backend::MaterialConstants
  make_material(double E,
                double nu,
                double yield_stress            = 0,
                double isotropic_hardening     = 0,
                double kinematic_hardening     = 0,
                double saturation_yield_stress = 0,
                double saturation_rate         = 0);

  /**
   * The von Mises material @p m (make_material()) with the tabulated yield
   * stress sigma_y(alpha) through @p points (alpha_k, sigma_k): linear
   * between them, constant beyond the last, in place of the linear and
   * Voce hardening. Throws std::invalid_argument naming the value unless
   * there are 2 to backend::max_hardening_points points, the first at
   * alpha = 0 with sigma > 0 and, where @p m has a yield stress, equal to
   * it, the alphas increase, the stresses do not decrease and all are
   * finite, and @p m has no isotropic or Voce hardening (its kinematic
   * hardening stays).
   */
  backend::MaterialConstants
  with_hardening_curve(backend::MaterialConstants m, const std::vector<std::array<double, 2>> &points);

  /**
   * A compressible hyperelastic material for finite strain
   * (MechanicsOperator::enable_finite_strain()) whose small-strain limit is
   * isotropic elasticity with @p E and @p nu (checked as in
   * make_material()): Mooney-Rivlin with the second modulus
   * @p second_shear_modulus mu2, the coefficient of (I2 - 3) / 2, and
   * neo-Hookean for mu2 = 0 (the default); or, with @p strain_energy =
   * isochoric_neo_hookean, the neo-Hookean law in the isochoric invariant
   * with its own volumetric energy, or with hencky Hencky's energy in the
   * logarithmic strain, the law of plasticity at finite strain
   * (backend::StrainEnergy has them). Throws std::invalid_argument naming
   * the value unless 0 <= mu2 <= mu and mu2 <= lambda / 2 (so that neither
   * the coefficient mu - mu2 of (I1 - 3) / 2 nor that of (ln J)^2 / 2,
   * lambda - 2 mu2, is negative), and mu2 = 0 for the isochoric neo-Hookean
   * and the Hencky law.
   */
  backend::MaterialConstants
  make_hyperelastic_material(double                E,
                             double                nu,
                             double                second_shear_modulus = 0,
                             backend::StrainEnergy strain_energy        = backend::StrainEnergy::mooney_rivlin);

  /**
   * The elastic part of @p m: its elastic constants, finite-strain law
   * (strain energy, mu2) and density, with no yield criterion (von Mises
   * with yield stress 0). A Hencky material (backend::StrainEnergy::hencky)
   * without yield is hyperelastic.
   */
  backend::MaterialConstants
  without_yield(const backend::MaterialConstants &m);

  /** How a Drucker-Prager cone is matched to the Mohr-Coulomb pyramid of the same c and phi. */
  enum class ConeMatching
  {
    /** Through the compression meridians (triaxial compression): the circumscribed cone. */
    outer,
    /** Through the extension meridians (triaxial extension). */
    inner,
    /** The same collapse loads as Mohr-Coulomb in plane strain (associative flow). */
    plane_strain
  };

  /**
   * Isotropic elasticity (@p E, @p nu, checked as in make_material()) with
   * Mohr-Coulomb plasticity: cohesion @p cohesion, friction angle
   * @p friction_angle and dilation angle @p dilation_angle in degrees
   * (dilation = friction is associative), and the linear cohesion
   * hardening modulus @p cohesion_hardening (cohesion increase per unit
   * accumulated plastic strain). Throws std::invalid_argument naming the
   * bad value unless 0 < phi < 90, 0 <= psi <= phi, c > 0 and H >= 0, all
   * finite.
   */
  backend::MaterialConstants
  make_mohr_coulomb(double E,
                    double nu,
                    double cohesion,
                    double friction_angle,
                    double dilation_angle,
                    double cohesion_hardening = 0);

  /**
   * Isotropic elasticity with Drucker-Prager plasticity,
   * sqrt(J2) + eta p - xi c <= 0 and the flow potential sqrt(J2) + eta_bar p,
   * the constants eta, xi, eta_bar from the Mohr-Coulomb angles (degrees)
   * by @p matching (de Souza Neto et al., eqs. 6.121-6.123). Same checks
   * as make_mohr_coulomb().
   */
  backend::MaterialConstants
  make_drucker_prager(double       E,
                      double       nu,
                      double       cohesion,
                      double       friction_angle,
                      double       dilation_angle,
                      ConeMatching matching,
                      double       cohesion_hardening = 0);

  /**
   * The material of material id @p id in @p materials; throws
   * dealii::ExcMessage naming the id if the table has none.
   */
  const backend::MaterialConstants &
  material_of(const MaterialTable &materials, dealii::types::material_id id);

  template <>
  struct EnumNames<backend::YieldCriterion>
  {
    static constexpr const char *what = "yield criterion";
    static std::vector<std::pair<backend::YieldCriterion, std::string>>
    table()
    {
      return {{backend::YieldCriterion::von_mises, "von Mises"},
              {backend::YieldCriterion::mohr_coulomb, "Mohr-Coulomb"},
              {backend::YieldCriterion::drucker_prager, "Drucker-Prager"}};
    }
  };

  template <>
  struct EnumNames<backend::StrainEnergy>
  {
    static constexpr const char *what = "strain energy";
    static std::vector<std::pair<backend::StrainEnergy, std::string>>
    table()
    {
      return {{backend::StrainEnergy::mooney_rivlin, "Mooney-Rivlin"},
              {backend::StrainEnergy::isochoric_neo_hookean, "isochoric neo-Hookean"},
              {backend::StrainEnergy::hencky, "Hencky"}};
    }
  };

  template <>
  struct EnumNames<ConeMatching>
  {
    static constexpr const char *what = "cone matching";
    static std::vector<std::pair<ConeMatching, std::string>>
    table()
    {
      return {{ConeMatching::outer, "outer"},
              {ConeMatching::inner, "inner"},
              {ConeMatching::plane_strain, "plane strain"}};
    }
  };
} // namespace plastix

PLASTIX_ENUM_PATTERN(plastix::backend::YieldCriterion)
PLASTIX_ENUM_PATTERN(plastix::ConeMatching)
PLASTIX_ENUM_PATTERN(plastix::backend::StrainEnergy)

#endif
