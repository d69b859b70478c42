// Every variant of plastix's operator, for the tests that compare them all
// with deal.II's operators and with each other.
#ifndef PLASTIX_TESTS_OPERATOR_VARIANTS_H
#define PLASTIX_TESTS_OPERATOR_VARIANTS_H

#include <deal.II/base/index_set.h>
#include <deal.II/base/mpi.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>

#include <cmath>
#include <string>
#include <vector>

namespace plastix_test
{
  /** The settings of one operator variant and its name ("strategy, kernel, mapping"). */
  struct OperatorVariant
  {
    plastix::MechanicsOperator::AdditionalData data;
    std::string                                name;
  };

  /**
   * Every strategy, cell kernel and thread mapping the backend offers, with
   * @p formulation: eight threads per cell (ThreadMapping::node, ::shuffle) exist for
   * the two element-by-element strategies with global vectors only, and
   * shuffle for the element-by-element cells of dbd structured; dbd
   * structured where @p lattice (meshes of equal axis-parallel boxes on one
   * lattice: it refuses others).
   */
  inline std::vector<OperatorVariant>
  all_operator_variants(const plastix::backend::ElementFormulation formulation, const bool lattice = false)
  {
    using namespace plastix::backend;
    std::vector<OperatorVariant> variants;
    for (const auto strategy : {Strategy::ebe_atomic, Strategy::ebe_colored, Strategy::dbd, Strategy::ebe_tiled,
                                Strategy::assembled, Strategy::dbd_structured})
      for (const auto kernel : {CellKernel::stored_geometry, CellKernel::geometry_on_the_fly, CellKernel::element_matrix})
        for (const auto mapping : {ThreadMapping::cell, ThreadMapping::node, ThreadMapping::shuffle})
          if ((mapping == ThreadMapping::cell || strategy == Strategy::ebe_atomic || strategy == Strategy::ebe_colored ||
               (strategy == Strategy::dbd_structured && mapping == ThreadMapping::shuffle)) &&
              (lattice || strategy != Strategy::dbd_structured))
            variants.push_back({{strategy, kernel, mapping, formulation},
                                to_string(strategy) + ", " + to_string(kernel) + ", " + to_string(mapping)});
    return variants;
  }

  /**
   * The relative l2 difference of the operator's diagonal (compute_diagonal())
   * and @p matrix's on the unconstrained owned rows, over all ranks.
   */
  inline double
  diagonal_difference(const plastix::MechanicsOperator             &op,
                      const dealii::TrilinosWrappers::SparseMatrix &matrix,
                      const dealii::AffineConstraints<double>      &constraints,
                      const MPI_Comm                                comm)
  {
    plastix::DeviceVector diagonal;
    op.compute_diagonal(diagonal);
    double diff = 0, norm = 0;
    for (const auto i : matrix.locally_owned_range_indices())
      if (!constraints.is_constrained(i))
        {
          diff += std::pow(diagonal(i) - matrix.diag_element(i), 2);
          norm += std::pow(matrix.diag_element(i), 2);
        }
    return std::sqrt(dealii::Utilities::MPI::sum(diff, comm) / dealii::Utilities::MPI::sum(norm, comm));
  }

  /**
   * The relative l2 difference |a - b| / |b| over the entries @p owned of
   * this rank (those that @p constraints leaves unconstrained if
   * @p free_rows_only), summed over the ranks of @p comm.
   */
  template <typename VectorA, typename VectorB>
  double
  relative_difference(const VectorA                           &a,
                      const VectorB                           &b,
                      const dealii::IndexSet                  &owned,
                      const dealii::AffineConstraints<double> &constraints,
                      const MPI_Comm                           comm,
                      const bool                               free_rows_only = true)
  {
    double diff = 0, norm = 0;
    for (const auto i : owned)
      if (!free_rows_only || !constraints.is_constrained(i))
        {
          diff += (a(i) - b(i)) * (a(i) - b(i));
          norm += b(i) * b(i);
        }
    return std::sqrt(dealii::Utilities::MPI::sum(diff, comm) / dealii::Utilities::MPI::sum(norm, comm));
  }
} // namespace plastix_test

#endif
