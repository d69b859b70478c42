// The transfer of the displacement and the Gauss-point history across one
// refinement and coarsening of a p4est mesh (plastix::StateTransfer, which
// the elastoplastic driver uses between load steps), on 1 and 2 MPI ranks
// (cells move between the ranks with the repartitioning):
//  - a distorted mesh refined once globally (its children are exact octants
//    of their trilinear parents), cells near x = 0 refined, all children of
//    parents near x = 4 coarsened, cells elsewhere unchanged;
//  - history fields 0-2 hold the physical position of each Gauss point,
//    fields 3-12 the value f + q / 4 (field f, Gauss point q);
//  - after the transfer: a refined cell's Gauss points all hold the position
//    of its parent's Gauss point in the same octant (computed independently
//    with FEValues on the parent) and the parent's fields f + c / 4 (child
//    c); a coarsened cell's Gauss point q holds the volume centroid of its
//    former child q (4-point Gauss rule on the octant of the parent) and
//    the JxW average of f + q' / 4 over that child's points q'; unchanged
//    cells keep their values;
//  - the displacement, a linear function, is exact at every new DoF, also
//    when prepare() is given a copy whose ghost values are zero;
//  - refinement_indicator(plastic strain increment) and mark_cells(): the
//    indicator is the cell-averaged increment times the diameter; no cell is
//    refined beyond the maximum level or where the indicator is zero.

// Test: ranks 1 2
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include "adaptive_refinement.h"
#include "q1_dofs.h"
#include "test_environment.h"

#include <cmath>
#include <memory>

using namespace dealii;
using HostVector = LinearAlgebra::distributed::Vector<double>;

namespace
{
  constexpr unsigned int n_fields = 13, n_points = 8, values_per_cell = n_fields * n_points;

  /** The linear displacement field. */
  class Linear : public Function<3>
  {
  public:
    Linear()
      : Function<3>(3)
    {}
    double
    value(const Point<3> &x, const unsigned int c) const override
    {
      return 0.01 * (c + 1) * x[0] - 0.02 * x[1] + 0.003 * (c + 2) * x[2] + 0.1 * c;
    }
  };
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    parallel::distributed::Triangulation<3> tria(env.comm);
    GridGenerator::subdivided_hyper_rectangle(tria, {4, 3, 2}, Point<3>(0, 0, 0), Point<3>(4, 3, 2));
    GridTools::distort_random(0.25, tria, true, 5);
    tria.refine_global(1);
    DoFHandler<3>          dof_handler(tria);
    IndexSet               relevant = plastix_test::distribute_q1_dofs(dof_handler);
    const FiniteElement<3> &fe      = dof_handler.get_fe();
    HostVector u(dof_handler.locally_owned_dofs(), relevant, env.comm);
    VectorTools::interpolate(dof_handler, Linear(), u);
    u.update_ghost_values();

    const MappingQ1<3> mapping;
    const FE_Q<3>      fe_scalar(1);
    FEValues<3>        gauss(mapping, fe_scalar, QGauss<3>(2), update_quadrature_points | update_JxW_values);
    std::vector<double> history;
    for (const auto &cell : tria.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          gauss.reinit(cell);
          const std::size_t first = history.size();
          history.resize(first + values_per_cell);
          for (unsigned int q = 0; q < n_points; ++q)
            {
              for (unsigned int d = 0; d < 3; ++d)
                history[first + d * n_points + q] = gauss.quadrature_point(q)[d];
              for (unsigned int f = 3; f < n_fields; ++f)
                history[first + f * n_points + q] = f + 0.25 * q;
            }
        }

    // ---- the indicator and the marking ----
    {
      std::vector<double> before(history.size(), 0.), after(history.size(), 0.);
      std::size_t         k = 0;
      double              worst = 0;
      for (const auto &cell : tria.active_cell_iterators())
        if (cell->is_locally_owned())
          {
            // Increment of the equivalent plastic strain (field 6): q / 100 where the centre has x > 2.
            for (unsigned int q = 0; q < n_points; ++q)
              {
                before[k * values_per_cell + 6 * n_points + q] = 0.5;
                after[k * values_per_cell + 6 * n_points + q]  = 0.5 + (cell->center()[0] > 2 ? 0.01 * q : 0.);
              }
            ++k;
          }
      const Vector<float> indicator = plastix::refinement_indicator(
        dof_handler, plastix::RefinementIndicator::plastic_strain_increment, u, before, after);
      for (const auto &cell : tria.active_cell_iterators())
        if (cell->is_locally_owned())
          {
            const double expected = cell->center()[0] > 2 ? 0.035 * cell->diameter() : 0.;
            worst = std::max(worst, std::abs(indicator[cell->active_cell_index()] - expected) /
                                      (0.035 * cell->diameter()));
          }
      checker.check("plastic strain increment indicator = mean increment x diameter (max relative)",
                    Utilities::MPI::max(worst, env.comm), 1e-6);
      plastix::AdaptiveRefinementParameters parameters;
      parameters.indicator        = plastix::RefinementIndicator::plastic_strain_increment;
      parameters.refine_fraction  = 0.9;
      parameters.coarsen_fraction = 0.;
      parameters.maximum_level    = 2;
      const auto [n_refine, n_coarsen] = plastix::mark_cells(tria, indicator, parameters);
      unsigned long long wrong = 0, expected_refine = 0;
      for (const auto &cell : tria.active_cell_iterators())
        if (cell->is_locally_owned())
          {
            expected_refine += indicator[cell->active_cell_index()] > 0;
            wrong += static_cast<bool>(cell->refine_flag_set()) != (indicator[cell->active_cell_index()] > 0);
          }
      env.pout << "marking: " << n_refine << " cells flagged for refinement, " << n_coarsen << " for coarsening\n";
      checker.check("refine fraction 0.9: exactly the cells with a positive indicator flagged (wrong flags)",
                    double(Utilities::MPI::sum(wrong, env.comm)), 0.);
      checker.check_true("count of flagged cells", n_refine == Utilities::MPI::sum(expected_refine, env.comm) &&
                                                     n_coarsen == 0);
      parameters.maximum_level = 1;
      const auto [n_refine_limited, n_coarsen_limited] = plastix::mark_cells(tria, indicator, parameters);
      checker.check("maximum level 1 (the current level): no cell flagged",
                    double(n_refine_limited + n_coarsen_limited), 0.);
      for (const auto &cell : tria.active_cell_iterators())
        cell->clear_refine_flag();
    }

    // ---- refine near x = 0, coarsen near x = 4 ----
    for (const auto &cell : tria.active_cell_iterators())
      if (cell->is_locally_owned() && cell->center()[0] < 0.9)
        cell->set_refine_flag();
    for (const auto &parent : tria.cell_iterators_on_level(0))
      if (parent->center()[0] > 3)
        {
          bool all_owned = parent->has_children();
          for (unsigned int c = 0; all_owned && c < parent->n_children(); ++c)
            all_owned = parent->child(c)->is_active() && parent->child(c)->is_locally_owned();
          if (all_owned)
            for (unsigned int c = 0; c < parent->n_children(); ++c)
              parent->child(c)->set_coarsen_flag();
        }
    tria.prepare_coarsening_and_refinement();
    const unsigned long long cells_before = tria.n_global_active_cells();
    plastix::StateTransfer   transfer(tria, dof_handler);
    // A copy, as the driver passes it: deal.II's copy constructor zeroes the
    // ghosts, which prepare() must bring back (cells on a rank's boundary
    // that move to the other rank lost their ghost values otherwise).
    const HostVector u_copy(u);
    transfer.prepare(u_copy, history);
    tria.execute_coarsening_and_refinement();
    dof_handler.distribute_dofs(fe);
    DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    HostVector u_new(dof_handler.locally_owned_dofs(), relevant, env.comm);
    std::vector<double> history_new;
    transfer.interpolate(u_new, history_new);
    u_new.update_ghost_values();

    unsigned long long n_refined = 0, n_coarsened = 0, n_kept = 0;
    double             position_error = 0, field_error = 0;
    std::size_t        k = 0;
    // The 4-point rule (centroids) and the 2-point rule (the former
    // child's Gauss points) on each octant of the reference cell.
    const QGauss<3> fine(4), coarse(2);
    const auto      on_octant = [&](const Quadrature<3> &rule, const unsigned int c) {
      std::vector<Point<3>> points;
      std::vector<double>   weights;
      for (unsigned int i = 0; i < rule.size(); ++i)
        {
          Point<3> p;
          for (unsigned int d = 0; d < 3; ++d)
            p[d] = 0.5 * (((c >> d) & 1) + rule.point(i)[d]);
          points.push_back(p);
          weights.push_back(rule.weight(i) / 8);
        }
      return std::make_unique<FEValues<3>>(mapping, fe_scalar, Quadrature<3>(points, weights),
                                           update_quadrature_points | update_JxW_values);
    };
    std::vector<std::unique_ptr<FEValues<3>>> octants, octant_points;
    for (unsigned int c = 0; c < n_points; ++c)
      {
        octants.push_back(on_octant(fine, c));
        octant_points.push_back(on_octant(coarse, c));
      }
    for (const auto &cell : tria.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          const double *values = &history_new[k * values_per_cell];
          const double  scale  = cell->diameter();
          ++k;
          for (unsigned int q = 0; q < n_points; ++q)
            {
              Point<3> expected;
              double   expected_field_offset = 0.25 * q;
              if (cell->level() == 2)
                {
                  gauss.reinit(cell->parent());
                  const unsigned int c  = cell->parent()->child_iterator_to_index(cell);
                  expected              = gauss.quadrature_point(c);
                  expected_field_offset = 0.25 * c;
                }
              else if (cell->level() == 0)
                {
                  auto &octant = *octants[q];
                  octant.reinit(cell);
                  double volume = 0;
                  for (unsigned int i = 0; i < fine.size(); ++i)
                    {
                      expected += octant.JxW(i) * octant.quadrature_point(i);
                      volume += octant.JxW(i);
                    }
                  expected /= volume;
                  // The JxW average of q' / 4 over the former child's points q'.
                  auto &child_points = *octant_points[q];
                  child_points.reinit(cell);
                  double sum = 0, child_volume = 0;
                  for (unsigned int i = 0; i < n_points; ++i)
                    {
                      sum += child_points.JxW(i) * 0.25 * i;
                      child_volume += child_points.JxW(i);
                    }
                  expected_field_offset = sum / child_volume;
                }
              else
                {
                  gauss.reinit(cell);
                  expected = gauss.quadrature_point(q);
                }
              for (unsigned int d = 0; d < 3; ++d)
                position_error = std::max(position_error, std::abs(values[d * n_points + q] - expected[d]) / scale);
              for (unsigned int f = 3; f < n_fields; ++f)
                field_error = std::max(field_error, std::abs(values[f * n_points + q] - (f + expected_field_offset)));
            }
          n_refined += cell->level() == 2;
          n_coarsened += cell->level() == 0;
          n_kept += cell->level() == 1;
        }
    n_refined   = Utilities::MPI::sum(n_refined, env.comm);
    n_coarsened = Utilities::MPI::sum(n_coarsened, env.comm);
    n_kept      = Utilities::MPI::sum(n_kept, env.comm);
    env.pout << "cells " << cells_before << " -> " << tria.n_global_active_cells() << ": " << n_refined
             << " children of refined cells, " << n_coarsened << " coarsened parents, " << n_kept
             << " unchanged\n";
    checker.check_true("the mesh has refined, coarsened and unchanged cells",
                       n_refined > 0 && n_coarsened > 0 && n_kept > 0);
    checker.check("history positions: parent's octant point, octant centroid, own point (max error / diameter)",
                  Utilities::MPI::max(position_error, env.comm), 1e-12);
    checker.check("history fields 3-12: f + q/4 carried, f + c/4 in children, volume averages in coarsened cells",
                  Utilities::MPI::max(field_error, env.comm), 1e-12);

    // The displacement: linear, so exact at every new node.
    std::map<types::global_dof_index, Point<3>> support;
    DoFTools::map_dofs_to_support_points(mapping, dof_handler, support);
    const Linear linear;
    double       u_error = 0;
    std::vector<types::global_dof_index> dofs(fe.n_dofs_per_cell());
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          cell->get_dof_indices(dofs);
          for (unsigned int i = 0; i < dofs.size(); ++i)
            u_error = std::max(u_error, std::abs(u_new(dofs[i]) - linear.value(support.at(dofs[i]),
                                                                                fe.system_to_component_index(i).first)));
        }
    checker.check("displacement (linear) at every node of the new mesh (max abs error)",
                  Utilities::MPI::max(u_error, env.comm), 1e-13);
  });
}
