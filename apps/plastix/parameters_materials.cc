// The subsections Materials and Initial stress: declaration, checks and the materials they describe.
#include <deal.II/base/function_parser.h>
#include <deal.II/base/patterns.h>
#include <deal.II/base/utilities.h>

#include <plastix/core/mechanics_operator.h>

#include "parameters.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iostream>
#include <sstream>

namespace plastix
{
  namespace
  {
    void
    declare_material_entries(dealii::ParameterHandler &prm, MaterialDescription &m)
    {
      prm.add_parameter("Young's modulus", m.young_modulus, "Young's modulus E (> 0)");
      prm.add_parameter("Poisson's ratio", m.poisson_ratio, "Poisson's ratio nu, -1 < nu < 0.5");
      prm.add_parameter("Yield stress", m.yield_stress,
                        "Initial von Mises yield stress (elastoplastic problems). 0 makes a material "
                        "elastic (for example one material id of several); an elastoplastic run "
                        "needs at least one material that can yield",
                        dealii::Patterns::Double(0.));
      prm.add_parameter("Isotropic hardening", m.isotropic_hardening,
                        "Linear isotropic hardening modulus H (slope of the yield stress "
                        "over the equivalent plastic strain)",
                        dealii::Patterns::Double(0.));
      prm.add_parameter("Kinematic hardening", m.kinematic_hardening,
                        "Linear kinematic hardening modulus (Prager)",
                        dealii::Patterns::Double(0.));
      prm.add_parameter("Saturation yield stress", m.saturation_yield_stress,
                        "Voce saturation of the isotropic hardening (von Mises): sigma_y = Yield stress + "
                        "Isotropic hardening * alpha + (sigma_inf - Yield stress) (1 - exp(-Saturation rate * "
                        "alpha)) with sigma_inf >= Yield stress; 0 keeps the hardening linear",
                        dealii::Patterns::Double(0.));
      prm.add_parameter("Saturation rate", m.saturation_rate,
                        "The rate delta of the Voce saturation (> 0 with a Saturation yield stress above the "
                        "Yield stress)",
                        dealii::Patterns::Double(0.));
      prm.add_parameter("Hardening curve", m.hardening_curve,
                        "A tabulated von Mises yield stress over the accumulated plastic strain alpha, "
                        "'alpha: sigma_y; alpha: sigma_y; ...' (2 to 16 points from alpha = 0, alpha increasing, "
                        "sigma_y not decreasing), linear between the points and constant beyond the last, in "
                        "place of Yield stress (which is 0 or the first sigma_y), Isotropic hardening and the "
                        "Voce saturation. Empty: none",
                        dealii::Patterns::Anything());
      prm.add_parameter("Yield criterion", m.criterion,
                        "von Mises (J2: Yield stress, Isotropic and Kinematic hardening), Mohr-Coulomb "
                        "or Drucker-Prager (Cohesion, Friction angle, Dilation angle, Cohesion hardening; "
                        "Cone matching); the entries of the other criteria are not used");
      prm.add_parameter("Cohesion", m.cohesion, "Cohesion c of Mohr-Coulomb and Drucker-Prager (> 0)");
      prm.add_parameter("Friction angle", m.friction_angle,
                        "Friction angle phi in degrees, 0 <= phi < 90 (Mohr-Coulomb, Drucker-Prager). phi = 0 "
                        "makes Mohr-Coulomb the Tresca criterion (sigma_1 - sigma_3 = 2 c) and Drucker-Prager a "
                        "von Mises cylinder (sqrt(J2) = xi c)");
      prm.add_parameter("Dilation angle", m.dilation_angle,
                        "Dilation angle psi in degrees, 0 <= psi <= phi, or 'associative' (psi = phi). "
                        "psi < phi makes the consistent tangent non-symmetric: Linear solver/Type "
                        "gmres or belos gmres, or Newton/Tangent = initial stiffness",
                        dealii::Patterns::Anything());
      prm.add_parameter("Cohesion hardening", m.cohesion_hardening,
                        "Linear cohesion hardening: increase of c per unit accumulated plastic strain",
                        dealii::Patterns::Double(0.));
      prm.add_parameter("Second shear modulus", m.second_shear_modulus,
                        "Finite strain (Problem/Kinematics): the Mooney-Rivlin modulus mu2, the coefficient of "
                        "(I2 - 3) / 2, 0 <= mu2 <= min(mu, lambda / 2); 0 is neo-Hookean. The small-strain limit "
                        "is linear elasticity with Young's modulus and Poisson's ratio",
                        dealii::Patterns::Double(0.));
      prm.add_parameter("Strain energy", m.strain_energy,
                        "Finite strain: Mooney-Rivlin (W = (mu - mu2)/2 (I1 - 3) + mu2/2 (I2 - 3) - (mu + mu2) ln J "
                        "+ (lambda - 2 mu2)/2 (ln J)^2; neo-Hookean for mu2 = 0) or isochoric neo-Hookean (W = mu/2 "
                        "(J^-2/3 I1 - 3) + kappa/4 (J^2 - 1 - 2 ln J), kappa = lambda + 2 mu/3: deal.II's step-44; "
                        "mu2 = 0) or Hencky (W = lambda/2 (tr E)^2 + mu E:E in the logarithmic strain E = 1/2 ln C; "
                        "mu2 = 0), which elastoplastic finite-strain runs need: the yield criterion's small-strain "
                        "return acts on E, the plastic strain is logarithmic. All have the small-strain limit of "
                        "Young's modulus and Poisson's ratio");
      prm.add_parameter("Density", m.density,
                        "Mass density per unit (reference) volume, for dynamics (Time integration/Integrator); "
                        "a dynamic run needs it > 0 for every material. Statics do not use it",
                        dealii::Patterns::Double(0.));
      prm.add_parameter("Cone matching", m.cone_matching,
                        "Drucker-Prager cone through the Mohr-Coulomb pyramid of the same c and phi: outer "
                        "(compression meridians), inner (extension meridians), plane strain (same plane-strain "
                        "collapse loads)");
    }

    void
    check_material(const MaterialDescription &m, const std::string &where)
    {
      m.make(where);
    }
  } // namespace

  namespace
  {
    /** The points of 'Hardening curve' (or of the per-id key curve=); InputError naming @p entry. */
    std::vector<std::array<double, 2>>
    parse_hardening_curve(const std::string &text, const std::string &entry)
    {
      // 'alpha: sigma' items separated by ';' or spaces (per material id: 'curve=0:250e6 0.1:400e6').
      std::string normalized;
      for (std::size_t i = 0; i < text.size(); ++i)
        if (text[i] == ':')
          {
            while (!normalized.empty() && normalized.back() == ' ')
              normalized.pop_back();
            normalized += ':';
            while (i + 1 < text.size() && text[i + 1] == ' ')
              ++i;
          }
        else
          normalized += text[i] == ';' || text[i] == '\t' ? ' ' : text[i];
      std::vector<std::array<double, 2>> points;
      std::istringstream                 items(normalized);
      for (std::string item; items >> item;)
        {
          const auto colon = item.find(':');
          if (colon == std::string::npos)
            throw InputError(entry, "'" + item + "' is not 'alpha: sigma_y'");
          points.push_back({{parse_double(item.substr(0, colon), entry), parse_double(item.substr(colon + 1), entry)}});
        }
      return points;
    }
  } // namespace

  backend::MaterialConstants
  MaterialDescription::make(const std::string &where) const
  {
    try
      {
        // The finite-strain constants are checked whatever the kinematics, so
        // that a material is good or bad in both.
        const backend::MaterialConstants hyperelastic =
          make_hyperelastic_material(young_modulus, poisson_ratio, second_shear_modulus, strain_energy);
        backend::MaterialConstants m;
        if (criterion == backend::YieldCriterion::von_mises)
          {
            m = make_material(young_modulus, poisson_ratio, yield_stress, isotropic_hardening, kinematic_hardening,
                              saturation_yield_stress, saturation_rate);
            if (!hardening_curve.empty())
              m = with_hardening_curve(m, parse_hardening_curve(hardening_curve, where + "/Hardening curve"));
          }
        else
          {
            double psi = friction_angle;
            if (dilation_angle != "associative")
              psi = parse_double(dilation_angle, where + "/Dilation angle");
            m = criterion == backend::YieldCriterion::mohr_coulomb ?
                  make_mohr_coulomb(young_modulus, poisson_ratio, cohesion, friction_angle, psi, cohesion_hardening) :
                  make_drucker_prager(young_modulus, poisson_ratio, cohesion, friction_angle, psi, cone_matching,
                                      cohesion_hardening);
          }
        m.second_shear_modulus = hyperelastic.second_shear_modulus;
        m.strain_energy        = hyperelastic.strain_energy;
        if (!(density >= 0.) || !std::isfinite(density))
          throw std::invalid_argument("the density must be finite and >= 0");
        m.density = density;
        return m;
      }
    catch (const std::invalid_argument &error)
      {
        throw InputError(where, error.what());
      }
  }

  bool
  MaterialDescription::can_yield() const
  {
    return criterion != backend::YieldCriterion::von_mises || yield_stress > 0 || !hardening_curve.empty();
  }

  bool
  MaterialDescription::has_symmetric_tangent() const
  {
    if (criterion == backend::YieldCriterion::von_mises || dilation_angle == "associative")
      return true;
    return !(parse_double(dilation_angle, "Materials/Dilation angle") < friction_angle);
  }

  void
  MaterialParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Materials");
    declare_material_entries(prm, default_material);
    prm.add_parameter("Per material id", per_material_id_text,
                      "Materials of particular material ids, overriding the entries above: "
                      "'id: E=..., nu=..., yield=..., H=..., Hkin=..., yield_inf=... (Saturation yield stress), "
                      "delta=... (Saturation rate), curve=0:250e6 0.1:400e6 (Hardening curve, points "
                      "separated by spaces); id: ...', and for the pressure-"
                      "dependent criteria criterion=Mohr-Coulomb|Drucker-Prager|von Mises, c=..., "
                      "phi=..., psi=...|associative, Hc=... (cohesion hardening), cone=outer|inner|"
                      "plane strain, and at finite strain mu2=... (Second shear modulus), energy=Mooney-"
                      "Rivlin|isochoric neo-Hookean|Hencky (Strain energy), and for dynamics rho=... (Density) (omitted keys take "
                      "the values above)",
                      dealii::Patterns::Anything());
    prm.leave_subsection();
  }

  void
  MaterialParameters::check()
  {
    check_material(default_material, "Materials");
    per_material_id.clear();
    const std::string entry = "Materials/Per material id";
    for (const auto &[id_text, rest] : parse_id_list(per_material_id_text, entry, "1: E=70e9, nu=0.33"))
      {
        const auto          id = parse_id(id_text, entry, "material id");
        MaterialDescription m  = default_material;
        for (const auto &assignment : split(rest, ','))
          {
            if (assignment.empty())
              continue;
            const auto eq = assignment.find('=');
            if (eq == std::string::npos)
              throw InputError(entry, "'" + assignment + "' is not 'key=value'");
            const std::string key   = trim(assignment.substr(0, eq));
            const std::string text  = trim(assignment.substr(eq + 1));
            try
              {
                if (key == "criterion")
                  {
                    m.criterion = parse_enum<backend::YieldCriterion>(text);
                    continue;
                  }
                if (key == "cone")
                  {
                    m.cone_matching = parse_enum<ConeMatching>(text);
                    continue;
                  }
                if (key == "energy")
                  {
                    m.strain_energy = parse_enum<backend::StrainEnergy>(text);
                    continue;
                  }
              }
            catch (const std::invalid_argument &error)
              {
                throw InputError(entry, error.what());
              }
            if (key == "psi")
              {
                if (text != "associative")
                  parse_double(text, entry);
                m.dilation_angle = text;
                continue;
              }
            if (key == "curve")
              {
                parse_hardening_curve(text, entry);
                m.hardening_curve = text;
                continue;
              }
            const double value = parse_double(text, entry);
            if (key == "E")
              m.young_modulus = value;
            else if (key == "nu")
              m.poisson_ratio = value;
            else if (key == "yield")
              m.yield_stress = value;
            else if (key == "H")
              m.isotropic_hardening = value;
            else if (key == "Hkin")
              m.kinematic_hardening = value;
            else if (key == "yield_inf")
              m.saturation_yield_stress = value;
            else if (key == "delta")
              m.saturation_rate = value;
            else if (key == "c")
              m.cohesion = value;
            else if (key == "phi")
              m.friction_angle = value;
            else if (key == "Hc")
              m.cohesion_hardening = value;
            else if (key == "mu2")
              m.second_shear_modulus = value;
            else if (key == "rho")
              m.density = value;
            else
              throw InputError(entry, "unknown key '" + key +
                                        "' (expected E, nu, yield, H, Hkin, yield_inf, delta, curve, criterion, c, phi, psi, Hc, cone, mu2, "
                                        "energy, rho)");
          }
        check_material(m, entry + " (material id " + id_text + ")");
        per_material_id[id] = m;
      }
  }

  void
  InitialStressParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Initial stress");
    prm.add_parameter("Stress", expression,
                      "In-situ stress of the Mohr-Coulomb and Drucker-Prager materials (von Mises cells "
                      "take none): six expressions of x, y, z (and pi and the Constants) separated by "
                      "';', components 'xx; yy; zz; yz; xz; xy', tension positive. The boundary loads "
                      "are changes from this state: its internal force at u = 0 is held at every load "
                      "factor. It must lie inside the yield surface",
                      dealii::Patterns::Anything());
    prm.add_parameter("Constants", constants_text,
                      "Constants of the expressions: 'name = value, ...', e.g. 'p0 = -50e6, k0 = 0.8'",
                      dealii::Patterns::Anything());
    prm.leave_subsection();
  }

  void
  InitialStressParameters::check()
  {
    constants.clear();
    for (const auto &item : split(constants_text, ','))
      {
        if (item.empty())
          continue;
        const auto eq = item.find('=');
        if (eq == std::string::npos)
          throw InputError("Initial stress/Constants", "'" + item + "' is not 'name = value'");
        const std::string name = trim(item.substr(0, eq));
        if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_') ||
            !std::all_of(name.begin(), name.end(),
                         [](const char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
          throw InputError("Initial stress/Constants", "'" + name + "' is not a name");
        constants[name] = parse_double(trim(item.substr(eq + 1)), "Initial stress/Constants");
      }
    if (split(expression, ';').size() != 6)
      throw InputError("Initial stress/Stress", "'" + expression +
                                                  "' must be six expressions 'xx; yy; zz; yz; xz; xy' separated by ';'");
    const std::string failure = parser_failure([&] { (void)function()(dealii::Point<3>(0.1234, 0.5678, 0.9012)); });
    if (!failure.empty())
      throw InputError("Initial stress/Stress",
                       "'" + expression + "' is not six expressions of x, y, z (" + failure + ")");
  }

  bool
  InitialStressParameters::is_zero() const
  {
    for (const auto &part : split(expression, ';'))
      if (part != "0")
        return false;
    return true;
  }

  std::function<dealii::SymmetricTensor<2, 3>(const dealii::Point<3> &)>
  InitialStressParameters::function() const
  {
    auto parser = std::make_shared<dealii::FunctionParser<3>>(6);
    std::map<std::string, double> all_constants = constants;
    all_constants.emplace("pi", dealii::numbers::PI);
    parser->initialize("x,y,z", expression, all_constants);
    return [parser](const dealii::Point<3> &x) {
      dealii::Vector<double> values(6);
      parser->vector_value(x, values);
      dealii::SymmetricTensor<2, 3> sigma;
      sigma[0][0] = values[0];
      sigma[1][1] = values[1];
      sigma[2][2] = values[2];
      sigma[1][2] = values[3];
      sigma[0][2] = values[4];
      sigma[0][1] = values[5];
      return sigma;
    };
  }
} // namespace plastix
