// A stiffness factor per cell (MechanicsOperator::AdditionalData::
// cell_stiffness_factor, the fixed-grid volume fractions): on a distorted
// two-material mesh with factors from 1e-6 to 1,
//  - every operator variant (strategy, cell kernel, thread mapping; full and
//    B-bar) equals deal.II's assembled matrix with each cell matrix times its
//    factor, and the device-assembled matrix equals it entry by entry;
//  - J2 plasticity: a constant factor s scales the internal force and the
//    consistent tangent by s and leaves the stresses and the plastic points
//    as they are, in every strategy;
//  - the preconditioners that assemble on the host (AMG, the multigrid
//    coarse matrix) and the multigrid levels take the factors: the solves
//    reach the same solution as Jacobi-CG, AMG in a fraction of its
//    iterations;
//  - a factor that is not finite and positive is refused naming the cell;
//  - a callback that throws on one rank stops every rank (no rank waits);
//  - a level operator that applies its ghost cells calls the callback once
//    per owned level cell and never for a ghost cell (the ghosts take their
//    owners' factors).
// Run with 1 and 2 MPI ranks.

// Test: ranks 1 2; labels long
#include <deal.II/base/function.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/trilinos_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/elastic_matrix.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>
#include <plastix/solvers/linear_solver.h>

#include "operator_variants.h"
#include "box_mesh.h"
#include "q1_dofs.h"
#include "test_environment.h"

#include <cmath>
#include <map>
#include <limits>

using namespace dealii;

namespace
{
  using HostVector = LinearAlgebra::distributed::Vector<double>;

  /**
   * A fixed-grid-like factor: xi + 1e-6 (1 - xi) with xi the fraction of a
   * ball of radius 0.9 around (2, 1, 0.3) in a 3^3 sampling of the cell.
   */
  double
  ball_factor(const TriaIterator<CellAccessor<3>> &cell)
  {
    unsigned int inside = 0;
    for (unsigned int i = 0; i < 27; ++i)
      {
        Point<3> p;
        for (unsigned int v = 0; v < 8; ++v)
          {
            double w = 1;
            for (unsigned int d = 0, k = i; d < 3; ++d, k /= 3)
              {
                const double s = (k % 3 + 0.5) / 3.;
                w *= ((v >> d) & 1) ? s : 1. - s;
              }
            p += w * cell->vertex(v);
          }
        inside += p.distance(Point<3>(2., 1., 0.3)) > 0.9 ? 1 : 0;
      }
    const double xi = inside / 27.;
    return xi + 1e-6 * (1. - xi);
  }

  double
  relative_difference(const HostVector &a, const HostVector &b, const AffineConstraints<double> &constraints,
                      const MPI_Comm comm)
  {
    return plastix_test::relative_difference(a, b, a.locally_owned_elements(), constraints, comm);
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    parallel::distributed::Triangulation<3> tria(env.comm, Triangulation<3>::limit_level_difference_at_vertices,
                                                 parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
    plastix_test::make_distorted_box(tria, {4, 3, 2}, Point<3>(2.5, 1.5, 1.), 2, 0.2, 7);
    for (const auto &cell : tria.cell_iterators()) // level cells too: the multigrid levels
      cell->set_material_id(cell->center()[0] > 1.2 ? 3 : 0);
    DoFHandler<3>    dof_handler(tria);
    const IndexSet   relevant = plastix_test::distribute_q1_dofs(dof_handler);
    dof_handler.distribute_mg_dofs();
    AffineConstraints<double> constraints(relevant);
    VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
    constraints.close();
    const plastix::MaterialTable materials{{0, plastix::make_material(200e3, 0.3, 250.)},
                                           {3, plastix::make_material(70e3, 0.33, 180.)}};

    HostVector src_host(dof_handler.locally_owned_dofs(), relevant, env.comm);
    for (const auto i : src_host.locally_owned_elements())
      src_host(i) = constraints.is_constrained(i) ? 0. : std::sin(1.7 * i + 0.3) + 0.25 * std::cos(0.11 * i);
    TrilinosWrappers::MPI::Vector src_t(dof_handler.locally_owned_dofs(), env.comm);
    for (const auto i : src_host.locally_owned_elements())
      src_t(i) = src_host(i);
    src_t.compress(VectorOperation::insert);

    double min_factor = 1, max_factor = 0;
    for (const auto &cell : tria.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          min_factor = std::min(min_factor, ball_factor(cell));
          max_factor = std::max(max_factor, ball_factor(cell));
        }
    env.pout << "factors from " << Utilities::MPI::min(min_factor, env.comm) << " to "
             << Utilities::MPI::max(max_factor, env.comm) << "\n";
    checker.check_true("the mesh has outside (1e-6), cut and inside (1) cells",
                       Utilities::MPI::min(min_factor, env.comm) < 1e-5 &&
                         Utilities::MPI::max(max_factor, env.comm) == 1.);

    // 1. Every variant against deal.II's assembly with the factors.
    for (const auto formulation : {plastix::backend::ElementFormulation::full, plastix::backend::ElementFormulation::bbar})
      {
        TrilinosWrappers::SparseMatrix matrix, plain;
        // The device keeps the factors in single precision.
        const auto rounded_factor = [](const TriaIterator<CellAccessor<3>> &cell) {
          return static_cast<double>(static_cast<float>(ball_factor(cell)));
        };
        plastix::assemble_elastic_matrix(dof_handler, constraints, materials, matrix, formulation, rounded_factor);
        plastix::assemble_elastic_matrix(dof_handler, constraints, materials, plain, formulation);
        TrilinosWrappers::MPI::Vector dst_t(src_t), plain_t(src_t);
        matrix.vmult(dst_t, src_t);
        plain.vmult(plain_t, src_t);
        HostVector reference(dof_handler.locally_owned_dofs(), env.comm), without(reference);
        for (const auto i : reference.locally_owned_elements())
          {
            reference(i) = dst_t(i);
            without(i)   = plain_t(i);
          }
        checker.check_true(plastix::backend::to_string(formulation) +
                             ": the factors change the matrix (relative l2 > 0.1)",
                           relative_difference(without, reference, constraints, env.comm) > 0.1);
        for (auto variant : plastix_test::all_operator_variants(formulation))
          {
            variant.data.cell_stiffness_factor = ball_factor;
            plastix::MechanicsOperator op;
            op.reinit(dof_handler, constraints, materials, variant.data);
            plastix::DeviceVector src, dst;
            op.initialize_dof_vector(src);
            op.initialize_dof_vector(dst);
            src.copy_from_host(src_host);
            op.vmult(dst, src);
            HostVector result(dof_handler.locally_owned_dofs(), env.comm);
            dst.copy_to_host(result);
            checker.check(variant.name + ": vs deal.II's matrix with the factors",
                          relative_difference(result, reference, constraints, env.comm), 1e-12);
            checker.check(variant.name + ": diagonal",
                          plastix_test::diagonal_difference(op, matrix, constraints, env.comm), 1e-12);
            if (variant.data.strategy == plastix::backend::Strategy::assembled)
              {
                TrilinosWrappers::SparseMatrix device;
                op.copy_matrix(device);
                double max_difference = 0, max_entry = 0;
                for (const auto row : dof_handler.locally_owned_dofs())
                  if (!constraints.is_constrained(row))
                    for (auto entry = matrix.begin(row); entry != matrix.end(row); ++entry)
                      if (!constraints.is_constrained(entry->column()))
                        {
                          max_entry      = std::max(max_entry, std::abs(entry->value()));
                          max_difference = std::max(max_difference,
                                                    std::abs(device.el(row, entry->column()) - entry->value()));
                        }
                checker.check(variant.name + ": device-assembled matrix entry by entry",
                              Utilities::MPI::max(max_difference, env.comm) / Utilities::MPI::max(max_entry, env.comm),
                              1e-13);
              }
          }
      }

    // 2. J2: a constant factor scales f_int and the tangent, not the stresses.
    {
      // u = a x e_x + b z e_y (plastic in part of the mesh), prescribed nowhere.
      HostVector u_host(dof_handler.locally_owned_dofs(), relevant, env.comm);
      for (const auto &cell : dof_handler.active_cell_iterators())
        if (cell->is_locally_owned())
          for (unsigned int v = 0; v < 8; ++v)
            {
              const Point<3> x = cell->vertex(v);
              for (unsigned int c = 0; c < 3; ++c)
                {
                  const auto i = cell->vertex_dof_index(v, c);
                  if (u_host.locally_owned_elements().is_element(i))
                    u_host(i) = c == 0 ? 2.5e-3 * x[0] * x[0] : c == 1 ? 1.5e-3 * x[2] * x[0] : 0.;
                }
            }
      AffineConstraints<double> none(relevant);
      none.close();
      const double factor = 0.25;
      for (const auto &variant : plastix_test::all_operator_variants(plastix::backend::ElementFormulation::bbar))
        {
          auto scaled_data                  = variant.data;
          scaled_data.cell_stiffness_factor = [factor](const TriaIterator<CellAccessor<3>> &) { return factor; };
          plastix::MechanicsOperator plain, scaled;
          plain.reinit(dof_handler, none, materials, variant.data);
          scaled.reinit(dof_handler, none, materials, scaled_data);
          std::vector<HostVector> results;
          std::vector<std::vector<double>> averages;
          unsigned int n_plastic[2] = {0, 0}, k = 0;
          for (plastix::MechanicsOperator *op : {&plain, &scaled})
            {
              plastix::PlasticityState &state = op->enable_plasticity();
              plastix::DeviceVector     u, f_int, tangent_u, src;
              op->initialize_dof_vector(u);
              op->initialize_dof_vector(f_int);
              op->initialize_dof_vector(tangent_u);
              op->initialize_dof_vector(src);
              u.copy_from_host(u_host);
              src.copy_from_host(src_host);
              n_plastic[k++] = state.update(u, f_int).n_plastic_points;
              op->vmult(tangent_u, src);
              for (const plastix::DeviceVector *v : {&f_int, &tangent_u})
                {
                  results.emplace_back(dof_handler.locally_owned_dofs(), env.comm);
                  v->copy_to_host(results.back());
                }
              averages.push_back(state.cell_averages());
            }
          results[2] /= factor;
          results[3] /= factor;
          checker.check(variant.name + ": J2 f_int with factor 1/4, times 4, vs without",
                        relative_difference(results[2], results[0], none, env.comm), 1e-13);
          checker.check(variant.name + ": J2 tangent with factor 1/4, times 4, vs without",
                        relative_difference(results[3], results[1], none, env.comm), 1e-13);
          double max_stress_difference = 0, max_stress = 0;
          for (std::size_t i = 0; i < averages[0].size(); ++i)
            {
              max_stress_difference = std::max(max_stress_difference, std::abs(averages[0][i] - averages[1][i]));
              max_stress            = std::max(max_stress, std::abs(averages[0][i]));
            }
          checker.check(variant.name + ": cell averages (stress, plastic strain) unchanged by the factor",
                        Utilities::MPI::max(max_stress_difference, env.comm) / Utilities::MPI::max(max_stress, env.comm),
                        1e-14);
          checker.check_true(variant.name + ": the same plastic points (" + std::to_string(n_plastic[0]) + ", > 0)",
                             n_plastic[0] == n_plastic[1] && n_plastic[0] > 0);
        }
    }

    // 3. Preconditioners with the factors: the same solution as Jacobi-CG.
    {
      plastix::MechanicsOperator::AdditionalData data(plastix::backend::Strategy::ebe_atomic,
                                                      plastix::backend::CellKernel::geometry_on_the_fly);
      data.cell_stiffness_factor = ball_factor;
      plastix::MechanicsOperator op;
      op.reinit(dof_handler, constraints, materials, data);
      plastix::DeviceVector b, reference;
      op.initialize_dof_vector(b);
      b.copy_from_host(src_host);
      op.set_constrained_zero(b);
      const plastix::DirichletBoundaries dirichlet{{0, ComponentMask(3, true)}};
      std::map<plastix::PreconditionerType, unsigned int> iterations;
      for (const auto preconditioner : {plastix::PreconditionerType::jacobi, plastix::PreconditionerType::amg,
                                        plastix::PreconditionerType::multigrid})
        for (const auto coarse : {plastix::CoarseSolverType::direct, plastix::CoarseSolverType::cg})
          {
            if (preconditioner != plastix::PreconditionerType::multigrid && coarse != plastix::CoarseSolverType::direct)
              continue;
            plastix::LinearSolverData solver_data;
            solver_data.preconditioner          = preconditioner;
            solver_data.relative_tolerance      = 1e-11;
            solver_data.max_iterations          = 20000;
            solver_data.multigrid.coarse_solver = coarse;
            plastix::LinearSolver solver(solver_data);
            solver.initialize(op, dof_handler, materials, dirichlet, true);
            plastix::DeviceVector x;
            op.initialize_dof_vector(x);
            const auto statistics = solver.solve(x, b);
            const std::string name = solver.name() + (preconditioner == plastix::PreconditionerType::multigrid ?
                                                          std::string(" (coarse ") + (coarse == plastix::CoarseSolverType::direct ? "direct" : "cg") + ")" :
                                                          std::string());
            env.pout << "  " << name << ": " << statistics.iterations << " iterations\n";
            iterations[preconditioner] = statistics.iterations;
            if (preconditioner == plastix::PreconditionerType::jacobi)
              reference = x;
            else
              {
                HostVector a(dof_handler.locally_owned_dofs(), env.comm), r(a);
                x.copy_to_host(a);
                reference.copy_to_host(r);
                checker.check(name + ": solution vs Jacobi-CG", relative_difference(a, r, constraints, env.comm), 1e-8);
              }
          }
      // AMG (Galerkin coarse levels of the assembled matrix with the
      // factors) stays robust. The geometric multigrid rediscretizes its
      // levels with the coarse cells' own factors, which does not capture a
      // stiffness contrast of 1e6: it converges, slowly (1938 and 3392
      // iterations here; 48 with a contrast of 1e3, 15 with 10; doc/solvers.md,
      // "Stiffness factors").
      checker.check_true("AMG with the factors needs fewer than a quarter of Jacobi's iterations",
                         4 * iterations[plastix::PreconditionerType::amg] < iterations[plastix::PreconditionerType::jacobi]);
    }

    // 4. Bad factors are refused naming the cell, on every rank.
    for (const double bad : {0., -1., std::numeric_limits<double>::quiet_NaN()})
      {
        plastix::MechanicsOperator::AdditionalData data;
        data.cell_stiffness_factor = [bad](const TriaIterator<CellAccessor<3>> &cell) {
          return cell->center()[0] < 0.2 && cell->center()[1] < 0.2 ? bad : 1.;
        };
        bool refused = false;
        try
          {
            plastix::MechanicsOperator op;
            op.reinit(dof_handler, constraints, materials, data);
          }
        catch (const std::invalid_argument &error)
          {
            refused = std::string(error.what()).find("stiffness factor of cell") != std::string::npos;
          }
        // Every rank stops, also those that own no such cell.
        checker.check_true("stiffness factor " + std::to_string(bad) + " refused naming the cell on every rank",
                           Utilities::MPI::min(refused ? 1 : 0, env.comm) == 1);
      }

    // 5. A callback that throws on one rank only (here rank 0, at the cells
    //    of one corner that only it calls the callback on, on the active
    //    mesh and on a level with ghost cells) stops every rank: the failing
    //    rank gets its own exception, the others std::invalid_argument with
    //    its message. No rank is left waiting in a collective step.
    {
      struct CallbackFailure : std::runtime_error
      {
        using std::runtime_error::runtime_error;
      };
      const unsigned int rank = Utilities::MPI::this_mpi_process(env.comm);
      plastix::MechanicsOperator::AdditionalData data;
      data.cell_stiffness_factor = [rank](const TriaIterator<CellAccessor<3>> &cell) -> double {
        if (rank == 0 && cell->center()[0] < 0.4 && cell->center()[1] < 0.4 && cell->center()[2] < 0.4)
          throw CallbackFailure("user callback failed at cell " + cell->id().to_string());
        return 1.;
      };
      const MappingQ<3> mapping(1);
      for (const int level : {-1, 1})
        {
          bool own = false, reported = false;
          try
            {
              plastix::MechanicsOperator op;
              if (level < 0)
                op.reinit(dof_handler, constraints, materials, data);
              else
                {
                  AffineConstraints<double> level_constraints;
                  level_constraints.close();
                  op.reinit_level(mapping, dof_handler, level_constraints, materials, level, data);
                }
            }
          catch (const CallbackFailure &)
            {
              own = true;
            }
          catch (const std::invalid_argument &error)
            {
              reported = std::string(error.what()).find("user callback failed at cell") != std::string::npos;
            }
          const std::string where = level < 0 ? "active mesh" : "level " + std::to_string(level);
          checker.check_true("a callback throwing on rank 0 only (" + where +
                               "): rank 0 gets its exception, every other rank the message",
                             Utilities::MPI::min((rank == 0 ? own : reported) ? 1 : 0, env.comm) == 1);
        }

      // The same in the multigrid's coarse matrix assembly (coarse solver
      // direct), which calls the callback for the level-0 cells after the
      // level-0 operator did: rank 0 throws at the first call beyond those
      // that a level-0 operator makes.
      std::map<CellId, unsigned int> operator_calls, calls;
      plastix::MechanicsOperator::AdditionalData counting;
      counting.cell_stiffness_factor = [&](const TriaIterator<CellAccessor<3>> &cell) {
        if (cell->level() == 0)
          ++operator_calls[cell->id()];
        return 1.;
      };
      {
        plastix::MechanicsOperator level_operator;
        AffineConstraints<double>  level_constraints;
        level_constraints.close();
        level_operator.reinit_level(mapping, dof_handler, level_constraints, materials, 0, counting);
      }
      plastix::MechanicsOperator::AdditionalData throwing;
      throwing.cell_stiffness_factor = [&](const TriaIterator<CellAccessor<3>> &cell) -> double {
        if (rank == 0 && cell->level() == 0 && ++calls[cell->id()] > operator_calls[cell->id()])
          throw CallbackFailure("user callback failed at cell " + cell->id().to_string());
        return 1.;
      };
      plastix::MechanicsOperator op;
      op.reinit(dof_handler, constraints, materials, throwing);
      bool own = false, reported = false;
      try
        {
          plastix::LinearSolverData solver_data;
          solver_data.preconditioner          = plastix::PreconditionerType::multigrid;
          solver_data.multigrid.coarse_solver = plastix::CoarseSolverType::direct;
          plastix::LinearSolver solver(solver_data);
          solver.initialize(op, dof_handler, materials, {{0, ComponentMask(3, true)}}, true);
        }
      catch (const CallbackFailure &)
        {
          own = true;
        }
      catch (const std::invalid_argument &error)
        {
          reported = std::string(error.what()).find("user callback failed at cell") != std::string::npos;
        }
      checker.check_true("a callback throwing on rank 0 only in the coarse matrix assembly: rank 0 gets its "
                         "exception, every other rank the message",
                         Utilities::MPI::min((rank == 0 ? own : reported) ? 1 : 0, env.comm) == 1);
    }

    // 6. The callback's calls on a level whose operator applies its ghost
    //    cells (several ranks): once per owned level cell, none for a ghost.
    {
      const unsigned int             level = 1;
      std::map<CellId, unsigned int> calls;
      plastix::MechanicsOperator::AdditionalData counting;
      counting.cell_stiffness_factor = [&](const TriaIterator<CellAccessor<3>> &cell) {
        ++calls[cell->id()];
        return ball_factor(cell);
      };
      const MappingQ<3>         mapping(1);
      AffineConstraints<double> level_constraints;
      level_constraints.close();
      plastix::MechanicsOperator op;
      op.reinit_level(mapping, dof_handler, level_constraints, materials, level, counting);
      unsigned int n_owned = 0, n_once = 0, n_other = 0;
      for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
        if (cell->is_locally_owned_on_level())
          {
            ++n_owned;
            const auto found = calls.find(cell->id());
            n_once += found != calls.end() && found->second == 1 ? 1 : 0;
          }
      for (const auto &[id, count] : calls)
        n_other += tria.create_cell_iterator(id)->is_locally_owned_on_level() ? 0 : count;
      checker.check_true("level " + std::to_string(level) + " operator on " + std::to_string(env.n_ranks) +
                           " rank(s) (ghost cells applied on several): the callback ran once for each of " +
                           std::to_string(Utilities::MPI::sum(n_owned, env.comm)) + " owned level cells",
                         Utilities::MPI::sum(n_once, env.comm) == Utilities::MPI::sum(n_owned, env.comm));
      checker.check_true("level " + std::to_string(level) + " operator: the callback never ran for a cell owned "
                           "elsewhere",
                         Utilities::MPI::sum(n_other, env.comm) == 0);
    }
  });
}
