// A sparse direct solver for small problems: the operator's matrix copied
// from the device and factorized by Trilinos Amesos (MUMPS or KLU) on the host.
#ifndef PLASTIX_SOLVERS_DIRECT_SOLVER_H
#define PLASTIX_SOLVERS_DIRECT_SOLVER_H

#include <deal.II/lac/solver_control.h>
#include <deal.II/lac/trilinos_solver.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>

#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/solvers/solver_types.h>

#include <memory>
#include <string>

namespace plastix
{
  /**
   * A x = b by a sparse LU factorization (Trilinos Amesos MUMPS or KLU,
   * DirectSolverPackage, through deal.II's TrilinosWrappers::SolverDirect)
   * of the matrix of a
   * MechanicsOperator: the matrix of vmult(), Dirichlet rows as unit rows,
   * the elastic matrix or the consistent tangent of the current plastic
   * state. The matrix comes from MechanicsOperator::copy_matrix(), so the
   * operator must use backend::Strategy::assembled (constraint lines of
   * hanging nodes and normal supports are condensed into the copy, C^T A C).
   * On several ranks Amesos gathers the matrix to one rank:
   * meant for problems of up to some 10^5 DoFs.
   */
  class DirectSolver
  {
  public:
    /** The solver with @p package (assert_available()). */
    explicit DirectSolver(DirectSolverPackage package = DirectSolverPackage::klu);

    /** Whether this build's Trilinos Amesos has @p package (KLU always). */
    static bool
    available(DirectSolverPackage package);

    /** Throws std::invalid_argument, naming @p package, unless available(). */
    static void
    assert_available(DirectSolverPackage package);

    /** MUMPS where available(), else KLU: the choice for DirectSolverPackage auto. */
    static DirectSolverPackage
    automatic_package();

    /** "Amesos MUMPS" or "Amesos KLU". */
    static std::string
    package_name(DirectSolverPackage package);

    /**
     * Copy the matrix of @p op to the host and factorize it. Throws
     * std::logic_error if @p op cannot hand out its matrix (another strategy)
     * and std::runtime_error if the factorization fails (a
     * singular matrix).
     */
    void
    initialize(const MechanicsOperator &op);

    /**
     * x = A^{-1} b with the factorization of the last initialize(); the
     * vectors are laid out like the operator's. Returns |b - A x|, computed
     * with the operator on the device. Throws std::runtime_error if the
     * solve fails or its result is not finite.
     */
    double
    solve(DeviceVector &x, const DeviceVector &b);

  private:
    DirectSolverPackage                                      package;
    const MechanicsOperator                                 *op = nullptr;
    dealii::TrilinosWrappers::SparseMatrix                   matrix;
    dealii::SolverControl                                    control;
    std::unique_ptr<dealii::TrilinosWrappers::SolverDirect> solver;
  };
} // namespace plastix

#endif
