// deal.II-facing plasticity state on the device (J2, Mohr-Coulomb, Drucker-Prager).
#ifndef PLASTIX_CORE_PLASTICITY_STATE_H
#define PLASTIX_CORE_PLASTICITY_STATE_H

#include <deal.II/base/point.h>
#include <deal.II/base/symmetric_tensor.h>
#include <deal.II/dofs/dof_handler.h>

#include <plastix/backend/gauss_point_state.h>
#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>

#include <functional>
#include <vector>

namespace plastix
{
  /** Global counts of a stress update (summed over ranks). */
  struct StressUpdateStatistics
  {
    unsigned long long n_plastic_points = 0;
    unsigned long long n_plastic_cells  = 0;
  };

  /**
   * The J2 plasticity history of every Gauss point of a MechanicsOperator,
   * on the device (backend::GaussPointState). The operator owns it: it is
   * made by MechanicsOperator::enable_plasticity() and reached through
   * MechanicsOperator::plasticity(); it ends with disable_plasticity(), a
   * reinit() or the operator. While it exists, the operator is the
   * consistent tangent at the state of the last update() (elastic where
   * points are elastic; MechanicsOperator::use_tangent() switches).
   * @code
   * plastix::PlasticityState &state = op.enable_plasticity();
   * state.update(u, internal_force); // stress, f_int and the tangent at u
   * @endcode
   */
  class PlasticityState
  {
  public:
    PlasticityState(const PlasticityState &) = delete;
    PlasticityState &
    operator=(const PlasticityState &) = delete;

    /**
     * Radial return for the total displacement @p u (ghosts are updated
     * here) from the committed history; the tangent of the operator follows.
     * @p internal_force receives f_int = sum B^T sigma on all DoFs
     * (constrained ones hold the reactions). The counts returned are those
     * of all ranks (collective).
     */
    StressUpdateStatistics
    update(const DeviceVector &u, DeviceVector &internal_force);

    /** Accept the trial state (converged load step). */
    void
    commit();

    /** Return to the committed state (failed load step). */
    void
    reset_trial();

    /**
     * Averages over the Gauss points of each locally owned cell (order of the
     * locally owned active cells), 10 values per cell: stress xx, yy, zz, yz,
     * xz, xy; von Mises stress; equivalent plastic strain; fraction of
     * plastic points; hydrostatic stress.
     */
    std::vector<double>
    cell_averages() const;

    /**
     * The committed history of the locally owned cells (order of the locally
     * owned active cells), backend::GaussPointState::history_values_per_cell
     * values per cell: what a checkpoint stores.
     */
    std::vector<double>
    committed_history() const;

    /** Set the committed and trial history from values laid out as committed_history() returns them. */
    void
    set_committed_history(const std::vector<double> &history);

    /**
     * Set the initial (in-situ) stress of the Gauss points of the locally
     * owned cells whose material is Mohr-Coulomb or Drucker-Prager to
     * @p initial_stress at the point (stresses positive in tension), in the
     * committed and the trial state: the trial stress of every later update
     * is sigma_0 + C (eps - eps_p). @p dof_handler is the one the operator
     * was built on. Points of von Mises materials keep their state and take
     * no initial stress. Throws std::invalid_argument on every rank, naming
     * a point, if a stress is not finite, lies outside the yield surface of
     * its material, or is not zero at a point of a von Mises material.
     */
    void
    set_initial_stress(const dealii::DoFHandler<3>                                                  &dof_handler,
                       const std::function<dealii::SymmetricTensor<2, 3>(const dealii::Point<3> &)> &initial_stress);

    /** Gauss points (all ranks) with positive committed equivalent plastic strain. */
    unsigned long long
    n_yielded_points() const;

    /** The device state. */
    const backend::GaussPointState &
    backend_state() const;

  private:
    friend class MechanicsOperator;

    /** The state of @p op over its device state @p state (MechanicsOperator::enable_plasticity()). */
    PlasticityState(MechanicsOperator &op, backend::GaussPointState &state);

    MechanicsOperator        &op;
    backend::GaussPointState &state;
  };
} // namespace plastix

#endif
