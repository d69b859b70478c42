// The distorted box most deal.II-side tests run on: a brick from the origin,
// refined, its interior vertices moved at random (the same on every rank).
#ifndef PLASTIX_TESTS_BOX_MESH_H
#define PLASTIX_TESTS_BOX_MESH_H

#include <deal.II/base/point.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/grid/tria.h>

#include <vector>

namespace plastix_test
{
  /**
   * Fills @p tria with [0, @p upper] of @p subdivisions cells, colorized
   * (boundary ids 0-5 by face: x = 0 is 0, x = upper is 1, and so on),
   * refines it @p refinements times and moves its interior vertices by up
   * to @p distortion times the shortest adjacent edge (random with
   * @p seed; none for 0).
   */
  inline void
  make_distorted_box(dealii::Triangulation<3>        &tria,
                     const std::vector<unsigned int> &subdivisions,
                     const dealii::Point<3>          &upper,
                     const unsigned int               refinements,
                     const double                     distortion,
                     const unsigned int               seed)
  {
    dealii::GridGenerator::subdivided_hyper_rectangle(tria, subdivisions, dealii::Point<3>(), upper, true);
    tria.refine_global(refinements);
    if (distortion > 0.)
      dealii::GridTools::distort_random(distortion, tria, true, seed);
  }
} // namespace plastix_test

#endif
