// Krylov solvers and preconditioners for the device operator, chosen in the
// .prm file; the iteration runs on DeviceVectors (no host copies).
#ifndef PLASTIX_DEALII_LINEAR_SOLVER_H
#define PLASTIX_DEALII_LINEAR_SOLVER_H

#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/precondition.h>

#include <plastix/dealii/device_vector.h>
#include <plastix/dealii/mechanics_operator.h>
#include <plastix/dealii/parameters.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace plastix
{
  /** A linear solve that did not reach its tolerance; the message says how far it got. */
  class SolverError : public std::runtime_error
  {
  public:
    using std::runtime_error::runtime_error;
  };

  /** What a solve did. */
  struct SolverStatistics
  {
    unsigned int iterations        = 0;
    double       initial_residual  = 0;
    double       final_residual    = 0;
    /** Seconds spent building the preconditioner (diagonal, eigenvalue estimate). */
    double setup_time = 0;
    /** Seconds spent iterating. */
    double solve_time = 0;
  };

  /**
   * Solves A x = b with the operator of the plastix device backend: deal.II
   * SolverCG or SolverGMRES, preconditioned by nothing, Jacobi (the inverse
   * matrix-free diagonal) or Chebyshev-Jacobi (deal.II
   * PreconditionChebyshev with the Jacobi inner preconditioner).
   */
  class LinearSolver
  {
  public:
    /** Choose solver and preconditioner. */
    explicit LinearSolver(const SolverParameters &parameters);

    /** (Re)build the preconditioner for @p op; call when the operator changed. */
    void
    initialize(const MechanicsOperator &op);

    /**
     * Solve op x = b starting from x. The tolerance is max(relative |b|,
     * absolute) unless @p tolerance_override > 0. Throws SolverError if the
     * iteration does not converge within the maximum number of iterations.
     */
    SolverStatistics
    solve(DeviceVector &x, const DeviceVector &b, double tolerance_override = 0.);

    /** "cg + jacobi" etc. */
    std::string
    name() const;

  private:
    SolverParameters                     parameters;
    const MechanicsOperator             *op = nullptr;
    using Jacobi    = dealii::DiagonalMatrix<DeviceVector>;
    using Chebyshev = dealii::PreconditionChebyshev<MechanicsOperator, DeviceVector, Jacobi>;
    std::shared_ptr<Jacobi>    jacobi;
    std::unique_ptr<Chebyshev> chebyshev;
    double                     setup_time = 0;
  };
} // namespace plastix

#endif
