// Chebyshev-Jacobi smoother of the multigrid levels: deal.II's
// PreconditionChebyshev, with each step's vector update fused into the
// operator's application where the operator allows it.
#ifndef PLASTIX_SOLVERS_CHEBYSHEV_SMOOTHER_H
#define PLASTIX_SOLVERS_CHEBYSHEV_SMOOTHER_H

#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/precondition.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>

namespace plastix
{
  /**
   * The Chebyshev-Jacobi iteration of deal.II's PreconditionChebyshev
   * (polynomial of the first kind: the same eigenvalue estimate, degree and
   * coefficients) for a MechanicsOperator on device vectors, usable as the
   * relaxation of deal.II's MGSmootherRelaxation.
   *
   * deal.II applies the operator into a temporary vector and then updates
   * the iterate in a second pass (fused for deal.II's own host vectors
   * only). Where the operator can (MechanicsOperator::chebyshev_step():
   * the dbd structured lattice on one process, all the level operators of
   * a generated box), each step here is one kernel: the update is computed
   * from the operator's row sums as they are formed, and the product is
   * never stored. That saves a kernel launch and two vector passes per
   * step, which on the small levels of a V-cycle is most of their cost.
   * Elsewhere it is deal.II's PreconditionChebyshev unchanged.
   */
  template <typename Number>
  class ChebyshevSmoother : public dealii::Subscriptor
  {
  public:
    using VectorType     = device::Vector<Number>;
    using Preconditioner = dealii::DiagonalMatrix<VectorType>;
    /** deal.II's smoother: the eigenvalue estimate, and the iteration where nothing fuses. */
    using Reference      = dealii::PreconditionChebyshev<MechanicsOperator, VectorType, Preconditioner>;
    using AdditionalData = typename Reference::AdditionalData;

    /**
     * The operator and settings, as for PreconditionChebyshev; @p data's
     * preconditioner must be the inverse diagonal (a DiagonalMatrix).
     */
    void
    initialize(const MechanicsOperator &matrix, const AdditionalData &data);

    /**
     * Estimate the eigenvalues with deal.II's Lanczos (CG) iteration from
     * @p src and fix the polynomial; otherwise the first vmult() or step()
     * does this, through PreconditionChebyshev, and no step fuses.
     */
    typename Reference::EigenvalueInformation
    estimate_eigenvalues(const VectorType &src);

    /** dst = p(A) src: the Chebyshev polynomial from a zero initial guess. */
    void
    vmult(VectorType &dst, const VectorType &src) const;

    /** The same (the operator is symmetric). */
    void
    Tvmult(VectorType &dst, const VectorType &src) const;

    /** One application of the iteration from the current @p dst, right-hand side @p src. */
    void
    step(VectorType &dst, const VectorType &src) const;

    /** The same (the operator is symmetric). */
    void
    Tstep(VectorType &dst, const VectorType &src) const;

    /** Release the operator and vectors. */
    void
    clear();

    /** Steps of the last vmult() or step() that ran fused into the operator (0 if none could). */
    unsigned int
    n_fused_steps() const
    {
      return fused_steps;
    }

  private:
    /**
     * Step @p iteration_index of PreconditionChebyshev's loop (0: from
     * zero, 1: first step from the iterate, larger: three-term recurrence).
     */
    void
    iterate(unsigned int      iteration_index,
            double            factor1,
            double            factor2,
            const VectorType &rhs,
            VectorType       &solution) const;

    /**
     * The polynomial from step @p first_index on (0: vmult(), 1: step());
     * deal.II's vmult() or step() before estimate_eigenvalues().
     */
    void
    run(unsigned int first_index, VectorType &solution, const VectorType &rhs) const;

    Reference                reference;
    const MechanicsOperator *matrix = nullptr;
    AdditionalData           data;
    bool                     eigenvalues_known = false;
    unsigned int             degree            = 0;
    /** Centre and half width of the eigenvalue interval the polynomial damps. */
    double                   theta = 1., delta = 1.;
    mutable VectorType       solution_old, temp;
    mutable unsigned int     fused_steps = 0;
  };
} // namespace plastix

#endif
