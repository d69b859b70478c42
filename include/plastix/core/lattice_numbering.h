// DoF numbering for meshes of equal boxes on one lattice: the order in which
// backend::Strategy::dbd_structured reads its neighbours.
#ifndef PLASTIX_CORE_LATTICE_NUMBERING_H
#define PLASTIX_CORE_LATTICE_NUMBERING_H

#include <deal.II/dofs/dof_handler.h>

namespace plastix
{
  /**
   * Renumber the DoFs of @p dof_handler (FESystem(FE_Q(1), 3)) by the
   * position of their vertices: lexicographically on the lattice of the
   * cells (x fastest, then y, then z), the three components of a vertex
   * consecutive. Each process permutes its locally owned DoFs among
   * themselves (the owned index sets stay as they are); the level DoFs of
   * every level too if the DoFHandler has them (distribute_mg_dofs()). Call
   * after distribute_dofs() (and distribute_mg_dofs()) and before building
   * constraints, vectors and operators.
   *
   * Strategy::dbd_structured runs one thread per lattice point in this
   * order; with deal.II's cell-wise numbering its neighbours' values are
   * scattered through memory, and it runs at half the speed (H100, 192^3
   * cells: 40 against 21 GDoF/s, doc/benchmarks.md). The element-by-element
   * strategies do not depend on the numbering. On a mesh that is not a
   * lattice the order is still a valid permutation (sorted by rounded
   * positions), only without the benefit.
   */
  void
  renumber_dofs_on_lattice(dealii::DoFHandler<3> &dof_handler);
} // namespace plastix

#endif
