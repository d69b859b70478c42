// Elastoplasticity at finite strain in the logarithmic strain (Hencky
// materials) against small-strain plasticity on two problems of the
// application's geometries, with every stress scaled by s (the yield
// stress or cohesion, the loads and the in-situ stress; E fixed): the
// small-strain solution is linear in s (perfect plasticity, every stress
// scaled alike), the finite-strain one differs from it by the geometric and
// logarithmic terms, of the order of the strains.
// 1. The contracting wellbore of tests/plasticity/wellbore.cc (case 3:
//    in-situ stress -p0 in the Gauss-point state, FiniteStrainState::
//    set_initial_stress() and PlasticityState::set_initial_stress(); wall
//    pressure lowered by 0.7 p0; associative Mohr-Coulomb, E = 2000,
//    p0 = 50 s, c = 5 s; plane strain on the graded quarter annulus). The
//    in-situ stress adds its geometric stiffness, of relative size
//    p0 / G = 0.06 s.
// 2. The thick-walled sphere of prm/sphere.prm (J2, perfectly plastic,
//    E = 200e3, sigma_y = 250 s, inner pressure 300 s; refined once).
// Checked for each at s = 1 and s = 1/2:
// - before the first step, the internal force at u = 0 is the same in both
//   models (the force of the in-situ stress alone; zero for the sphere);
// - every load step converges in at most 12 Newton iterations (the
//   consistent tangent);
// - the plastic zones agree (yielded Gauss points within 10 %);
// - the largest displacement difference relative to the largest
//   displacement is below a bound of the order of the strains (wellbore:
//   2 p0 / G, 1.5 p0 / G measured; sphere: 2 sigma_y / E, 0.38 sigma_y / E
//   measured) and falls
//   linearly with s (halving s halves it, within 20 %): the small-strain
//   limit, with an initial stress in the first.
// On 1 and 2 ranks.

// Test: ranks 1 2
#include <deal.II/base/function.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/finite_strain_state.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/newton.h>

#include "discretization.h"
#include "parameters.h"

#include "test_environment.h"

#include <cmath>
#include <functional>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

using namespace dealii;

namespace
{
  /** A problem of the test: its parameters at stress scale s, its in-situ pressure and its bound. */
  struct Case
  {
    std::string name;
    /** The parameters (small strain, von Mises or Mohr-Coulomb) at stress scale s. */
    std::function<plastix::Parameters(double)> parameters;
    /** The hydrostatic in-situ pressure at s = 1 (0: none). */
    double in_situ_pressure;
    /** The strain at s = 1 that bounds the relative displacement difference (times 2). */
    double strain;
  };

  /** @p value with all its digits, for the .prm texts of the loads. */
  std::string
  digits(const double value)
  {
    std::ostringstream text;
    text << std::setprecision(17) << value;
    return text.str();
  }

  void
  set_common_entries(plastix::Parameters &p)
  {
    p.problem.type                  = plastix::ProblemType::elastoplastic;
    p.solver.type                   = plastix::SolverType::cg;
    p.solver.preconditioner         = plastix::PreconditionerType::amg;
    p.solver.relative_tolerance     = 1e-12;
    p.solver.max_iterations         = 10000;
    p.newton.residual_tolerance     = 1e-10;
    p.newton.displacement_tolerance = 1e-10;
    p.newton.max_iterations         = 50;
  }

  /** The contracting wellbore with every stress scaled by @p s. */
  plastix::Parameters
  wellbore_parameters(const double s)
  {
    plastix::Parameters p;
    set_common_entries(p);
    p.mesh.geometry                             = plastix::GeometryType::wellbore;
    p.mesh.inner_radius                         = 0.1;
    p.mesh.outer_radius                         = 4.;
    p.mesh.cylinder_length                      = 0.01;
    p.mesh.subdivisions                         = {24, 12, 1};
    p.mesh.radial_growth                        = 1.17;
    p.materials.default_material.young_modulus  = 2000.;
    p.materials.default_material.poisson_ratio  = 0.2;
    p.materials.default_material.criterion      = plastix::backend::YieldCriterion::mohr_coulomb;
    p.materials.default_material.cohesion       = 5. * s;
    p.materials.default_material.friction_angle = 20.;
    p.boundary.dirichlet_text                   = "2: x = 0; 3: y = 0; 4: z = 0; 5: z = 0";
    // The wall pressure change +35 s (from p0 to 0.3 p0) and the outer
    // boundary's closed-form change (tests/app/wellbore_in_situ.prm).
    p.boundary.pressure_text = "0: " + digits(-35. * s) + "; 1: " + digits(-0.0281927131 * s);
    return p;
  }

  /** The thick-walled sphere with every stress scaled by @p s. */
  plastix::Parameters
  sphere_parameters(const double s)
  {
    plastix::Parameters p;
    set_common_entries(p);
    p.mesh.geometry                            = plastix::GeometryType::sphere;
    p.mesh.inner_radius                        = 100.;
    p.mesh.outer_radius                        = 200.;
    p.mesh.global_refinements                  = 1;
    p.materials.default_material.young_modulus = 200e3;
    p.materials.default_material.poisson_ratio = 0.3;
    p.materials.default_material.yield_stress  = 250. * s;
    p.boundary.dirichlet_text                  = "2: x = 0; 3: y = 0; 4: z = 0";
    p.boundary.pressure_text                   = "0: " + digits(300. * s);
    return p;
  }

  struct Run
  {
    LinearAlgebra::distributed::Vector<double> u, f0;
    unsigned int                               most_iterations = 0;
    bool                                       converged       = true;
    unsigned long long                         yielded         = 0;
  };

  Run
  solve(const Case &c, const double s, const bool finite_strain, const MPI_Comm comm, plastix_test::Environment &env)
  {
    plastix::Parameters p = c.parameters(s);
    if (finite_strain)
      {
        p.problem.kinematics                       = plastix::Kinematics::finite_strain;
        p.materials.default_material.strain_energy = plastix::backend::StrainEnergy::hencky;
      }
    // The same element in both models (auto would take B-bar and F-bar).
    p.op.element_formulation = plastix::backend::ElementFormulation::full;
    p.check();
    // The application's mesh, DoFs, constraints, materials, operator and loads.
    plastix::Discretization d(p, comm);
    d.make_mesh();
    d.setup();
    d.assemble_external_force();
    plastix::MechanicsOperator &op = d.op;
    plastix::DeviceVector       held_force, zero;
    op.initialize_dof_vector(zero);

    const double p0             = c.in_situ_pressure * s;
    const auto   in_situ_stress = [&](const Point<3> &) {
      return SymmetricTensor<2, 3>(-p0 * unit_symmetric_tensor<3>());
    };
    if (finite_strain)
      {
        plastix::FiniteStrainState &state = op.enable_finite_strain();
        if (p0 != 0)
          state.set_initial_stress(d.dof_handler, in_situ_stress);
        state.update(zero, held_force);
      }
    else
      {
        plastix::PlasticityState &state = op.enable_plasticity();
        if (p0 != 0)
          state.set_initial_stress(d.dof_handler, in_situ_stress);
        state.update(zero, held_force);
      }
    Run run;
    run.f0.reinit(op.get_partitioner());
    held_force.copy_to_host(run.f0);

    plastix::LinearSolver  linear_solver(p.solver);
    plastix::NewtonRaphson newton(
      op, d.external_force, linear_solver,
      [&](const bool new_step) { d.initialize_solver(linear_solver, new_step); }, p.newton);
    newton.set_constant_force(held_force);
    if (finite_strain)
      op.finite_strain().update(newton.u, newton.f_int);
    else
      op.plasticity().update(newton.u, newton.f_int);
    double lambda_old = 0;
    for (const double lambda : {0.25, 0.5, 0.75, 1.})
      {
        const plastix::NewtonResult result = newton.step(lambda_old, lambda);
        env.pout << "  " << c.name << (finite_strain ? ", finite strain" : ", small strain") << ", s = " << s
                 << ", load factor " << lambda << ": " << result.iterations << " Newton iterations" << std::endl;
        run.most_iterations = std::max(run.most_iterations, result.iterations);
        if (!result.converged)
          {
            env.pout << "   " << result.failure << std::endl;
            run.converged = false;
            return run;
          }
        newton.accept(lambda_old, result.reference);
        lambda_old = lambda;
      }
    run.yielded = finite_strain ? op.finite_strain().n_yielded_points() : op.plasticity().n_yielded_points();
    run.u.reinit(op.get_partitioner());
    newton.u.copy_to_host(run.u);
    return run;
  }

  double
  largest_relative_difference(const LinearAlgebra::distributed::Vector<double> &x,
                              const LinearAlgebra::distributed::Vector<double> &y,
                              const MPI_Comm                                    comm)
  {
    double difference = 0, largest = 0;
    for (const auto i : x.locally_owned_elements())
      {
        difference = std::max(difference, std::abs(x(i) - y(i)));
        largest    = std::max(largest, std::abs(y(i)));
      }
    return Utilities::MPI::max(difference, comm) / Utilities::MPI::max(largest, comm);
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    const Case cases[2] = {{"wellbore", wellbore_parameters, 50., 50. / (2000. / (2 * 1.2))},
                           {"sphere", sphere_parameters, 0., 250. / 200e3}};
    for (const Case &c : cases)
      {
        std::vector<double> differences;
        for (const double s : {1., 0.5})
          {
            const std::string at     = c.name + ", s = " + std::to_string(s);
            const Run         small  = solve(c, s, false, env.comm, env);
            const Run         finite = solve(c, s, true, env.comm, env);
            checker.check_true(at + ": every step converges", small.converged && finite.converged);
            if (!small.converged || !finite.converged)
              return;
            const double f0_scale = Utilities::MPI::max(small.f0.linfty_norm(), env.comm);
            LinearAlgebra::distributed::Vector<double> f0_difference(finite.f0);
            f0_difference -= small.f0;
            checker.check(at + ": |f_0 finite - f_0 small| / max(|f_0 small|, 1) (force at u = 0)",
                          Utilities::MPI::max(f0_difference.linfty_norm(), env.comm) / std::max(f0_scale, 1.),
                          1e-12);
            checker.check(at + ": Newton iterations of the slowest finite-strain step", finite.most_iterations, 12);
            env.pout << at << ": yielded Gauss points " << small.yielded << " (small strain), " << finite.yielded
                     << " (finite strain)" << std::endl;
            checker.check_true(at + ": the plastic zone exists", small.yielded > 0);
            checker.check(at + ": |yielded finite / yielded small - 1|",
                          std::abs(double(finite.yielded) / double(small.yielded) - 1.), 0.1);
            const double difference = largest_relative_difference(finite.u, small.u, env.comm);
            env.pout << at << ": largest |u_finite - u_small| / largest |u_small| = " << difference << std::endl;
            checker.check(at + ": largest |u_finite - u_small| / largest |u_small| / strain",
                          difference / (c.strain * s), 2.);
            differences.push_back(difference);
          }
        checker.check(c.name + ": first order in s: |difference(1) / difference(1/2) / 2 - 1|",
                      std::abs(differences[0] / differences[1] / 2. - 1.), 0.2);
      }
  });
}
