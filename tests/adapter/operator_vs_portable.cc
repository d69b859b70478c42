// The plastix operator against deal.II's portable matrix-free elasticity
// operator (Portable::MatrixFree with Portable::FEEvaluation<3, 1, 2, 3>, the
// operator of deal.II's test matrix_free_kokkos/elasticity_01; deal.II 9.7
// and later), both on deal.II's MemorySpace::Default vectors of
// Portable::MatrixFree's layout: on a randomly distorted mesh, uniform and
// then refined in a region (hanging nodes), clamped on one face and on
// rollers on another, one material, for every strategy, cell kernel and
// thread mapping of plastix, 1 and 2 MPI ranks. The rows of unconstrained
// DoFs must agree to round-off and the constrained rows are unit rows in
// both.

// Test: ranks 1 2 deal.II 9.7
#include <deal.II/base/function.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/mechanics_operator.h>

#include "operator_variants.h"
#include "portable_reference_operator.h"
#include "q1_dofs.h"
#include "test_environment.h"

#include <cmath>

using namespace dealii;
using HostVector    = LinearAlgebra::distributed::Vector<double, MemorySpace::Host>;
using DefaultVector = plastix::MechanicsOperator::DefaultMemoryVector;

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    for (const bool refine_region : {false, true})
      {
        parallel::distributed::Triangulation<3> tria(env.comm);
        GridGenerator::subdivided_hyper_rectangle(tria, {5, 4, 3}, Point<3>(0, 0, 0), Point<3>(2.5, 1.5, 1.), true);
        // colorize also numbers the cells' material ids by octant: one material here.
        for (const auto &cell : tria.active_cell_iterators())
          cell->set_material_id(0);
        GridTools::distort_random(0.2, tria, true, 7);
        if (refine_region)
          {
            for (const auto &cell : tria.active_cell_iterators())
              if (cell->is_locally_owned() && cell->center()[0] < 1.4 && cell->center()[2] > 0.3)
                cell->set_refine_flag();
            tria.execute_coarsening_and_refinement();
          }

        DoFHandler<3>   dof_handler(tria);
        const IndexSet  relevant = plastix_test::distribute_q1_dofs(dof_handler);
        const IndexSet &owned    = dof_handler.locally_owned_dofs();

        AffineConstraints<double> constraints(relevant);
        DoFTools::make_hanging_node_constraints(dof_handler, constraints);
        VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
        VectorTools::interpolate_boundary_values(dof_handler, 2, Functions::ZeroFunction<3>(3), constraints,
                                                 dof_handler.get_fe().component_mask(FEValuesExtractors::Scalar(1)));
        constraints.close();

        const auto                   material  = plastix::make_material(200e9, 0.3);
        const plastix::MaterialTable materials = {{0, material}};

        plastix::reference::PortableElasticity portable;
        portable.reinit(dof_handler, constraints, material);
        DefaultVector src, expected;
        portable.initialize_dof_vector(src);
        portable.initialize_dof_vector(expected);
        {
          HostVector host(src.get_partitioner());
          for (const auto i : owned)
            host(i) = std::sin(1.3 * i + 0.2) + 0.3 * std::cos(0.07 * i);
          src.import_elements(host, VectorOperation::insert);
        }
        portable.vmult(expected, src);
        HostVector expected_host(expected.get_partitioner());
        expected_host.import_elements(expected, VectorOperation::insert);
        HostVector src_host(src.get_partitioner());
        src_host.import_elements(src, VectorOperation::insert);

        unsigned int n_hanging = 0;
        for (const auto i : owned)
          n_hanging += constraints.is_constrained(i) && !constraints.get_constraint_entries(i)->empty();
        n_hanging = Utilities::MPI::sum(n_hanging, env.comm);
        env.pout << (refine_region ? "refined region" : "uniform mesh") << ": DoFs " << dof_handler.n_dofs()
                 << ", hanging-node lines " << n_hanging << "\n";
        if (refine_region)
          checker.check("the refined mesh has hanging nodes", n_hanging > 0 ? 0. : 1., 0.);

        for (const auto &variant : plastix_test::all_operator_variants(plastix::backend::ElementFormulation::full))
          {
            plastix::MechanicsOperator op;
            op.reinit(dof_handler, constraints, materials, variant.data);
            DefaultVector result;
            portable.initialize_dof_vector(result);
            op.vmult(result, src);
            HostVector result_host(result.get_partitioner());
            result_host.import_elements(result, VectorOperation::insert);
            double diff = 0, norm = 0, unit_rows = 0;
            for (const auto i : owned)
              if (constraints.is_constrained(i))
                unit_rows = std::max({unit_rows, std::abs(result_host(i) - src_host(i)),
                                      std::abs(expected_host(i) - src_host(i)) *
                                        (constraints.get_constraint_entries(i)->empty() ? 1. : 0.)});
              else
                {
                  diff += (result_host(i) - expected_host(i)) * (result_host(i) - expected_host(i));
                  norm += expected_host(i) * expected_host(i);
                }
            diff = std::sqrt(Utilities::MPI::sum(diff, env.comm) / Utilities::MPI::sum(norm, env.comm));
            checker.check(variant.name + " vs Portable::MatrixFree (free rows)", diff, 1e-12);
            checker.check(variant.name + ": unit rows at constrained DoFs in both",
                          Utilities::MPI::max(unit_rows, env.comm), 0.);
          }
      }
  });
}
