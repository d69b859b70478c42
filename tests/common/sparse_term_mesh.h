// The mesh of the tests of the operator's sparse terms (boundary springs, mass
// matrix): a distorted 4 x 3 x 2 box with two material ids (0 and 3),
// locally refined or conforming, clamped on boundary 0 with an inhomogeneous
// y component on boundary 2, and a source vector; and the check of every
// operator variant against a deal.II-assembled matrix.
#ifndef PLASTIX_TESTS_SPARSE_TERM_MESH_H
#define PLASTIX_TESTS_SPARSE_TERM_MESH_H

#include <deal.II/base/function.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values_extractors.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/mechanics_operator.h>

#include "../checker.h"
#include "operator_variants.h"
#include "q1_dofs.h"

#include <cmath>
#include <functional>
#include <string>

namespace plastix_test
{
  /** The mesh, DoFs, constraints and source vector of a sparse-term test. */
  struct SparseTermMesh
  {
    using HostVector = dealii::LinearAlgebra::distributed::Vector<double>;

    /**
     * @p refined: cells with z < 0.5 and y < 0.8 refined once (hanging nodes
     * on the face z = 0 and next to the face x = 2).
     */
    SparseTermMesh(const MPI_Comm comm, const bool refined)
      : comm(comm)
      , triangulation(comm)
      , dof_handler(triangulation)
    {
      using namespace dealii;
      GridGenerator::subdivided_hyper_rectangle(triangulation, {4, 3, 2}, Point<3>(0, 0, 0), Point<3>(2., 1.5, 1.),
                                                true);
      GridTools::distort_random(0.15, triangulation, true, 5);
      if (refined)
        {
          for (const auto &cell : triangulation.active_cell_iterators())
            if (cell->is_locally_owned() && cell->center()[2] < 0.5 && cell->center()[1] < 0.8)
              cell->set_refine_flag();
          triangulation.execute_coarsening_and_refinement();
        }
      for (const auto &cell : triangulation.active_cell_iterators())
        cell->set_material_id(cell->center()[0] > 1.1 ? 3 : 0);
      relevant = distribute_q1_dofs(dof_handler);
      constraints.reinit(relevant);
      DoFTools::make_hanging_node_constraints(dof_handler, constraints);
      VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
      VectorTools::interpolate_boundary_values(dof_handler, 2, Functions::ConstantFunction<3>(0.01, 3), constraints,
                                               dof_handler.get_fe().component_mask(FEValuesExtractors::Scalar(1)));
      constraints.close();
      const IndexSet &owned = dof_handler.locally_owned_dofs();
      source.reinit(owned, relevant, comm);
      trilinos_source.reinit(owned, comm);
      for (const auto i : owned)
        {
          source(i) = constraints.is_constrained(i) ? 0. : std::sin(1.3 * i + 0.2) + 0.3 * std::cos(0.07 * i);
          trilinos_source(i) = source(i);
        }
      trilinos_source.compress(VectorOperation::insert);
    }

    /** |a - b| / |b| over the owned rows (the unconstrained ones if @p free_rows_only), all ranks. */
    template <typename VectorA, typename VectorB>
    double
    relative_difference(const VectorA &a, const VectorB &b, const bool free_rows_only = true) const
    {
      return plastix_test::relative_difference(a, b, dof_handler.locally_owned_dofs(), constraints, comm,
                                               free_rows_only);
    }

    /**
     * For every operator variant of @p formulation (made by @p make_operator
     * from the variant's AdditionalData): vmult of the source against
     * @p matrix, the diagonal against its diagonal, and on a conforming mesh
     * (@p refined false) copy_matrix() of the assembled strategy; @p name
     * names the matrix in the lines printed.
     */
    void
    check_variants(Checker                                                                    &checker,
                   const plastix::backend::ElementFormulation                                  formulation,
                   const std::function<void(plastix::MechanicsOperator::AdditionalData &)>    &adapt_data,
                   const std::function<void(plastix::MechanicsOperator &)>                    &after_reinit,
                   const plastix::MaterialTable                                               &materials,
                   const dealii::TrilinosWrappers::SparseMatrix                               &matrix,
                   const std::string                                                          &name,
                   const bool                                                                  refined) const
    {
      dealii::TrilinosWrappers::MPI::Vector reference(trilinos_source);
      matrix.vmult(reference, trilinos_source);
      for (const auto &variant : all_operator_variants(formulation))
        {
          plastix::MechanicsOperator::AdditionalData data = variant.data;
          adapt_data(data);
          plastix::MechanicsOperator op;
          op.reinit(dof_handler, constraints, materials, data);
          after_reinit(op);
          plastix::DeviceVector src, dst;
          op.initialize_dof_vector(src);
          op.initialize_dof_vector(dst);
          src.copy_from_host(source);
          op.vmult(dst, src);
          HostVector result(op.get_partitioner());
          dst.copy_to_host(result);
          checker.check("  " + variant.name + " vs " + name + " (free rows)", relative_difference(result, reference),
                        1e-12);

          plastix::DeviceVector diagonal;
          op.compute_diagonal(diagonal);
          double diff = 0, norm = 0;
          for (const auto i : dof_handler.locally_owned_dofs())
            if (!constraints.is_constrained(i))
              {
                diff += std::pow(diagonal(i) - matrix.diag_element(i), 2);
                norm += std::pow(matrix.diag_element(i), 2);
              }
          checker.check("  " + variant.name + " diagonal (free rows)",
                        std::sqrt(dealii::Utilities::MPI::sum(diff, comm) / dealii::Utilities::MPI::sum(norm, comm)),
                        1e-12);

          if (!refined && variant.data.strategy == plastix::backend::Strategy::assembled)
            {
              dealii::TrilinosWrappers::SparseMatrix device_matrix;
              op.copy_matrix(device_matrix);
              dealii::TrilinosWrappers::MPI::Vector copied(trilinos_source);
              device_matrix.vmult(copied, trilinos_source);
              checker.check("  " + variant.name + " copy_matrix() vs " + name + " (free rows)",
                            relative_difference(copied, reference), 1e-12);
            }
        }
    }

    MPI_Comm                                comm;
    dealii::parallel::distributed::Triangulation<3> triangulation;
    dealii::DoFHandler<3>                   dof_handler;
    dealii::IndexSet                        relevant;
    dealii::AffineConstraints<double>       constraints;
    /** A source vector, zero on constrained rows. */
    HostVector                              source;
    dealii::TrilinosWrappers::MPI::Vector   trilinos_source;
  };
} // namespace plastix_test

#endif
