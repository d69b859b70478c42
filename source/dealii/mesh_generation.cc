// Generated geometries and mesh files.
#include <deal.II/base/exceptions.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_in.h>
#include <deal.II/grid/grid_tools.h>

#include <plastix/dealii/mesh_generation.h>

#include <fstream>
#include <sstream>

namespace plastix
{
  void
  set_bounding_box_boundary_ids(dealii::Triangulation<3> &triangulation)
  {
    const auto   box  = dealii::GridTools::compute_bounding_box(triangulation);
    const auto   lo   = box.get_boundary_points().first;
    const auto   hi   = box.get_boundary_points().second;
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
          throw InputError("Mesh/File", "cannot read '" + p.file + "': " + message.str());
        }
      catch (const std::exception &error)
        {
          throw InputError("Mesh/File", "cannot read '" + p.file + "': " + error.what());
        }
      if (triangulation.n_cells() == 0)
        throw InputError("Mesh/File", "'" + p.file + "' contains no hexahedra");
      if (p.scale != 1.)
        dealii::GridTools::scale(p.scale, triangulation);
    }
  } // namespace

  void
  create_mesh(const MeshParameters &p, dealii::Triangulation<3> &triangulation)
  {
    const std::vector<unsigned int> repetitions(p.subdivisions.begin(), p.subdivisions.end());
    if (p.geometry == "box" || p.geometry == "cantilever")
      {
        dealii::GridGenerator::subdivided_hyper_rectangle(triangulation, repetitions,
                                                          p.lower_corner, p.upper_corner, false);
        set_bounding_box_boundary_ids(triangulation);
      }
    else if (p.geometry == "L-shaped")
      {
        dealii::GridGenerator::subdivided_hyper_L(
          triangulation, repetitions, p.lower_corner, p.upper_corner,
          {static_cast<int>(repetitions[0] / 2), static_cast<int>(repetitions[1] / 2), 0});
        set_bounding_box_boundary_ids(triangulation);
      }
    else if (p.geometry == "file")
      read_mesh_file(p, triangulation);
    else
      throw InputError("Mesh/Geometry", "unknown geometry '" + p.geometry + "'");

    if (p.geometry != "file")
      for (const auto &cell : triangulation.cell_iterators())
        cell->set_material_id(0);
    triangulation.refine_global(p.global_refinements);
    if (p.distortion > 0)
      dealii::GridTools::distort_random(p.distortion, triangulation, true, 42);
  }
} // namespace plastix
