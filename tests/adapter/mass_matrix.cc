// The mass matrix of MechanicsOperator (AdditionalData::mass_matrix) on a
// distorted mesh with two materials of different densities, first locally
// refined (hanging nodes), then conforming; a clamped face and an
// inhomogeneous component. Run with 1 and 2 MPI ranks.
//
//  1. apply_mass() of the consistent mass against deal.II's assembled
//     C^T M C, whose M this test assembles from the vector shape functions
//     (rho phi_i . phi_j, FEValuesExtractors::Vector), on the free rows; the
//     lumped mass against the row sums of that matrix, and its total
//     against the mass of the body (sum of rho |cell|).
//  2. vmult with a mass factor c of every strategy, cell kernel and thread
//     mapping against C^T (K + c M) C; the diagonal against the matrix's;
//     copy_matrix() of the assembled strategy on the conforming mesh.
//  3. A material without a density is refused.

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

#include "sparse_term_mesh.h"
#include "test_environment.h"

#include <cmath>

using namespace dealii;
using HostVector = LinearAlgebra::distributed::Vector<double>;

namespace
{
  /** Add @p factor times the consistent mass matrix to @p matrix (assembled with the same constraints). */
  void
  add_reference_mass(const DoFHandler<3>             &dof_handler,
                     const AffineConstraints<double> &constraints,
                     const plastix::MaterialTable    &materials,
                     const double                     factor,
                     TrilinosWrappers::SparseMatrix  &matrix)
  {
    const MappingQ<3>                    mapping(1);
    const QGauss<3>                      quadrature(2);
    FEValues<3>                          fe_values(mapping, dof_handler.get_fe(), quadrature,
                                  update_values | update_JxW_values);
    const FEValuesExtractors::Vector     u(0);
    FullMatrix<double>                   cell_matrix(24, 24);
    std::vector<types::global_dof_index> dofs(24);
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          cell_matrix = 0;
          fe_values.reinit(cell);
          const double rho = materials.at(cell->material_id()).density;
          for (unsigned int q = 0; q < quadrature.size(); ++q)
            for (unsigned int i = 0; i < 24; ++i)
              for (unsigned int j = 0; j < 24; ++j)
                cell_matrix(i, j) +=
                  factor * rho * (fe_values[u].value(i, q) * fe_values[u].value(j, q)) * fe_values.JxW(q);
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
    plastix::MaterialTable materials = {{0, plastix::make_material(200e9, 0.3)},
                                        {3, plastix::make_material(70e9, 0.35)}};
    materials[0].density = 7850.;
    materials[3].density = 2700.;
    const double mass_factor = 4e6; // 1 / (beta dt^2) for dt of about 1 ms: K and c M of one order
    for (const bool refined : {true, false})
      {
        const plastix_test::SparseTermMesh mesh(env.comm, refined);
        const DoFHandler<3>               &dof_handler = mesh.dof_handler;
        const AffineConstraints<double>   &constraints = mesh.constraints;
        const IndexSet                    &owned       = dof_handler.locally_owned_dofs();
        const IndexSet                    &relevant    = mesh.relevant;
        double                             body_mass   = 0.;
        for (const auto &cell : mesh.triangulation.active_cell_iterators())
          if (cell->is_locally_owned())
            body_mass += materials.at(cell->material_id()).density * cell->measure();
        body_mass = Utilities::MPI::sum(body_mass, env.comm);
        env.pout << (refined ? "locally refined mesh (hanging nodes)\n" : "conforming mesh\n");
        const HostVector                    &src_host = mesh.source;
        const TrilinosWrappers::MPI::Vector &src_t    = mesh.trilinos_source;
        auto relative_difference = [&](const auto &a, const auto &b) { return mesh.relative_difference(a, b); };

        // ---- 1. apply_mass(): consistent and lumped ----
        // C^T M C with the hanging-node lines only: apply_mass() takes the
        // Dirichlet rows of its argument as they are.
        AffineConstraints<double> hanging(relevant);
        DoFTools::make_hanging_node_constraints(dof_handler, hanging);
        hanging.close();
        TrilinosWrappers::SparseMatrix mass;
        {
          // The pattern of the stiffness matrix with zero values: assemble K, then scale by 0.
          plastix::assemble_elastic_matrix(dof_handler, hanging, materials, mass);
          mass *= 0.;
          add_reference_mass(dof_handler, hanging, materials, 1., mass);
        }
        TrilinosWrappers::MPI::Vector mass_src(src_t);
        mass.vmult(mass_src, src_t);
        for (const auto kind : {plastix::MassMatrix::consistent, plastix::MassMatrix::lumped})
          {
            const bool                                 lumped = kind == plastix::MassMatrix::lumped;
            plastix::MechanicsOperator::AdditionalData data;
            data.mass_matrix = kind;
            plastix::MechanicsOperator op;
            op.reinit(dof_handler, constraints, materials, data);
            plastix::DeviceVector src, dst;
            op.initialize_dof_vector(src);
            src.copy_from_host(src_host);
            op.set_constrained_values(src, 0.);
            op.apply_mass(src, dst);
            HostVector result(op.get_partitioner());
            dst.copy_to_host(result);
            if (!lumped)
              checker.check(" consistent apply_mass() vs C^T M C (free rows)", relative_difference(result, mass_src),
                            1e-12);
            else
              {
                // Row sums of C^T M C: M times a vector of ones on the free DoFs' rows.
                TrilinosWrappers::MPI::Vector ones(src_t), row_sums(src_t);
                ones = 1.;
                mass.vmult(row_sums, ones);
                plastix::DeviceVector one_vector;
                op.initialize_dof_vector(one_vector);
                one_vector = 1.;
                op.apply_mass(one_vector, dst);
                dst.copy_to_host(result);
                checker.check(" lumped M 1 vs the row sums of C^T M C (free rows)",
                              relative_difference(result, row_sums), 1e-12);
                // The total over every row (Dirichlet rows too; the hanging rows condense
                // onto the others with weights that sum to 1): three times the body's mass.
                double total = 0.;
                for (const auto i : owned)
                  total += result(i);
                total = Utilities::MPI::sum(total, env.comm);
                checker.check(" lumped mass: sum of M 1 = 3 x the body's mass (relative)",
                              std::abs(total - 3. * body_mass) / (3. * body_mass), 1e-12);
              }
          }

        // ---- 2. vmult with a mass factor: K + c M ----
        TrilinosWrappers::SparseMatrix matrix;
        plastix::assemble_elastic_matrix(dof_handler, constraints, materials, matrix);
        add_reference_mass(dof_handler, constraints, materials, mass_factor, matrix);
        mesh.check_variants(
          checker, plastix::backend::ElementFormulation::full,
          [](auto &data) { data.mass_matrix = plastix::MassMatrix::consistent; },
          [&](plastix::MechanicsOperator &op) { op.set_mass_factor(mass_factor); }, materials, matrix,
          "C^T (K + c M) C", refined);

        // ---- 3. a material without a density ----
        {
          plastix::MaterialTable without = materials;
          without[3].density             = 0.;
          plastix::MechanicsOperator::AdditionalData data;
          data.mass_matrix = plastix::MassMatrix::lumped;
          plastix::MechanicsOperator op;
          bool refused = false;
          try
            {
              op.reinit(dof_handler, constraints, without, data);
            }
          catch (const std::invalid_argument &error)
            {
              refused = std::string(error.what()).find("material id 3 has density") != std::string::npos;
            }
          checker.check_true(" a material without a density is refused by name", refused);
        }
      }
  });
}
