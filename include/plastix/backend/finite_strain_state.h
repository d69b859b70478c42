// Kokkos-free interface of finite-strain hyperelasticity on the device: the
// deformation gradients at the Gauss points, the internal force and the
// consistent tangent that DeviceOperator applies (total Lagrangian).
#ifndef PLASTIX_BACKEND_FINITE_STRAIN_STATE_H
#define PLASTIX_BACKEND_FINITE_STRAIN_STATE_H

#include <plastix/backend/config.h>
#include <plastix/backend/device_operator.h>

#include <cstddef>
#include <memory>

namespace plastix
{
  namespace backend
  {
    /**
     * The linearisation point of a total-Lagrangian finite-strain operator:
     * the deformation gradient F = I + Grad u at every Gauss point of the
     * cells of a DeviceOperator, in device memory. While it exists the
     * operator applies the consistent tangent K(u) du = sum B^T (A(F) :
     * Grad du) JxW of the hyperelastic law of each cell's material
     * (compressible Mooney-Rivlin, neo-Hookean when
     * MaterialConstants::second_shear_modulus is 0; see
     * plastix/backend/hyperelasticity.h), with A = dP/dF, material and
     * geometric stiffness in one; it is symmetric. Materials with
     * StrainEnergy::hencky are elastoplastic in the logarithmic strain
     * space (has_history()): their A is the consistent derivative of the
     * return, symmetric where the small-strain tangent of the criterion is
     * (von Mises; Mohr-Coulomb and Drucker-Prager with psi = phi). The reference
     * configuration is the operator's mesh. A follower load's stiffness
     * is not part of it: the operator adds it (DeviceOperator::
     * set_load_stiffness()).
     */
    class PLASTIX_BACKEND_EXPORT FiniteStrainState
    {
    public:
      ~FiniteStrainState();

      FiniteStrainState(const FiniteStrainState &) = delete;
      FiniteStrainState &
      operator=(const FiniteStrainState &) = delete;

      /**
       * Make the total displacement @p u (local array with valid ghosts,
       * hanging-node rows distributed) the linearisation point: store F at
       * every Gauss point; then call DeviceOperator::update_tangent() so
       * that what the operator stores of the tangent follows (the
       * assembled matrix; a no-op for the matrix-free strategies). If
       * @p internal_force is not null it receives the internal force at
       * @p u as internal_force() computes it. Returns the number of local
       * Gauss points with det F <= 0 (inverted elements, where the stress
       * and the internal force are not finite).
       */
      std::size_t
      update(const double *u, double *internal_force);

      /**
       * The internal force C^T sum B^T P(I + Grad u) JxW at the total
       * displacement @p u on all local rows (Dirichlet ones too, for
       * reactions; hanging-node rows condensed, so zero), computed with the
       * operator's strategy, plus the force S u of boundary springs; the
       * caller adds ghost parts to their owners. Independent of the
       * linearisation point.
       */
      void
      internal_force(const double *u, double *internal_force) const;

      /**
       * The stored energy sum_q W(F_q) JxW_q (times the cells' stiffness
       * factors) of the local cells at the F of the last update(): the
       * strain energy of the displacement, without the boundary springs'.
       */
      double
      stored_energy() const;

      /**
       * Whether a material has StrainEnergy::hencky: then the state holds
       * the committed history of elastoplasticity in the logarithmic strain
       * space at every Gauss point (plastix/backend/material_constants.h),
       * the internal force and the tangent take the return from it (the
       * small-strain return of each Hencky material's criterion at E =
       * 1/2 ln C), and commit() moves it on. update() stores, beside F, the
       * second Piola-Kirchhoff stress and dS/dC of those points (42 values
       * per point), which the tangent applications read.
       */
      bool
      has_history() const;

      /**
       * Accept the last update()'s displacement as converged (the end of a
       * load step): the history of every Hencky point becomes that of the
       * return at the stored F. Returns the number of local points that
       * yield in it (0 without a Hencky material). The tangent stays that of
       * the last update() (the consistent tangent of the step, as a
       * predictor for the next one), until the next update().
       */
      std::size_t
      commit();

      /** Local Gauss points whose committed accumulated plastic strain is positive (0 without a history). */
      std::size_t
      n_yielded_points() const;

      /** Values of the history of one cell: 13 fields (plastic strain 6, accumulated plastic strain, back or initial stress 6) x 8 Gauss points. */
      static constexpr unsigned int history_values_per_cell = 13 * 8;

      /**
       * Copy the committed history to @p host_out (has_history() only):
       * history_values_per_cell values per cell, field f of point q of cell
       * c at c * history_values_per_cell + f * 8 + q.
       */
      void
      get_committed_history(double *host_out) const;

      /** Set the committed history from @p host_in (layout of get_committed_history(); has_history() only). */
      void
      set_committed_history(const double *host_in);

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
       * State of the undeformed body (F = I everywhere) for the cells of
       * @p op: made by DeviceOperator::create_finite_strain_state() only, so
       * that the operator owns it.
       */
      explicit FiniteStrainState(const DeviceOperator &op);

      std::unique_ptr<Impl> impl_;
    };
  } // namespace backend
} // namespace plastix

#endif
