// Elastoplasticity at finite strain in the logarithmic strain space
// (StrainEnergy::hencky, MechanicsOperator::enable_finite_strain()) against
// small-strain plasticity (enable_plasticity()) on a
// distorted 3 x 1 x 1 bar, clamped at x = 0, its end x = 3 moved by s (2, 1,
// 1) over four load steps, with J2 and mixed hardening (E = 200, nu = 0.3,
// sigma_y = 0.1, H = 20, H_kin = 10, Voce 0.05 at rate 100): most points
// yield at s = 3e-3 (strains several times the yield strain). The two
// models differ by the geometric and logarithmic terms of order the strain:
// the largest difference of the displacements, relative to the largest
// displacement, must fall linearly with s (halving s halves it, within 20
// %), and stay below 1.5 s. Also checked: every step converges without cuts
// in at most 10 Newton iterations (quadratic convergence of the consistent
// tangent), and most Gauss points yield in both models
// (n_yielded_points()). Twice: full integration in both models, and the
// F-bar element at finite strain against B-bar at small strain (F-bar's
// small-strain limit). Run with 1 and 2 MPI ranks.

// Test: ranks 1 2
#include <deal.II/base/function.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/finite_strain_state.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/load_stepping.h>
#include <plastix/solvers/newton.h>

#include "box_mesh.h"
#include "q1_dofs.h"
#include "test_environment.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

using namespace dealii;
using HostVector = LinearAlgebra::distributed::Vector<double>;

namespace
{
  /** Constraints: x = 0 clamped, x = 3 moved by @p s (2, 1, 1). */
  AffineConstraints<double>
  bar_constraints(const DoFHandler<3> &dof_handler, const IndexSet &relevant, const double s)
  {
    AffineConstraints<double> constraints(relevant);
    VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
    VectorTools::interpolate_boundary_values(
      dof_handler, 1, Functions::ConstantFunction<3>(std::vector<double>{2. * s, s, s}), constraints);
    constraints.close();
    return constraints;
  }

  struct Solution
  {
    HostVector         u;
    unsigned int       most_iterations = 0;
    unsigned int       cuts            = 0;
    unsigned long long yielded         = 0;
  };

  /** The bar with end displacement @p s, at finite strain (Hencky) or small strain. */
  Solution
  solve(const DoFHandler<3>                     &dof_handler,
        const IndexSet                          &relevant,
        const double                             s,
        const bool                               finite_strain,
        const plastix::backend::ElementFormulation formulation,
        plastix_test::Environment               &env)
  {
    plastix::backend::MaterialConstants m = plastix::make_material(200., 0.3, 0.1, 20., 10., 0.15, 100.);
    if (finite_strain)
      m.strain_energy = plastix::backend::StrainEnergy::hencky;
    const plastix::MaterialTable    materials{{0, m}};
    const AffineConstraints<double> constraints = bar_constraints(dof_handler, relevant, s);
    plastix::MechanicsOperator      op;
    plastix::MechanicsOperator::AdditionalData data;
    data.element_formulation = formulation;
    op.reinit(dof_handler, constraints, materials, data);
    if (finite_strain)
      op.enable_finite_strain();
    else
      op.enable_plasticity();
    plastix::DeviceVector external_force;
    op.initialize_dof_vector(external_force);
    plastix::LinearSolverData solver_data;
    solver_data.type           = plastix::SolverType::gmres;
    solver_data.preconditioner = plastix::PreconditionerType::jacobi;
    plastix::LinearSolver linear_solver(solver_data);
    plastix::NewtonData   newton_data;
    newton_data.residual_tolerance = newton_data.displacement_tolerance = 1e-10;
    plastix::NewtonRaphson newton(
      op, external_force, linear_solver, [&](const bool new_step) { linear_solver.initialize(op, new_step); },
      newton_data);
    if (finite_strain)
      op.finite_strain().update(newton.u, newton.f_int);
    else
      op.plasticity().update(newton.u, newton.f_int);
    plastix::LoadSteppingData stepping_data;
    stepping_data.load_factors = {0.25, 0.5, 0.75, 1.};
    plastix::LoadStepping stepping(stepping_data);
    Solution              solution;
    stepping.run(newton, [&](const plastix::LoadStepResult &step) {
      solution.most_iterations = std::max(solution.most_iterations, step.newton.iterations);
      solution.cuts += step.cuts;
      env.pout << (finite_strain ? "  finite strain, " : "  small strain, ") << to_string(formulation) << ", s = " << s
               << ", load factor "
               << step.load_factor << ": " << step.newton.iterations << " Newton iterations, |R|/F "
               << step.newton.relative_residual << "\n";
    });
    solution.yielded = finite_strain ? op.finite_strain().n_yielded_points() : op.plasticity().n_yielded_points();
    solution.u.reinit(op.get_partitioner());
    newton.u.copy_to_host(solution.u);
    return solution;
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    parallel::distributed::Triangulation<3> tria(env.comm);
    plastix_test::make_distorted_box(tria, {6, 2, 2}, Point<3>(3., 1., 1.), 1, 0.15, 7);
    for (const auto &cell : tria.active_cell_iterators())
      cell->set_material_id(0);
    DoFHandler<3>   dof_handler(tria);
    const IndexSet  relevant = plastix_test::distribute_q1_dofs(dof_handler);
    const IndexSet &owned    = dof_handler.locally_owned_dofs();
    const unsigned long long n_points = 8 * tria.n_global_active_cells();
    env.pout << "DoFs " << dof_handler.n_dofs() << ", cells " << tria.n_global_active_cells() << "\n";

    using plastix::backend::ElementFormulation;
    // Full integration in both models; F-bar at finite strain against its limit, B-bar.
    const std::pair<ElementFormulation, ElementFormulation> pairs[2] = {
      {ElementFormulation::full, ElementFormulation::full}, {ElementFormulation::fbar, ElementFormulation::bbar}};
    HostVector full_solution;
    for (const auto &[finite_formulation, small_formulation] : pairs)
      {
        const std::string   what = to_string(finite_formulation) + " vs " + to_string(small_formulation);
        std::vector<double> differences;
        for (const double s : {3e-3, 1.5e-3})
          {
            const Solution small  = solve(dof_handler, relevant, s, false, small_formulation, env);
            const Solution finite = solve(dof_handler, relevant, s, true, finite_formulation, env);
            const std::string at = what + ", s = " + std::to_string(s);
            checker.check_true(at + ": no step is cut", small.cuts == 0 && finite.cuts == 0);
            checker.check(at + ": Newton iterations of the slowest finite-strain step", finite.most_iterations, 10);
            env.pout << at << ": yielded Gauss points " << small.yielded << " (small strain), " << finite.yielded
                     << " (finite strain) of " << n_points << "\n";
            checker.check_true(at + ": most points yield",
                               finite.yielded > n_points / 2 && small.yielded > n_points / 2);
            double difference = 0, largest = 0;
            for (const auto i : owned)
              {
                difference = std::max(difference, std::abs(finite.u(i) - small.u(i)));
                largest    = std::max(largest, std::abs(small.u(i)));
              }
            difference = Utilities::MPI::max(difference, env.comm) / Utilities::MPI::max(largest, env.comm);
            env.pout << at << ": largest |u_finite - u_small| / largest |u| = " << difference << "\n";
            checker.check(at + ": largest |u_finite - u_small| / largest |u| / s", difference / s, 1.5);
            differences.push_back(difference);
            // The two elements differ by more than the finite-strain terms: the test sees F-bar.
            if (s == 3e-3 && finite_formulation == ElementFormulation::full)
              full_solution = finite.u;
            else if (s == 3e-3)
              {
                double to_full = 0;
                for (const auto i : owned)
                  to_full = std::max(to_full, std::abs(finite.u(i) - full_solution(i)));
                to_full = Utilities::MPI::max(to_full, env.comm) / Utilities::MPI::max(largest, env.comm);
                env.pout << at << ": largest |u_fbar - u_full| / largest |u| = " << to_full << "\n";
                checker.check_true(at + ": F-bar differs from full integration by more than from B-bar",
                                   to_full > 3 * difference);
              }
          }
        checker.check(what + ": first order in s: |difference(s) / difference(s / 2) / 2 - 1|",
                      std::abs(differences[0] / differences[1] / 2. - 1.), 0.2);
      }
  });
}
