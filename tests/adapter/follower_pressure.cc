// A pressure that follows the deformation (plastix::FollowerPressure,
// MechanicsOperator::set_load_stiffness(), NewtonRaphson::
// set_follower_pressure()):
// 1. The force of assemble_follower_pressure() on a distorted 3 x 2 x 2 box
//    with a non-homogeneous displacement and pressures of both signs on
//    three faces against -int p N_i n da on the deformed faces (deal.II's
//    MappingQEulerian of the displacement) to 1e-12, and its load stiffness
//    against central differences of the force:
//    L v = -(f(u + h v) - f(u - h v)) / 2h to 1e-7.
// 2. The operator with that load stiffness: vmult() gains L v on the rows of
//    free DoFs and nothing on the clamped ones, the diagonal gains diag(L),
//    the tangent is no longer symmetric, and no entries remove L again.
// 3. A neo-Hookean cube with symmetry planes x = 0, y = 0, z = 0 and one
//    corner cell refined (hanging nodes on the loaded faces) under a
//    pressure p on the faces x = 1, y = 1, z = 1, solved by NewtonRaphson
//    with GMRES: the deformation is the homogeneous F = a I. With the
//    pressure on the deformed faces (a follower load) the Cauchy stress is
//    -p I, [mu (a^2 - 1) + 3 lambda ln a] / a^3 = -p; with the same pressure
//    on the reference faces (dead) the nominal stress is -p I,
//    mu (a - 1/a) + 3 lambda ln(a) / a = -p. Both stretches (0.8899 and
//    0.8656 for E = 10, nu = 0.3, p = 4) to 1e-9, each in at most 8 Newton
//    iterations per step (GMRES with Jacobi to the inexact-Newton forcing
//    term, tolerance 1e-11).
// Run with 1 and 2 MPI ranks.

// Test: ranks 1 2
#include <deal.II/base/function.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/fe/mapping_q_eulerian.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/external_force.h>
#include <plastix/core/finite_strain_state.h>
#include <plastix/core/follower_pressure.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/load_stepping.h>
#include <plastix/solvers/newton.h>

#include "box_mesh.h"
#include "q1_dofs.h"
#include "test_environment.h"

#include <cmath>
#include <map>
#include <vector>

using namespace dealii;
using HostVector = LinearAlgebra::distributed::Vector<double>;

namespace
{
  /** A smooth displacement that stretches, shears and bends the box (|u| up to about 0.3). */
  class Deformation : public Function<3>
  {
  public:
    Deformation()
      : Function<3>(3)
    {}

    void
    vector_value(const Point<3> &p, Vector<double> &values) const override
    {
      values(0) = 0.1 * p[0] + 0.05 * p[1] * p[2] - 0.08 * p[2];
      values(1) = 0.12 * std::sin(p[0]) - 0.06 * p[1] + 0.04 * p[0] * p[2];
      values(2) = 0.07 * p[0] * p[0] + 0.09 * p[1] - 0.05 * p[2] * p[1];
    }
  };

  /** A direction of differentiation, non-zero at every DoF. */
  class Direction : public Function<3>
  {
  public:
    Direction()
      : Function<3>(3)
    {}

    void
    vector_value(const Point<3> &p, Vector<double> &values) const override
    {
      values(0) = 1. + 0.3 * p[1] - 0.2 * p[2] * p[2];
      values(1) = -0.5 + 0.4 * p[0] * p[2];
      values(2) = 0.8 - 0.6 * std::cos(p[1]) + 0.1 * p[0];
    }
  };

  /** The stretch a of F = a I that solves @p residual(a) = 0 (Newton with a central-difference slope). */
  template <typename Residual>
  double
  solve_stretch(const Residual &residual)
  {
    double a = 1.;
    for (int k = 0; k < 100; ++k)
      {
        const double h = 1e-7, slope = (residual(a + h) - residual(a - h)) / (2. * h);
        const double step = residual(a) / slope;
        a -= step;
        if (std::abs(step) < 1e-15)
          break;
      }
    return a;
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    const std::map<types::boundary_id, double> pressures = {{1, 0.7}, {3, -0.4}, {5, 1.3}};
    {
      parallel::distributed::Triangulation<3> tria(env.comm);
      plastix_test::make_distorted_box(tria, {3, 2, 2}, Point<3>(1.5, 1., 1.), 0, 0.2, 11);
      for (const auto &cell : tria.active_cell_iterators())
        cell->set_material_id(0);
      DoFHandler<3>   dof_handler(tria);
      const IndexSet  relevant = plastix_test::distribute_q1_dofs(dof_handler);
      const IndexSet &owned    = dof_handler.locally_owned_dofs();

      // 1. The load stiffness against central differences of the force.
      HostVector u(owned, relevant, env.comm), v(owned, relevant, env.comm);
      VectorTools::interpolate(dof_handler, Deformation(), u);
      VectorTools::interpolate(dof_handler, Direction(), v);
      u.update_ghost_values();
      v.update_ghost_values();
      HostVector              force(owned, relevant, env.comm), plus(force), minus(force), Lv(force);
      plastix::MatrixEntries  stiffness;
      plastix::assemble_follower_pressure(dof_handler, pressures, u, force, &stiffness);
      for (std::size_t k = 0; k < stiffness.rows.size(); ++k)
        Lv(stiffness.rows[k]) += stiffness.values[k] * v(stiffness.columns[k]);
      Lv.compress(VectorOperation::add);
      const double h = 1e-6;
      HostVector   shifted(u);
      shifted.add(h, v);
      shifted.update_ghost_values();
      plastix::assemble_follower_pressure(dof_handler, pressures, shifted, plus, nullptr);
      shifted.add(-2. * h, v);
      shifted.update_ghost_values();
      plastix::assemble_follower_pressure(dof_handler, pressures, shifted, minus, nullptr);
      double largest_difference = 0, largest_value = 0;
      for (const auto i : owned)
        {
          const double difference_quotient = -(plus(i) - minus(i)) / (2. * h);
          largest_difference = std::max(largest_difference, std::abs(Lv(i) - difference_quotient));
          largest_value      = std::max(largest_value, std::abs(Lv(i)));
        }
      largest_difference = Utilities::MPI::max(largest_difference, env.comm);
      largest_value      = Utilities::MPI::max(largest_value, env.comm);
      env.pout << "load stiffness: |L v|_max " << largest_value << ", central differences differ by "
               << largest_difference << " (" << Utilities::MPI::sum(stiffness.rows.size(), env.comm)
               << " entries)\n";
      // The force against the deformed faces themselves: deal.II's MappingQEulerian maps the reference
      // cell to x = X + u, and its face values give the deformed normal n and area da, f_i = -int p N_i n da.
      {
        const MappingQEulerian<3, HostVector> deformed(1, dof_handler, u);
        FEFaceValues<3> face_values(deformed, dof_handler.get_fe(), QGauss<2>(2),
                                    update_values | update_normal_vectors | update_JxW_values);
        HostVector eulerian(owned, relevant, env.comm);
        std::vector<types::global_dof_index> dofs(dof_handler.get_fe().n_dofs_per_cell());
        for (const auto &cell : dof_handler.active_cell_iterators())
          if (cell->is_locally_owned())
            for (const auto f : cell->face_indices())
              if (cell->face(f)->at_boundary() && pressures.count(cell->face(f)->boundary_id()) > 0)
                {
                  face_values.reinit(cell, f);
                  cell->get_dof_indices(dofs);
                  const double p = pressures.at(cell->face(f)->boundary_id());
                  for (unsigned int q = 0; q < face_values.n_quadrature_points; ++q)
                    for (unsigned int i = 0; i < dofs.size(); ++i)
                      {
                        const unsigned int c = dof_handler.get_fe().system_to_component_index(i).first;
                        eulerian(dofs[i]) -= p * face_values.shape_value(i, q) * face_values.normal_vector(q)[c] *
                                             face_values.JxW(q);
                      }
                }
        eulerian.compress(VectorOperation::add);
        double force_difference = 0, force_scale = 0;
        for (const auto i : owned)
          {
            force_difference = std::max(force_difference, std::abs(force(i) - eulerian(i)));
            force_scale      = std::max(force_scale, std::abs(eulerian(i)));
          }
        force_difference = Utilities::MPI::max(force_difference, env.comm);
        force_scale      = Utilities::MPI::max(force_scale, env.comm);
        env.pout << "follower force: largest entry " << force_scale << ", differs from the deformed faces' by "
                 << force_difference << "\n";
        checker.check("force (Nanson, reference faces) vs -p n da on the deformed faces (MappingQEulerian), relative",
                      force_difference / force_scale, 1e-12);
      }
      checker.check_true("the load stiffness has entries", largest_value > 0.01);
      checker.check("load stiffness vs central differences of the force, relative", largest_difference / largest_value,
                    1e-7);

      // 2. The operator with that load stiffness.
      AffineConstraints<double> constraints(relevant);
      VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
      constraints.close();
      plastix::MechanicsOperator op;
      op.reinit(dof_handler, constraints, {{0, plastix::make_material(10., 0.3)}});
      HostVector v_free(op.get_partitioner());
      for (const auto i : owned)
        v_free(i) = constraints.is_constrained(i) ? 0. : v(i);
      plastix::DeviceVector src, before, after, diagonal_before, diagonal_after;
      op.initialize_dof_vector(src);
      src.copy_from_host(v_free);
      op.vmult(before, src);
      op.compute_diagonal(diagonal_before);
      checker.check_true("the elastic operator is symmetric", op.has_symmetric_tangent());
      op.set_load_stiffness(stiffness.rows, stiffness.columns, stiffness.values);
      checker.check_true("with a load stiffness the tangent is not symmetric", !op.has_symmetric_tangent());
      op.vmult(after, src);
      op.compute_diagonal(diagonal_after);
      // The host's L v_free and diag(L) on the free rows.
      HostVector Lv_free(owned, relevant, env.comm), diagonal_L(owned, relevant, env.comm);
      HostVector v_free_ghosted(owned, relevant, env.comm);
      for (const auto i : owned)
        v_free_ghosted(i) = v_free(i);
      v_free_ghosted.update_ghost_values();
      for (std::size_t k = 0; k < stiffness.rows.size(); ++k)
        {
          Lv_free(stiffness.rows[k]) += stiffness.values[k] * v_free_ghosted(stiffness.columns[k]);
          if (stiffness.rows[k] == stiffness.columns[k])
            diagonal_L(stiffness.rows[k]) += stiffness.values[k];
        }
      Lv_free.compress(VectorOperation::add);
      diagonal_L.compress(VectorOperation::add);
      HostVector before_host(op.get_partitioner()), after_host(op.get_partitioner()),
        diagonal_before_host(op.get_partitioner()), diagonal_after_host(op.get_partitioner());
      before.copy_to_host(before_host);
      after.copy_to_host(after_host);
      diagonal_before.copy_to_host(diagonal_before_host);
      diagonal_after.copy_to_host(diagonal_after_host);
      double product_error = 0, diagonal_error = 0, scale = 0;
      for (const auto i : owned)
        {
          const bool   fixed    = constraints.is_constrained(i);
          const double expected = fixed ? 0. : Lv_free(i);
          product_error = std::max(product_error, std::abs(after_host(i) - before_host(i) - expected));
          diagonal_error =
            std::max(diagonal_error,
                     std::abs(diagonal_after_host(i) - diagonal_before_host(i) - (fixed ? 0. : diagonal_L(i))));
          scale = std::max(scale, std::abs(Lv_free(i)));
        }
      product_error  = Utilities::MPI::max(product_error, env.comm);
      diagonal_error = Utilities::MPI::max(diagonal_error, env.comm);
      scale          = Utilities::MPI::max(scale, env.comm);
      checker.check("operator with L minus without: L v on free rows, 0 on clamped ones (relative)",
                    product_error / scale, 1e-13);
      checker.check("diagonal with L minus without: diag(L) (relative)", diagonal_error / scale, 1e-13);
      op.set_load_stiffness({}, {}, {});
      checker.check_true("no entries remove the load stiffness", op.has_symmetric_tangent());
      op.vmult(after, src);
      after.add(-1., before);
      checker.check("operator after the removal minus the elastic one", after.l2_norm(), 0.);
    }

    // 3. The cube under a pressure on its deformed and on its reference faces.
    const double E = 10., nu = 0.3, p = 4.;
    const double mu = E / (2. * (1. + nu)), lambda = E * nu / ((1. + nu) * (1. - 2. * nu));
    const double a_follower = solve_stretch(
      [&](const double a) { return (mu * (a * a - 1.) + 3. * lambda * std::log(a)) / (a * a * a) + p; });
    const double a_dead =
      solve_stretch([&](const double a) { return mu * (a - 1. / a) + 3. * lambda * std::log(a) / a + p; });
    for (const bool follows : {true, false})
      {
        parallel::distributed::Triangulation<3> tria(env.comm);
        plastix_test::make_distorted_box(tria, {2, 2, 2}, Point<3>(1., 1., 1.), 0, 0.25, 5);
        for (const auto &cell : tria.active_cell_iterators())
          cell->set_material_id(0);
        for (const auto &cell : tria.active_cell_iterators())
          if (cell->is_locally_owned() && cell->center().distance(Point<3>(1., 1., 1.)) < 0.5)
            cell->set_refine_flag();
        tria.execute_coarsening_and_refinement();
        DoFHandler<3>  dof_handler(tria);
        const IndexSet relevant = plastix_test::distribute_q1_dofs(dof_handler);
        AffineConstraints<double> constraints(relevant);
        DoFTools::make_hanging_node_constraints(dof_handler, constraints);
        for (unsigned int d = 0; d < 3; ++d)
          {
            std::vector<bool> component(3, false);
            component[d] = true;
            VectorTools::interpolate_boundary_values(dof_handler, 2 * d, Functions::ZeroFunction<3>(3), constraints,
                                                     ComponentMask(component));
          }
        constraints.close();
        plastix::MechanicsOperator op;
        op.reinit(dof_handler, constraints, {{0, plastix::make_hyperelastic_material(E, nu)}});
        op.enable_finite_strain();
        const std::map<types::boundary_id, double> loaded = {{1, p}, {3, p}, {5, p}};
        plastix::DeviceVector                      external_force;
        op.initialize_dof_vector(external_force);
        if (!follows)
          {
            HostVector host_force(op.get_partitioner());
            plastix::assemble_external_force(dof_handler, {}, loaded, Tensor<1, 3>(), host_force);
            external_force.copy_from_host(host_force);
            op.condense(external_force);
          }
        plastix::LinearSolverData solver_data;
        solver_data.type           = plastix::SolverType::gmres;
        solver_data.preconditioner = plastix::PreconditionerType::jacobi;
        plastix::LinearSolver linear_solver(solver_data);
        plastix::NewtonData   newton_data;
        newton_data.residual_tolerance = newton_data.displacement_tolerance = 1e-11;
        plastix::NewtonRaphson newton(
          op, external_force, linear_solver, [&](const bool new_step) { linear_solver.initialize(op, new_step); },
          newton_data);
        op.finite_strain().update(newton.u, newton.f_int);
        plastix::FollowerPressure follower(dof_handler, op, loaded);
        if (follows)
          newton.set_follower_pressure(follower);
        checker.check_true("the pressure loads the cube", newton.has_external_force());

        plastix::LoadSteppingData stepping_data;
        stepping_data.load_factors = {0.25, 0.5, 0.75, 1.};
        plastix::LoadStepping stepping(stepping_data);
        unsigned int          most_iterations = 0, cuts = 0;
        stepping.run(newton, [&](const plastix::LoadStepResult &step) {
          most_iterations = std::max(most_iterations, step.newton.iterations);
          cuts += step.cuts;
        });
        const std::string what = follows ? "follower" : "dead";
        checker.check_true(what + " pressure: no step is cut", cuts == 0);
        checker.check(what + " pressure: Newton iterations of the slowest step", most_iterations, 8);
        // u = (a - 1) X at every DoF (support points are the vertices).
        const double a = follows ? a_follower : a_dead;
        HostVector   u(op.get_partitioner());
        newton.u.copy_to_host(u);
        std::map<types::global_dof_index, Point<3>> support_points;
        DoFTools::map_dofs_to_support_points(MappingQ<3>(1), dof_handler, support_points);
        double largest_error = 0;
        for (const auto &[dof, point] : support_points)
          if (dof_handler.locally_owned_dofs().is_element(dof))
            {
              const unsigned int component = dof % 3;
              largest_error = std::max(largest_error, std::abs(u(dof) - (a - 1.) * point[component]));
            }
        largest_error = Utilities::MPI::max(largest_error, env.comm);
        env.pout << what << " pressure: stretch " << a << ", " << most_iterations
                 << " Newton iterations at most, largest error " << largest_error << "\n";
        checker.check(what + " pressure: u = (a - 1) X, largest error / |a - 1|", largest_error / std::abs(a - 1.),
                      1e-9);
      }
    env.pout << "stretches: follower " << a_follower << ", dead " << a_dead << "\n";
    checker.check_true("the follower and the dead pressure differ by more than 5 %",
                       std::abs(a_follower - a_dead) > 0.05 * std::abs(1. - a_dead));
  });
}
