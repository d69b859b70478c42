// What the host-side preconditioners and the multigrid transfer share: the
// cell DoF of each vertex component, the vertex coordinates of the owned DoFs (AMG's rigid-body modes), copies between device vectors and
// Trilinos vectors, a vector gathered over the ranks, and the dense coarse
// inverse's size limit and cost estimate.
#ifndef PLASTIX_SOURCE_SOLVERS_PRECONDITIONER_TOOLS_H
#define PLASTIX_SOURCE_SOLVERS_PRECONDITIONER_TOOLS_H

#include <deal.II/base/mpi.h>
#include <deal.II/base/types.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe.h>
#include <deal.II/lac/trilinos_vector.h>

#include <plastix/core/device_vector.h>

#include <cstddef>
#include <vector>

namespace plastix
{
  namespace internal
  {
    /** Which cell DoF is component c of vertex v (FESystem(FE_Q(1), 3)): index[v][c]. */
    struct CellDofTable
    {
      CellDofTable() = default;

      explicit CellDofTable(const dealii::FiniteElement<3> &fe);

      unsigned int index[8][3] = {};
    };

    /**
     * x, y, z of the vertex of each locally owned DoF (3 values per owned
     * row), from the owned cells of @p level (numbers::invalid_unsigned_int:
     * the active cells).
     */
    std::vector<double>
    owned_dof_coordinates(const dealii::DoFHandler<3> &dof_handler, unsigned int level);

    /** Copy the owned entries of a DeviceVector into a Trilinos vector of the same layout. */
    void
    copy_to_trilinos(const DeviceVector &src, dealii::TrilinosWrappers::MPI::Vector &dst);

    /** Copy the owned entries of a Trilinos vector into a DeviceVector of the same layout. */
    void
    copy_from_trilinos(const dealii::TrilinosWrappers::MPI::Vector &src, DeviceVector &dst);

    /** Where each rank's part lies in a vector concatenated over the ranks (MPI_Allgatherv's counts and offsets). */
    struct GatherLayout
    {
      /** The layout of parts of @p local_size entries on each rank of @p communicator (collective). */
      GatherLayout(const MPI_Comm communicator, const std::size_t local_size)
        : counts(dealii::Utilities::MPI::all_gather(communicator, static_cast<int>(local_size)))
        , offsets(counts.size(), 0)
      {
        for (std::size_t r = 1; r < counts.size(); ++r)
          offsets[r] = offsets[r - 1] + counts[r - 1];
      }

      /** Entries of the whole vector. */
      std::size_t
      size() const
      {
        return offsets.back() + counts.back();
      }

      /** @p whole = every rank's @p local, in rank order (collective; @p type: MPI's type of T). */
      template <typename T>
      void
      all_gather(const MPI_Comm communicator, const std::vector<T> &local, const MPI_Datatype type, T *whole) const
      {
        MPI_Allgatherv(local.data(), static_cast<int>(local.size()), type, whole, counts.data(), offsets.data(), type,
                       communicator);
      }

      std::vector<int> counts, offsets;
    };

    /** Most level-0 DoFs of the dense inverse: n^2 entries within cuSOLVER's and LAPACK's 32-bit sizes. */
    constexpr dealii::types::global_dof_index max_dense_inverse_dofs = 46340;

    /**
     * Estimated seconds of the dense inverse's set-up for @p n level-0 DoFs
     * (assembly, gathering, factorisation, inversion), the price against
     * which CoarseSolverType::automatic weighs the coarse cg's solves: on a
     * GPU 3.5 ns per entry of the n x n matrix and 0.2 s for cuSOLVER's
     * start (set-up times measured on GPUs: doc/solvers.md, "Multigrid
     * settings"); on the host
     * n^3 flops at 1 GFlop/s (LAPACK's Cholesky and inverse).
     */
    double
    dense_inverse_setup_estimate(dealii::types::global_dof_index n);
  } // namespace internal
} // namespace plastix

#endif
