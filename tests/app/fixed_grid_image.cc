// Voxel images as the body of a fixed grid, and material regions:
//  - the quarter plate with a hole of tests/app/fixed_grid.cc given as
//    images (NRRD with attached raw uint8 data, a detached NRRD header with
//    big-endian int16 data, NRRD ascii, a headerless raw float32 volume) of
//    4 x 4 x 4 voxels per grid cell, whose voxel centres are the cells'
//    sample points: the volume fractions, and so the displacements, must
//    equal those of the same body given as an expression (1e-12);
//  - material regions: a bar of two materials in series (nu = 0) under
//    uniaxial tension, its end displacement against the closed form
//    sigma (L1 / E1 + L2 / E2) (1e-9), the cells' ids, and the same
//    regions written with v, the body's value;
//  - bad images and regions: one InputError naming the entry and the cause.
// Run with 1 and 2 MPI ranks.

// Test: ranks 1 2
#include <deal.II/base/utilities.h>

#include <plastix/core/device_vector.h>
#include <plastix/solvers/linear_solver.h>

#include "discretization.h"
#include "elastic_run.h"
#include "mesh_generation.h"
#include "plasticity_test_tools.h"
#include "test_environment.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>

#include <unistd.h>

using namespace dealii;

namespace
{
  /** The plate of tests/app/fixed_grid.cc on a 32 x 32 x 1 grid, with the body's lines given. */
  std::string
  plate_text(const std::string &body_lines)
  {
    std::ostringstream s;
    s << std::setprecision(17)
      << "subsection Mesh\n set Geometry = fixed grid\n set Lower corner = 0, 0, 0\n set Upper corner = 1, 1, "
      << 1. / 32 << "\n set Subdivisions = 32, 32, 1\n subsection Fixed grid\n" << body_lines
      << "  set Samples = 4\n end\nend\n"
         "subsection Materials\n set Young's modulus = 1e9\n set Poisson's ratio = 0.2\nend\n"
         "subsection Boundary conditions\n set Dirichlet = 0: x = 0; 2: y = 0; 4: z = 0; 5: z = 0\n"
         " set Traction = 1: 1e6, 0, 0\nend\n"
         "subsection Linear solver\n set Type = cg\n set Preconditioner = jacobi\n set Relative tolerance = 1e-12\n"
         " set Maximum iterations = 100000\nend\n";
    return s.str();
  }

  struct Solution
  {
    std::vector<double>      u; // owned entries, rank by rank
    types::global_dof_index  n_dofs = 0;
    std::map<types::material_id, unsigned int> cells_of_id; // over all ranks
    double                   max_ux = 0;
  };

  Solution
  solve(const std::string &text, const MPI_Comm comm)
  {
    const plastix_test::ElasticRun run(text, comm);
    const plastix::Discretization &d = run.d;
    Solution                       result;
    const auto                     host = d.to_host(run.u);
    for (const auto i : d.dof_handler.locally_owned_dofs())
      {
        result.u.push_back(host(i));
        if (i % 3 == 0)
          result.max_ux = std::max(result.max_ux, host(i));
      }
    result.max_ux = Utilities::MPI::max(result.max_ux, comm);
    result.n_dofs = d.dof_handler.n_dofs();
    // Ids 0 to 3 over all ranks (the same sums on every rank).
    std::vector<unsigned int> counts(4, 0);
    for (const auto &cell : d.triangulation->active_cell_iterators())
      if (cell->is_locally_owned())
        ++counts[std::min<unsigned int>(cell->material_id(), 3)];
    for (unsigned int id = 0; id < 4; ++id)
      if (const unsigned int n = Utilities::MPI::sum(counts[id], comm); n > 0)
        result.cells_of_id[id] = n;
    return result;
  }

  double
  relative_difference(const Solution &a, const Solution &b, const MPI_Comm comm)
  {
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < std::min(a.u.size(), b.u.size()); ++i)
      {
        diff += (a.u[i] - b.u[i]) * (a.u[i] - b.u[i]);
        norm += b.u[i] * b.u[i];
      }
    if (a.u.size() != b.u.size())
      diff = norm = 1; // different meshes: a failure
    return std::sqrt(Utilities::MPI::sum(diff, comm) / Utilities::MPI::sum(norm, comm));
  }

  /** The plate's indicator at the centre of voxel (i, j, k) of 128 x 128 x 4 over the box. */
  bool
  plate_material(const unsigned int i, const unsigned int j)
  {
    const double x = (i + 0.5) / 128, y = (j + 0.5) / 128;
    return 0.1 - std::sqrt(x * x + y * y) < 0;
  }

  /** Bytes of @p value in big-endian order. */
  template <typename T>
  void
  put_big_endian(std::ostream &out, const T value)
  {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    std::reverse(bytes, bytes + sizeof(T));
    out.write(bytes, sizeof(T));
  }

  /** Write @p content to @p file (binary). */
  void
  write(const std::string &file, const std::string &content)
  {
    std::ofstream out(file, std::ios::binary);
    out << content;
  }

  /** The voxels of the plate, x fastest, as produced by @p voxel(material). */
  std::string
  plate_voxels(const std::function<void(std::ostream &, bool)> &voxel)
  {
    std::ostringstream data;
    for (unsigned int k = 0; k < 4; ++k)
      for (unsigned int j = 0; j < 128; ++j)
        for (unsigned int i = 0; i < 128; ++i)
          voxel(data, plate_material(i, j));
    return data.str();
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    namespace fs = std::filesystem;
    const fs::path dir =
      fs::temp_directory_path() /
      ("plastix-fixed-grid-image-" + std::to_string(Utilities::MPI::broadcast(env.comm, int(getpid()), 0)));
    const bool writer = Utilities::MPI::this_mpi_process(env.comm) == 0;
    if (writer)
      {
        fs::create_directories(dir);
        const std::string header = "NRRD0004\n# plastix test\ntype: uint8\ndimension: 3\nsizes: 128 128 4\n";
        const std::string uint8  = plate_voxels([](std::ostream &o, const bool m) { o.put(m ? 1 : 0); });
        write((dir / "plate.nrrd").string(), header + "encoding: raw\n\n" + uint8);
        write((dir / "plate.nhdr").string(), "NRRD0005\ntype: short\ndimension: 3\nsizes: 128 128 4\nendian: big\n"
                                             "encoding: raw\ndata file: plate_int16.raw\n\n");
        write((dir / "plate_int16.raw").string(), plate_voxels([](std::ostream &o, const bool m) {
                put_big_endian<std::int16_t>(o, m ? 1000 : -1000);
              }));
        write((dir / "plate.raw").string(), plate_voxels([](std::ostream &o, const bool m) {
                const float v = m ? 1.f : 0.f;
                o.write(reinterpret_cast<const char *>(&v), sizeof v);
              }));
        write((dir / "plate_ascii.nrrd").string(),
              header + "encoding: ascii\n\n" + plate_voxels([](std::ostream &o, const bool m) { o << (m ? "1 " : "0\n"); }));
        // Broken ones.
        write((dir / "truncated.nrrd").string(), header + "encoding: raw\n\n" + uint8.substr(0, uint8.size() - 100));
        write((dir / "gzip.nrrd").string(), header + "encoding: gzip\n\n" + uint8);
        write((dir / "flat.nrrd").string(), "NRRD0004\ntype: uint8\ndimension: 2\nsizes: 128 128\nencoding: raw\n\n" +
                                              uint8.substr(0, 128 * 128));
        write((dir / "nan.raw").string(), plate_voxels([](std::ostream &o, const bool m) {
                const float v = m ? std::numeric_limits<float>::quiet_NaN() : 0.f;
                o.write(reinterpret_cast<const char *>(&v), sizeof v);
              }));
      }
    MPI_Barrier(env.comm);

    // The images against the expression.
    const Solution expression = solve(plate_text("  set Body = 0.1 - sqrt(x^2 + y^2)\n"), env.comm);
    env.pout << "expression body: " << expression.n_dofs << " DoFs\n";
    const std::vector<std::pair<std::string, std::string>> images = {
      {"NRRD, attached raw uint8", "  set Image file = " + (dir / "plate.nrrd").string() + "\n"},
      {"NRRD, detached big-endian int16, threshold 0",
       "  set Image file = " + (dir / "plate.nhdr").string() + "\n  set Threshold = 0\n"},
      {"raw float32 with Image size and type",
       "  set Image file = " + (dir / "plate.raw").string() +
         "\n  set Image size = 128, 128, 4\n  set Image type = float32\n"},
      {"NRRD, ascii", "  set Image file = " + (dir / "plate_ascii.nrrd").string() + "\n"}};
    for (const auto &[name, lines] : images)
      {
        const Solution image = solve(plate_text(lines), env.comm);
        checker.check_true(name + ": the DoFs of the expression body (" + std::to_string(image.n_dofs) + ")",
                           image.n_dofs == expression.n_dofs);
        checker.check(name + ": u vs the expression body, relative l2", relative_difference(image, expression, env.comm),
                      1e-12);
      }

    // Material regions: a bar of two materials in series, nu = 0, uniaxial tension 1e6.
    const auto bar_text = [](const std::string &body, const std::string &regions) {
      return "subsection Mesh\n set Geometry = fixed grid\n set Lower corner = 0, 0, 0\n set Upper corner = 1, 0.25, "
             "0.25\n set Subdivisions = 8, 2, 2\n subsection Fixed grid\n  set Body = " +
             body + "\n  set Material regions = " + regions +
             "\n end\nend\n"
             "subsection Materials\n set Young's modulus = 1e9\n set Poisson's ratio = 0\n"
             " set Per material id = 1: E=3e9\nend\n"
             "subsection Boundary conditions\n set Dirichlet = 0: x = 0; 2: y = 0; 4: z = 0\n"
             " set Traction = 1: 1e6, 0, 0\nend\n"
             "subsection Linear solver\n set Type = cg\n set Preconditioner = jacobi\n set Relative tolerance = 1e-13\n"
             "end\n";
    };
    const double   exact = 1e6 * (0.5 / 3e9 + 0.5 / 1e9);
    const Solution bar   = solve(bar_text("-1", "1: x - 0.5"), env.comm);
    env.pout << "two-material bar: end displacement " << std::setprecision(12) << bar.max_ux << " (closed form "
             << exact << ")\n";
    checker.check("two-material bar: end displacement vs sigma (L1/E1 + L2/E2), relative",
                  std::abs(bar.max_ux / exact - 1), 1e-9);
    checker.check_true("two-material bar: 16 cells of id 1 and 16 of id 0",
                       bar.cells_of_id.size() == 2 && bar.cells_of_id.at(0) == 16 && bar.cells_of_id.at(1) == 16);
    const Solution with_v = solve(bar_text("x - 2", "1: v + 1.5"), env.comm);
    checker.check("the same regions written with v (the Body's value x - 2), relative l2",
                  relative_difference(with_v, bar, env.comm), 1e-12);
    const Solution first_match = solve(bar_text("-1", "1: x - 0.5; 0: x - 2"), env.comm);
    checker.check("the first region that matches decides, relative l2", relative_difference(first_match, bar, env.comm),
                  1e-12);

    // Bad input: one InputError naming the entry and the cause.
    const std::vector<std::tuple<std::string, std::string, std::string>> bad = {
      {"  set Image file = " + (dir / "missing.nrrd").string() + "\n", "Mesh/Fixed grid/Image file", "cannot open"},
      {"  set Image file = " + (dir / "truncated.nrrd").string() + "\n", "Mesh/Fixed grid/Image file",
       "(a truncated file)"},
      {"  set Image file = " + (dir / "gzip.nrrd").string() + "\n", "Mesh/Fixed grid/Image file",
       "encoding 'gzip' is not supported"},
      {"  set Image file = " + (dir / "flat.nrrd").string() + "\n", "Mesh/Fixed grid/Image file",
       "a 3-D image is needed"},
      {"  set Image file = " + (dir / "plate.raw").string() + "\n", "Mesh/Fixed grid/Image file",
       "needs 'Image size'"},
      {"  set Image file = " + (dir / "plate.raw").string() + "\n  set Image size = 128, 128, 8\n  set Image type = float32\n",
       "Mesh/Fixed grid/Image file", "bytes need"},
      {"  set Image file = " + (dir / "nan.raw").string() + "\n  set Image size = 128, 128, 4\n  set Image type = float32\n",
       "Mesh/Fixed grid/Image file", "is not finite"},
      {"  set Body = -1\n  set Image file = " + (dir / "plate.nrrd").string() + "\n", "Mesh/Fixed grid/Image file",
       "and Body are both given"},
      {"  set Image file = " + (dir / "plate.nrrd").string() + "\n  set Threshold = 2\n", "Mesh/Fixed grid/Threshold",
       "no cell of the grid holds a sample point inside the body"},
      {"  set Body = -1\n  set Material regions = x - 0.5\n", "Mesh/Fixed grid/Material regions", "lacks 'id:'"},
      {"  set Body = -1\n  set Material regions = one: x - 0.5\n", "Mesh/Fixed grid/Material regions",
       "is not a material id"},
      {"  set Body = -1\n  set Material regions = 1: x +* 2\n", "Mesh/Fixed grid/Material regions",
       "is not an expression of x, y, z, v"}};
    for (const auto &[lines, entry, cause] : bad)
      {
        std::string message;
        try
          {
            solve(plate_text(lines), env.comm);
          }
        catch (const plastix::InputError &error)
          {
            message = error.what();
          }
        checker.check_true("refused (" + entry + ", " + cause + "): " + message,
                           message.find(entry) == 0 && message.find(cause) != std::string::npos &&
                             message.find('\n') == std::string::npos);
      }
    MPI_Barrier(env.comm);
    if (writer)
      fs::remove_all(dir);
  });
}
