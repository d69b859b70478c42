// Patch test: with u = A x + b prescribed on the whole boundary (A a general,
// non-symmetric 3x3 matrix), no body force and no tractions, the exact
// solution is the linear field itself, which trilinear elements reproduce on
// any mesh. The mesh here is curved (a smooth transformation of a box) and
// randomly distorted inside. For every strategy, cell kernel and element
// formulation (full integration, B-bar) the plastix solve (lift_inhomogeneities, set_constrained_values,
// LinearSolver cg + jacobi) must reproduce A x + b at every DoF to 1e-10
// relative, and MechanicsOperator::cell_average_strain must equal sym(A) in
// every cell. The same with the load factor 0.5 (lift_inhomogeneities and
// set_constrained_values with scale). Run with 1 and 2 ranks.

// Test: ranks 1 2
#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/function.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/solvers/linear_solver.h>

#include "q1_dofs.h"
#include "test_environment.h"

#include <iomanip>
#include <iostream>
#include <sstream>

using namespace dealii;

namespace
{
  // A general (non-symmetric) displacement gradient and translation.
  const double A[3][3] = {{1.0e-3, -2.5e-3, 0.7e-3}, {3.1e-3, -0.4e-3, 1.9e-3}, {-1.3e-3, 0.6e-3, 2.2e-3}};
  const double b[3]    = {0.01, -0.02, 0.005};

  double
  linear_field(const Point<3> &x, const unsigned int c)
  {
    return A[c][0] * x[0] + A[c][1] * x[1] + A[c][2] * x[2] + b[c];
  }

  class LinearField : public Function<3>
  {
  public:
    LinearField()
      : Function<3>(3)
    {}
    double
    value(const Point<3> &x, const unsigned int c) const override
    {
      return linear_field(x, c);
    }
  };
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    // Each check compares the largest value over the ranks.
    const auto check = [&](const std::string &what, const double local_value, const double tolerance) {
      checker.check(what, Utilities::MPI::max(local_value, env.comm), tolerance);
    };
    parallel::distributed::Triangulation<3> tria(env.comm);
    GridGenerator::subdivided_hyper_rectangle(tria, {3, 3, 2}, Point<3>(0, 0, 0), Point<3>(1.5, 1.2, 1.0));
    tria.refine_global(1);
    // Curved boundary and interior: a smooth map of the box, then random
    // displacement of the interior vertices.
    GridTools::transform(
      [](const Point<3> &p) {
        return Point<3>(p[0] + 0.1 * std::sin(2 * p[1]) * p[2], p[1] + 0.08 * p[0] * p[0] - 0.05 * p[2],
                        p[2] * (1 + 0.1 * p[0]) + 0.05 * std::cos(3 * p[1]));
      },
      tria);
    GridTools::distort_random(0.3, tria, true, 3);

    DoFHandler<3>          dof_handler(tria);
    const IndexSet         relevant = plastix_test::distribute_q1_dofs(dof_handler);
    const FiniteElement<3> &fe      = dof_handler.get_fe();
    AffineConstraints<double> constraints(relevant);
    VectorTools::interpolate_boundary_values(dof_handler, 0, LinearField(), constraints);
    constraints.close();
    // One material: with two, the stress of a linear field jumps at the
    // interface and the field is no longer in equilibrium.
    const plastix::MaterialTable materials = {{0, plastix::make_material(200e9, 0.3)}};
    env.pout << "DoFs " << dof_handler.n_dofs() << ", cells " << tria.n_global_active_cells() << ", constrained "
         << Utilities::MPI::sum(constraints.n_constraints(), env.comm) << " (summed over ranks), ranks "
         << Utilities::MPI::n_mpi_processes(env.comm) << "\n";

    // Exact nodal values: component and vertex of every DoF of the owned cells.
    std::map<types::global_dof_index, double> exact;
    {
      std::vector<types::global_dof_index> dofs(fe.n_dofs_per_cell());
      for (const auto &cell : dof_handler.active_cell_iterators())
        if (cell->is_locally_owned())
          {
            cell->get_dof_indices(dofs);
            for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
              {
                const auto [component, vertex] = fe.system_to_component_index(i);
                exact[dofs[i]]                  = linear_field(cell->vertex(vertex), component);
              }
          }
    }
    double sym_A[6] = {A[0][0], A[1][1], A[2][2], 0.5 * (A[1][2] + A[2][1]), 0.5 * (A[0][2] + A[2][0]),
                       0.5 * (A[0][1] + A[1][0])};
    double sym_norm = 0;
    for (const double v : sym_A)
      sym_norm = std::max(sym_norm, std::abs(v));

    for (const auto strategy :
         {plastix::backend::Strategy::ebe_atomic, plastix::backend::Strategy::ebe_colored, plastix::backend::Strategy::dbd})
      for (const auto kernel : {plastix::backend::CellKernel::stored_geometry,
                                plastix::backend::CellKernel::geometry_on_the_fly,
                                plastix::backend::CellKernel::element_matrix})
        for (const auto formulation :
             {plastix::backend::ElementFormulation::full, plastix::backend::ElementFormulation::bbar})
        for (const double load_factor : {1., 0.5})
          {
            if (load_factor != 1. && !(strategy == plastix::backend::Strategy::ebe_atomic &&
                                       kernel == plastix::backend::CellKernel::stored_geometry))
              continue;
            std::ostringstream variant;
            variant << plastix::backend::to_string(strategy) << ", " << plastix::backend::to_string(kernel) << ", "
                    << plastix::backend::to_string(formulation) << ", load factor " << load_factor;
            plastix::MechanicsOperator op;
            op.reinit(dof_handler, constraints, materials,
                      {strategy, kernel, plastix::backend::ThreadMapping::automatic, formulation});
            plastix::DeviceVector rhs, u;
            op.initialize_dof_vector(rhs);
            op.initialize_dof_vector(u);
            op.lift_inhomogeneities(rhs, load_factor);
            op.set_constrained_values(u, load_factor);
            plastix::LinearSolverData parameters;
            parameters.type               = plastix::SolverType::cg;
            parameters.preconditioner     = plastix::PreconditionerType::jacobi;
            parameters.relative_tolerance = 1e-14;
            parameters.max_iterations     = 5000;
            plastix::LinearSolver solver(parameters);
            solver.initialize(op);
            const auto statistics = solver.solve(u, rhs);

            LinearAlgebra::distributed::Vector<double> host(op.get_partitioner());
            u.copy_to_host(host);
            host.update_ghost_values();
            double error = 0, scale = 0;
            for (const auto &[dof, value] : exact)
              {
                error = std::max(error, std::abs(host(dof) - load_factor * value));
                scale = std::max(scale, std::abs(load_factor * value));
              }
            check(variant.str() + ": max |u_i - (A x_i + b)| / max |A x + b| over all DoFs (" +
                    std::to_string(statistics.iterations) + " CG it.)",
                  error / scale, 1e-10);

            const std::vector<double> strain = op.cell_average_strain(u);
            double                    strain_error = strain.size() == 6 * tria.n_locally_owned_active_cells() ? 0. : 1.;
            for (std::size_t k = 0; k < strain.size(); ++k)
              strain_error = std::max(strain_error, std::abs(strain[k] - load_factor * sym_A[k % 6]));
            check(variant.str() + ": max over cells |cell_average_strain - sym(A)| / max |sym(A)|",
                  strain_error / (load_factor * sym_norm), 1e-10);
          }
  });
}
