// Structured hexahedral box meshes for backend-only tests and benchmarks
// (no deal.II needed, so they run on a device machine without deal.II).
#ifndef PLASTIX_BENCHMARKS_BOX_MESH_H
#define PLASTIX_BENCHMARKS_BOX_MESH_H

#include <plastix/backend/mesh_data.h>

namespace plastix
{
  namespace backend
  {
    /** Description of a box mesh. */
    struct BoxMeshDescription
    {
      /** Cells per direction. */
      int n_cells[3] = {4, 4, 4};
      /** Box edge lengths (the box starts at the origin). */
      double extent[3] = {1., 1., 1.};
      /**
       * Interior vertices are moved by up to this fraction of the cell size
       * in each direction (deterministic pseudo-random); 0 keeps the mesh
       * uniform.
       */
      double distortion = 0;
      /** Seed of the distortion. */
      unsigned int seed = 42;
      /** Clamp all DoFs on the face x = 0. */
      bool clamp_x0 = true;
      /** The material of all cells. */
      MaterialConstants material{1.1538461538461537e11, 7.6923076923076923e10, 0, 0, 0};
    };

    /**
     * A single-process box mesh: nodes numbered lexicographically, cells in
     * lexicographic order (or, with @p morton_order, along a Morton curve for
     * cache locality).
     */
    PLASTIX_BACKEND_EXPORT MeshData
    make_box_mesh(const BoxMeshDescription &description, bool morton_order = true);

    /**
     * Renumber the nodes of @p mesh in the order in which its cells first
     * touch them, as deal.II's DoFHandler numbers the DoFs of a mesh (cell
     * by cell); owned nodes only (a single-process mesh).
     */
    PLASTIX_BACKEND_EXPORT void
    number_nodes_by_cells(MeshData &mesh);
  } // namespace backend
} // namespace plastix

#endif
