// Multigrid transfer on the device (CSR prolongation and restriction).
#include <deal.II/base/mpi.h>
#include <deal.II/fe/fe.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/backend/csr_matrix.h>
#include <plastix/dealii/mg_transfer.h>

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace plastix
{
  /** The transfer between level l - 1 and level l. */
  struct MGTransferDevice::LevelTransfer
  {
    std::unique_ptr<backend::DeviceCsrMatrix> prolongation, restriction;
    /** Owned fine DoFs plus the fine rows this rank computes (ghosts). */
    std::shared_ptr<const dealii::Utilities::MPI::Partitioner> fine_layout;
    /** Prolongated values, or the fine vector with the ghosts the restriction reads. */
    mutable DeviceVector fine_work;
    /** The restricted vector before it is added to the destination. */
    mutable DeviceVector coarse_work;
  };

  MGTransferDevice::MGTransferDevice() = default;

  MGTransferDevice::~MGTransferDevice() = default;

  void
  MGTransferDevice::initialize(const dealii::DoFHandler<3>                                                    &active_dofs,
                               const dealii::DoFHandler<3>                                                    &level_dofs,
                               const std::vector<std::shared_ptr<const dealii::Utilities::MPI::Partitioner>> &new_layouts,
                               const std::vector<dealii::IndexSet>                                            &level_boundary,
                               const dealii::IndexSet                                                         &fine_boundary)
  {
    const unsigned int n_levels = active_dofs.get_triangulation().n_global_levels();
    if (new_layouts.size() != n_levels || level_boundary.size() + 1 < n_levels)
      throw std::invalid_argument("MGTransferDevice: need one layout per level and the boundary DoFs of every "
                                  "level below the finest");
    layouts = new_layouts;
    transfers.clear();
    transfers.resize(n_levels);

    const unsigned int finest        = n_levels - 1;
    const auto        &fe            = level_dofs.get_fe();
    const unsigned int dofs_per_cell = fe.n_dofs_per_cell();
    const MPI_Comm     communicator  = active_dofs.get_communicator();
    for (unsigned int l = 1; l < n_levels; ++l)
      {
        const bool  fine_is_active = l == finest;
        const auto &coarse_layout  = *layouts[l - 1];
        auto        transfer       = std::make_unique<LevelTransfer>();

        // The fine DoFs of the children of the coarse cells owned here (the
        // rows this rank computes), through the active DoFs on the finest level.
        std::vector<dealii::types::global_dof_index> coarse_dofs(dofs_per_cell), fine_dofs(dofs_per_cell);
        auto child_dofs = [&](const auto &cell, const unsigned int c) {
          const auto child = cell->child(c);
          if (fine_is_active)
            {
              const typename dealii::DoFHandler<3>::cell_iterator active_child(&active_dofs.get_triangulation(),
                                                                               child->level(), child->index(),
                                                                               &active_dofs);
              if (!active_child->is_active() || (!active_child->is_locally_owned() && !active_child->is_ghost()))
                throw std::logic_error("MGTransferDevice: a child of an owned level cell is neither owned nor "
                                       "a ghost on the active mesh (unexpected partition)");
              active_child->get_dof_indices(fine_dofs);
            }
          else
            child->get_mg_dof_indices(fine_dofs);
        };
        const auto             &fine_layout = layouts[l];
        const dealii::IndexSet &owned       = fine_layout->locally_owned_range();
        std::vector<dealii::types::global_dof_index> ghost_rows;
        for (const auto &cell : level_dofs.mg_cell_iterators_on_level(l - 1))
          {
            if (!cell->is_locally_owned_on_level())
              continue;
            if (!cell->has_children())
              throw std::logic_error("MGTransferDevice: an owned level cell without children below the finest level");
            for (unsigned int c = 0; c < cell->n_children(); ++c)
              {
                child_dofs(cell, c);
                for (const auto i : fine_dofs)
                  if (!owned.is_element(i))
                    ghost_rows.push_back(i);
              }
          }
        std::sort(ghost_rows.begin(), ghost_rows.end());
        ghost_rows.erase(std::unique(ghost_rows.begin(), ghost_rows.end()), ghost_rows.end());
        dealii::IndexSet needed(owned.size());
        needed.add_indices(ghost_rows.begin(), ghost_rows.end());
        needed.compress();

        // Fine layout: owned DoFs plus the rows computed here. The level's
        // own layout serves if it already has all those ghosts.
        const dealii::IndexSet &level_ghosts = fine_layout->ghost_indices();
        const bool fits = dealii::Utilities::MPI::min((needed & level_ghosts) == needed ? 1 : 0, communicator) == 1;
        transfer->fine_layout =
          fits ? fine_layout :
                 std::make_shared<const dealii::Utilities::MPI::Partitioner>(owned, needed, communicator);
        const auto &layout = *transfer->fine_layout;

        // Dirichlet flags of the local fine and coarse DoFs.
        const std::size_t n_fine_local   = layout.locally_owned_size() + layout.n_ghost_indices();
        const std::size_t n_coarse_local = coarse_layout.locally_owned_size() + coarse_layout.n_ghost_indices();
        std::vector<char> fine_fixed(n_fine_local, 0), coarse_fixed(n_coarse_local, 0);
        for (const auto i : fine_is_active ? fine_boundary : level_boundary[l])
          if (layout.in_local_range(i) || layout.is_ghost_entry(i))
            fine_fixed[layout.global_to_local(i)] = 1;
        for (const auto i : level_boundary[l - 1])
          if (coarse_layout.in_local_range(i) || coarse_layout.is_ghost_entry(i))
            coarse_fixed[coarse_layout.global_to_local(i)] = 1;

        // Rows of P, each computed from the first coarse cell that has the
        // fine DoF (any cell gives the same value of the continuous coarse
        // function); at most 8 entries (the coarse vertices of the same
        // component). Coarse Dirichlet columns and fine Dirichlet rows are
        // left out.
        constexpr unsigned int    max_row_length = 8;
        std::vector<std::int32_t> row_columns(max_row_length * n_fine_local);
        std::vector<double>       row_values(max_row_length * n_fine_local);
        std::vector<unsigned char> row_length(n_fine_local, 0);
        std::vector<char>          computed(n_fine_local, 0);
        std::vector<std::int32_t>  coarse_local(dofs_per_cell);
        for (const auto &cell : level_dofs.mg_cell_iterators_on_level(l - 1))
          {
            if (!cell->is_locally_owned_on_level())
              continue;
            cell->get_mg_dof_indices(coarse_dofs);
            for (unsigned int j = 0; j < dofs_per_cell; ++j)
              coarse_local[j] = coarse_layout.global_to_local(coarse_dofs[j]);
            for (unsigned int c = 0; c < cell->n_children(); ++c)
              {
                child_dofs(cell, c);
                const dealii::FullMatrix<double> &embedding =
                  fe.get_prolongation_matrix(c, dealii::RefinementCase<3>::isotropic_refinement);
                for (unsigned int i = 0; i < dofs_per_cell; ++i)
                  {
                    const auto row = layout.global_to_local(fine_dofs[i]);
                    if (computed[row])
                      continue;
                    computed[row] = 1;
                    if (fine_fixed[row])
                      continue;
                    for (unsigned int j = 0; j < dofs_per_cell; ++j)
                      if (std::abs(embedding(i, j)) > 1e-12 && !coarse_fixed[coarse_local[j]])
                        {
                          if (row_length[row] == max_row_length)
                            throw std::logic_error("MGTransferDevice: more than 8 coarse DoFs in a row of the "
                                                   "prolongation (not a Q1 vector element?)");
                          row_columns[max_row_length * row + row_length[row]] = coarse_local[j];
                          row_values[max_row_length * row + row_length[row]]  = embedding(i, j);
                          ++row_length[row];
                        }
                  }
              }
          }

        // Weights 1 / (ranks computing the row): the sum at the owner is exact.
        dealii::LinearAlgebra::distributed::Vector<double> count(transfer->fine_layout);
        for (std::size_t i = 0; i < n_fine_local; ++i)
          if (computed[i])
            count.local_element(i) = 1.;
        count.compress(dealii::VectorOperation::add);
        count.update_ghost_values();

        backend::CsrMatrixHost P;
        P.n_rows = n_fine_local;
        P.row_offsets.assign(n_fine_local + 1, 0);
        P.columns.reserve(std::accumulate(row_length.begin(), row_length.end(), std::size_t(0)));
        P.values.reserve(P.columns.capacity());
        for (std::size_t i = 0; i < n_fine_local; ++i)
          {
            if (computed[i])
              {
                const double weight = 1. / count.local_element(i);
                for (unsigned int k = 0; k < row_length[i]; ++k)
                  {
                    P.columns.push_back(row_columns[max_row_length * i + k]);
                    P.values.push_back(weight * row_values[max_row_length * i + k]);
                  }
              }
            P.row_offsets[i + 1] = P.columns.size();
          }
        // Restriction R = P^T: rows are the coarse local DoFs.
        backend::CsrMatrixHost R;
        R.n_rows = n_coarse_local;
        R.row_offsets.assign(n_coarse_local + 1, 0);
        for (const auto column : P.columns)
          ++R.row_offsets[column + 1];
        for (std::size_t i = 0; i < n_coarse_local; ++i)
          R.row_offsets[i + 1] += R.row_offsets[i];
        R.columns.resize(P.columns.size());
        R.values.resize(P.values.size());
        std::vector<std::int32_t> fill(R.row_offsets.begin(), R.row_offsets.end() - 1);
        for (std::size_t i = 0; i < n_fine_local; ++i)
          for (std::int32_t k = P.row_offsets[i]; k < P.row_offsets[i + 1]; ++k)
            {
              const std::int32_t position = fill[P.columns[k]]++;
              R.columns[position]         = i;
              R.values[position]          = P.values[k];
            }
        transfer->prolongation = std::make_unique<backend::DeviceCsrMatrix>(P);
        transfer->restriction  = std::make_unique<backend::DeviceCsrMatrix>(R);
        transfer->fine_work.reinit(transfer->fine_layout);
        transfer->coarse_work.reinit(layouts[l - 1]);
        transfers[l] = std::move(transfer);
      }
  }

  void
  MGTransferDevice::prolongate(const unsigned int to_level, DeviceVector &dst, const DeviceVector &src) const
  {
    if (to_level < layouts.size() && dst.get_partitioner() != layouts[to_level])
      dst.reinit(layouts[to_level]);
    else
      dst = 0.;
    prolongate_and_add(to_level, dst, src);
  }

  void
  MGTransferDevice::prolongate_and_add(const unsigned int to_level, DeviceVector &dst, const DeviceVector &src) const
  {
    AssertThrow(to_level > 0 && to_level < transfers.size(), dealii::ExcIndexRange(to_level, 1, transfers.size()));
    const LevelTransfer &transfer = *transfers[to_level];
    AssertThrow(src.get_partitioner() == layouts[to_level - 1] || src.get_partitioner()->is_compatible(*layouts[to_level - 1]),
                dealii::ExcMessage("MGTransferDevice: the coarse vector has another layout than its level"));
    src.update_ghost_values();
    transfer.prolongation->vmult(src.device_data(), transfer.fine_work.device_data());
    transfer.fine_work.compress(dealii::VectorOperation::add);
    dst.add(1., transfer.fine_work);
  }

  void
  MGTransferDevice::restrict_and_add(const unsigned int from_level, DeviceVector &dst, const DeviceVector &src) const
  {
    AssertThrow(from_level > 0 && from_level < transfers.size(), dealii::ExcIndexRange(from_level, 1, transfers.size()));
    const LevelTransfer &transfer = *transfers[from_level];
    const DeviceVector  *fine     = &src;
    if (src.get_partitioner() != transfer.fine_layout)
      {
        transfer.fine_work.equ(1., src);
        fine = &transfer.fine_work;
      }
    fine->update_ghost_values();
    transfer.restriction->vmult(fine->device_data(), transfer.coarse_work.device_data());
    transfer.coarse_work.compress(dealii::VectorOperation::add);
    dst.add(1., transfer.coarse_work);
  }

  void
  MGTransferDevice::copy_to_mg(const dealii::DoFHandler<3> &,
                               dealii::MGLevelObject<DeviceVector> &dst,
                               const DeviceVector                  &src) const
  {
    const unsigned int finest = layouts.size() - 1;
    dst.resize(0, finest);
    for (unsigned int l = 0; l <= finest; ++l)
      {
        if (dst[l].get_partitioner() != layouts[l])
          dst[l].reinit(layouts[l], l == finest);
        else if (l < finest)
          dst[l] = 0.;
      }
    dst[finest].equ(1., src);
  }

  void
  MGTransferDevice::copy_from_mg(const dealii::DoFHandler<3> &,
                                 DeviceVector                              &dst,
                                 const dealii::MGLevelObject<DeviceVector> &src) const
  {
    const unsigned int finest = layouts.size() - 1;
    if (dst.get_partitioner() != layouts[finest])
      dst.reinit(layouts[finest], true);
    dst.equ(1., src[finest]);
  }

  void
  MGTransferDevice::copy_from_mg_add(const dealii::DoFHandler<3> &,
                                     DeviceVector                              &dst,
                                     const dealii::MGLevelObject<DeviceVector> &src) const
  {
    dst.add(1., src[layouts.size() - 1]);
  }

  unsigned int
  MGTransferDevice::n_levels() const
  {
    return layouts.size();
  }

  std::size_t
  MGTransferDevice::memory_consumption() const
  {
    std::size_t bytes = 0;
    for (const auto &transfer : transfers)
      if (transfer)
        bytes += transfer->prolongation->memory_consumption() + transfer->restriction->memory_consumption() +
                 transfer->fine_work.memory_consumption() + transfer->coarse_work.memory_consumption();
    return bytes;
  }
} // namespace plastix

// deal.II defines these two defaults of its multigrid base classes in its
// library, for its own vector types only; the vtables of the DeviceVector
// instantiations need them.
template <>
void
dealii::MGTransferBase<plastix::DeviceVector>::prolongate_and_add(const unsigned int           to_level,
                                                                  plastix::DeviceVector       &dst,
                                                                  const plastix::DeviceVector &src) const
{
  plastix::DeviceVector temporary;
  temporary.reinit(dst, true);
  prolongate(to_level, temporary, src);
  dst += temporary;
}

template <>
void
dealii::MGSmootherBase<plastix::DeviceVector>::apply(const unsigned int           level,
                                                     plastix::DeviceVector       &u,
                                                     const plastix::DeviceVector &rhs) const
{
  u = 0.;
  smooth(level, u, rhs);
}
