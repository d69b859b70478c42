// deal.II-facing finite strain on the device (total Lagrangian; compressible
// Mooney-Rivlin and neo-Hookean hyperelasticity, elastoplasticity in the
// logarithmic strain space).
#ifndef PLASTIX_CORE_FINITE_STRAIN_STATE_H
#define PLASTIX_CORE_FINITE_STRAIN_STATE_H

#include <deal.II/base/point.h>
#include <deal.II/base/symmetric_tensor.h>
#include <deal.II/dofs/dof_handler.h>

#include <plastix/backend/finite_strain_state.h>
#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>

#include <functional>
#include <vector>

namespace plastix
{
  /**
   * The linearisation point of a finite-strain MechanicsOperator: the
   * deformation gradient F = I + Grad u at every Gauss point, on the device
   * (backend::FiniteStrainState). The operator owns it: it is made by
   * MechanicsOperator::enable_finite_strain() and reached through
   * MechanicsOperator::finite_strain(); it ends with
   * disable_finite_strain(), a reinit() or the operator. While it exists
   * the operator is the consistent tangent (material and geometric
   * stiffness, symmetric) at the displacement of the last update(). The
   * strain energy per reference volume of a material (lambda, mu from
   * make_material(), mu2 = MaterialConstants::second_shear_modulus) is
   *   W = (mu - mu2) / 2 (I1 - 3) + mu2 / 2 (I2 - 3) - (mu + mu2) ln J
   *       + (lambda - 2 mu2) / 2 (ln J)^2,
   * whose small-strain limit is linear elasticity with lambda and mu. A
   * material with backend::StrainEnergy::hencky is elastoplastic in the
   * logarithmic strain space instead (its yield criterion's small-strain
   * return at E = 1/2 ln C; elastic Hencky without yield): its history
   * moves on with commit() at the end of each load step.
   * @code
   * plastix::FiniteStrainState &state = op.enable_finite_strain();
   * state.update(u, internal_force); // F at u, f_int(u), the tangent at u
   * @endcode
   */
  class FiniteStrainState
  {
  public:
    FiniteStrainState(const FiniteStrainState &) = delete;
    FiniteStrainState &
    operator=(const FiniteStrainState &) = delete;

    /**
     * Make the total displacement @p u (ghosts are updated here) the
     * linearisation point of the operator's tangent; @p internal_force
     * receives f_int(u) = sum B^T P JxW on all DoFs (constrained ones hold
     * the reactions). Returns the number of Gauss points of all ranks with
     * det F <= 0 (inverted elements; then @p internal_force is not finite).
     * Collective.
     */
    unsigned long long
    update(const DeviceVector &u, DeviceVector &internal_force);

    /**
     * f_int(u) as update() computes it, without moving the linearisation
     * point (a line search's trial residual). Collective.
     */
    void
    internal_force(const DeviceVector &u, DeviceVector &internal_force) const;

    /**
     * Accept the displacement of the last update() as converged (the end of
     * a load step): the history of the points of Hencky materials
     * (elastoplasticity in the logarithmic strain space,
     * backend::FiniteStrainState::has_history()) moves on to it; nothing to
     * do for the hyperelastic laws. Returns the number of Gauss points of
     * all ranks that yield in the step. Collective.
     */
    unsigned long long
    commit();

    /**
     * The committed history of this rank's cells
     * (backend::FiniteStrainState::get_committed_history()'s layout, the
     * locally owned cells in the order of the active cells); empty without
     * a Hencky material.
     */
    std::vector<double>
    committed_history() const;

    /**
     * Set the committed history from values laid out as committed_history()
     * returns them (a checkpoint's); empty: nothing to set (no Hencky
     * material). The tangent data follow it; the linearisation point stays.
     */
    void
    set_committed_history(const std::vector<double> &history);

    /**
     * Set the initial (in-situ) stress of the Gauss points of the locally
     * owned cells whose material is a Hencky material with the Mohr-Coulomb
     * or Drucker-Prager criterion to @p initial_stress at the point
     * (stresses positive in tension), in the committed history: the stress
     * conjugate to the logarithmic strain of every later update() is
     * sigma_0 + C (E - E_p), so that at u = 0 it is sigma_0 (with the first
     * Piola-Kirchhoff stress and the Cauchy stress equal to it there).
     * @p dof_handler is the one the operator was built on. Throws
     * std::invalid_argument on every rank, naming a point, if a stress is
     * not finite, lies outside the yield surface of its material, or is not
     * zero at a point of a von Mises material or of a material that is not
     * Hencky (a hyperelastic law has no history to hold it), or if no
     * material is Hencky and a stress is not zero. Collective.
     */
    void
    set_initial_stress(const dealii::DoFHandler<3>                                                  &dof_handler,
                       const std::function<dealii::SymmetricTensor<2, 3>(const dealii::Point<3> &)> &initial_stress);

    /** The number of Gauss points of all ranks that yielded in the step of the last commit() (0 before one). */
    unsigned long long
    plastic_points_of_last_step() const;

    /**
     * The number of Gauss points of all ranks whose committed accumulated
     * plastic strain is positive (0 without a Hencky material). Collective.
     */
    unsigned long long
    n_yielded_points() const;

    /**
     * The strain energy int W(F) dV of all ranks' cells at the displacement
     * of the last update() (the boundary springs' energy not included; the
     * elastic energy of E - E_p at Hencky points). Collective.
     */
    double
    stored_energy() const;

    /** The device state. */
    const backend::FiniteStrainState &
    backend_state() const;

  private:
    friend class MechanicsOperator;

    /** The state of @p op over its device state @p state (MechanicsOperator::enable_finite_strain()). */
    FiniteStrainState(MechanicsOperator &op, backend::FiniteStrainState &state);

    MechanicsOperator          &op;
    backend::FiniteStrainState &state;
    /** What the last commit() returned. */
    unsigned long long plastic_points_committed = 0;
  };
} // namespace plastix

#endif
