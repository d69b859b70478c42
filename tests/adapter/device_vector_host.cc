// Host <-> device copies of plastix::DeviceVector as a user program needs
// them: from and to a serial dealii::Vector of all DoFs, from and to a
// distributed vector on the DoFHandler's own (owned + relevant) layout
// rather than the operator's partitioner, and the refusal of a vector that
// owns other entries; and make_material()'s documented elastic limits (yield
// stress 0 or infinite: no Gauss point yields) and refusals. 1 and 2 ranks.

// Test: ranks 1 2
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>
#include <plastix/core/runtime.h>

#include "q1_dofs.h"
#include "test_environment.h"

#include <stdexcept>

#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

using namespace dealii;

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    {
      parallel::distributed::Triangulation<3> tria(env.comm);
      GridGenerator::subdivided_hyper_rectangle(tria, {4, 2, 2}, Point<3>(0, 0, 0), Point<3>(2, 1, 1), true);
      for (const auto &cell : tria.active_cell_iterators())
        cell->set_material_id(0); // colorize numbers the cells too
      DoFHandler<3>          dof_handler(tria);
      const IndexSet         relevant = plastix_test::distribute_q1_dofs(dof_handler);
      AffineConstraints<double> constraints(relevant);
      VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
      constraints.close();
      plastix::MechanicsOperator op;
      op.reinit(dof_handler, constraints, {{0, plastix::make_material(200e9, 0.3)}});
      const IndexSet &owned = dof_handler.locally_owned_dofs();
      const auto      value = [](const types::global_dof_index i) { return std::sin(0.7 * i) + 2.; };

      // A serial vector of all DoFs (as if assembled or replicated on every rank).
      Vector<double> all(dof_handler.n_dofs());
      for (unsigned int i = 0; i < all.size(); ++i)
        all[i] = value(i);
      plastix::DeviceVector u;
      op.initialize_dof_vector(u);
      u.copy_from_host(all);
      // Back through a distributed vector on the DoFHandler's layout (not the operator's partitioner).
      LinearAlgebra::distributed::Vector<double> host(owned, relevant, env.comm);
      u.copy_to_host(host);
      double worst = 0;
      for (const auto i : owned)
        worst = std::max(worst, std::abs(host(i) - value(i)));
      checker.check("serial Vector -> device -> distributed vector (DoFHandler layout), largest difference",
                    Utilities::MPI::max(worst, env.comm), 0.);

      // And into a serial vector: the owned entries land at their global positions.
      for (const auto i : owned)
        host(i) = -value(i);
      u.copy_from_host(host);
      Vector<double> back;
      u.copy_to_host(back);
      worst = back.size() == dof_handler.n_dofs() ? 0. : 1.;
      for (const auto i : owned)
        worst = std::max(worst, std::abs(back[i] + value(i)));
      checker.check("distributed vector -> device -> serial Vector (owned entries), largest difference",
                    Utilities::MPI::max(worst, env.comm), 0.);

      // Vectors that do not fit are refused with a message.
      bool refused = false;
      try
        {
          u.copy_from_host(Vector<double>(dof_handler.n_dofs() + 1));
        }
      catch (const std::exception &)
        {
          refused = true;
        }
      checker.check_true("a serial vector of the wrong size is refused", refused);
      if (Utilities::MPI::n_mpi_processes(env.comm) > 1)
        {
          // Every DoF owned by rank 0: not the operator's layout on any rank.
          IndexSet on_rank_0(dof_handler.n_dofs());
          if (Utilities::MPI::this_mpi_process(env.comm) == 0)
            on_rank_0.add_range(0, dof_handler.n_dofs());
          LinearAlgebra::distributed::Vector<double> everything(on_rank_0, env.comm);
          refused = false;
          try
            {
              u.copy_from_host(everything);
            }
          catch (const std::exception &)
            {
              refused = true;
            }
          checker.check_true("a distributed vector owning other entries is refused", refused);
        }

      // make_material: yield stress 0 and infinity are both elastic; bad values are refused.
      for (const double yield : {0., std::numeric_limits<double>::infinity(), 250e6})
        {
          plastix::MechanicsOperator elastic;
          elastic.reinit(dof_handler, constraints, {{0, plastix::make_material(200e9, 0.3, yield, 1e9)}});
          plastix::PlasticityState &state = elastic.enable_plasticity();
          plastix::DeviceVector    displacement, force;
          elastic.initialize_dof_vector(displacement);
          displacement.copy_from_host(all); // strains of order one: far beyond any finite yield stress
          const auto statistics = state.update(displacement, force);
          // The control: a finite yield stress yields at these strains.
          const bool elastic_expected = yield == 0 || std::isinf(yield);
          checker.check_true("yield stress " + std::to_string(yield) + ": " + std::to_string(statistics.n_plastic_points) +
                               " plastic Gauss points" + (elastic_expected ? " (none expected)" : " (some expected)"),
                             (statistics.n_plastic_points == 0) == elastic_expected);
        }
      const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
      for (const auto &[label, args] : std::vector<std::pair<std::string, std::array<double, 5>>>{
             {"E = inf", {{inf, 0.3, 0, 0, 0}}},
             {"E = nan", {{nan, 0.3, 0, 0, 0}}},
             {"nu = 0.5", {{1., 0.5, 0, 0, 0}}},
             {"yield = nan", {{1., 0.3, nan, 0, 0}}},
             {"yield < 0", {{1., 0.3, -1, 0, 0}}},
             {"H = inf", {{1., 0.3, 1, inf, 0}}},
             {"Hkin = nan", {{1., 0.3, 1, 0, nan}}}})
        {
          refused = false;
          try
            {
              plastix::make_material(args[0], args[1], args[2], args[3], args[4]);
            }
          catch (const std::invalid_argument &)
            {
              refused = true;
            }
          checker.check_true("make_material refuses " + label, refused);
        }
    }
  });
}
