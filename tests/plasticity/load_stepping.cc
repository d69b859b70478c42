// plastix::LoadStepping (the application's load stepping as a library class)
// on a deal.II mesh of the test's own: a unit cube of 2 x 2 x 2 cells with
// symmetry planes x = 0, y = 0, z = 0 under a uniaxial traction of 600 MPa on
// z = 1 (E 200 GPa, nu 0.3, yield stress 450 MPa). The state is homogeneous,
// so the top face's displacement has a closed form.
//  1. With hardening (66 GPa), load factors 1/3, 2/3, 1 through run(): one
//     callback per step at the right step number and load factor, each on
//     the closed form, no cuts.
//  2. Continuing from a position (a restart): the first two load factors by
//     one object, the third by a new one made at their position; the same
//     closed form, step 3, and a load factor equal to the current one is
//     skipped.
//  3. Perfectly plastic (limit load factor 0.75), load factors 0.6, 1, the
//     increment going straight back to the whole remaining one after a
//     cut (a huge increment growth): the
//     steps beyond 0.75 fail, are cut, and after Maximum cuts + 1 = 13 cuts
//     solve_step() throws SolverError naming them. The sequence of halvings
//     is known: the last converged load factor is 0.7457 (0.6, 0.7, 0.7375,
//     0.74570...), and the displacement was put back to that step's
//     (elastic: the closed form), so the failed attempts left nothing behind.
//  4. The minimum increment ends the cutting too: with 0.15, after the
//     failed 1.0 and 0.8 (increment 0.1 < 0.15), at load factor 0.6.
//  6. The same with the default increment growth 2, from load factor 0.62:
//     after the cut step to 0.715 (increment 0.095) the next increment is
//     0.19, not the remaining 0.285, and a LoadStepping made at that
//     position (a restart) continues with it; the halvings and doublings
//     then converge at 0.73875, 0.7446875, 0.74765625, 0.749140625, and the
//     13th cut ends the run: 6 converged steps.
//  7. Under prescribed displacements alone the error does not speak of a
//     limit load (NewtonRaphson::has_external_force()).
//  5. The operator owns the state: after case 1 (every point plastic) the
//     operator is the tangent, which differs from elasticity; use_tangent()
//     switches to elasticity (equal to a new elastic operator to the last
//     bit) and back; disable_plasticity() and reinit() leave an elastic
//     operator without a state; Newton refuses an operator without one.

// Test: ranks 1 2
#include <deal.II/base/function.h>
#include <deal.II/base/tensor.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/external_force.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/load_stepping.h>
#include <plastix/solvers/newton.h>

#include "test_environment.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>

using namespace dealii;

namespace
{
  constexpr double E = 200e9, nu = 0.3, yield_stress = 450e6, traction = 600e6;

  /** The cube, its operator with one material (and its plasticity state), the external force and Newton. */
  struct UniaxialCube
  {
    UniaxialCube(const MPI_Comm comm, const double hardening)
      : tria(comm)
      , fe(FE_Q<3>(1), 3)
      , dof_handler(tria)
    {
      GridGenerator::hyper_rectangle(tria, Point<3>(), Point<3>(1, 1, 1), true);
      for (const auto &cell : tria.active_cell_iterators())
        cell->set_material_id(0);
      tria.refine_global(1);
      dof_handler.distribute_dofs(fe);
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
      constraints.reinit(relevant);
      for (const unsigned int d : {0u, 1u, 2u})
        VectorTools::interpolate_boundary_values(dof_handler, 2 * d, Functions::ZeroFunction<3>(3), constraints,
                                                 fe.component_mask(FEValuesExtractors::Scalar(d)));
      constraints.close();
      op.reinit(dof_handler, constraints, {{0, plastix::make_material(E, nu, yield_stress, hardening)}});
      op.enable_plasticity();
      LinearAlgebra::distributed::Vector<double> force(op.get_partitioner());
      plastix::assemble_external_force(dof_handler, {{5, Tensor<1, 3>({0., 0., traction})}}, {}, Tensor<1, 3>(),
                                       force);
      op.initialize_dof_vector(external_force);
      external_force.copy_from_host(force);
      plastix::LinearSolverData solver_data;
      solver_data.preconditioner = plastix::PreconditionerType::jacobi;
      linear_solver              = std::make_unique<plastix::LinearSolver>(solver_data);
      plastix::NewtonData newton_data;
      newton_data.residual_tolerance = newton_data.displacement_tolerance = 1e-12;
      newton                                                              = std::make_unique<plastix::NewtonRaphson>(
        op, external_force, *linear_solver,
        [this](const bool new_load_step) { linear_solver->initialize(op, new_load_step); }, newton_data);
      op.plasticity().update(newton->u, newton->f_int);
    }

    /** The largest vertical displacement of the top face z = 1. */
    double
    top_uz() const
    {
      LinearAlgebra::distributed::Vector<double> u(op.get_partitioner());
      newton->u.copy_to_host(u);
      double top = -1e300;
      for (const auto &cell : dof_handler.active_cell_iterators())
        if (cell->is_locally_owned())
          for (const auto v : cell->vertex_indices())
            if (std::abs(cell->vertex(v)[2] - 1.) < 1e-12)
              top = std::max(top, u(cell->vertex_dof_index(v, 2)));
      return Utilities::MPI::max(top, tria.get_communicator());
    }

    parallel::distributed::Triangulation<3>         tria;
    const FESystem<3>                               fe;
    DoFHandler<3>                                   dof_handler;
    AffineConstraints<double>                       constraints;
    plastix::MechanicsOperator                      op;
    plastix::DeviceVector                           external_force;
    std::unique_ptr<plastix::LinearSolver>          linear_solver;
    std::unique_ptr<plastix::NewtonRaphson>         newton;
  };

  /**
   * Runs @p stepping on @p cube to its end; returns the message of the
   * SolverError that ended it early (empty if none) and counts the steps.
   */
  std::string
  run_to_error(plastix::LoadStepping &stepping, UniaxialCube &cube, unsigned int &steps)
  {
    try
      {
        stepping.run(*cube.newton, [&](const plastix::LoadStepResult &) { ++steps; });
      }
    catch (const plastix::SolverError &e)
      {
        return e.what();
      }
    return "";
  }

  /** Top displacement of the uniaxial cube at @p lambda under monotonic loading with hardening @p H. */
  double
  closed_form_uz(const double lambda, const double H)
  {
    const double stress = traction * lambda;
    return stress / E + (H > 0 ? std::max(0., stress - yield_stress) / H : 0.);
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    const double              H       = 66e9;
    env.pout << "1. hardening, load factors 1/3, 2/3, 1 through run()" << std::endl;
    {
      UniaxialCube              cube(env.comm, H);
      plastix::LoadSteppingData data;
      data.load_factors = {1. / 3, 2. / 3, 1.};
      plastix::LoadStepping stepping(data);
      unsigned int          calls = 0;
      // The Newton stage's parts: every step updates stresses, forms
      // residuals, refreshes the preconditioner and solves; their sum over
      // the steps cannot exceed the wall time of run() (no part counted twice).
      plastix::NewtonStageTimes parts;
      const auto                start = std::chrono::steady_clock::now();
      stepping.run(*cube.newton, [&](const plastix::LoadStepResult &result) {
        ++calls;
        const std::string label = "  step " + std::to_string(calls) + ": ";
        const auto       &t     = result.times;
        checker.check_true(label + "Newton stage times positive (" + t.description() + ")",
                           t.stress_updates > 0 && t.residuals > 0 && t.preconditioner > 0 && t.linear_solves > 0);
        parts += t;
        checker.check_true(label + "position (step, target index)",
                           stepping.position().step == calls && stepping.position().target_index == calls);
        checker.check(label + "load factor", std::abs(stepping.load_factor() - data.load_factors[calls - 1]), 1e-15);
        checker.check(label + "result's load factor", std::abs(result.load_factor - stepping.load_factor()), 0);
        const double exact = closed_form_uz(stepping.load_factor(), H);
        checker.check(label + "top u_z against the closed form (relative)", std::abs(cube.top_uz() - exact) / exact,
                      1e-9);
      });
      checker.check_true("  three callbacks, finished, no cuts", calls == 3 && stepping.finished() &&
                                                                   stepping.n_cuts() == 0);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      checker.check_true("  the parts of the Newton stage add up to at most its wall time (" + parts.description() +
                           " <= " + std::to_string(wall) + ")",
                         parts.stress_updates + parts.residuals + parts.preconditioner + parts.linear_solves <= wall);
    }

    env.pout << "2. continuing from a position" << std::endl;
    {
      UniaxialCube              cube(env.comm, H);
      plastix::LoadSteppingData first;
      first.load_factors = {1. / 3, 2. / 3};
      plastix::LoadStepping(first).run(*cube.newton);
      plastix::LoadSteppingData all;
      all.load_factors = {1. / 3, 2. / 3, 2. / 3, 1.};
      plastix::LoadStepping stepping(all, {2, 2, 2. / 3});
      checker.check_true("  a load factor equal to the current one is skipped",
                         stepping.position().target_index == 3);
      unsigned int steps = 0;
      stepping.run(*cube.newton, [&](const plastix::LoadStepResult &) { ++steps; });
      checker.check_true("  one more step, numbered 3", steps == 1 && stepping.position().step == 3);
      checker.check("  top u_z at load factor 1 (relative)",
                    std::abs(cube.top_uz() - closed_form_uz(1, H)) / closed_form_uz(1, H), 1e-9);
    }

    env.pout << "3. perfectly plastic beyond the limit load factor 0.75: cuts, then SolverError" << std::endl;
    {
      UniaxialCube              cube(env.comm, 0);
      plastix::LoadSteppingData data;
      data.load_factors     = {0.6, 1.};
      data.max_cuts         = 12;
      data.increment_growth = 1e300;
      plastix::LoadStepping stepping(data);
      unsigned int          steps = 0;
      const std::string     error = run_to_error(stepping, cube, steps);
      env.pout << "  " << steps << " steps, " << stepping.n_cuts() << " cuts, last converged load factor "
               << stepping.load_factor() << "; " << error << std::endl;
      checker.check_true("  SolverError naming 13 step cuts", error.find("after 13 step cuts") != std::string::npos);
      checker.check_true("  13 cuts, 4 converged steps", stepping.n_cuts() == 13 && steps == 4);
      // 0.6, then 0.7, 0.7375, 0.74570312... (see the header).
      checker.check("  last converged load factor 0.6 + 0.1 + 0.0375 + 0.00820312",
                    std::abs(stepping.load_factor() - (0.6 + 0.1 + 0.0375 + 0.008203125)), 1e-12);
      const double exact = closed_form_uz(stepping.load_factor(), 0);
      checker.check("  the displacement is that of the last converged (elastic) step (relative)",
                    std::abs(cube.top_uz() - exact) / exact, 1e-9);
      checker.check("  the state too: no plastic point after a stress update at it",
                    cube.op.plasticity().update(cube.newton->u, cube.newton->f_int).n_plastic_points, 0);
    }

    env.pout << "6. increment growth 2 after cuts" << std::endl;
    {
      UniaxialCube              cube(env.comm, 0);
      plastix::LoadSteppingData data;
      data.load_factors = {0.62, 1.};
      data.max_cuts     = 12;
      plastix::LoadStepping stepping(data);
      for (unsigned int step = 0; step < 2; ++step)
        stepping.accept_step(*cube.newton, stepping.solve_step(*cube.newton));
      checker.check("  after the cut step to 0.715: load factor", std::abs(stepping.load_factor() - 0.715), 1e-12);
      checker.check("  the next increment is 2 x 0.095", std::abs(stepping.position().increment - 0.19), 1e-12);
      checker.check_true("  two cuts on the way to 1", stepping.position().cuts_to_target == 2);
      plastix::LoadStepping restarted(data, stepping.position());
      checker.check("  a restart at that position continues with it",
                    std::abs(restarted.position().increment - 0.19), 1e-12);
      unsigned int      steps = 2;
      const std::string error = run_to_error(stepping, cube, steps);
      env.pout << "  " << steps << " steps, " << stepping.n_cuts() << " cuts, last converged load factor "
               << stepping.load_factor() << "; " << error << std::endl;
      checker.check_true("  13 cuts, 6 converged steps", stepping.n_cuts() == 13 && steps == 6);
      checker.check("  last converged load factor 0.749140625", std::abs(stepping.load_factor() - 0.749140625),
                    1e-12);
      checker.check_true("  a force-controlled failure names the limit load",
                         error.find("limit load") != std::string::npos &&
                           error.find("prescribed displacements only") == std::string::npos);
    }

    env.pout << "7. prescribed displacements alone" << std::endl;
    {
      UniaxialCube              cube(env.comm, 0);
      plastix::DeviceVector     no_force(cube.external_force);
      no_force = 0.;
      plastix::NewtonData newton_data;
      newton_data.max_iterations = 0;
      plastix::NewtonRaphson newton(
        cube.op, no_force, *cube.linear_solver,
        [&cube](const bool new_load_step) { cube.linear_solver->initialize(cube.op, new_load_step); }, newton_data);
      plastix::LoadSteppingData data;
      data.load_factors = {1.};
      data.max_cuts     = 0;
      plastix::LoadStepping stepping(data);
      std::string           error;
      try
        {
          stepping.run(newton);
        }
      catch (const plastix::SolverError &e)
        {
          error = e.what();
        }
      checker.check_true("  the failure names the prescribed displacements, not a limit load",
                         error.find("prescribed displacements only") != std::string::npos &&
                           error.find("exceed the limit load") == std::string::npos);
    }

    env.pout << "4. minimum increment 0.15" << std::endl;
    {
      UniaxialCube              cube(env.comm, 0);
      plastix::LoadSteppingData data;
      data.load_factors      = {0.6, 1.};
      data.minimum_increment = 0.15;
      plastix::LoadStepping stepping(data);
      unsigned int          steps  = 0;
      const bool            thrown = !run_to_error(stepping, cube, steps).empty();
      checker.check_true("  SolverError after 2 cuts at load factor 0.6, one step",
                         thrown && stepping.n_cuts() == 2 && stepping.load_factor() == 0.6 && steps == 1);
    }

    env.pout << "5. the operator owns the state" << std::endl;
    {
      UniaxialCube              cube(env.comm, H);
      plastix::LoadSteppingData data;
      data.load_factors = {1. / 3, 2. / 3, 1.};
      plastix::LoadStepping(data).run(*cube.newton);
      plastix::MechanicsOperator &op = cube.op;
      plastix::DeviceVector       x, tangent, elastic, again, difference;
      for (auto *v : {&x, &tangent, &elastic, &again, &difference})
        op.initialize_dof_vector(*v);
      x = cube.newton->u;
      op.vmult(tangent, x);
      plastix::MechanicsOperator reference;
      reference.reinit(cube.dof_handler, cube.constraints,
                       {{0, plastix::make_material(E, nu, yield_stress, H)}});
      plastix::DeviceVector reference_elastic;
      reference.initialize_dof_vector(reference_elastic);
      reference.vmult(reference_elastic, x);
      const double scale = reference_elastic.l2_norm();
      const auto   distance = [&](const plastix::DeviceVector &a, const plastix::DeviceVector &b) {
        difference = a;
        difference.add(-1., b);
        return difference.l2_norm() / scale;
      };
      checker.check_true("  with plasticity, every point plastic: the tangent differs from elasticity by > 10 %",
                         op.has_plasticity() && distance(tangent, reference_elastic) > 0.1);
      op.use_tangent(false);
      op.vmult(elastic, x);
      checker.check("  use_tangent(false): elasticity (against a new elastic operator)",
                    distance(elastic, reference_elastic), 0);
      op.use_tangent(true);
      op.vmult(again, x);
      checker.check("  use_tangent(true): the tangent again", distance(again, tangent), 0);
      const unsigned long long yielded = op.plasticity().n_yielded_points();
      checker.check_true("  the state is the operator's: " + std::to_string(yielded) + " yielded points",
                         yielded == 64);
      op.disable_plasticity();
      op.vmult(elastic, x);
      checker.check("  disable_plasticity(): elasticity", distance(elastic, reference_elastic), 0);
      checker.check_true("  disable_plasticity(): no state", !op.has_plasticity());
      op.enable_plasticity().update(cube.newton->u, cube.newton->f_int);
      op.reinit(cube.dof_handler, cube.constraints, {{0, plastix::make_material(E, nu, yield_stress, H)}});
      op.vmult(elastic, x);
      checker.check_true("  reinit() discards the state", !op.has_plasticity());
      checker.check("  reinit(): elasticity", distance(elastic, reference_elastic), 0);
      bool refused = false;
      try
        {
          plastix::NewtonRaphson(op, cube.external_force, *cube.linear_solver, [](bool) {});
        }
      catch (const std::logic_error &)
        {
          refused = true;
        }
      checker.check_true("  NewtonRaphson refuses an operator without plasticity", refused);
      bool no_state = false;
      try
        {
          op.plasticity();
        }
      catch (const std::logic_error &)
        {
          no_state = true;
        }
      checker.check_true("  plasticity() without a state throws", no_state);
    }
  });
}
