// A deal.II program that runs J2 elastoplasticity with plastix on its own
// mesh, constraints and loads: the same load stepping with step cutting
// (plastix::LoadStepping), Newton-Raphson (plastix::NewtonRaphson) and linear
// solver as the plastix application. A cube of 2 x 2 x 2 cells with symmetry planes x = 0, y = 0,
// z = 0 under a uniaxial traction of 600 MPa in three steps (E 200 GPa, nu 0.3,
// yield stress 450 MPa, isotropic hardening 66 GPa): the state is homogeneous,
// so the top face's displacement is the closed form, which the program checks.
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
#include <plastix/core/runtime.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/load_stepping.h>
#include <plastix/solvers/newton.h>

#include <cmath>
#include <iostream>

int
main(int argc, char **argv)
{
  using namespace dealii;
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  plastix::Runtime                 runtime; // starts Kokkos (and picks the GPU)
  const MPI_Comm                   comm = MPI_COMM_WORLD;
  const bool                       root = Utilities::MPI::this_mpi_process(comm) == 0;

  // Mesh, DoFs and constraints: deal.II as usual (colorize: faces x-, x+,
  // y-, y+, z-, z+ get boundary ids 0 to 5).
  parallel::distributed::Triangulation<3> tria(comm);
  GridGenerator::hyper_rectangle(tria, Point<3>(), Point<3>(1, 1, 1), true);
  for (const auto &cell : tria.active_cell_iterators())
    cell->set_material_id(0);
  tria.refine_global(1);
  const FESystem<3> fe(FE_Q<3>(1), 3);
  DoFHandler<3>     dof_handler(tria);
  dof_handler.distribute_dofs(fe);
  IndexSet relevant;
  DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
  AffineConstraints<double> constraints(relevant);
  for (const unsigned int d : {0u, 1u, 2u}) // symmetry planes x = 0, y = 0, z = 0
    VectorTools::interpolate_boundary_values(dof_handler, 2 * d, Functions::ZeroFunction<3>(3), constraints,
                                             fe.component_mask(FEValuesExtractors::Scalar(d)));
  constraints.close();

  // The operator with an elastoplastic material and its J2 state (the
  // Gauss-point history, owned by the operator), and the load.
  plastix::MechanicsOperator op;
  op.reinit(dof_handler, constraints, {{0, plastix::make_material(200e9, 0.3, 450e6, 66e9)}});
  plastix::PlasticityState &state = op.enable_plasticity();
  LinearAlgebra::distributed::Vector<double> force(op.get_partitioner());
  plastix::assemble_external_force(dof_handler, {{5, Tensor<1, 3>({0., 0., 600e6})}}, {}, Tensor<1, 3>(), force);
  plastix::DeviceVector external_force;
  op.initialize_dof_vector(external_force);
  external_force.copy_from_host(force);

  // The linear solver and Newton-Raphson of the application.
  plastix::LinearSolverData solver_data;
  solver_data.preconditioner = plastix::PreconditionerType::jacobi;
  plastix::LinearSolver linear_solver(solver_data);
  plastix::NewtonData   newton_data;
  newton_data.residual_tolerance = newton_data.displacement_tolerance = 1e-12;
  plastix::NewtonRaphson newton(op, external_force, linear_solver,
                                [&](const bool new_load_step) { linear_solver.initialize(op, new_load_step); },
                                newton_data);
  state.update(newton.u, newton.f_int); // the stress-free initial state

  // The application's load stepping: three steps to the full load (a step
  // that fails is retried with half the increment).
  plastix::LoadSteppingData stepping_data;
  stepping_data.load_factors = {1. / 3, 2. / 3, 1.};
  plastix::LoadStepping stepping(stepping_data);
  int                   failures = 0;
  try
    {
      stepping.run(newton, [&](const plastix::LoadStepResult &result) {
        const double lambda = stepping.load_factor();
        // The top face's vertical displacement against the closed form.
        LinearAlgebra::distributed::Vector<double> u(op.get_partitioner());
        newton.u.copy_to_host(u);
        double top_uz = 0;
        for (const auto &cell : dof_handler.active_cell_iterators())
          if (cell->is_locally_owned())
            for (const auto v : cell->vertex_indices())
              if (std::abs(cell->vertex(v)[2] - 1.) < 1e-12)
                top_uz = std::max(top_uz, u(cell->vertex_dof_index(v, 2)));
        top_uz              = Utilities::MPI::max(top_uz, comm);
        const double stress = 600e6 * lambda;
        const double exact  = stress / 200e9 + std::max(0., stress - 450e6) / 66e9;
        const bool   ok     = std::abs(top_uz - exact) <= 1e-8 * exact;
        failures += ok ? 0 : 1;
        if (root)
          std::cout << "plastix example: load factor " << lambda << ", " << result.newton.iterations << " Newton iterations, "
                    << result.newton.plastic.n_plastic_points << " plastic Gauss points, top u_z " << top_uz
                    << " (closed form " << exact << (ok ? ", ok" : ", FAIL") << ")" << std::endl;
      });
    }
  catch (const plastix::SolverError &error)
    {
      if (root)
        std::cerr << "plastix example: " << error.what() << std::endl;
      return 1;
    }
  return failures == 0 ? 0 : 1;
}
