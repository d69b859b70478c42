// Finite strain on the device: the deformation gradients at the Gauss
// points, the internal force, the committed history of plasticity in the
// logarithmic strain space.
#include <plastix/backend/finite_strain_state.h>

#include "finite_strain_state_impl.h"
#include "sparse_terms.h"
#include "strategies/strategy_dispatch.h"

#include <stdexcept>

namespace plastix
{
  namespace backend
  {
    using internal::Index64;

    namespace internal
    {
      /**
       * F = I + Grad u at every Gauss point of every cell into @p F (F-bar,
       * if @p dilatation_ratio has data: F_bar and the ratios); returns the
       * number of points with det F <= 0.
       */
      template <typename Geometry>
      Index64
      store_deformation_gradients(const Geometry                  &geometry,
                                  const Strided<const LocalIndex> &cell_nodes,
                                  const double                    *u,
                                  const Strided<double>           &F,
                                  const Strided<double>           &dilatation_ratio,
                                  const Index64                    n_cells)
      {
        Index64    inverted    = 0;
        const auto update_cell = KOKKOS_LAMBDA(const Index64 cell, Index64 &sum) {
          double                      e[3][3][4];
          typename Geometry::CellData g;
          load_cell_displacement(geometry, cell_nodes, cell, u, e, g);
          sum += store_cell_deformation_gradients(geometry, g, e, cell, F, dilatation_ratio);
        };
        static_assert(launches_light_weight<decltype(update_cell)>, "the functor must fit a kernel argument");
        Kokkos::parallel_reduce("plastix::deformation_gradients", RangePolicy(0, n_cells), update_cell, inverted);
        return inverted;
      }

      /**
       * sum over cells and Gauss points of W(F) JxW (times the cell's
       * stiffness factor if @p factors is set); at the points of Hencky
       * materials the elastic energy of E - E_p with the plastic strain of
       * @p history (if @p logarithmic_strain).
       */
      template <typename Geometry>
      double
      stored_energy(const Geometry            &geometry,
                    const Strided<double>     &F,
                    const bool                 logarithmic_strain,
                    const Strided<double>     &history,
                    const MaterialConstants   *materials,
                    const std::uint16_t       *cell_material,
                    const float               *factors,
                    const Index64              n_cells)
      {
        double     energy      = 0.;
        const auto cell_energy = KOKKOS_LAMBDA(const Index64 cell, double &sum) {
          typename Geometry::CellData g;
          geometry.load(cell, g);
          double cell_sum = 0.;
          for (int q = 0; q < 8; ++q)
            {
              typename Geometry::value_type inv[3][3];
              const double                  JxW = geometry.at(g, q, inv);
              double                        Fq[3][3];
              load_deformation_gradient(F, cell, q, Fq);
              const MaterialConstants &m = materials[cell_material[cell]];
              if (logarithmic_strain && m.strain_energy == StrainEnergy::hencky)
                {
                  LogarithmicStrain E;
                  if (!E.reinit(Fq))
                    {
                      cell_sum += natural_logarithm(-1.); // not finite, as W of an inverted point
                      continue;
                    }
                  double elastic[6];
                  for (int k = 0; k < 6; ++k)
                    elastic[k] = E.strain[k] - history(cell, k * 8 + q);
                  cell_sum += hencky_energy(m, elastic) * JxW;
                }
              else
                cell_sum += hyperelastic_energy(m, Fq) * JxW;
            }
          sum += (factors != nullptr ? static_cast<double>(factors[cell]) : 1.) * cell_sum;
        };
        Kokkos::parallel_reduce("plastix::stored_energy", RangePolicy(0, n_cells), cell_energy, energy);
        return energy;
      }

      /**
       * The return in the logarithmic strain space at every Gauss point of
       * the Hencky materials' cells at the stored F from the committed
       * history, written back as the committed history; returns the number
       * of points that yield.
       */
      inline Index64
      commit_logarithmic_strain(const Strided<double>   &F,
                                const Strided<double>   &history,
                                const MaterialConstants *materials,
                                const std::uint16_t     *cell_material,
                                const Index64            n_cells)
      {
        Index64                     plastic     = 0;
        const Strided<const double> committed = history;
        const auto                  commit_cell = KOKKOS_LAMBDA(const Index64 cell, Index64 &sum) {
          const MaterialConstants &m = materials[cell_material[cell]];
          if (m.strain_energy != StrainEnergy::hencky)
            return;
          for (int q = 0; q < 8; ++q)
            {
              double Fq[3][3];
              load_deformation_gradient(F, cell, q, Fq);
              LogarithmicStrainResult r;
              logarithmic_strain_point(m, committed, cell, q, Fq, r);
              if (!r.valid)
                continue;
              for (int k = 0; k < history_fields; ++k)
                history(cell, k * 8 + q) = r.history[k];
              sum += r.plastic ? 1 : 0;
            }
        };
        static_assert(launches_light_weight<decltype(commit_cell)>, "the functor must fit a kernel argument");
        Kokkos::parallel_reduce("plastix::commit_logarithmic_strain", RangePolicy(0, n_cells), commit_cell, plastic);
        return plastic;
      }

      /**
       * The tangent data (store_logarithmic_strain_tangent()) of every Gauss
       * point of the Hencky materials' cells at the stored F from the
       * committed history.
       */
      inline void
      store_logarithmic_strain_tangents(const Strided<double>   &F,
                                        const Strided<double>   &history,
                                        const Strided<double>   &data,
                                        const MaterialConstants *materials,
                                        const std::uint16_t     *cell_material,
                                        const Index64            n_cells)
      {
        const Strided<const double> committed = history;
        for_range("plastix::logarithmic_strain_tangents", n_cells, KOKKOS_LAMBDA(const Index64 cell) {
          const MaterialConstants &m = materials[cell_material[cell]];
          if (m.strain_energy != StrainEnergy::hencky)
            return;
          for (int q = 0; q < 8; ++q)
            {
              double Fq[3][3];
              load_deformation_gradient(F, cell, q, Fq);
              store_logarithmic_strain_tangent(m, committed, cell, q, Fq, data);
            }
        });
      }

      /**
       * The F-bar data of every cell at the linearisation point that @p law
       * reads (its stored F_bar, ratios and stresses) into @p data
       * (f_bar_cell_entries): the reference volume, p_bar = <tr tau_bar /
       * (3 J_bar)> and the volume gradient sum_q B^T (J F^-T) JxW.
       */
      template <typename Geometry, typename Law>
      void
      store_f_bar_cell_data(const Geometry &geometry, const Law &law, const Strided<double> &data,
                            const Index64 n_cells)
      {
        for_range("plastix::f_bar_cell_data", n_cells, KOKKOS_LAMBDA(const Index64 cell) {
          typename Geometry::CellData g;
          geometry.load(cell, g);
          double flux[3][3][4] = {};
          double volume = 0, pressure = 0;
          for (int q = 0; q < 8; ++q)
            {
              typename Geometry::value_type inv_g[3][3];
              const double                  JxW = geometry.at(g, q, inv_g);
              double                        inv[3][3], w[3][4], tau[3][3], K[3][3];
              for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j)
                  inv[i][j] = inv_g[i][j];
              gradient_weights(q, w);
              const FBarLinearisationPoint<double> x(law, cell, q);
              product_transpose(x.P_bar, x.F_bar, tau);
              volume += JxW;
              pressure += JxW * (tau[0][0] + tau[1][1] + tau[2][2]) / (3. * x.J_bar);
              for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j)
                  K[i][j] = x.J * x.F_inv_T[i][j];
              add_point_flux(w, inv, JxW, K, flux);
            }
          data(cell, 0) = volume;
          data(cell, 1) = pressure / volume;
          for (int c = 0; c < 3; ++c)
            {
              double r[8];
              edge_differences_transpose(flux[c], r);
              for (int a = 0; a < 8; ++a)
                data(cell, 2 + 3 * a + c) = r[a];
            }
        });
      }

      /** F = I at every Gauss point (the undeformed body). */
      inline void
      set_identity_deformation(const Strided<double> &F, const Index64 n_cells)
      {
        for_range("plastix::identity_deformation", n_cells, KOKKOS_LAMBDA(const Index64 cell) {
          for (int k = 0; k < 9; ++k)
            for (int q = 0; q < 8; ++q)
              F(cell, k * 8 + q) = (k % 4 == 0) ? 1. : 0.;
        });
      }
    } // namespace internal

    FiniteStrainState::FiniteStrainState(const DeviceOperator &op)
      : impl_(std::make_unique<Impl>())
    {
      Impl &s   = *impl_;
      s.op      = &op;
      s.n_cells = op.n_cells();
      internal::default_strides(s.n_cells, 72, s.stride_cell, s.stride_entry,
                                op.settings().thread_mapping != ThreadMapping::node);
      s.deformation_gradient.resize(72 * static_cast<std::size_t>(s.n_cells), "deformation gradients");
      internal::set_identity_deformation(s.deformation_gradient_view(), s.n_cells);
      s.f_bar = op.settings().element_formulation == ElementFormulation::fbar;
      if (s.f_bar)
        {
          s.dilatation_ratio.resize(8 * static_cast<std::size_t>(s.n_cells), "dilatation ratios");
          internal::default_strides(s.n_cells, 8, s.ratio_stride_cell, s.ratio_stride_entry,
                                    op.settings().thread_mapping != ThreadMapping::node);
          s.dilatation_ratio.copy_from_host(std::vector<double>(8 * static_cast<std::size_t>(s.n_cells), 1.));
          s.f_bar_cell_data.resize(internal::f_bar_cell_entries * static_cast<std::size_t>(s.n_cells),
                                   "F-bar cell data");
          internal::default_strides(s.n_cells, internal::f_bar_cell_entries, s.cell_data_stride_cell,
                                    s.cell_data_stride_entry, op.settings().thread_mapping != ThreadMapping::node);
        }
      for (const MaterialConstants &m : op.impl().materials.to_host())
        s.logarithmic_strain = s.logarithmic_strain || m.strain_energy == StrainEnergy::hencky;
      if (s.logarithmic_strain)
        {
          constexpr int values = 8 * internal::history_fields;
          internal::default_strides(s.n_cells, values, s.history_stride_cell, s.history_stride_entry,
                                    op.settings().thread_mapping != ThreadMapping::node);
          s.history.resize(values * static_cast<std::size_t>(s.n_cells), "finite-strain history");
          s.history.set_zero();
          constexpr int tangent_values = 8 * internal::logarithmic_strain_tangent_fields;
          internal::default_strides(s.n_cells, tangent_values, s.tangent_stride_cell, s.tangent_stride_entry,
                                    op.settings().thread_mapping != ThreadMapping::node);
          s.tangent_data.resize(tangent_values * static_cast<std::size_t>(s.n_cells), "finite-strain tangent");
          s.tangent_data.set_zero();
          s.store_tangents();
        }
      s.store_f_bar_cell_data();
    }

    FiniteStrainState::~FiniteStrainState() = default;

    std::size_t
    FiniteStrainState::update(const double *u, double *internal_force)
    {
      Impl                       &s        = *impl_;
      const DeviceOperator::Impl &d        = s.op->impl();
      Index64                     inverted = 0;
      internal::with_geometry(d, [&](const auto &geometry) {
        inverted = internal::store_deformation_gradients(geometry, d.cell_node_table(), u,
                                                         s.deformation_gradient_view(), s.dilatation_ratio_view(),
                                                         s.n_cells);
      });
      s.store_tangents();
      s.store_f_bar_cell_data();
      if (internal_force != nullptr)
        this->internal_force(u, internal_force);
      return static_cast<std::size_t>(inverted);
    }

    void
    FiniteStrainState::internal_force(const double *u, double *f_int) const
    {
      const Impl                 &s = *impl_;
      const DeviceOperator::Impl &d = s.op->impl();
      internal::with_geometry(d, [&](const auto &geometry) {
        using Geometry = std::decay_t<decltype(geometry)>;
        internal::with_element_formulation(d.settings.element_formulation, [&](auto mean_dilatation) {
          constexpr bool f_bar = decltype(mean_dilatation)::value;
          if (s.logarithmic_strain)
            internal::launch_apply(
              d,
              internal::QuadratureCellOperator<Geometry, internal::HyperelasticLaw<double, true>, f_bar>{
                geometry, s.stress_law<true>()},
              u, f_int, false);
          else
            internal::launch_apply(
              d,
              internal::QuadratureCellOperator<Geometry, internal::HyperelasticLaw<double>, f_bar>{geometry,
                                                                                                  s.stress_law()},
              u, f_int, false);
        });
      });
      // The springs' force S u, then the hanging-node rows onto the DoFs they depend on (C^T f_int).
      internal::add_sparse_term(d.springs, u, f_int, false);
      s.op->condense(f_int);
    }

    double
    FiniteStrainState::stored_energy() const
    {
      const Impl                 &s      = *impl_;
      const DeviceOperator::Impl &d      = s.op->impl();
      double                      energy = 0.;
      internal::with_geometry(d, [&](const auto &geometry) {
        energy = internal::stored_energy(geometry, s.deformation_gradient_view(), s.logarithmic_strain,
                                         s.history_view(), d.materials.data(), d.cell_material.data(),
                                         d.cell_factor_data(), s.n_cells);
      });
      return energy;
    }

    bool
    FiniteStrainState::has_history() const
    {
      return impl_->logarithmic_strain;
    }

    void
    FiniteStrainState::Impl::store_tangents()
    {
      if (!logarithmic_strain)
        return;
      const DeviceOperator::Impl &d = op->impl();
      internal::store_logarithmic_strain_tangents(deformation_gradient_view(), history_view(), tangent_data_view(),
                                                  d.materials.data(), d.cell_material.data(), n_cells);
    }

    void
    FiniteStrainState::Impl::store_f_bar_cell_data()
    {
      if (!f_bar)
        return;
      const DeviceOperator::Impl &d = op->impl();
      internal::with_geometry(d, [&](const auto &geometry) {
        with_tangent_law<double>([&](const auto &law) {
          internal::store_f_bar_cell_data(geometry, law, f_bar_cell_data_view(), n_cells);
        });
      });
    }

    std::size_t
    FiniteStrainState::commit()
    {
      Impl &s = *impl_;
      if (!s.logarithmic_strain)
        return 0;
      const DeviceOperator::Impl &d = s.op->impl();
      return static_cast<std::size_t>(internal::commit_logarithmic_strain(
        s.deformation_gradient_view(), s.history_view(), d.materials.data(), d.cell_material.data(), s.n_cells));
    }

    std::size_t
    FiniteStrainState::n_yielded_points() const
    {
      const Impl &s = *impl_;
      if (!s.logarithmic_strain)
        return 0;
      const internal::Strided<double> committed = s.history_view();
      Index64                         count     = 0;
      internal::reduce_range(
        "plastix::count_yielded_finite_strain",
        8 * s.n_cells,
        KOKKOS_LAMBDA(const Index64 i, Index64 &sum) { sum += committed(i / 8, 6 * 8 + i % 8) > 0 ? 1 : 0; },
        count);
      return count;
    }

    void
    FiniteStrainState::get_committed_history(double *host_out) const
    {
      const Impl &s = *impl_;
      if (!s.logarithmic_strain)
        throw std::logic_error("plastix: FiniteStrainState::get_committed_history() without a Hencky material");
      internal::strided_to_host(s.history, s.n_cells, history_values_per_cell, s.history_stride_cell,
                                s.history_stride_entry, host_out);
    }

    void
    FiniteStrainState::set_committed_history(const double *host_in)
    {
      Impl &s = *impl_;
      if (!s.logarithmic_strain)
        throw std::logic_error("plastix: FiniteStrainState::set_committed_history() without a Hencky material");
      internal::strided_from_host(host_in, s.n_cells, history_values_per_cell, s.history_stride_cell,
                                  s.history_stride_entry, s.history);
      s.store_tangents();
      s.store_f_bar_cell_data();
    }

    std::size_t
    FiniteStrainState::memory_consumption() const
    {
      return impl_->deformation_gradient.memory_consumption() + impl_->history.memory_consumption() +
             impl_->tangent_data.memory_consumption() + impl_->dilatation_ratio.memory_consumption() +
             impl_->f_bar_cell_data.memory_consumption();
    }

    const FiniteStrainState::Impl &
    FiniteStrainState::impl() const
    {
      return *impl_;
    }
  } // namespace backend
} // namespace plastix

#include "firewall_check.h"
