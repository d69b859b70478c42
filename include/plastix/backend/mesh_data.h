// Kokkos-free description of a process-local hexahedral mesh, as the deal.II
// adapter (or a stand-alone benchmark) hands it to the device backend.
#ifndef PLASTIX_BACKEND_MESH_DATA_H
#define PLASTIX_BACKEND_MESH_DATA_H

#include <plastix/backend/config.h>
#include <plastix/backend/material_constants.h>

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
      std::vector<MaterialConstants> materials;

      /**
       * Stiffness factor of each cell, or empty (1 for every cell): the
       * cell's stiffness, tangent and internal force are multiplied by it
       * (the stresses at its Gauss points are not). The fixed-grid method
       * gives a cell cut by the body's boundary xi + Delta (1 - xi), xi its
       * material volume fraction; density-based topology optimisation gives
       * each cell its penalised density. Finite and positive.
       */
      std::vector<float> cell_factors;

      /**
       * One flag per local DoF: 1 if the DoF is constrained to a prescribed
       * value (Dirichlet). The operator acts on the homogeneous problem: the
       * row and column of a constrained DoF are zero except a unit diagonal.
       */
      std::vector<std::uint8_t> constrained_dofs;

      /**
       * @name Hanging-node constraints
       * Linear constraints u_h = sum_k w_k u_{j_k} (deal.II's hanging-node
       * constraints, homogeneous part) in CSR form: line r constrains the
       * local DoF constraint_rows[r] to the local DoFs constraint_columns[k]
       * with the weights constraint_weights[k], k in
       * [constraint_offsets[r], constraint_offsets[r + 1]). The operator then
       * acts as C^T A C: the cells see the interpolated value of a
       * constrained DoF, its row is added to the DoFs it depends on, and the
       * DoF itself gets a unit row. Rows are neither Dirichlet DoFs nor
       * columns of another line (a closed AffineConstraints); columns may be
       * DoFs of no local cell (ghosts that only the constraints need). Empty
       * for a conforming mesh. Inhomogeneities stay with the caller.
       */
      /** @{ */
      std::vector<LocalIndex> constraint_rows;
      std::vector<LocalIndex> constraint_offsets;
      std::vector<LocalIndex> constraint_columns;
      std::vector<double>     constraint_weights;
      /**
       * The weights of the lines on Dirichlet DoFs, which a closed
       * AffineConstraints folds into inhomogeneities: line r also depends on
       * the Dirichlet DoFs dirichlet_columns[k] with dirichlet_weights[k], k
       * in [dirichlet_offsets[r], dirichlet_offsets[r + 1]). Only condense()
       * uses them, so that the force of a hanging node next to a clamped
       * face reaches the clamped DoFs (reactions); the operator's unit rows
       * there ignore them. Empty: no such weights.
       */
      std::vector<LocalIndex> dirichlet_offsets;
      std::vector<LocalIndex> dirichlet_columns;
      std::vector<double>     dirichlet_weights;
      /** @} */

      /**
       * @name Boundary springs
       * A constant symmetric matrix S added to the cells' operator (elastic
       * supports on boundary faces, plastix::BoundarySpring): entry k couples
       * the local DoFs spring_rows[k] and spring_columns[k] with
       * spring_values[k], sorted by row, then column, without duplicates.
       * Rows and columns of constrained DoFs are included; the operator
       * leaves out what the constraints exclude, as for the cells. Ghost rows
       * hold this process's partial sums, as the cells' do. Empty: no springs.
       */
      /** @{ */
      std::vector<LocalIndex> spring_rows;
      std::vector<LocalIndex> spring_columns;
      std::vector<double>     spring_values;
      /** @} */

      /**
       * @name Mass matrix
       * The mass matrix M of the cells (consistent or lumped, with the
       * density), in the layout of the springs: entry k couples the local
       * DoFs mass_rows[k] and mass_columns[k] with mass_values[k], sorted by
       * row, then column, without duplicates; ghost rows hold partial sums.
       * The operator applies A + c M with the factor c of
       * DeviceOperator::set_mass_factor(), and M alone in
       * DeviceOperator::apply_mass(). Empty: no mass matrix.
       */
      /** @{ */
      std::vector<LocalIndex> mass_rows;
      std::vector<LocalIndex> mass_columns;
      std::vector<double>     mass_values;
      /** @} */

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

      /** Throw std::invalid_argument if the constraint lines are malformed (part of check_consistency()). */
      void
      check_constraint_lines() const;
    };
  } // namespace backend
} // namespace plastix

#endif
