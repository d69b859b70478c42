// Elastoplastic runs with a non-zero prescribed displacement ramp: the
// prescribed values must hold exactly in every load step, whatever the
// tolerance of the inexact linear solves (the default 'Maximum forcing term'
// 0.01 is kept), and the reaction on the loaded face must equal that of an
// independent host reference with direct solves (host_j2_reference.h).
//
// Two bars pulled at x = L by a prescribed end displacement in four steps,
// clamped at x = 0: a uniform mesh and a distorted one; every strategy of
// the application is not needed here (plasticity_strategies covers them),
// but the three strategies are run; the uniform bar with B-bar and with full
// integration. Checked per load step:
//  - the x displacement of every vertex of the loaded face equals the
//    prescribed value lambda * u_x to 1e-13 (relative);
//  - the reaction R1_x of the driver (CSV) equals the reference's
//    (sum of f_int over the face's x DoFs) to 1e-10 (relative);
//  - the displacement at every vertex equals the reference's to 1e-9.
// With 1 and 2 ranks (mpirun variants); the results must agree.

// Test: ranks 1 2
#include <deal.II/dofs/dof_tools.h>

#include <plastix/core/runtime.h>

#include "plasticity_comparison.h"
#include "test_environment.h"

#include <iostream>
#include <sstream>

using namespace dealii;

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {

    const double prescribed = 0.02; // m, at load factor 1 (strain 0.5 %, about 2.5x the yield strain)
    struct Case
    {
      std::string name;
      std::string overrides;
    };
    const std::vector<Case> cases = {
      {"uniform bar, ebe atomic, B-bar", "subsection Operator\n set Element formulation = bbar\nend\n"},
      {"uniform bar, ebe atomic, full integration", "subsection Operator\n set Element formulation = full\nend\n"},
      {"distorted bar, ebe atomic", "subsection Mesh\n set Distortion = 0.25\nend\n"},
      {"distorted bar, dbd", "subsection Mesh\n set Distortion = 0.25\nend\nsubsection Operator\n set Strategy = dbd\nend\n"},
      {"distorted bar, ebe colored, geometry on the fly",
       "subsection Mesh\n set Distortion = 0.25\nend\nsubsection Operator\n set Strategy = ebe colored\n"
       " set Cell kernel = geometry on the fly\nend\n"},
    };
    for (const auto &c : cases)
      {
        env.out << "\n=== " << c.name << " (" << env.n_ranks << " rank(s))" << std::endl;
        std::string dir = c.name;
        for (auto &ch : dir)
          if (!std::isalnum(static_cast<unsigned char>(ch)))
            ch = '_';
        std::ostringstream text;
        text.precision(17);
        text << "subsection Problem\n set Type = elastoplastic\nend\n"
             << "subsection Mesh\n set Geometry = box\n set Lower corner = 0, 0, 0\n set Upper corner = 4, 1, 1\n"
             << " set Subdivisions = 8, 2, 2\nend\n"
             << "subsection Materials\n set Young's modulus = 200e9\n set Poisson's ratio = 0.3\n"
             << " set Yield stress = 400e6\n set Isotropic hardening = 10e9\nend\n"
             << "subsection Boundary conditions\n set Dirichlet = 0: xyz = 0, 0, 0; 1: x = " << prescribed
             << "\n set Traction =\nend\n"
             << "subsection Load stepping\n set Load factors = 0.25, 0.5, 0.75, 1\nend\n"
             // Tight Newton tolerances; the inexact linear solves keep their
             // default largest forcing term (0.01).
             << "subsection Newton\n set Residual tolerance = 1e-13\n set Displacement tolerance = 1e-13\n"
             << " set Minimum forcing term = 1e-14\n set Maximum iterations = 50\nend\n"
             << "subsection Linear solver\n set Maximum iterations = 100000\nend\n"
             << "subsection Monitor\n set Reactions = 1\n set Write plot = false\nend\n"
             << "subsection Output\n set Directory = output_prescribed_displacement_np" << env.n_ranks << "/" << dir
             << "\n set Write VTU = false\nend\n"
             << c.overrides;
        const plastix::Parameters base = plastix_test::parameters_from_text(text.str());
        plastix::Discretization   d(base, env.comm);
        d.make_mesh();
        d.setup();
        d.assemble_external_force();
        const std::vector<Point<3>>     vertices   = plastix_test::gather_vertices(*d.triangulation, env.comm);
        const plastix::Parameters       parameters = plastix_test::parameters_with_vertex_monitors(text.str(), vertices);
        const plastix_test::VertexIndex vertex_index(vertices);
        const auto                     &load_factors = parameters.load_stepping.load_factors;

        const plastix_test::ReferenceSolution reference =
          plastix_test::solve_reference(parameters, d, vertex_index, checker, env.out);
        const plastix_test::DriverSolution driver =
          plastix_test::run_driver(parameters, load_factors, vertex_index, env.comm, checker);
        if (!driver.ok)
          continue;

        // The reference reaction on face 1 (x component) per step.
        IndexSet face_x = DoFTools::extract_boundary_dofs(d.dof_handler, ComponentMask({true, false, false}), {1});
        face_x          = face_x & d.dof_handler.locally_owned_dofs();
        const plastix_test::Csv csv =
          plastix_test::read_csv(parameters.output.directory + "/" + parameters.output.base_name + ".csv");
        const int reaction_column = csv.column("R1_x");
        for (unsigned int k = 0; k < load_factors.size(); ++k)
          {
            const std::string step = "  step " + std::to_string(k + 1) + ": ";
            double            reference_reaction = 0;
            for (const auto i : face_x)
              reference_reaction += reference.f_int[k](i);
            reference_reaction = Utilities::MPI::sum(reference_reaction, env.comm);
            const double driver_reaction = csv.rows.at(k).at(reaction_column);
            checker.check(step + "reaction R1_x " + std::to_string(driver_reaction) + " vs reference " +
                            std::to_string(reference_reaction) + ", relative",
                          std::abs(driver_reaction - reference_reaction) / std::abs(reference_reaction), 1e-10);

            // Every vertex of the loaded face (x = 4) at the prescribed value.
            const double target = load_factors[k] * prescribed;
            double       worst  = 0;
            unsigned int n_face = 0;
            for (unsigned int v = 0; v < vertices.size(); ++v)
              if (std::abs(vertices[v][0] - 4.) < 1e-12)
                {
                  worst = std::max(worst, std::abs(driver.vertex_values[k][3 * v] - target) / target);
                  ++n_face;
                }
            checker.check(step + "u_x of the " + std::to_string(n_face) + " loaded-face vertices vs " +
                            std::to_string(target) + ", largest relative difference",
                          worst, 1e-13);
            checker.check(step + "displacement at all vertices vs reference, relative l2",
                          plastix_test::relative_difference(driver.vertex_values[k], reference.vertex_values[k]), 1e-9);
            if (k == load_factors.size() - 1)
              checker.check_true(step + "plastic points " + std::to_string(driver.plastic_points[k]) + " > 0",
                                 driver.plastic_points[k] > 0);
          }
      }
  });
}
