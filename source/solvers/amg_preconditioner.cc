// ML algebraic multigrid (Trilinos) on the assembled elastic matrix.
#include <deal.II/base/index_set.h>
#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/lac/affine_constraints.h>

#include <plastix/core/elastic_matrix.h>
#include <plastix/solvers/preconditioners.h>

#include <Epetra_MultiVector.h>
#include <Teuchos_ParameterList.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "preconditioner_tools.h"

namespace plastix
{
  using internal::copy_from_trilinos;
  using internal::copy_to_trilinos;
  using internal::owned_dof_coordinates;

  AmgPreconditioner::AmgPreconditioner() = default;

  AmgPreconditioner::~AmgPreconditioner() = default;

  void
  AmgPreconditioner::initialize(const MechanicsOperator     &op,
                                const dealii::DoFHandler<3> &dof_handler,
                                const MaterialTable         &materials,
                                const AmgData               &data)
  {
    // The operator's constraints, homogeneous: prescribed rows/columns
    // eliminated, its lines condensed (C^T A C; without the lines AMG would
    // precondition a different operator on a locally refined mesh or with
    // inclined normal supports).
    dealii::IndexSet relevant;
    dealii::DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    dealii::AffineConstraints<double> constraints(relevant);
    op.add_homogeneous_constraints(constraints);
    constraints.close();
    const MechanicsOperator::AdditionalData &operator_data = op.get_additional_data();
    assemble_elastic_matrix(dof_handler, constraints, materials, own_matrix, operator_data.element_formulation,
                            operator_data.cell_stiffness_factor, operator_data.boundary_springs);
    initialize(own_matrix, owned_dof_coordinates(dof_handler, dealii::numbers::invalid_unsigned_int), data);
  }

  void
  AmgPreconditioner::initialize(const dealii::TrilinosWrappers::SparseMatrix &new_matrix,
                                const std::vector<double>                    &coordinates,
                                const AmgData                                &data)
  {
    matrix = &new_matrix;
    const dealii::IndexSet owned = matrix->locally_owned_range_indices();
    AssertThrow(coordinates.size() == 3 * owned.n_elements(),
                dealii::ExcMessage("AmgPreconditioner: need 3 coordinates per owned row"));

    dealii::TrilinosWrappers::PreconditionAMG::AdditionalData amg_data;
    amg_data.elliptic              = true;
    amg_data.higher_order_elements = false;
    amg_data.n_cycles              = 1;
    amg_data.aggregation_threshold = data.aggregation_threshold;
    amg_data.smoother_sweeps       = data.smoother_sweeps;
    amg_data.smoother_type =
      data.smoother_type == AmgSmoother::chebyshev ? "Chebyshev" : "symmetric Gauss-Seidel";
    amg_data.coarse_type = "Amesos-KLU";

    Teuchos::ParameterList              parameters;
    std::unique_ptr<Epetra_MultiVector> distributed_modes;
    amg_data.set_parameters(parameters, distributed_modes, *matrix);
    // Three unknowns per node: ML aggregates nodes, not single DoFs.
    parameters.set("PDE equations", 3);
    if (data.rigid_body_modes)
      {
        // Six rigid-body modes, coordinates relative to the global centroid
        // (each rank must use the same origin). Row k is component k % 3
        // (MechanicsOperator's numbering: x, y, z of a vertex consecutive).
        const std::size_t n = owned.n_elements();
        double            sum[4] = {0, 0, 0, static_cast<double>(n / 3)};
        for (std::size_t k = 0; k < n; k += 3)
          for (unsigned int d = 0; d < 3; ++d)
            sum[d] += coordinates[3 * k + d];
        dealii::Utilities::MPI::sum(dealii::ArrayView<const double>(sum, 4), matrix->get_mpi_communicator(),
                                    dealii::ArrayView<double>(sum, 4));
        const double centroid[3] = {sum[0] / std::max(sum[3], 1.), sum[1] / std::max(sum[3], 1.),
                                    sum[2] / std::max(sum[3], 1.)};
        null_space.assign(6 * n, 0.);
        for (std::size_t k = 0; k < n; ++k)
          {
            const unsigned int c = k % 3;
            const double       x = coordinates[3 * k] - centroid[0], y = coordinates[3 * k + 1] - centroid[1],
                         z = coordinates[3 * k + 2] - centroid[2];
            null_space[c * n + k] = 1.;
            // Rotations about z, x, y: (-y, x, 0), (0, -z, y), (z, 0, -x).
            const double rz[3] = {-y, x, 0.}, rx[3] = {0., -z, y}, ry[3] = {z, 0., -x};
            null_space[3 * n + k] = rz[c];
            null_space[4 * n + k] = rx[c];
            null_space[5 * n + k] = ry[c];
          }
        parameters.set("null space: type", "pre-computed");
        parameters.set("null space: dimension", 6);
        parameters.set("null space: vectors", null_space.data());
        parameters.set("null space: add default vectors", false);
      }
    amg.initialize(*matrix, parameters);
    host_src.reinit(owned, matrix->get_mpi_communicator());
    host_dst.reinit(owned, matrix->get_mpi_communicator());
  }

  void
  AmgPreconditioner::vmult(dealii::TrilinosWrappers::MPI::Vector       &dst,
                           const dealii::TrilinosWrappers::MPI::Vector &src) const
  {
    amg.vmult(dst, src);
  }

  void
  AmgPreconditioner::vmult(DeviceVector &dst, const DeviceVector &src) const
  {
    copy_to_trilinos(src, host_src);
    amg.vmult(host_dst, host_src);
    if (dst.get_partitioner() != src.get_partitioner())
      dst.reinit(src, true);
    copy_from_trilinos(host_dst, dst);
  }

  const dealii::TrilinosWrappers::SparseMatrix &
  AmgPreconditioner::get_matrix() const
  {
    AssertThrow(matrix != nullptr, dealii::ExcMessage("AmgPreconditioner not initialized"));
    return *matrix;
  }

} // namespace plastix
