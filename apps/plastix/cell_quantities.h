// Cell quantities derived from the cell-average stress and strain for the
// VTU output: strain tensor, principal stresses and directions, pressure.
#ifndef PLASTIX_APP_CELL_QUANTITIES_H
#define PLASTIX_APP_CELL_QUANTITIES_H

#include "parameters.h"
#include "vtu_writer.h"

#include <vector>

namespace plastix
{
  /**
   * Append to @p fields the quantities that @p output selects in
   * 'Output/Additional quantities', for the locally owned cells:
   * - strain: "strain_xx" ... "strain_xy" from @p strain (6 values per cell,
   *   xx, yy, zz, yz, xz, xy, tensor components);
   * - principal stresses: "principal_stress_1" >= "principal_stress_2" >=
   *   "principal_stress_3" and the unit eigenvectors
   *   "principal_direction_1..3" (3 components) of @p stress (6 values per
   *   cell, in the same order);
   * - pressure: "pressure" = -(sigma_xx + sigma_yy + sigma_zz) / 3.
   */
  void
  add_additional_quantities(const OutputParameters    &output,
                            const std::vector<double> &stress,
                            const std::vector<double> &strain,
                            CellFields                &fields);
} // namespace plastix

#endif
