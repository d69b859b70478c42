// Generated geometries and mesh files.
#include <deal.II/base/exceptions.h>
#include <deal.II/base/function_parser.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_in.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/grid/manifold_lib.h>

#include "mesh_generation.h"
#include "mesh_quality.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>
#include <fstream>
#include <set>
#include <sstream>

namespace plastix
{
  namespace
  {
    /** Where parse_expression() evaluates an expression once (away from 0 and the unit box's faces). */
    const dealii::Point<3> expression_test_point(0.1234, 0.5678, 0.9012);

    std::uint64_t
    splitmix64(std::uint64_t &state)
    {
      std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
      z               = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z               = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      return z ^ (z >> 31);
    }

    // Rounded to single precision so that the few ulps by which two ranks
    // might compute the same refined vertex differently do not matter.
    std::uint64_t
    position_key(const dealii::Point<3> &x, const unsigned int seed)
    {
      std::uint64_t state = seed;
      std::uint64_t key   = splitmix64(state);
      for (unsigned int d = 0; d < 3; ++d)
        {
          const float   rounded = static_cast<float>(x[d]) + 0.0f; // -0 -> +0
          std::uint32_t bits;
          std::memcpy(&bits, &rounded, sizeof bits);
          state ^= bits + key;
          key = splitmix64(state);
        }
      return key;
    }
  } // namespace

  void
  distort_vertices(dealii::Triangulation<3> &triangulation, const double factor, const unsigned int seed)
  {
    const unsigned int  n_vertices = triangulation.n_vertices();
    std::vector<double> shortest_edge(n_vertices, std::numeric_limits<double>::max());
    std::vector<bool>   at_boundary(n_vertices, false);
    std::vector<bool>   used(n_vertices, false);
    for (const auto &cell : triangulation.active_cell_iterators())
      {
        if (cell->is_artificial())
          continue;
        for (const auto l : cell->line_indices())
          for (unsigned int end = 0; end < 2; ++end)
            {
              const unsigned int v = cell->line(l)->vertex_index(end);
              shortest_edge[v]     = std::min(shortest_edge[v], cell->line(l)->diameter());
              used[v]              = true;
            }
        for (const auto f : cell->face_indices())
          if (cell->face(f)->at_boundary())
            for (const auto v : cell->face(f)->vertex_indices())
              at_boundary[cell->face(f)->vertex_index(v)] = true;
      }

    // Hanging vertices (midpoints of refined edges and faces of active
    // cells) are not moved on their own: they go to the midpoints of the
    // moved parent edge or face below, so that the mesh stays conforming.
    std::vector<bool> hanging(n_vertices, false);
    for (const auto &cell : triangulation.active_cell_iterators())
      if (!cell->is_artificial())
        {
          for (const auto l : cell->line_indices())
            if (cell->line(l)->has_children())
              hanging[cell->line(l)->child(0)->vertex_index(1)] = true;
          for (const auto f : cell->face_indices())
            if (cell->face(f)->has_children())
              hanging[cell->face(f)->child(0)->vertex_index(3)] = true;
        }

    std::vector<dealii::Point<3>> new_position(n_vertices);
    std::vector<bool>             moved(n_vertices, false);
    for (const auto &cell : triangulation.active_cell_iterators())
      {
        if (cell->is_artificial())
          continue;
        for (const auto v : cell->vertex_indices())
          {
            const unsigned int index = cell->vertex_index(v);
            if (moved[index] || at_boundary[index] || !used[index] || hanging[index])
              continue;
            std::uint64_t     state = position_key(cell->vertex(v), seed);
            dealii::Tensor<1, 3> direction;
            do
              for (unsigned int d = 0; d < 3; ++d)
                direction[d] = 2. * (splitmix64(state) >> 11) * 0x1.0p-53 - 1.;
            while (direction.norm() < 1e-3);
            new_position[index] = cell->vertex(v) + factor * shortest_edge[index] / direction.norm() * direction;
            moved[index]        = true;
          }
      }
    for (const auto &cell : triangulation.active_cell_iterators())
      for (const auto v : cell->vertex_indices())
        if (moved[cell->vertex_index(v)])
          cell->vertex(v) = new_position[cell->vertex_index(v)];
    // Interior hanging vertices to the midpoints of their moved parents,
    // coarse levels first (a parent's vertex may hang from a coarser cell).
    for (unsigned int level = 0; level < triangulation.n_levels(); ++level)
      for (const auto &cell : triangulation.active_cell_iterators_on_level(level))
        if (!cell->is_artificial())
          {
            for (const auto l : cell->line_indices())
              {
                const auto line = cell->line(l);
                if (line->has_children() && !at_boundary[line->child(0)->vertex_index(1)])
                  line->child(0)->vertex(1) = 0.5 * (line->vertex(0) + line->vertex(1));
              }
            for (const auto f : cell->face_indices())
              {
                const auto face = cell->face(f);
                if (face->has_children() && !at_boundary[face->child(0)->vertex_index(3)])
                  face->child(0)->vertex(3) =
                    0.25 * (face->vertex(0) + face->vertex(1) + face->vertex(2) + face->vertex(3));
              }
          }
  }

  void
  set_bounding_box_boundary_ids(dealii::Triangulation<3> &triangulation)
  {
    const auto box = dealii::GridTools::compute_bounding_box(triangulation);
    set_box_boundary_ids(triangulation, box.get_boundary_points().first, box.get_boundary_points().second);
  }

  void
  set_box_boundary_ids(dealii::Triangulation<3> &triangulation, const dealii::Point<3> &lo, const dealii::Point<3> &hi)
  {
    const double size = lo.distance(hi);
    for (const auto &cell : triangulation.cell_iterators())
      for (const auto f : cell->face_indices())
        if (cell->face(f)->at_boundary())
          {
            const auto               c  = cell->face(f)->center();
            dealii::types::boundary_id id = 6;
            for (unsigned int d = 0; d < 3 && id == 6; ++d)
              {
                if (std::abs(c[d] - lo[d]) < 1e-10 * size)
                  id = 2 * d;
                else if (std::abs(c[d] - hi[d]) < 1e-10 * size)
                  id = 2 * d + 1;
              }
            cell->face(f)->set_boundary_id(id);
          }
  }

  namespace
  {
    /**
     * A coarse voxel mesh: the brick of n[0] x n[1] x n[2] cells of size h
     * (origin at 0) without the cells whose centre @p keep rejects.
     */
    template <typename Keep>
    void
    make_voxel_mesh(const std::array<unsigned int, 3> &n,
                    const std::array<double, 3>       &h,
                    const Keep                        &keep,
                    dealii::Triangulation<3>          &triangulation)
    {
      dealii::Triangulation<3> brick;
      dealii::GridGenerator::subdivided_hyper_rectangle(brick, {n[0], n[1], n[2]}, dealii::Point<3>(),
                                                        dealii::Point<3>(n[0] * h[0], n[1] * h[1], n[2] * h[2]));
      std::set<dealii::Triangulation<3>::active_cell_iterator> removed;
      for (const auto &cell : brick.active_cell_iterators())
        if (!keep(cell->center()))
          removed.insert(cell);
      dealii::Triangulation<3> voxels;
      dealii::GridGenerator::create_triangulation_with_removed_cells(brick, removed, voxels);
      triangulation.copy_triangulation(voxels);
      set_bounding_box_boundary_ids(triangulation);
    }

    /**
     * Boundary id 2, 3, 4 or 5 of a face with centre @p c in the plane x = 0,
     * y = 0, z = 0 or z = @p length (within @p tolerance; @p length < 0: no
     * such plane), else numbers::invalid_boundary_id: the symmetry planes and
     * the end of the quarter cylinders and spheres.
     */
    dealii::types::boundary_id
    plane_boundary_id(const dealii::Point<3> &c, const double tolerance, const double length)
    {
      if (std::abs(c[0]) < tolerance)
        return 2;
      if (std::abs(c[1]) < tolerance)
        return 3;
      if (std::abs(c[2]) < tolerance)
        return 4;
      if (length >= 0 && std::abs(c[2] - length) < tolerance)
        return 5;
      return dealii::numbers::invalid_boundary_id;
    }

    /**
     * The curved surface of the necking bar, r = R(z) = R (1 - imperfection
     * (1 - z / length)), in the chart (r / R(z), theta, z): the surface is
     * rho = 1 there, so the points that refinement adds on it stay on it.
     */
    class NeckingBarSurface : public dealii::ChartManifold<3, 3, 3>
    {
    public:
      NeckingBarSurface(const double radius, const double length, const double imperfection)
        : radius(radius)
        , length(length)
        , imperfection(imperfection)
      {}

      std::unique_ptr<dealii::Manifold<3, 3>>
      clone() const override
      {
        return std::make_unique<NeckingBarSurface>(radius, length, imperfection);
      }

      dealii::Point<3>
      pull_back(const dealii::Point<3> &x) const override
      {
        return dealii::Point<3>(std::hypot(x[0], x[1]) / radius_at(x[2]), std::atan2(x[1], x[0]), x[2]);
      }

      dealii::Point<3>
      push_forward(const dealii::Point<3> &chart) const override
      {
        const double r = chart[0] * radius_at(chart[2]);
        return dealii::Point<3>(r * std::cos(chart[1]), r * std::sin(chart[1]), chart[2]);
      }

      /** R(z). */
      double
      radius_at(const double z) const
      {
        return radius * (1. - imperfection * (1. - z / length));
      }

    private:
      const double radius, length, imperfection;
    };

    /**
     * The necking bar: deal.II's quarter disk (3 cells) extruded into
     * @p n_axial layers, each section scaled to R(z); the curved surface gets
     * manifold 1 (NeckingBarSurface), the cells a transfinite interpolation
     * between their faces (as deal.II's hyper_ball), so global refinement
     * keeps the geometry. Ids 1 curved, 2 x = 0, 3 y = 0, 4 z = 0, 5 z = length.
     */
    void
    make_necking_bar(const MeshParameters &p, const unsigned int n_axial, dealii::Triangulation<3> &triangulation)
    {
      const NeckingBarSurface  surface(p.outer_radius, p.cylinder_length, p.neck_imperfection);
      dealii::Triangulation<2> disk;
      dealii::GridGenerator::quarter_hyper_ball(disk, dealii::Point<2>(), 1.);
      dealii::Triangulation<3> bar;
      dealii::GridGenerator::extrude_triangulation(disk, n_axial + 1, p.cylinder_length, bar);
      dealii::GridTools::transform(
        [&](const dealii::Point<3> &x) {
          const double scale = surface.radius_at(x[2]);
          return dealii::Point<3>(scale * x[0], scale * x[1], x[2]);
        },
        bar);
      triangulation.copy_triangulation(bar);
      triangulation.set_all_manifold_ids(0);
      const double tolerance = 1e-8 * p.outer_radius;
      for (const auto &cell : triangulation.active_cell_iterators())
        for (const auto f : cell->face_indices())
          if (cell->face(f)->at_boundary())
            {
              // Off the planes: the curved surface, on its manifold.
              const dealii::types::boundary_id id = plane_boundary_id(cell->face(f)->center(), tolerance,
                                                                      p.cylinder_length);
              cell->face(f)->set_boundary_id(id != dealii::numbers::invalid_boundary_id ? id : 1);
              if (id == dealii::numbers::invalid_boundary_id)
                cell->face(f)->set_all_manifold_ids(1);
            }
      triangulation.set_manifold(1, surface);
      dealii::TransfiniteInterpolationManifold<3> cells;
      cells.initialize(triangulation);
      triangulation.set_manifold(0, cells);
    }

    /** Thick-walled shells: boundary ids 0 inner, 1 outer, 2..4 planes x, y, z = 0, 5 z = top. */
    void
    set_shell_boundary_ids(dealii::Triangulation<3> &triangulation,
                           const double              inner_radius,
                           const double              outer_radius,
                           const bool                cylinder,
                           const double              length)
    {
      const double tolerance = 1e-8 * outer_radius;
      for (const auto &cell : triangulation.cell_iterators())
        for (const auto f : cell->face_indices())
          if (cell->face(f)->at_boundary())
            {
              const auto                 c  = cell->face(f)->center(true);
              const double               r  = cylinder ? std::hypot(c[0], c[1]) : c.norm();
              dealii::types::boundary_id id = plane_boundary_id(c, tolerance, cylinder ? length : -1.);
              if (id == dealii::numbers::invalid_boundary_id)
                id = std::abs(r - inner_radius) < 1e-3 * inner_radius ? 0 :
                     std::abs(r - outer_radius) < 1e-3 * outer_radius ? 1 :
                                                                        6;
              cell->face(f)->set_boundary_id(id);
            }
    }

    /**
     * The names of the Abaqus surfaces (*Surface, name=...) in @p file that
     * hold no digit: deal.II's reader takes a surface's boundary id from the
     * digits of its name (SS3, SURF-3), so these all get id 0.
     */
    std::vector<std::string>
    abaqus_surfaces_without_id(const std::string &file)
    {
      std::vector<std::string> names;
      std::ifstream            in(file);
      for (std::string line; std::getline(in, line);)
        {
          std::string upper(line);
          std::transform(upper.begin(), upper.end(), upper.begin(),
                         [](const unsigned char c) { return static_cast<char>(std::toupper(c)); });
          const auto name = upper.find("NAME=");
          if (upper.rfind("*SURFACE", 0) != 0 || name == std::string::npos)
            continue;
          const auto        end   = line.find(',', name + 5);
          const std::string given = line.substr(name + 5, end == std::string::npos ? std::string::npos : end - name - 5);
          if (std::none_of(given.begin(), given.end(), [](const unsigned char c) { return std::isdigit(c) != 0; }))
            names.push_back(given);
        }
      return names;
    }

    /**
     * Warn (rank 0) about what the mesh file of @p p (Abaqus if @p abaqus,
     * else gmsh) leaves on boundary id 0 without saying so: boundary faces of
     * a gmsh file without a physical tag, Abaqus surfaces whose names hold no
     * id.
     */
    void
    warn_about_boundary_ids(const MeshParameters           &p,
                            const bool                      abaqus,
                            const dealii::Triangulation<3> &triangulation)
    {
      std::string message;
      if (abaqus)
        {
          const auto names = abaqus_surfaces_without_id(p.file);
          for (const auto &name : names)
            message += (message.empty() ? "" : ", ") + name;
          if (!message.empty())
            message = "the Abaqus surface" + std::string(names.size() > 1 ? "s " : " ") + message + " of '" + p.file +
                      "' hold no number in their names, from which deal.II takes the boundary id (SS3, SURF-3): " +
                      "their faces get boundary id 0; put the id in the name";
        }
      else
        {
          // gmsh's physical tags are positive: id 0 is a face no tagged quadrilateral covers.
          unsigned long long n_boundary = 0, n_untagged = 0;
          for (const auto &cell : triangulation.cell_iterators_on_level(0))
            for (const auto f : cell->face_indices())
              if (cell->face(f)->at_boundary())
                {
                  ++n_boundary;
                  n_untagged += cell->face(f)->boundary_id() == 0;
                }
          if (n_untagged > 0)
            message = std::to_string(n_untagged) + " of " + std::to_string(n_boundary) + " boundary faces of '" +
                      p.file + "' carry no physical tag and get boundary id 0 (traction-free unless a condition " +
                      "names id 0)";
        }
      print_warning(message, triangulation.get_communicator());
    }

    void
    read_mesh_file(const MeshParameters &p, dealii::Triangulation<3> &triangulation)
    {
      dealii::GridIn<3> grid_in;
      grid_in.attach_triangulation(triangulation);
      std::ifstream in(p.file);
      if (!in)
        throw InputError("Mesh/File", "cannot open mesh file '" + p.file + "'");
      const bool abaqus = p.file.size() > 4 && p.file.substr(p.file.size() - 4) == ".inp";
      try
        {
          if (abaqus)
            grid_in.read_abaqus(in);
          else
            grid_in.read_msh(in);
        }
      catch (const dealii::ExceptionBase &error)
        {
          std::ostringstream message;
          error.print_info(message);
          throw InputError("Mesh/File", "cannot read '" + p.file + "': " + one_line(message.str()));
        }
      catch (const std::exception &error)
        {
          throw InputError("Mesh/File", "cannot read '" + p.file + "': " + one_line(error.what()));
        }
      if (triangulation.n_cells() == 0)
        throw InputError("Mesh/File", "'" + p.file + "' contains no hexahedra");
      if (p.scale != 1.)
        dealii::GridTools::scale(p.scale, triangulation);
      // deal.II turns mirrored cells around; cells it cannot repair
      // (tangled, flat) have a non-positive Jacobian at a corner: the
      // determinant of the three edges leaving each vertex, oriented along
      // the reference axes (vertex i + 2 j + 4 k of a deal.II hexahedron).
      unsigned int n_bad = 0;
      for (const auto &cell : triangulation.cell_iterators())
        {
          const double size = cell->diameter();
          bool         bad  = false;
          for (unsigned int v = 0; v < 8 && !bad; ++v)
            {
              dealii::Tensor<2, 3> jacobian;
              for (unsigned int d = 0; d < 3; ++d)
                {
                  const unsigned int bit  = 1u << d;
                  const double       sign = (v & bit) ? -1. : 1.;
                  const auto         edge = sign * (cell->vertex(v ^ bit) - cell->vertex(v));
                  for (unsigned int e = 0; e < 3; ++e)
                    jacobian[e][d] = edge[e];
                }
              bad = !(dealii::determinant(jacobian) > 1e-12 * size * size * size);
            }
          n_bad += bad;
        }
      if (n_bad > 0)
        throw InputError("Mesh/File", "'" + p.file + "': " + std::to_string(n_bad) +
                                        " hexahedra are tangled or flat (a non-positive Jacobian at a corner)");
      warn_about_boundary_ids(p, abaqus, triangulation);
    }
  } // namespace

  void
  create_mesh(const MeshParameters &p, dealii::Triangulation<3> &triangulation)
  {
    create_coarse_mesh(p, triangulation);
    triangulation.refine_global(p.global_refinements);
    refine_locally(p, triangulation);
    if (p.distortion > 0)
      distort_vertices(triangulation, p.distortion, 42);
  }

  std::unique_ptr<dealii::Function<3>>
  make_local_refinement_region(const MeshParameters &p)
  {
    return parse_expression("Mesh/Local refinement region", "x,y,z", p.local_refinement_region);
  }

  void
  refine_locally(const MeshParameters &p, dealii::Triangulation<3> &triangulation)
  {
    if (p.local_refinements == 0)
      return;
    const auto region = make_local_refinement_region(p);
    for (unsigned int cycle = 0; cycle < p.local_refinements; ++cycle)
      {
        unsigned long long n_flagged = 0;
        for (const auto &cell : triangulation.active_cell_iterators())
          if (cell->is_locally_owned() && region->value(cell->center()) > 0)
            {
              cell->set_refine_flag();
              ++n_flagged;
            }
        // A serial mesh's communicator is MPI_COMM_SELF: the sum is its own count.
        n_flagged = dealii::Utilities::MPI::sum(n_flagged, triangulation.get_communicator());
        if (n_flagged == 0)
          {
            print_warning("Mesh/Local refinement region '" + p.local_refinement_region +
                            "' is positive at no cell centre" +
                            (cycle == 0 ? std::string() : " after " + std::to_string(cycle) + " refinement(s)") +
                            ": the remaining Local refinements refine nothing",
                          triangulation.get_communicator());
            break;
          }
        triangulation.execute_coarsening_and_refinement();
      }
  }

  void
  load_mesh(const MeshParameters &p, dealii::parallel::distributed::Triangulation<3> &triangulation,
            const std::string &file)
  {
    create_coarse_mesh(p, triangulation);
    triangulation.load(file);
    if (p.distortion > 0)
      distort_vertices(triangulation, p.distortion, 42);
  }

  std::unique_ptr<dealii::Function<3>>
  parse_expression(const std::string &entry,
                   const std::string &variables,
                   const std::string &expression,
                   const bool         time_dependent)
  {
    auto              parser  = std::make_unique<dealii::FunctionParser<3>>(1);
    const std::string failure = parser_failure([&] {
      parser->initialize(variables, expression, {{"pi", dealii::numbers::PI}}, time_dependent);
      // muparser compiles, and reports errors, at the first evaluation.
      parser->value(expression_test_point);
    });
    if (!failure.empty())
      {
        std::string listed = variables;
        for (std::size_t comma = listed.find(','); comma != std::string::npos; comma = listed.find(',', comma + 2))
          listed.insert(comma + 1, " ");
        throw InputError(entry, "'" + expression + "' is not an expression of " + listed + " (" + failure + ")");
      }
    return parser;
  }

  namespace
  {
    /** parse_expression(), and the value at the test point finite. */
    std::unique_ptr<dealii::Function<3>>
    parse_finite_expression(const std::string &entry,
                            const std::string &variables,
                            const std::string &expression,
                            const bool         time_dependent)
    {
      auto function = parse_expression(entry, variables, expression, time_dependent);
      if (!std::isfinite(function->value(expression_test_point)))
        throw InputError(entry, "'" + expression + "' is not finite at (0.1234, 0.5678, 0.9012)");
      return function;
    }

    /** The image of 'Image file'; a fault in it is an InputError of that entry. */
    std::shared_ptr<const VoxelImage>
    load_image(const FixedGridParameters &p)
    {
      try
        {
          return std::make_shared<const VoxelImage>(
            read_voxel_image(p.image_file, {{p.image_size[0], p.image_size[1], p.image_size[2]}}, p.image_type));
        }
      catch (const std::runtime_error &error)
        {
          throw InputError("Mesh/Fixed grid/Image file", error.what());
        }
    }
  } // namespace

  FixedGridBody::FixedGridBody(const MeshParameters &p)
    : lower(p.lower_corner)
    , upper(p.upper_corner)
    , threshold(p.fixed_grid.threshold)
  {
    if (p.fixed_grid.image_file.empty())
      expression = parse_finite_expression("Mesh/Fixed grid/Body", "x,y,z", p.fixed_grid.body, false);
    else
      image = load_image(p.fixed_grid);
    const std::string entry = "Mesh/Fixed grid/Material regions";
    std::istringstream list(p.fixed_grid.material_regions);
    for (std::string item; std::getline(list, item, ';');)
      {
        if (item.find_first_not_of(" \t") == std::string::npos)
          continue;
        const auto colon = item.find(':');
        if (colon == std::string::npos)
          throw InputError(entry, "'" + item + "' lacks 'id:' (expected e.g. '1: y - 0.5')");
        const std::string id_text = item.substr(0, colon);
        std::size_t       used    = 0;
        long              id      = -1;
        try
          {
            id = std::stol(id_text, &used);
          }
        catch (const std::exception &)
          {}
        if (id < 0 || id >= dealii::numbers::invalid_material_id ||
            id_text.find_first_not_of(" \t", id_text.find_first_not_of(" \t") + used) != std::string::npos)
          throw InputError(entry, "'" + id_text + "' is not a material id (0 to 254)");
        std::string expression = item.substr(colon + 1);
        expression             = expression.substr(std::min(expression.size(), expression.find_first_not_of(" \t")));
        regions.emplace_back(static_cast<dealii::types::material_id>(id),
                             parse_finite_expression(entry, "x,y,z,v", expression, true));
      }
  }

  FixedGridBody::~FixedGridBody() = default;

  double
  FixedGridBody::value(const dealii::Point<3> &x) const
  {
    if (expression)
      return expression->value(x);
    std::size_t index[3];
    for (unsigned int d = 0; d < 3; ++d)
      {
        const double t = (x[d] - lower[d]) / (upper[d] - lower[d]) * image->size[d];
        index[d] = t <= 0 ? 0 : std::min(static_cast<std::size_t>(t), image->size[d] - 1);
      }
    return image->at(index[0], index[1], index[2]);
  }

  bool
  FixedGridBody::inside(const dealii::Point<3> &x) const
  {
    return expression ? expression->value(x) < 0 : value(x) >= threshold;
  }

  double
  FixedGridBody::fraction(const dealii::Point<3> &lo, const dealii::Point<3> &hi, const unsigned int s) const
  {
    unsigned int inside_points = 0;
    for (unsigned int k = 0; k < s; ++k)
      for (unsigned int j = 0; j < s; ++j)
        for (unsigned int i = 0; i < s; ++i)
          {
            const double     xi[3] = {(i + 0.5) / s, (j + 0.5) / s, (k + 0.5) / s};
            dealii::Point<3> x;
            for (unsigned int d = 0; d < 3; ++d)
              x[d] = lo[d] + xi[d] * (hi[d] - lo[d]);
            inside_points += inside(x) ? 1 : 0;
          }
    return static_cast<double>(inside_points) / (s * s * s);
  }

  dealii::types::material_id
  FixedGridBody::material_id(const dealii::Point<3> &x) const
  {
    if (regions.empty())
      return 0;
    const double v = value(x);
    for (const auto &[id, region] : regions)
      {
        region->set_time(v);
        if (region->value(x) < 0)
          return id;
      }
    return 0;
  }

  std::shared_ptr<const FixedGridBody>
  fixed_grid_body(const MeshParameters &p)
  {
    // One body (and image) for the entries that make it, the image file's
    // time and size included: a rewritten image is read again.
    static std::string                          cached_key;
    static std::shared_ptr<const FixedGridBody> cached;
    std::error_code                             ec;
    std::ostringstream                          key;
    key << std::setprecision(17) << p.fixed_grid.body << '|' << p.fixed_grid.image_file << '|';
    if (!p.fixed_grid.image_file.empty())
      {
        const auto time = std::filesystem::last_write_time(p.fixed_grid.image_file, ec);
        key << (ec ? 0 : time.time_since_epoch().count()) << '|'
            << (ec ? 0 : std::filesystem::file_size(p.fixed_grid.image_file, ec)) << '|';
      }
    key << p.fixed_grid.image_size[0] << ',' << p.fixed_grid.image_size[1] << ',' << p.fixed_grid.image_size[2] << '|'
        << static_cast<int>(p.fixed_grid.image_type) << '|' << p.fixed_grid.threshold << '|'
        << p.fixed_grid.material_regions << '|' << p.lower_corner << '|' << p.upper_corner;
    if (!cached || cached_key != key.str())
      {
        cached.reset();
        cached     = std::make_shared<const FixedGridBody>(p);
        cached_key = key.str();
      }
    return cached;
  }

  FixedGridFractions::FixedGridFractions(const MeshParameters &p)
    : body(fixed_grid_body(p))
    , samples(p.fixed_grid.samples)
    , void_stiffness(p.fixed_grid.void_stiffness)
  {}

  double
  FixedGridFractions::sampled(const dealii::TriaIterator<dealii::CellAccessor<3>> &cell) const
  {
    // The cells of a fixed grid are axis-parallel boxes: vertex 0 and 7 span them.
    return body->fraction(cell->vertex(0), cell->vertex(7), samples);
  }

  double
  FixedGridFractions::operator()(const dealii::TriaIterator<dealii::CellAccessor<3>> &cell) const
  {
    const auto key = std::make_pair(cell->level(), cell->index());
    const auto it  = cache.find(key);
    if (it != cache.end())
      return it->second;
    double fraction = 0;
    if (cell->has_children())
      {
        for (unsigned int c = 0; c < cell->n_children(); ++c)
          fraction += (*this)(cell->child(c));
        fraction /= cell->n_children();
      }
    else
      fraction = sampled(cell);
    cache.emplace(key, fraction);
    return fraction;
  }

  double
  FixedGridFractions::stiffness_factor(const dealii::TriaIterator<dealii::CellAccessor<3>> &cell) const
  {
    const double xi = (*this)(cell);
    return xi + void_stiffness * (1. - xi);
  }

  void
  FixedGridFractions::clear()
  {
    cache.clear();
  }

  namespace
  {
    /**
     * The fixed grid: the cells of the box's Subdivisions that hold a sample
     * of the body (all with 'Keep outside cells'), built directly as a coarse
     * mesh (no full brick first), with the material ids of the regions at
     * the cell centres; boundary ids by the box, the faces of kept outside
     * cells 6.
     */
    void
    make_fixed_grid(const MeshParameters &p, dealii::Triangulation<3> &triangulation)
    {
      const auto         body = fixed_grid_body(p);
      const unsigned int n[3] = {p.subdivisions[0], p.subdivisions[1], p.subdivisions[2]};
      const std::size_t  X = n[0] + 1, Y = n[1] + 1;
      double             h[3];
      for (unsigned int d = 0; d < 3; ++d)
        h[d] = (p.upper_corner[d] - p.lower_corner[d]) / n[d];
      auto point = [&](const std::size_t i, const std::size_t j, const std::size_t k) {
        // The upper corner exactly on the last lattice plane.
        const std::size_t index[3] = {i, j, k};
        dealii::Point<3>  x;
        for (unsigned int d = 0; d < 3; ++d)
          x[d] = index[d] == n[d] ? p.upper_corner[d] : p.lower_corner[d] + index[d] * h[d];
        return x;
      };
      std::vector<dealii::CellData<3>> cells;
      // With 'Keep outside cells', per lattice cell: 1 if no sample point lies inside the body.
      std::vector<std::uint8_t> empty_cell(p.fixed_grid.keep_outside_cells ? std::size_t(n[0]) * n[1] * n[2] : 0, 0);
      bool                             any_inside = false;
      std::vector<unsigned int>        vertex_of_point(X * Y * (n[2] + 1), dealii::numbers::invalid_unsigned_int);
      std::vector<dealii::Point<3>>    vertices;
      for (unsigned int k = 0; k < n[2]; ++k)
        for (unsigned int j = 0; j < n[1]; ++j)
          for (unsigned int i = 0; i < n[0]; ++i)
            {
              const bool empty = body->fraction(point(i, j, k), point(i + 1, j + 1, k + 1), p.fixed_grid.samples) == 0;
              any_inside = any_inside || !empty;
              if (empty && !p.fixed_grid.keep_outside_cells)
                continue;
              if (p.fixed_grid.keep_outside_cells)
                empty_cell[i + n[0] * (j + std::size_t(n[1]) * k)] = empty;
              dealii::CellData<3> cell;
              for (unsigned int a = 0; a < 8; ++a)
                {
                  const std::size_t pi = i + (a & 1), pj = j + ((a >> 1) & 1), pk = k + ((a >> 2) & 1);
                  unsigned int     &v  = vertex_of_point[pi + X * (pj + Y * pk)];
                  if (v == dealii::numbers::invalid_unsigned_int)
                    {
                      v = static_cast<unsigned int>(vertices.size());
                      vertices.push_back(point(pi, pj, pk));
                    }
                  cell.vertices[a] = v;
                }
              cell.material_id = body->material_id(0.5 * (point(i, j, k) + point(i + 1, j + 1, k + 1)));
              cells.push_back(cell);
            }
      if (!any_inside)
        throw InputError(p.fixed_grid.image_file.empty() ? "Mesh/Fixed grid/Body" : "Mesh/Fixed grid/Threshold",
                         "no cell of the grid holds a sample point inside the body (" +
                           (p.fixed_grid.image_file.empty() ?
                              "'" + p.fixed_grid.body + "' is nowhere negative in the box" :
                              "no voxel of '" + p.fixed_grid.image_file + "' reaches the threshold at a sample point") +
                           ")");
      vertex_of_point = {};
      triangulation.create_triangulation(vertices, cells, dealii::SubCellData());
      // Ids by the box, not by the cells that remain; the faces of kept
      // outside cells get 6: loads and supports act on the body only.
      set_box_boundary_ids(triangulation, p.lower_corner, p.upper_corner);
      // The lattice cell of a mesh cell from its centre (the mesh's cell
      // order is deal.II's, not the loop's), so the samples are not taken twice.
      if (p.fixed_grid.keep_outside_cells)
        for (const auto &cell : triangulation.active_cell_iterators())
          {
            const auto   centre = cell->center();
            std::size_t  index[3];
            for (unsigned int d = 0; d < 3; ++d)
              index[d] = std::min<std::size_t>(n[d] - 1, static_cast<std::size_t>(std::max(
                                                           0., std::floor((centre[d] - p.lower_corner[d]) / h[d]))));
            if (empty_cell[index[0] + n[0] * (index[1] + std::size_t(n[1]) * index[2])])
              for (const auto f : cell->face_indices())
                if (cell->face(f)->at_boundary())
                  cell->face(f)->set_boundary_id(6);
          }
    }
  } // namespace

  void
  create_coarse_mesh(const MeshParameters &p, dealii::Triangulation<3> &triangulation)
  {
    const std::vector<unsigned int> repetitions(p.subdivisions.begin(), p.subdivisions.end());
    switch (p.geometry)
      {
        case GeometryType::box:
        case GeometryType::cantilever:
          dealii::GridGenerator::subdivided_hyper_rectangle(triangulation, repetitions,
                                                            p.lower_corner, p.upper_corner, false);
          set_bounding_box_boundary_ids(triangulation);
          break;
        case GeometryType::l_shaped:
          dealii::GridGenerator::subdivided_hyper_L(
            triangulation, repetitions, p.lower_corner, p.upper_corner,
            {static_cast<int>(repetitions[0] / 2), static_cast<int>(repetitions[1] / 2), 0});
          set_bounding_box_boundary_ids(triangulation);
          break;
        case GeometryType::l_bracket:
          make_voxel_mesh({{20, 20, 4}}, {{0.05, 0.05, 0.05}},
                          [](const dealii::Point<3> &c) { return !(c[0] > 0.4 && c[1] > 0.4); },
                          triangulation);
          for (const auto &cell : triangulation.active_cell_iterators())
            for (const auto f : cell->face_indices())
              if (cell->face(f)->at_boundary())
                {
                  const auto c = cell->face(f)->center();
                  if (std::abs(c[1] - 0.4) < 1e-10 && c[0] >= 0.8)
                    cell->face(f)->set_boundary_id(7);
                }
          break;
        case GeometryType::plate_with_holes:
          make_voxel_mesh({{20, 20, 2}}, {{5., 5., 5.}},
                        [](const dealii::Point<3> &c) {
                          for (const double x : {25., 75.})
                            for (const double y : {25., 75.})
                              if (std::abs(c[0] - x) < 5. && std::abs(c[1] - y) < 5.)
                                return false;
                          return true;
                        },
                        triangulation);
          break;
        case GeometryType::cutout_cantilever:
          make_voxel_mesh({{60, 20, 4}}, {{5., 5., 8.}},
                        [](const dealii::Point<3> &c) {
                          if (c[0] > 150. && c[1] > 60.)
                            return false;
                          return !(c[0] > 50. && c[0] < 100. && c[1] > 35. && c[1] < 65.);
                        },
                        triangulation);
          break;
        case GeometryType::cylinder:
          {
            dealii::Triangulation<2> ring;
            dealii::GridGenerator::quarter_hyper_shell(ring, dealii::Point<2>(), p.inner_radius, p.outer_radius, 0);
            dealii::Triangulation<3> shell;
            dealii::GridGenerator::extrude_triangulation(ring, 2, p.cylinder_length, shell);
            triangulation.copy_triangulation(shell);
            triangulation.set_all_manifold_ids(0);
            triangulation.set_manifold(0, dealii::CylindricalManifold<3>(2));
            set_shell_boundary_ids(triangulation, p.inner_radius, p.outer_radius, true, p.cylinder_length);
            break;
          }
        case GeometryType::wellbore:
          {
            // (s, theta) in [0, 1] x [0, pi/2], then r(s) with cell sizes
            // growing by 'Radial growth' per coarse cell, extruded in z.
            const unsigned int       n_radial = repetitions[0], n_circumferential = repetitions[1];
            dealii::Triangulation<2> parameter_plane;
            dealii::GridGenerator::subdivided_hyper_rectangle(parameter_plane, {n_radial, n_circumferential},
                                                              dealii::Point<2>(0., 0.),
                                                              dealii::Point<2>(1., 0.5 * dealii::numbers::PI));
            const double q = p.radial_growth, r0 = p.inner_radius, r1 = p.outer_radius;
            dealii::GridTools::transform(
              [&](const dealii::Point<2> &x) {
                const double fraction = std::abs(q - 1.) < 1e-12 ?
                                          x[0] :
                                          (std::pow(q, n_radial * x[0]) - 1.) / (std::pow(q, n_radial) - 1.);
                const double r = x[0] >= 1. ? r1 : r0 + (r1 - r0) * fraction;
                return dealii::Point<2>(r * std::cos(x[1]), r * std::sin(x[1]));
              },
              parameter_plane);
            dealii::Triangulation<3> slab;
            dealii::GridGenerator::extrude_triangulation(parameter_plane, repetitions[2] + 1, p.cylinder_length,
                                                         slab);
            triangulation.copy_triangulation(slab);
            triangulation.set_all_manifold_ids(0);
            triangulation.set_manifold(0, dealii::CylindricalManifold<3>(2));
            set_shell_boundary_ids(triangulation, p.inner_radius, p.outer_radius, true, p.cylinder_length);
            break;
          }
        case GeometryType::sphere:
          {
            dealii::Triangulation<3> shell;
            dealii::GridGenerator::quarter_hyper_shell(shell, dealii::Point<3>(), p.inner_radius, p.outer_radius, 0);
            triangulation.copy_triangulation(shell);
            triangulation.set_all_manifold_ids(0);
            triangulation.set_manifold(0, dealii::SphericalManifold<3>(dealii::Point<3>()));
            set_shell_boundary_ids(triangulation, p.inner_radius, p.outer_radius, false, 0.);
            break;
          }
        case GeometryType::cook_membrane:
          // The unit cube with ids 0..5 on its faces, mapped bilinearly in x-y onto the panel.
          dealii::GridGenerator::subdivided_hyper_rectangle(triangulation, repetitions, dealii::Point<3>(),
                                                            dealii::Point<3>(1., 1., 1.), true);
          dealii::GridTools::transform(
            [](const dealii::Point<3> &x) {
              return dealii::Point<3>(48. * x[0], 44. * x[0] + 44. * x[1] - 28. * x[0] * x[1], x[2]);
            },
            triangulation);
          break;
        case GeometryType::necking_bar:
          make_necking_bar(p, repetitions[2], triangulation);
          break;
        case GeometryType::fixed_grid:
          make_fixed_grid(p, triangulation);
          break;
        case GeometryType::file:
          read_mesh_file(p, triangulation);
          break;
      }

    // The fixed grid's material regions set its ids; other generated geometries are one material.
    if (p.geometry != GeometryType::file && p.geometry != GeometryType::fixed_grid)
      for (const auto &cell : triangulation.cell_iterators())
        cell->set_material_id(0);
  }
} // namespace plastix
