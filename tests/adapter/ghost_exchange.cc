// The ghost exchange of plastix's device vectors by MPI and by shared memory
// (Runtime::set_ghost_exchange): update_ghost_values() gives every ghost
// its owner's value and compress(add) adds every rank's ghost entries to
// their owner, both checked exactly (integer values) against the layout of
// deal.II's own distributed vector, for double and float vectors on two
// partitioners of different sizes taken in turn, eight rounds each (the
// shared-memory channels alternate their two slots, wait for the other
// rank's flags and grow their buffers), and in chains of exchanges and
// vector operations with no host work in between (a GPU's stream runs
// ahead of the other rank's); the operator gives the
// same product and a CG solve the same iterations (within two: atomics) by
// either route. Runtime's description of the route is checked too. 1 and 2
// ranks (on one rank nothing is exchanged; on a GPU build the shared memory
// is CUDA IPC).

// Test: ranks 1 2
#include <deal.II/distributed/tria.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/backend/device.h>
#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>
#include <plastix/core/runtime.h>

#include "q1_dofs.h"
#include "test_environment.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

using namespace dealii;

namespace
{
  using Partitioner = Utilities::MPI::Partitioner;

  /** The owner's value of global entry @p i in round @p round (an integer: exact in float). */
  double
  owned_value(const types::global_dof_index i, const unsigned int round)
  {
    return static_cast<double>((7 * i + 13 * round) % 1000);
  }

  /** What rank @p rank holds in its ghost entry of global entry @p i before compress(add). */
  double
  ghost_value(const types::global_dof_index i, const unsigned int rank)
  {
    return static_cast<double>(i % 17 + 1 + 100 * rank);
  }

  /** The local array (owned entries, then ghosts) of a device vector, as doubles. */
  template <typename Number>
  std::vector<double>
  local_values(const plastix::device::Vector<Number> &v, const std::size_t n)
  {
    std::vector<Number> local(n);
    plastix::backend::copy_to_host(local.data(), v.device_data(), n * sizeof(Number));
    return std::vector<double>(local.begin(), local.end());
  }

  template <typename Number>
  void
  set_local_values(plastix::device::Vector<Number> &v, const std::vector<double> &values)
  {
    const std::vector<Number> local(values.begin(), values.end());
    plastix::backend::copy_to_device(v.device_data(), local.data(), local.size() * sizeof(Number));
  }

  /** Largest error of the ghosts after update_ghost_values(). */
  template <typename Number>
  double
  update_error(const std::shared_ptr<const Partitioner> &p, const unsigned int round)
  {
    plastix::device::Vector<Number> v(p);
    const std::size_t               n_owned = p->locally_owned_size(), n = n_owned + p->n_ghost_indices();
    std::vector<double>             local(n, -1.);
    for (std::size_t k = 0; k < n_owned; ++k)
      local[k] = owned_value(p->local_to_global(k), round);
    set_local_values(v, local);
    v.update_ghost_values();
    const std::vector<double> after = local_values(v, n);
    double                    error = 0;
    for (std::size_t k = 0; k < n; ++k)
      error = std::max(error, std::abs(after[k] - owned_value(p->local_to_global(k), round)));
    return error;
  }

  /** Largest error of the owned entries after compress(add) against deal.II's vector, plus any ghost left. */
  template <typename Number>
  double
  compress_error(const std::shared_ptr<const Partitioner> &p, const unsigned int round, const unsigned int rank)
  {
    plastix::device::Vector<Number>            v(p);
    LinearAlgebra::distributed::Vector<double> reference(p);
    const std::size_t   n_owned = p->locally_owned_size(), n = n_owned + p->n_ghost_indices();
    std::vector<double> local(n);
    for (std::size_t k = 0; k < n; ++k)
      {
        const auto i = p->local_to_global(k);
        local[k]     = k < n_owned ? owned_value(i, round) : ghost_value(i, rank);
        reference.local_element(k) = local[k];
      }
    set_local_values(v, local);
    v.compress(VectorOperation::add);
    reference.compress(VectorOperation::add);
    const std::vector<double> after = local_values(v, n);
    double                    error = 0;
    for (std::size_t k = 0; k < n; ++k)
      error = std::max(error, std::abs(after[k] - (k < n_owned ? reference.local_element(k) : 0.)));
    return error;
  }

  /**
   * Largest relative error of chains of exchanges that no host work
   * separates: @p rounds times update_ghost_values(), compress(add) and a
   * halving, on a vector of each layout in turn (so the channels reuse
   * their slots while the other rank's stream may still be behind, and grow
   * in the middle). An owned entry that @p m other ranks hold as a ghost is
   * multiplied by (1 + m) / 2 per round: exact in binary arithmetic.
   */
  template <typename Number>
  double
  chain_error(const std::vector<std::shared_ptr<const Partitioner>> &layouts, const unsigned int rounds)
  {
    std::vector<plastix::device::Vector<Number>> vectors;
    std::vector<std::vector<double>>             expected;
    for (const auto &p : layouts)
      {
        // m per owned entry, from deal.II's vector.
        LinearAlgebra::distributed::Vector<double> holders(p);
        for (std::size_t k = p->locally_owned_size(); k < p->locally_owned_size() + p->n_ghost_indices(); ++k)
          holders.local_element(k) = 1.;
        holders.compress(VectorOperation::add);
        std::vector<double> local(p->locally_owned_size() + p->n_ghost_indices(), 0.);
        expected.emplace_back(p->locally_owned_size());
        for (std::size_t k = 0; k < p->locally_owned_size(); ++k)
          {
            local[k]              = owned_value(p->local_to_global(k), 1) + 1.;
            expected.back()[k]    = local[k] * std::pow(0.5 * (1. + holders.local_element(k)), rounds);
          }
        vectors.emplace_back(p);
        set_local_values(vectors.back(), local);
      }
    for (unsigned int round = 0; round < rounds; ++round)
      for (auto &v : vectors)
        {
          v.update_ghost_values();
          v.compress(VectorOperation::add);
          v *= Number(0.5);
        }
    double error = 0;
    for (std::size_t l = 0; l < layouts.size(); ++l)
      {
        const std::vector<double> after = local_values(vectors[l], layouts[l]->locally_owned_size());
        for (std::size_t k = 0; k < after.size(); ++k)
          error = std::max(error, std::abs(after[k] - expected[l][k]) / std::abs(expected[l][k]));
      }
    return error;
  }

  /** A p4est box of @p cells cells refined @p refinements times, with its DoFs and partitioner. */
  struct Mesh
  {
    Mesh(const MPI_Comm comm, const std::vector<unsigned int> &cells, const unsigned int refinements)
      : tria(comm)
      , dof_handler(tria)
    {
      GridGenerator::subdivided_hyper_rectangle(tria, cells, Point<3>(0, 0, 0), Point<3>(3, 2, 1), true);
      for (const auto &cell : tria.active_cell_iterators())
        cell->set_material_id(0); // colorize numbers the cells too
      tria.refine_global(refinements);
      relevant    = plastix_test::distribute_q1_dofs(dof_handler);
      partitioner = std::make_shared<Partitioner>(dof_handler.locally_owned_dofs(), relevant, comm);
    }

    parallel::distributed::Triangulation<3> tria;
    DoFHandler<3>                           dof_handler;
    IndexSet                                relevant;
    std::shared_ptr<const Partitioner>      partitioner;
  };

  /** y = A x and the iterations of a Jacobi-CG solve of A u = y on @p mesh. */
  std::pair<std::vector<double>, unsigned int>
  apply_and_solve(Mesh &mesh, const MPI_Comm comm)
  {
    AffineConstraints<double> constraints(mesh.relevant);
    VectorTools::interpolate_boundary_values(mesh.dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
    constraints.close();
    plastix::MechanicsOperator op;
    op.reinit(mesh.dof_handler, constraints, {{0, plastix::make_material(200e3, 0.3)}});
    plastix::DeviceVector x, y, u;
    op.initialize_dof_vector(x);
    op.initialize_dof_vector(y);
    op.initialize_dof_vector(u);
    LinearAlgebra::distributed::Vector<double> host(mesh.dof_handler.locally_owned_dofs(), comm);
    for (const auto i : mesh.dof_handler.locally_owned_dofs())
      host[i] = constraints.is_constrained(i) ? 0. : std::sin(0.37 * i);
    x.copy_from_host(host);
    op.vmult(y, x);
    y.copy_to_host(host);
    std::vector<double> product(host.begin(), host.end());

    DiagonalMatrix<plastix::DeviceVector> jacobi;
    op.compute_inverse_diagonal(jacobi.get_vector());
    SolverControl                   control(2000, 1e-10 * y.l2_norm());
    SolverCG<plastix::DeviceVector> cg(control);
    cg.solve(op, u, y, jacobi);
    return {product, control.last_step()};
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    // Two layouts with ghost ranges of different sizes, used in turn.
    Mesh fine(env.comm, {4, 3, 2}, 2), coarse(env.comm, {3, 2, 2}, 1);
    const std::vector<std::shared_ptr<const Partitioner>> layouts{fine.partitioner, coarse.partitioner};

    std::vector<std::pair<std::vector<double>, unsigned int>> results;
    for (const plastix::GhostExchange route : {plastix::GhostExchange::mpi, plastix::GhostExchange::shared_memory})
      {
        const std::string name = plastix::enum_name(route);
        env.runtime.set_ghost_exchange(route);
        const std::string description = plastix::Runtime::ghost_exchange_description();
        env.pout << "=== Ghost exchange = " << name << ": " << description << std::endl;
        if (env.n_ranks == 1)
          checker.check_true(name + ": one rank exchanges nothing", description == "none (one rank)");
        else if (route == plastix::GhostExchange::shared_memory)
          checker.check_true(name + ": the ranks share memory",
                             description.rfind("shared memory (", 0) == 0 &&
                               description.find("mpi for the others") == std::string::npos);
        else
          checker.check_true(name + ": MPI", description == "mpi");

        double update_double = 0, update_float = 0, compress_double = 0, compress_float = 0;
        for (unsigned int round = 0; round < 8; ++round)
          for (const auto &layout : layouts)
            {
              update_double   = std::max(update_double, update_error<double>(layout, round));
              update_float    = std::max(update_float, update_error<float>(layout, round));
              compress_double = std::max(compress_double, compress_error<double>(layout, round, env.rank));
              compress_float  = std::max(compress_float, compress_error<float>(layout, round, env.rank));
            }
        const auto largest = [&](const double e) { return Utilities::MPI::max(e, env.comm); };
        checker.check(name + ": update_ghost_values, double, 16 exchanges", largest(update_double), 0.);
        checker.check(name + ": update_ghost_values, float, 16 exchanges", largest(update_float), 0.);
        checker.check(name + ": compress(add) = deal.II's, double, 16 exchanges", largest(compress_double), 0.);
        checker.check(name + ": compress(add) = deal.II's, float, 16 exchanges", largest(compress_float), 0.);
        // Fresh channels, the smaller layout first: they grow inside the chain.
        env.runtime.set_ghost_exchange(route);
        const std::vector<std::shared_ptr<const Partitioner>> growing{layouts[1], layouts[0]};
        checker.check(name + ": 48 exchanges without the host in between, double",
                      largest(chain_error<double>(growing, 12)), 0.);
        checker.check(name + ": 48 exchanges without the host in between, float",
                      largest(chain_error<float>(layouts, 12)), 0.);
        results.push_back(apply_and_solve(fine, env.comm));
      }

    // The operator and the solver do not see the route.
    double difference = 0, size = 0;
    for (std::size_t i = 0; i < results[0].first.size(); ++i)
      {
        difference = std::max(difference, std::abs(results[0].first[i] - results[1].first[i]));
        size       = std::max(size, std::abs(results[0].first[i]));
      }
    checker.check("operator product, shared memory against mpi (relative)",
                  Utilities::MPI::max(difference, env.comm) / Utilities::MPI::max(size, env.comm), 1e-14);
    env.pout << "  CG iterations: mpi " << results[0].second << ", shared memory " << results[1].second
             << std::endl;
    // GPU atomics add in no fixed order, so the last bits and with them an
    // iteration may differ between any two solves (on the host they agree).
    checker.check_true("CG iterations, shared memory = mpi (+-2)",
                       std::abs(static_cast<int>(results[0].second) - static_cast<int>(results[1].second)) <= 2);

    // Back to the default, as the other tests run.
    env.runtime.set_ghost_exchange(plastix::GhostExchange::automatic);
  });
}
