// The subsection Time integration: declaration and checks.
#include <deal.II/base/function_parser.h>
#include <deal.II/base/utilities.h>

#include "parameters.h"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace plastix
{
  void
  TimeIntegrationParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Time integration");
    prm.add_parameter("Integrator", integrator_name,
                      "none: statics. Newmark (average acceleration), midpoint (equilibrium at the mid-step), "
                      "generalized alpha (Chung-Hulbert, Spectral radius): implicit, Newton on K + c M with the "
                      "linear solver of 'Linear solver'; central differences: explicit with the row-sum lumped "
                      "mass. Small-strain elasticity or finite-strain hyperelasticity (Problem/Kinematics), "
                      "Problem/Type = elastic",
                      dealii::Patterns::Selection("none|" + enum_names<TimeIntegrator>("|")));
    prm.add_parameter("Time step", time_step,
                      "The time step; 0 with central differences: Critical step fraction times the estimated "
                      "critical step", dealii::Patterns::Double(0.));
    prm.add_parameter("End time", end_time, "The run goes from t = 0 to this time", dealii::Patterns::Double(0.));
    prm.add_parameter("Spectral radius", spectral_radius,
                      "rho_inf of generalized alpha in [0, 1]: 1 no numerical damping, 0 the highest "
                      "frequencies removed in one step", dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Mass matrix", mass_matrix,
                      "consistent or lumped (row sums); central differences uses the row sums of either");
    prm.add_parameter("Mass damping", mass_damping,
                      "Rayleigh damping C = alpha_M M + beta_K K: alpha_M (1/time)", dealii::Patterns::Double(0.));
    prm.add_parameter("Stiffness damping", stiffness_damping,
                      "Rayleigh beta_K (time), small strain only", dealii::Patterns::Double(0.));
    prm.add_parameter("Critical step fraction", critical_step_fraction,
                      "Central differences: the step with Time step = 0, and the largest allowed one, as a "
                      "fraction of the critical step 2 / omega_max estimated by power iterations",
                      dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Maximum iterations", max_iterations, "Newton iterations per implicit step",
                      dealii::Patterns::Integer(1, 1000));
    prm.add_parameter("Residual tolerance", residual_tolerance,
                      "An implicit step has converged when |R| <= tolerance * the largest force of the run "
                      "(internal, inertial, external)", dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Linear tolerance", linear_tolerance, "Relative tolerance of the linear solves",
                      dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Maximum cuts", max_cuts,
                      "Implicit integrators: a step whose Newton iteration fails is retried with half the time "
                      "step, at most this many times in a row (0: the run fails at once); each converged step "
                      "doubles the step again, up to Time step", dealii::Patterns::Integer(0, 30));
    prm.add_parameter("Output interval", output_interval,
                      "Write the VTU and a monitor row every this many steps (and after the last)",
                      dealii::Patterns::Integer(1));
    prm.add_parameter("Initial displacement", initial_displacement,
                      "The displacement at t = 0: three expressions in x, y, z separated by ';' (pi known; "
                      "prescribed displacements take their values)", dealii::Patterns::Anything());
    prm.add_parameter("Initial velocity", initial_velocity,
                      "The velocity at t = 0: three expressions in x, y, z separated by ';' (zero on "
                      "prescribed displacements)", dealii::Patterns::Anything());
    prm.add_parameter("Load amplitude", load_amplitude,
                      "The loads of 'Boundary conditions' times this expression in t (the prescribed "
                      "displacements hold their values)", dealii::Patterns::Anything());
    prm.leave_subsection();
  }

  bool
  TimeIntegrationParameters::is_dynamic() const
  {
    return integrator_name != "none";
  }

  void
  TimeIntegrationParameters::check()
  {
    if (!is_dynamic())
      return;
    integrator = parse_enum<TimeIntegrator>(integrator_name);
    if (integrator != TimeIntegrator::central_differences && !(time_step > 0.))
      throw InputError("Time integration/Time step", "an implicit integrator needs a time step > 0");
    if (!(end_time > 0.) || !std::isfinite(end_time))
      throw InputError("Time integration/End time", "must be finite and > 0");
    if (time_step > end_time)
      throw InputError("Time integration/Time step", "is larger than the End time");
    if (!(critical_step_fraction > 0.))
      throw InputError("Time integration/Critical step fraction", "must be > 0");
    if (time_step > 0. && end_time / time_step > 1e8)
      throw InputError("Time integration/Time step", "gives more than 1e8 steps to the End time");
    amplitude = LoadAmplitude::parse(load_amplitude, "Time integration/Load amplitude");
    for (const auto &[text, entry] : {std::pair<std::string, std::string>(initial_displacement, "Initial displacement"),
                                      std::pair<std::string, std::string>(initial_velocity, "Initial velocity")})
      {
        if (split(text, ';').size() != 3)
          throw InputError("Time integration/" + entry,
                           "'" + text + "' must be three expressions of x, y, z separated by ';'");
        const std::string failure = parser_failure([&] {
          dealii::Vector<double> values(3);
          vector_function(text)->vector_value(dealii::Point<3>(0.1234, 0.5678, 0.9012), values);
        });
        if (!failure.empty())
          throw InputError("Time integration/" + entry,
                           "'" + text + "' is not three expressions of x, y, z (" + failure + ")");
      }
  }

  std::shared_ptr<dealii::Function<3>>
  TimeIntegrationParameters::vector_function(const std::string &expressions)
  {
    auto parser = std::make_shared<dealii::FunctionParser<3>>(3);
    parser->initialize("x,y,z", expressions, {{"pi", dealii::numbers::PI}});
    return parser;
  }

  bool
  TimeIntegrationParameters::is_zero(const std::string &expressions)
  {
    const std::vector<std::string> parts = dealii::Utilities::split_string_list(expressions, ';');
    if (parts.size() != 3)
      return false;
    for (const std::string &part : parts)
      {
        char        *end   = nullptr;
        const double value = std::strtod(part.c_str(), &end);
        if (end == part.c_str() || *end != '\0' || value != 0.)
          return false;
      }
    return true;
  }

  void
  Parameters::check_dynamics() const
  {
    if (problem.type == ProblemType::elastoplastic)
      throw InputError("Time integration/Integrator", "dynamics takes elastic or hyperelastic materials "
                                                      "(Problem/Type = elastic)");
    if (time_integration.stiffness_damping > 0. && problem.kinematics == Kinematics::finite_strain)
      throw InputError("Time integration/Stiffness damping", "is for small strain only (use Mass damping)");
    const auto check_density = [](const MaterialDescription &m, const std::string &where) {
      if (!(m.density > 0.))
        throw InputError(where, "a dynamic run needs a density > 0 (Materials/Density, or rho= per material id)");
    };
    // Per material id materials start from the default one (its density too).
    if (materials.per_material_id.empty())
      check_density(materials.default_material, "Materials/Density");
    for (const auto &[id, m] : materials.per_material_id)
      check_density(m, "Materials/Per material id (material id " + std::to_string(id) + ")");
  }
} // namespace plastix
