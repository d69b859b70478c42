// Multigrid transfer on the device: matrix-free Q1 prolongation and restriction.
#include <deal.II/base/mpi.h>
#include <deal.II/fe/fe.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/backend/q1_transfer.h>
#include <plastix/solvers/mg_transfer.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace plastix
{
  namespace
  {
    /** Lattice point (0..26, x fastest) of vertex @p v of child @p c of a coarse cell. */
    unsigned int
    lattice_point(const unsigned int c, const unsigned int v)
    {
      unsigned int p = 0, stride = 1;
      for (unsigned int d = 0; d < 3; ++d, stride *= 3)
        p += stride * (((c >> d) & 1) + ((v >> d) & 1));
      return p;
    }

    /** The interpolation weight of coarse vertex @p a at lattice point @p p: a product of 1, 1/2, 0. */
    double
    lattice_weight(const unsigned int p, const unsigned int a)
    {
      double       w      = 1;
      unsigned int stride = 1;
      for (unsigned int d = 0; d < 3; ++d, stride *= 3)
        {
          const unsigned int position = (p / stride) % 3, bit = (a >> d) & 1;
          w *= position == 1 ? 0.5 : (position == 2 * bit ? 1. : 0.);
        }
      return w;
    }

    /**
     * Throw std::logic_error unless the finite element's embedding matrices
     * are the lattice interpolation that backend::Q1Transfer applies: the
     * children of a cell numbered by the parent vertex they touch, their
     * vertices lexicographic, components not coupled.
     */
    void
    check_embedding(const dealii::FiniteElement<3> &fe)
    {
      for (unsigned int c = 0; c < 8; ++c)
        {
          const dealii::FullMatrix<double> &embedding =
            fe.get_prolongation_matrix(c, dealii::RefinementCase<3>::isotropic_refinement);
          for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
            for (unsigned int j = 0; j < fe.n_dofs_per_cell(); ++j)
              {
                const auto [ci, vi] = fe.system_to_component_index(i);
                const auto [cj, vj] = fe.system_to_component_index(j);
                const double expected = ci == cj ? lattice_weight(lattice_point(c, vi), vj) : 0.;
                if (std::abs(embedding(i, j) - expected) > 1e-12)
                  throw std::logic_error("MGTransferDevice: the embedding matrices of " + fe.get_name() +
                                         " are not the Q1 lattice interpolation");
              }
        }
    }

    /** Node of a local DoF range whose three components are consecutive, else std::logic_error. */
    backend::LocalIndex
    node_of(const dealii::Utilities::MPI::Partitioner &layout,
            const dealii::types::global_dof_index      dofs[3])
    {
      const auto l0 = layout.global_to_local(dofs[0]);
      if (l0 % 3 != 0 || layout.global_to_local(dofs[1]) != l0 + 1 || layout.global_to_local(dofs[2]) != l0 + 2)
        throw std::logic_error("MGTransferDevice: the three DoFs of a vertex are not consecutive in the level "
                               "layout (deal.II's default numbering is needed)");
      return static_cast<backend::LocalIndex>(l0 / 3);
    }
  } // namespace

  /** The transfer between level l - 1 and level l. */
  template <typename Number>
  struct MGTransferDevice<Number>::LevelTransfer
  {
    std::unique_ptr<backend::Q1Transfer> q1;
    /** Owned fine DoFs plus the fine DoFs of the children of the coarse cells owned here (ghosts). */
    std::shared_ptr<const dealii::Utilities::MPI::Partitioner> fine_layout;
    /** Prolongated values, or the fine vector with the ghosts the restriction reads. */
    mutable VectorType fine_work;
    /** The restricted vector before it is added to the destination. */
    mutable VectorType coarse_work;
  };

  template <typename Number>
  MGTransferDevice<Number>::MGTransferDevice() = default;

  template <typename Number>
  MGTransferDevice<Number>::~MGTransferDevice() = default;

  template <typename Number>
  void
  MGTransferDevice<Number>::initialize(
    const dealii::DoFHandler<3>                                                    &active_dofs,
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
    const unsigned int n_processes   = dealii::Utilities::MPI::n_mpi_processes(communicator);
    if (dofs_per_cell != 24 || fe.n_components() != 3)
      throw std::invalid_argument("MGTransferDevice needs FESystem(FE_Q(1), 3); got " + fe.get_name());
    check_embedding(fe);
    // Cell DoF of component c of vertex v.
    unsigned int cell_dof[8][3];
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      {
        const auto [component, vertex] = fe.system_to_component_index(i);
        cell_dof[vertex][component]    = i;
      }

    for (unsigned int l = 1; l < n_levels; ++l)
      {
        const bool  fine_is_active = l == finest;
        const auto &coarse_layout  = *layouts[l - 1];
        auto        transfer       = std::make_unique<LevelTransfer>();

        // The fine DoFs of the children of the coarse cells owned here, through
        // the active DoFs on the finest level.
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
        // (One process owns every fine DoF: no ghosts to look for.)
        std::vector<dealii::types::global_dof_index> ghost_rows;
        if (n_processes > 1)
          for (const auto &cell : level_dofs.mg_cell_iterators_on_level(l - 1))
            {
              if (!cell->is_locally_owned_on_level())
                continue;
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

        // Fine layout: owned DoFs plus the fine DoFs of the owned coarse
        // cells' children. The level's own layout serves if it already has
        // all those ghosts.
        const dealii::IndexSet &level_ghosts = fine_layout->ghost_indices();
        const bool fits = dealii::Utilities::MPI::min((needed & level_ghosts) == needed ? 1 : 0, communicator) == 1;
        transfer->fine_layout =
          fits ? fine_layout :
                 std::make_shared<const dealii::Utilities::MPI::Partitioner>(owned, needed, communicator);
        const auto &layout = *transfer->fine_layout;

        const std::size_t n_fine_local   = layout.locally_owned_size() + layout.n_ghost_indices();
        const std::size_t n_coarse_local = coarse_layout.locally_owned_size() + coarse_layout.n_ghost_indices();
        if (n_fine_local % 3 != 0 || n_coarse_local % 3 != 0)
          throw std::logic_error("MGTransferDevice: a level layout does not hold whole vertices");

        backend::TransferData data;
        data.n_coarse_nodes = n_coarse_local / 3;
        data.n_fine_nodes   = n_fine_local / 3;
        data.coarse_constrained.assign(n_coarse_local, 0);
        data.fine_constrained.assign(n_fine_local, 0);
        for (const auto i : fine_is_active ? fine_boundary : level_boundary[l])
          if (layout.in_local_range(i) || layout.is_ghost_entry(i))
            data.fine_constrained[layout.global_to_local(i)] = 1;
        for (const auto i : level_boundary[l - 1])
          if (coarse_layout.in_local_range(i) || coarse_layout.is_ghost_entry(i))
            data.coarse_constrained[coarse_layout.global_to_local(i)] = 1;

        // Each owned coarse cell: its 8 vertices and the 27 vertices of its children.
        dealii::LinearAlgebra::distributed::Vector<double> cells_of_node(transfer->fine_layout);
        for (const auto &cell : level_dofs.mg_cell_iterators_on_level(l - 1))
          {
            if (!cell->is_locally_owned_on_level())
              continue;
            if (!cell->has_children())
              throw std::logic_error("MGTransferDevice: an owned level cell without children below the finest level");
            cell->get_mg_dof_indices(coarse_dofs);
            for (unsigned int a = 0; a < 8; ++a)
              {
                const dealii::types::global_dof_index vertex[3] = {coarse_dofs[cell_dof[a][0]],
                                                                   coarse_dofs[cell_dof[a][1]],
                                                                   coarse_dofs[cell_dof[a][2]]};
                data.coarse_cell_nodes.push_back(node_of(coarse_layout, vertex));
              }
            std::array<backend::LocalIndex, 27> lattice;
            lattice.fill(-1);
            for (unsigned int c = 0; c < cell->n_children(); ++c)
              {
                child_dofs(cell, c);
                for (unsigned int v = 0; v < 8; ++v)
                  {
                    const dealii::types::global_dof_index vertex[3] = {fine_dofs[cell_dof[v][0]],
                                                                       fine_dofs[cell_dof[v][1]],
                                                                       fine_dofs[cell_dof[v][2]]};
                    const auto node     = node_of(layout, vertex);
                    auto      &position = lattice[lattice_point(c, v)];
                    if (position >= 0 && position != node)
                      throw std::logic_error("MGTransferDevice: two children of a cell disagree on a shared vertex");
                    position = node;
                  }
              }
            for (const auto node : lattice)
              {
                data.fine_cell_nodes.push_back(node);
                cells_of_node.local_element(3 * static_cast<std::size_t>(node)) += 1.;
              }
          }
        // Every rank needs the global count of each of its fine nodes.
        cells_of_node.compress(dealii::VectorOperation::add);
        cells_of_node.update_ghost_values();
        data.fine_node_weights.assign(data.n_fine_nodes, 0.);
        for (backend::LocalIndex node = 0; node < data.n_fine_nodes; ++node)
          {
            const double count = cells_of_node.local_element(3 * static_cast<std::size_t>(node));
            data.fine_node_weights[node] = count > 0 ? 1. / count : 0.;
          }

        transfer->q1 = std::make_unique<backend::Q1Transfer>(data);
        transfer->fine_work.reinit(transfer->fine_layout);
        transfer->coarse_work.reinit(layouts[l - 1]);
        transfers[l] = std::move(transfer);
      }
  }

  template <typename Number>
  void
  MGTransferDevice<Number>::prolongate(const unsigned int to_level, VectorType &dst, const VectorType &src) const
  {
    if (to_level < layouts.size() && dst.get_partitioner() != layouts[to_level])
      dst.reinit(layouts[to_level]);
    else
      dst = Number(0);
    prolongate_and_add(to_level, dst, src);
  }

  template <typename Number>
  void
  MGTransferDevice<Number>::prolongate_and_add(const unsigned int to_level,
                                               VectorType        &dst,
                                               const VectorType  &src) const
  {
    AssertThrow(to_level > 0 && to_level < transfers.size(), dealii::ExcIndexRange(to_level, 1, transfers.size()));
    const LevelTransfer &transfer = *transfers[to_level];
    AssertThrow(src.get_partitioner() == layouts[to_level - 1] ||
                  src.get_partitioner()->is_compatible(*layouts[to_level - 1]),
                dealii::ExcMessage("MGTransferDevice: the coarse vector has another layout than its level"));
    src.update_ghost_values();
    if (dst.get_partitioner()->n_mpi_processes() == 1)
      {
        // One process: no partial sums at shared nodes to exchange, so the
        // kernel adds P src to dst itself (no zeroed temporary, no second pass).
        transfer.q1->prolongate(src.device_data(), dst.device_data(), true);
        return;
      }
    transfer.q1->prolongate(src.device_data(), transfer.fine_work.device_data());
    transfer.fine_work.compress(dealii::VectorOperation::add);
    dst.add(Number(1), transfer.fine_work);
  }

  template <typename Number>
  void
  MGTransferDevice<Number>::restrict_and_add(const unsigned int from_level,
                                             VectorType        &dst,
                                             const VectorType  &src) const
  {
    AssertThrow(from_level > 0 && from_level < transfers.size(),
                dealii::ExcIndexRange(from_level, 1, transfers.size()));
    const LevelTransfer &transfer = *transfers[from_level];
    const VectorType    *fine     = &src;
    if (src.get_partitioner() != transfer.fine_layout)
      {
        transfer.fine_work.equ(Number(1), src);
        fine = &transfer.fine_work;
      }
    fine->update_ghost_values();
    if (dst.get_partitioner()->n_mpi_processes() == 1)
      {
        // One process: the kernel adds P^T src to dst itself, as above.
        transfer.q1->restrict_to_coarse(fine->device_data(), dst.device_data(), true);
        return;
      }
    transfer.q1->restrict_to_coarse(fine->device_data(), transfer.coarse_work.device_data());
    transfer.coarse_work.compress(dealii::VectorOperation::add);
    dst.add(Number(1), transfer.coarse_work);
  }

  template <typename Number>
  template <typename OtherNumber>
  void
  MGTransferDevice<Number>::copy_to_mg(const dealii::DoFHandler<3> &,
                                       dealii::MGLevelObject<VectorType> &dst,
                                       const device::Vector<OtherNumber> &src) const
  {
    const unsigned int finest = layouts.size() - 1;
    // MGLevelObject::resize() destroys and recreates every level vector:
    // only on the first V-cycle, not in every one (device allocations).
    if (dst.n_levels() != finest + 1 || dst.min_level() != 0)
      dst.resize(0, finest);
    for (unsigned int l = 0; l <= finest; ++l)
      {
        if (dst[l].get_partitioner() != layouts[l])
          dst[l].reinit(layouts[l], l == finest);
        else if (l < finest)
          dst[l] = Number(0);
      }
    dst[finest].copy_converted(input_scaling, src);
  }

  template <typename Number>
  template <typename OtherNumber>
  void
  MGTransferDevice<Number>::copy_from_mg(const dealii::DoFHandler<3> &,
                                         device::Vector<OtherNumber>             &dst,
                                         const dealii::MGLevelObject<VectorType> &src) const
  {
    const unsigned int finest = layouts.size() - 1;
    if (dst.get_partitioner() != layouts[finest])
      dst.reinit(layouts[finest], true);
    dst.copy_converted(1. / input_scaling, src[finest]);
  }

  template <typename Number>
  template <typename OtherNumber>
  void
  MGTransferDevice<Number>::copy_from_mg_add(const dealii::DoFHandler<3> &,
                                             device::Vector<OtherNumber>             &dst,
                                             const dealii::MGLevelObject<VectorType> &src) const
  {
    dst.add_converted(1. / input_scaling, src[layouts.size() - 1]);
  }

  template <typename Number>
  void
  MGTransferDevice<Number>::set_input_scaling(const double factor) const
  {
    int exponent = 0;
    if (!(factor > 0.) || !std::isfinite(factor) || std::frexp(factor, &exponent) != 0.5)
      throw std::invalid_argument("MGTransferDevice::set_input_scaling: the factor must be a positive power of two");
    input_scaling = factor;
  }

  template <typename Number>
  unsigned int
  MGTransferDevice<Number>::n_levels() const
  {
    return layouts.size();
  }

  template <typename Number>
  std::size_t
  MGTransferDevice<Number>::memory_consumption() const
  {
    std::size_t bytes = 0;
    for (const auto &transfer : transfers)
      if (transfer)
        bytes += transfer->q1->memory_consumption() + transfer->fine_work.memory_consumption() +
                 transfer->coarse_work.memory_consumption();
    return bytes;
  }

  template class MGTransferDevice<double>;
  template class MGTransferDevice<float>;
  template void MGTransferDevice<double>::copy_to_mg(const dealii::DoFHandler<3> &,
                                                     dealii::MGLevelObject<device::Vector<double>> &,
                                                     const device::Vector<double> &) const;
  template void MGTransferDevice<float>::copy_to_mg(const dealii::DoFHandler<3> &,
                                                    dealii::MGLevelObject<device::Vector<float>> &,
                                                    const device::Vector<double> &) const;
  template void MGTransferDevice<double>::copy_from_mg(const dealii::DoFHandler<3> &, device::Vector<double> &,
                                                       const dealii::MGLevelObject<device::Vector<double>> &) const;
  template void MGTransferDevice<float>::copy_from_mg(const dealii::DoFHandler<3> &, device::Vector<double> &,
                                                      const dealii::MGLevelObject<device::Vector<float>> &) const;
  template void
  MGTransferDevice<double>::copy_from_mg_add(const dealii::DoFHandler<3> &, device::Vector<double> &,
                                             const dealii::MGLevelObject<device::Vector<double>> &) const;
  template void
  MGTransferDevice<float>::copy_from_mg_add(const dealii::DoFHandler<3> &, device::Vector<double> &,
                                            const dealii::MGLevelObject<device::Vector<float>> &) const;
} // namespace plastix

// deal.II defines these two defaults of its multigrid base classes in its
// library, for its own vector types only; the vtables of the device vector
// instantiations need them.
#define PLASTIX_MG_BASE_DEFAULTS(Number)                                                                      \
  template <>                                                                                                  \
  void dealii::MGTransferBase<plastix::device::Vector<Number>>::prolongate_and_add(                            \
    const unsigned int to_level, plastix::device::Vector<Number> &dst, const plastix::device::Vector<Number> &src) \
    const                                                                                                      \
  {                                                                                                            \
    plastix::device::Vector<Number> temporary;                                                                 \
    temporary.reinit(dst, true);                                                                               \
    prolongate(to_level, temporary, src);                                                                      \
    dst += temporary;                                                                                          \
  }                                                                                                            \
                                                                                                               \
  template <>                                                                                                  \
  void dealii::MGSmootherBase<plastix::device::Vector<Number>>::apply(                                         \
    const unsigned int level, plastix::device::Vector<Number> &u, const plastix::device::Vector<Number> &rhs)  \
    const                                                                                                      \
  {                                                                                                            \
    u = Number(0);                                                                                             \
    smooth(level, u, rhs);                                                                                     \
  }
PLASTIX_MG_BASE_DEFAULTS(double)
PLASTIX_MG_BASE_DEFAULTS(float)
#undef PLASTIX_MG_BASE_DEFAULTS
