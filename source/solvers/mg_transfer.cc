// Multigrid transfer on the device: matrix-free Q1 prolongation and restriction.
#include <deal.II/base/mpi.h>
#include <deal.II/fe/fe.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/backend/q1_transfer.h>
#include <plastix/core/collective_failure.h>
#include <plastix/solvers/mg_transfer.h>

#include "preconditioner_tools.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <utility>

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

    using GlobalIndex = dealii::types::global_dof_index;

    /** The DoF of component 0 of a vertex whose three DoFs are consecutive, else std::logic_error. */
    GlobalIndex
    first_of_vertex(const GlobalIndex dofs[3])
    {
      if (dofs[1] != dofs[0] + 1 || dofs[2] != dofs[0] + 2)
        throw std::logic_error("MGTransferDevice: the three DoFs of a vertex are not consecutive "
                               "(deal.II's default numbering is needed)");
      return dofs[0];
    }

    /** The three DoFs of the vertices with first DoFs @p first, as an index set of size @p size. */
    dealii::IndexSet
    vertex_dofs(const GlobalIndex size, std::vector<GlobalIndex> first)
    {
      std::sort(first.begin(), first.end());
      first.erase(std::unique(first.begin(), first.end()), first.end());
      std::vector<GlobalIndex> dofs;
      dofs.reserve(3 * first.size());
      for (const GlobalIndex i : first)
        for (unsigned int c = 0; c < 3; ++c)
          dofs.push_back(i + c);
      dealii::IndexSet set(size);
      set.add_indices(dofs.begin(), dofs.end());
      set.compress();
      return set;
    }

    /**
     * The owners of the DoFs in @p look_up (owned elsewhere): a function
     * of a DoF in the set. Collective.
     */
    class OwnerLookup
    {
    public:
      OwnerLookup(const dealii::IndexSet &owned, dealii::IndexSet look_up, const MPI_Comm communicator)
        : set(std::move(look_up))
        , owners(dealii::Utilities::MPI::compute_index_owner(owned, set, communicator))
      {}

      unsigned int
      operator()(const GlobalIndex i) const
      {
        return owners[set.index_within_set(i)];
      }

    private:
      dealii::IndexSet          set;
      std::vector<unsigned int> owners;
    };

    /**
     * The gather form of the transfer between two levels on several
     * processes (backend::TransferData::fine_node_cell and the
     * restriction's rows), in global numbering, assembled from every
     * process's coarse cells so that each process's owned rows of P and of
     * R = P^T are complete.
     */
    struct GlobalGatherForm
    {
      /** The coarse cells to interpolate in: the 8 vertices of each (first DoFs). */
      std::vector<std::array<GlobalIndex, 8>> cells;
      /** Per owned fine vertex: its cell and lattice position. */
      std::vector<dealii::types::global_dof_index> fine_cell;
      std::vector<std::uint8_t>                    fine_position;
      /** Per owned coarse vertex up to 27 (fine vertex, midpoint axes) entries. */
      std::vector<std::array<std::pair<GlobalIndex, std::uint8_t>, 27>> rows;
      std::vector<std::uint8_t>                                         row_length;
    };

    /**
     * The cells that other processes sent for the owned fine vertices
     * without a cell yet (entries: fine vertex, the cell's 8 coarse
     * vertices, the lattice position): first those whose coarse vertices
     * are all in @p coarse_relevant (no new ghosts), then any; each cell is
     * added to @p form once.
     */
    template <typename Received>
    void
    take_received_cells(const Received         &prolongation_in,
                        const dealii::IndexSet &fine_owned,
                        const dealii::IndexSet &coarse_relevant,
                        GlobalGatherForm       &form)
    {
      constexpr auto none = dealii::numbers::invalid_dof_index;
      std::map<std::array<GlobalIndex, 8>, std::size_t> received_cells;
      for (const bool only_relevant : {true, false})
        for (const auto &[rank, entries] : prolongation_in)
          for (const auto &entry : entries)
            {
              if (!fine_owned.is_element(entry[0]))
                throw std::logic_error("MGTransferDevice: received a fine vertex owned elsewhere");
              const std::size_t node = fine_owned.index_within_set(entry[0]) / 3;
              if (form.fine_cell[node] != none)
                continue;
              std::array<GlobalIndex, 8> vertices;
              std::copy(entry.begin() + 1, entry.begin() + 9, vertices.begin());
              if (only_relevant && !std::all_of(vertices.begin(), vertices.end(), [&](const GlobalIndex c) {
                    return coarse_relevant.is_element(c);
                  }))
                continue;
              const auto [position, is_new] = received_cells.emplace(vertices, form.cells.size());
              if (is_new)
                form.cells.push_back(vertices);
              form.fine_cell[node]     = position->second;
              form.fine_position[node] = static_cast<std::uint8_t>(entry[9]);
            }
    }

    /**
     * Build the gather form from the coarse cells owned here, given by their
     * vertices and the 27 lattice vertices of their children (first DoFs).
     * A fine vertex owned elsewhere sends its lattice position and cell to
     * its owner; a coarse vertex owned elsewhere sends its entries of R. A
     * fine vertex owned here interpolates in a cell owned here where it has
     * one, else in a cell received whose vertices are in @p coarse_relevant
     * where there is one (no new ghosts), else in any cell received.
     * Collective; a failure of one process throws on every process
     * (@p failures: the ranks agree before each collective step). A rank
     * whose last local step failed returns an incomplete form with the
     * failure kept in @p failures: the caller agrees before its next
     * collective step.
     */
    GlobalGatherForm
    build_gather_form(std::vector<std::array<GlobalIndex, 8>>         cell_vertices,
                      const std::vector<std::array<GlobalIndex, 27>> &cell_lattice,
                      const dealii::IndexSet                         &coarse_owned,
                      const dealii::IndexSet                         &coarse_relevant,
                      const dealii::IndexSet                         &fine_owned,
                      const MPI_Comm                                  communicator,
                      internal::CollectiveFailure                    &failures)
    {
      using ProlongationEntry = std::array<GlobalIndex, 10>; // fine vertex, 8 cell vertices, position
      using RestrictionEntry  = std::array<GlobalIndex, 3>;  // coarse vertex, fine vertex, midpoint axes
      GlobalGatherForm form;
      // The owned cells first; cells received for owned fine vertices follow.
      form.cells                      = std::move(cell_vertices);
      const std::size_t n_owned_cells = form.cells.size();

      std::vector<GlobalIndex> foreign_fine, foreign_coarse;
      for (const auto &lattice : cell_lattice)
        for (const GlobalIndex f : lattice)
          if (!fine_owned.is_element(f))
            foreign_fine.push_back(f);
      for (const auto &vertices : form.cells)
        for (const GlobalIndex c : vertices)
          if (!coarse_owned.is_element(c))
            foreign_coarse.push_back(c);
      failures.throw_on_every_rank(communicator);
      const OwnerLookup fine_owner(fine_owned, vertex_dofs(fine_owned.size(), foreign_fine), communicator);
      const OwnerLookup coarse_owner(coarse_owned, vertex_dofs(coarse_owned.size(), foreign_coarse), communicator);

      // Prolongation: per owned fine vertex one cell.
      const std::size_t n_fine = fine_owned.n_elements() / 3;
      constexpr auto    none   = dealii::numbers::invalid_dof_index;
      std::map<unsigned int, std::vector<ProlongationEntry>> prolongation_out;
      failures.guard([&]() {
        form.fine_cell.assign(n_fine, none);
        form.fine_position.assign(n_fine, 0);
        for (std::size_t cell = 0; cell < cell_lattice.size(); ++cell)
          for (unsigned int q = 0; q < 27; ++q)
            {
              const GlobalIndex f = cell_lattice[cell][q];
              if (fine_owned.is_element(f))
                {
                  const std::size_t node = fine_owned.index_within_set(f) / 3;
                  if (form.fine_cell[node] == none)
                    {
                      form.fine_cell[node]     = cell;
                      form.fine_position[node] = static_cast<std::uint8_t>(q);
                    }
                }
              else
                {
                  ProlongationEntry entry;
                  entry[0] = f;
                  std::copy(form.cells[cell].begin(), form.cells[cell].end(), entry.begin() + 1);
                  entry[9] = q;
                  prolongation_out[fine_owner(f)].push_back(entry);
                }
            }
      });
      failures.throw_on_every_rank(communicator);
      const auto prolongation_in = dealii::Utilities::MPI::some_to_some(communicator, prolongation_out);
      // Restriction: per owned coarse vertex its entries, without repeats
      // (the coarse cells that share a fine vertex give the same entry).
      const std::size_t n_coarse = coarse_owned.n_elements() / 3;
      const auto insert = [&](const GlobalIndex c, const GlobalIndex f, const std::uint8_t k) {
        const std::size_t node   = coarse_owned.index_within_set(c) / 3;
        auto             &row    = form.rows[node];
        auto             &length = form.row_length[node];
        for (unsigned int e = 0; e < length; ++e)
          if (row[e].first == f)
            return;
        if (length == 27)
          throw std::logic_error("MGTransferDevice: a coarse vertex reaches more than 27 fine vertices");
        row[length++] = {f, k};
      };
      std::map<unsigned int, std::vector<RestrictionEntry>> restriction_out;
      failures.guard([&]() {
        take_received_cells(prolongation_in, fine_owned, coarse_relevant, form);
        if (std::find(form.fine_cell.begin(), form.fine_cell.end(), none) != form.fine_cell.end())
          throw std::logic_error("MGTransferDevice: an owned fine vertex lies in no coarse cell of any process");

        form.rows.resize(n_coarse);
        form.row_length.assign(n_coarse, 0);
        for (std::size_t cell = 0; cell < n_owned_cells; ++cell)
          for (unsigned int a = 0; a < 8; ++a)
            {
              const GlobalIndex c = form.cells[cell][a];
              // The 8 lattice points that vertex a reaches: per axis its own
              // end or the midpoint.
              for (unsigned int k = 0; k < 8; ++k)
                {
                  unsigned int q = 0, stride = 1, axes = 0;
                  for (unsigned int d = 0; d < 3; ++d, stride *= 3)
                    if ((k >> d) & 1)
                      {
                        q += stride;
                        ++axes;
                      }
                    else
                      q += stride * 2 * ((a >> d) & 1);
                  const GlobalIndex f = cell_lattice[cell][q];
                  if (coarse_owned.is_element(c))
                    insert(c, f, static_cast<std::uint8_t>(axes));
                  else
                    restriction_out[coarse_owner(c)].push_back(RestrictionEntry{{c, f, axes}});
                }
            }
      });
      failures.throw_on_every_rank(communicator);
      const auto restriction_in = dealii::Utilities::MPI::some_to_some(communicator, restriction_out);
      failures.guard([&]() {
        for (const auto &[rank, entries] : restriction_in)
          for (const RestrictionEntry &entry : entries)
            {
              if (!coarse_owned.is_element(entry[0]))
                throw std::logic_error("MGTransferDevice: received a coarse vertex owned elsewhere");
              insert(entry[0], entry[1], static_cast<std::uint8_t>(entry[2]));
            }
      });
      return form;
    }
    /** The owned coarse cells of one transfer: their 8 vertices and the 27 vertices of their children's lattice (first DoFs, global). */
    struct CoarseCells
    {
      std::vector<std::array<GlobalIndex, 8>>  vertices;
      std::vector<std::array<GlobalIndex, 27>> lattice;
    };

    /**
     * The owned cells of level @p coarse_level and their children, whose
     * DoFs come from @p active_dofs where the children are the active cells
     * (@p fine_is_active), from the level DoFs otherwise.
     */
    CoarseCells
    collect_coarse_cells(const dealii::DoFHandler<3>  &active_dofs,
                         const dealii::DoFHandler<3>  &level_dofs,
                         const unsigned int            coarse_level,
                         const bool                    fine_is_active,
                         const internal::CellDofTable &cell_dof)
    {
      const unsigned int                           dofs_per_cell = level_dofs.get_fe().n_dofs_per_cell();
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
      auto vertex_of = [&](const std::vector<dealii::types::global_dof_index> &dofs, const unsigned int v) {
        const GlobalIndex vertex[3] = {dofs[cell_dof.index[v][0]], dofs[cell_dof.index[v][1]], dofs[cell_dof.index[v][2]]};
        return first_of_vertex(vertex);
      };
      CoarseCells cells;
      for (const auto &cell : level_dofs.mg_cell_iterators_on_level(coarse_level))
        {
          if (!cell->is_locally_owned_on_level())
            continue;
          if (!cell->has_children())
            throw std::logic_error("MGTransferDevice: an owned level cell without children below the finest level");
          cell->get_mg_dof_indices(coarse_dofs);
          std::array<GlobalIndex, 8> vertices;
          for (unsigned int a = 0; a < 8; ++a)
            vertices[a] = vertex_of(coarse_dofs, a);
          std::array<GlobalIndex, 27> lattice;
          lattice.fill(dealii::numbers::invalid_dof_index);
          for (unsigned int c = 0; c < cell->n_children(); ++c)
            {
              child_dofs(cell, c);
              for (unsigned int v = 0; v < 8; ++v)
                {
                  const GlobalIndex node     = vertex_of(fine_dofs, v);
                  auto             &position = lattice[lattice_point(c, v)];
                  if (position != dealii::numbers::invalid_dof_index && position != node)
                    throw std::logic_error("MGTransferDevice: two children of a cell disagree on a shared vertex");
                  position = node;
                }
            }
          cells.vertices.push_back(vertices);
          cells.lattice.push_back(lattice);
        }
      return cells;
    }

    /** The local node of the vertex whose first DoF is @p first. */
    backend::LocalIndex
    local_node(const dealii::Utilities::MPI::Partitioner &layout, const GlobalIndex first)
    {
      const GlobalIndex dofs[3] = {first, first + 1, first + 2};
      return node_of(layout, dofs);
    }

    /**
     * A layout with the owned DoFs of @p level and the ghosts @p needed: the
     * level's own where it has them all on every process (collective).
     */
    std::shared_ptr<const dealii::Utilities::MPI::Partitioner>
    layout_with(const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &level,
                const dealii::IndexSet                                           &needed,
                const MPI_Comm                                                    communicator)
    {
      const bool fits =
        dealii::Utilities::MPI::min((needed & level->ghost_indices()) == needed ? 1 : 0, communicator) == 1;
      return fits ? level :
                    std::make_shared<const dealii::Utilities::MPI::Partitioner>(level->locally_owned_range(), needed,
                                                                                communicator);
    }

    /** The ghosts each transfer of @p form reads: the vertices of the cells it interpolates in, the fine vertices of the owned rows of R. */
    void
    gather_form_ghosts(const GlobalGatherForm                    &form,
                       const dealii::Utilities::MPI::Partitioner &coarse_layout,
                       const dealii::IndexSet                    &fine_owned,
                       std::vector<GlobalIndex>                  &coarse_ghosts,
                       std::vector<GlobalIndex>                  &fine_ghosts)
    {
      for (const auto &vertices : form.cells)
        for (const GlobalIndex c : vertices)
          if (!coarse_layout.in_local_range(c))
            coarse_ghosts.push_back(c);
      for (std::size_t node = 0; node < form.rows.size(); ++node)
        for (unsigned int e = 0; e < form.row_length[node]; ++e)
          if (!fine_owned.is_element(form.rows[node][e].first))
            fine_ghosts.push_back(form.rows[node][e].first);
    }

    /** The backend's data of the gather form @p form in the local numbering of the transfer's layouts. */
    void
    fill_gather_form_data(const GlobalGatherForm                    &form,
                          const dealii::Utilities::MPI::Partitioner &coarse_layout,
                          const dealii::Utilities::MPI::Partitioner &fine_layout,
                          backend::TransferData                     &data)
    {
      data.gather_form = true;
      for (const auto &vertices : form.cells)
        for (const GlobalIndex c : vertices)
          data.coarse_cell_nodes.push_back(local_node(coarse_layout, c));
      data.fine_node_cell.assign(form.fine_cell.begin(), form.fine_cell.end());
      data.fine_node_position = form.fine_position;
      data.coarse_row_start.assign(1, 0);
      for (std::size_t node = 0; node < form.rows.size(); ++node)
        {
          std::vector<std::pair<backend::LocalIndex, std::uint8_t>> row;
          for (unsigned int e = 0; e < form.row_length[node]; ++e)
            row.emplace_back(local_node(fine_layout, form.rows[node][e].first), form.rows[node][e].second);
          std::sort(row.begin(), row.end());
          for (const auto &[f, k] : row)
            {
              data.coarse_row_fine_nodes.push_back(f);
              data.coarse_row_midpoint_axes.push_back(k);
            }
          data.coarse_row_start.push_back(data.coarse_row_fine_nodes.size());
        }
    }

    /** The constraint flags of the local DoFs of @p layout: 1 for the DoFs of @p boundary. */
    std::vector<std::uint8_t>
    constrained_flags(const dealii::Utilities::MPI::Partitioner &layout, const dealii::IndexSet &boundary)
    {
      std::vector<std::uint8_t> flags(layout.locally_owned_size() + layout.n_ghost_indices(), 0);
      for (const auto i : boundary)
        if (layout.in_local_range(i) || layout.is_ghost_entry(i))
          flags[layout.global_to_local(i)] = 1;
      return flags;
    }

    /**
     * The node counts and constraint flags of @p data on the transfer's
     * layouts, and the weights of the cell form (1 / the number of cells of
     * a fine vertex).
     */
    void
    complete_transfer_data(const dealii::Utilities::MPI::Partitioner &coarse,
                           const dealii::Utilities::MPI::Partitioner &fine,
                           const dealii::IndexSet                    &coarse_boundary,
                           const dealii::IndexSet                    &fine_boundary,
                           backend::TransferData                     &data)
    {
      if ((coarse.locally_owned_size() + coarse.n_ghost_indices()) % 3 != 0 ||
          (fine.locally_owned_size() + fine.n_ghost_indices()) % 3 != 0)
        throw std::logic_error("MGTransferDevice: a level layout does not hold whole vertices");
      data.n_coarse_nodes     = (coarse.locally_owned_size() + coarse.n_ghost_indices()) / 3;
      data.n_fine_nodes       = (fine.locally_owned_size() + fine.n_ghost_indices()) / 3;
      data.coarse_constrained = constrained_flags(coarse, coarse_boundary);
      data.fine_constrained   = constrained_flags(fine, fine_boundary);
      if (!data.gather_form)
        {
          data.fine_node_weights.assign(data.n_fine_nodes, 0.);
          for (const auto node : data.fine_cell_nodes)
            data.fine_node_weights[node] += 1.;
          for (double &weight : data.fine_node_weights)
            weight = weight > 0 ? 1. / weight : 0.;
        }
    }
  } // namespace

  /** The transfer between level l - 1 and level l. */
  template <typename Number>
  struct MGTransferDevice<Number>::LevelTransfer
  {
    std::unique_ptr<backend::Q1Transfer> q1;
    /**
     * The fine DoFs the transfer reads or writes: owned ones, plus as ghosts
     * those the restriction reads (several processes: the fine vertices
     * that the owned coarse vertices reach; one process: none, the level's
     * own layout).
     */
    std::shared_ptr<const dealii::Utilities::MPI::Partitioner> fine_layout;
    /** The coarse DoFs the prolongation reads: owned ones, plus the vertices of its cells as ghosts. */
    std::shared_ptr<const dealii::Utilities::MPI::Partitioner> coarse_layout;
    /** The fine vector with the ghosts the restriction reads (or prolongated values without the gather form). */
    mutable VectorType fine_work;
    /** The coarse vector with the ghosts the prolongation reads, where its level's layout lacks some. */
    mutable VectorType coarse_source;
    /** The restricted vector before it is added to the destination (without the gather form). */
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
    // The ranks meet in collective steps (owners of DoFs, some-to-some,
    // new layouts). A rank that fails in a local step keeps its exception
    // and all ranks agree before each collective step, so that a failure on
    // one rank throws on every rank instead of leaving the others waiting.
    // The transfers are built aside and replace the old ones at the end.
    const MPI_Comm              communicator = active_dofs.get_communicator();
    const unsigned int          n_processes  = dealii::Utilities::MPI::n_mpi_processes(communicator);
    const unsigned int          n_levels     = active_dofs.get_triangulation().n_global_levels();
    const unsigned int          finest       = n_levels - 1;
    const auto                 &fe           = level_dofs.get_fe();
    internal::CollectiveFailure failures("plastix::MGTransferDevice (set-up)");
    internal::CellDofTable      cell_dof;
    failures.guard([&]() {
      if (new_layouts.size() != n_levels || level_boundary.size() + 1 < n_levels)
        throw std::invalid_argument("MGTransferDevice: need one layout per level and the boundary DoFs of every "
                                    "level below the finest");
      if (fe.n_dofs_per_cell() != 24 || fe.n_components() != 3)
        throw std::invalid_argument("MGTransferDevice needs FESystem(FE_Q(1), 3); got " + fe.get_name());
      check_embedding(fe);
      cell_dof = internal::CellDofTable(fe);
    });
    failures.throw_on_every_rank(communicator);
    std::vector<std::unique_ptr<LevelTransfer>> new_transfers(n_levels);

    for (unsigned int l = 1; l < n_levels; ++l)
      {
        const bool              fine_is_active = l == finest;
        const auto             &coarse_layout  = *new_layouts[l - 1];
        const auto             &fine_layout    = new_layouts[l];
        const dealii::IndexSet &owned          = fine_layout->locally_owned_range();
        auto                    transfer       = std::make_unique<LevelTransfer>();
        CoarseCells             cells;
        failures.guard([&]() { cells = collect_coarse_cells(active_dofs, level_dofs, l - 1, fine_is_active, cell_dof); });

        backend::TransferData data;
        if (n_processes > 1)
          {
            // Several processes: the gather form, so that both transfers
            // give complete owned values and need no compress().
            dealii::IndexSet coarse_relevant = coarse_layout.locally_owned_range();
            coarse_relevant.add_indices(coarse_layout.ghost_indices());
            const GlobalGatherForm form = build_gather_form(std::move(cells.vertices), cells.lattice,
                                                            coarse_layout.locally_owned_range(), coarse_relevant,
                                                            owned, communicator, failures);
            std::vector<GlobalIndex> coarse_ghosts, fine_ghosts;
            failures.guard([&]() { gather_form_ghosts(form, coarse_layout, owned, coarse_ghosts, fine_ghosts); });
            failures.throw_on_every_rank(communicator);
            transfer->coarse_layout =
              layout_with(new_layouts[l - 1], vertex_dofs(coarse_layout.size(), coarse_ghosts), communicator);
            transfer->fine_layout = layout_with(fine_layout, vertex_dofs(owned.size(), fine_ghosts), communicator);
            failures.guard(
              [&]() { fill_gather_form_data(form, *transfer->coarse_layout, *transfer->fine_layout, data); });
          }
        else
          failures.guard([&]() {
            // One process: every coarse cell is here; Q1Transfer derives
            // the gather form from the cells and the weights (all 1 / the
            // number of cells of a fine vertex, all local).
            transfer->fine_layout   = fine_layout;
            transfer->coarse_layout = new_layouts[l - 1];
            for (const auto &vertices : cells.vertices)
              for (const GlobalIndex c : vertices)
                data.coarse_cell_nodes.push_back(local_node(coarse_layout, c));
            for (const auto &lattice : cells.lattice)
              for (const GlobalIndex f : lattice)
                data.fine_cell_nodes.push_back(local_node(*fine_layout, f));
          });
        failures.guard([&]() {
          complete_transfer_data(*transfer->coarse_layout, *transfer->fine_layout, level_boundary[l - 1],
                                 fine_is_active ? fine_boundary : level_boundary[l], data);
          transfer->q1 = std::make_unique<backend::Q1Transfer>(data);
          if (transfer->fine_layout != fine_layout || !transfer->q1->gathers())
            transfer->fine_work.reinit(transfer->fine_layout);
          if (transfer->coarse_layout != new_layouts[l - 1])
            transfer->coarse_source.reinit(transfer->coarse_layout);
          if (!transfer->q1->gathers())
            transfer->coarse_work.reinit(new_layouts[l - 1]);
        });
        // Before the next level's collective steps, or before the results replace the old ones.
        failures.throw_on_every_rank(communicator);
        new_transfers[l] = std::move(transfer);
      }
    layouts   = new_layouts;
    transfers = std::move(new_transfers);
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
    const VectorType *coarse = &src;
    if (transfer.coarse_layout != layouts[to_level - 1])
      {
        transfer.coarse_source.equ(Number(1), src);
        coarse = &transfer.coarse_source;
      }
    coarse->update_ghost_values();
    if (transfer.q1->gathers())
      {
        // The kernel adds P src to the owned entries of dst itself: complete
        // values (the gather form), no partial sums to exchange, no
        // temporary.
        AssertThrow(dst.locally_owned_size() == transfer.fine_layout->locally_owned_size(),
                    dealii::ExcMessage("MGTransferDevice: the fine vector has another layout than its level"));
        transfer.q1->prolongate(coarse->device_data(), dst.device_data(), true);
        return;
      }
    transfer.q1->prolongate(coarse->device_data(), transfer.fine_work.device_data());
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
    if (transfer.q1->gathers())
      {
        // The kernel adds R src to the owned entries of dst itself, as above.
        AssertThrow(dst.locally_owned_size() == layouts[from_level - 1]->locally_owned_size(),
                    dealii::ExcMessage("MGTransferDevice: the coarse vector has another layout than its level"));
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
