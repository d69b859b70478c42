// Warnings about stretched cells, bending across one layer of cells and large
// displacements.
#include <deal.II/base/geometry_info.h>

#include "mesh_quality.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>

namespace plastix
{
  std::array<double, 3>
  body_extent(const dealii::Triangulation<3> &triangulation, MPI_Comm communicator)
  {
    double lower[3], upper[3];
    std::fill_n(lower, 3, std::numeric_limits<double>::max());
    std::fill_n(upper, 3, std::numeric_limits<double>::lowest());
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        for (const auto v : cell->vertex_indices())
          for (unsigned int d = 0; d < 3; ++d)
            {
              lower[d] = std::min(lower[d], cell->vertex(v)[d]);
              upper[d] = std::max(upper[d], cell->vertex(v)[d]);
            }
    std::array<double, 3> extent;
    for (unsigned int d = 0; d < 3; ++d)
      extent[d] =
        dealii::Utilities::MPI::max(upper[d], communicator) - dealii::Utilities::MPI::min(lower[d], communicator);
    return extent;
  }

  std::string
  aspect_ratio_warning(const dealii::Triangulation<3> &triangulation, const bool plane_strain, MPI_Comm communicator)
  {
    unsigned long long n_stretched = 0, n_cells = 0;
    double             largest     = 0;
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          double shortest = std::numeric_limits<double>::max(), longest = 0;
          for (unsigned int l = 0; l < dealii::GeometryInfo<3>::lines_per_cell; ++l)
            {
              const dealii::Tensor<1, 3> edge = cell->vertex(dealii::GeometryInfo<3>::line_to_cell_vertices(l, 1)) -
                                                cell->vertex(dealii::GeometryInfo<3>::line_to_cell_vertices(l, 0));
              const double length = edge.norm();
              if (plane_strain && std::abs(edge[2]) > 0.5 * length)
                continue;
              shortest = std::min(shortest, length);
              longest  = std::max(longest, length);
            }
          const double ratio = shortest > 0 ? longest / shortest : std::numeric_limits<double>::infinity();
          ++n_cells;
          if (ratio > aspect_ratio_limit)
            ++n_stretched;
          largest = std::max(largest, ratio);
        }
    n_stretched = dealii::Utilities::MPI::sum(n_stretched, communicator);
    n_cells     = dealii::Utilities::MPI::sum(n_cells, communicator);
    largest     = dealii::Utilities::MPI::max(largest, communicator);
    if (n_stretched == 0)
      return "";
    std::ostringstream message;
    message.precision(3);
    message << n_stretched << " of " << n_cells << " cells have an aspect ratio (longest over shortest edge) above "
            << aspect_ratio_limit << ", the largest " << largest
            << ": trilinear cells that stretched are much too stiff in bending; subdivide them in their long "
               "direction (Mesh/Subdivisions)";
    return message.str();
  }

  std::string
  deformation_warning(const double max_displacement, const dealii::Triangulation<3> &triangulation,
                      MPI_Comm communicator)
  {
    const auto   extent = body_extent(triangulation, communicator);
    const double size   = std::sqrt(extent[0] * extent[0] + extent[1] * extent[1] + extent[2] * extent[2]);
    if (!(max_displacement > 0.1 * size))
      return "";
    std::ostringstream message;
    message.precision(3);
    message << "the largest displacement, " << max_displacement << ", is " << 100 * max_displacement / size
            << " % of the body's size (the diagonal of its bounding box, " << size
            << "): a small-strain analysis does not hold there; check that the loads and Young's modulus are "
               "in one system of units (e.g. E = 200e9 Pa with lengths in m, or 200e3 MPa with mm)";
    return message.str();
  }

  std::string
  thin_direction_warning(const dealii::Triangulation<3> &triangulation,
                         const std::array<double, 3>    &max_displacement_components,
                         MPI_Comm                        communicator)
  {
    // The body's extent and the smallest extent of a cell along each axis.
    const auto   extent         = body_extent(triangulation, communicator);
    const double largest_extent = std::max({extent[0], extent[1], extent[2]});
    double       thinnest_cell[3];
    std::fill_n(thinnest_cell, 3, std::numeric_limits<double>::max());
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        for (unsigned int d = 0; d < 3; ++d)
          {
            double cell_lower = std::numeric_limits<double>::max(), cell_upper = std::numeric_limits<double>::lowest();
            for (const auto v : cell->vertex_indices())
              {
                cell_lower = std::min(cell_lower, cell->vertex(v)[d]);
                cell_upper = std::max(cell_upper, cell->vertex(v)[d]);
              }
            thinnest_cell[d] = std::min(thinnest_cell[d], cell_upper - cell_lower);
          }
    for (unsigned int d = 0; d < 3; ++d)
      thinnest_cell[d] = dealii::Utilities::MPI::min(thinnest_cell[d], communicator);
    for (unsigned int d = 0; d < 3; ++d)
      {
        const double other = std::max(max_displacement_components[(d + 1) % 3], max_displacement_components[(d + 2) % 3]);
        const bool thin      = extent[d] < 0.25 * largest_extent;
        const bool one_layer = thinnest_cell[d] > 0.5 * extent[d];
        const bool bends     = max_displacement_components[d] > 0 && max_displacement_components[d] >= 0.5 * other;
        if (thin && one_layer && bends)
          {
            const char         axis = "xyz"[d];
            std::ostringstream message;
            message.precision(3);
            message << "the body is " << extent[d] << " thick in " << axis << " (" << 100 * extent[d] / largest_extent
                    << " % of its largest extent) with one cell through it and bends across it (max |u_" << axis
                    << "| " << max_displacement_components[d] << "): trilinear cells one layer thick are much too "
                    << "stiff in bending; use at least 2, better 4, cells through the thickness (Mesh/Subdivisions)";
            return message.str();
          }
      }
    return "";
  }

  void
  print_warning(const std::string &message, MPI_Comm communicator)
  {
    if (!message.empty() && dealii::Utilities::MPI::this_mpi_process(communicator) == 0)
      std::cerr << "plastix: warning: " << message << std::endl;
  }
} // namespace plastix
