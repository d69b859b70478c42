// The subsection Boundary conditions: declaration, parsing of the condition lists, amplitudes.
#include <deal.II/base/function_parser.h>
#include <deal.II/base/patterns.h>
#include <deal.II/base/utilities.h>

#include <plastix/core/mechanics_operator.h>

#include "parameters.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace plastix
{
  namespace
  {
    /** @p kind with its first letter in upper case: the entry name of a kind of load ("body force": "Body force"). */
    std::string
    capitalized(std::string kind)
    {
      kind[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(kind[0])));
      return kind;
    }

    /** One item 'id: components = values' of Boundary conditions/Dirichlet. */
    DirichletCondition
    parse_dirichlet_condition(const std::string &id_text, const std::string &rest, const std::string &entry)
    {
      DirichletCondition c;
      c.boundary_id = parse_id(id_text, entry, "boundary id");
      const auto eq = rest.find('=');
      if (eq == std::string::npos)
        throw InputError(entry, "'" + rest + "' is not 'components = values'");
      const std::string components = trim(rest.substr(0, eq));
      const auto        values     = split(rest.substr(eq + 1), ',');
      if (components.empty())
        throw InputError(entry, "no components given for boundary id " + id_text);
      unsigned int n = 0;
      for (const char ch : components)
        {
          if (ch != 'x' && ch != 'y' && ch != 'z')
            throw InputError(entry, "component '" + std::string(1, ch) + "' is not x, y or z");
          const unsigned int d = ch - 'x';
          if (c.components[d])
            throw InputError(entry, "component '" + std::string(1, ch) + "' given twice");
          c.components[d] = true;
          if (n >= values.size())
            throw InputError(entry, "boundary id " + id_text + ": " + std::to_string(components.size()) +
                                      " components but " + std::to_string(values.size()) + " values");
          c.values[d] = parse_double(values[n++], entry);
        }
      if (n != values.size())
        throw InputError(entry, "boundary id " + id_text + ": " + std::to_string(components.size()) +
                                  " components but " + std::to_string(values.size()) + " values");
      return c;
    }

    /** The 'k_n, k_t' of one item of Boundary conditions/Springs. */
    BoundarySpring
    parse_spring(const std::string &id_text, const std::string &rest, const std::string &entry)
    {
      const auto values = split(rest, ',');
      if (values.size() != 2)
        throw InputError(entry, "boundary id " + id_text + ": '" + trim(rest) +
                                  "' is not 'k_n, k_t' (normal and tangential stiffness per area)");
      BoundarySpring spring;
      spring.normal_stiffness     = parse_double(values[0], entry);
      spring.tangential_stiffness = parse_double(values[1], entry);
      if (!(spring.normal_stiffness >= 0) || !(spring.tangential_stiffness >= 0) ||
          !std::isfinite(spring.normal_stiffness) || !std::isfinite(spring.tangential_stiffness) ||
          spring.normal_stiffness + spring.tangential_stiffness == 0)
        throw InputError(entry, "boundary id " + id_text + ": the stiffnesses must be finite and >= 0, not both 0");
      return spring;
    }
  } // namespace

  void
  BoundaryParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Boundary conditions");
    prm.add_parameter("Dirichlet", dirichlet_text,
                      "Prescribed displacements: 'id: components = values; ...', components "
                      "a subset of xyz, e.g. '0: xyz = 0, 0, 0; 3: z = -0.001' (scaled by "
                      "the load factor)",
                      dealii::Patterns::Anything());
    prm.add_parameter("Traction", traction_text,
                      "Surface tractions (force per area): 'id: tx, ty, tz; ...'",
                      dealii::Patterns::Anything());
    prm.add_parameter("Pressure", pressure_text,
                      "Normal pressure (force per area, positive pushes into the body): 'id: p; ...'",
                      dealii::Patterns::Anything());
    prm.add_parameter("Follower pressure", follower_pressure,
                      "With Problem/Kinematics = finite strain: whether the pressures act on the deformed "
                      "surface, their direction and area following the deformation (true: a follower load, "
                      "whose load stiffness makes the tangent non-symmetric, so auto takes gmres), or on the "
                      "reference surface (false: dead loads, like the tractions)");
    prm.add_parameter("Body force", body_force, "Force per volume, 'fx, fy, fz'");
    prm.add_parameter("Point loads", point_loads_text,
                      "Forces at vertices of the mesh: 'x, y, z: fx, fy, fz; ...' (a force, scaled by the "
                      "load factor like the other loads); each point must be a vertex of the mesh (within "
                      "1e-6 of the body's size), or the run ends naming the nearest vertex",
                      dealii::Patterns::Anything());
    prm.add_parameter("Normal supports", normal_supports_text,
                      "Boundary ids whose displacement along the face normal is zero while the tangential "
                      "components are free (rollers, on faces of any orientation, curved ones too: deal.II's "
                      "compute_no_normal_flux_constraints), comma separated, e.g. '0, 3'. Where a normal "
                      "support meets a Dirichlet face the Dirichlet values hold. Multigrid takes supports "
                      "normal to x, y or z (auto takes it then); an inclined or curved one takes "
                      "chebyshev (auto), jacobi, amg or Type = direct",
                      dealii::Patterns::Anything());
    prm.add_parameter("Springs", springs_text,
                      "Elastic supports (a bed of springs, a Winkler foundation) on boundary faces: "
                      "'id: k_n, k_t; ...' with the normal and the tangential stiffness per unit area (force "
                      "per area per unit displacement, >= 0, not both 0): the face is pushed back by the "
                      "traction -(k_n u_n n + k_t u_t). Not scaled by the load factor; a Dirichlet condition "
                      "on the same DoFs holds",
                      dealii::Patterns::Anything());
    prm.add_parameter("Constant loads", constant_loads,
                      "Kinds of load held at their full value from the first load step on, at every load "
                      "factor (gravity under a ramped traction, a preload held while another load cycles): "
                      "any of body force, traction, pressure, point loads, comma separated; the others and "
                      "the prescribed displacements follow the load factor",
                      dealii::Patterns::MultipleSelection("body force|traction|pressure|point loads"));
    prm.enter_subsection("Amplitudes");
    std::vector<std::string> kinds = force_kinds();
    kinds.insert(kinds.begin(), "dirichlet");
    for (const std::string &kind : kinds)
      prm.add_parameter(capitalized(kind), amplitude_texts[kind],
                        "The factor of the " + (kind == "dirichlet" ? std::string("prescribed displacements") : kind + " loads") +
                          " over the load factor t, instead of t itself: a table 't: a, t: a, ...' "
                          "(increasing t, linear in between, the end values outside), e.g. '0: 0, 1: 1, 2: -1, "
                          "3: 0' for one cycle, or an expression of t (deal.II FunctionParser, pi known), e.g. "
                          "'sin(pi * t)'. Empty: t. A kind in Constant loads takes no amplitude",
                        dealii::Patterns::Anything());
    prm.leave_subsection();
    prm.leave_subsection();
  }

  const std::vector<std::string> &
  BoundaryParameters::force_kinds()
  {
    static const std::vector<std::string> kinds = {"body force", "traction", "pressure", "point loads"};
    return kinds;
  }

  std::string
  BoundaryParameters::amplitude_entry(const std::string &kind)
  {
    return "Boundary conditions/Amplitudes/" + capitalized(kind);
  }

  bool
  BoundaryParameters::is_given(const std::string &kind) const
  {
    if (kind == "dirichlet")
      {
        for (const DirichletCondition &c : dirichlet)
          for (unsigned int d = 0; d < 3; ++d)
            if (c.components[d] && c.values[d] != 0.)
              return true;
        return false;
      }
    if (kind == "body force")
      return body_force.norm() > 0;
    if (kind == "point loads")
      return !point_loads.empty();
    for (const auto &t : tractions)
      if ((t.pressure != 0.) == (kind == "pressure"))
        return true;
    return false;
  }

  LoadAmplitude
  BoundaryParameters::amplitude(const std::string &kind) const
  {
    if (kind != "dirichlet" && is_constant(kind))
      return LoadAmplitude::constant();
    const auto it = amplitudes.find(kind);
    return it != amplitudes.end() ? it->second : LoadAmplitude();
  }

  bool
  BoundaryParameters::is_constant(const std::string &kind) const
  {
    return list_contains(constant_loads, kind);
  }

  bool
  BoundaryParameters::has_constant_loads() const
  {
    for (const std::string &kind : force_kinds())
      if (is_constant(kind) && is_given(kind))
        return true;
    return false;
  }

  std::map<dealii::types::boundary_id, double>
  BoundaryParameters::pressures() const
  {
    std::map<dealii::types::boundary_id, double> result;
    for (const TractionCondition &t : tractions)
      if (t.pressure != 0.)
        result[t.boundary_id] += t.pressure;
    return result;
  }

  DirichletBoundaries
  BoundaryParameters::dirichlet_boundaries() const
  {
    DirichletBoundaries boundaries;
    for (const auto &condition : dirichlet)
      {
        const dealii::ComponentMask mask(std::vector<bool>(condition.components.begin(), condition.components.end()));
        const auto [it, inserted] = boundaries.emplace(condition.boundary_id, mask);
        if (!inserted)
          it->second = it->second | mask;
      }
    return boundaries;
  }

  void
  BoundaryParameters::check()
  {
    dirichlet.clear();
    tractions.clear();
    point_loads.clear();
    {
      const std::string entry = "Boundary conditions/Dirichlet";
      for (const auto &[id_text, rest] : parse_id_list(dirichlet_text, entry, "0: xyz = 0, 0, 0"))
        {
          dirichlet.push_back(parse_dirichlet_condition(id_text, rest, entry));
        }
    }
    {
      const std::string entry = "Boundary conditions/Traction";
      for (const auto &[id_text, rest] : parse_id_list(traction_text, entry, "1: 0, 0, -1e6"))
        {
          TractionCondition c;
          c.boundary_id = parse_id(id_text, entry, "boundary id");
          c.traction    = parse_vector(rest, entry);
          tractions.push_back(c);
        }
    }
    {
      const std::string entry = "Boundary conditions/Pressure";
      for (const auto &[id_text, rest] : parse_id_list(pressure_text, entry, "1: 1e6"))
        {
          TractionCondition c;
          c.boundary_id = parse_id(id_text, entry, "boundary id");
          c.pressure    = parse_double(rest, entry);
          tractions.push_back(c);
        }
    }
    {
      const std::string entry = "Boundary conditions/Point loads";
      for (const std::string &item : split(point_loads_text, ';'))
        {
          if (trim(item).empty())
            continue;
          const auto colon = item.find(':');
          if (colon == std::string::npos)
            throw InputError(entry, "'" + trim(item) + "' is not 'x, y, z: fx, fy, fz'");
          PointLoad load;
          const auto location = parse_vector(item.substr(0, colon), entry);
          for (unsigned int d = 0; d < 3; ++d)
            load.location[d] = location[d];
          load.force = parse_vector(item.substr(colon + 1), entry);
          point_loads.push_back(load);
        }
    }
    normal_supports.clear();
    for (const auto &item : split(normal_supports_text, ','))
      if (!item.empty())
        {
          const auto id = parse_id(item, "Boundary conditions/Normal supports", "boundary id");
          if (std::find(normal_supports.begin(), normal_supports.end(), id) != normal_supports.end())
            throw InputError("Boundary conditions/Normal supports", "boundary id " + item + " is listed twice");
          for (const auto &d : dirichlet)
            if (d.boundary_id == id)
              throw InputError("Boundary conditions/Normal supports",
                               "boundary id " + item + " has a Dirichlet condition too; give it one of the two");
          normal_supports.push_back(id);
        }
    springs.clear();
    {
      const std::string entry = "Boundary conditions/Springs";
      for (const auto &[id_text, rest] : parse_id_list(springs_text, entry, "0: 1e9, 1e8"))
        {
          const auto           id     = parse_id(id_text, entry, "boundary id");
          const BoundarySpring spring = parse_spring(id_text, rest, entry);
          if (!springs.emplace(id, spring).second)
            throw InputError(entry, "boundary id " + id_text + " is listed twice");
          for (const auto &d : dirichlet)
            if (d.boundary_id == id && d.components[0] && d.components[1] && d.components[2])
              throw InputError(entry, "boundary id " + id_text +
                                        " has a fully prescribed displacement, where springs do nothing");
        }
    }
    amplitudes.clear();
    for (const auto &[kind, text] : amplitude_texts)
      {
        if (trim(text).empty())
          continue;
        const std::string entry = amplitude_entry(kind);
        if (kind != "dirichlet" && is_constant(kind))
          throw InputError(entry, "the " + kind + " loads are in Constant loads too; give them one of the two");
        amplitudes[kind] = LoadAmplitude::parse(text, entry);
      }
    for (const auto &t : tractions)
      for (const auto &d : dirichlet)
        if (t.boundary_id == d.boundary_id && d.components[0] && d.components[1] && d.components[2])
          throw InputError("Boundary conditions",
                           "boundary id " + std::to_string(t.boundary_id) +
                             " has both a load and a fully prescribed displacement");
  }
} // namespace plastix
