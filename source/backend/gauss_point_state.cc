// J2 plasticity on the device: radial return at every Gauss point, internal
// force, committed/trial history, output averages.
#include <plastix/backend/gauss_point_state.h>
#include <plastix/backend/vector_operations.h>

#include "material/pressure_dependent.h"
#include "gauss_point_state_impl.h"
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
       * The per-point data of a GaussPointState that the return map reads
       * and writes (history layout, 8 points per field: plastic strain 0-5,
       * alpha 6 (equivalent or accumulated plastic strain), back stress
       * (J2) or initial stress (Mohr-Coulomb, Drucker-Prager) 7-12; the
       * tangent: a, b, n (J2) or the 6x6 matrix), with the materials and
       * the plastic flags.
       */
      struct PointHistory
      {
        const MaterialConstants *materials;
        const std::uint16_t     *cell_material;
        Strided<const double>    committed;
        Strided<double>          trial;
        Strided<double>          stress;
        Strided<double>          tangent;
        std::uint8_t            *cell_plastic;
        std::uint8_t            *point_plastic;

        /**
         * Radial return at Gauss point @p q of @p cell for the strain @p eps
         * from the committed history: the trial history, the stress, the
         * tangent data and the plastic flag of the point written; returns
         * whether it is plastic. With @p any_pressure_dependent false (no
         * Mohr-Coulomb or Drucker-Prager material in the state) only the J2
         * return is compiled: the principal-space returns and their 6x6
         * tangent raise the kernel's register use and measurably slow a
         * J2-only state's stress update on a GPU (doc/design.md, "Designs
         * tried and not kept").
         */
        template <bool any_pressure_dependent>
        KOKKOS_INLINE_FUNCTION bool
        return_map(const Index64 cell, const int q, const double eps[6]) const
        {
          double ep[6], beta[6];
          for (int k = 0; k < 6; ++k)
            {
              ep[k]   = committed(cell, k * 8 + q);
              beta[k] = committed(cell, (7 + k) * 8 + q);
            }
          const MaterialConstants &m = materials[cell_material[cell]];
          if constexpr (any_pressure_dependent)
            {
              if (m.criterion != YieldCriterion::von_mises)
                {
                  PressureDependentResult r;
                  pressure_dependent_return_map(m, eps, ep, committed(cell, 6 * 8 + q), beta, r);
                  for (int k = 0; k < 6; ++k)
                    {
                      trial(cell, k * 8 + q)       = r.plastic_strain[k];
                      trial(cell, (7 + k) * 8 + q) = beta[k];
                      stress(cell, k * 8 + q)      = r.stress[k];
                      for (int j = 0; j < 6; ++j)
                        tangent(cell, (6 * k + j) * 8 + q) = r.tangent[k][j];
                    }
                  trial(cell, 6 * 8 + q)      = r.alpha;
                  const bool plastic          = r.region != ReturnRegion::elastic;
                  point_plastic[8 * cell + q] = plastic ? 1 : 0;
                  return plastic;
                }
            }
          ReturnMapResult r;
          j2_return_map(m, eps, ep, committed(cell, 6 * 8 + q), beta, r);
          for (int k = 0; k < 6; ++k)
            {
              trial(cell, k * 8 + q)         = r.plastic_strain[k];
              trial(cell, (7 + k) * 8 + q)   = r.back_stress[k];
              stress(cell, k * 8 + q)        = r.stress[k];
              tangent(cell, (2 + k) * 8 + q) = r.n[k];
            }
          trial(cell, 6 * 8 + q)   = r.alpha;
          tangent(cell, q)         = r.a;
          tangent(cell, 8 + q)     = r.b;
          point_plastic[8 * cell + q] = r.plastic ? 1 : 0;
          return r.plastic;
        }
      };

      /**
       * Radial return at all Gauss points of all cells for displacement u.
       * Returns (plastic points) + (plastic cells << 32).
       */
      template <bool mean_dilatation, bool any_pressure_dependent, typename Geometry>
      Index64
      stress_update(const Geometry                  &geometry,
                    const Strided<const LocalIndex> &cell_nodes,
                    const PointHistory              &points,
                    const double                    *u,
                    const Index64                    n_cells)
      {
        Index64 counts = 0;
        const auto update_cell = KOKKOS_LAMBDA(const Index64 cell, Index64 &sum) {
          double                      e[3][3][4];
          typename Geometry::CellData g;
          load_cell_displacement(geometry, cell_nodes, cell, u, e, g);
          int    plastic_count = 0;
          double theta_bar     = 0;
          if constexpr (mean_dilatation)
            theta_bar = cell_mean_dilatation(geometry, g, e);
          for (int q = 0; q < 8; ++q)
            {
              double inv[3][3], eps[6];
              geometry.at(g, q, inv);
              strain_at_point(e, q, inv, eps);
              if constexpr (mean_dilatation)
                replace_dilatation(eps, theta_bar);
              plastic_count += points.template return_map<any_pressure_dependent>(cell, q, eps) ? 1 : 0;
            }
          points.cell_plastic[cell] = plastic_count > 0 ? 1 : 0;
          sum += plastic_count + (plastic_count > 0 ? (Index64(1) << 32) : 0);
        };
        static_assert(launches_light_weight<decltype(update_cell)>, "the functor must fit a kernel argument");
        Kokkos::parallel_reduce("plastix::radial_return", RangePolicy(0, n_cells), update_cell, counts);
        return counts;
      }

      /**
       * The same return map with eight threads per cell (one per Gauss
       * point) sharing the cell's values in team scratch memory: coalesced
       * access to the array-of-structures point data on GPUs.
       */
      template <bool mean_dilatation, bool any_pressure_dependent, typename Geometry>
      Index64
      stress_update_team(const Geometry                  &geometry,
                         const Strided<const LocalIndex> &cell_nodes,
                         const double                    *coordinates,
                         const PointHistory              &points,
                         const double                    *u,
                         const Index64                    n_cells)
      {
        constexpr int     C        = cells_per_team;
        // Values, coordinates and (B-bar) JxW and JxW div u of the 8 points, per cell.
        const std::size_t bytes    = sizeof(double) * (48 + 16) * C;
        const Index64     n_teams  = (n_cells + C - 1) / C;
        Index64           counts   = 0;
        const auto update_team = KOKKOS_LAMBDA(const TeamMember &team, Index64 &sum) {
          double *u_s   = static_cast<double *>(team.team_shmem().get_shmem(bytes));
          double *x_s   = u_s + 24 * C;
          double *V_s   = x_s + 24 * C;
          const Index64 first = static_cast<Index64>(team.league_rank()) * C;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 8 * C), [&](const int t) {
            const Index64 cell = first + t / 8;
            if (cell >= n_cells)
              return;
            const int     a    = t % 8;
            const Index64 node = cell_nodes(cell, a);
            for (int c = 0; c < 3; ++c)
              {
                u_s[3 * t + c] = u[3 * node + c];
                if (Geometry::needs_coordinates)
                  x_s[3 * t + c] = coordinates[3 * node + c];
              }
          });
          team.team_barrier();
          if (mean_dilatation)
            {
              Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 8 * C), [&](const int t) {
                const Index64 cell = first + t / 8;
                if (cell >= n_cells)
                  return;
                double e[3][3][4];
                vector_edge_differences(u_s + 24 * (t / 8), e);
                point_volume(geometry, cell, x_s + 24 * (t / 8), t % 8, e, V_s + 2 * t);
              });
              team.team_barrier();
            }
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 8 * C), [&](const int t) {
            const Index64 cell = first + t / 8;
            if (cell >= n_cells)
              return;
            const int     q  = t % 8;
            double        e[3][3][4];
            vector_edge_differences(u_s + 24 * (t / 8), e);
            double inv[3][3], eps[6];
            geometry.at_point(cell, x_s + 24 * (t / 8), q, inv);
            strain_at_point(e, q, inv, eps);
            if constexpr (mean_dilatation)
              replace_dilatation(eps, mean_dilatation_of_points(V_s + 16 * (t / 8)));
            points.template return_map<any_pressure_dependent>(cell, q, eps);
          });
          team.team_barrier();
          Index64 team_sum = 0;
          Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, C),
            [&](const int cl, Index64 &local) {
              const Index64 cell = first + cl;
              if (cell >= n_cells)
                return;
              int n = 0;
              for (int q = 0; q < 8; ++q)
                n += points.point_plastic[8 * cell + q];
              points.cell_plastic[cell] = n > 0 ? 1 : 0;
              local += n + (n > 0 ? (Index64(1) << 32) : 0);
            },
            team_sum);
          Kokkos::single(Kokkos::PerTeam(team), [&]() { sum += team_sum; });
        };
        static_assert(launches_light_weight<decltype(update_team)>, "the functor must fit a kernel argument");
        Kokkos::parallel_reduce("plastix::radial_return_team",
                                TeamPolicy(static_cast<int>(n_teams), on_device ? 8 * C : 1)
                                  .set_scratch_size(0, Kokkos::PerTeam(bytes)),
                                update_team,
                                counts);
        return counts;
      }

      /** Cell averages of stress, von Mises stress, alpha, plastic fraction, pressure. */
      template <typename Geometry>
      void
      average_cells(const Geometry              &geometry,
                    const Strided<const double> &trial,
                    const Strided<const double> &stress,
                    const std::uint8_t          *point_plastic,
                    double                      *out,
                    const Index64                n_cells)
      {
        for_range("plastix::cell_averages", n_cells, KOKKOS_LAMBDA(const Index64 cell) {
          typename Geometry::CellData g;
          geometry.load(cell, g);
          double sum[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, volume = 0;
          for (int q = 0; q < 8; ++q)
            {
              double       inv[3][3];
              const double JxW = geometry.at(g, q, inv);
              double       s[6];
              for (int k = 0; k < 6; ++k)
                s[k] = stress(cell, k * 8 + q);
              const double p = (s[0] + s[1] + s[2]) / 3.;
              double       dev[6];
              for (int k = 0; k < 6; ++k)
                dev[k] = s[k] - (k < 3 ? p : 0.);
              for (int k = 0; k < 6; ++k)
                sum[k] += JxW * s[k];
              sum[6] += JxW * square_root(1.5 * contract_symmetric(dev, dev));
              sum[7] += JxW * trial(cell, 6 * 8 + q);
              sum[8] += JxW * point_plastic[8 * cell + q];
              sum[9] += JxW * p;
              volume += JxW;
            }
          for (int k = 0; k < 10; ++k)
            out[10 * cell + k] = sum[k] / volume;
        });
      }
    } // namespace internal

    GaussPointState::GaussPointState(const DeviceOperator &op)
      : impl_(std::make_unique<Impl>())
    {
      Impl &s   = *impl_;
      s.op      = &op;
      s.n_cells = op.n_cells();
      const bool thread_per_cell = op.settings().thread_mapping != ThreadMapping::node;
      internal::default_strides(s.n_cells, 8 * internal::history_fields, s.history_stride_cell,
                                s.history_stride_entry, thread_per_cell);
      s.tangent_fields = op.impl().pressure_dependent ? internal::general_tangent_fields : internal::tangent_fields;
      internal::default_strides(s.n_cells, 8 * s.tangent_fields, s.tangent_stride_cell,
                                s.tangent_stride_entry, thread_per_cell);
      internal::default_strides(s.n_cells, 8 * internal::stress_fields, s.stress_stride_cell,
                                s.stress_stride_entry, thread_per_cell);
      const std::size_t n = s.n_cells;
      s.history_committed.resize(n * 8 * internal::history_fields, "plastic history");
      s.history_trial.resize(n * 8 * internal::history_fields, "plastic history (trial)");
      s.tangent.resize(n * 8 * s.tangent_fields, "consistent tangent");
      s.stress.resize(n * 8 * internal::stress_fields, "stress");
      s.cell_plastic.resize(n, "plastic cells");
      s.point_plastic.resize(8 * n, "plastic points");
      s.history_committed.set_zero();
      s.history_trial.set_zero();
      s.stress.set_zero();
      s.tangent.set_zero();
      s.cell_plastic.set_zero();
      s.point_plastic.set_zero();
    }

    GaussPointState::~GaussPointState() = default;

    internal::Strided<const float>
    GaussPointState::Impl::single_tangent_view() const
    {
      if (!tangent_single_current)
        {
          if (tangent_single.size() != tangent.size())
            tangent_single.resize(tangent.size(), "consistent tangent (single precision)");
          vector_operations::convert(tangent.size(), 1., tangent.data(), 0., tangent_single.data());
          tangent_single_current = true;
        }
      return {tangent_single.data(), tangent_stride_cell, tangent_stride_entry};
    }

    StressUpdateStatistics
    GaussPointState::update(const double *u, double *f_int)
    {
      Impl                          &s = *impl_;
      const DeviceOperator::Impl &d = s.op->impl();
      Index64                        counts = 0;
      const internal::PointHistory   points{d.materials.data(),
                                          d.cell_material.data(),
                                          s.history(s.history_committed),
                                          s.history(s.history_trial),
                                          s.stress_view(),
                                          s.tangent_view(),
                                          s.cell_plastic.data(),
                                          s.point_plastic.data()};
      s.tangent_single_current = false;
      internal::with_geometry(d, [&](const auto &geometry) {
       internal::with_element_formulation(d.settings.element_formulation, [&](auto mean_dilatation) {
        const auto run = [&](auto pressure_dependent) {
          constexpr bool bbar    = decltype(mean_dilatation)::value;
          constexpr bool general = decltype(pressure_dependent)::value;
          if (d.settings.thread_mapping == ThreadMapping::node)
            counts = internal::stress_update_team<bbar, general>(geometry, d.cell_node_table(), d.coordinates.data(),
                                                                 points, u, s.n_cells);
          else
            counts = internal::stress_update<bbar, general>(geometry, d.cell_node_table(), points, u, s.n_cells);
        };
        if (d.pressure_dependent)
          run(std::true_type{});
        else
          run(std::false_type{});
       });
      });
      if (f_int != nullptr)
        {
          cell_internal_force(f_int);
          // The springs' force S u, which depends on u, not on the stress.
          internal::add_sparse_term(d.springs, u, f_int, false);
          s.op->condense(f_int);
        }
      StressUpdateStatistics statistics;
      statistics.n_plastic_points = counts & 0xffffffffu;
      statistics.n_plastic_cells  = counts >> 32;
      return statistics;
    }

    void
    GaussPointState::internal_force(double *f_int) const
    {
      cell_internal_force(f_int);
      // Hanging-node rows onto the DoFs they depend on (C^T f_int).
      impl_->op->condense(f_int);
    }

    void
    GaussPointState::cell_internal_force(double *f_int) const
    {
      const Impl                    &s = *impl_;
      const DeviceOperator::Impl &d = s.op->impl();
      internal::with_geometry(d, [&](const auto &geometry) {
        using Geometry = std::decay_t<decltype(geometry)>;
        // The stored-stress law does not use the source values: any
        // read-only array of n_dofs entries serves (the coordinates).
        internal::with_element_formulation(d.settings.element_formulation, [&](auto mean_dilatation) {
          internal::launch_apply(
            d,
            internal::QuadratureCellOperator<Geometry, internal::StoredStressLaw, decltype(mean_dilatation)::value>{
              geometry, s.stored_stress_law()},
            d.coordinates.data(),
            f_int,
            false);
        });
      });
    }

    void
    GaussPointState::commit()
    {
      impl_->history_committed.copy_from(impl_->history_trial);
    }

    void
    GaussPointState::reset_trial()
    {
      impl_->history_trial.copy_from(impl_->history_committed);
    }

    void
    GaussPointState::get_committed_history(double *host_out) const
    {
      static_assert(history_values_per_cell == 8 * internal::history_fields, "history layout");
      const Impl &s = *impl_;
      internal::strided_to_host(s.history_committed, s.n_cells, history_values_per_cell, s.history_stride_cell,
                                s.history_stride_entry, host_out);
    }

    void
    GaussPointState::set_committed_history(const double *host_in)
    {
      Impl &s = *impl_;
      internal::strided_from_host(host_in, s.n_cells, history_values_per_cell, s.history_stride_cell,
                                  s.history_stride_entry, s.history_committed);
      s.history_trial.copy_from(s.history_committed);
    }

    void
    GaussPointState::cell_averages(double *host_out) const
    {
      const Impl                    &s = *impl_;
      const DeviceOperator::Impl &d = s.op->impl();
      DeviceArray<double>            out(10 * static_cast<std::size_t>(s.n_cells), "cell averages");
      internal::with_geometry(d, [&](const auto &geometry) {
        internal::average_cells(geometry,
                                s.history(s.history_trial),
                                s.stress_view(),
                                s.point_plastic.data(),
                                out.data(),
                                s.n_cells);
      });
      copy_to_host(host_out, out.data(), out.memory_consumption());
    }

    std::size_t
    GaussPointState::n_yielded_points() const
    {
      const Impl                 &s         = *impl_;
      const internal::Strided<double> committed = s.history(s.history_committed);
      Index64                     count     = 0;
      internal::reduce_range(
        "plastix::count_yielded",
        8 * s.n_cells,
        KOKKOS_LAMBDA(const Index64 i, Index64 &sum) { sum += committed(i / 8, 6 * 8 + i % 8) > 0 ? 1 : 0; },
        count);
      return count;
    }

    std::size_t
    GaussPointState::memory_consumption() const
    {
      const Impl &s = *impl_;
      return s.history_committed.memory_consumption() + s.history_trial.memory_consumption() +
             s.tangent.memory_consumption() + s.tangent_single.memory_consumption() + s.stress.memory_consumption() +
             s.cell_plastic.memory_consumption() + s.point_plastic.memory_consumption();
    }

    const GaussPointState::Impl &
    GaussPointState::impl() const
    {
      return *impl_;
    }

    bool
    j2_return_map(const MaterialConstants &material,
                  const double             plastic_strain[6],
                  const double             alpha,
                  const double             back_stress[6],
                  const double             strain[6],
                  double                   stress[6],
                  double                   tangent[36])
    {
      internal::ReturnMapResult r;
      internal::j2_return_map(material, strain, plastic_strain, alpha, back_stress, r);
      const double K = material.lambda + 2. / 3. * material.mu;
      for (int k = 0; k < 6; ++k)
        stress[k] = r.stress[k];
      // Column j: the stress increment of a unit strain increment in
      // component j (shear components enter twice through symmetry).
      for (int j = 0; j < 6; ++j)
        {
          double e[6] = {0, 0, 0, 0, 0, 0}, s[6];
          e[j]        = (j < 3) ? 1. : 0.5;
          internal::tangent_stress(K, r.a, r.b, r.n, e, s);
          for (int i = 0; i < 6; ++i)
            tangent[6 * i + j] = s[i];
        }
      return r.plastic;
    }

    PressureDependentPoint
    pressure_dependent_return_map(const MaterialConstants &material,
                                  const double             plastic_strain[6],
                                  const double             alpha,
                                  const double             initial_stress[6],
                                  const double             strain[6])
    {
      internal::PressureDependentResult r;
      internal::pressure_dependent_return_map(material, strain, plastic_strain, alpha, initial_stress, r);
      PressureDependentPoint p;
      for (int k = 0; k < 6; ++k)
        {
          p.stress[k]         = r.stress[k];
          p.plastic_strain[k] = r.plastic_strain[k];
          for (int j = 0; j < 6; ++j)
            p.tangent[6 * k + j] = j < 3 ? r.tangent[k][j] : 0.5 * r.tangent[k][j];
        }
      p.alpha  = r.alpha;
      p.region = r.region;
      return p;
    }
  } // namespace backend
} // namespace plastix

#include "firewall_check.h"
