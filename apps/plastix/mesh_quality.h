// Warnings about a mesh and a result that a small-strain Q1 analysis cannot
// be trusted with: stretched cells, bending across one layer of cells and
// displacements of the body's size.
#ifndef PLASTIX_APP_MESH_QUALITY_H
#define PLASTIX_APP_MESH_QUALITY_H

#include <deal.II/base/mpi.h>
#include <deal.II/grid/tria.h>

#include <array>
#include <string>

namespace plastix
{
  /**
   * The extent of the body along x, y and z: the edges of the bounding box of
   * the vertices of all ranks' locally owned cells. Collective over
   * @p communicator.
   */
  std::array<double, 3>
  body_extent(const dealii::Triangulation<3> &triangulation, MPI_Comm communicator);

  /**
   * Cells whose longest edge is more than this many times their shortest are
   * counted by aspect_ratio_warning(): trilinear cells that long in one
   * direction are far too stiff in bending (shear locking).
   */
  constexpr double aspect_ratio_limit = 20;

  /**
   * A warning (without the "plastix: warning: " prefix) if cells of
   * @p triangulation have an aspect ratio (longest over shortest edge) above
   * aspect_ratio_limit: how many and the largest ratio; empty otherwise.
   * With @p plane_strain (u_z = 0 on both faces of a slab, so that the cells
   * cannot bend out of plane), edges along z do not count. Collective over
   * @p communicator.
   */
  std::string
  aspect_ratio_warning(const dealii::Triangulation<3> &triangulation, bool plane_strain, MPI_Comm communicator);

  /**
   * A warning if @p max_displacement (the largest nodal displacement of all
   * ranks) exceeds a tenth of the diagonal of the bounding box of
   * @p triangulation: a small-strain analysis is meaningless there, and most
   * often the units of the loads and of Young's modulus do not match (E = 200
   * where 200e9 Pa was meant). Empty otherwise. Collective.
   */
  std::string
  deformation_warning(double max_displacement, const dealii::Triangulation<3> &triangulation, MPI_Comm communicator);

  /**
   * A warning if the body bends across a thin direction with fewer than two
   * cells through it: for each axis d, the body (its bounding box) is thin
   * in d if its extent there is below a quarter of its largest extent; it
   * has fewer than two cells through d if every cell spans more than half of
   * that extent; it bends across d if the largest |u_d| of
   * @p max_displacement_components is at least half the largest of the other
   * two components. Trilinear cells one layer thick lock in bending (a
   * cantilever one cell thick is about a third too stiff). Axis-aligned
   * thin parts only: a thin part along another direction is not detected.
   * Empty otherwise. Collective over @p communicator.
   */
  std::string
  thin_direction_warning(const dealii::Triangulation<3> &triangulation,
                         const std::array<double, 3>    &max_displacement_components,
                         MPI_Comm                        communicator);

  /** Print "plastix: warning: <message>" on standard error of rank 0 unless @p message is empty. */
  void
  print_warning(const std::string &message, MPI_Comm communicator);
} // namespace plastix

#endif
