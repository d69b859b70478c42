// Mesh/Geometry = necking bar: a quarter of a round bar about z of radius R
// at z = L, falling linearly to (1 - e) R at z = 0 (the neck's plane), made
// of deal.II's quarter disk extruded along z, with a manifold on the curved
// surface and a transfinite interpolation in the cells. Checked on the
// distributed mesh after 0 to 3 global refinements:
//  - every vertex of a face with id 1 lies on r = R(z) (round-off);
//  - the faces with ids 2, 3, 4, 5 lie in x = 0, y = 0, z = 0, z = L;
//  - the volume converges to pi R^2 L / 4 (1 - e + e^2 / 3) at second order
//    (the Q1 cells are chords of the curved surface), and the area of the
//    neck's section (id 4) to pi ((1 - e) R)^2 / 4;
//  - every cell has a positive volume;
//  - the geometry's input checks.
// Run with 1 and 2 MPI ranks.

// Test: ranks 1 2
#include <deal.II/base/mpi.h>
#include <deal.II/distributed/tria.h>

#include "mesh_generation.h"
#include "parameter_parsing.h"
#include "parameters.h"
#include "test_environment.h"

#include <cmath>
#include <functional>
#include <iomanip>
#include <string>
#include <utility>
#include <vector>

using namespace dealii;

namespace
{
  constexpr double R = 6.413, L = 26.667, e = 0.018;

  struct Measures
  {
    double       volume = 0, neck_area = 0, surface_distance = 0, plane_distance = 0, smallest_cell = 1e300;
    unsigned int ids_seen = 0;
  };

  Measures
  measure(const unsigned int refinements, const MPI_Comm comm)
  {
    plastix::MeshParameters p;
    p.geometry           = plastix::GeometryType::necking_bar;
    p.outer_radius       = R;
    p.cylinder_length    = L;
    p.neck_imperfection  = e;
    p.subdivisions       = {1, 1, 4};
    p.global_refinements = refinements;
    p.check();
    parallel::distributed::Triangulation<3> triangulation(comm);
    plastix::create_mesh(p, triangulation);
    Measures m;
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          m.volume += cell->measure();
          m.smallest_cell = std::min(m.smallest_cell, cell->measure() / std::pow(cell->diameter(), 3));
          for (const auto f : cell->face_indices())
            if (cell->face(f)->at_boundary())
              {
                const auto   face = cell->face(f);
                const auto   id   = face->boundary_id();
                m.ids_seen |= 1u << id;
                if (id == 4)
                  m.neck_area += face->measure();
                for (const auto v : face->vertex_indices())
                  {
                    const Point<3> x = face->vertex(v);
                    if (id == 1)
                      m.surface_distance = std::max(m.surface_distance,
                                                    std::abs(std::hypot(x[0], x[1]) - R * (1 - e * (1 - x[2] / L))));
                    else
                      {
                        const double distance[4] = {std::abs(x[0]), std::abs(x[1]), std::abs(x[2]),
                                                    std::abs(x[2] - L)};
                        m.plane_distance = std::max(m.plane_distance, distance[id - 2]);
                      }
                  }
              }
        }
    m.volume           = Utilities::MPI::sum(m.volume, comm);
    m.neck_area        = Utilities::MPI::sum(m.neck_area, comm);
    m.surface_distance = Utilities::MPI::max(m.surface_distance, comm);
    m.plane_distance   = Utilities::MPI::max(m.plane_distance, comm);
    m.smallest_cell    = Utilities::MPI::min(m.smallest_cell, comm);
    unsigned int ids_anywhere = 0;
    for (unsigned int id = 0; id < 8; ++id)
      if (Utilities::MPI::max((m.ids_seen >> id) & 1u, comm) != 0)
        ids_anywhere |= 1u << id;
    m.ids_seen = ids_anywhere;
    return m;
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    const double volume = dealii::numbers::PI * R * R * L / 4 * (1 - e + e * e / 3);
    const double neck   = dealii::numbers::PI * std::pow((1 - e) * R, 2) / 4;
    double       previous_volume_error = 0, previous_area_error = 0;
    for (unsigned int refinements = 0; refinements <= 3; ++refinements)
      {
        const Measures     m            = measure(refinements, env.comm);
        const double       volume_error = std::abs(m.volume / volume - 1);
        const double       area_error   = std::abs(m.neck_area / neck - 1);
        const std::string  at           = std::to_string(refinements) + " refinement(s)";
        env.pout << std::setprecision(6) << at << ": volume " << m.volume << " (exact " << volume << ", relative error "
                 << volume_error << "), neck section " << m.neck_area << " (exact " << neck << ", " << area_error
                 << "), smallest |cell| / diameter^3 " << m.smallest_cell << "\n";
        checker.check(at + ": vertices of the curved surface off r = R(z), / R", m.surface_distance / R, 1e-12);
        checker.check(at + ": vertices of the faces 2..5 off their planes, / R", m.plane_distance / R, 1e-11);
        checker.check_true(at + ": boundary ids 1..5 present, no other", m.ids_seen == 0x3e);
        checker.check_true(at + ": every cell has a positive volume", m.smallest_cell > 1e-3);
        if (refinements > 0)
          {
            checker.check(at + ": volume error ratio to the coarser mesh, |ratio / 4 - 1|",
                          std::abs(previous_volume_error / volume_error / 4 - 1), 0.15);
            checker.check(at + ": neck-section error ratio to the coarser mesh, |ratio / 4 - 1|",
                          std::abs(previous_area_error / area_error / 4 - 1), 0.15);
          }
        if (refinements == 3)
          checker.check(at + ": relative volume error", volume_error, 2e-3);
        previous_volume_error = volume_error;
        previous_area_error   = area_error;
      }

    // Input checks of the geometry.
    for (const auto &[what, modify] :
         std::vector<std::pair<std::string, std::function<void(plastix::MeshParameters &)>>>{
           {"Mesh/Outer radius", [](plastix::MeshParameters &p) { p.outer_radius = 0; }},
           {"Mesh/Cylinder length", [](plastix::MeshParameters &p) { p.cylinder_length = 0; }}})
      {
        plastix::MeshParameters p;
        p.geometry = plastix::GeometryType::necking_bar;
        modify(p);
        bool refused = false;
        try
          {
            p.check();
          }
        catch (const plastix::InputError &error)
          {
            refused = std::string(error.what()).find(what) != std::string::npos;
          }
        checker.check_true("the necking bar with a bad " + what + " is refused naming it", refused);
      }
  });
}
