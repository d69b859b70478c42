// Warnings about a parameter file: renamed entries, entries without effect.
#include "parameter_warnings.h"
#include "parameters.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace plastix
{
  namespace
  {
    /** @p text without leading and trailing blanks and with every run of blanks made one blank. */
    std::string
    normalized(const std::string &text)
    {
      std::istringstream words(text);
      std::string        result, word;
      while (words >> word)
        result += (result.empty() ? "" : " ") + word;
      return result;
    }

    bool
    starts_with(const std::string &text, const std::string &prefix)
    {
      return text.compare(0, prefix.size(), prefix) == 0;
    }
  } // namespace

  const std::vector<RenamedEntry> &
  renamed_entries()
  {
    static const std::vector<RenamedEntry> entries = {
      {"Monitor", "Plot column", "Plot x column"},
    };
    return entries;
  }

  void
  declare_renamed_entries(dealii::ParameterHandler &prm)
  {
    // Not deal.II's deprecated aliases: deal.II would print its note on
    // every MPI rank; parameter_warnings() says it once.
    for (const RenamedEntry &entry : renamed_entries())
      {
        prm.enter_subsection(entry.subsection);
        prm.declare_alias(entry.new_name, entry.old_name, false);
        prm.leave_subsection();
      }
  }

  std::vector<std::string>
  entries_set_in(const std::string &text)
  {
    std::vector<std::string> path, entries;
    std::istringstream       lines(text);
    for (std::string line; std::getline(lines, line);)
      {
        line = normalized(line.substr(0, line.find('#')));
        if (starts_with(line, "subsection "))
          path.push_back(line.substr(11));
        else if (line == "end" && !path.empty())
          path.pop_back();
        else if (starts_with(line, "set ") && line.find('=') != std::string::npos)
          {
            std::string name = normalized(line.substr(4, line.find('=') - 4));
            for (auto it = path.rbegin(); it != path.rend(); ++it)
              name = *it + "/" + name;
            entries.push_back(name);
          }
      }
    return entries;
  }

  std::vector<std::string>
  parameter_warnings(const Parameters &parameters, const std::vector<std::string> &set_entries)
  {
    std::vector<std::string> warnings;
    // ParameterHandler takes the last of several values of one entry without a word.
    std::map<std::string, unsigned int> times_set;
    for (const std::string &entry : set_entries)
      if (++times_set[entry] == 2)
        warnings.push_back(entry + " is set more than once; the last value counts");
    for (const RenamedEntry &entry : renamed_entries())
      {
        const std::string old_path = std::string(entry.subsection) + "/" + entry.old_name;
        if (std::find(set_entries.begin(), set_entries.end(), old_path) != set_entries.end())
          warnings.push_back(old_path + " is the former name of " + entry.subsection + "/" + entry.new_name +
                             "; it still works, but use the new name");
      }
    if (parameters.boundary.follower_pressure && !parameters.boundary.is_given("pressure"))
      warnings.push_back("Boundary conditions/Follower pressure has no effect: no pressure load is given");
    for (const auto &[kind, amplitude] : parameters.boundary.amplitudes)
      {
        const std::string entry = BoundaryParameters::amplitude_entry(kind);
        const bool        given = parameters.boundary.is_given(kind);
        if (!given)
          warnings.push_back(entry + " has no effect: " +
                             (kind == "dirichlet" ? std::string("every prescribed displacement is zero") :
                                                    "no " + kind + " load is given"));
        // A path-dependent run sees the amplitude only at the load factors
        // of its steps: a corner of a table between two of them is cut off.
        if (parameters.problem.type != ProblemType::elastoplastic || !given)
          continue;
        const std::vector<double> &factors = parameters.load_stepping.load_factors;
        std::ostringstream         cut;
        for (const double corner : amplitude.table_load_factors())
          for (std::size_t i = 0; i < factors.size(); ++i)
            {
              const double before = i == 0 ? 0. : factors[i - 1], after = factors[i];
              if (std::min(before, after) < corner && corner < std::max(before, after))
                {
                  cut << (cut.str().empty() ? "" : ", ") << corner;
                  break;
                }
            }
        if (!cut.str().empty())
          warnings.push_back(entry + ": the load steps interpolate across its table points at t = " + cut.str() +
                             " (inside a step); add them to Load stepping/Load factors");
      }
    // Strength and stiffness in different units (E in Pa, the yield stress
    // in MPa, or the reverse) give a ratio no material has.
    const auto check_strength = [&](const MaterialDescription &m, const std::string &where) {
      const bool   mises    = m.criterion == backend::YieldCriterion::von_mises;
      const double strength = mises ? m.yield_stress : m.cohesion;
      if (!(strength > 0.) || !(m.young_modulus > 0.))
        return;
      const double ratio = strength / m.young_modulus;
      if (ratio >= 1e-6 && ratio <= 100.)
        return;
      std::ostringstream text;
      text.precision(3);
      text << where << ": the " << (mises ? "yield stress " : "cohesion ") << strength << " is " << ratio
           << " times Young's modulus " << m.young_modulus
           << " (checked: between 1e-6 and 100 times; metals yield near 1e-3 E, soils near 1e-4 to 1e-2 E); "
              "give both in one unit, Pa or MPa";
      warnings.push_back(text.str());
    };
    if (parameters.problem.type == ProblemType::elastoplastic)
      {
        check_strength(parameters.materials.default_material, "Materials");
        for (const auto &[id, m] : parameters.materials.per_material_id)
          check_strength(m, "Materials/Per material id, id " + std::to_string(id));
      }
    // The finite-strain laws: an elastoplastic run that sets them but not
    // the kinematics is a small-strain run (a Hencky material forgotten).
    if (parameters.problem.type == ProblemType::elastoplastic &&
        parameters.problem.kinematics == Kinematics::small_strain)
      {
        std::string unused;
        for (const std::string &entry : set_entries)
          if (entry == "Materials/Second shear modulus" || entry == "Materials/Strain energy")
            unused += (unused.empty() ? "" : ", ") + entry;
        if (!unused.empty())
          warnings.push_back("entries without effect in a small-strain run (Problem/Kinematics = small strain): " +
                             unused);
      }
    if (parameters.problem.type == ProblemType::elastic)
      {
        // What only an elastoplastic run reads; a finite-strain run reads
        // the Newton and load-stepping entries too, a dynamic run the
        // checkpoint entries and Steps per run.
        const bool               finite_strain = parameters.problem.kinematics == Kinematics::finite_strain;
        const bool               dynamic       = parameters.time_integration.is_dynamic();
        std::vector<std::string> plastic_only  = {
          "Materials/Yield stress", "Materials/Isotropic hardening", "Materials/Kinematic hardening",
          "Materials/Yield criterion", "Materials/Cohesion", "Materials/Friction angle", "Materials/Dilation angle",
          "Materials/Cohesion hardening", "Materials/Cone matching", "Initial stress/", "Mesh/Adaptive refinement/"};
        if (!dynamic)
          plastic_only.emplace_back("Output/Checkpoint wall time");
        if (!finite_strain)
          for (const char *entry : {"Newton/", "Load stepping/Minimum increment", "Load stepping/Maximum cuts",
                                    "Materials/Second shear modulus", "Materials/Strain energy"})
            plastic_only.emplace_back(entry);
        if (!finite_strain && !dynamic)
          for (const char *entry : {"Load stepping/Steps per run", "Output/Checkpoint interval"})
            plastic_only.emplace_back(entry);
        std::string unused;
        for (const std::string &entry : set_entries)
          for (const std::string &prefix : plastic_only)
            if (entry == prefix || (prefix.back() == '/' && starts_with(entry, prefix)))
              {
                unused += (unused.empty() ? "" : ", ") + entry;
                break;
              }
        if (!unused.empty())
          warnings.push_back("entries without effect in " +
                             std::string(finite_strain ? "a finite-strain run (Problem/Kinematics)" :
                                                         "an elastic run (Problem/Type = elastic)") +
                             ": " + unused);
        if (parameters.output.writes("plastic strain"))
          warnings.push_back("Output/Additional quantities: an elastic run has no plastic strain; it is not "
                             "written");
      }
    return warnings;
  }
} // namespace plastix
