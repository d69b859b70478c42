// The fixed-grid method (Mesh/Geometry = fixed grid) on the quarter plate
// with a central circular hole under uniaxial tension of J. Martinez-Frutos,
// D. Herrero-Perez, "Efficient matrix-free GPU implementation of Fixed Grid
// Finite Element Analysis", Finite Elements in Analysis and Design, 2015,
// plane strain: E = 1 GPa, nu = 0.2, hole radius a = 0.1 in the quarter
// [0, 1]^2, tension 1 MPa on x = 1. Checked:
//  - the volume fractions: exact for cells inside and outside, the sampled
//    area of the quarter plate within the sampling error;
//  - the displacements at three points against a body-fitted mesh of the
//    same plate (written as a gmsh file and read by the application), with
//    the error falling as the grid is refined (32, 64, 128 cells across);
//  - the stress along the symmetry line x = 0 against the body-fitted
//    solution and Kirsch's, and the stress concentration at the hole;
//  - the effect of Delta, of the sub-sampling and of keeping the outside
//    cells (with them: more DoFs, the same solution);
//  - bad fixed-grid input.
// Run with 1 and 2 MPI ranks.

// Test: ranks 1 2
#include <deal.II/base/geometry_info.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_out.h>
#include <deal.II/grid/grid_tools.h>

#include <plastix/core/device_vector.h>
#include <plastix/solvers/linear_solver.h>

#include "discretization.h"
#include "elastic_run.h"
#include "input_checks.h"
#include "mesh_generation.h"
#include "plasticity_test_tools.h"
#include "test_environment.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>

#include <unistd.h>

using namespace dealii;

namespace
{
  constexpr double a = 0.1, E = 1e9, nu = 0.2, sigma = 1e6;

  /** Kirsch: sigma_xx on the line x = 0 at distance r > a from the centre of the hole (infinite plate). */
  double
  kirsch_sigma_xx_on_y_axis(const double r)
  {
    const double q = a * a / (r * r);
    return sigma * (1. + 0.5 * q + 1.5 * q * q);
  }

  /** The .prm text of the plate, with the mesh part given. */
  std::string
  plate_text(const std::string &mesh)
  {
    return "subsection Mesh\n" + mesh +
           "end\n"
           "subsection Materials\n set Young's modulus = 1e9\n set Poisson's ratio = 0.2\nend\n"
           "subsection Boundary conditions\n set Dirichlet = 0: x = 0; 2: y = 0; 4: z = 0; 5: z = 0\n"
           " set Traction = 1: 1e6, 0, 0\nend\n"
           "subsection Linear solver\n set Type = cg\n set Preconditioner = amg\n set Relative tolerance = 1e-10\n"
           "end\n";
  }

  std::string
  fixed_grid_text(const unsigned int n, const unsigned int samples = 4, const double delta = 1e-6,
                  const bool keep_outside = false)
  {
    std::ostringstream s;
    s << std::setprecision(17) << " set Geometry = fixed grid\n set Lower corner = 0, 0, 0\n set Upper corner = 1, 1, "
      << 1. / n << "\n set Subdivisions = " << n << ", " << n << ", 1\n subsection Fixed grid\n"
      << "  set Body = 0.1 - sqrt(x^2 + y^2)\n  set Samples = " << samples << "\n  set Void stiffness = " << delta
      << "\n  set Keep outside cells = " << (keep_outside ? "true" : "false") << "\n end\n";
    return plate_text(s.str());
  }

  /**
   * A body-fitted quarter plate: (s, theta) in [0, 1] x [0, pi/2] mapped to
   * (1 - s) a (cos, sin) + s P(theta), P on the outer edges x = 1 or y = 1
   * (the diagonal on a grid line), graded towards the hole, one layer thick;
   * boundary ids as the application's box (0 x = 0, 1 x = 1, 2 y = 0,
   * 3 y = 1, 4 z = 0, 5 z = top, 6 the hole), written as a gmsh file.
   */
  void
  write_body_fitted_plate(const std::string &file, const unsigned int n_radial, const unsigned int n_angular)
  {
    Triangulation<2> plane;
    GridGenerator::subdivided_hyper_rectangle(plane, {n_radial, n_angular}, Point<2>(0, 0),
                                              Point<2>(1, 0.5 * numbers::PI));
    GridTools::transform(
      [](const Point<2> &p) {
        const double s = std::pow(p[0], 1.6), t = p[1];
        const double cx = std::cos(t), sy = std::sin(t);
        const Point<2> outer = t <= 0.25 * numbers::PI ? Point<2>(1., std::tan(t)) : Point<2>(1. / std::tan(t), 1.);
        return Point<2>((1 - s) * a * cx + s * outer[0], (1 - s) * a * sy + s * outer[1]);
      },
      plane);
    Triangulation<3> slab;
    GridGenerator::extrude_triangulation(plane, 2, 0.01, slab);
    for (const auto &cell : slab.active_cell_iterators())
      for (const auto f : cell->face_indices())
        if (cell->face(f)->at_boundary())
          {
            const Point<3>  c  = cell->face(f)->center();
            types::boundary_id id = 6;
            if (std::abs(c[0]) < 1e-12)
              id = 0;
            else if (std::abs(c[0] - 1) < 1e-12)
              id = 1;
            else if (std::abs(c[1]) < 1e-12)
              id = 2;
            else if (std::abs(c[1] - 1) < 1e-12)
              id = 3;
            else if (std::abs(c[2]) < 1e-12)
              id = 4;
            else if (std::abs(c[2] - 0.01) < 1e-12)
              id = 5;
            cell->face(f)->set_boundary_id(id);
          }
    GridOut           out;
    GridOutFlags::Msh flags(true, true);
    out.set_flags(flags);
    std::ofstream stream(file);
    out.write_msh(slab, stream);
  }

  /** What the checks compare of one solve. */
  struct Solution
  {
    types::global_dof_index n_dofs     = 0;
    unsigned int            iterations = 0;
    /** u_x at (1, 0), u_y at (0, 0.25) and u_x at (0.5, 0.5) (plane z = 0). */
    std::array<double, 3> u{};
    /** sigma_xx (cell average) of the cells that contain (0.0005, y) for the ys of stress_points. */
    std::vector<double> sigma_xx;
    /** The largest cell-average sigma_xx of the cells within 0.03 of the hole top (0, a). */
    double peak_sigma_xx = 0;
    /** Sum of the cells' volume fractions times their volume (fixed grid), else 0. */
    double material_area = 0;
    double min_cut_fraction = 1, max_cut_fraction = 0;
  };

  const std::vector<double> stress_points = {0.15, 0.2, 0.3};

  /**
   * The value of the Q1 displacement @p u at @p p (0 on the ranks whose
   * cells do not hold it; summed over the ranks): component @p c.
   */
  double
  point_value(const plastix::Discretization &d, const LinearAlgebra::distributed::Vector<double> &u, const Point<3> &p,
              const unsigned int c, const MPI_Comm comm)
  {
    const MappingQ<3> mapping(1);
    double            value = 0, found = 0;
    for (const auto &cell : d.dof_handler.active_cell_iterators())
      if (cell->is_locally_owned() && found == 0)
        {
          Point<3> unit;
          try
            {
              unit = mapping.transform_real_to_unit_cell(cell, p);
            }
          catch (...)
            {
              continue;
            }
          if (!GeometryInfo<3>::is_inside_unit_cell(unit, 1e-10))
            continue;
          for (unsigned int v = 0; v < 8; ++v)
            {
              double w = 1;
              for (unsigned int k = 0; k < 3; ++k)
                w *= ((v >> k) & 1) ? unit[k] : 1. - unit[k];
              value += w * u(cell->vertex_dof_index(v, c));
            }
          found = 1;
        }
    return Utilities::MPI::sum(value, comm) / Utilities::MPI::sum(found, comm);
  }

  Solution
  solve(const std::string &text, const MPI_Comm comm)
  {
    plastix_test::ElasticRun run(text, comm);
    const plastix::Discretization &d = run.d;
    const plastix::DeviceVector   &u = run.u;
    Solution                       result;
    result.iterations = run.iterations;
    result.n_dofs     = d.dof_handler.n_dofs();
    const auto host   = d.to_host(u);
    result.u = {{point_value(d, host, Point<3>(1, 0, 0), 0, comm), point_value(d, host, Point<3>(0, 0.25, 0), 1, comm),
                 point_value(d, host, Point<3>(0.5, 0.5, 0), 0, comm)}};

    // Cell-average stresses (the material's, not scaled by the factors).
    const std::vector<double> strain = d.op.cell_average_strain(u);
    const double              lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    std::vector<double>       at_points(stress_points.size(), 0.);
    double                    peak = 0, area = 0, min_cut = 1, max_cut = 0;
    unsigned int              k    = 0;
    const MappingQ<3>         mapping(1);
    for (const auto &cell : d.dof_handler.active_cell_iterators())
      {
        if (!cell->is_locally_owned())
          continue;
        const double *e        = &strain[6 * k++];
        const double  sigma_xx = lambda * (e[0] + e[1] + e[2]) + 2 * mu * e[0];
        for (std::size_t i = 0; i < stress_points.size(); ++i)
          {
            const Point<3> p(0.0005, stress_points[i], 0.);
            try
              {
                if (GeometryInfo<3>::is_inside_unit_cell(mapping.transform_real_to_unit_cell(cell, p), 1e-10))
                  at_points[i] = sigma_xx;
              }
            catch (...)
              {}
          }
        if (cell->center().distance(Point<3>(0, a, cell->center()[2])) < 0.03)
          peak = std::max(peak, sigma_xx);
        if (d.fixed_grid)
          {
            const double xi = (*d.fixed_grid)(cell);
            area += xi * cell->measure() / (cell->vertex(7)[2] - cell->vertex(0)[2]);
            if (xi < 1)
              {
                min_cut = std::min(min_cut, xi);
                max_cut = std::max(max_cut, xi);
              }
          }
      }
    for (auto &s : at_points)
      s = Utilities::MPI::sum(s, comm); // each point lies in one cell of one rank
    result.sigma_xx         = at_points;
    result.peak_sigma_xx    = Utilities::MPI::max(peak, comm);
    result.material_area    = Utilities::MPI::sum(area, comm);
    result.min_cut_fraction = Utilities::MPI::min(min_cut, comm);
    result.max_cut_fraction = Utilities::MPI::max(max_cut, comm);
    return result;
  }

  double
  max_relative_u_difference(const Solution &s, const Solution &reference)
  {
    double worst = 0;
    for (unsigned int i = 0; i < 3; ++i)
      worst = std::max(worst, std::abs(s.u[i] - reference.u[i]) / std::abs(reference.u[i]));
    return worst;
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    // The body-fitted reference of the same plate.
    const std::string file = (std::filesystem::temp_directory_path() /
                              ("plastix-fixed-grid-" + std::to_string(Utilities::MPI::broadcast(env.comm, int(getpid()), 0)) +
                               ".msh"))
                               .string();
    if (Utilities::MPI::this_mpi_process(env.comm) == 0)
      write_body_fitted_plate(file, 64, 96);
    MPI_Barrier(env.comm);
    const Solution fitted = solve(plate_text(" set Geometry = file\n set File = " + file + "\n"), env.comm);
    MPI_Barrier(env.comm);
    if (Utilities::MPI::this_mpi_process(env.comm) == 0)
      std::filesystem::remove(file);
    env.pout << std::setprecision(6) << "body-fitted: " << fitted.n_dofs << " DoFs, u = " << fitted.u[0] << ", "
             << fitted.u[1] << ", " << fitted.u[2] << "; sigma_xx on x = 0 at y = 0.15, 0.2, 0.3: "
             << fitted.sigma_xx[0] / sigma << ", " << fitted.sigma_xx[1] / sigma << ", " << fitted.sigma_xx[2] / sigma
             << " (Kirsch " << kirsch_sigma_xx_on_y_axis(0.15) / sigma << ", " << kirsch_sigma_xx_on_y_axis(0.2) / sigma
             << ", " << kirsch_sigma_xx_on_y_axis(0.3) / sigma << "); peak near the hole top "
             << fitted.peak_sigma_xx / sigma << "\n";
    for (std::size_t i = 0; i < stress_points.size(); ++i)
      checker.check("body-fitted: sigma_xx at (0, " + std::to_string(stress_points[i]) + ") vs Kirsch, relative",
                    std::abs(fitted.sigma_xx[i] / kirsch_sigma_xx_on_y_axis(stress_points[i]) - 1), 0.03);

    // The fixed grid under refinement.
    std::vector<double> errors;
    Solution            finest;
    for (const unsigned int n : {32u, 64u, 128u})
      {
        const Solution s     = solve(fixed_grid_text(n), env.comm);
        const double   error = max_relative_u_difference(s, fitted);
        errors.push_back(error);
        env.pout << "fixed grid " << n << "^2: " << s.n_dofs << " DoFs, " << s.iterations
                 << " CG iterations, u = " << s.u[0] << ", " << s.u[1] << ", " << s.u[2]
                 << ", max relative difference to the body-fitted u " << error << "; sigma_xx at y = 0.15, 0.2, 0.3: "
                 << s.sigma_xx[0] / sigma << ", " << s.sigma_xx[1] / sigma << ", " << s.sigma_xx[2] / sigma
                 << "; peak near the hole top " << s.peak_sigma_xx / sigma << "; material area " << s.material_area
                 << " (exact " << 1 - numbers::PI * a * a / 4 << "), cut fractions " << s.min_cut_fraction << " .. "
                 << s.max_cut_fraction << "\n";
        checker.check("fixed grid " + std::to_string(n) + "^2: material area vs exact, relative",
                      std::abs(s.material_area / (1 - numbers::PI * a * a / 4) - 1), 2e-4);
        checker.check_true("fixed grid " + std::to_string(n) + "^2: cut cells with fractions in (0, 1)",
                           s.min_cut_fraction > 0 && s.max_cut_fraction < 1);
        finest = s;
      }
    checker.check("fixed grid 128^2: displacements vs body-fitted, max relative", errors.back(), 8e-3);
    checker.check_true("fixed grid: the displacement error falls with each refinement",
                       errors[1] < errors[0] && errors[2] < errors[1]);
    for (std::size_t i = 0; i < stress_points.size(); ++i)
      checker.check("fixed grid 128^2: sigma_xx at (0, " + std::to_string(stress_points[i]) +
                      ") vs body-fitted, relative",
                    std::abs(finest.sigma_xx[i] / fitted.sigma_xx[i] - 1), 0.03);
    checker.check("fixed grid 128^2: stress concentration near the hole top vs Kirsch's 3, relative",
                  std::abs(finest.peak_sigma_xx / (3 * sigma) - 1), 0.2);

    // Delta, sub-sampling, the outside cells (64^2).
    const Solution base = solve(fixed_grid_text(64), env.comm);
    const Solution delta = solve(fixed_grid_text(64, 4, 1e-4), env.comm);
    const Solution coarse_sampling = solve(fixed_grid_text(64, 2), env.comm);
    const Solution fine_sampling   = solve(fixed_grid_text(64, 8), env.comm);
    const Solution outside         = solve(fixed_grid_text(64, 4, 1e-6, true), env.comm);
    env.pout << "64^2: Delta 1e-4 vs 1e-6 " << max_relative_u_difference(delta, base) << "; samples 2, 8 vs 4 "
             << max_relative_u_difference(coarse_sampling, base) << ", " << max_relative_u_difference(fine_sampling, base)
             << "; with the outside cells " << outside.n_dofs << " DoFs (without " << base.n_dofs << "), "
             << outside.iterations << " CG iterations (without " << base.iterations << "), difference "
             << max_relative_u_difference(outside, base) << "\n";
    checker.check("Delta 1e-4 instead of 1e-6 changes u by less than 1e-3", max_relative_u_difference(delta, base), 1e-3);
    checker.check("8^3 instead of 4^3 samples changes u by less than 2e-3", max_relative_u_difference(fine_sampling, base),
                  2e-3);
    checker.check("with the outside cells (factor Delta) u changes by less than 1e-5",
                  max_relative_u_difference(outside, base), 1e-5);
    checker.check_true("with the outside cells the system has more DoFs", outside.n_dofs > base.n_dofs);

    // Bad input.
    for (const auto &[body, expected] : std::vector<std::pair<std::string, std::string>>{
           {"x +* 2", "is not an expression of x, y, z"}, {"1 + x^2", "no cell of the grid"}, {"", "is empty"}})
      {
        std::string text = fixed_grid_text(8);
        text.replace(text.find("0.1 - sqrt(x^2 + y^2)"), 21, body);
        std::string message;
        try
          {
            solve(text, env.comm);
          }
        catch (const plastix::InputError &error)
          {
            message = error.what();
          }
        checker.check_true("Body '" + body + "' refused: " + message,
                           message.find("Mesh/Fixed grid/Body") != std::string::npos &&
                             message.find(expected) != std::string::npos);
      }
  });
}
