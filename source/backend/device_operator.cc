// Application of the matrix-free Q1 mechanics operator: the dispatch over
// strategies and cell kernels, the constraints, the diagonal, the plasticity
// state's tangent and the assembled matrix.
#include <plastix/backend/device_operator.h>

#include "strategies/strategy_dispatch.h"

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace plastix
{
  namespace backend
  {
    using internal::Index64;
    using internal::assemble_matrix_values;
    using internal::with_quadrature_operator;

    DeviceOperator::~DeviceOperator() = default;

    namespace internal
    {
      /**
       * Slots of the flagged cells (prefix sum): list[slot] = cell, and
       * index[cell] = n_groups + slot for flagged cells, group[cell] else.
       * Returns the number of flagged cells.
       */
      Index64
      enumerate_flagged(const std::uint8_t *flag,
                        const LocalIndex   *group,
                        const LocalIndex    n_groups,
                        const Index64       n_cells,
                        LocalIndex         *list,
                        LocalIndex         *index)
      {
        Index64 total = 0;
        scan_range(
          "plastix::enumerate_plastic_cells",
          n_cells,
          KOKKOS_LAMBDA(const Index64 cell, Index64 &offset, const bool final) {
            if (final)
              {
                if (flag[cell])
                  {
                    list[offset] = static_cast<LocalIndex>(cell);
                    index[cell]  = n_groups + static_cast<LocalIndex>(offset);
                  }
                else
                  index[cell] = group[cell];
              }
            if (flag[cell])
              ++offset;
          },
          total);
        return total;
      }

      void
      assemble_matrix_values(DeviceOperator::Impl &d)
      {
        const auto start = std::chrono::steady_clock::now();
        with_quadrature_operator(d, [&](const auto &op) {
          internal::assemble_numeric(op, d.cell_node_table(), d.cell_constraint_mask.data(), d.n_cells, d.matrix);
        });
        Kokkos::fence();
        d.matrix.numeric_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    } // namespace internal

    namespace
    {
      /**
       * The cells' product, then the boundary springs' (without the rows and
       * columns of Dirichlet DoFs if @p masked, so the unit rows stay); the
       * operator's product (@p masked) adds the load stiffness and the mass
       * matrix times its factor.
       */
      template <typename Number>
      void
      apply_current(const DeviceOperator::Impl &d, const Number *src, Number *dst, const bool masked)
      {
        internal::with_strategy(d.settings.strategy,
                                [&](auto strategy) { strategy.apply(d, src, dst, masked); });
        internal::add_sparse_term(d.springs, src, dst, masked);
        if (masked)
          internal::add_sparse_term(d.load_stiffness, src, dst, true);
        if (masked && d.mass_factor != 0.)
          internal::add_sparse_term(d.mass, src, dst, true, d.mass_factor);
      }

      /**
       * dst = C^T A C src with unit rows at constrained DoFs: the cells see
       * the constrained rows of src interpolated from their lines (src is
       * restored afterwards; only those few entries change meanwhile).
       */
      template <typename Number>
      void
      apply_constrained(const DeviceOperator::Impl &d, const Number *src, Number *dst, Number *saved)
      {
        if (d.n_constraint_lines == 0)
          {
            apply_current(d, src, dst, true);
            return;
          }
        Number *interpolated = const_cast<Number *>(src);
        internal::interpolate_constrained_rows(d, interpolated, saved);
        apply_current(d, src, dst, true);
        internal::restore_constrained_rows(d, interpolated, saved);
        internal::condense_constrained_rows(d, dst, src);
      }
    } // namespace

    void
    DeviceOperator::apply(const double *src, double *dst) const
    {
      apply_constrained(*impl_, src, dst, impl_->saved_row_values.data());
    }

    void
    DeviceOperator::apply(const float *src, float *dst) const
    {
      apply_constrained(*impl_, src, dst, impl_->saved_row_values_float.data());
    }

    bool
    DeviceOperator::fuses_chebyshev_step() const
    {
      const Impl &d = *impl_;
      return d.settings.strategy == Strategy::dbd_structured && d.structured.n_other_cells == 0 &&
             d.n_constraint_lines == 0 && d.n_owned_nodes == d.n_nodes && d.structured.n_points() > 0 &&
             d.springs.empty() && d.load_stiffness.empty() && (d.mass.empty() || d.mass_factor == 0.);
    }

    namespace
    {
      template <typename Number>
      void
      fused_chebyshev_step(const DeviceOperator       &op,
                           const DeviceOperator::Impl &d,
                           const Number               *x,
                           const Number               *x_old,
                           const Number               *rhs,
                           const Number               *inverse_diagonal,
                           const double                factor1,
                           const double                factor2,
                           Number                     *out)
      {
        if (!op.fuses_chebyshev_step())
          throw std::logic_error("DeviceOperator::chebyshev_step: the operator cannot fuse the update "
                                 "(check fuses_chebyshev_step() first)");
        internal::ChebyshevEpilogue<Number> epilogue;
        epilogue.rhs              = rhs;
        epilogue.inverse_diagonal = inverse_diagonal;
        epilogue.x_old            = x_old;
        epilogue.out              = out;
        epilogue.factor1          = static_cast<Number>(factor1);
        epilogue.factor2          = static_cast<Number>(factor2);
        internal::chebyshev_step_structured(d, x, epilogue);
      }
    } // namespace

    void
    DeviceOperator::chebyshev_step(const double *x,
                                   const double *x_old,
                                   const double *rhs,
                                   const double *inverse_diagonal,
                                   const double  factor1,
                                   const double  factor2,
                                   double       *out) const
    {
      fused_chebyshev_step(*this, *impl_, x, x_old, rhs, inverse_diagonal, factor1, factor2, out);
    }

    void
    DeviceOperator::chebyshev_step(const float *x,
                                   const float *x_old,
                                   const float *rhs,
                                   const float *inverse_diagonal,
                                   const double factor1,
                                   const double factor2,
                                   float       *out) const
    {
      fused_chebyshev_step(*this, *impl_, x, x_old, rhs, inverse_diagonal, factor1, factor2, out);
    }

    void
    DeviceOperator::apply_unconstrained(const double *src, double *dst) const
    {
      apply_current(*impl_, src, dst, false);
      condense(dst);
    }

    void
    DeviceOperator::apply_mass(const double *src, double *dst) const
    {
      const Impl &d = *impl_;
      internal::for_range("plastix::zero", n_dofs(), KOKKOS_LAMBDA(const internal::Index64 i) { dst[i] = 0.; });
      internal::add_sparse_term(d.mass, src, dst, false);
      condense(dst);
    }

    void
    DeviceOperator::set_mass_factor(const double factor)
    {
      if (!std::isfinite(factor) || factor < 0.)
        throw std::invalid_argument("DeviceOperator::set_mass_factor: the factor must be finite and >= 0");
      impl_->mass_factor = factor;
    }

    void
    DeviceOperator::condense(double *dst) const
    {
      if (impl_->n_constraint_lines > 0)
        {
          internal::add_rows_to_dirichlet_columns(*impl_, dst);
          internal::condense_constrained_rows<double>(*impl_, dst, nullptr);
        }
    }

    void
    DeviceOperator::distribute_constraint_lines(double *u, const double *inhomogeneities, const double scale) const
    {
      if (impl_->n_constraint_lines > 0)
        internal::interpolate_constrained_rows<double>(*impl_, u, nullptr, inhomogeneities, scale);
    }

    std::size_t
    DeviceOperator::n_constraint_lines() const
    {
      return impl_->n_constraint_lines;
    }

    void
    DeviceOperator::compute_diagonal(double *diagonal) const
    {
      // The element-matrix kernel has no stored geometry: its diagonal comes
      // from the same quadrature with the geometry recomputed.
      const Impl &d = *impl_;
      with_quadrature_operator(d, [&](const auto &op) {
        internal::launch_diagonal(d, op, diagonal);
        internal::add_sparse_term_diagonal(d.springs, diagonal);
        internal::add_sparse_term_diagonal(d.load_stiffness, diagonal);
        if (d.mass_factor != 0.)
          internal::add_sparse_term_diagonal(d.mass, diagonal, d.mass_factor);
        if (d.n_constraint_lines > 0)
          {
            internal::add_constrained_diagonal(d, op, diagonal);
            internal::set_constrained_rows(d, diagonal, static_cast<const double *>(nullptr), 1.);
          }
      });
    }

    GaussPointState &
    DeviceOperator::create_plasticity_state()
    {
      if (impl_->finite_strain_state != nullptr)
        throw std::invalid_argument("plastix: a finite-strain operator cannot take a small-strain plasticity state");
      release_plasticity_state();
      impl_->plasticity_state.reset(new GaussPointState(*this));
      use_tangent(true);
      return *impl_->plasticity_state;
    }

    void
    DeviceOperator::release_plasticity_state()
    {
      if (impl_->plasticity_state == nullptr)
        return;
      use_tangent(false);
      impl_->plasticity_state.reset();
    }

    GaussPointState *
    DeviceOperator::plasticity_state()
    {
      return impl_->plasticity_state.get();
    }

    const GaussPointState *
    DeviceOperator::plasticity_state() const
    {
      return impl_->plasticity_state.get();
    }

    FiniteStrainState &
    DeviceOperator::create_finite_strain_state()
    {
      const OperatorSettings &s = impl_->settings;
      if (s.strategy == Strategy::dbd_structured || s.cell_kernel == CellKernel::element_matrix)
        throw std::invalid_argument("plastix: finite strain needs a quadrature cell kernel and a strategy other than "
                                    "dbd structured (the operator's settings: " +
                                    to_string(s.strategy) + ", " + to_string(s.cell_kernel) + ")");
      if (s.element_formulation == ElementFormulation::bbar)
        throw std::invalid_argument("plastix: B-bar is a small-strain element formulation (finite strain takes F-bar)");
      if (impl_->plasticity_state != nullptr)
        throw std::invalid_argument("plastix: an operator with a plasticity state cannot be finite strain too");
      release_finite_strain_state();
      impl_->finite_strain_state.reset(new FiniteStrainState(*this));
      impl_->finite_strain = &impl_->finite_strain_state->impl();
      update_tangent();
      return *impl_->finite_strain_state;
    }

    void
    DeviceOperator::release_finite_strain_state()
    {
      if (impl_->finite_strain_state == nullptr)
        return;
      impl_->finite_strain = nullptr;
      impl_->finite_strain_state.reset();
      update_tangent();
    }

    FiniteStrainState *
    DeviceOperator::finite_strain_state()
    {
      return impl_->finite_strain_state.get();
    }

    const FiniteStrainState *
    DeviceOperator::finite_strain_state() const
    {
      return impl_->finite_strain_state.get();
    }

    void
    DeviceOperator::use_tangent(const bool tangent)
    {
      const GaussPointState *state = impl_->plasticity_state.get();
      impl_->plasticity = tangent && state != nullptr ? &state->impl() : nullptr;
      update_tangent();
    }

    namespace
    {
      /** The element matrices of the cells with plastic points (element-matrix kernel), or the shared ones only. */
      void
      update_element_matrices(DeviceOperator::Impl &d)
      {
        if (d.settings.cell_kernel != CellKernel::element_matrix)
          return;
        if (d.plasticity == nullptr)
          {
            d.cell_matrix.copy_from(d.cell_group);
            d.n_plastic_matrices = 0;
            return;
          }
        // Enumerate the cells with plastic points; each gets its own matrix.
        const std::uint8_t *plastic = d.plasticity->cell_plastic.data();
        d.plastic_cells.resize(d.n_cells, "plastic cells");
        LocalIndex       *list      = d.plastic_cells.data();
        LocalIndex       *index     = d.cell_matrix.data();
        const LocalIndex *group     = d.cell_group.data();
        const LocalIndex  n_groups  = static_cast<LocalIndex>(d.n_matrices);
        const Index64     n_plastic = internal::enumerate_flagged(plastic, group, n_groups, d.n_cells, list, index);
        if (static_cast<std::size_t>(n_plastic) * 576 > d.plastic_matrices.size())
          d.plastic_matrices.resize(static_cast<std::size_t>(n_plastic * 1.25 + 16) * 576, "plastic element matrices");
        d.n_plastic_matrices = n_plastic;
        internal::with_element_formulation(d.settings.element_formulation, [&](auto mean_dilatation) {
          internal::compute_element_matrices(
            internal::QuadratureCellOperator<internal::OnTheFlyGeometry<>, internal::TangentLaw<>,
                                             decltype(mean_dilatation)::value>{d.on_the_fly_geometry(),
                                                                               d.plasticity->tangent_law(false)},
            list, 0, n_plastic, d.plastic_matrices.data());
        });
      }
    } // namespace

    void
    DeviceOperator::update_tangent()
    {
      Impl &d = *impl_;
      update_element_matrices(d);
      internal::with_strategy(d.settings.strategy, [&](auto strategy) { strategy.update_tangent(d); });
    }

    CsrMatrix
    DeviceOperator::copy_matrix() const
    {
      const Impl &d = *impl_;
      if (d.settings.strategy != Strategy::assembled)
        throw std::logic_error("DeviceOperator::copy_matrix(): the operator's strategy is '" +
                               to_string(d.settings.strategy) + "', not 'assembled'");
      // The CSR column indices from the node lists (the device keeps one per 3x3 block).
      const std::vector<internal::Index64> node_offsets = d.matrix.node_offsets.to_host();
      const std::vector<LocalIndex>        node_columns = d.matrix.node_columns.to_host();
      CsrMatrix                            matrix;
      matrix.values = d.matrix.values.to_host();
      matrix.row_offsets.reserve(3 * d.matrix.n_nodes + 1);
      matrix.columns.reserve(matrix.values.size());
      for (internal::Index64 node = 0; node < d.matrix.n_nodes; ++node)
        for (int c = 0; c < 3; ++c)
          {
            matrix.row_offsets.push_back(static_cast<std::int64_t>(matrix.columns.size()));
            for (internal::Index64 k = node_offsets[node]; k < node_offsets[node + 1]; ++k)
              for (int e = 0; e < 3; ++e)
                matrix.columns.push_back(3 * node_columns[k] + e);
          }
      matrix.row_offsets.push_back(static_cast<std::int64_t>(matrix.columns.size()));
      internal::add_sparse_term(d.springs, matrix);
      internal::add_sparse_term(d.load_stiffness, matrix);
      if (d.mass_factor != 0.)
        internal::add_sparse_term(d.mass, matrix, d.mass_factor);
      return matrix;
    }

    std::size_t
    DeviceOperator::n_matrix_entries() const
    {
      return impl_->matrix.values.size();
    }

    AssemblyTimes
    DeviceOperator::assembly_times() const
    {
      return {impl_->matrix.symbolic_seconds, impl_->matrix.numeric_seconds};
    }

    bool
    DeviceOperator::has_symmetric_tangent() const
    {
      return impl_->symmetric_tangent && impl_->load_stiffness.empty();
    }

    void
    DeviceOperator::set_load_stiffness(const std::vector<LocalIndex> &rows,
                                       const std::vector<LocalIndex> &columns,
                                       const std::vector<double>     &values)
    {
      Impl &d          = *impl_;
      d.load_stiffness = internal::SparseTerm();
      d.load_stiffness =
        internal::build_sparse_term(d.sparse_term_layout, rows, columns, values, "load stiffness");
    }

    const OperatorSettings &
    DeviceOperator::settings() const
    {
      return impl_->settings;
    }

    LocalIndex
    DeviceOperator::n_cells() const
    {
      return impl_->n_cells;
    }

    LocalIndex
    DeviceOperator::n_dofs() const
    {
      return 3 * impl_->n_nodes;
    }

    LocalIndex
    DeviceOperator::n_owned_dofs() const
    {
      return 3 * impl_->n_owned_nodes;
    }

    unsigned int
    DeviceOperator::n_colors() const
    {
      return impl_->color_offsets.empty() ? 0 : impl_->color_offsets.size() - 1;
    }

    std::size_t
    DeviceOperator::n_tiles() const
    {
      return impl_->n_tiles;
    }

    std::size_t
    DeviceOperator::n_element_matrices() const
    {
      return impl_->n_matrices;
    }

    void
    DeviceOperator::cell_average_strain(const double *u, double *host_out) const
    {
      const Impl                     &d          = *impl_;
      const internal::OnTheFlyGeometry<> geometry = d.on_the_fly_geometry();
      const auto                      cell_nodes = d.cell_node_table();
      DeviceArray<double>             out(6 * static_cast<std::size_t>(d.n_cells), "cell strain");
      double                         *result = out.data();
      internal::for_range("plastix::cell_strain", d.n_cells, KOKKOS_LAMBDA(const Index64 cell) {
        LocalIndex nodes[8];
        double     values[24];
        internal::gather_cell_values(cell_nodes, cell, 0u, u, nodes, values);
        double e[3][3][4];
        internal::vector_edge_differences(values, e);
        internal::OnTheFlyGeometry<>::CellData g;
        geometry.load(cell, g);
        double sum[6] = {0, 0, 0, 0, 0, 0}, volume = 0;
        for (int q = 0; q < 8; ++q)
          {
            double       inv[3][3], eps[6];
            const double JxW = geometry.at(g, q, inv);
            internal::strain_at_point(e, q, inv, eps);
            for (int k = 0; k < 6; ++k)
              sum[k] += JxW * eps[k];
            volume += JxW;
          }
        for (int k = 0; k < 6; ++k)
          result[6 * cell + k] = sum[k] / volume;
      });
      copy_to_host(host_out, out.data(), out.memory_consumption());
    }

    const DeviceOperator::Impl &
    DeviceOperator::impl() const
    {
      return *impl_;
    }
  } // namespace backend
} // namespace plastix

#include "firewall_check.h"
