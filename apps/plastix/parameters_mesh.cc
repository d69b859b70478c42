// The subsection Mesh: declaration and checks.
#include <deal.II/base/function_parser.h>
#include <deal.II/base/patterns.h>
#include <deal.II/base/utilities.h>

#include <plastix/core/mechanics_operator.h>

#include "mesh_generation.h"
#include "parameters.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>

namespace plastix
{
  namespace
  {
    /** The subsection Mesh/Adaptive refinement. */
    void
    declare_adaptive_refinement(dealii::ParameterHandler &prm, AdaptiveRefinementParameters &parameters)
    {
      prm.enter_subsection("Adaptive refinement");
      prm.add_parameter("Indicator", parameters.indicator,
                        "Refine (and coarsen) the mesh between the load steps of an elastoplastic run: none; "
                        "kelly (deal.II's KellyErrorEstimator on the displacement); plastic strain increment "
                        "(the cell average of the increment of equivalent plastic strain over the last load "
                        "step, times the cell diameter). The Gauss-point history moves with the cells (a child "
                        "takes the state of its parent's Gauss point in the same octant, a coarsened parent "
                        "the volume average of each child), the displacement is interpolated, and the step is "
                        "re-equilibrated before the next one. The preconditioner cannot be multigrid (auto "
                        "picks chebyshev)");
      prm.add_parameter("Refine fraction", parameters.refine_fraction,
                        "Fraction of the active cells, largest indicator first, refined each time (cells at "
                        "'Maximum level' and cells whose indicator is zero are not)",
                        dealii::Patterns::Double(0., 1.));
      prm.add_parameter("Coarsen fraction", parameters.coarsen_fraction,
                        "Fraction of the active cells, smallest indicator first, coarsened each time (a parent "
                        "is coarsened when all its children are marked; no cell is coarsened to a level below "
                        "'Global refinements')",
                        dealii::Patterns::Double(0., 1.));
      prm.add_parameter("Maximum level", parameters.maximum_level,
                        "No cell is refined beyond this level (the coarse mesh is level 0; 'Global "
                        "refinements' and 'Local refinements' count)",
                        dealii::Patterns::Integer(0, 12));
      prm.add_parameter("Interval", parameters.interval,
                        "Adapt after every Interval-th converged load step (never after the last)",
                        dealii::Patterns::Integer(1, 100000));
      prm.leave_subsection();
    }

    /** The subsection Mesh/Fixed grid. */
    void
    declare_fixed_grid(dealii::ParameterHandler &prm, FixedGridParameters &parameters)
    {
      prm.enter_subsection("Fixed grid");
      prm.add_parameter("Body", parameters.body,
                        "Geometry = fixed grid: the body as an expression of x, y, z (deal.II FunctionParser, "
                        "pi known), negative inside and positive outside, e.g. a signed distance: "
                        "'0.1 - sqrt(x^2 + y^2)' is outside a hole of radius 0.1; unions, intersections and "
                        "differences of shapes are min(a, b), max(a, b) and max(a, -b). Or give an Image file "
                        "instead",
                        dealii::Patterns::Anything());
      prm.add_parameter("Image file", parameters.image_file,
                        "A voxel image as the body instead of Body: an NRRD file (.nrrd with the data attached, "
                        "or a .nhdr header naming its data file; raw or ascii encoding, 8-, 16- or 32-bit "
                        "integers or floats, either byte order) or a headerless raw volume (any other name; "
                        "Image size and Image type give its layout, little endian, x fastest). The image spans "
                        "the box from Lower corner to Upper corner; the body is where the voxel value is at "
                        "least Threshold. Relative names are taken from the working directory",
                        dealii::Patterns::Anything());
      prm.add_parameter("Image size", parameters.image_size,
                        "Voxels in x, y, z of a raw Image file (NRRD files carry their own)",
                        dealii::Patterns::List(dealii::Patterns::Integer(0), 3, 3));
      prm.add_parameter("Image type", parameters.image_type, "Voxel type of a raw Image file");
      prm.add_parameter("Threshold", parameters.threshold,
                        "The body of an Image file is where the voxel value is at least this");
      prm.add_parameter("Material regions", parameters.material_regions,
                        "Material ids of the grid cells: 'id: expression; id: expression' (deal.II FunctionParser "
                        "in x, y, z and v, the body's value at the point: the voxel value of an Image file or the "
                        "Body expression; pi known). A cell of the grid (Subdivisions; refined cells inherit it) "
                        "takes the id of the first region whose expression is negative at its centre, 0 if none; "
                        "'Materials/Per material id' gives each id its material. E.g. '1: y - 0.5' for a second "
                        "material below y = 0.5, '2: 1000 - v' for image values below 1000",
                        dealii::Patterns::Anything());
      prm.add_parameter("Samples", parameters.samples,
                        "Sample points per direction of a cell for its volume fraction xi (Samples^3 points at "
                        "the centres of equal sub-cells); a coarser multigrid cell takes the mean of its children",
                        dealii::Patterns::Integer(1, 16));
      prm.add_parameter("Void stiffness", parameters.void_stiffness,
                        "Delta of the stiffness factor xi + Delta (1 - xi) of a cell with volume fraction xi",
                        dealii::Patterns::Double(0., 1.));
      prm.add_parameter("Keep outside cells", parameters.keep_outside_cells,
                        "Keep the cells of the grid that hold no sample of the body (stiffness factor Delta) "
                        "instead of leaving them and the DoFs only they touch out of the problem. Their faces on "
                        "the box get id 6, so that loads and supports act on the body only; their DoFs move "
                        "freely (max |u| of the summary includes them)");
      prm.leave_subsection();
    }
  } // namespace

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
      "cylinder (fix z on 4 and 5 for plane strain). Cook's membrane: the tapered panel with the "
      "corners (0, 0), (48, 44), (48, 60), (0, 44) in x-y and 0 <= z <= 1, Subdivisions cells "
      "along x, y (across the panel) and z, ids 0 x = 0, 1 x = 48, 2 lower edge, 3 upper edge, "
      "4 z = 0, 5 z = 1. necking bar: a quarter of a solid round bar about z, of radius 'Outer "
      "radius' at z = 'Cylinder length', falling linearly to (1 - 'Neck imperfection') times it "
      "at z = 0 (the plane of the neck, a symmetry plane of the whole bar); deal.II's quarter "
      "disk of 3 cells across, Subdivisions[2] cells along z (refine with 'Global "
      "refinements', which keep the curved surface); ids 1 the curved surface, 2 x = 0, 3 "
      "y = 0, 4 z = 0, 5 z = length. fixed grid: the body of 'Fixed grid/Body' "
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
    declare_adaptive_refinement(prm, adaptive);
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
    prm.add_parameter("Outer radius", outer_radius,
                      "Outer radius of the cylinder and sphere geometries, radius of the necking bar",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("Cylinder length", cylinder_length,
                      "Axial length of the cylinder and necking bar geometries, thickness of the wellbore slab",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("Neck imperfection", neck_imperfection,
                      "Necking bar: the radius at z = 0 is (1 - this) times 'Outer radius', rising "
                      "linearly to it at z = 'Cylinder length'",
                      dealii::Patterns::Double(0., 0.5));
    prm.add_parameter("Radial growth", radial_growth,
                      "Wellbore geometry: size ratio of radially neighbouring coarse cells (1 = uniform; "
                      "> 1 grades the mesh towards the inner radius)",
                      dealii::Patterns::Double(0.));
    declare_fixed_grid(prm, fixed_grid);
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
    if (geometry == GeometryType::necking_bar && !(outer_radius > 0))
      throw InputError("Mesh/Outer radius", "the necking bar needs a positive radius");
    if ((geometry == GeometryType::cylinder || geometry == GeometryType::wellbore ||
         geometry == GeometryType::necking_bar) &&
        !(cylinder_length > 0))
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
} // namespace plastix
