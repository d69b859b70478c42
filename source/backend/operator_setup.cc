// Construction of the matrix-free Q1 mechanics operator: the upload of the
// mesh and the data that the chosen strategy and cell kernel need.
#include <plastix/backend/device_operator.h>

#include "strategies/strategy_dispatch.h"
#include "mesh_preprocessing.h"

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace plastix
{
  namespace backend
  {
    using internal::Index64;

    namespace internal
    {
      /** Inverse Jacobians and JxW of every cell and Gauss point, computed on the device. */
      void
      store_geometry(const OnTheFlyGeometry<> &source, const Strided<double> &target, const Index64 n_cells)
      {
        for_range("plastix::store_geometry", n_cells, KOKKOS_LAMBDA(const Index64 cell) {
          OnTheFlyGeometry<>::CellData c;
          source.load(cell, c);
          for (int q = 0; q < 8; ++q)
            {
              double       inv[3][3];
              const double JxW = source.at(c, q, inv);
              for (int k = 0; k < 9; ++k)
                target(cell, 10 * q + k) = inv[k / 3][k % 3];
              target(cell, 10 * q + 9) = JxW;
            }
        });
      }

      /** Number of cells with a non-positive Jacobian determinant at a Gauss point. */
      Index64
      count_inverted_cells(const OnTheFlyGeometry<> &geometry, const Index64 n_cells)
      {
        Index64 n_bad = 0;
        reduce_range(
          "plastix::check_jacobians",
          n_cells,
          KOKKOS_LAMBDA(const Index64 cell, Index64 &bad) {
            OnTheFlyGeometry<>::CellData c;
            geometry.load(cell, c);
            for (int q = 0; q < 8; ++q)
              {
                double inv[3][3];
                if (!(geometry.at(c, q, inv) > 0))
                  {
                    ++bad;
                    break;
                  }
              }
          },
          n_bad);
        return n_bad;
      }
    } // namespace internal

    namespace
    {
      template <typename T>
      std::vector<T>
      to_device_layout(const std::vector<T> &row_major,
                       const Index64         n_items,
                       const Index64         n_entries,
                       Index64              &stride_item,
                       Index64              &stride_entry,
                       const bool            thread_per_item)
      {
        internal::default_strides(n_items, n_entries, stride_item, stride_entry, thread_per_item);
        std::vector<T> result(row_major.size());
        for (Index64 i = 0; i < n_items; ++i)
          for (Index64 e = 0; e < n_entries; ++e)
            result[i * stride_item + e * stride_entry] = row_major[i * n_entries + e];
        return result;
      }

      /**
       * The hanging-node lines of @p mesh on the device, their transpose
       * (per column DoF) for the condensation, the line of each DoF and the
       * cells with constrained vertex DoFs for the diagonal.
       */
      void
      upload_constraint_lines(const MeshData &mesh, DeviceOperator::Impl &d)
      {
        d.n_constraint_lines = mesh.constraint_rows.size();
        if (d.n_constraint_lines == 0)
          return;
        d.constraint_rows    = DeviceArray<LocalIndex>(mesh.constraint_rows, "constraint rows");
        d.constraint_offsets = DeviceArray<LocalIndex>(mesh.constraint_offsets, "constraint offsets");
        d.constraint_columns = DeviceArray<LocalIndex>(mesh.constraint_columns, "constraint columns");
        d.constraint_weights = DeviceArray<double>(mesh.constraint_weights, "constraint weights");

        // Transpose: column DoF -> (line, weight), columns in increasing order.
        std::map<LocalIndex, std::vector<std::pair<LocalIndex, double>>> by_column;
        for (std::size_t r = 0; r < d.n_constraint_lines; ++r)
          for (LocalIndex k = mesh.constraint_offsets[r]; k < mesh.constraint_offsets[r + 1]; ++k)
            by_column[mesh.constraint_columns[k]].emplace_back(static_cast<LocalIndex>(r),
                                                               mesh.constraint_weights[k]);
        std::vector<LocalIndex> column_dofs, column_offsets{0}, column_lines;
        std::vector<double>     column_weights;
        for (const auto &[column, entries] : by_column)
          {
            column_dofs.push_back(column);
            for (const auto &[line, weight] : entries)
              {
                column_lines.push_back(line);
                column_weights.push_back(weight);
              }
            column_offsets.push_back(static_cast<LocalIndex>(column_lines.size()));
          }
        d.column_dofs    = DeviceArray<LocalIndex>(column_dofs, "constraint column dofs");
        d.column_offsets = DeviceArray<LocalIndex>(column_offsets, "constraint column offsets");
        d.column_lines   = DeviceArray<LocalIndex>(column_lines, "constraint column lines");
        d.column_weights = DeviceArray<double>(column_weights, "constraint column weights");

        std::vector<LocalIndex> line_of_dof(mesh.n_dofs(), -1);
        for (std::size_t r = 0; r < d.n_constraint_lines; ++r)
          line_of_dof[mesh.constraint_rows[r]] = static_cast<LocalIndex>(r);
        std::vector<LocalIndex> cells;
        for (LocalIndex cell = 0; cell < mesh.n_cells(); ++cell)
          for (int a = 0; a < 8; ++a)
            {
              const LocalIndex node = mesh.cell_nodes[8 * cell + a];
              if (line_of_dof[3 * node] >= 0 || line_of_dof[3 * node + 1] >= 0 || line_of_dof[3 * node + 2] >= 0)
                {
                  cells.push_back(cell);
                  break;
                }
            }
        d.line_of_dof       = DeviceArray<LocalIndex>(line_of_dof, "line of dof");
        d.constrained_cells = DeviceArray<LocalIndex>(cells, "cells with constrained dofs");
        if (!mesh.dirichlet_offsets.empty())
          {
            d.dirichlet_offsets = DeviceArray<LocalIndex>(mesh.dirichlet_offsets, "constraint dirichlet offsets");
            d.dirichlet_columns = DeviceArray<LocalIndex>(mesh.dirichlet_columns, "constraint dirichlet columns");
            d.dirichlet_weights = DeviceArray<double>(mesh.dirichlet_weights, "constraint dirichlet weights");
          }
        d.saved_row_values.resize(d.n_constraint_lines, "saved constrained values");
        d.saved_row_values_float.resize(d.n_constraint_lines, "saved constrained values");
      }

      /**
       * The cells (node table in the layout of @p thread_per_cell), node
       * coordinates, materials and stiffness factors; whether a material's
       * tangent is pressure dependent or unsymmetric.
       */
      void
      upload_cells(const MeshData &mesh, const bool thread_per_cell, DeviceOperator::Impl &d)
      {
        d.n_cells       = mesh.n_cells();
        d.n_nodes       = mesh.n_nodes;
        d.n_owned_nodes = mesh.n_owned_nodes;
        d.cell_nodes    = DeviceArray<LocalIndex>(to_device_layout(mesh.cell_nodes,
                                                                d.n_cells,
                                                                8,
                                                                d.cell_nodes_stride_cell,
                                                                d.cell_nodes_stride_node,
                                                                thread_per_cell),
                                               "cell nodes");
        d.coordinates   = DeviceArray<double>(mesh.node_coordinates, "node coordinates");
        d.materials     = DeviceArray<MaterialConstants>(mesh.materials, "materials");
        d.cell_material = DeviceArray<std::uint16_t>(mesh.cell_material, "cell materials");
        if (!mesh.cell_factors.empty())
          d.cell_factor = DeviceArray<float>(mesh.cell_factors, "cell stiffness factors");
        for (const MaterialConstants &m : mesh.materials)
          if (m.criterion != YieldCriterion::von_mises)
            {
              d.pressure_dependent = true;
              if (m.criterion == YieldCriterion::mohr_coulomb ? m.sin_dilation != m.sin_friction :
                                                                m.cone_eta_bar != m.cone_eta)
                d.symmetric_tangent = false;
            }
      }

      /**
       * The constrained DoFs (per cell as a mask, owned and all as lists),
       * the hanging-node lines, the boundary springs and the mass matrix.
       */
      void
      upload_constraints(const MeshData &mesh, DeviceOperator::Impl &d)
      {
        std::vector<std::uint32_t> masks(d.n_cells, 0);
        for (LocalIndex cell = 0; cell < d.n_cells; ++cell)
          for (int a = 0; a < 8; ++a)
            for (int c = 0; c < 3; ++c)
              if (mesh.constrained_dofs[3 * mesh.cell_nodes[8 * cell + a] + c])
                masks[cell] |= (1u << (3 * a + c));
        d.cell_constraint_mask = DeviceArray<std::uint32_t>(masks, "constraint masks");

        std::vector<LocalIndex> constrained_owned, constrained_all;
        for (LocalIndex dof = 0; dof < mesh.n_dofs(); ++dof)
          if (mesh.constrained_dofs[dof])
            {
              constrained_all.push_back(dof);
              if (dof < mesh.n_owned_dofs())
                constrained_owned.push_back(dof);
            }
        d.constrained_owned_dofs = DeviceArray<LocalIndex>(constrained_owned, "constrained dofs");
        d.constrained_dofs       = DeviceArray<LocalIndex>(constrained_all, "constrained dofs");
        upload_constraint_lines(mesh, d);
        d.springs = internal::build_sparse_term(mesh, mesh.spring_rows, mesh.spring_columns, mesh.spring_values,
                                               "boundary springs");
        d.mass    = internal::build_sparse_term(mesh, mesh.mass_rows, mesh.mass_columns, mesh.mass_values,
                                               "mass matrix");
        d.sparse_term_layout.n_nodes            = mesh.n_nodes;
        d.sparse_term_layout.n_owned_nodes      = mesh.n_owned_nodes;
        d.sparse_term_layout.constrained_dofs   = mesh.constrained_dofs;
        d.sparse_term_layout.constraint_rows    = mesh.constraint_rows;
        d.sparse_term_layout.constraint_offsets = mesh.constraint_offsets;
        d.sparse_term_layout.constraint_columns = mesh.constraint_columns;
        d.sparse_term_layout.constraint_weights = mesh.constraint_weights;
      }

      /**
       * What the cell kernel needs: the stored geometry, or the element
       * matrices of the congruent-cell groups.
       */
      void
      build_cell_kernel_data(const MeshData &mesh, const bool thread_per_cell, DeviceOperator::Impl &d)
      {
        if (d.settings.cell_kernel == CellKernel::stored_geometry)
          {
            internal::default_strides(d.n_cells,
                                      internal::stored_geometry_entries,
                                      d.geometry_stride_cell,
                                      d.geometry_stride_entry,
                                      thread_per_cell);
            d.geometry.resize(static_cast<std::size_t>(d.n_cells) * internal::stored_geometry_entries,
                              "stored geometry");
            internal::store_geometry(d.on_the_fly_geometry(),
                                     {d.geometry.data(), d.geometry_stride_cell, d.geometry_stride_entry},
                                     d.n_cells);
          }
        else if (d.settings.cell_kernel == CellKernel::element_matrix)
          {
            std::vector<LocalIndex> groups, representatives;
            internal::group_congruent_cells(mesh, groups, representatives);
            d.n_matrices            = representatives.size();
            d.cell_group            = DeviceArray<LocalIndex>(groups, "cell matrix group");
            d.cell_matrix           = DeviceArray<LocalIndex>(groups, "cell matrix index");
            d.matrix_representative = DeviceArray<LocalIndex>(representatives, "matrix cells");
            d.matrices.resize(576 * d.n_matrices, "element matrices");
            internal::with_element_formulation(d.settings.element_formulation, [&](auto mean_dilatation) {
              internal::QuadratureCellOperator<internal::OnTheFlyGeometry<>, internal::ElasticLaw<>,
                                               decltype(mean_dilatation)::value>
                op{d.on_the_fly_geometry(), d.elastic_law(false)};
              internal::compute_element_matrices(op,
                                                 d.matrix_representative.data(),
                                                 0,
                                                 d.n_matrices,
                                                 d.matrices.data());
            });
          }
      }
    } // namespace

    DeviceOperator::DeviceOperator(const MeshData &mesh, const OperatorSettings &settings)
      : impl_(std::make_unique<Impl>())
    {
      mesh.check_consistency();
      Impl &d    = *impl_;
      d.settings = internal::resolve_settings(settings);
      // One GPU thread per cell reads structure-of-arrays data; teams of a
      // cell and CPU threads read array-of-structures data. The shuffle
      // lanes of a cell share the per-cell layout of one thread per cell:
      // its other kernels (diagonal, stress update) run one thread per cell.
      const bool thread_per_cell = d.settings.thread_mapping != ThreadMapping::node;
      upload_cells(mesh, thread_per_cell, d);
      upload_constraints(mesh, d);
      build_cell_kernel_data(mesh, thread_per_cell, d);
      Kokkos::fence();

      // A negative Jacobian means a tangled or wrongly oriented cell: the
      // operator would not be positive definite.
      const Index64 n_bad = internal::count_inverted_cells(d.on_the_fly_geometry(), d.n_cells);
      if (n_bad > 0)
        throw std::invalid_argument(
          std::to_string(n_bad) +
          " cells have a non-positive Jacobian determinant at a Gauss point "
          "(tangled, degenerate or inverted hexahedra)");

      // What the strategy needs: colours, tiles, node-to-cell lists, the
      // lattice or the assembled matrix.
      internal::with_strategy(d.settings.strategy, [&](auto strategy) { strategy.setup(mesh, d); });
    }
  } // namespace backend
} // namespace plastix

#include "firewall_check.h"
