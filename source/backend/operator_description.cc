// What the operator holds: device memory, bytes moved per application, and
// its one-line description.
#include <plastix/backend/device_operator.h>

#include "operator_impl.h"

#include <sstream>
#include <string>

namespace plastix
{
  namespace backend
  {
    namespace
    {
      /** Device memory of the tiles of Strategy::ebe_tiled. */
      std::size_t
      tile_memory(const DeviceOperator::Impl &d)
      {
        return d.tile_cells.memory_consumption() + d.tile_cell_offsets.memory_consumption() +
               d.tile_nodes.memory_consumption() + d.tile_node_offsets.memory_consumption() +
               d.tile_vertex.memory_consumption() + d.tile_node_flags.memory_consumption();
      }

      /** Device memory of the hanging-node lines. */
      std::size_t
      constraint_memory(const DeviceOperator::Impl &d)
      {
        return d.constraint_rows.memory_consumption() + d.constraint_offsets.memory_consumption() +
               d.constraint_columns.memory_consumption() + d.constraint_weights.memory_consumption() +
               d.column_dofs.memory_consumption() + d.column_offsets.memory_consumption() +
               d.column_lines.memory_consumption() + d.column_weights.memory_consumption() +
               d.dirichlet_offsets.memory_consumption() + d.dirichlet_columns.memory_consumption() +
               d.dirichlet_weights.memory_consumption() + d.line_of_dof.memory_consumption() +
               d.constrained_cells.memory_consumption() + d.saved_row_values.memory_consumption() +
               d.saved_row_values_float.memory_consumption();
      }
    } // namespace

    std::size_t
    DeviceOperator::memory_consumption() const
    {
      const Impl &d = *impl_;
      return d.cell_nodes.memory_consumption() + d.coordinates.memory_consumption() +
             d.materials.memory_consumption() + d.cell_material.memory_consumption() +
             d.cell_factor.memory_consumption() +
             d.cell_constraint_mask.memory_consumption() +
             d.constrained_owned_dofs.memory_consumption() +
             d.constrained_dofs.memory_consumption() + d.geometry.memory_consumption() +
             d.colored_cells.memory_consumption() + d.node_offsets.memory_consumption() +
             d.node_entries.memory_consumption() + d.matrices.memory_consumption() +
             d.cell_matrix.memory_consumption() + d.cell_group.memory_consumption() +
             d.plastic_matrices.memory_consumption() + d.plastic_cells.memory_consumption() +
             d.matrix_representative.memory_consumption() + tile_memory(d) + constraint_memory(d) +
             d.matrix.memory_consumption() + d.structured.memory_consumption();
    }

    std::size_t
    DeviceOperator::bytes_per_apply(const std::size_t bytes_per_value) const
    {
      const Impl       &d      = *impl_;
      const std::size_t n_dofs = 3 * static_cast<std::size_t>(d.n_nodes);
      if (d.settings.strategy == Strategy::assembled)
        // The matrix (values, one node index per 3x3 block, node offsets) once, src read, dst written.
        return d.matrix.memory_consumption() + 2 * bytes_per_value * n_dofs;
      if (d.settings.strategy == Strategy::dbd_structured)
        // src read once, dst written once, the lattice's node entries and
        // node classes once; cell data only for the nodes that are not
        // stencil nodes (not counted: a few per cent on a full box).
        return 2 * bytes_per_value * n_dofs + d.structured.node.memory_consumption() +
               d.structured.node_class.memory_consumption() + d.structured.node_point.memory_consumption();
      // src read once; dst written once (DbD) or zeroed, then read and
      // written by the accumulation (EbE).
      std::size_t bytes = bytes_per_value * n_dofs * (d.settings.strategy == Strategy::dbd ? 2 : 4);
      bytes += d.cell_nodes.memory_consumption() + d.cell_constraint_mask.memory_consumption() +
               d.cell_factor.memory_consumption();
      switch (d.settings.cell_kernel)
        {
          case CellKernel::stored_geometry:
            bytes += d.geometry.memory_consumption() + d.cell_material.memory_consumption();
            break;
          case CellKernel::geometry_on_the_fly:
            bytes += d.coordinates.memory_consumption() + d.cell_material.memory_consumption();
            break;
          case CellKernel::element_matrix:
            bytes += d.matrices.memory_consumption() + d.cell_matrix.memory_consumption() +
                     576 * sizeof(double) * d.n_plastic_matrices;
            break;
        }
      if (d.settings.strategy == Strategy::dbd)
        bytes += d.node_offsets.memory_consumption() + d.node_entries.memory_consumption();
      if (d.settings.strategy == Strategy::ebe_colored)
        bytes += d.colored_cells.memory_consumption();
      if (d.settings.strategy == Strategy::ebe_tiled)
        {
          // The tiles replace the constraint masks, and the cell -> node
          // table unless the cell kernel reads it for the vertex coordinates.
          bytes += tile_memory(d) - d.cell_constraint_mask.memory_consumption();
          if (d.settings.cell_kernel != CellKernel::geometry_on_the_fly)
            bytes -= d.cell_nodes.memory_consumption();
        }
      return bytes;
    }

    std::string
    DeviceOperator::description() const
    {
      const Impl        &d = *impl_;
      std::ostringstream s;
      s << to_string(d.settings.strategy) << ", " << to_string(d.settings.cell_kernel) << ", "
        << (d.settings.strategy == Strategy::dbd ? "thread per node" :
            d.settings.strategy == Strategy::dbd_structured ?
              (cells_on_shuffle_lanes(d.settings.thread_mapping, d.settings.cell_kernel) ?
                 "thread per node, 8 shuffle lanes per element-by-element cell" :
                 "thread per node") :
            d.settings.strategy == Strategy::assembled ? "rows of the CSR matrix" :
                                                   d.settings.thread_mapping == ThreadMapping::node ? "8 threads per cell" :
            cells_on_shuffle_lanes(d.settings.thread_mapping, d.settings.cell_kernel) &&
                !(d.settings.element_formulation == ElementFormulation::fbar && d.finite_strain != nullptr) ?
              "8 shuffle lanes per cell" :
              "thread per cell")
        << ", "
        << d.n_cells << " cells, " << 3 * d.n_nodes << " local DoFs";
      if (d.settings.element_formulation == ElementFormulation::bbar)
        s << ", B-bar";
      else if (d.settings.element_formulation == ElementFormulation::fbar)
        s << ", F-bar";
      if (d.settings.strategy == Strategy::ebe_colored)
        s << ", " << n_colors() << " colours";
      if (d.settings.strategy == Strategy::ebe_tiled)
        s << ", " << d.n_tiles << " tiles of " << d.settings.cells_per_tile << " cells (at most "
          << d.max_nodes_per_tile << " nodes)";
      if (d.settings.cell_kernel == CellKernel::element_matrix)
        s << ", " << d.n_matrices << " element matrices";
      if (d.settings.strategy == Strategy::assembled)
        s << ", " << d.matrix.values.size() << " matrix entries";
      if (d.settings.strategy == Strategy::dbd_structured)
        s << ", lattice of " << d.structured.points[0] << " x " << d.structured.points[1] << " x "
          << d.structured.points[2] << " points";
      if (d.cell_factor.size() > 0)
        s << ", stiffness factor per cell";
      s << ", " << memory_consumption() / 1048576.0 << " MiB";
      return s.str();
    }
  } // namespace backend
} // namespace plastix

#include "firewall_check.h"
