// Convergence of the default cantilever (prm/default.prm: 10 x 1 x 1 steel
// beam, E = 200e9, nu = 0.3, clamped at x = 0, shear traction 1e6 on the end
// face x = 10) to Timoshenko beam theory. The run goes through the same
// library path as the application (create_mesh, make_dirichlet_constraints,
// make_material_table, assemble_external_force, lift_inhomogeneities,
// LinearSolver) on meshes refined in all directions (Q1 locks in bending, so
// the aspect ratio stays 1): 10x1x1 coarse cells refined 1, 2, 3, 4 times
// (80 to 40960 cells).
//
// Tip deflection: the area average of u_z over the end face (FEFaceValues).
// Reference: Timoshenko beam theory,
//   w = F L^3 / (3 E I) + F L / (kappa G A),  F = 1e6 N, I = h^4/12, A = h^2,
//   G = E / (2 (1 + nu)), kappa = 5/6,
// i.e. 0.02 + 1.5600e-4 = 0.0201560 m. Checked: the error decreases
// monotonically and the finest error is below 2 %; the order observed from
// the last three levels lies in [1.4, 2.6] (the tip deflection is a
// compliance, O(h^2)); the Richardson extrapolation is within 1 % of
// Timoshenko; the result is independent of the strategy. Then near
// incompressibility (nu = 0.4999, refinements 1-3, CG with ML AMG of the
// same formulation): full integration locks (finest error > 30 %), B-bar
// (mean dilatation) converges from below to within 3 % of the nu = 0.4999
// beam value, 15 times closer than full integration, with successive
// differences that at least halve. Serial.

// Test: labels long
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/runtime.h>
#include <plastix/solvers/linear_solver.h>

#include "loads.h"
#include "mesh_generation.h"
#include "parameters.h"

#include "test_environment.h"

#include <cmath>
#include <cstdio>
#include <iostream>

using namespace dealii;

namespace
{
  struct Result
  {
    unsigned int refinements;
    unsigned long long n_cells, n_dofs;
    unsigned int iterations;
    double       tip;
    double       seconds;
  };

  Result
  solve(const unsigned int                     refinements,
        const plastix::backend::Strategy       strategy,
        const MPI_Comm                         comm,
        const double                           poisson_ratio = 0.3,
        const plastix::backend::ElementFormulation formulation = plastix::backend::ElementFormulation::full)
  {
    Timer              timer;
    plastix::Parameters p;
    p.mesh.geometry           = plastix::GeometryType::cantilever;
    p.mesh.lower_corner       = Point<3>(0, 0, 0);
    p.mesh.upper_corner       = Point<3>(10, 1, 1);
    p.mesh.subdivisions       = {10, 1, 1};
    p.mesh.global_refinements = refinements;
    p.materials.default_material.young_modulus = 200e9;
    p.materials.default_material.poisson_ratio = poisson_ratio;
    p.boundary.dirichlet_text                  = "0: xyz = 0, 0, 0";
    p.boundary.traction_text                   = "1: 0, 0, -1e6";
    p.solver.type                              = plastix::SolverType::cg;
    // Near incompressibility: ML AMG of the assembled matrix of the same formulation.
    p.solver.preconditioner = poisson_ratio > 0.49 ? plastix::PreconditionerType::amg :
                                                     plastix::PreconditionerType::chebyshev;
    p.solver.relative_tolerance                = 1e-10;
    p.solver.max_iterations                    = 100000;
    p.check();

    parallel::distributed::Triangulation<3> triangulation(comm);
    plastix::create_mesh(p.mesh, triangulation);
    const FESystem<3> fe(FE_Q<3>(1), 3);
    DoFHandler<3>     dof_handler(triangulation);
    dof_handler.distribute_dofs(fe);
    AffineConstraints<double> constraints;
    plastix::make_dirichlet_constraints(dof_handler, p.boundary, constraints);
    const auto                 materials = plastix::make_material_table(dof_handler, p.materials);
    plastix::MechanicsOperator op;
    const plastix::MechanicsOperator::AdditionalData data(strategy, plastix::backend::CellKernel::stored_geometry,
                                                          plastix::backend::ThreadMapping::automatic, formulation);
    op.reinit(dof_handler, constraints, materials, data);

    LinearAlgebra::distributed::Vector<double> force(op.get_partitioner());
    plastix::assemble_external_force(dof_handler, p.boundary, force);
    plastix::DeviceVector b, x;
    op.initialize_dof_vector(b);
    op.initialize_dof_vector(x);
    b.copy_from_host(force);
    op.lift_inhomogeneities(b);
    op.set_constrained_values(x);
    plastix::LinearSolver solver(p.solver);
    solver.initialize(op, dof_handler, materials, p.boundary.dirichlet_boundaries(), true);
    const auto statistics = solver.solve(x, b);

    LinearAlgebra::distributed::Vector<double> u(op.get_partitioner());
    x.copy_to_host(u);
    u.update_ghost_values();
    const MappingQ<3>   mapping(1);
    const QGauss<2>     quadrature(2);
    FEFaceValues<3>     fe_face_values(mapping, fe, quadrature, update_values | update_JxW_values);
    std::vector<Vector<double>> values(quadrature.size(), Vector<double>(3));
    double              integral = 0, area = 0;
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        for (const auto f : cell->face_indices())
          if (cell->face(f)->at_boundary() && cell->face(f)->boundary_id() == 1)
            {
              fe_face_values.reinit(cell, f);
              fe_face_values.get_function_values(u, values);
              for (unsigned int q = 0; q < quadrature.size(); ++q)
                {
                  integral += values[q][2] * fe_face_values.JxW(q);
                  area += fe_face_values.JxW(q);
                }
            }
    integral = Utilities::MPI::sum(integral, comm);
    area     = Utilities::MPI::sum(area, comm);
    if (std::abs(area - 1.) > 1e-12)
      throw std::runtime_error("end face area " + std::to_string(area) + " instead of 1");
    return {refinements, triangulation.n_global_active_cells(), dof_handler.n_dofs(), statistics.iterations,
            -integral / area, timer.wall_time()};
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    const double F = 1e6, L = 10, h = 1, E = 200e9, nu = 0.3;
    const double I = h * h * h * h / 12, area = h * h, G = E / (2 * (1 + nu)), kappa = 5. / 6.;
    const double bending = F * L * L * L / (3 * E * I), shear = F * L / (kappa * G * area);
    const double timoshenko = bending + shear;
    if (env.root)
      std::printf("Timoshenko: F L^3/(3 E I) + F L/(kappa G A) = %.6e + %.6e = %.6e m (kappa = 5/6)\n", bending,
                  shear, timoshenko);

    std::vector<Result> results;
    for (const unsigned int r : {1u, 2u, 3u, 4u})
      results.push_back(solve(r, plastix::backend::Strategy::ebe_atomic, env.comm));
    if (env.root)
      {
        std::printf("%5s %8s %8s %6s %14s %10s %14s %7s %8s\n", "refs", "cells", "DoFs", "CG it", "tip w [m]",
                    "error", "w - w_prev", "order", "time [s]");
        for (std::size_t k = 0; k < results.size(); ++k)
          {
            const double error = std::abs(results[k].tip - timoshenko) / timoshenko;
            char         difference[32] = "-", order[16] = "-";
            if (k > 0)
              std::snprintf(difference, sizeof(difference), "%.4e", results[k].tip - results[k - 1].tip);
            if (k > 1)
              std::snprintf(order, sizeof(order), "%.2f",
                            std::log2((results[k - 1].tip - results[k - 2].tip) / (results[k].tip - results[k - 1].tip)));
            std::printf("%5u %8llu %8llu %6u %14.7e %9.3f%% %14s %7s %8.2f\n", results[k].refinements,
                        results[k].n_cells, results[k].n_dofs, results[k].iterations, results[k].tip, 100 * error,
                        difference, order, results[k].seconds);
          }
        std::printf("(error: relative to Timoshenko; order: log2 of the ratio of successive differences)\n");
      }
    bool monotone = true;
    for (std::size_t k = 1; k < results.size(); ++k)
      monotone = monotone && std::abs(results[k].tip - timoshenko) < std::abs(results[k - 1].tip - timoshenko);
    checker.check_true("error decreases monotonically with refinement", monotone);
    bool from_below = true;
    for (const auto &r : results)
      from_below = from_below && r.tip < timoshenko && r.tip > 0;
    checker.check_true("every tip deflection is positive (downwards) and below the beam value (Q1 is too stiff)", from_below);
    const double finest_error = std::abs(results.back().tip - timoshenko) / timoshenko;
    checker.check_true("finest error " + std::to_string(100 * finest_error) + " % < 2 %", finest_error < 0.02);
    // Successive differences shrink by about 4 (O(h^2)); robust against the
    // small difference between the 3D solution and beam theory.
    const std::size_t n  = results.size();
    const double      d1 = results[n - 2].tip - results[n - 3].tip, d2 = results[n - 1].tip - results[n - 2].tip;
    const double order = std::log2(d1 / d2);
    checker.check_true("observed order from successive differences " + std::to_string(order) + " in [1.4, 2.6]",
          order > 1.4 && order < 2.6);
    const double extrapolated = results[n - 1].tip + d2 / (std::pow(2., order) - 1);
    if (env.root)
      std::printf("  Richardson extrapolation %.7e m, %.3f %% from Timoshenko\n", extrapolated,
                  100 * (extrapolated - timoshenko) / timoshenko);
    checker.check_true("extrapolated deflection within 1 % of Timoshenko", std::abs(extrapolated - timoshenko) / timoshenko < 0.01);

    // The second level with the other strategies gives the same deflection.
    for (const auto strategy : {plastix::backend::Strategy::ebe_colored, plastix::backend::Strategy::dbd})
      {
        const Result r = solve(results[1].refinements, strategy, env.comm);
        const double d = std::abs(r.tip - results[1].tip) / results[1].tip;
        char        text[160];
        std::snprintf(text, sizeof(text), ": tip deflection (%u refinements) equal to ebe atomic (%.2e relative < 1e-8)",
                      r.refinements, d);
        checker.check_true(plastix::backend::to_string(strategy) + text, d < 1e-8);
      }

    // Near incompressibility (nu = 0.4999, lambda / mu = 5000): full
    // integration locks (volumetric locking, the tip deflection far below
    // the beam value and hardly improving); B-bar converges at the rate of
    // the compressible beam to the beam value of nu = 0.4999.
    {
      const double nu_i = 0.4999, G_i = E / (2 * (1 + nu_i));
      const double timoshenko_i = bending + F * L / (kappa * G_i * area);
      if (env.root)
        std::printf("\nnu = %.4f: Timoshenko %.6e m\n%5s %14s %10s %7s %14s %10s %7s\n", nu_i, timoshenko_i, "refs",
                    "full w [m]", "error", "CG it", "B-bar w [m]", "error", "CG it");
      std::vector<Result> full, bbar;
      for (const unsigned int r : {1u, 2u, 3u})
        {
          full.push_back(solve(r, plastix::backend::Strategy::ebe_atomic, env.comm, nu_i,
                               plastix::backend::ElementFormulation::full));
          bbar.push_back(solve(r, plastix::backend::Strategy::ebe_atomic, env.comm, nu_i,
                               plastix::backend::ElementFormulation::bbar));
          if (env.root)
            std::printf("%5u %14.7e %9.3f%% %7u %14.7e %9.3f%% %7u\n", r, full.back().tip,
                        100 * (full.back().tip - timoshenko_i) / timoshenko_i, full.back().iterations, bbar.back().tip,
                        100 * (bbar.back().tip - timoshenko_i) / timoshenko_i, bbar.back().iterations);
        }
      const double full_error = std::abs(full.back().tip - timoshenko_i) / timoshenko_i;
      const double bbar_error = std::abs(bbar.back().tip - timoshenko_i) / timoshenko_i;
      checker.check_true("nu = 0.4999, full integration locks: finest error " + std::to_string(100 * full_error) +
                           " % > 30 %",
                         full_error > 0.3);
      checker.check_true("nu = 0.4999, B-bar: finest error " + std::to_string(100 * bbar_error) + " % < 3 %",
                         bbar_error < 0.03);
      checker.check_true("nu = 0.4999: B-bar error 15 times below full integration's on the finest mesh",
                         bbar_error * 15 < full_error);
      // Pre-asymptotic on these meshes (the compressible beam's order at
      // the same levels is about 1.5-1.8): ask for convergence from below
      // with successive differences that at least halve (order > 1).
      const double d1 = bbar[1].tip - bbar[0].tip, d2 = bbar[2].tip - bbar[1].tip, order_i = std::log2(d1 / d2);
      checker.check_true("nu = 0.4999, B-bar: deflections increase towards the beam value with order " +
                           std::to_string(order_i) + " > 1",
                         d1 > 0 && d2 > 0 && bbar[2].tip < timoshenko_i && order_i > 1);
    }
  });
}
