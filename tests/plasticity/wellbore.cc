// The wellbore benchmark of N. R. Vilas Boas, "A CUDA accelerated numerical
// integration of an elastoplastic problem with the Finite Element Method",
// MSc thesis, UNICAMP, 2020 (issue 11, doc/validation.md section 11): a
// cylindrical cavity in plane strain on the application's wellbore mesh
// (quarter annulus r = 0.1 .. 4, graded radially, one cell thick, u_z = 0 on
// both faces, symmetry planes x = 0 and y = 0), against closed forms. Units
// m and MPa; E = 2000, nu = 0.2, c = 5, phi = 20 degrees (the thesis's rock).
//
// 1. Elastic (Lame): inner pressure 10, outer pressure 2 on the finite
//    annulus; L2 and H1-seminorm errors of u on three uniformly refined
//    meshes: observed orders >= 1.8 (L2) and >= 0.9 (H1), Q1's 2 and 1.
// 2. Expanding cavity, the thesis's setting (loads as changes from the
//    in-situ state, stresses starting at zero): wall pressure 10, associative
//    Mohr-Coulomb, perfectly plastic. Closed form (statically determined,
//    sigma_z intermediate): plastic radius
//      R = a [((N-1) p + sigma_c)(1+N) / (2 N sigma_c)]^(N/(N-1)) = 0.1642 m,
//    N = (1+sin phi)/(1-sin phi), sigma_c = 2 c cos(phi)/(1-sin phi); the
//    stress profiles in both zones, the displacement of the elastic zone
//    s R^2 / (2 G r), s = sigma_c/(1+N). The outer boundary carries the
//    closed-form radial stress, so the finite annulus is exact.
// 3. Contracting cavity with the in-situ stress in the Gauss-point state
//    (Initial stress: -50 MPa hydrostatic; wall pressure 15, i.e. a change of
//    +35): Salencon's solution, R = a [2/(N+1) (p0 + c cot phi)/(p_i + c cot
//    phi)]^(1/(N-1)) = 0.1439 m, the profiles, and the displacement change
//    of the elastic zone -(p0 - sigma_R) R^2 / (2 G r).
//    Checked in both: the plastic radius from the plastic area (cell
//    averages of the plastic fraction) within 3 % (half the radial size of
//    the cells at R), every cell inside 0.9 R
//    fully plastic and every cell outside 1.1 R elastic, the radial,
//    hoop and axial stresses of the cell averages against the closed form at
//    the cell centres (max over r < 3R, relative to the wall pressure
//    change), the elastic-zone displacement at the vertices with r >= 1.5 R.
// 4. Newton/Tangent = initial stiffness (elastic operator, Thomas
//    acceleration) reaches the same solution as the consistent tangent (case
//    3), with more iterations; with a dilation angle of 5 degrees
//    (non-symmetric tangent) initial stiffness with CG and the consistent
//    tangent with GMRES agree too.
// Case 2 also runs on the same annulus written to a gmsh file and read back
// (Geometry = file, boundary ids as physical tags), with the same checks.
// On 1 and 2 ranks.

// Test: ranks 1 2; labels long
#include <deal.II/base/function.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_out.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/newton.h>

#include "loads.h"
#include "mesh_generation.h"
#include "parameters.h"

#include "test_environment.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>

#include <unistd.h>

using namespace dealii;

namespace
{
  constexpr double a = 0.1, b = 4., E = 2000., nu = 0.2, c = 5., phi_degrees = 20.;
  const double     G = E / (2 * (1 + nu));

  /** A cylindrical cavity in an associative Mohr-Coulomb medium (compression positive inside). */
  struct Cavity
  {
    /** In-situ pressure p0 (0: the thesis's setting) and final wall pressure p (compression positive). */
    double p0, p;
    double N, sigma_c, R, boundary_stress;
    bool   expanding;

    Cavity(const double p0, const double p)
      : p0(p0)
      , p(p)
    {
      const double s = std::sin(phi_degrees * numbers::PI / 180.);
      N              = (1 + s) / (1 - s);
      sigma_c        = 2 * c * std::cos(phi_degrees * numbers::PI / 180.) / (1 - s);
      expanding      = p > p0;
      if (expanding)
        {
          // Radial stress major: sigma_r = N sigma_theta + sigma_c (p0 = 0).
          boundary_stress = sigma_c / (1 + N);
          R = a * std::pow(((N - 1) * p + sigma_c) * (1 + N) / (2 * N * sigma_c), N / (N - 1));
        }
      else
        {
          // Hoop stress major: sigma_theta = N sigma_r + sigma_c.
          boundary_stress = (2 * p0 - sigma_c) / (1 + N);
          R = a * std::pow(((N - 1) * boundary_stress + sigma_c) / ((N - 1) * p + sigma_c), 1 / (N - 1));
        }
    }

    /** Radial and hoop stress (tension positive) and the radial displacement (elastic zone only) at r. */
    void
    at(const double r, double &sigma_r, double &sigma_theta, double &u) const
    {
      double sr, st; // compression positive
      if (r <= R)
        {
          if (expanding)
            {
              const double w = ((N - 1) * p + sigma_c) * std::pow(a / r, (N - 1) / N);
              sr             = (w - sigma_c) / (N - 1);
              st             = (sr - sigma_c) / N;
            }
          else
            {
              const double w = ((N - 1) * p + sigma_c) * std::pow(r / a, N - 1);
              sr             = (w - sigma_c) / (N - 1);
              st             = N * sr + sigma_c;
            }
          u = std::nan("");
        }
      else
        {
          const double k = (p0 - boundary_stress) * (R / r) * (R / r);
          sr             = p0 - k;
          st             = p0 + k;
          u              = -(p0 - boundary_stress) * R * R / (2 * G * r);
        }
      sigma_r     = -sr;
      sigma_theta = -st;
    }

    /** Axial stress: the in-situ value plus nu times the change of the in-plane sum. */
    double
    axial(const double sigma_r, const double sigma_theta) const
    {
      return -p0 + nu * (sigma_r + sigma_theta + 2 * p0);
    }
  };

  /** The Lame solution of the annulus a < r < b under inner pressure pi and outer pressure po (plane strain). */
  class Lame : public Function<3>
  {
  public:
    Lame(const double pi, const double po)
      : Function<3>(3)
    {
      C = (po - pi) * a * a * b * b / (b * b - a * a);
      A = -po - C / (b * b);
    }
    double
    value(const Point<3> &x, const unsigned int component) const override
    {
      const double r = std::hypot(x[0], x[1]), u = ((1 - 2 * nu) * A * r - C / r) / (2 * G);
      return component == 2 ? 0. : u * x[component] / r;
    }
    Tensor<1, 3>
    gradient(const Point<3> &x, const unsigned int component) const override
    {
      // u_i = f(r) x_i / r = g(r) x_i with g = u/r: d u_i / d x_j = g delta_ij + g'(r) x_i x_j / r.
      Tensor<1, 3> grad;
      if (component == 2)
        return grad;
      const double r = std::hypot(x[0], x[1]);
      const double g = ((1 - 2 * nu) * A - C / (r * r)) / (2 * G), dg = 2 * C / (r * r * r) / (2 * G);
      for (unsigned int j = 0; j < 2; ++j)
        grad[j] = (component == j ? g : 0.) + dg * x[component] * x[j] / r;
      return grad;
    }

  private:
    double A, C;
  };

  plastix::Parameters
  wellbore_parameters(const std::vector<unsigned int> &subdivisions, const double growth, const unsigned int refinements)
  {
    plastix::Parameters p;
    p.problem.type                             = plastix::ProblemType::elastoplastic;
    p.mesh.geometry                            = plastix::GeometryType::wellbore;
    p.mesh.inner_radius                        = a;
    p.mesh.outer_radius                        = b;
    p.mesh.cylinder_length                     = 0.01;
    p.mesh.subdivisions                        = subdivisions;
    p.mesh.radial_growth                       = growth;
    p.mesh.global_refinements                  = refinements;
    p.materials.default_material.young_modulus = E;
    p.materials.default_material.poisson_ratio = nu;
    p.materials.default_material.criterion     = plastix::backend::YieldCriterion::mohr_coulomb;
    p.materials.default_material.cohesion      = c;
    p.materials.default_material.friction_angle = phi_degrees;
    p.boundary.dirichlet_text                  = "2: x = 0; 3: y = 0; 4: z = 0; 5: z = 0";
    p.solver.type                              = plastix::SolverType::cg;
    p.solver.preconditioner                    = plastix::PreconditionerType::amg;
    p.solver.relative_tolerance                = 1e-12;
    p.solver.max_iterations                    = 10000;
    p.newton.residual_tolerance                = 1e-10;
    p.newton.displacement_tolerance            = 1e-10;
    p.newton.max_iterations                    = 200;
    return p;
  }

  /** The mesh, DoFs and operator of the parameters. */
  struct Problem
  {
    Problem(plastix::Parameters &p, const MPI_Comm comm)
      : parameters(p)
      , triangulation(comm)
      , fe(FE_Q<3>(1), 3)
      , dof_handler(triangulation)
    {
      p.check();
      plastix::create_mesh(p.mesh, triangulation);
      dof_handler.distribute_dofs(fe);
      plastix::make_dirichlet_constraints(dof_handler, p.boundary, constraints);
      materials = plastix::make_material_table(dof_handler, p.materials);
      op.reinit(dof_handler, constraints, materials, data);
      LinearAlgebra::distributed::Vector<double> force(op.get_partitioner());
      plastix::assemble_external_force(dof_handler, p.boundary, force);
      op.initialize_dof_vector(external_force);
      external_force.copy_from_host(force);
    }

    LinearAlgebra::distributed::Vector<double>
    to_host(const plastix::DeviceVector &u) const
    {
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
      LinearAlgebra::distributed::Vector<double> host(dof_handler.locally_owned_dofs(), relevant,
                                                      dof_handler.get_communicator());
      u.copy_to_host(host);
      host.update_ghost_values();
      return host;
    }

    plastix::Parameters                      &parameters;
    parallel::distributed::Triangulation<3>   triangulation;
    FESystem<3>                               fe;
    DoFHandler<3>                             dof_handler;
    AffineConstraints<double>                 constraints;
    plastix::MaterialTable                    materials;
    plastix::MechanicsOperator::AdditionalData data{plastix::backend::Strategy::ebe_atomic,
                                                    plastix::backend::CellKernel::stored_geometry,
                                                    plastix::backend::ThreadMapping::automatic,
                                                    plastix::backend::ElementFormulation::full};
    plastix::MechanicsOperator                op;
    plastix::DeviceVector                     external_force;
  };

  /** What an elastoplastic run ended with. */
  struct PlasticRun
  {
    LinearAlgebra::distributed::Vector<double> u;
    std::vector<double>                        averages;
    unsigned int                               newton_iterations = 0;
    bool                                       converged         = true;
  };

  /** Load steps 0.25, 0.5, 0.75, 1 of the problem's loads on top of the in-situ pressure p0 (0: none). */
  PlasticRun
  run_plastic(Problem &problem, const double p0, plastix_test::Environment &env)
  {
    plastix::PlasticityState &state = problem.op.enable_plasticity();
    plastix::DeviceVector     constant_force, zero;
    problem.op.initialize_dof_vector(constant_force);
    problem.op.initialize_dof_vector(zero);
    if (p0 != 0)
      {
        state.set_initial_stress(problem.dof_handler, [&](const Point<3> &) {
          return SymmetricTensor<2, 3>(-p0 * unit_symmetric_tensor<3>());
        });
        state.update(zero, constant_force);
      }
    plastix::LinearSolver linear_solver(problem.parameters.solver);
    plastix::NewtonRaphson newton(
      problem.op, problem.external_force, linear_solver,
      [&](const bool new_step) {
        linear_solver.initialize(problem.op, problem.dof_handler, problem.materials,
                                 problem.parameters.boundary.dirichlet_boundaries(), new_step);
      },
      problem.parameters.newton);
    if (p0 != 0)
      newton.set_constant_force(constant_force);
    state.update(newton.u, newton.f_int);
    PlasticRun run;
    double     lambda_old = 0;
    for (const double lambda : {0.25, 0.5, 0.75, 1.})
      {
        const plastix::NewtonResult result = newton.step(lambda_old, lambda);
        run.newton_iterations += result.iterations;
        if (!result.converged)
          {
            env.pout << "   load factor " << lambda << ": " << result.failure << std::endl;
            run.converged = false;
            return run;
          }
        newton.accept(lambda_old, result.reference);
        lambda_old = lambda;
      }
    run.u        = problem.to_host(newton.u);
    run.averages = state.cell_averages();
    return run;
  }

  /** Case 2 and 3: the plastic run against the cavity's closed form. */
  void
  check_cavity(Problem &problem, const PlasticRun &run, const Cavity &cavity, const std::string &label,
               plastix_test::Environment &env, plastix_test::Checker &checker)
  {
    const MPI_Comm comm       = problem.dof_handler.get_communicator();
    const double   thickness  = problem.parameters.mesh.cylinder_length;
    const double   wall_scale = std::abs(cavity.p - cavity.p0);
    double         plastic_area = 0, stress_error[3] = {0, 0, 0};
    bool           inside_plastic = true, outside_elastic = true;
    std::size_t    k = 0;
    for (const auto &cell : problem.dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          const double *v = &run.averages[10 * k++];
          plastic_area += v[8] * cell->measure() / thickness;
          double r_min = 1e300, r_max = 0;
          for (const auto vertex : cell->vertex_indices())
            {
              const double r = std::hypot(cell->vertex(vertex)[0], cell->vertex(vertex)[1]);
              r_min          = std::min(r_min, r);
              r_max          = std::max(r_max, r);
            }
          if (r_max < 0.9 * cavity.R && v[8] < 1.)
            inside_plastic = false;
          if (r_min > 1.1 * cavity.R && v[8] > 0.)
            outside_elastic = false;
          const Point<3> x = cell->center();
          const double   r = std::hypot(x[0], x[1]);
          if (r > 3 * cavity.R)
            continue;
          const double cs = x[0] / r, sn = x[1] / r;
          // stress xx, yy, zz, yz, xz, xy.
          const double sigma_r = v[0] * cs * cs + v[1] * sn * sn + 2 * v[5] * cs * sn;
          const double sigma_t = v[0] * sn * sn + v[1] * cs * cs - 2 * v[5] * cs * sn;
          double       exact_r, exact_t, u;
          cavity.at(r, exact_r, exact_t, u);
          stress_error[0] = std::max(stress_error[0], std::abs(sigma_r - exact_r) / wall_scale);
          stress_error[1] = std::max(stress_error[1], std::abs(sigma_t - exact_t) / wall_scale);
          stress_error[2] =
            std::max(stress_error[2], std::abs(v[2] - cavity.axial(exact_r, exact_t)) / wall_scale);
        }
    plastic_area = Utilities::MPI::sum(plastic_area, comm);
    for (double &e : stress_error)
      e = Utilities::MPI::max(e, comm);
    const double R_fe = std::sqrt(a * a + 4 * plastic_area / numbers::PI);
    // The elastic-zone displacement at the owned vertices with r >= 1.5 R.
    double u_error = 0, u_scale = 0;
    for (const auto &cell : problem.dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        for (const auto vertex : cell->vertex_indices())
          {
            const Point<3> x = cell->vertex(vertex);
            const double   r = std::hypot(x[0], x[1]);
            if (r < 1.5 * cavity.R)
              continue;
            double sr, st, u;
            cavity.at(r, sr, st, u);
            const double ur = (run.u(cell->vertex_dof_index(vertex, 0)) * x[0] +
                               run.u(cell->vertex_dof_index(vertex, 1)) * x[1]) /
                              r;
            u_error = std::max(u_error, std::abs(ur - u));
            u_scale = std::max(u_scale, std::abs(u));
          }
    u_error = Utilities::MPI::max(u_error, comm);
    u_scale = Utilities::MPI::max(u_scale, comm);
    env.pout << "   " << label << ": plastic radius closed form " << cavity.R << " m, FE (from the plastic area) "
             << R_fe << " m; " << run.newton_iterations << " Newton iterations" << std::endl;
    checker.check("  " + label + ": plastic radius (relative)", std::abs(R_fe - cavity.R) / cavity.R, 0.03);
    checker.check_true("  " + label + ": cells inside 0.9 R fully plastic", inside_plastic);
    checker.check_true("  " + label + ": cells outside 1.1 R elastic", outside_elastic);
    checker.check("  " + label + ": radial stress, max |error| / wall pressure change (r < 3R)", stress_error[0],
                  0.05);
    checker.check("  " + label + ": hoop stress, max |error| / wall pressure change (r < 3R)", stress_error[1], 0.05);
    checker.check("  " + label + ": axial stress, max |error| / wall pressure change (r < 3R)", stress_error[2],
                  0.05);
    checker.check("  " + label + ": elastic-zone displacement, max |error| / max |u| (r >= 1.5 R)",
                  u_error / u_scale, 0.02);
  }

  double
  relative_difference(const LinearAlgebra::distributed::Vector<double> &x,
                      const LinearAlgebra::distributed::Vector<double> &y)
  {
    LinearAlgebra::distributed::Vector<double> d(x.get_partitioner());
    d = x;
    d -= y;
    return d.l2_norm() / y.l2_norm();
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    env.pout << "1. elastic annulus against Lame (inner pressure 10, outer 2)" << std::endl;
    {
      const Lame          exact(10., 2.);
      std::vector<double> l2, h1, h;
      for (unsigned int refinements = 0; refinements < 3; ++refinements)
        {
          plastix::Parameters p = wellbore_parameters({12, 6, 1}, 1.35, refinements);
          p.problem.type        = plastix::ProblemType::elastic;
          p.boundary.pressure_text = "0: 10; 1: 2";
          Problem problem(p, env.comm);
          plastix::DeviceVector b, x;
          problem.op.initialize_dof_vector(b);
          problem.op.initialize_dof_vector(x);
          b = problem.external_force;
          problem.op.lift_inhomogeneities(b);
          problem.op.set_constrained_values(x);
          plastix::LinearSolver solver(p.solver);
          solver.initialize(problem.op, problem.dof_handler, problem.materials, p.boundary.dirichlet_boundaries(),
                            true);
          solver.solve(x, b);
          const auto        u = problem.to_host(x);
          const MappingQ<3> mapping(1);
          Vector<float>     cell_errors(problem.triangulation.n_active_cells());
          VectorTools::integrate_difference(mapping, problem.dof_handler, u, exact, cell_errors, QGauss<3>(3),
                                            VectorTools::L2_norm);
          l2.push_back(VectorTools::compute_global_error(problem.triangulation, cell_errors, VectorTools::L2_norm));
          VectorTools::integrate_difference(mapping, problem.dof_handler, u, exact, cell_errors, QGauss<3>(3),
                                            VectorTools::H1_seminorm);
          h1.push_back(
            VectorTools::compute_global_error(problem.triangulation, cell_errors, VectorTools::H1_seminorm));
          env.pout << "   refinements " << refinements << ": " << problem.dof_handler.n_dofs() << " DoFs, |e|_L2 "
                   << l2.back() << ", |e|_H1 " << h1.back() << std::endl;
        }
      for (unsigned int k = 1; k < l2.size(); ++k)
        env.pout << "   orders " << k - 1 << " -> " << k << ": L2 " << std::log2(l2[k - 1] / l2[k]) << ", H1 "
                 << std::log2(h1[k - 1] / h1[k]) << std::endl;
      checker.check_true("  L2 order of the last refinement >= 1.8", std::log2(l2[1] / l2[2]) >= 1.8);
      checker.check_true("  H1 order of the last refinement >= 0.9", std::log2(h1[1] / h1[2]) >= 0.9);
    }

    const std::vector<unsigned int> subdivisions{48, 24, 1};
    const double                    growth = 1.08;

    env.pout << "2. expanding cavity, the thesis's setting (wall pressure 10, stresses from zero)" << std::endl;
    {
      const Cavity        cavity(0., 10.);
      double              sr, st, u;
      cavity.at(b, sr, st, u);
      plastix::Parameters p = wellbore_parameters(subdivisions, growth, 0);
      p.boundary.pressure_text = "0: 10; 1: " + std::to_string(-sr);
      Problem          problem(p, env.comm);
      const PlasticRun run = run_plastic(problem, 0., env);
      checker.check_true("  converged", run.converged);
      if (run.converged)
        check_cavity(problem, run, cavity, "expanding", env, checker);

      // The same annulus read from a gmsh file (boundary ids as physical
      // tags): the same closed-form checks.
      env.pout << "2b. the same, the mesh read from a gmsh file" << std::endl;
      const std::string file =
        (std::filesystem::temp_directory_path() /
         ("plastix-wellbore-" + std::to_string(Utilities::MPI::broadcast(env.comm, int(getpid()), 0)) + ".msh"))
          .string();
      if (Utilities::MPI::this_mpi_process(env.comm) == 0)
        {
          Triangulation<3> serial;
          plastix::create_mesh(p.mesh, serial);
          GridOut out;
          out.set_flags(GridOutFlags::Msh(true, false));
          std::ofstream stream(file);
          out.write_msh(serial, stream);
        }
      MPI_Barrier(env.comm);
      plastix::Parameters from_file = p;
      from_file.mesh.geometry       = plastix::GeometryType::file;
      from_file.mesh.file           = file;
      Problem          file_problem(from_file, env.comm);
      const PlasticRun file_run = run_plastic(file_problem, 0., env);
      MPI_Barrier(env.comm);
      if (Utilities::MPI::this_mpi_process(env.comm) == 0)
        std::filesystem::remove(file);
      checker.check_true("  converged (gmsh file)", file_run.converged);
      checker.check_true("  the file's mesh has the generated one's cells",
                         file_problem.triangulation.n_global_active_cells() ==
                           problem.triangulation.n_global_active_cells());
      if (file_run.converged)
        check_cavity(file_problem, file_run, cavity, "expanding, gmsh file", env, checker);
      checker.check("  first yield radius sqrt(10 (1 + N) / sigma_c) a = 0.1459 m",
                    std::abs(a * std::sqrt(10 * (1 + cavity.N) / cavity.sigma_c) - 0.14589), 1e-4);
    }

    env.pout << "3. contracting cavity with the in-situ stress -50 in the state (wall pressure 50 -> 15)"
             << std::endl;
    const Cavity        cavity(50., 15.);
    double              sr, st, u_outer;
    cavity.at(b, sr, st, u_outer);
    // Changes from the in-situ state: the wall's radial stress rises by 35,
    // the outer one by the closed form's change there.
    const std::string   pressures = "0: -35; 1: " + std::to_string(-(sr + 50.));
    plastix::Parameters p         = wellbore_parameters(subdivisions, growth, 0);
    p.boundary.pressure_text      = pressures;
    Problem          consistent_problem(p, env.comm);
    const PlasticRun consistent = run_plastic(consistent_problem, 50., env);
    checker.check_true("  converged", consistent.converged);
    if (consistent.converged)
      check_cavity(consistent_problem, consistent, cavity, "contracting", env, checker);

    env.pout << "4. initial stiffness with Thomas acceleration" << std::endl;
    {
      plastix::Parameters q = p;
      q.newton.tangent      = plastix::NewtonTangent::initial_stiffness;
      Problem          problem(q, env.comm);
      const PlasticRun run = run_plastic(problem, 50., env);
      checker.check_true("  converged", run.converged);
      if (run.converged && consistent.converged)
        {
          env.pout << "   Newton iterations: consistent " << consistent.newton_iterations << ", initial stiffness "
                   << run.newton_iterations << std::endl;
          checker.check("  same displacement as the consistent tangent (relative)",
                        relative_difference(run.u, consistent.u), 1e-6);
        }
    }
    {
      // psi = 5: non-symmetric consistent tangent (GMRES) vs initial stiffness (CG).
      plastix::Parameters q = p;
      q.materials.default_material.dilation_angle = "5";
      q.solver.type                               = plastix::SolverType::gmres;
      q.solver.gmres_restart                      = 200;
      Problem          gmres_problem(q, env.comm);
      checker.check_true("  psi = 5: the tangent is not symmetric", !gmres_problem.op.has_symmetric_tangent());
      const PlasticRun with_gmres = run_plastic(gmres_problem, 50., env);
      q.solver.type    = plastix::SolverType::cg;
      q.newton.tangent = plastix::NewtonTangent::initial_stiffness;
      Problem          cg_problem(q, env.comm);
      const PlasticRun with_cg = run_plastic(cg_problem, 50., env);
      checker.check_true("  psi = 5: both converged", with_gmres.converged && with_cg.converged);
      if (with_gmres.converged && with_cg.converged)
        {
          env.pout << "   psi = 5 Newton iterations: consistent + GMRES " << with_gmres.newton_iterations
                   << ", initial stiffness + CG " << with_cg.newton_iterations << std::endl;
          checker.check("  psi = 5: initial stiffness + CG = consistent + GMRES (relative)",
                        relative_difference(with_cg.u, with_gmres.u), 1e-6);
          checker.check_true("  psi = 5: the displacement differs from the associative one",
                             relative_difference(with_gmres.u, consistent.u) > 1e-4);
        }
    }
  });
}
