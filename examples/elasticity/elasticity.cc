// A deal.II program that solves linear elasticity with the plastix device
// operator: build the mesh, DoFs and constraints with deal.II as usual, hand
// them to plastix::MechanicsOperator, and solve with deal.II's SolverCG on
// plastix::DeviceVector (the iteration runs on the GPU in CUDA builds).
#include <deal.II/base/function.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/linear_operator.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/runtime.h>

#include <iostream>

int
main(int argc, char **argv)
{
  using namespace dealii;
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  plastix::Runtime                 runtime; // starts Kokkos (and picks the GPU)

  parallel::distributed::Triangulation<3> tria(MPI_COMM_WORLD);
  GridGenerator::subdivided_hyper_rectangle(tria, {8, 2, 2}, Point<3>(), Point<3>(8, 1, 1), true);
  for (const auto &cell : tria.active_cell_iterators())
    cell->set_material_id(0); // colorize=true also numbers the material ids
  tria.refine_global(2);
  const FESystem<3> fe(FE_Q<3>(1), 3);
  DoFHandler<3>     dof_handler(tria);
  dof_handler.distribute_dofs(fe);

  IndexSet relevant;
  DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
  AffineConstraints<double> constraints(relevant);
  // Clamp x = 0, pull x = 8 by 1 mm.
  VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
  VectorTools::interpolate_boundary_values(dof_handler, 1, Functions::ConstantFunction<3>(1e-3, 3), constraints,
                                           fe.component_mask(FEValuesExtractors::Scalar(0)));
  constraints.close();

  plastix::MechanicsOperator op;
  op.reinit(dof_handler, constraints, {{0, plastix::make_material(200e9, 0.3)}},
            {plastix::backend::Strategy::ebe_atomic, plastix::backend::CellKernel::stored_geometry});

  plastix::DeviceVector u, rhs;
  op.initialize_dof_vector(u);
  op.initialize_dof_vector(rhs);
  op.lift_inhomogeneities(rhs); // prescribed displacements -> right-hand side
  op.set_constrained_values(u);

  DiagonalMatrix<plastix::DeviceVector> jacobi;
  op.compute_inverse_diagonal(jacobi.get_vector());
  SolverControl                  control(10000, 1e-10 * rhs.l2_norm());
  SolverCG<plastix::DeviceVector> cg(control);
  const auto A = linear_operator<plastix::DeviceVector>(op);
  cg.solve(A, u, rhs, jacobi);

  const double norm = u.l2_norm(); // collective: every rank calls it
  if (Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
    std::cout << "plastix example: " << dof_handler.n_dofs() << " DoFs on " << plastix::Runtime::description()
              << ", CG iterations " << control.last_step() << ", |u| = " << norm << std::endl;
  return 0;
}
