// Generated geometries and mesh files.
#include <deal.II/base/exceptions.h>
#include <deal.II/base/function_parser.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_in.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/grid/manifold_lib.h>

#include "mesh_generation.h"

#include <array>
#include <cmath>
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
              const auto   c = cell->face(f)->center(true);
              const double r = cylinder ? std::hypot(c[0], c[1]) : c.norm();
              dealii::types::boundary_id id = 6;
              if (std::abs(c[0]) < tolerance)
                id = 2;
              else if (std::abs(c[1]) < tolerance)
                id = 3;
              else if (std::abs(c[2]) < tolerance)
                id = 4;
              else if (cylinder && std::abs(c[2] - length) < tolerance)
                id = 5;
              else if (std::abs(r - inner_radius) < 1e-3 * inner_radius)
                id = 0;
              else if (std::abs(r - outer_radius) < 1e-3 * outer_radius)
                id = 1;
              cell->face(f)->set_boundary_id(id);
            }
    }

    void
    read_mesh_file(const MeshParameters &p, dealii::Triangulation<3> &triangulation)
    {
      dealii::GridIn<3> grid_in;
      grid_in.attach_triangulation(triangulation);
      std::ifstream in(p.file);
      if (!in)
        throw InputError("Mesh/File", "cannot open mesh file '" + p.file + "'");
      try
        {
          if (p.file.size() > 4 && p.file.substr(p.file.size() - 4) == ".inp")
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
    auto region = std::make_unique<dealii::FunctionParser<3>>(1);
    region->initialize("x,y,z", p.local_refinement_region, {{"pi", dealii::numbers::PI}});
    return region;
  }

  void
  refine_locally(const MeshParameters &p, dealii::Triangulation<3> &triangulation)
  {
    if (p.local_refinements == 0)
      return;
    const auto region = make_local_refinement_region(p);
    for (unsigned int cycle = 0; cycle < p.local_refinements; ++cycle)
      {
        for (const auto &cell : triangulation.active_cell_iterators())
          if (cell->is_locally_owned() && region->value(cell->center()) > 0)
            cell->set_refine_flag();
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
  make_fixed_grid_body(const MeshParameters &p)
  {
    auto body = std::make_unique<dealii::FunctionParser<3>>(1);
    body->initialize("x,y,z", p.fixed_grid.body, {{"pi", dealii::numbers::PI}});
    return body;
  }

  FixedGridFractions::FixedGridFractions(const MeshParameters &p)
    : body(make_fixed_grid_body(p))
    , samples(p.fixed_grid.samples)
    , void_stiffness(p.fixed_grid.void_stiffness)
  {}

  double
  FixedGridFractions::sampled(const dealii::TriaIterator<dealii::CellAccessor<3>> &cell) const
  {
    const unsigned int s = samples, n = s * s * s;
    unsigned int       inside = 0;
    for (unsigned int i = 0; i < n; ++i)
      {
        const double xi[3] = {((i % s) + 0.5) / s, (((i / s) % s) + 0.5) / s, ((i / (s * s)) + 0.5) / s};
        dealii::Point<3> x;
        for (unsigned int v = 0; v < 8; ++v)
          {
            double w = 1;
            for (unsigned int d = 0; d < 3; ++d)
              w *= ((v >> d) & 1) ? xi[d] : 1. - xi[d];
            x += w * cell->vertex(v);
          }
        inside += body->value(x) < 0 ? 1 : 0;
      }
    return static_cast<double>(inside) / n;
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
    /** The fixed grid: the box's equal cells without those that hold no sample of the body. */
    void
    make_fixed_grid(const MeshParameters &p, dealii::Triangulation<3> &triangulation)
    {
      dealii::Triangulation<3> brick;
      dealii::GridGenerator::subdivided_hyper_rectangle(brick, {p.subdivisions[0], p.subdivisions[1], p.subdivisions[2]},
                                                        p.lower_corner, p.upper_corner);
      const FixedGridFractions                                fractions(p);
      std::set<dealii::Triangulation<3>::active_cell_iterator> removed;
      if (!p.fixed_grid.keep_outside_cells)
        for (const auto &cell : brick.active_cell_iterators())
          if (fractions.sampled(cell) == 0)
            removed.insert(cell);
      if (removed.size() == brick.n_active_cells())
        throw InputError("Mesh/Fixed grid/Body", "no cell of the grid holds a sample point inside the body ('" +
                                                   p.fixed_grid.body + "' is nowhere negative in the box)");
      if (removed.empty())
        triangulation.copy_triangulation(brick);
      else
        {
          dealii::Triangulation<3> cells;
          dealii::GridGenerator::create_triangulation_with_removed_cells(brick, removed, cells);
          triangulation.copy_triangulation(cells);
        }
      // Ids by the box, not by the cells that remain; the faces of kept
      // outside cells get 6: loads and supports act on the body only.
      set_box_boundary_ids(triangulation, p.lower_corner, p.upper_corner);
      if (p.fixed_grid.keep_outside_cells)
        for (const auto &cell : triangulation.active_cell_iterators())
          if (fractions.sampled(cell) == 0)
            for (const auto f : cell->face_indices())
              if (cell->face(f)->at_boundary())
                cell->face(f)->set_boundary_id(6);
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
        case GeometryType::fixed_grid:
          make_fixed_grid(p, triangulation);
          break;
        case GeometryType::file:
          read_mesh_file(p, triangulation);
          break;
      }

    if (p.geometry != GeometryType::file)
      for (const auto &cell : triangulation.cell_iterators())
        cell->set_material_id(0);
  }
} // namespace plastix
