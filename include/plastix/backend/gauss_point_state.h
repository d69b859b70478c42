// Kokkos-free interface of J2 (von Mises) plasticity on the device: the
// quadrature-point state, the radial-return stress update, the internal force
// and the consistent tangent used by DeviceOperator.
#ifndef PLASTIX_BACKEND_GAUSS_POINT_STATE_H
#define PLASTIX_BACKEND_GAUSS_POINT_STATE_H

#include <plastix/backend/config.h>
#include <plastix/backend/device_operator.h>

#include <cstddef>
#include <memory>

namespace plastix
{
  namespace backend
  {
    /** Counts from one stress update. */
    struct StressUpdateStatistics
    {
      /** Gauss points that yielded in this update (local). */
      std::size_t n_plastic_points = 0;
      /** Cells with at least one such point (local). */
      std::size_t n_plastic_cells = 0;
    };

    /**
     * History of small-strain J2 plasticity with linear isotropic and
     * kinematic (Prager) hardening at every Gauss point of the cells of a
     * DeviceOperator: plastic strain, equivalent plastic strain and back
     * stress, in a committed copy (last converged load step) and a trial
     * copy (current Newton iterate), plus the trial stress and the data of
     * the consistent tangent. Everything stays in device memory.
     *
     * Backward-Euler radial return (closed form for linear hardening):
     *   eta_tr = 2G dev(eps - eps_p_n) - beta_n,  q_tr = sqrt(3/2) |eta_tr|
     *   f = q_tr - (sigma_y + H alpha_n);  elastic if f <= 0, else
     *   dgamma = f / (3G + H + H_kin),  n = eta_tr / |eta_tr|
     *   eps_p = eps_p_n + sqrt(3/2) dgamma n,  alpha = alpha_n + dgamma,
     *   beta = beta_n + sqrt(2/3) H_kin dgamma n,
     *   sigma = K tr(eps) I + 2G dev(eps - eps_p)
     * and consistent tangent
     *   D = K I(x)I + 2G (1 - 3G dgamma/q_tr) I_dev
     *       + 6G^2 (dgamma/q_tr - 1/(3G + H + H_kin)) n(x)n.
     */
    class PLASTIX_BACKEND_EXPORT GaussPointState
    {
    public:
      ~GaussPointState();

      GaussPointState(const GaussPointState &) = delete;
      GaussPointState &
      operator=(const GaussPointState &) = delete;

      /**
       * Radial return at every Gauss point for the total displacement @p u
       * (local array with valid ghosts, hanging-node rows distributed) from
       * the committed history: writes the trial history, stress and
       * tangent. If @p internal_force is not null, it receives the local
       * contributions of f_int = C^T sum B^T sigma JxW on all rows (Dirichlet
       * ones too, for reactions; hanging-node rows condensed, so zero),
       * computed with the operator's strategy; the caller adds ghost parts to
       * their owners.
       */
      StressUpdateStatistics
      update(const double *u, double *internal_force);

      /**
       * The cells' internal force C^T sum B^T sigma JxW of the current trial
       * stress (as in update()). Without the force S u of boundary springs
       * (MeshData::spring_rows), which update() adds: it depends on u, not
       * on the stress.
       */
      void
      internal_force(double *internal_force) const;

      /** Accept the trial history as converged (end of a load step). */
      void
      commit();

      /** Discard the trial history (a failed load step will be retried). */
      void
      reset_trial();

      /**
       * Per-cell averages over the Gauss points of the trial state, 10
       * values per cell: stress xx, yy, zz, yz, xz, xy; von Mises stress;
       * equivalent plastic strain; fraction of Gauss points that are plastic
       * (yielded in the last update); hydrostatic stress. Copied to
       * @p host_out (10 n_cells values).
       */
      void
      cell_averages(double *host_out) const;

      /** Values of the history of one cell: 13 fields (plastic strain 6, equivalent plastic strain, back stress 6) x 8 Gauss points. */
      static constexpr unsigned int history_values_per_cell = 13 * 8;

      /**
       * Copy the committed history to @p host_out: history_values_per_cell
       * values per cell in the operator's cell order, value field * 8 + q
       * of cell c at c * history_values_per_cell + field * 8 + q.
       */
      void
      get_committed_history(double *host_out) const;

      /**
       * Set the committed and the trial history from @p host_in (layout of
       * get_committed_history()), e.g. when a run continues from a checkpoint.
       */
      void
      set_committed_history(const double *host_in);

      /** Number of Gauss points whose committed equivalent plastic strain is positive. */
      std::size_t
      n_yielded_points() const;

      /** Device memory held (bytes). */
      std::size_t
      memory_consumption() const;

      struct Impl;

      /** Internal data, for the operator kernels. */
      const Impl &
      impl() const;

    private:
      friend class DeviceOperator;

      /**
       * State for the cells of @p op, all elastic and stress free: made by
       * DeviceOperator::create_plasticity_state() only, so that the
       * operator owns it.
       */
      explicit GaussPointState(const DeviceOperator &op);

      /** The cells' part of internal_force(), before the condensation of hanging-node rows. */
      void
      cell_internal_force(double *internal_force) const;

      std::unique_ptr<Impl> impl_;
    };

    /**
     * The return map of one Gauss point evaluated on the host with the same
     * code the device runs, for tests: from the committed history
     * (@p plastic_strain[6], @p alpha, @p back_stress[6]) and the total
     * strain @p strain[6] (tensor components xx, yy, zz, yz, xz, xy) compute
     * @p stress[6] and the consistent tangent @p tangent[36] with
     * d stress_i = sum_j tangent[6 i + j] d strain_j (tensor components).
     * Returns true if the point yields.
     */
    PLASTIX_BACKEND_EXPORT bool
    j2_return_map(const MaterialConstants &material,
                  const double             plastic_strain[6],
                  double                   alpha,
                  const double             back_stress[6],
                  const double             strain[6],
                  double                   stress[6],
                  double                   tangent[36]);

    /** Result of pressure_dependent_return_map(). */
    struct PressureDependentPoint
    {
      /** Stress (tensor components xx, yy, zz, yz, xz, xy). */
      double       stress[6];
      /** Updated plastic strain (tensor components). */
      double       plastic_strain[6];
      /** Updated accumulated plastic strain (the cohesion hardening variable). */
      double       alpha;
      /**
       * Consistent tangent, d stress_i = sum_j tangent[6 i + j] d strain_j
       * with the columns of j2_return_map() (column j >= 3: a unit
       * engineering shear strain). Not symmetric for psi != phi.
       */
      double       tangent[36];
      /** Where the return ended. */
      ReturnRegion region;
    };

    /**
     * The Mohr-Coulomb or Drucker-Prager return map (by
     * material.criterion) of one Gauss point evaluated on the host with the
     * code the device runs, for tests: the trial stress is
     * @p initial_stress + C (@p strain - @p plastic_strain), the cohesion
     * cohesion + cohesion_hardening * @p alpha.
     */
    PLASTIX_BACKEND_EXPORT PressureDependentPoint
    pressure_dependent_return_map(const MaterialConstants &material,
                                  const double             plastic_strain[6],
                                  double                   alpha,
                                  const double             initial_stress[6],
                                  const double             strain[6]);
  } // namespace backend
} // namespace plastix

#endif
