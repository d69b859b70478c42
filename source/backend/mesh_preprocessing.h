// Host-side preprocessing of the mesh for the operator's strategies and cell
// kernels (no Kokkos types; the results are uploaded by the operator).
#ifndef PLASTIX_SOURCE_BACKEND_MESH_PREPROCESSING_H
#define PLASTIX_SOURCE_BACKEND_MESH_PREPROCESSING_H

#include <plastix/backend/device_operator.h>
#include <plastix/backend/mesh_data.h>

#include <vector>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /**
       * Strategy::ebe_colored: a greedy colouring in which the cells of one
       * colour share no node; @p sorted_cells lists the cells colour by
       * colour, colour c in [offsets[c], offsets[c + 1]). Throws
       * std::runtime_error where more than 64 colours would be needed.
       */
      void
      color_cells(const MeshData &mesh, std::vector<LocalIndex> &sorted_cells, std::vector<LocalIndex> &offsets);

      /**
       * Strategy::ebe_tiled: the cells along a Morton curve of their centres,
       * cut into tiles of at most @p cells_per_tile cells, with each tile's
       * nodes, the position of every cell vertex in them and the node flags,
       * uploaded into the tile arrays of @p d.
       */
      void
      build_tiles(const MeshData &mesh, unsigned int cells_per_tile, DeviceOperator::Impl &d);

      /**
       * Strategy::dbd: for every node, the (cell << 3 | vertex) entries of
       * the cells around it, node n in [offsets[n], offsets[n + 1]).
       */
      void
      node_cell_lists(const MeshData &mesh, std::vector<LocalIndex> &offsets, std::vector<LocalIndex> &entries);

      /**
       * CellKernel::element_matrix: cells whose vertices are translates of
       * each other (same material) form a group that shares one element
       * matrix; the group of each cell and a representative cell per group.
       */
      void
      group_congruent_cells(const MeshData          &mesh,
                            std::vector<LocalIndex> &cell_group,
                            std::vector<LocalIndex> &representatives);
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
