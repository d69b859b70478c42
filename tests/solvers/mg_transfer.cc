// plastix's matrix-free device multigrid transfer (MGTransferDevice) against
// deal.II's own MGTransferMatrixFree on a distorted, three times refined box
// of 3 x 2 x 2 coarse cells (Q1 vector field), on 1, 2 and 3 ranks, in double
// precision (tolerance 1e-13) and single precision (float level vectors,
// tolerance 1e-6 relative):
//   - prolongation from every level to the next equals deal.II's (the finest
//     level compared through the map between level and active numbering of
//     each active cell), to 1e-13 relative;
//   - restriction equals deal.II's (a fine residual given in both
//     numberings), to 1e-13 relative;
//   - with Dirichlet DoFs (boundary id 0, all components): fine boundary
//     rows are zero, coarse boundary values are ignored, and the rest equals
//     deal.II's prolongation of the coarse vector with its boundary values
//     set to zero;
//   - restriction is the adjoint of prolongation: (R f, c) = (f, P c).
//   - prolongate_and_add() and restrict_and_add() add to a vector that is not
//     zero (2 P c and 2 R f; the kernels add in place).
//   - all of it with level vectors that hold the locally
//     relevant DoFs as ghosts and with vectors that hold no ghosts (the
//     transfer's own layouts with the coarse and fine DoFs it reads).
// A wrong embedding matrix, a lost child, a row of R or P missing a part
// from another rank, or a ghost not exchanged changes some entry by O(1).
//
// A failure of initialize() on some ranks only throws on every rank, with
// the failing rank's message, and leaves no transfer behind: the last rank
// given one layout too few (a failure before the first collective step);
// a mesh refined once more everywhere except in its last coarse cell, whose
// level cells without children belong to the last rank (the failure comes
// at the finest transfer, after the collective steps of the coarser ones).
// Without the ranks' agreement the others wait in a collective step for
// ever and the test times out.

// Test: ranks 1 2 3
#include <deal.II/base/conditional_ostream.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/multigrid/mg_tools.h>
#include <deal.II/multigrid/mg_transfer_matrix_free.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/runtime.h>
#include <plastix/solvers/mg_transfer.h>

#include "mesh_generation.h"
#include "parameters.h"

#include "test_environment.h"

#include <iostream>
#include <random>

using namespace dealii;
using HostVector = LinearAlgebra::distributed::Vector<double>;

namespace
{
  void
  fill_random(HostVector &v, const unsigned int seed)
  {
    std::mt19937                           generator(seed);
    std::uniform_real_distribution<double> distribution(-1., 1.);
    for (unsigned int i = 0; i < v.locally_owned_size(); ++i)
      v.local_element(i) = distribution(generator);
  }

  /** Per level the owned level DoFs without ghosts; the finest: the owned active DoFs. */
  std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
  owned_layouts(const DoFHandler<3> &dof_handler)
  {
    const MPI_Comm     comm   = dof_handler.get_communicator();
    const unsigned int finest = dof_handler.get_triangulation().n_global_levels() - 1;
    std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>> layouts(finest + 1);
    for (unsigned int l = 0; l < finest; ++l)
      layouts[l] = std::make_shared<Utilities::MPI::Partitioner>(dof_handler.locally_owned_mg_dofs(l),
                                                                 IndexSet(dof_handler.n_dofs(l)), comm);
    layouts[finest] = std::make_shared<Utilities::MPI::Partitioner>(dof_handler.locally_owned_dofs(),
                                                                    IndexSet(dof_handler.n_dofs()), comm);
    return layouts;
  }

  /**
   * initialize() must throw on every rank, with a message that contains
   * @p cause, and leave the transfer empty; @p fails_here: whether this
   * rank fails by itself. On several ranks the case must fail on some
   * ranks only (else it does not probe the agreement).
   */
  void
  check_failure_on_every_rank(const std::string                                                     &what,
                              const DoFHandler<3>                                                   &dof_handler,
                              const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>> &layouts,
                              const bool                                                             fails_here,
                              const std::string                                                     &cause,
                              plastix_test::Checker                                                 &checker)
  {
    const MPI_Comm        comm     = dof_handler.get_communicator();
    const unsigned int    n_levels = dof_handler.get_triangulation().n_global_levels();
    std::vector<IndexSet> level_boundary;
    for (unsigned int l = 0; l < n_levels; ++l)
      level_boundary.emplace_back(dof_handler.n_dofs(l));
    plastix::MGTransferDevice<double> transfer;
    bool                              threw = false, names_cause = false;
    try
      {
        transfer.initialize(dof_handler, dof_handler, layouts, level_boundary, IndexSet(dof_handler.n_dofs()));
      }
    catch (const std::exception &e)
      {
        threw       = true;
        names_cause = std::string(e.what()).find(cause) != std::string::npos;
      }
    const unsigned int n_failing = Utilities::MPI::sum(fails_here ? 1U : 0U, comm);
    const unsigned int n_ranks   = Utilities::MPI::n_mpi_processes(comm);
    checker.check_true(what + ": fails by itself on " + std::to_string(n_failing) + " of " +
                         std::to_string(n_ranks) + " rank(s)",
                       n_failing >= 1 && (n_ranks == 1 || n_failing < n_ranks));
    checker.check_true(what + ": initialize() threw on every rank", Utilities::MPI::min(threw ? 1 : 0, comm) == 1);
    checker.check_true(what + ": every rank's message names the cause (\"" + cause + "\")",
                       Utilities::MPI::min(names_cause ? 1 : 0, comm) == 1);
    checker.check_true(what + ": no transfer left behind",
                       Utilities::MPI::max(transfer.n_levels(), comm) == 0);
  }

  /** Level and active index of the DoFs of the locally owned finest cells. */
  std::vector<std::pair<types::global_dof_index, types::global_dof_index>>
  level_to_active(const DoFHandler<3> &dof_handler)
  {
    std::vector<std::pair<types::global_dof_index, types::global_dof_index>> pairs;
    std::vector<types::global_dof_index> level(dof_handler.get_fe().n_dofs_per_cell()),
      active(dof_handler.get_fe().n_dofs_per_cell());
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          cell->get_mg_dof_indices(level);
          cell->get_dof_indices(active);
          for (unsigned int i = 0; i < level.size(); ++i)
            pairs.emplace_back(level[i], active[i]);
        }
    return pairs;
  }

  /** The transfer of every level in precision Number against MGTransferMatrixFree, without and with Dirichlet DoFs. */
  template <typename Number>
  void
  check_transfers(const DoFHandler<3>                                                            &dof_handler,
                  const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>          &layouts,
                  const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>          &level_layouts,
                  const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>          &relevant_layouts,
                  const std::vector<std::pair<types::global_dof_index, types::global_dof_index>> &pairs,
                  const MGTransferMatrixFree<3, double>                                          &reference,
                  const double                                                                    tolerance,
                  plastix_test::Checker                                                          &checker,
                  ConditionalOStream                                                             &pout)
  {
    const MPI_Comm     comm      = dof_handler.get_communicator();
    const unsigned int rank      = Utilities::MPI::this_mpi_process(comm);
    const unsigned int finest    = dof_handler.get_triangulation().n_global_levels() - 1;
    const char        *precision = std::is_same<Number, float>::value ? "float" : "double";
  for (const bool with_dirichlet : {false, true})
    {
      const std::string case_name = std::string(precision) + (with_dirichlet ? ", Dirichlet on boundary 0" : ", no Dirichlet");
      pout << case_name << ":\n";
      std::vector<IndexSet> level_boundary(finest + 1);
      IndexSet              fine_boundary(dof_handler.n_dofs());
      if (with_dirichlet)
        {
          MGConstrainedDoFs mg_constrained;
          mg_constrained.initialize(dof_handler);
          mg_constrained.make_zero_boundary_constraints(dof_handler, {0}, ComponentMask());
          for (unsigned int l = 0; l <= finest; ++l)
            level_boundary[l] = mg_constrained.get_boundary_indices(l);
          fine_boundary = DoFTools::extract_boundary_dofs(dof_handler, ComponentMask(), {0});
        }
      else
        for (unsigned int l = 0; l <= finest; ++l)
          level_boundary[l] = IndexSet(dof_handler.n_dofs(l));
      plastix::MGTransferDevice<Number> transfer;
      transfer.initialize(dof_handler, dof_handler, layouts, level_boundary, fine_boundary);

      for (unsigned int l = 1; l <= finest; ++l)
        {
          const bool        active = l == finest;
          const std::string what   = case_name + ", level " + std::to_string(l - 1) + " -> " + std::to_string(l);

          // Prolongation.
          HostVector coarse(level_layouts[l - 1]);
          fill_random(coarse, 11 + 3 * l + 101 * rank);
          plastix::device::Vector<Number> coarse_device(layouts[l - 1]), fine_device;
          coarse_device.copy_from_host(coarse);
          transfer.prolongate(l, fine_device, coarse_device);
          HostVector ours(relevant_layouts[l]);
          fine_device.copy_to_host(ours);
          ours.update_ghost_values();

          for (const auto i : level_boundary[l - 1])
            if (coarse.locally_owned_elements().is_element(i))
              coarse(i) = 0.;
          HostVector expected(level_layouts[l]);
          reference.prolongate(l, expected, coarse);
          expected.update_ghost_values();

          double difference = 0., scale = 0., boundary_value = 0.;
          auto   compare = [&](const types::global_dof_index level_index, const types::global_dof_index index) {
            const bool boundary = active ? fine_boundary.is_element(index) : level_boundary[l].is_element(index);
            if (boundary)
              boundary_value = std::max(boundary_value, std::abs(ours(index)));
            else
              difference = std::max(difference, std::abs(ours(index) - expected(level_index)));
            scale = std::max(scale, std::abs(expected(level_index)));
          };
          if (active)
            for (const auto &[level_index, active_index] : pairs)
              compare(level_index, active_index);
          else
            for (const auto i : dof_handler.locally_owned_mg_dofs(l))
              compare(i, i);
          difference     = Utilities::MPI::max(difference, comm);
          scale          = Utilities::MPI::max(scale, comm);
          boundary_value = Utilities::MPI::max(boundary_value, comm);
          checker.check(what + ": prolongation vs MGTransferMatrixFree", difference / scale, tolerance);
          if (with_dirichlet)
            checker.check(what + ": prolongation on fine Dirichlet rows", boundary_value / scale, 0.);

          // prolongate_and_add() onto a vector that is not zero (on one
          // process the kernel adds in place): P c + P c = 2 P c.
          {
            plastix::device::Vector<Number> twice(fine_device);
            transfer.prolongate_and_add(l, twice, coarse_device);
            twice.add(Number(-2), fine_device);
            checker.check(what + ": prolongate_and_add onto P c, |result - 2 P c| / |P c|",
                          twice.linfty_norm() / fine_device.linfty_norm(), tolerance);
          }

          // Restriction of a fine vector given in both numberings.
          HostVector fine_level(level_layouts[l]);
          fill_random(fine_level, 23 + 5 * l + 101 * rank);
          if (with_dirichlet)
            for (const auto i : level_boundary[l])
              if (fine_level.locally_owned_elements().is_element(i))
                fine_level(i) = 0.;
          fine_level.update_ghost_values();
          HostVector fine(layouts[l]);
          if (active)
            {
              for (const auto &[level_index, active_index] : pairs)
                if (fine.locally_owned_elements().is_element(active_index))
                  fine(active_index) = fine_level(level_index);
            }
          else
            fine = fine_level;
          plastix::device::Vector<Number> fine_input(layouts[l]), restricted(layouts[l - 1]);
          fine_input.copy_from_host(fine);
          transfer.restrict_and_add(l, restricted, fine_input);
          {
            // restrict_and_add() onto a vector that is not zero: R f + R f = 2 R f.
            plastix::device::Vector<Number> twice(restricted);
            transfer.restrict_and_add(l, twice, fine_input);
            twice.add(Number(-2), restricted);
            checker.check(what + ": restrict_and_add onto R f, |result - 2 R f| / |R f|",
                          twice.linfty_norm() / restricted.linfty_norm(), tolerance);
          }
          HostVector ours_coarse(layouts[l - 1]);
          restricted.copy_to_host(ours_coarse);
          HostVector expected_coarse(level_layouts[l - 1]);
          fine_level.zero_out_ghost_values();
          reference.restrict_and_add(l, expected_coarse, fine_level);
          double restriction_difference = 0., restriction_scale = 0.;
          for (const auto i : dof_handler.locally_owned_mg_dofs(l - 1))
            {
              restriction_scale = std::max(restriction_scale, std::abs(expected_coarse(i)));
              if (!level_boundary[l - 1].is_element(i))
                restriction_difference =
                  std::max(restriction_difference, std::abs(ours_coarse(i) - expected_coarse(i)));
              else
                restriction_difference = std::max(restriction_difference, std::abs(ours_coarse(i)));
            }
          restriction_difference = Utilities::MPI::max(restriction_difference, comm);
          restriction_scale      = Utilities::MPI::max(restriction_scale, comm);
          checker.check(what + ": restriction vs MGTransferMatrixFree (zero on coarse Dirichlet DoFs)",
                        restriction_difference / restriction_scale, tolerance);

          // Adjointness: (R f, c) = (f, P c).
          const double rc = restricted * coarse_device, fp = fine_input * fine_device;
          checker.check(what + ": |(R f, c) - (f, P c)| / |(f, P c)|", std::abs(rc - fp) / std::abs(fp),
                        10 * tolerance);
        }
    }
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    plastix::Parameters p;
    p.mesh.geometry           = plastix::GeometryType::box;
    p.mesh.subdivisions       = {3, 2, 2};
    p.mesh.global_refinements = 3;
    p.mesh.distortion         = 0.2;
    parallel::distributed::Triangulation<3> triangulation(
      env.comm, Triangulation<3>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
    plastix::create_mesh(p.mesh, triangulation);
    const FESystem<3> fe(FE_Q<3>(1), 3);
    DoFHandler<3>     dof_handler(triangulation);
    dof_handler.distribute_dofs(fe);
    dof_handler.distribute_mg_dofs();
    const unsigned int finest = triangulation.n_global_levels() - 1;
    env.pout << Utilities::MPI::n_mpi_processes(env.comm) << " rank(s), " << finest + 1 << " levels, "
         << dof_handler.n_dofs() << " active DoFs\n";

    std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>> level_layouts(finest + 1);
    for (unsigned int l = 0; l <= finest; ++l)
      {
        IndexSet relevant;
        DoFTools::extract_locally_relevant_level_dofs(dof_handler, l, relevant);
        level_layouts[l] =
          std::make_shared<Utilities::MPI::Partitioner>(dof_handler.locally_owned_mg_dofs(l), relevant, env.comm);
      }
    const auto pairs = level_to_active(dof_handler);

    MGTransferMatrixFree<3, double> reference;
    reference.build(dof_handler);

    // Vector layouts: level DoFs below the finest, active DoFs on it; with
    // the locally relevant DoFs as ghosts, then without ghosts (the
    // transfer then makes its own layouts with the ghosts it reads).
    std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>> relevant_layouts;
    for (const bool relevant_ghosts : {true, false})
      {
        env.pout << (relevant_ghosts ? "Level vectors with the relevant DoFs as ghosts\n" :
                                       "Level vectors without ghosts\n");
        std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>> layouts(finest + 1);
        for (unsigned int l = 0; l < finest; ++l)
          {
            IndexSet relevant(dof_handler.n_dofs(l));
            if (relevant_ghosts)
              DoFTools::extract_locally_relevant_level_dofs(dof_handler, l, relevant);
            layouts[l] =
              std::make_shared<Utilities::MPI::Partitioner>(dof_handler.locally_owned_mg_dofs(l), relevant, env.comm);
          }
        IndexSet relevant_active(dof_handler.n_dofs());
        if (relevant_ghosts)
          DoFTools::extract_locally_relevant_dofs(dof_handler, relevant_active);
        layouts[finest] =
          std::make_shared<Utilities::MPI::Partitioner>(dof_handler.locally_owned_dofs(), relevant_active, env.comm);

        if (relevant_ghosts)
          relevant_layouts = layouts;
        check_transfers<double>(dof_handler, layouts, level_layouts, relevant_layouts, pairs, reference, 1e-13,
                                checker, env.pout);
        check_transfers<float>(dof_handler, layouts, level_layouts, relevant_layouts, pairs, reference, 2e-6,
                               checker, env.pout);
      }

    env.pout << "A failure on some ranks only\n";
    const unsigned int last_rank = Utilities::MPI::n_mpi_processes(env.comm) - 1;
    const bool         is_last   = Utilities::MPI::this_mpi_process(env.comm) == last_rank;
    {
      auto layouts = owned_layouts(dof_handler);
      if (is_last)
        layouts.pop_back();
      check_failure_on_every_rank("the last rank given one layout too few", dof_handler, layouts, is_last,
                                  "one layout per level", checker);
    }
    {
      // Refined twice, then once more except in the last coarse cell.
      p.mesh.global_refinements = 2;
      parallel::distributed::Triangulation<3> partly_refined(
        env.comm, Triangulation<3>::limit_level_difference_at_vertices,
        parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
      plastix::create_mesh(p.mesh, partly_refined);
      const unsigned int last_coarse_cell = partly_refined.n_cells(0) - 1;
      for (const auto &cell : partly_refined.active_cell_iterators())
        if (cell->is_locally_owned() && cell->id().get_coarse_cell_id() != last_coarse_cell)
          cell->set_refine_flag();
      partly_refined.execute_coarsening_and_refinement();
      DoFHandler<3> partly_refined_dofs(partly_refined);
      partly_refined_dofs.distribute_dofs(fe);
      partly_refined_dofs.distribute_mg_dofs();
      const unsigned int below_finest = partly_refined.n_global_levels() - 2;
      bool               owns_leaf    = false;
      for (const auto &cell : partly_refined.cell_iterators_on_level(below_finest))
        owns_leaf = owns_leaf || (cell->is_locally_owned_on_level() && !cell->has_children());
      check_failure_on_every_rank("level cells without children, on the ranks of the last coarse cell",
                                  partly_refined_dofs, owned_layouts(partly_refined_dofs), owns_leaf,
                                  "without children", checker);
    }
  });
}
