// Boundary springs (MechanicsOperator::AdditionalData::boundary_springs) on
// a distorted mesh with two materials, first locally refined (hanging nodes
// on a spring face), then conforming; a clamped face and an inhomogeneous
// component next to the springs. Run with 1 and 2 MPI ranks.
//
//  1. vmult of every strategy, cell kernel and thread mapping (full
//     integration and B-bar) against deal.II's assembled C^T (A + S) C,
//     whose spring matrix S this test assembles itself from the vector
//     shape functions (phi_i . K phi_j, K = k_n n n^T + k_t (I - n n^T));
//     the diagonal against the matrix's; with the springs removed the
//     products differ (the springs are there).
//  2. the conforming mesh: copy_matrix() of the assembled strategy against
//     the same matrix.
//  3. the internal force of a plasticity state at a displacement too small
//     to yield against the elastic internal force of the operator
//     (compute_internal_force()), both with the springs' S u, on every row.

// Test: ranks 1 2
#include <deal.II/base/function.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/elastic_matrix.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>

#include "sparse_term_mesh.h"
#include "test_environment.h"

#include <cmath>

using namespace dealii;
using HostVector = LinearAlgebra::distributed::Vector<double>;

namespace
{
  /** Add the springs' matrix to @p matrix (assembled with the same constraints), face by face. */
  void
  add_reference_springs(const DoFHandler<3>                &dof_handler,
                        const AffineConstraints<double>    &constraints,
                        const plastix::BoundarySprings     &springs,
                        TrilinosWrappers::SparseMatrix     &matrix)
  {
    const MappingQ<3>                    mapping(1);
    const QGauss<2>                      quadrature(2);
    FEFaceValues<3>                      fe_face_values(mapping, dof_handler.get_fe(), quadrature,
                                       update_values | update_normal_vectors | update_JxW_values);
    const FEValuesExtractors::Vector     u(0);
    FullMatrix<double>                   cell_matrix(24, 24);
    std::vector<types::global_dof_index> dofs(24);
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          cell_matrix = 0;
          for (const auto f : cell->face_indices())
            {
              const auto spring = cell->face(f)->at_boundary() ? springs.find(cell->face(f)->boundary_id()) :
                                                                 springs.end();
              if (spring == springs.end())
                continue;
              fe_face_values.reinit(cell, f);
              for (unsigned int q = 0; q < quadrature.size(); ++q)
                {
                  const Tensor<1, 3> &n = fe_face_values.normal_vector(q);
                  for (unsigned int i = 0; i < 24; ++i)
                    for (unsigned int j = 0; j < 24; ++j)
                      {
                        const Tensor<1, 3> phi_i = fe_face_values[u].value(i, q);
                        const Tensor<1, 3> phi_j = fe_face_values[u].value(j, q);
                        const double       normal =
                          spring->second.normal_stiffness * (phi_i * n) * (phi_j * n);
                        const double tangential =
                          spring->second.tangential_stiffness * (phi_i * phi_j - (phi_i * n) * (phi_j * n));
                        cell_matrix(i, j) += (normal + tangential) * fe_face_values.JxW(q);
                      }
                }
            }
          cell->get_dof_indices(dofs);
          constraints.distribute_local_to_global(cell_matrix, dofs, matrix);
        }
    matrix.compress(VectorOperation::add);
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    const plastix::BoundarySprings springs = {{4, {3e10, 1e10}}, {1, {5e10, 0.}}};
    const plastix::MaterialTable   materials = {{0, plastix::make_material(200e9, 0.3)},
                                                {3, plastix::make_material(70e9, 0.35)}};
    for (const bool refined : {true, false})
      {
        const plastix_test::SparseTermMesh mesh(env.comm, refined);
        const DoFHandler<3>               &dof_handler = mesh.dof_handler;
        const AffineConstraints<double>   &constraints = mesh.constraints;
        env.pout << (refined ? "locally refined mesh (hanging nodes on the spring faces)\n" : "conforming mesh\n");

        for (const auto formulation :
             {plastix::backend::ElementFormulation::full, plastix::backend::ElementFormulation::bbar})
          {
            const bool bbar = formulation == plastix::backend::ElementFormulation::bbar;
            env.pout << (bbar ? " B-bar (mean dilatation)" : " full integration") << "\n";
            TrilinosWrappers::SparseMatrix matrix;
            plastix::assemble_elastic_matrix(dof_handler, constraints, materials, matrix, formulation);
            TrilinosWrappers::MPI::Vector without_springs(mesh.trilinos_source), with_springs(mesh.trilinos_source);
            matrix.vmult(without_springs, mesh.trilinos_source);
            add_reference_springs(dof_handler, constraints, springs, matrix);
            matrix.vmult(with_springs, mesh.trilinos_source);
            checker.check_true(" the springs change the product (relative change > 1e-3)",
                               mesh.relative_difference(without_springs, with_springs) > 1e-3);
            mesh.check_variants(
              checker, formulation, [&](auto &data) { data.boundary_springs = springs; }, [](auto &) {}, materials,
              matrix, "C^T (A + S) C", refined);
          }

        // ---- 3. the internal force with a plasticity state ----
        plastix::MechanicsOperator op;
        plastix::MechanicsOperator::AdditionalData data;
        data.boundary_springs = springs;
        op.reinit(dof_handler, constraints, materials, data);
        plastix::DeviceVector u, elastic_force, plastic_force;
        op.initialize_dof_vector(u);
        op.initialize_dof_vector(elastic_force);
        op.initialize_dof_vector(plastic_force);
        HostVector small(op.get_partitioner());
        for (const auto i : dof_handler.locally_owned_dofs())
          small(i) = 1e-6 * mesh.source(i);
        u.copy_from_host(small);
        op.set_constrained_values(u, 1e-4);
        op.compute_internal_force(u, elastic_force);
        plastix::MaterialTable plastic_materials = materials;
        for (auto &[id, material] : plastic_materials)
          material = plastix::make_material(id == 0 ? 200e9 : 70e9, id == 0 ? 0.3 : 0.35, 1e12);
        op.reinit(dof_handler, constraints, plastic_materials, data);
        plastix::PlasticityState &state = op.enable_plasticity();
        const auto statistics = state.update(u, plastic_force);
        checker.check(" no point yields (plastic points)", double(statistics.n_plastic_points), 0.);
        HostVector a(op.get_partitioner()), b(op.get_partitioner());
        elastic_force.copy_to_host(a);
        plastic_force.copy_to_host(b);
        checker.check(" internal force of the plasticity state vs compute_internal_force() (all rows)",
                      mesh.relative_difference(b, a, false), 1e-12);
      }
  });
}
