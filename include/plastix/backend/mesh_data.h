// Kokkos-free description of a process-local hexahedral mesh, as the deal.II
// adapter (or a stand-alone benchmark) hands it to the device backend.
#ifndef PLASTIX_BACKEND_MESH_DATA_H
#define PLASTIX_BACKEND_MESH_DATA_H

#include <plastix/backend/config.h>
#include <plastix/backend/material.h>

#include <cstdint>
#include <string>
#include <vector>

namespace plastix
{
  namespace backend
  {
    /**
     * A process-local mesh of trilinear hexahedra with three displacement
     * components per node. Local DoF d belongs to node d/3, component d%3.
     * Nodes [0, n_owned_nodes) are owned by this process, the rest are ghosts
     * whose values come from other processes.
     */
    struct MeshData
    {
      /** Number of local nodes (owned and ghost). */
      LocalIndex n_nodes = 0;

      /** Number of owned nodes; they come first. */
      LocalIndex n_owned_nodes = 0;

      /**
       * Eight nodes per cell in deal.II's lexicographic vertex order
       * (x fastest, then y, then z); cell c uses entries [8c, 8c+8).
       */
      std::vector<LocalIndex> cell_nodes;

      /** Coordinates x,y,z of each local node. */
      std::vector<double> node_coordinates;

      /** Index into materials for each cell. */
      std::vector<std::uint16_t> cell_material;

      /** The material table. */
      std::vector<Material> materials;

      /**
       * One flag per local DoF: 1 if the DoF is constrained to a prescribed
       * value (Dirichlet). The operator acts on the homogeneous problem: the
       * row and column of a constrained DoF are zero except a unit diagonal.
       */
      std::vector<std::uint8_t> constrained_dofs;

      /** Number of cells. */
      LocalIndex
      n_cells() const
      {
        return static_cast<LocalIndex>(cell_nodes.size() / 8);
      }

      /** Number of local DoFs. */
      LocalIndex
      n_dofs() const
      {
        return 3 * n_nodes;
      }

      /** Number of owned DoFs. */
      LocalIndex
      n_owned_dofs() const
      {
        return 3 * n_owned_nodes;
      }

      /** Throw std::invalid_argument naming the first inconsistency found. */
      void
      check_consistency() const;
    };
  } // namespace backend
} // namespace plastix

#endif
