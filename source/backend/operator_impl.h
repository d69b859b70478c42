// Internal data of DeviceOperator and the strategy launchers, shared by
// the backend translation units (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_OPERATOR_IMPL_H
#define PLASTIX_SOURCE_BACKEND_OPERATOR_IMPL_H

#include <plastix/backend/device_array.h>
#include <plastix/backend/device_operator.h>
#include <plastix/backend/finite_strain_state.h>
#include <plastix/backend/gauss_point_state.h>
#include <plastix/backend/vector_operations.h>

#include "strategies/assembled_matrix.h"
#include "sparse_terms.h"
#include "material/elastic_law.h"
#include "kernels/q1_kernels.h"
#include "kernels/lane_kernels.h"
#include "strategies/structured_grid.h"

#include <type_traits>
#include <vector>

namespace plastix
{
  namespace backend
  {
    struct DeviceOperator::Impl
    {
      OperatorSettings settings;
      LocalIndex       n_cells       = 0;
      LocalIndex       n_nodes       = 0;
      LocalIndex       n_owned_nodes = 0;

      /** Cell -> node table (8 per cell) in the layout of the execution space. */
      DeviceArray<LocalIndex> cell_nodes;
      internal::Index64                 cell_nodes_stride_cell = 0;
      internal::Index64                 cell_nodes_stride_node = 0;

      /** 3 coordinates per local node. */
      DeviceArray<double> coordinates;

      DeviceArray<MaterialConstants> materials;
      DeviceArray<std::uint16_t>     cell_material;
      /** Stiffness factor per cell (MeshData::cell_factors); empty: none. */
      DeviceArray<float> cell_factor;
      /** Whether a material has a pressure-dependent yield criterion (general 6x6 tangent per point). */
      bool pressure_dependent = false;
      /** Whether every pressure-dependent material has an associative flow (symmetric tangent). */
      bool symmetric_tangent = true;

      /** Bit 3a+c set if DoF c of vertex a of the cell is constrained. */
      DeviceArray<std::uint32_t> cell_constraint_mask;
      /** Owned constrained DoFs (unit rows). */
      DeviceArray<LocalIndex> constrained_owned_dofs;
      /** All constrained local DoFs. */
      DeviceArray<LocalIndex> constrained_dofs;

      /**
       * Hanging-node constraint lines (MeshData::constraint_*) and their
       * transpose: column_dofs[i] is a DoF that lines depend on, the lines
       * column_lines[k] with weights column_weights[k] for k in
       * [column_offsets[i], column_offsets[i + 1]).
       */
      DeviceArray<LocalIndex> constraint_rows;
      DeviceArray<LocalIndex> constraint_offsets;
      DeviceArray<LocalIndex> constraint_columns;
      DeviceArray<double>     constraint_weights;
      DeviceArray<LocalIndex> column_dofs;
      DeviceArray<LocalIndex> column_offsets;
      DeviceArray<LocalIndex> column_lines;
      DeviceArray<double>     column_weights;
      /** The lines' weights on Dirichlet DoFs (MeshData::dirichlet_*), for condense() only. */
      DeviceArray<LocalIndex> dirichlet_offsets;
      DeviceArray<LocalIndex> dirichlet_columns;
      DeviceArray<double>     dirichlet_weights;
      /** Line of each local DoF, -1 where none (allocated only with lines). */
      DeviceArray<LocalIndex> line_of_dof;
      /** Cells with a vertex DoF that has a line (their diagonal gets the coupling terms). */
      DeviceArray<LocalIndex> constrained_cells;
      std::size_t             n_constraint_lines = 0;
      /** The source values of the constrained rows, kept while the cells see interpolated ones. */
      mutable DeviceArray<double> saved_row_values;
      mutable DeviceArray<float>  saved_row_values_float;

      /** Stored geometry: 80 doubles per cell (stored_geometry kernel). */
      DeviceArray<double> geometry;
      internal::Index64             geometry_stride_cell  = 0;
      internal::Index64             geometry_stride_entry = 0;

      /** Cells sorted by colour and the colour offsets (ebe_colored). */
      DeviceArray<LocalIndex>  colored_cells;
      std::vector<LocalIndex>  color_offsets;

      /**
       * Tiles (ebe tiled): the cells of tile t are tile_cells[k] for k in
       * [tile_cell_offsets[t], tile_cell_offsets[t + 1]), its nodes
       * tile_nodes[i] for i in [tile_node_offsets[t], tile_node_offsets[t + 1]).
       * tile_vertex[8 k + a] is the index within the tile's node list of
       * vertex a of the cell at position k; tile_node_flags[i] has bit c set
       * if DoF c of the node is constrained and bit 3 set if all cells of the
       * node lie in the tile (its sum is stored without atomics).
       */
      DeviceArray<LocalIndex>    tile_cells;
      DeviceArray<LocalIndex>    tile_cell_offsets;
      DeviceArray<LocalIndex>    tile_nodes;
      DeviceArray<LocalIndex>    tile_node_offsets;
      DeviceArray<std::uint16_t> tile_vertex;
      DeviceArray<std::uint8_t>  tile_node_flags;
      std::size_t                n_tiles            = 0;
      int                        max_nodes_per_tile = 0;
      /** The most cells of one tile that share a node. */
      int                        max_cells_per_tile_node = 0;

      /** Node -> (cell << 3 | vertex) lists in CSR form (dbd). */
      DeviceArray<LocalIndex> node_offsets;
      DeviceArray<LocalIndex> node_entries;

      /** Element matrices of the congruent-cell groups (element_matrix kernel): 576 doubles each. */
      DeviceArray<double>     matrices;
      /** Group of each cell. */
      DeviceArray<LocalIndex> cell_group;
      /** A cell of each matrix group, used to compute the matrix. */
      DeviceArray<LocalIndex> matrix_representative;
      std::size_t             n_matrices = 0;
      /**
       * Matrix of each cell in use: its group's (< n_matrices) or, for cells
       * with plastic points under a plasticity state, n_matrices + slot in
       * plastic_matrices.
       */
      DeviceArray<LocalIndex> cell_matrix;
      DeviceArray<double>     plastic_matrices;
      DeviceArray<LocalIndex> plastic_cells;
      std::size_t             n_plastic_matrices = 0;

      /** The assembled local matrix (Strategy::assembled). */
      internal::CsrMatrixData matrix;

      /** The lattice of Strategy::dbd_structured. */
      internal::StructuredGrid structured;

      /** The boundary springs (MeshData::spring_rows), applied after the cells. */
      internal::SparseTerm springs;
      /** The mass matrix (MeshData::mass_rows), applied after the cells times mass_factor. */
      internal::SparseTerm mass;
      /** The factor c of the mass matrix in the operator A + c M (DeviceOperator::set_mass_factor()). */
      double mass_factor = 0.;
      /** The load stiffness L of the operator A + L (DeviceOperator::set_load_stiffness()); empty: none. */
      internal::SparseTerm load_stiffness;
      /**
       * What build_sparse_term() reads of the mesh data (the Dirichlet flags
       * and the hanging-node lines; no cells), kept for the load stiffness,
       * which is set after the set-up.
       */
      MeshData sparse_term_layout;

      /** The plasticity state the operator owns, if any. */
      std::unique_ptr<GaussPointState> plasticity_state;
      /** Its data while the operator is its tangent, else null (elasticity). */
      const GaussPointState::Impl *plasticity = nullptr;

      /** The finite-strain state the operator owns, if any (the operator is then its tangent). */
      std::unique_ptr<FiniteStrainState> finite_strain_state;
      /** Its data, or null (small strain). */
      const FiniteStrainState::Impl *finite_strain = nullptr;

      internal::Strided<const LocalIndex>
      cell_node_table() const
      {
        return {cell_nodes.data(), cell_nodes_stride_cell, cell_nodes_stride_node};
      }

      template <typename Number = double>
      internal::OnTheFlyGeometry<Number>
      on_the_fly_geometry() const
      {
        internal::OnTheFlyGeometry<Number> g;
        g.cell_nodes  = cell_node_table();
        g.coordinates = coordinates.data();
        return g;
      }

      template <typename Number = double>
      internal::StoredGeometry<Number>
      stored_geometry() const
      {
        internal::StoredGeometry<Number> g;
        g.data = {geometry.data(), geometry_stride_cell, geometry_stride_entry};
        return g;
      }

      /** The stiffness factors on the device, or null without factors. */
      const float *
      cell_factor_data() const
      {
        return cell_factor.size() > 0 ? cell_factor.data() : nullptr;
      }

      /**
       * Linear elasticity times the cells' stiffness factors, or without them
       * (@p with_cell_factors false: the element matrices, which the matrix
       * kernels scale per cell).
       */
      template <typename Number = double>
      internal::ElasticLaw<Number>
      elastic_law(const bool with_cell_factors = true) const
      {
        return {materials.data(), cell_material.data(), with_cell_factors ? cell_factor_data() : nullptr};
      }
    };

    namespace internal
    {
      /**
       * The settings the operator runs with: @p requested checked against
       * the rules of its strategy (std::invalid_argument naming the rule)
       * and ThreadMapping::automatic resolved.
       */
      OperatorSettings
      resolve_settings(const OperatorSettings &requested);

      /**
       * The thread mapping that ThreadMapping::automatic stands for with
       * @p strategy and @p kernel on this execution space (the fastest
       * measured, doc/benchmarks.md).
       */
      ThreadMapping
      automatic_thread_mapping(Strategy strategy, CellKernel kernel);

      /**
       * Copy the per-cell array @p a (strides @p stride_cell, @p stride_entry
       * between cells and entries, default_strides()) to @p host_out, packed:
       * entry e of cell c at c * @p values_per_cell + e (the layout of the
       * states' get_committed_history()).
       */
      inline void
      strided_to_host(const DeviceArray<double> &a,
                      const Index64              n_cells,
                      const Index64              values_per_cell,
                      const Index64              stride_cell,
                      const Index64              stride_entry,
                      double                    *host_out)
      {
        std::vector<double> raw(a.size());
        copy_to_host(raw.data(), a.data(), a.memory_consumption());
        for (Index64 c = 0; c < n_cells; ++c)
          for (Index64 e = 0; e < values_per_cell; ++e)
            host_out[c * values_per_cell + e] = raw[c * stride_cell + e * stride_entry];
      }

      /** The inverse of strided_to_host(): the packed @p host_in into the strided @p a. */
      inline void
      strided_from_host(const double        *host_in,
                        const Index64        n_cells,
                        const Index64        values_per_cell,
                        const Index64        stride_cell,
                        const Index64        stride_entry,
                        DeviceArray<double> &a)
      {
        std::vector<double> raw(a.size());
        for (Index64 c = 0; c < n_cells; ++c)
          for (Index64 e = 0; e < values_per_cell; ++e)
            raw[c * stride_cell + e * stride_entry] = host_in[c * values_per_cell + e];
        copy_to_device(a.data(), raw.data(), a.memory_consumption());
      }

      /**
       * Call @p action with std::true_type for B-bar and F-bar (mean
       * dilatation: B-bar under a small-strain law, F-bar under a
       * finite-strain one) and std::false_type for full integration: the
       * compile-time flag of QuadratureCellOperator.
       */
      template <typename Action>
      void
      with_element_formulation(const ElementFormulation formulation, const Action &action)
      {
        if (formulation == ElementFormulation::bbar || formulation == ElementFormulation::fbar)
          action(std::true_type{});
        else
          action(std::false_type{});
      }

      /** The 24 nodal values of a cell, zero where the cell's mask has a bit. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      gather_cell_values(const Strided<const LocalIndex> &cell_nodes,
                         const Index64                    cell,
                         const std::uint32_t              mask,
                         const Number                    *src,
                         LocalIndex                       nodes[8],
                         Number                           u[24])
      {
        PLASTIX_UNROLL
        for (int a = 0; a < 8; ++a)
          {
            nodes[a] = cell_nodes(cell, a);
            PLASTIX_UNROLL
            for (int c = 0; c < 3; ++c)
              u[3 * a + c] = src[3 * static_cast<Index64>(nodes[a]) + c];
          }
        if (mask != 0)
          PLASTIX_UNROLL
          for (int k = 0; k < 24; ++k)
            if ((mask >> k) & 1u)
              u[k] = 0;
      }

      /**
       * The edge differences @p e of the displacement @p u on @p cell and the
       * cell's geometry @p g: what a pass over the Gauss points of one cell
       * (stress update, deformation gradients) starts from.
       */
      template <typename Geometry>
      KOKKOS_INLINE_FUNCTION void
      load_cell_displacement(const Geometry                  &geometry,
                             const Strided<const LocalIndex> &cell_nodes,
                             const Index64                    cell,
                             const double                    *u,
                             double                           e[3][3][4],
                             typename Geometry::CellData     &g)
      {
        LocalIndex nodes[8];
        double     values[24];
        gather_cell_values(cell_nodes, cell, 0u, u, nodes, values);
        vector_edge_differences(values, e);
        geometry.load(cell, g);
      }

      /** The unit rows of a masked product: dst = src at the owned constrained DoFs. */
      template <typename Number>
      void
      copy_unit_rows(const DeviceOperator::Impl &d, const Number *src, Number *dst)
      {
        vector_operations::copy_entries(d.constrained_owned_dofs.size(), d.constrained_owned_dofs.data(), src, dst);
      }

      /** Cells per team of the node-mapped team kernels (8 threads each). */
      constexpr int cells_per_team = 16;

      using TeamMember = TeamPolicy::member_type;

      /** Bit of DeviceOperator::Impl::tile_node_flags: all cells of the node lie in the tile. */
      constexpr std::uint8_t tile_interior_node = 8;

      /** Cell-wise diagonal accumulated with atomics; unit entries at owned constrained DoFs. */
      template <typename QuadratureOperator>
      void
      launch_diagonal(const DeviceOperator::Impl &data,
                      const QuadratureOperator   &cell_operator,
                      double                     *diagonal)
      {
        vector_operations::set(3 * static_cast<Index64>(data.n_nodes), 0., diagonal);
        const Strided<const LocalIndex> cell_nodes = data.cell_node_table();
        const std::uint32_t            *masks      = data.cell_constraint_mask.data();
        for_range("plastix::diagonal", data.n_cells, KOKKOS_LAMBDA(const Index64 cell) {
          double d[24];
          cell_operator.diagonal(cell, d);
          const std::uint32_t mask = masks[cell];
          for (int a = 0; a < 8; ++a)
            for (int c = 0; c < 3; ++c)
              if (!((mask >> (3 * a + c)) & 1u))
                Kokkos::atomic_add(&diagonal[3 * static_cast<Index64>(cell_nodes(cell, a)) + c],
                                   d[3 * a + c]);
        });
        vector_operations::set_entries(data.constrained_owned_dofs.size(),
                                       data.constrained_owned_dofs.data(),
                                       1.,
                                       diagonal);
      }

      /**
       * u_h = sum_k w_k u_{j_k} (+ scale * inhomogeneities[r] if given) for
       * every constraint line r; with @p saved, the previous u_h is kept
       * there first. Columns are never rows: no kernel-internal race.
       */
      template <typename Number>
      void
      interpolate_constrained_rows(const DeviceOperator::Impl &data,
                                   Number                        *u,
                                   Number                        *saved,
                                   const double                  *inhomogeneities = nullptr,
                                   const double                   scale           = 0.)
      {
        const LocalIndex *rows    = data.constraint_rows.data();
        const LocalIndex *offsets = data.constraint_offsets.data();
        const LocalIndex *columns = data.constraint_columns.data();
        const double     *weights = data.constraint_weights.data();
        for_range("plastix::interpolate_constrained_rows", data.n_constraint_lines, KOKKOS_LAMBDA(const Index64 r) {
          const LocalIndex row = rows[r];
          if (saved != nullptr)
            saved[r] = u[row];
          double value = inhomogeneities != nullptr ? scale * inhomogeneities[r] : 0.;
          for (LocalIndex k = offsets[r]; k < offsets[r + 1]; ++k)
            value += weights[k] * static_cast<double>(u[columns[k]]);
          u[row] = static_cast<Number>(value);
        });
      }

      /** Put the values that interpolate_constrained_rows() saved back. */
      template <typename Number>
      void
      restore_constrained_rows(const DeviceOperator::Impl &data, Number *u, const Number *saved)
      {
        const LocalIndex *rows = data.constraint_rows.data();
        for_range("plastix::restore_constrained_rows", data.n_constraint_lines, KOKKOS_LAMBDA(const Index64 r) {
          u[rows[r]] = saved[r];
        });
      }

      /**
       * The constrained rows of @p dst: src (or @p owned_value where src is
       * null) where owned, 0 at ghosts (their owner has the unit row).
       */
      template <typename Number>
      void
      set_constrained_rows(const DeviceOperator::Impl &data, Number *dst, const Number *src, const Number owned_value)
      {
        const LocalIndex *rows         = data.constraint_rows.data();
        const Index64     n_owned_dofs = 3 * static_cast<Index64>(data.n_owned_nodes);
        for_range("plastix::set_constrained_rows", data.n_constraint_lines, KOKKOS_LAMBDA(const Index64 r) {
          const LocalIndex row = rows[r];
          dst[row]             = row < n_owned_dofs ? (src != nullptr ? src[row] : owned_value) : Number(0);
        });
      }

      /**
       * dst <- C^T dst: each constrained row's (partial) sum is added,
       * weighted, to the DoFs its line depends on (gathered per column: no
       * atomics, reproducible); then the constrained rows get src (owned,
       * unit diagonal) or zero (ghosts, or src null).
       */
      template <typename Number>
      void
      condense_constrained_rows(const DeviceOperator::Impl &data, Number *dst, const Number *src)
      {
        const LocalIndex *rows           = data.constraint_rows.data();
        const LocalIndex *column_dofs    = data.column_dofs.data();
        const LocalIndex *column_offsets = data.column_offsets.data();
        const LocalIndex *column_lines   = data.column_lines.data();
        const double     *column_weights = data.column_weights.data();
        for_range("plastix::condense_constrained_rows", data.column_dofs.size(), KOKKOS_LAMBDA(const Index64 i) {
          double sum = 0;
          for (LocalIndex k = column_offsets[i]; k < column_offsets[i + 1]; ++k)
            sum += column_weights[k] * static_cast<double>(dst[rows[column_lines[k]]]);
          dst[column_dofs[i]] += static_cast<Number>(sum);
        });
        set_constrained_rows(data, dst, src, Number(0));
      }

      /**
       * dst_d += w dst_h for the Dirichlet weights of the lines (reactions
       * of the forces on hanging nodes next to prescribed DoFs); atomics,
       * as several lines may share a Dirichlet DoF.
       */
      inline void
      add_rows_to_dirichlet_columns(const DeviceOperator::Impl &data, double *dst)
      {
        if (data.dirichlet_offsets.size() == 0)
          return;
        const LocalIndex *rows    = data.constraint_rows.data();
        const LocalIndex *offsets = data.dirichlet_offsets.data();
        const LocalIndex *columns = data.dirichlet_columns.data();
        const double     *weights = data.dirichlet_weights.data();
        for_range("plastix::dirichlet_reactions", data.n_constraint_lines, KOKKOS_LAMBDA(const Index64 r) {
          const double value = dst[rows[r]];
          for (LocalIndex k = offsets[r]; k < offsets[r + 1]; ++k)
            accumulate(dst[columns[k]], weights[k] * value);
        });
      }

      /**
       * The terms of diag(C^T A C) that the cell-wise diagonal misses: in a
       * cell with constrained vertex DoFs, the couplings K_ik between a
       * constrained DoF i and the DoFs of its line (2 w K_ik) and between
       * two constrained DoFs that depend on the same DoF (w w' K_ik), added
       * to the DoFs the lines depend on. The column K e_i comes from the
       * cell operator (the current tangent).
       */
      template <typename QuadratureOperator>
      void
      add_constrained_diagonal(const DeviceOperator::Impl &data,
                               const QuadratureOperator   &cell_operator,
                               double                     *diagonal)
      {
        const Strided<const LocalIndex> cell_nodes = data.cell_node_table();
        const LocalIndex               *cells      = data.constrained_cells.data();
        const LocalIndex               *line_of    = data.line_of_dof.data();
        const LocalIndex               *offsets    = data.constraint_offsets.data();
        const LocalIndex               *columns    = data.constraint_columns.data();
        const double                   *weights    = data.constraint_weights.data();
        for_range("plastix::constrained_diagonal", data.constrained_cells.size(), KOKKOS_LAMBDA(const Index64 i) {
          const Index64 cell = cells[i];
          LocalIndex    nodes[8];
          for (int a = 0; a < 8; ++a)
            nodes[a] = cell_nodes(cell, a);
          for (int a = 0; a < 8; ++a)
            for (int c = 0; c < 3; ++c)
              {
                const LocalIndex line = line_of[3 * nodes[a] + c];
                if (line < 0)
                  continue;
                double u[24], f[24];
                for (int k = 0; k < 24; ++k)
                  u[k] = (k == 3 * a + c) ? 1. : 0.;
                cell_operator.apply(cell, u, f);
                // Constraints couple equal components only.
                for (int b = 0; b < 8; ++b)
                  {
                    const LocalIndex dof_b  = 3 * nodes[b] + c;
                    const LocalIndex line_b = line_of[dof_b];
                    for (LocalIndex k = offsets[line]; k < offsets[line + 1]; ++k)
                      {
                        if (line_b < 0)
                          {
                            if (columns[k] == dof_b)
                              accumulate(diagonal[dof_b], 2. * weights[k] * f[3 * b + c]);
                          }
                        else
                          for (LocalIndex m = offsets[line_b]; m < offsets[line_b + 1]; ++m)
                            if (columns[m] == columns[k])
                              accumulate(diagonal[columns[k]], weights[k] * weights[m] * f[3 * b + c]);
                      }
                  }
              }
        });
      }

      /** Call @p action with the geometry the operator keeps (stored if available). */
      template <typename Action>
      void
      with_geometry(const DeviceOperator::Impl &d, const Action &action)
      {
        if (d.settings.cell_kernel == CellKernel::stored_geometry)
          action(d.stored_geometry());
        else
          action(d.on_the_fly_geometry());
      }

      /**
       * Compute the element matrix of every group (cells [first, last) of
       * matrix_representative) with the quadrature cell operator @p op: column
       * j is the operator applied to the unit vector e_j, stored contiguously
       * (column-major, K[24 j + i] = K_ij), as element_matrix_times()
       * and MatrixCellOperator::apply_node_rows() read it; for the symmetric
       * elastic and J2 matrices this is the row-major matrix too, and a
       * non-symmetric tangent (non-associative Mohr-Coulomb, Drucker-Prager)
       * is applied correctly.
       */
      template <typename QuadratureOperator>
      void
      compute_element_matrices(const QuadratureOperator &op,
                               const LocalIndex         *representatives,
                               const Index64             first,
                               const Index64             last,
                               double                   *matrices)
      {
        for_range("plastix::element_matrices", first, last, KOKKOS_LAMBDA(const Index64 m) {
          const Index64 cell = representatives[m];
          double       *K    = matrices + 576 * m;
          for (int j = 0; j < 24; ++j)
            {
              double u[24], f[24];
              for (int k = 0; k < 24; ++k)
                u[k] = (k == j) ? 1. : 0.;
              op.apply(cell, u, f);
              for (int i = 0; i < 24; ++i)
                K[24 * j + i] = f[i];
            }
        });
      }
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
