// MechanicsOperator on deal.II's own vectors in MemorySpace::Default (deal.II
// 9.5 and later; the host memory space of a deal.II without a device Kokkos,
// device memory otherwise), on a distorted, adaptively refined mesh with
// hanging-node and Dirichlet constraints and two materials, 1 and 2 MPI ranks:
//
//  1. vmult() against the operator on plastix's DeviceVector (the same
//     kernels: equal to round-off of the partial sums' order), for vectors of
//     the operator's layout (in place), of the locally relevant DoFs (a
//     ghost set of deal.II's choice) and without ghosts (through copies where
//     the layout is not the operator's); vmult_add(); the source
//     keeps its ghost state (not ghosted before: not ghosted and its owned
//     entries unchanged after; ghosted before: still ghosted); the destination
//     is left out of ghost mode; the diagonal; a vector of another size is
//     refused with a message.
//  2. deal.II's SolverCG with deal.II's PreconditionChebyshev around the
//     operator, and through LinearOperator and inverse_operator(), on
//     MemorySpace::Default vectors only (LinearOperator given the operator's
//     layout: deal.II sizes such vectors as serial ones): the solution of A x = A x_exact
//     to the solver's tolerance, and the same iteration count as CG with
//     Chebyshev on DeviceVectors.

// Test: ranks 1 2 deal.II 9.5
#include <deal.II/base/function.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/linear_operator.h>
#include <deal.II/lac/packaged_operation.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>

#include "box_mesh.h"
#include "q1_dofs.h"
#include "test_environment.h"

#include <cmath>
#include <stdexcept>
#include <string>

using namespace dealii;
using HostVector    = LinearAlgebra::distributed::Vector<double, MemorySpace::Host>;
using DefaultVector = plastix::MechanicsOperator::DefaultMemoryVector;

namespace
{
  /** The owned entries of @p vector on the host (with its layout). */
  HostVector
  to_host(const DefaultVector &vector)
  {
    HostVector host(vector.get_partitioner());
    host.import_elements(vector, VectorOperation::insert);
    return host;
  }

  /** ||a - b|| / ||b|| over the owned entries. */
  double
  relative_difference(const DefaultVector &a, const HostVector &b)
  {
    HostVector difference = to_host(a);
    difference.add(-1., b);
    return difference.l2_norm() / b.l2_norm();
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    parallel::distributed::Triangulation<3> tria(env.comm);
    plastix_test::make_distorted_box(tria, {5, 4, 3}, Point<3>(2.5, 1.5, 1.), 0, 0.2, 11);
    for (const auto &cell : tria.active_cell_iterators())
      if (cell->is_locally_owned() && cell->center()[0] < 1.3 && cell->center()[1] < 0.8)
        cell->set_refine_flag();
    tria.execute_coarsening_and_refinement();
    for (const auto &cell : tria.active_cell_iterators())
      cell->set_material_id(cell->center()[0] > 1.2 ? 3 : 0);

    DoFHandler<3>   dof_handler(tria);
    const IndexSet  relevant = plastix_test::distribute_q1_dofs(dof_handler);
    const IndexSet &owned    = dof_handler.locally_owned_dofs();

    AffineConstraints<double> constraints(relevant);
    DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
    constraints.close();

    const plastix::MaterialTable materials = {{0, plastix::make_material(200e9, 0.3)},
                                              {3, plastix::make_material(70e9, 0.35)}};
    plastix::MechanicsOperator   op;
    op.reinit(dof_handler, constraints, materials);
    env.pout << "DoFs " << dof_handler.n_dofs() << ", hanging-node lines " << op.n_hanging_node_constraints()
             << ", " << op.description() << "\n";
    checker.check("the mesh has hanging nodes", op.n_hanging_node_constraints() > 0 ? 0. : 1., 0.);

    // A source that is zero on the constrained DoFs (x_exact of the solve).
    HostVector x_host(op.get_partitioner());
    for (const auto i : owned)
      x_host(i) = constraints.is_constrained(i) ? 0. : std::sin(1.7 * i + 0.3) + 0.25 * std::cos(0.11 * i);

    // The reference: the operator on DeviceVectors.
    plastix::DeviceVector x_device, y_device;
    op.initialize_dof_vector(x_device);
    x_device.copy_from_host(x_host);
    op.vmult(y_device, x_device);
    HostVector reference(op.get_partitioner());
    y_device.copy_to_host(reference);

    // ---- 1. vmult on deal.II's vectors ----
    DefaultVector x, y;
    op.initialize_dof_vector(x);
    op.initialize_dof_vector(y);
    x.import_elements(x_host, VectorOperation::insert);
    checker.check_true("initialize_dof_vector(): the operator's partitioner",
                       x.get_partitioner().get() == op.get_partitioner().get());
    op.vmult(y, x);
    checker.check("vmult() in place vs DeviceVector", relative_difference(y, reference), 1e-14);
    checker.check_true("the source is not left ghosted", !x.has_ghost_elements());
    checker.check("the source's owned entries unchanged", relative_difference(x, x_host), 0.);
    DefaultVector y_add(y);
    op.vmult_add(y_add, x);
    HostVector twice = reference;
    twice *= 2.;
    checker.check("vmult_add() in place", relative_difference(y_add, twice), 1e-14);
    op.Tvmult(y_add, x);
    checker.check("Tvmult() = vmult()", relative_difference(y_add, reference), 1e-14);

    x.update_ghost_values();
    op.vmult(y, x);
    checker.check_true("a ghosted source stays ghosted", x.has_ghost_elements() || env.n_ranks == 1);
    checker.check("vmult() of a ghosted source", relative_difference(y, reference), 1e-14);
    x.zero_out_ghost_values();

    // Vectors of the locally relevant DoFs: deal.II's own ghost set, not the
    // operator's (through copies where they differ).
    DefaultVector x_relevant(owned, relevant, env.comm), y_relevant(owned, relevant, env.comm);
    {
      HostVector x_host_relevant(owned, relevant, env.comm);
      for (const auto i : owned)
        x_host_relevant(i) = x_host(i);
      x_relevant.import_elements(x_host_relevant, VectorOperation::insert);
    }
    y_relevant.update_ghost_values();
    op.vmult(y_relevant, x_relevant);
    checker.check_true("the destination leaves ghost mode", !y_relevant.has_ghost_elements());
    checker.check("vmult() on the locally relevant layout", relative_difference(y_relevant, reference), 1e-14);
    op.vmult_add(y_relevant, x_relevant);
    checker.check("vmult_add() on the locally relevant layout", relative_difference(y_relevant, twice), 1e-14);

    // Vectors without ghosts (on 2 ranks another layout than the operator's).
    {
      DefaultVector x_owned(owned, env.comm), y_owned(owned, env.comm);
      HostVector    x_host_owned(owned, env.comm);
      for (const auto i : owned)
        x_host_owned(i) = x_host(i);
      x_owned.import_elements(x_host_owned, VectorOperation::insert);
      op.vmult(y_owned, x_owned);
      checker.check("vmult() on vectors without ghosts", relative_difference(y_owned, reference), 1e-14);
    }

    DefaultVector diagonal;
    op.compute_diagonal(diagonal);
    plastix::DeviceVector diagonal_device;
    op.compute_diagonal(diagonal_device);
    HostVector diagonal_reference(op.get_partitioner());
    diagonal_device.copy_to_host(diagonal_reference);
    checker.check("compute_diagonal()", relative_difference(diagonal, diagonal_reference), 0.);

    {
      DefaultVector wrong(dof_handler.n_dofs() + 3);
      std::string   message;
      try
        {
          op.vmult(wrong, x);
        }
      catch (const std::invalid_argument &error)
        {
          message = error.what();
        }
      checker.check_true("a vector of another size is refused (" + message + ")",
                         message.find("initialize_dof_vector") != std::string::npos);
    }

    // ---- 2. deal.II's solvers on deal.II's vectors ----
    DefaultVector b, solution;
    op.initialize_dof_vector(b);
    op.initialize_dof_vector(solution);
    op.vmult(b, x);

    using Chebyshev = PreconditionChebyshev<plastix::MechanicsOperator, DefaultVector, DiagonalMatrix<DefaultVector>>;
    Chebyshev::AdditionalData chebyshev_data;
    chebyshev_data.preconditioner = std::make_shared<DiagonalMatrix<DefaultVector>>();
    op.compute_diagonal(chebyshev_data.preconditioner->get_vector());
    {
      // The inverse diagonal, on the host and back (the test fills it where
      // deal.II's vectors live).
      HostVector inverse = to_host(chebyshev_data.preconditioner->get_vector());
      for (unsigned int i = 0; i < inverse.locally_owned_size(); ++i)
        inverse.local_element(i) = 1. / inverse.local_element(i);
      chebyshev_data.preconditioner->get_vector().import_elements(inverse, VectorOperation::insert);
    }
    chebyshev_data.degree          = 4;
    chebyshev_data.smoothing_range = 20.;
    Chebyshev chebyshev;
    chebyshev.initialize(op, chebyshev_data);

    SolverControl           control(2000, 1e-10 * b.l2_norm());
    SolverCG<DefaultVector> cg(control);
    cg.solve(op, solution, b, chebyshev);
    const unsigned int iterations_default = control.last_step();
    checker.check("SolverCG + PreconditionChebyshev on deal.II's vectors: x against x_exact",
                  relative_difference(solution, x_host), 1e-7);

    // The same solve on DeviceVectors: the same iteration count.
    {
      using DeviceChebyshev =
        PreconditionChebyshev<plastix::MechanicsOperator, plastix::DeviceVector, DiagonalMatrix<plastix::DeviceVector>>;
      DeviceChebyshev::AdditionalData device_data;
      device_data.preconditioner = std::make_shared<DiagonalMatrix<plastix::DeviceVector>>();
      op.compute_inverse_diagonal(device_data.preconditioner->get_vector());
      device_data.degree          = 4;
      device_data.smoothing_range = 20.;
      DeviceChebyshev device_chebyshev;
      device_chebyshev.initialize(op, device_data);
      plastix::DeviceVector b_device, solution_device;
      op.initialize_dof_vector(b_device);
      op.initialize_dof_vector(solution_device);
      op.vmult(b_device, x_device);
      SolverControl                   device_control(2000, 1e-10 * b_device.l2_norm());
      SolverCG<plastix::DeviceVector> device_cg(device_control);
      device_cg.solve(op, solution_device, b_device, device_chebyshev);
      env.pout << "CG iterations: " << iterations_default << " on deal.II's vectors, " << device_control.last_step()
               << " on DeviceVectors\n";
      checker.check("the same iteration count as on DeviceVectors",
                    std::abs(double(iterations_default) - double(device_control.last_step())), 1.);
    }

    // LinearOperator and inverse_operator().
    {
      SolverControl           inverse_control(2000, 1e-10 * b.l2_norm());
      SolverCG<DefaultVector> inverse_cg(inverse_control);
      // deal.II's LinearOperator sizes vectors of MemorySpace::Default as
      // serial ones (its ReinitHelper knows MemorySpace::Host only): give it
      // the operator's layout.
      auto A                 = linear_operator<DefaultVector>(op);
      A.reinit_range_vector  = [&op](DefaultVector &vector, const bool) { op.initialize_dof_vector(vector); };
      A.reinit_domain_vector = A.reinit_range_vector;
      const auto A_inverse   = inverse_operator(A, inverse_cg, chebyshev);
      DefaultVector           from_operator;
      op.initialize_dof_vector(from_operator);
      from_operator = A_inverse * b;
      checker.check("inverse_operator(linear_operator(op)) * b against x_exact",
                    relative_difference(from_operator, x_host), 1e-7);
      DefaultVector applied;
      op.initialize_dof_vector(applied);
      applied = A * x;
      checker.check("linear_operator(op) * x", relative_difference(applied, reference), 1e-14);
    }
  });
}
