// Multigrid level operators that apply their ghost cells (SharedRows::
// ghost_cells, the automatic choice on several ranks) against the same
// operators that send partial sums to the owners (SharedRows::partial_sums),
// on every level of a p4est mesh (4 x 3 x 2 coarse cells refined twice):
//  - the product in double and in single precision, the diagonal, the
//    cell-averaged strains of the owned cells agree to rounding, for ebe
//    atomic (stored geometry and geometry on the fly), dbd and assembled (its
//    device matrix too, through its product) on the distorted mesh and dbd
//    structured on the undistorted one, with Dirichlet DoFs on boundary 0;
//  - the level cells' material ids are set on the owned level cells only and
//    the stiffness factors come from the cells' geometry, so a ghost cell
//    that used its own copy of the id (not its owner's) changes rows;
//  - on several ranks automatic applies the ghost cells (its ghost DoFs are
//    the locally relevant level DoFs) and partial sums do not;
//  - SharedRows::ghost_cells is refused on the active mesh, and such a level
//    operator refuses plasticity.
// A ghost cell left out or given the wrong material or factor changes the
// rows along the rank boundaries by O(1). Run with 1, 2 and 3 MPI ranks.

// Test: ranks 1 2 3
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_vector.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>

#include "box_mesh.h"
#include "q1_dofs.h"
#include "test_environment.h"

#include <cmath>
#include <stdexcept>

using namespace dealii;

namespace
{
  using HostVector = LinearAlgebra::distributed::Vector<double>;

  /** A factor from the cell's geometry: 1 near x = 0, 0.01 beyond x = 1.6, in between by the centre. */
  double
  geometric_factor(const TriaIterator<CellAccessor<3>> &cell)
  {
    const double x = cell->center()[0];
    return x < 0.8 ? 1. : x > 1.6 ? 0.01 : 0.3 + 0.1 * std::sin(7. * cell->center()[1]);
  }

  /** max over the owned entries |a - b| / max |b| (all ranks). */
  double
  relative_max_difference(const HostVector &a, const HostVector &b, const MPI_Comm comm)
  {
    double difference = 0., scale = 0.;
    for (const auto i : a.locally_owned_elements())
      {
        difference = std::max(difference, std::abs(a(i) - b(i)));
        scale      = std::max(scale, std::abs(b(i)));
      }
    difference = Utilities::MPI::max(difference, comm);
    scale      = Utilities::MPI::max(scale, comm);
    return scale > 0 ? difference / scale : difference;
  }

  /** The level operator's product of a vector given by its global indices, on the host. */
  HostVector
  product(const plastix::MechanicsOperator &op, const bool single_precision)
  {
    const auto partitioner = op.get_partitioner();
    HostVector source(partitioner);
    for (const auto i : source.locally_owned_elements())
      source(i) = std::sin(1.7 * i + 0.3) + 0.25 * std::cos(0.11 * i);
    plastix::device::Vector<double> src(partitioner), dst(partitioner);
    src.copy_from_host(source);
    if (single_precision)
      {
        plastix::device::Vector<float> src_float(partitioner), dst_float(partitioner);
        src_float.copy_converted(1., src);
        op.vmult(dst_float, src_float);
        dst.copy_converted(1., dst_float);
      }
    else
      op.vmult(dst, src);
    HostVector result(partitioner);
    dst.copy_to_host(result);
    return result;
  }

  /** The device-assembled matrix applied to the vector of product(). */
  HostVector
  matrix_product(const plastix::MechanicsOperator &op)
  {
    const auto                     partitioner = op.get_partitioner();
    TrilinosWrappers::SparseMatrix matrix;
    op.copy_matrix(matrix);
    TrilinosWrappers::MPI::Vector source(partitioner->locally_owned_range(), partitioner->get_mpi_communicator()),
      result(source);
    for (const auto i : partitioner->locally_owned_range())
      source(i) = std::sin(1.7 * i + 0.3) + 0.25 * std::cos(0.11 * i);
    source.compress(VectorOperation::insert);
    matrix.vmult(result, source);
    HostVector host(partitioner);
    for (const auto i : partitioner->locally_owned_range())
      host(i) = result(i);
    return host;
  }

  HostVector
  diagonal(const plastix::MechanicsOperator &op)
  {
    plastix::device::Vector<double> inverse;
    op.compute_inverse_diagonal(inverse);
    HostVector host(op.get_partitioner());
    inverse.copy_to_host(host);
    return host;
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    const plastix::MaterialTable materials{{0, plastix::make_material(200e3, 0.3, 250.)},
                                           {3, plastix::make_material(70e3, 0.33, 180.)}};
    using plastix::backend::CellKernel;
    using plastix::backend::Strategy;
    struct Variant
    {
      Strategy    strategy;
      CellKernel  kernel;
      const char *name;
    };

    for (const bool distorted : {true, false})
      {
        parallel::distributed::Triangulation<3> tria(
          env.comm, Triangulation<3>::limit_level_difference_at_vertices,
          parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
        plastix_test::make_distorted_box(tria, {4, 3, 2}, Point<3>(2.5, 1.5, 1.), 2, distorted ? 0.2 : 0., 7);
        // Material ids on the owned level cells only: the ghost cells' own
        // copies keep 0, their owners' may be 3.
        unsigned int ghosts_differing = 0;
        for (const auto &cell : tria.cell_iterators())
          if (cell->is_locally_owned_on_level())
            cell->set_material_id(cell->center()[0] > 1.2 ? 3 : 0);
        for (const auto &cell : tria.cell_iterators())
          if (cell->is_ghost_on_level() && cell->center()[0] > 1.2 && cell->material_id() != 3)
            ++ghosts_differing;
        DoFHandler<3> dof_handler(tria);
        plastix_test::distribute_q1_dofs(dof_handler);
        dof_handler.distribute_mg_dofs();
        const unsigned int n_levels = tria.n_global_levels();
        env.pout << (distorted ? "distorted" : "undistorted") << " mesh, " << env.n_ranks << " rank(s), " << n_levels
                 << " levels, " << Utilities::MPI::sum(ghosts_differing, env.comm)
                 << " ghost level cells whose own material id is not their owner's\n";
        if (env.n_ranks > 1)
          checker.check_true("some ghost level cells hold another material id than their owner's",
                             Utilities::MPI::sum(ghosts_differing, env.comm) > 0);

        MGConstrainedDoFs mg_constrained;
        mg_constrained.initialize(dof_handler);
        mg_constrained.make_zero_boundary_constraints(dof_handler, {0}, ComponentMask());

        const std::vector<Variant> variants =
          distorted ? std::vector<Variant>{{Strategy::ebe_atomic, CellKernel::stored_geometry, "ebe atomic / stored geometry"},
                                           {Strategy::ebe_atomic, CellKernel::geometry_on_the_fly,
                                            "ebe atomic / geometry on the fly"},
                                           {Strategy::dbd, CellKernel::stored_geometry, "dbd / stored geometry"},
                                           {Strategy::assembled, CellKernel::stored_geometry, "assembled"}} :
                      std::vector<Variant>{{Strategy::dbd_structured, CellKernel::geometry_on_the_fly,
                                            "dbd structured / geometry on the fly"}};
        for (unsigned int level = 0; level < n_levels; ++level)
          {
            IndexSet relevant;
            DoFTools::extract_locally_relevant_level_dofs(dof_handler, level, relevant);
            AffineConstraints<double> constraints(relevant);
            for (const auto i : mg_constrained.get_boundary_indices(level))
              if (relevant.is_element(i))
                constraints.add_line(i);
            constraints.close();
            for (const auto &variant : variants)
              {
                const std::string what = std::string(variant.name) + ", level " + std::to_string(level);
                plastix::MechanicsOperator::AdditionalData data(variant.strategy, variant.kernel);
                data.cell_stiffness_factor = geometric_factor;
                const MappingQ<3> mapping(1);
                data.shared_rows = plastix::SharedRows::partial_sums;
                plastix::MechanicsOperator sums;
                sums.reinit_level(mapping, dof_handler, constraints, materials, level, data);
                data.shared_rows = plastix::SharedRows::automatic;
                plastix::MechanicsOperator ghosts;
                ghosts.reinit_level(mapping, dof_handler, constraints, materials, level, data);

                // Which rows each computes from where.
                const auto &ghost_layout    = *ghosts.get_partitioner();
                IndexSet    relevant_others = relevant;
                relevant_others.subtract_set(ghost_layout.locally_owned_range());
                const bool relevant_ghosts =
                  Utilities::MPI::min(ghost_layout.ghost_indices() == relevant_others ? 1 : 0, env.comm) == 1;
                if (env.n_ranks > 1)
                  {
                    checker.check_true(what + ": automatic holds the locally relevant level DoFs as ghosts",
                                       relevant_ghosts);
                    checker.check_true(what + ": partial sums hold fewer ghosts",
                                       Utilities::MPI::sum(sums.get_partitioner()->n_ghost_indices(), env.comm) <
                                         Utilities::MPI::sum(ghost_layout.n_ghost_indices(), env.comm));
                  }
                checker.check_true(what + ": both count the owned level cells",
                                   sums.n_locally_owned_cells() == ghosts.n_locally_owned_cells() &&
                                     Utilities::MPI::sum(ghosts.n_locally_owned_cells(), env.comm) ==
                                       24u << (3 * level));

                checker.check(what + ": product, ghost cells vs partial sums",
                              relative_max_difference(product(ghosts, false), product(sums, false), env.comm),
                              1e-13);
                checker.check(what + ": single-precision product, ghost cells vs partial sums",
                              relative_max_difference(product(ghosts, true), product(sums, true), env.comm),
                              2e-6);
                checker.check(what + ": inverse diagonal, ghost cells vs partial sums",
                              relative_max_difference(diagonal(ghosts), diagonal(sums), env.comm), 1e-13);
                if (variant.strategy == Strategy::assembled)
                  {
                    checker.check(what + ": device-assembled matrix, ghost cells vs partial sums",
                                  relative_max_difference(matrix_product(ghosts), matrix_product(sums), env.comm),
                                  1e-13);
                    checker.check(what + ": device-assembled matrix vs the operator (ghost cells)",
                                  relative_max_difference(matrix_product(ghosts), product(ghosts, false), env.comm),
                                  1e-13);
                  }

                {
                  plastix::device::Vector<double> u(ghosts.get_partitioner()), v(sums.get_partitioner());
                  HostVector                      host(ghosts.get_partitioner());
                  for (const auto i : host.locally_owned_elements())
                    host(i) = 1e-3 * std::cos(0.37 * i);
                  u.copy_from_host(host);
                  v.copy_from_host(host);
                  const auto a = ghosts.cell_average_strain(u), b = sums.cell_average_strain(v);
                  double     difference = a.size() == b.size() ? 0. : 1., scale = 0.;
                  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
                    {
                      difference = std::max(difference, std::abs(a[i] - b[i]));
                      scale      = std::max(scale, std::abs(b[i]));
                    }
                  checker.check(what + ": cell-averaged strains of the owned cells",
                                Utilities::MPI::max(difference, env.comm) /
                                  std::max(Utilities::MPI::max(scale, env.comm), 1e-300),
                                1e-14);
                }

                if (env.n_ranks > 1 && level == n_levels - 1 && variant.strategy == Strategy::ebe_atomic &&
                    variant.kernel == CellKernel::stored_geometry)
                  {
                    bool refused = false;
                    try
                      {
                        ghosts.enable_plasticity();
                      }
                    catch (const std::logic_error &)
                      {
                        refused = true;
                      }
                    checker.check_true(what + ": plasticity refused on a level operator with ghost cells", refused);
                  }
              }
          }

        if (distorted)
          {
            IndexSet relevant;
            DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
            AffineConstraints<double> constraints(relevant);
            constraints.close();
            plastix::MechanicsOperator::AdditionalData data;
            data.shared_rows = plastix::SharedRows::ghost_cells;
            plastix::MechanicsOperator active;
            bool                       refused = false;
            try
              {
                active.reinit(dof_handler, constraints, materials, data);
              }
            catch (const std::invalid_argument &error)
              {
                refused = std::string(error.what()).find("ghost_cells") != std::string::npos;
              }
            checker.check_true("SharedRows::ghost_cells refused on the active mesh, naming itself", refused);
          }
      }
  });
}
