// Solutions of a complete elasticity problem with plastix against deal.II's
// assembled solve. Distorted parallel::distributed mesh, two materials,
// inhomogeneous Dirichlet values (x and y on x = 0, only z on y = 0: no
// component is prescribed twice on the shared edge, which would be an input
// error unless the values agreed),
// a traction on x = L, a pressure on y = H and a body force.
//
// Reference (independent of plastix): the test assembles the stiffness matrix
// and the right-hand side itself (FEValues, QGauss(2), symmetric gradients,
// its own Lame constants), applies the constraints with
// AffineConstraints::distribute_local_to_global into a Trilinos matrix,
// solves with a direct solver (Amesos KLU), cross-checked by SolverCG on
// TrilinosWrappers::MPI::Vector to 1e-13, and calls constraints.distribute.
//
// plastix: the load vector of assemble_external_force, lift_inhomogeneities,
// set_constrained_values, then
//   - plastix::LinearSolver with cg + none / jacobi / chebyshev, gmres + jacobi
//     (ebe atomic, stored geometry), and cg + jacobi for every strategy and
//     cell kernel;
//   - dealii::SolverCG<plastix::DeviceVector> on linear_operator(op) with the
//     Jacobi preconditioner (DiagonalMatrix<DeviceVector>);
//   - inverse_operator(linear_operator(op), SolverCG, Jacobi) * b.
// Each solution (all owned DoFs including the constrained ones) must match the
// reference to 1e-8 relative (solver tolerances 1e-12). Also checked: the
// constraints of make_dirichlet_constraints and the force vector of
// assemble_external_force against the test's own, the materials of
// make_material_table, and MechanicsOperator::cell_average_strain against the
// FEValues cell average of the symmetric gradient. Run with 1 and 2 ranks.

// Test: ranks 1 2
#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/function.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/linear_operator.h>
#include <deal.II/lac/linear_operator_tools.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/lac/sparsity_tools.h>
#include <deal.II/lac/trilinos_precondition.h>
#include <deal.II/lac/trilinos_solver.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/runtime.h>
#include <plastix/solvers/linear_solver.h>

#include "loads.h"
#include "parameters.h"

#include "box_mesh.h"
#include "q1_dofs.h"
#include "test_environment.h"

#include <iomanip>
#include <iostream>

using namespace dealii;
using HostVector = LinearAlgebra::distributed::Vector<double>;

namespace
{
  struct Lame
  {
    double lambda, mu;
  };

  Lame
  lame(const double E, const double nu)
  {
    return {E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))};
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    parallel::distributed::Triangulation<3> tria(env.comm);
    plastix_test::make_distorted_box(tria, {5, 3, 3}, Point<3>(2.5, 1.5, 1.), 1, 0.25, 11);
    for (const auto &cell : tria.active_cell_iterators())
      cell->set_material_id(cell->center()[0] > 1.2 ? 3 : 0);

    DoFHandler<3>          dof_handler(tria);
    const IndexSet         relevant = plastix_test::distribute_q1_dofs(dof_handler);
    const FiniteElement<3> &fe      = dof_handler.get_fe();
    const IndexSet        &owned    = dof_handler.locally_owned_dofs();

    // ---- Problem description (also parsed by the plastix parameter code) ----
    plastix::BoundaryParameters boundary;
    boundary.dirichlet_text = "0: xy = 0.001, -0.002; 2: z = 0.0003";
    boundary.traction_text  = "1: 1e8, -2e8, 3e8";
    boundary.pressure_text  = "3: 5e7";
    boundary.body_force     = Point<3>(1e8, -5e7, 2e8);
    boundary.check();
    const Tensor<1, 3> traction({1e8, -2e8, 3e8});
    const double       pressure = 5e7;
    const Tensor<1, 3> body_force({1e8, -5e7, 2e8});

    plastix::MaterialParameters material_parameters;
    material_parameters.default_material.young_modulus = 200e9;
    material_parameters.default_material.poisson_ratio = 0.3;
    material_parameters.per_material_id_text           = "3: E=70e9, nu=0.35";
    material_parameters.check();
    const plastix::MaterialTable materials = plastix::make_material_table(dof_handler, material_parameters);
    std::map<types::material_id, Lame> reference_materials = {{0, lame(200e9, 0.3)}, {3, lame(70e9, 0.35)}};
    {
      double diff = materials.size() == 2 ? 0. : 1.;
      for (const auto &[id, m] : reference_materials)
        if (materials.count(id) == 0)
          diff = 1;
        else
          diff = std::max({diff, std::abs(materials.at(id).lambda - m.lambda) / m.lambda,
                           std::abs(materials.at(id).mu - m.mu) / m.mu});
      checker.check("make_material_table: Lame constants of ids 0 and 3", diff, 1e-14);
    }

    // ---- Constraints: the test's own, compared with make_dirichlet_constraints ----
    AffineConstraints<double> constraints(relevant);
    VectorTools::interpolate_boundary_values(dof_handler, 0,
                                             Functions::ConstantFunction<3>(std::vector<double>{0.001, -0.002, 0.}),
                                             constraints, ComponentMask(std::vector<bool>{true, true, false}));
    VectorTools::interpolate_boundary_values(dof_handler, 2, Functions::ConstantFunction<3>(0.0003, 3), constraints,
                                             fe.component_mask(FEValuesExtractors::Scalar(2)));
    constraints.close();
    {
      AffineConstraints<double> library;
      plastix::make_dirichlet_constraints(dof_handler, boundary, library);
      unsigned int mismatches = 0;
      for (const auto i : relevant)
        if (constraints.is_constrained(i) != library.is_constrained(i) ||
            (constraints.is_constrained(i) &&
             std::abs(constraints.get_inhomogeneity(i) - library.get_inhomogeneity(i)) > 1e-18))
          ++mismatches;
      checker.check("make_dirichlet_constraints vs VectorTools (mismatching DoFs)", Utilities::MPI::sum(mismatches, env.comm), 0);
    }
    env.pout << "DoFs " << dof_handler.n_dofs() << ", cells " << tria.n_global_active_cells() << ", ranks "
         << Utilities::MPI::n_mpi_processes(env.comm) << "\n";

    // ---- Reference: own assembly, constraints applied while assembling ----
    DynamicSparsityPattern dsp(relevant);
    DoFTools::make_sparsity_pattern(dof_handler, dsp, constraints, false);
    SparsityTools::distribute_sparsity_pattern(dsp, owned, env.comm, relevant);
    TrilinosWrappers::SparseMatrix matrix;
    matrix.reinit(owned, owned, dsp, env.comm);
    TrilinosWrappers::MPI::Vector rhs(owned, env.comm);
    HostVector                    raw_force(owned, relevant, env.comm); // without constraints, for comparison
    {
      const MappingQ<3>           mapping(1);
      const QGauss<3>             quadrature(2);
      const QGauss<2>             face_quadrature(2);
      FEValues<3>                 fe_values(mapping, fe, quadrature,
                            update_values | update_gradients | update_JxW_values);
      FEFaceValues<3>             fe_face_values(mapping, fe, face_quadrature,
                                     update_values | update_normal_vectors | update_JxW_values);
      const FEValuesExtractors::Vector u(0);
      FullMatrix<double>          cell_matrix(24, 24);
      Vector<double>              cell_rhs(24);
      std::vector<types::global_dof_index> dofs(24);
      for (const auto &cell : dof_handler.active_cell_iterators())
        {
          if (!cell->is_locally_owned())
            continue;
          fe_values.reinit(cell);
          cell_matrix    = 0;
          cell_rhs       = 0;
          const Lame &m = reference_materials.at(cell->material_id());
          for (unsigned int q = 0; q < quadrature.size(); ++q)
            for (unsigned int i = 0; i < 24; ++i)
              {
                const SymmetricTensor<2, 3> eps_i = fe_values[u].symmetric_gradient(i, q);
                for (unsigned int j = 0; j < 24; ++j)
                  {
                    const SymmetricTensor<2, 3> eps_j = fe_values[u].symmetric_gradient(j, q);
                    cell_matrix(i, j) +=
                      (m.lambda * trace(eps_i) * trace(eps_j) + 2 * m.mu * (eps_i * eps_j)) * fe_values.JxW(q);
                  }
                cell_rhs(i) += fe_values[u].value(i, q) * body_force * fe_values.JxW(q);
              }
          for (const auto f : cell->face_indices())
            if (cell->face(f)->at_boundary() &&
                (cell->face(f)->boundary_id() == 1 || cell->face(f)->boundary_id() == 3))
              {
                fe_face_values.reinit(cell, f);
                for (unsigned int q = 0; q < face_quadrature.size(); ++q)
                  {
                    const Tensor<1, 3> t = cell->face(f)->boundary_id() == 1 ?
                                             traction :
                                             Tensor<1, 3>(-pressure * fe_face_values.normal_vector(q));
                    for (unsigned int i = 0; i < 24; ++i)
                      cell_rhs(i) += fe_face_values[u].value(i, q) * t * fe_face_values.JxW(q);
                  }
              }
          cell->get_dof_indices(dofs);
          constraints.distribute_local_to_global(cell_matrix, cell_rhs, dofs, matrix, rhs);
          for (unsigned int i = 0; i < 24; ++i)
            raw_force(dofs[i]) += cell_rhs(i);
        }
      matrix.compress(VectorOperation::add);
      rhs.compress(VectorOperation::add);
      raw_force.compress(VectorOperation::add);
    }
    TrilinosWrappers::MPI::Vector reference_trilinos(owned, env.comm);
    {
      SolverControl                  control(1, 0);
      TrilinosWrappers::SolverDirect direct(control);
      direct.solve(matrix, reference_trilinos, rhs);
      TrilinosWrappers::MPI::Vector residual(owned, env.comm);
      matrix.vmult(residual, reference_trilinos);
      residual -= rhs;
      checker.check("reference: direct solve |A x - b| / |b|", residual.l2_norm() / rhs.l2_norm(), 1e-12);
      // The same system with SolverCG (Jacobi) on Trilinos vectors: the two
      // deal.II solutions must agree, which validates the reference itself.
      TrilinosWrappers::MPI::Vector     cg_solution(owned, env.comm);
      SolverControl                     cg_control(20000, 1e-13 * rhs.l2_norm());
      SolverCG<TrilinosWrappers::MPI::Vector> cg(cg_control);
      TrilinosWrappers::PreconditionJacobi jacobi;
      jacobi.initialize(matrix);
      cg.solve(matrix, cg_solution, rhs, jacobi);
      cg_solution -= reference_trilinos;
      checker.check("reference: SolverCG on TrilinosWrappers::MPI::Vector (" + std::to_string(cg_control.last_step()) +
              " it.) vs direct solve",
            cg_solution.l2_norm() / reference_trilinos.l2_norm(), 1e-10);
      constraints.distribute(reference_trilinos);
    }
    HostVector reference(owned, relevant, env.comm);
    for (const auto i : owned)
      reference(i) = reference_trilinos(i);
    env.pout << "  reference |u|_2 = " << reference.l2_norm() << ", max |u_i| = " << reference.linfty_norm() << "\n";

    auto relative_difference = [&](const HostVector &a, const HostVector &b) {
      double diff = 0, norm = 0;
      for (const auto i : owned)
        {
          diff += (a(i) - b(i)) * (a(i) - b(i));
          norm += b(i) * b(i);
        }
      return std::sqrt(Utilities::MPI::sum(diff, env.comm) / Utilities::MPI::sum(norm, env.comm));
    };

    // ---- plastix ----
    const plastix::MechanicsOperator::AdditionalData default_settings;
    for (const auto strategy :
         {plastix::backend::Strategy::ebe_atomic, plastix::backend::Strategy::ebe_colored, plastix::backend::Strategy::dbd})
      for (const auto kernel : {plastix::backend::CellKernel::stored_geometry,
                                plastix::backend::CellKernel::geometry_on_the_fly,
                                plastix::backend::CellKernel::element_matrix})
        {
          const bool is_default = strategy == default_settings.strategy && kernel == default_settings.cell_kernel;
          const std::string variant = plastix::backend::to_string(strategy) + ", " + plastix::backend::to_string(kernel);
          plastix::MechanicsOperator op;
          op.reinit(dof_handler, constraints, materials, {strategy, kernel});

          HostVector force(op.get_partitioner());
          plastix::assemble_external_force(dof_handler, boundary, force);
          if (is_default)
            {
              double diff = 0, norm = 0;
              for (const auto i : owned)
                {
                  diff += std::pow(force(i) - raw_force(i), 2);
                  norm += std::pow(raw_force(i), 2);
                }
              checker.check("assemble_external_force vs own traction/pressure/body force assembly",
                    std::sqrt(Utilities::MPI::sum(diff, env.comm) / Utilities::MPI::sum(norm, env.comm)), 1e-13);
              // The overload on deal.II types (for user programs), the same loads.
              HostVector plain(op.get_partitioner());
              plastix::assemble_external_force(dof_handler, {{1, Tensor<1, 3>({1e8, -2e8, 3e8})}}, {{3, 5e7}},
                                               Tensor<1, 3>({1e8, -5e7, 2e8}), plain);
              double plain_diff = 0;
              for (const auto i : owned)
                plain_diff += std::pow(plain(i) - force(i), 2);
              checker.check("assemble_external_force on deal.II types vs on BoundaryParameters",
                    std::sqrt(Utilities::MPI::sum(plain_diff, env.comm) / Utilities::MPI::sum(norm, env.comm)), 1e-15);
            }
          plastix::DeviceVector b;
          op.initialize_dof_vector(b);
          b.copy_from_host(force);
          op.lift_inhomogeneities(b);

          auto solution_of = [&](const plastix::DeviceVector &x) {
            HostVector host(op.get_partitioner());
            x.copy_to_host(host);
            HostVector result(owned, relevant, env.comm);
            for (const auto i : owned)
              result(i) = host(i);
            return result;
          };

          std::vector<std::pair<std::string, std::string>> solvers = {{"cg", "jacobi"}};
          if (is_default)
            solvers = {{"cg", "none"}, {"cg", "jacobi"}, {"cg", "chebyshev"}, {"gmres", "jacobi"}};
          for (const auto &[type, preconditioner] : solvers)
            {
              plastix::LinearSolverData parameters;
              parameters.type               = plastix::parse_enum<plastix::SolverType>(type);
              parameters.preconditioner     = plastix::parse_enum<plastix::PreconditionerType>(preconditioner);
              parameters.relative_tolerance = 1e-12;
              parameters.max_iterations     = 20000;
              parameters.gmres_restart      = 200;
              plastix::LinearSolver solver(parameters);
              solver.initialize(op);
              plastix::DeviceVector x;
              op.initialize_dof_vector(x);
              op.set_constrained_values(x);
              try
                {
                  const auto statistics = solver.solve(x, b);
                  const auto u          = solution_of(x);
                  checker.check(variant + ", LinearSolver " + solver.name() + " (" + std::to_string(statistics.iterations) +
                          " it.) vs reference",
                        relative_difference(u, reference), 1e-8);
                  if (type == "cg" && preconditioner == "jacobi" && is_default)
                    {
                      // Cell-average strain vs the FEValues average of the symmetric gradient of the same u.
                      HostVector ghosted = u;
                      ghosted.update_ghost_values();
                      const std::vector<double> strain = op.cell_average_strain(x);
                      const MappingQ<3>         mapping(1);
                      const QGauss<3>           quadrature(2);
                      FEValues<3> fe_values(mapping, fe, quadrature, update_gradients | update_JxW_values);
                      std::vector<SymmetricTensor<2, 3>> eps(quadrature.size());
                      double       diff = 0, norm = 0;
                      unsigned int k = 0;
                      for (const auto &cell : dof_handler.active_cell_iterators())
                        {
                          if (!cell->is_locally_owned())
                            continue;
                          fe_values.reinit(cell);
                          fe_values[FEValuesExtractors::Vector(0)].get_function_symmetric_gradients(ghosted, eps);
                          SymmetricTensor<2, 3> average;
                          double                volume = 0;
                          for (unsigned int q = 0; q < quadrature.size(); ++q)
                            {
                              average += eps[q] * fe_values.JxW(q);
                              volume += fe_values.JxW(q);
                            }
                          average /= volume;
                          const double expected[6] = {average[0][0], average[1][1], average[2][2],
                                                      average[1][2], average[0][2], average[0][1]};
                          for (unsigned int c = 0; c < 6; ++c)
                            {
                              diff += std::pow(strain.at(6 * k + c) - expected[c], 2);
                              norm += std::pow(expected[c], 2);
                            }
                          ++k;
                        }
                      if (k != op.n_locally_owned_cells() || strain.size() != 6 * k)
                        diff = norm = 1;
                      checker.check("cell_average_strain vs FEValues cell average of sym grad u",
                            std::sqrt(Utilities::MPI::sum(diff, env.comm) / Utilities::MPI::sum(norm, env.comm)), 1e-12);
                    }
                }
              catch (const std::exception &error)
                {
                  checker.fail(variant + ", LinearSolver " + solver.name() + " threw: " + error.what());
                }
            }

          if (!is_default)
            continue;

          // deal.II solvers directly on DeviceVector through LinearOperator.
          DiagonalMatrix<plastix::DeviceVector> jacobi;
          op.compute_inverse_diagonal(jacobi.get_vector());
          const auto A = linear_operator<plastix::DeviceVector>(op);
          {
            SolverControl                      control(20000, 1e-12 * b.l2_norm());
            SolverCG<plastix::DeviceVector> cg(control);
            plastix::DeviceVector            x;
            op.initialize_dof_vector(x);
            op.set_constrained_values(x);
            cg.solve(A, x, b, jacobi);
            checker.check("SolverCG<DeviceVector> on linear_operator(op), Jacobi (" + std::to_string(control.last_step()) +
                    " it.) vs reference",
                  relative_difference(solution_of(x), reference), 1e-8);
          }
          {
            SolverControl                      control(20000, 1e-12 * b.l2_norm());
            SolverCG<plastix::DeviceVector> cg(control);
            const auto                         A_inverse = inverse_operator(A, cg, jacobi);
            plastix::DeviceVector            x;
            op.initialize_dof_vector(x);
            try
              {
                A_inverse.vmult(x, b);
                const bool same_layout = x.locally_owned_size() == owned.n_elements() && x.size() == dof_handler.n_dofs();
                checker.check("inverse_operator(linear_operator(op), SolverCG, Jacobi) * b: layout of the result "
                      "(0 = the operator's)",
                      Utilities::MPI::sum(same_layout ? 0 : 1, env.comm), 0);
                if (same_layout)
                  checker.check("inverse_operator(linear_operator(op), SolverCG, Jacobi) * b (" +
                          std::to_string(control.last_step()) + " it.) vs reference",
                        relative_difference(solution_of(x), reference), 1e-8);
              }
            catch (const std::exception &error)
              {
                checker.fail(std::string("inverse_operator solve threw: ") + error.what());
              }
          }
        }
  });
}
