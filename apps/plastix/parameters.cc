// Declaration, reading and checking of the run parameters.
#include <deal.II/base/exceptions.h>
#include <deal.II/base/function_parser.h>
#include <deal.II/base/patterns.h>
#include <deal.II/base/utilities.h>

#include <plastix/backend/device.h>
#include <plastix/core/mechanics_operator.h>

#include "mesh_generation.h"
#include "parameter_warnings.h"
#include "parameters.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace plastix
{
  std::string
  trim(const std::string &s)
  {
    const auto begin = s.find_first_not_of(" \t\n\r");
    if (begin == std::string::npos)
      return "";
    const auto end = s.find_last_not_of(" \t\n\r");
    return s.substr(begin, end - begin + 1);
  }

  std::string
  to_lower(std::string text)
  {
    for (auto &c : text)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  }

  namespace
  {

    /** The items of the list @p s (deal.II's split_string_list), trimmed of tabs and line breaks too. */
    std::vector<std::string>
    split(const std::string &s, const char separator)
    {
      auto parts = dealii::Utilities::split_string_list(s, separator);
      for (auto &part : parts)
        part = trim(part);
      return parts;
    }

    /** Whether the comma-separated list @p list (a MultipleSelection's value) holds @p item. */
    bool
    list_contains(const std::string &list, const std::string &item)
    {
      const auto items = split(list, ',');
      return std::find(items.begin(), items.end(), item) != items.end();
    }

    double
    parse_double(const std::string &text, const std::string &entry)
    {
      try
        {
          std::size_t  used  = 0;
          const double value = std::stod(text, &used);
          if (trim(text.substr(used)).empty())
            {
              if (!std::isfinite(value))
                throw InputError(entry, "'" + text + "' is not a finite number");
              return value;
            }
        }
      catch (const InputError &)
        {
          throw;
        }
      catch (const std::exception &)
        {}
      throw InputError(entry, "'" + text + "' is not a number");
    }

    dealii::types::boundary_id
    parse_id(const std::string &text, const std::string &entry, const std::string &what)
    {
      const double value = parse_double(text, entry);
      if (value < 0 || value > 254 || value != static_cast<int>(value))
        throw InputError(entry, "'" + text + "' is not a valid " + what + " (an integer 0..254)");
      return static_cast<dealii::types::boundary_id>(value);
    }

    /** Split "id: rest; id: rest" into (id text, rest) pairs. */
    std::vector<std::pair<std::string, std::string>>
    parse_id_list(const std::string &text, const std::string &entry, const std::string &example)
    {
      std::vector<std::pair<std::string, std::string>> items;
      for (const auto &item : split(text, ';'))
        {
          if (item.empty())
            continue;
          const auto colon = item.find(':');
          if (colon == std::string::npos)
            throw InputError(entry, "'" + item + "' lacks 'id:' (expected e.g. '" + example + "')");
          items.emplace_back(trim(item.substr(0, colon)), trim(item.substr(colon + 1)));
        }
      return items;
    }
  } // namespace

  /**
   * The parser's own words from a deal.II exception text (the part after
   * "Additional information:"), on one line.
   */
  std::string
  parser_message(const std::string &text)
  {
    const auto        at      = text.find("Additional information:");
    std::string       message = at == std::string::npos ? text : text.substr(at + 23);
    message                   = message.substr(0, message.find("Stacktrace"));
    std::string       line;
    for (const char c : message)
      {
        if (c == '-' && line.size() > 2 && line.compare(line.size() - 2, 2, "--") == 0)
          break; // deal.II's closing line of dashes
        if (std::isspace(static_cast<unsigned char>(c)))
          {
            if (!line.empty() && line.back() != ' ')
              line += ' ';
          }
        else
          line += c;
      }
    while (!line.empty() && (line.back() == ' ' || line.back() == '-'))
      line.pop_back();
    return line;
  }

  void
  check_includes(const std::string &file, std::vector<std::string> chain)
  {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto      canonical = fs::weakly_canonical(file, ec).string();
    if (std::find(chain.begin(), chain.end(), canonical) != chain.end())
      throw InputError("", "parameter file '" + file + "' includes itself (through " +
                             (chain.size() > 1 ? "'" + chain.back() + "'" : std::string("its own include")) + ")");
    if (chain.size() > 16)
      throw InputError("", "parameter files include each other more than 16 levels deep (at '" + file + "')");
    chain.push_back(canonical);
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
      {
        const std::string t = trim(line.substr(0, line.find('#')));
        if (t.rfind("include", 0) == 0 && t.size() > 7 && std::isspace(static_cast<unsigned char>(t[7])))
          {
            const std::string included = trim(t.substr(7));
            if (!fs::is_regular_file(included, ec))
              throw InputError("", "parameter file '" + file + "' includes '" + included +
                                     "', which is not a readable file");
            check_includes(included, chain);
          }
      }
  }

  std::string
  one_line(const std::string &text)
  {
    std::string result;
    bool        space = false;
    for (const char c : text)
      {
        if (std::isspace(static_cast<unsigned char>(c)))
          space = !result.empty();
        else
          {
            if (space)
              result.push_back(' ');
            space = false;
            result.push_back(c);
          }
      }
    return result;
  }

  void
  check_finite_numbers(const dealii::ParameterHandler &prm)
  {
    // Every entry with its subsection path, from deal.II's short PRM output.
    std::ostringstream printed;
    prm.print_parameters(printed, dealii::ParameterHandler::ShortPRM);
    std::istringstream       lines(printed.str());
    std::vector<std::string> path;
    for (std::string line; std::getline(lines, line);)
      {
        const std::string t = trim(line);
        if (t.rfind("subsection ", 0) == 0)
          path.push_back(trim(t.substr(11)));
        else if (t == "end")
          {
            if (!path.empty())
              path.pop_back();
          }
        else if (t.rfind("set ", 0) == 0)
          {
            const auto eq = t.find('=');
            if (eq == std::string::npos)
              continue;
            std::string entry;
            for (const auto &section : path)
              entry += section + "/";
            entry += trim(t.substr(4, eq - 4));
            // Every token that reads as a number must be finite.
            const std::string value = t.substr(eq + 1);
            std::size_t       begin = 0;
            while (begin < value.size())
              {
                const std::size_t end   = value.find_first_of(",;:= \t", begin);
                const std::string token = value.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
                if (!token.empty())
                  {
                    char        *stop = nullptr;
                    const double x    = std::strtod(token.c_str(), &stop);
                    if (stop != token.c_str() && *stop == '\0' && !std::isfinite(x))
                      throw InputError(entry, "'" + token + "' is not a finite number");
                  }
                if (end == std::string::npos)
                  break;
                begin = end + 1;
              }
          }
      }
  }

  std::array<double, 3>
  parse_vector(const std::string &text, const std::string &entry)
  {
    const auto parts = split(text, ',');
    if (parts.size() != 3)
      throw InputError(entry, "'" + text + "' must be three numbers 'x, y, z'");
    return {{parse_double(parts[0], entry), parse_double(parts[1], entry), parse_double(parts[2], entry)}};
  }

  void
  MeshParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Mesh");
    prm.add_parameter(
      "Geometry", geometry,
      "box: a brick [Lower corner, Upper corner]; cantilever: the same brick, meant long "
      "in x (clamp id 0, load id 1); L-shaped: the brick without the quarter x < mid, "
      "y < mid (mid: the middle of the box; Subdivisions even in x and y). These get boundary ids 0..5 on the faces x-, x+, y-, y+, z-, z+ of their "
      "bounding box and 6 elsewhere. Voxel benchmark geometries (coarse voxels, refine "
      "with 'Global refinements'; ids as for box unless stated): L-bracket: 1 x 1 profile "
      "in x-y without x > 0.4, y > 0.4, thickness 0.2 in z, coarse voxel 0.05, id 7 = "
      "top face y = 0.4 of the horizontal arm where x >= 0.8; plate with holes: 100 x 100 "
      "x 10 with four 10 x 10 square holes centred at (25|75, 25|75), coarse voxel 5 x 5 "
      "x 5, hole faces id 6; cut-out cantilever: 300 x 100 x 32 with the top x > 150, "
      "y > 60 cut away and a rectangular hole 50 < x < 100, 35 < y < 65, coarse voxel 5 x "
      "5 x 8. Curved: cylinder: quarter of a thick-walled cylinder (axis z) between "
      "'Inner radius' and 'Outer radius', length 'Cylinder length', ids 0 inner, 1 outer, "
      "2 plane x = 0, 3 plane y = 0, 4 z = 0, 5 z = length; sphere: octant of a "
      "thick-walled sphere, ids 0 inner, 1 outer, 2 x = 0, 3 y = 0, 4 z = 0; wellbore: "
      "quarter annulus slab between 'Inner radius' and 'Outer radius', thickness "
      "'Cylinder length', Subdivisions = radial, circumferential, thickness cells, the "
      "radial cell sizes growing by 'Radial growth' from the inner radius, ids as for the "
      "cylinder (fix z on 4 and 5 for plane strain). fixed grid: the body of 'Fixed grid/Body' "
      "in the box [Lower corner, Upper corner] cut into Subdivisions equal cells, each with the "
      "stiffness factor xi + Delta (1 - xi) of its volume fraction xi; cells outside the body are "
      "left out unless 'Keep outside cells'; ids 0..5 on the box faces of cells with material, 6 on the "
      "other faces. "
      "file: read 'File'");
    prm.add_parameter("Lower corner", lower_corner, "Lower corner of box-like geometries");
    prm.add_parameter("Upper corner", upper_corner, "Upper corner of box-like geometries");
    prm.add_parameter("Subdivisions", subdivisions,
                      "Coarse cells in x, y, z of box-like geometries (wellbore: radial, "
                      "circumferential, thickness)",
                      dealii::Patterns::List(dealii::Patterns::Integer(1), 3, 3));
    prm.add_parameter("Global refinements", global_refinements,
                      "Number of uniform refinements of the coarse mesh",
                      dealii::Patterns::Integer(0, 12));
    prm.add_parameter("Local refinements", local_refinements,
                      "Number of local refinements after the uniform ones: each refines the active cells "
                      "whose centre makes 'Local refinement region' positive. The mesh then has hanging "
                      "nodes, which the operator resolves on the device; the preconditioner cannot be "
                      "multigrid (auto picks chebyshev)",
                      dealii::Patterns::Integer(0, 8));
    prm.add_parameter("Local refinement region", local_refinement_region,
                      "Expression in x, y, z (deal.II FunctionParser; pi known), for example "
                      "'0.25 - (x-1)^2 - y^2' for a disc of radius 0.5 around (1, 0): cells whose centre "
                      "gives a positive value are refined by each of the 'Local refinements'",
                      dealii::Patterns::Anything());
    prm.enter_subsection("Adaptive refinement");
    prm.add_parameter("Indicator", adaptive.indicator,
                      "Refine (and coarsen) the mesh between the load steps of an elastoplastic run: none; "
                      "kelly (deal.II's KellyErrorEstimator on the displacement); plastic strain increment "
                      "(the cell average of the increment of equivalent plastic strain over the last load "
                      "step, times the cell diameter). The Gauss-point history moves with the cells (a child "
                      "takes the state of its parent's Gauss point in the same octant, a coarsened parent "
                      "the volume average of each child), the displacement is interpolated, and the step is "
                      "re-equilibrated before the next one. The preconditioner cannot be multigrid (auto "
                      "picks chebyshev)");
    prm.add_parameter("Refine fraction", adaptive.refine_fraction,
                      "Fraction of the active cells, largest indicator first, refined each time (cells at "
                      "'Maximum level' and cells whose indicator is zero are not)",
                      dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Coarsen fraction", adaptive.coarsen_fraction,
                      "Fraction of the active cells, smallest indicator first, coarsened each time (a parent "
                      "is coarsened when all its children are marked; no cell is coarsened to a level below "
                      "'Global refinements')",
                      dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Maximum level", adaptive.maximum_level,
                      "No cell is refined beyond this level (the coarse mesh is level 0; 'Global "
                      "refinements' and 'Local refinements' count)",
                      dealii::Patterns::Integer(0, 12));
    prm.add_parameter("Interval", adaptive.interval,
                      "Adapt after every Interval-th converged load step (never after the last)",
                      dealii::Patterns::Integer(1, 100000));
    prm.leave_subsection();
    prm.add_parameter("Distortion", distortion,
                      "Pseudo-random displacement of interior vertices as a fraction of the "
                      "shortest adjacent edge, a function of the vertex position only, so "
                      "the same for any number of MPI ranks (0 keeps the mesh as generated)",
                      dealii::Patterns::Double(0., 0.4));
    prm.add_parameter("File", file,
                      "Mesh file for Geometry = file: gmsh (.msh) or Abaqus (.inp), hexahedra only",
                      dealii::Patterns::Anything());
    prm.add_parameter("Scale", scale, "Factor applied to the coordinates of a mesh file",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("Inner radius", inner_radius, "Inner radius of the cylinder and sphere geometries",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("Outer radius", outer_radius, "Outer radius of the cylinder and sphere geometries",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("Cylinder length", cylinder_length,
                      "Axial length of the cylinder geometry, thickness of the wellbore slab",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("Radial growth", radial_growth,
                      "Wellbore geometry: size ratio of radially neighbouring coarse cells (1 = uniform; "
                      "> 1 grades the mesh towards the inner radius)",
                      dealii::Patterns::Double(0.));
    prm.enter_subsection("Fixed grid");
    prm.add_parameter("Body", fixed_grid.body,
                      "Geometry = fixed grid: the body as an expression of x, y, z (deal.II FunctionParser, "
                      "pi known), negative inside and positive outside, e.g. a signed distance: "
                      "'0.1 - sqrt(x^2 + y^2)' is outside a hole of radius 0.1; unions, intersections and "
                      "differences of shapes are min(a, b), max(a, b) and max(a, -b). Or give an Image file "
                      "instead",
                      dealii::Patterns::Anything());
    prm.add_parameter("Image file", fixed_grid.image_file,
                      "A voxel image as the body instead of Body: an NRRD file (.nrrd with the data attached, "
                      "or a .nhdr header naming its data file; raw or ascii encoding, 8-, 16- or 32-bit "
                      "integers or floats, either byte order) or a headerless raw volume (any other name; "
                      "Image size and Image type give its layout, little endian, x fastest). The image spans "
                      "the box from Lower corner to Upper corner; the body is where the voxel value is at "
                      "least Threshold. Relative names are taken from the working directory",
                      dealii::Patterns::Anything());
    prm.add_parameter("Image size", fixed_grid.image_size,
                      "Voxels in x, y, z of a raw Image file (NRRD files carry their own)",
                      dealii::Patterns::List(dealii::Patterns::Integer(0), 3, 3));
    prm.add_parameter("Image type", fixed_grid.image_type, "Voxel type of a raw Image file");
    prm.add_parameter("Threshold", fixed_grid.threshold,
                      "The body of an Image file is where the voxel value is at least this");
    prm.add_parameter("Material regions", fixed_grid.material_regions,
                      "Material ids of the grid cells: 'id: expression; id: expression' (deal.II FunctionParser "
                      "in x, y, z and v, the body's value at the point: the voxel value of an Image file or the "
                      "Body expression; pi known). A cell of the grid (Subdivisions; refined cells inherit it) "
                      "takes the id of the first region whose expression is negative at its centre, 0 if none; "
                      "'Materials/Per material id' gives each id its material. E.g. '1: y - 0.5' for a second "
                      "material below y = 0.5, '2: 1000 - v' for image values below 1000",
                      dealii::Patterns::Anything());
    prm.add_parameter("Samples", fixed_grid.samples,
                      "Sample points per direction of a cell for its volume fraction xi (Samples^3 points at "
                      "the centres of equal sub-cells); a coarser multigrid cell takes the mean of its children",
                      dealii::Patterns::Integer(1, 16));
    prm.add_parameter("Void stiffness", fixed_grid.void_stiffness,
                      "Delta of the stiffness factor xi + Delta (1 - xi) of a cell with volume fraction xi",
                      dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Keep outside cells", fixed_grid.keep_outside_cells,
                      "Keep the cells of the grid that hold no sample of the body (stiffness factor Delta) "
                      "instead of leaving them and the DoFs only they touch out of the problem. Their faces on "
                      "the box get id 6, so that loads and supports act on the body only; their DoFs move "
                      "freely (max |u| of the summary includes them)");
    prm.leave_subsection();
    prm.leave_subsection();
  }

  void
  MeshParameters::check() const
  {
    if (geometry == GeometryType::box || geometry == GeometryType::cantilever || geometry == GeometryType::l_shaped)
      for (unsigned int d = 0; d < 3; ++d)
        if (!(upper_corner[d] > lower_corner[d]))
          throw InputError("Mesh/Upper corner",
                           "must exceed Lower corner in every coordinate");
    if (geometry == GeometryType::l_shaped)
      for (unsigned int d = 0; d < 2; ++d)
        if (subdivisions[d] < 2 || subdivisions[d] % 2 != 0)
          throw InputError("Mesh/Subdivisions",
                           "the L-shaped geometry needs an even number (>= 2) of cells in x and y");
    if ((geometry == GeometryType::cylinder || geometry == GeometryType::sphere ||
         geometry == GeometryType::wellbore) &&
        !(inner_radius > 0 && outer_radius > inner_radius))
      throw InputError("Mesh/Outer radius", "need 0 < Inner radius < Outer radius");
    if ((geometry == GeometryType::cylinder || geometry == GeometryType::wellbore) && !(cylinder_length > 0))
      throw InputError("Mesh/Cylinder length", "must be positive");
    if (geometry == GeometryType::wellbore && !(radial_growth >= 1e-3 && radial_growth <= 1e3))
      throw InputError("Mesh/Radial growth", "must lie in [0.001, 1000]");
    if (geometry == GeometryType::fixed_grid)
      {
        for (unsigned int d = 0; d < 3; ++d)
          if (!(upper_corner[d] > lower_corner[d]))
            throw InputError("Mesh/Upper corner", "must exceed Lower corner in every coordinate");
        if (fixed_grid.body.empty() && fixed_grid.image_file.empty())
          throw InputError("Mesh/Fixed grid/Body",
                           "is empty but the geometry is 'fixed grid' (give the body as Body or as an Image file)");
        if (!fixed_grid.body.empty() && !fixed_grid.image_file.empty())
          throw InputError("Mesh/Fixed grid/Image file",
                           "and Body are both given: the body is the expression or the image, not both");
        if (!(fixed_grid.void_stiffness > 0 && fixed_grid.void_stiffness < 1))
          throw InputError("Mesh/Fixed grid/Void stiffness", "must lie in (0, 1)");
        if (distortion > 0)
          throw InputError("Mesh/Distortion", "must be 0 for a fixed grid (its cells are equal by definition)");
        // Parses Body and the material regions, reads and checks the image.
        fixed_grid_body(*this);
      }
    if (local_refinements > 0)
      {
        if (local_refinement_region.empty())
          throw InputError("Mesh/Local refinement region",
                           "is empty but 'Local refinements' is " + std::to_string(local_refinements));
        // A malformed expression is an InputError naming the entry.
        make_local_refinement_region(*this);
      }
    if (adaptive.enabled())
      {
        if (adaptive.refine_fraction + adaptive.coarsen_fraction > 1)
          throw InputError("Mesh/Adaptive refinement/Coarsen fraction",
                           "Refine fraction + Coarsen fraction exceeds 1");
        if (adaptive.refine_fraction == 0 && adaptive.coarsen_fraction == 0)
          throw InputError("Mesh/Adaptive refinement/Refine fraction",
                           "Refine fraction and Coarsen fraction are both 0: nothing would change (set "
                           "Indicator = none)");
        if (adaptive.maximum_level <= global_refinements + local_refinements && adaptive.coarsen_fraction == 0)
          throw InputError("Mesh/Adaptive refinement/Maximum level",
                           std::to_string(adaptive.maximum_level) + " is not above the levels of the initial mesh (" +
                             std::to_string(global_refinements + local_refinements) +
                             "), so no cell could be refined");
      }
    if (geometry == GeometryType::file)
      {
        if (file.empty())
          throw InputError("Mesh/File", "Geometry = file but no file is given");
        std::ifstream in(file);
        if (!in)
          throw InputError("Mesh/File", "cannot open mesh file '" + file + "'");
        const auto dot = file.rfind('.');
        const auto ext = dot == std::string::npos ? std::string() : file.substr(dot);
        if (ext != ".msh" && ext != ".inp")
          throw InputError("Mesh/File", "unknown mesh format '" + ext +
                                          "' of '" + file + "' (expected .msh or .inp)");
        if (!(scale > 0))
          throw InputError("Mesh/Scale", "must be positive");
      }
  }

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
      prm.add_parameter("Yield criterion", m.criterion,
                        "von Mises (J2: Yield stress, Isotropic and Kinematic hardening), Mohr-Coulomb "
                        "or Drucker-Prager (Cohesion, Friction angle, Dilation angle, Cohesion hardening; "
                        "Cone matching); the entries of the other criteria are not used");
      prm.add_parameter("Cohesion", m.cohesion, "Cohesion c of Mohr-Coulomb and Drucker-Prager (> 0)");
      prm.add_parameter("Friction angle", m.friction_angle,
                        "Friction angle phi in degrees, 0 < phi < 90 (Mohr-Coulomb, Drucker-Prager)");
      prm.add_parameter("Dilation angle", m.dilation_angle,
                        "Dilation angle psi in degrees, 0 <= psi <= phi, or 'associative' (psi = phi). "
                        "psi < phi makes the consistent tangent non-symmetric: Linear solver/Type "
                        "gmres or belos gmres, or Newton/Tangent = initial stiffness",
                        dealii::Patterns::Anything());
      prm.add_parameter("Cohesion hardening", m.cohesion_hardening,
                        "Linear cohesion hardening: increase of c per unit accumulated plastic strain",
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

  backend::Material
  MaterialDescription::make(const std::string &where) const
  {
    try
      {
        if (criterion == backend::YieldCriterion::von_mises)
          return make_material(young_modulus, poisson_ratio, yield_stress, isotropic_hardening,
                               kinematic_hardening);
        double psi = friction_angle;
        if (dilation_angle != "associative")
          psi = parse_double(dilation_angle, where + "/Dilation angle");
        if (criterion == backend::YieldCriterion::mohr_coulomb)
          return make_mohr_coulomb(young_modulus, poisson_ratio, cohesion, friction_angle, psi, cohesion_hardening);
        return make_drucker_prager(young_modulus, poisson_ratio, cohesion, friction_angle, psi, cone_matching,
                                   cohesion_hardening);
      }
    catch (const std::invalid_argument &error)
      {
        throw InputError(where, error.what());
      }
  }

  bool
  MaterialDescription::can_yield() const
  {
    return criterion != backend::YieldCriterion::von_mises || yield_stress > 0;
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
                      "'id: E=..., nu=..., yield=..., H=..., Hkin=...; id: ...', and for the pressure-"
                      "dependent criteria criterion=Mohr-Coulomb|Drucker-Prager|von Mises, c=..., "
                      "phi=..., psi=...|associative, Hc=... (cohesion hardening), cone=outer|inner|"
                      "plane strain (omitted keys take the values above)",
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
            else if (key == "c")
              m.cohesion = value;
            else if (key == "phi")
              m.friction_angle = value;
            else if (key == "Hc")
              m.cohesion_hardening = value;
            else
              throw InputError(entry, "unknown key '" + key +
                                        "' (expected E, nu, yield, H, Hkin, criterion, c, phi, psi, Hc, cone)");
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
    // deal.II's FunctionParser writes muparser's details to std::cerr
    // before it throws: keep them out of the one-line message.
    std::ostringstream parser_output;
    std::streambuf    *cerr_buffer = std::cerr.rdbuf(parser_output.rdbuf());
    try
      {
        const auto             sigma = function();
        const dealii::Point<3> x(0.1234, 0.5678, 0.9012);
        (void)sigma(x);
        std::cerr.rdbuf(cerr_buffer);
      }
    catch (const std::exception &error)
      {
        std::cerr.rdbuf(cerr_buffer);
        throw InputError("Initial stress/Stress", "'" + expression + "' is not six expressions of x, y, z (" +
                                                    parser_message(error.what()) + ")");
      }
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
                      "support meets a Dirichlet face the Dirichlet values hold. The preconditioner is then "
                      "chebyshev or jacobi (auto picks chebyshev)",
                      dealii::Patterns::Anything());
    prm.add_parameter("Constant loads", constant_loads,
                      "Kinds of load held at their full value from the first load step on, at every load "
                      "factor (gravity under a ramped traction, a preload held while another load cycles): "
                      "any of body force, traction, pressure, point loads, comma separated; the others and "
                      "the prescribed displacements follow the load factor",
                      dealii::Patterns::MultipleSelection("body force|traction|pressure|point loads"));
    prm.enter_subsection("Amplitudes");
    const std::vector<std::pair<std::string, std::string>> entries = {
      {"Dirichlet", "dirichlet"}, {"Traction", "traction"}, {"Pressure", "pressure"},
      {"Body force", "body force"}, {"Point loads", "point loads"}};
    for (const auto &[name, kind] : entries)
      prm.add_parameter(name, amplitude_texts[kind],
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
    std::string name = kind;
    name[0]          = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
    return "Boundary conditions/Amplitudes/" + name;
  }

  bool
  BoundaryParameters::is_given(const std::string &kind) const
  {
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
          dirichlet.push_back(c);
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

  void
  OperatorParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Operator");
    prm.add_parameter("Strategy", strategy,
                      "How cell contributions reach the global vector: element by element with "
                      "atomic adds, element by element by colour (bitwise reproducible), "
                      "DoF by DoF (each node gathers from its cells), or element by element in "
                      "tiles of 128 neighbouring cells that sum in scratch memory and add only "
                      "the nodes shared with other tiles atomically; or assembled: the "
                      "local stiffness matrix (tangent) assembled on the device in CSR form "
                      "and applied as a sparse matrix-vector product (about 0.7 kB of device "
                      "memory per DoF); or dbd structured: DoF by DoF on a lattice of equal boxes "
                      "(no cell -> node table; the 27-point stencil of the box where the eight cells "
                      "of a node agree; plastic cells element by element; generated boxes, voxel "
                      "geometries and fixed grids without distortion or local refinement). auto: "
                      "dbd structured on such lattices; otherwise ebe tiled for elastic runs whose "
                      "cell kernel is element matrix on meshes of congruent cells (one shared "
                      "matrix), and ebe atomic");
    prm.add_parameter("Cell kernel", cell_kernel,
                      "How a cell applies its operator: quadrature with stored inverse "
                      "Jacobians, quadrature with the Jacobian recomputed from the vertices, "
                      "or 24x24 element matrices (one shared by congruent cells, e.g. all "
                      "cells of a uniform mesh). auto: the measured fastest, geometry on the "
                      "fly with dbd structured (it serves only the plastic cells and the "
                      "diagonal there), element matrix for elastic runs on other generated "
                      "meshes of congruent cells, otherwise geometry on the fly on GPUs and "
                      "stored geometry on the host");
    prm.add_parameter("Thread mapping", thread_mapping,
                      "Threads per cell of the element-by-element strategies: cell (one thread "
                      "does a cell), node (eight threads share a cell: one per vertex and Gauss "
                      "point; not with ebe tiled or dbd structured), shuffle (eight threads per "
                      "cell that exchange values through register shuffles; for the quadrature "
                      "cell kernels of ebe atomic, ebe colored and the element-by-element cells "
                      "of dbd structured, those with plastic points; on CPUs one thread holds the "
                      "eight lanes), auto (on GPUs node for ebe colored, shuffle for ebe atomic "
                      "and dbd structured with geometry on the fly; on CPUs shuffle for all three "
                      "with the quadrature kernels; cell otherwise)");
    prm.add_parameter("Element formulation", element_formulation,
                      "Strain of the Gauss points: full (full integration, each point its own "
                      "strain) or bbar (B-bar, mean dilatation: each point keeps its deviatoric "
                      "strain and takes the cell average of the volumetric strain; no volumetric "
                      "locking under plastic flow or near incompressibility). auto: bbar for "
                      "elastoplastic runs (J2 flow is isochoric), full for elastic ones "
                      "(deal.II's step-8 operator; choose bbar for nearly incompressible "
                      "materials)");
    prm.add_parameter("Ghost exchange", ghost_exchange,
                      "How MPI ranks exchange the ghost values of their vectors (every operator "
                      "application, transfer and smoother step): mpi (copied to the host, sent "
                      "with MPI and copied back; the host waits for the device twice per "
                      "exchange) or shared memory (ranks of one node read each other's buffers: "
                      "on GPUs one GPU reads the other's memory peer to peer through CUDA IPC, "
                      "ordered by flags that the GPUs' streams write and wait for, with no MPI "
                      "message and no host wait per exchange; on CPUs shared host memory; ranks on other nodes through MPI; an "
                      "error if two ranks of a node cannot map each other's memory). auto: shared "
                      "memory between the ranks of a node that can map each other's GPU memory, "
                      "mpi otherwise and on CPUs");
    prm.leave_subsection();
  }

  namespace
  {
    /** Generated meshes whose cells are translates of each other (one element matrix per material). */
    bool
    congruent_cells(const MeshParameters &mesh)
    {
      return mesh.distortion == 0. && mesh.geometry != GeometryType::cylinder &&
             mesh.geometry != GeometryType::sphere && mesh.geometry != GeometryType::wellbore &&
             mesh.geometry != GeometryType::file;
    }

    /**
     * Generated meshes of equal axis-parallel boxes on one lattice (box,
     * cantilever, L-shaped and voxel geometries, the fixed grid; no
     * distortion, no local or adaptive refinement): what dbd structured
     * needs.
     */
    bool
    lattice_mesh(const MeshParameters &mesh)
    {
      return congruent_cells(mesh) && mesh.local_refinements == 0 && !mesh.adaptive.enabled();
    }

    /** Thread mappings with eight threads per cell (node, shuffle): not for ebe tiled and assembled (one thread per cell or row). */
    bool
    several_threads_per_cell(const backend::ThreadMapping mapping)
    {
      return mapping == backend::ThreadMapping::node || mapping == backend::ThreadMapping::shuffle;
    }

    /**
     * Whether dbd structured can run with @p mapping: it runs one thread per
     * lattice point, and cell or shuffle choose the threads of its
     * element-by-element cells; node has no meaning there.
     */
    bool
    structured_takes(const backend::ThreadMapping mapping)
    {
      return mapping != backend::ThreadMapping::node;
    }
  } // namespace

  void
  OperatorParameters::resolve_cell_kernel(const ProblemType problem_type, const MeshParameters &mesh)
  {
    if (cell_kernel.is_resolved())
      return;
    using backend::CellKernel;
    // dbd structured (auto on lattices) computes the lattice's matrices itself; the cell kernel serves its
    // plastic cells and the diagonal, where the geometry on the fly needs no stored data.
    const bool structured = strategy == backend::Strategy::dbd_structured ||
                            (!strategy.is_resolved() && lattice_mesh(mesh) && structured_takes(thread_mapping));
    if (structured)
      cell_kernel.resolve(CellKernel::geometry_on_the_fly);
    else if (problem_type == ProblemType::elastic && congruent_cells(mesh))
      cell_kernel.resolve(CellKernel::element_matrix);
    else
      cell_kernel.resolve(backend::device_memory_is_separate() ? CellKernel::geometry_on_the_fly :
                                                                 CellKernel::stored_geometry);
  }


  void
  OperatorParameters::resolve_strategy(const ProblemType problem_type, const MeshParameters &mesh)
  {
    if (strategy.is_resolved())
      return;
    if (lattice_mesh(mesh) && structured_takes(thread_mapping))
      strategy.resolve(backend::Strategy::dbd_structured);
    else
      strategy.resolve(problem_type == ProblemType::elastic && cell_kernel == backend::CellKernel::element_matrix &&
                           congruent_cells(mesh) && !several_threads_per_cell(thread_mapping) ?
                         backend::Strategy::ebe_tiled :
                         backend::Strategy::ebe_atomic);
  }

  void
  OperatorParameters::resolve_element_formulation(const ProblemType problem_type)
  {
    if (element_formulation.is_resolved())
      return;
    element_formulation.resolve(problem_type == ProblemType::elastoplastic ? backend::ElementFormulation::bbar :
                                                                             backend::ElementFormulation::full);
  }

  MechanicsOperator::AdditionalData
  OperatorParameters::get_additional_data() const
  {
    return {strategy.is_resolved() ? strategy.value : backend::Strategy::ebe_atomic,
            cell_kernel.is_resolved() ? cell_kernel.value : backend::CellKernel::stored_geometry,
            thread_mapping,
            element_formulation.is_resolved() ? element_formulation.value : backend::ElementFormulation::full};
  }

  std::string
  OperatorParameters::description(const backend::ThreadMapping resolved_mapping) const
  {
    std::string text = strategy.description() + " / " + cell_kernel.description();
    if (resolved_mapping == backend::ThreadMapping::node ||
        backend::cells_on_shuffle_lanes(resolved_mapping, cell_kernel.value))
      text += std::string(resolved_mapping == backend::ThreadMapping::shuffle ? " / shuffle lanes" : " / node threads") +
              (thread_mapping == backend::ThreadMapping::automatic ? " (auto)" : "");
    if (element_formulation == backend::ElementFormulation::bbar)
      text += " / B-bar" + std::string(element_formulation.automatic ? " (auto)" : "");
    return text;
  }

  void
  SolverParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Linear solver");
    prm.add_parameter("Type", type,
                      "Krylov solver: cg or gmres (deal.II SolverCG / SolverGMRES with right "
                      "preconditioning), or belos cg, belos gmres, belos minres (Trilinos Belos "
                      "PseudoBlockCG / PseudoBlockGmres / MINRES). All iterate on device vectors; "
                      "cg and minres need a symmetric positive definite preconditioner (all of "
                      "the choices below are). Or direct: a sparse LU factorization (Trilinos Amesos "
                      "KLU) of the matrix assembled on the device, on the host, for small problems "
                      "(up to some 10^5 DoFs); it takes Operator/Strategy = assembled (auto chooses "
                      "it), needs a mesh without hanging nodes and ignores the Preconditioner");
    prm.add_parameter("Preconditioner", preconditioner,
                      "auto (multigrid when 'Mesh/Global refinements' >= 1 and the mesh is refined "
                      "uniformly, else chebyshev: also on locally or adaptively refined meshes and for a "
                      "fixed grid that keeps its outside cells); "
                      "none; jacobi (inverse matrix-free diagonal); chebyshev (Chebyshev "
                      "polynomial around Jacobi, eigenvalues estimated by CG); multigrid "
                      "(matrix-free geometric multigrid over the mesh levels on deal.II's "
                      "Multigrid: device level operators, Chebyshev-Jacobi smoothers, transfers "
                      "and coarse solver (see Multigrid coarse solver); needs 'Mesh/Global "
                      "refinements' >= 1); amg (Trilinos ML smoothed-aggregation AMG of the "
                      "assembled elastic matrix on the host, vectors copied per application: "
                      "a comparison baseline)");
    prm.add_parameter("Relative tolerance", relative_tolerance,
                      "Stop when |r| <= max(relative tolerance |b|, absolute tolerance)",
                      dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Absolute tolerance", absolute_tolerance, "See Relative tolerance",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("Maximum iterations", max_iterations,
                      "Iterations after which the solve fails with an error",
                      dealii::Patterns::Integer(1));
    prm.add_parameter("Divergence factor", divergence_factor,
                      "The solve (cg, gmres) fails as soon as the residual exceeds this factor "
                      "times the initial residual, e.g. when a preconditioner is no longer "
                      "positive definite for the tangent; Newton then cuts the step. 0: never "
                      "(the default: CG's residual can rise far above the initial one on "
                      "ill-conditioned problems that converge); otherwise greater than 1",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("Stagnation iterations", stagnation_iterations,
                      "A deal.II cg or gmres solve fails (and Newton cuts the step) when its residual has reached "
                      "no new minimum for this many iterations, instead of running to Maximum iterations; 0: "
                      "never. Belos solves do not check it",
                      dealii::Patterns::Integer(0));
    prm.add_parameter("Chebyshev degree", chebyshev_degree,
                      "Polynomial degree of the Chebyshev preconditioner",
                      dealii::Patterns::Integer(1, 100));
    prm.add_parameter("GMRES restart", gmres_restart, "Krylov vectors kept by GMRES (deal.II and Belos)",
                      dealii::Patterns::Integer(2, 1000));
    prm.add_parameter("Reuse preconditioner", reuse_preconditioner,
                      "When the elastoplastic Newton iteration rebuilds the parts of the "
                      "preconditioner that follow the tangent (Jacobi diagonal, Chebyshev "
                      "eigenvalue estimate, finest multigrid smoother): never (before every "
                      "linear solve), load step (at the first solve of each load step) or "
                      "always (built once for the elastic operator and reused). The coarser "
                      "multigrid levels and AMG are always elastic and built once");
    prm.add_parameter("Multigrid smoother degree", multigrid_smoother_degree,
                      "Degree of the Chebyshev-Jacobi smoother on each multigrid level (pre and "
                      "post smoothing)",
                      dealii::Patterns::Integer(1, 30));
    prm.add_parameter("Multigrid smoothing range", multigrid_smoothing_range,
                      "The multigrid smoother damps eigenvalues of D^-1 A in [lambda_max / range, "
                      "lambda_max] (lambda_max estimated by 12 CG iterations)",
                      dealii::Patterns::Double(1.));
    prm.add_parameter("Multigrid coarse solver", multigrid_coarse_solver,
                      "Solver of the coarsest multigrid level (the coarse mesh): cg (CG on the "
                      "device, preconditioned by Chebyshev-Jacobi, to 'Multigrid coarse "
                      "tolerance'), chebyshev (a Chebyshev-Jacobi polynomial on the device whose "
                      "degree reduces the error by 'Multigrid coarse tolerance'), direct (Amesos "
                      "KLU of the level-0 matrix assembled on the host), dense inverse (the "
                      "explicit inverse of that matrix, computed once, cuSOLVER on a GPU and "
                      "LAPACK on the host, applied by one dense matrix-vector product where the "
                      "kernels run; n^2 doubles of memory for n level-0 DoFs) or amg (one ML "
                      "V-cycle of that matrix, settings below); direct and amg copy the level-0 "
                      "vector to the host per V-cycle. auto: up to 'Multigrid direct solver "
                      "limit' level-0 DoFs dense inverse on a GPU (from 'Multigrid dense "
                      "inverse minimum' DoFs) and direct otherwise, cg above, replaced by the "
                      "dense inverse at a Newton step once the cg solves have taken as long as "
                      "its set-up is estimated to take (up to 46,340 level-0 DoFs); the run "
                      "summary names the choice");
    prm.add_parameter("Multigrid level precision", multigrid_level_precision,
                      "Number type of the V-cycle: double, or single (level operators, "
                      "smoothers and transfers on float vectors, the coarse solve, the outer "
                      "Krylov solver and the Newton iteration in double precision: a "
                      "mixed-precision V-cycle that moves half the bytes; the same iterations as "
                      "double on the stock problems and a faster Newton stage on a GPU, "
                      "doc/solvers.md, \"Multigrid settings\"). single needs Type = cg or belos cg: GMRES and MINRES "
                      "assume a preconditioner that is linear to working precision, and with a "
                      "single-precision V-cycle GMRES reported convergence at a true residual "
                      "far above its tolerance. auto: single under cg and belos cg, double "
                      "under the others");
    prm.add_parameter("Multigrid coarse tolerance", multigrid_coarse_tolerance,
                      "Relative residual reduction of the cg coarse solver; target error "
                      "reduction of the chebyshev coarse solver",
                      dealii::Patterns::Double(1e-12, 0.5));
    prm.add_parameter("Multigrid direct solver limit", multigrid_direct_solver_limit,
                      "Multigrid coarse solver auto uses dense inverse (GPU) or direct (host) "
                      "up to this many level-0 DoFs (a factorisation of a 3D mesh grows much "
                      "faster than its size)",
                      dealii::Patterns::Integer(0));
    prm.add_parameter("Multigrid dense inverse minimum", multigrid_dense_inverse_minimum,
                      "Multigrid coarse solver auto on a GPU uses dense inverse from this many "
                      "level-0 DoFs up to 'Multigrid direct solver limit', and direct below (the "
                      "dense inverse's one-off cuSOLVER set-up, about 0.2 s, pays off only over "
                      "many V-cycles on a small level 0)",
                      dealii::Patterns::Integer(0));
    prm.add_parameter("AMG aggregation threshold", amg_aggregation_threshold,
                      "ML aggregation threshold: couplings weaker than this fraction of the "
                      "diagonal are dropped when aggregating (Preconditioner = amg and the "
                      "multigrid coarse amg)",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("AMG smoother sweeps", amg_smoother_sweeps,
                      "ML smoother sweeps per level (the polynomial degree for Chebyshev)",
                      dealii::Patterns::Integer(1, 20));
    prm.add_parameter("AMG smoother", amg_smoother, "ML smoother on each AMG level");
    prm.add_parameter("AMG rigid body modes", amg_rigid_body_modes,
                      "Give ML the six rigid-body modes (from the node coordinates) as near-null "
                      "space, the setting for elasticity; false: ML's three translations");
    prm.leave_subsection();
  }

  bool
  OutputParameters::writes(const std::string &quantity) const
  {
    return list_contains(additional_quantities, quantity);
  }

  void
  OutputParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Output");
    prm.add_parameter("Directory", directory, "Folder for all output (created if missing)",
                      dealii::Patterns::Anything());
    prm.add_parameter("Base name", base_name, "File name stem of the VTU/PVTU output",
                      dealii::Patterns::FileName());
    prm.add_parameter("Write VTU", write_vtu,
                      "Write displacement, stress and von Mises stress as VTU/PVTU");
    prm.add_parameter("Additional quantities", additional_quantities,
                      "Cell quantities the VTU output holds besides the displacement, the "
                      "cell-average stress and the von Mises stress (and, in elastoplastic runs, the "
                      "plastic quantities): any of strain (the cell-average strain tensor, "
                      "strain_xx ... strain_xy), plastic strain (elastoplastic runs: the cell-average "
                      "plastic strain tensor, plastic_strain_xx ... plastic_strain_xy), principal "
                      "stresses (principal_stress_1 >= 2 >= 3 and "
                      "their unit directions principal_direction_1..3 as vectors), pressure "
                      "(-tr sigma / 3), nodal stresses (point data nodal_stress, a symmetric tensor in "
                      "VTK's order xx, yy, zz, xy, yz, xz, and nodal_von_mises: the cell-average "
                      "stresses around each vertex averaged with the cells' volumes as weights), "
                      "separated by commas",
                      dealii::Patterns::MultipleSelection("strain|plastic strain|principal stresses|pressure|nodal stresses"));
    prm.add_parameter("Checkpoint interval", checkpoint_interval,
                      "Elastoplastic runs: write a checkpoint (mesh, displacement, Gauss-point "
                      "history, load-stepping state) into 'Directory'/checkpoint after every this "
                      "many converged load steps, replacing the previous one atomically; "
                      "'plastix --restart <Directory>/checkpoint' continues the run from it, on any "
                      "number of MPI ranks. Removed when the run completes. 0: by 'Checkpoint wall "
                      "time' only",
                      dealii::Patterns::Integer(0));
    prm.add_parameter("Checkpoint wall time", checkpoint_wall_time,
                      "Elastoplastic runs: also write a checkpoint after a converged load step "
                      "when this many seconds of wall time have passed since the run started or "
                      "the last checkpoint (a checkpoint costs about as much as a few Newton "
                      "iterations on the GPU, so short runs write none). 0: by 'Checkpoint "
                      "interval' only. A run stopped by 'Load stepping/Steps per run' always "
                      "writes one",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("Summary file", summary_file,
                      "File in the output directory to which the one-line summary is appended "
                      "(empty: only print it)",
                      dealii::Patterns::Anything());
    prm.leave_subsection();
  }

  void
  ProblemParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Problem");
    prm.add_parameter("Type", type,
                      "elastic: linear elasticity, one linear solve at load factor 1 (the monitor's CSV "
                      "row of each load factor of 'Load stepping' scales it); elastoplastic: von "
                      "Mises (J2), Mohr-Coulomb or Drucker-Prager plasticity (Materials/Yield "
                      "criterion) with Newton iterations over the load steps of 'Load stepping'");
    prm.leave_subsection();
  }

  void
  LoadSteppingParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Load stepping");
    prm.add_parameter("Final load factor", final_load_factor,
                      "Load factor of the last step; all loads and prescribed displacements "
                      "are multiplied by the load factor",
                      dealii::Patterns::Double());
    prm.add_parameter("Number of steps", n_steps, "Equal steps from 0 to the final load factor",
                      dealii::Patterns::Integer(1, 100000));
    prm.add_parameter("Load factors", load_factors_text,
                      "Explicit load factors, e.g. '0.333, 0.667, 1' or with unloading "
                      "'0.5, 1, 0.5, 0' (overrides the two entries above)",
                      dealii::Patterns::Anything());
    prm.add_parameter("Minimum increment", minimum_increment,
                      "A step whose Newton iteration fails is halved until its load-factor "
                      "increment falls below this; then the run fails",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("Maximum cuts", max_cuts, "Most halvings of one step",
                      dealii::Patterns::Integer(0, 60));
    prm.add_parameter("Increment growth", increment_growth,
                      "After a cut, each converged step lets the next increment grow by this factor, up to "
                      "the whole remaining increment (a large value goes straight back to it); a new load "
                      "factor starts with its whole increment",
                      dealii::Patterns::Double(1.));
    prm.add_parameter("Steps per run", steps_per_run,
                      "Stop cleanly (exit status 0) after this many converged load steps of this run, "
                      "e.g. to fit the time limit of a batch job, and continue with 'plastix --restart' "
                      "from the checkpoint (0: run to the last load factor)",
                      dealii::Patterns::Integer(0));
    prm.leave_subsection();
  }

  void
  LoadSteppingParameters::check()
  {
    load_factors.clear();
    const std::string entry = "Load stepping/Load factors";
    for (const auto &item : split(load_factors_text, ','))
      if (!item.empty())
        load_factors.push_back(parse_double(item, entry));
    if (load_factors.empty())
      for (unsigned int i = 1; i <= n_steps; ++i)
        load_factors.push_back(final_load_factor * i / n_steps);
    double previous = 0;
    for (const double f : load_factors)
      {
        if (f == previous)
          throw InputError(load_factors_text.empty() ? "Load stepping/Final load factor" : entry,
                           "consecutive load factors must differ (got " + std::to_string(f) +
                             " twice; the run starts at 0)");
        previous = f;
      }
  }

  void
  NewtonParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Newton");
    prm.add_parameter("Maximum iterations", max_iterations,
                      "Newton iterations per load step before the step is cut",
                      dealii::Patterns::Integer(1, 1000));
    prm.add_parameter("Residual tolerance", residual_tolerance,
                      "Converged when |f_ext - f_int| (unconstrained DoFs) <= tolerance * "
                      "max(|f_ext|, |reaction forces|, the largest of these so far in the run) ...",
                      dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Displacement tolerance", displacement_tolerance,
                      "... and the last correction |du| <= tolerance * |u|",
                      dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Maximum forcing term", max_forcing_term,
                      "Largest relative tolerance of a linear solve (inexact Newton; the "
                      "forcing term shrinks quadratically with the residual)",
                      dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Minimum forcing term", min_forcing_term,
                      "Smallest relative tolerance of a linear solve", dealii::Patterns::Double(0., 1.));
    prm.add_parameter("Divergence factor", divergence_factor,
                      "A step is cut when its residual exceeds this factor times its first residual",
                      dealii::Patterns::Double(1.));
    prm.add_parameter("Tangent", tangent,
                      "consistent: Newton-Raphson with the consistent tangent (quadratic convergence; "
                      "non-symmetric for psi < phi). initial stiffness: the elastic operator in every "
                      "iteration with Thomas' acceleration (modified initial stiffness, Sloan et al. 2000): "
                      "symmetric, so CG works for any dilation angle; linear convergence");
    prm.leave_subsection();
  }

  void
  MonitorParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Monitor");
    prm.add_parameter("Points", points_text,
                      "Points whose displacement (of the nearest mesh vertex) is written to the "
                      "CSV file each load step: 'name: x, y, z; ...'",
                      dealii::Patterns::Anything());
    prm.add_parameter("Reactions", reactions_text,
                      "Boundary ids whose summed reaction force is written each load step, e.g. '0, 4'",
                      dealii::Patterns::Anything());
    prm.add_parameter("Plot x column", plot_x_column,
                      "CSV column on the x axis of the plot (empty: the first displacement or "
                      "reaction column)",
                      dealii::Patterns::Anything());
    prm.add_parameter("Plot y column", plot_y_column,
                      "CSV column on the y axis of the plot, e.g. load_factor (load control) or a "
                      "reaction such as R4_z (displacement control)",
                      dealii::Patterns::Anything());
    prm.add_parameter("Length unit", length_unit,
                      "Unit of lengths in the plot labels (plastix takes numbers in any consistent "
                      "unit system; this only labels the axes)",
                      dealii::Patterns::Anything());
    prm.add_parameter("Force unit", force_unit, "Unit of forces in the plot labels (see Length unit)",
                      dealii::Patterns::Anything());
    prm.add_parameter("Write plot", write_plot,
                      "Write <base name>.gnuplot, a gnuplot script that plots the CSV file, and run "
                      "gnuplot on it at the end of the run to draw <base name>.png (if gnuplot is "
                      "installed; otherwise the run says how to draw it later)");
    prm.leave_subsection();
  }

  void
  MonitorParameters::check()
  {
    points.clear();
    reaction_ids.clear();
    const std::string entry = "Monitor/Points";
    for (const auto &[name, rest] : parse_id_list(points_text, entry, "tip: 10, 0.5, 0.5"))
      {
        if (name.empty() || name.find_first_of(", \t") != std::string::npos)
          throw InputError(entry, "point name '" + name + "' must be one word");
        const auto x = parse_vector(rest, entry);
        points.push_back({name, dealii::Point<3>(x[0], x[1], x[2])});
      }
    for (const auto &item : split(reactions_text, ','))
      if (!item.empty())
        reaction_ids.push_back(parse_id(item, "Monitor/Reactions", "boundary id"));
    for (const auto &[entry, unit] : {std::make_pair("Monitor/Length unit", &length_unit),
                                      std::make_pair("Monitor/Force unit", &force_unit)})
      if (unit->find_first_of("\n\r") != std::string::npos || unit->size() > 40)
        throw InputError(entry, "must be a short label such as 'm' or 'kN'");
    if (write_plot)
      {
        const auto names = csv_columns();
        for (const auto &[entry, column] : {std::make_pair("Monitor/Plot x column", &plot_x_column),
                                            std::make_pair("Monitor/Plot y column", &plot_y_column)})
          if (!column->empty() && std::find(names.begin(), names.end(), *column) == names.end())
            {
              std::string list;
              for (const auto &name : names)
                list += (list.empty() ? "" : ", ") + name;
              throw InputError(entry, "no CSV column '" + *column + "' (columns: " + list + ")");
            }
      }
  }

  std::vector<std::string>
  MonitorParameters::csv_columns() const
  {
    std::vector<std::string> names = {"step", "load_factor", "newton_iterations", "linear_iterations",
                                      "plastic_points"};
    for (const auto &point : points)
      for (const char *c : {"ux", "uy", "uz"})
        names.push_back(point.name + "_" + c);
    for (const auto id : reaction_ids)
      for (const char *c : {"x", "y", "z"})
        names.push_back("R" + std::to_string(id) + "_" + c);
    return names;
  }

  void
  Parameters::declare(dealii::ParameterHandler &prm)
  {
    problem.declare(prm);
    load_stepping.declare(prm);
    newton.declare(prm);
    monitor.declare(prm);
    mesh.declare(prm);
    materials.declare(prm);
    initial_stress.declare(prm);
    boundary.declare(prm);
    op.declare(prm);
    solver.declare(prm);
    output.declare(prm);
    declare_renamed_entries(prm);
  }

  void
  Parameters::read(dealii::ParameterHandler &prm, const std::string &file)
  {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(file, ec))
      throw InputError("", "cannot open parameter file '" + file + "': no such file");
    if (!fs::is_regular_file(file, ec))
      throw InputError("", "parameter file '" + file + "' is not a regular file");
    std::string text;
    {
      std::ifstream in(file);
      if (!in)
        throw InputError("", "cannot open parameter file '" + file + "'");
      std::stringstream buffer;
      buffer << in.rdbuf();
      text = buffer.str();
    }
    // An empty file (or one of comments only) would silently run the default
    // problem: that is almost certainly not what was meant.
    bool sets_an_entry = false;
    {
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);)
        {
          const std::string t = trim(line);
          if (t.rfind("set ", 0) == 0 || t.rfind("set\t", 0) == 0)
            sets_an_entry = true;
        }
    }
    check_includes(file, {});
    if (!sets_an_entry)
      throw InputError("", "parameter file '" + file +
                             "' sets no entry (start from the output of 'plastix --print-parameters')");
    try
      {
        prm.parse_input(file, "", false, true);
      }
    catch (const dealii::ExceptionBase &error)
      {
        std::ostringstream message;
        error.print_info(message);
        throw InputError("", "in parameter file '" + file + "': " + one_line(message.str()));
      }
    check_finite_numbers(prm);
    file_text = text;
    check();
    warnings = parameter_warnings(*this, entries_set_in(text));
  }

  void
  Parameters::check()
  {
    mesh.check();
    // The direct solver factorizes the matrix that the assembled strategy
    // builds on the device: auto takes it.
    if (solver.type == SolverType::direct)
      op.strategy.resolve(backend::Strategy::assembled);
    op.resolve_cell_kernel(problem.type, mesh);
    op.resolve_strategy(problem.type, mesh);
    op.resolve_element_formulation(problem.type);
    materials.check();
    initial_stress.check();
    boundary.check();
    load_stepping.check();
    monitor.check();
    if (problem.type == ProblemType::elastoplastic)
      {
        bool yields = materials.default_material.can_yield();
        for (const auto &[id, m] : materials.per_material_id)
          yields = yields || m.can_yield();
        if (!yields)
          throw InputError("Materials/Yield stress",
                           "Problem type is elastoplastic but no material can yield (a positive yield stress, "
                           "or Yield criterion = Mohr-Coulomb or Drucker-Prager)");
        // Before any mesh is built: the Newton solves of a non-symmetric
        // consistent tangent need a Krylov method for it.
        bool symmetric = materials.default_material.has_symmetric_tangent();
        for (const auto &[id, m] : materials.per_material_id)
          symmetric = symmetric && m.has_symmetric_tangent();
        const bool cg = solver.type == SolverType::cg || solver.type == SolverType::belos_cg ||
                        solver.type == SolverType::belos_minres;
        if (!symmetric && cg && newton.tangent == NewtonTangent::consistent)
          throw InputError("Linear solver/Type",
                           enum_name(solver.type) + " needs a symmetric operator, but the consistent tangent is "
                           "not (a dilation angle below the friction angle): use gmres or belos gmres, or "
                           "Newton/Tangent = initial stiffness");
      }
    else if (!initial_stress.is_zero())
      throw InputError("Initial stress/Stress",
                       "an initial stress needs Problem/Type = elastoplastic (it lives in the Gauss-point state)");
    if (solver.type == SolverType::direct)
      {
        if (!(op.strategy == backend::Strategy::assembled))
          throw InputError("Linear solver/Type",
                           "direct factorizes the matrix assembled on the device: set Operator/Strategy = "
                           "assembled or auto, not " + backend::to_string(op.strategy.value));
        if (mesh.local_refinements > 0 || mesh.adaptive.enabled())
          throw InputError("Linear solver/Type",
                           "direct needs a mesh without hanging nodes, but " +
                             std::string(mesh.local_refinements > 0 ? "'Mesh/Local refinements'" :
                                                                      "'Mesh/Adaptive refinement'") +
                             " makes them: use an iterative Type");
      }
    const std::string mapping_name = backend::to_string(op.thread_mapping);
    if (op.strategy == backend::Strategy::ebe_tiled && several_threads_per_cell(op.thread_mapping))
      throw InputError("Operator/Thread mapping",
                       "ebe tiled runs one thread per cell: use cell or auto, or another strategy for " + mapping_name);
    if (op.strategy == backend::Strategy::assembled && several_threads_per_cell(op.thread_mapping))
      throw InputError("Operator/Thread mapping",
                       "the assembled matrix is applied by rows: use cell or auto, or another strategy for " +
                         mapping_name);
    if (op.strategy == backend::Strategy::dbd_structured && !structured_takes(op.thread_mapping))
      throw InputError("Operator/Thread mapping",
                       "dbd structured runs one thread per lattice point: use cell, shuffle (the threads of its "
                       "element-by-element cells) or auto, or another strategy for " +
                         mapping_name);
    // A mesh file may be a lattice (the backend checks it); generated meshes are known here.
    if (op.strategy == backend::Strategy::dbd_structured && mesh.geometry != GeometryType::file && !lattice_mesh(mesh))
      throw InputError("Operator/Strategy",
                       "dbd structured needs a mesh of equal axis-parallel boxes on one lattice, but " +
                         std::string(mesh.distortion != 0. ? "'Mesh/Distortion' moves the vertices" :
                                     mesh.local_refinements > 0 ? "'Mesh/Local refinements' makes hanging nodes" :
                                     mesh.adaptive.enabled()    ? "adaptive refinement makes hanging nodes" :
                                                                  "this geometry's cells are not boxes") +
                         ": use auto or another strategy");
    if (solver.divergence_factor > 0 && solver.divergence_factor <= 1)
      {
        std::ostringstream value;
        value << solver.divergence_factor;
        throw InputError("Linear solver/Divergence factor", "must be 0 (never) or greater than 1, not " + value.str());
      }
    if (solver.multigrid_level_precision == LevelPrecision::single_precision && !solver.is_conjugate_gradients())
      throw InputError("Linear solver/Multigrid level precision",
                       "single needs Type = cg or belos cg (" + enum_name(solver.type) +
                         " assumes a preconditioner that is linear to double precision): use double or auto");
    // The multigrid levels, the AMG matrix and the direct solver's matrix
    // know Dirichlet boundaries only, not the lines that tie the components
    // of a normal support's nodes together.
    if (!boundary.normal_supports.empty())
      {
        if (solver.type == SolverType::direct)
          throw InputError("Linear solver/Type", "direct factorizes a matrix without the constraints of "
                                                 "'Boundary conditions/Normal supports': use an iterative Type");
        if (solver.preconditioner == PreconditionerType::multigrid ||
            solver.preconditioner == PreconditionerType::amg)
          throw InputError("Linear solver/Preconditioner",
                           enum_name(solver.preconditioner) + " knows the Dirichlet boundaries only, not the "
                             "constraints of 'Boundary conditions/Normal supports': use auto, chebyshev or jacobi");
        if (solver.preconditioner == PreconditionerType::automatic)
          solver.preconditioner = PreconditionerType::chebyshev;
      }
    if (solver.preconditioner == PreconditionerType::multigrid && mesh.local_refinements > 0)
      throw InputError("Linear solver/Preconditioner",
                       "multigrid needs a uniformly refined mesh, but 'Mesh/Local refinements' makes hanging "
                       "nodes: use auto, chebyshev, jacobi or amg");
    if (solver.preconditioner == PreconditionerType::multigrid && mesh.adaptive.enabled())
      throw InputError("Linear solver/Preconditioner",
                       "multigrid needs a uniformly refined mesh, but 'Mesh/Adaptive refinement' makes hanging "
                       "nodes: use auto, chebyshev, jacobi or amg");
    // Kept outside cells (factor Delta) next to the body: a stiffness contrast
    // that the rediscretized multigrid levels cannot follow (doc/solvers.md,
    // "Stiffness factors").
    if (mesh.geometry == GeometryType::fixed_grid && mesh.fixed_grid.keep_outside_cells &&
        solver.preconditioner == PreconditionerType::automatic)
      solver.preconditioner = PreconditionerType::chebyshev;
    if (mesh.adaptive.enabled() && problem.type != ProblemType::elastoplastic)
      throw InputError("Mesh/Adaptive refinement/Indicator",
                       "adapts the mesh between load steps, which only elastoplastic runs have (Problem/Type)");
    if (solver.preconditioner == PreconditionerType::multigrid && mesh.global_refinements == 0)
      throw InputError("Linear solver/Preconditioner",
                       "multigrid needs mesh levels: set 'Mesh/Global refinements' >= 1 (or use chebyshev)");
    check_output();
    check_memory_estimate(*this);
  }

  void
  Parameters::check_output() const
  {
    namespace fs = std::filesystem;
    if (output.base_name.empty())
      throw InputError("Output/Base name", "must not be empty");
    for (const auto &[entry, name] : {std::pair<std::string, std::string>("Output/Base name", output.base_name),
                                     std::pair<std::string, std::string>("Output/Summary file", output.summary_file)})
      {
        if (!name.empty() && (name.find('/') != std::string::npos || name == "." || name == ".."))
          throw InputError(entry, "'" + name + "' must be a plain file name (files go into 'Output/Directory')");
        // Room for the suffixes (_NNNN.<rank>.vtu) within a file name's 255 bytes.
        if (name.size() > 200)
          throw InputError(entry, "is " + std::to_string(name.size()) + " characters long (at most 200)");
      }
    const fs::path  directory = output.directory.empty() ? fs::path(".") : fs::path(output.directory);
    std::error_code ec;
    if (fs::exists(directory, ec) && !fs::is_directory(directory, ec))
      throw InputError("Output/Directory", "'" + directory.string() + "' exists and is not a directory");
    // The nearest existing folder must be writable (the directory is created in it).
    fs::path existing = directory;
    while (!existing.empty() && !fs::exists(existing, ec))
      existing = existing.parent_path();
    if (existing.empty())
      existing = ".";
    if (!fs::is_directory(existing, ec) || access(existing.c_str(), W_OK | X_OK) != 0)
      throw InputError("Output/Directory", "cannot create output directory '" + directory.string() + "' ('" +
                                             existing.string() + "' is not a writable folder)");
    if (!output.summary_file.empty() && fs::is_directory(directory / output.summary_file, ec))
      throw InputError("Output/Summary file",
                       "'" + (directory / output.summary_file).string() + "' is a directory");
  }
} // namespace plastix
