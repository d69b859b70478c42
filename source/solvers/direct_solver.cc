// The sparse direct solver: Amesos MUMPS or KLU of the operator's assembled matrix.
#include <plastix/solvers/direct_solver.h>

#include <Amesos.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace plastix
{
  namespace
  {
    /** The name of @p package in Amesos' factory. */
    std::string
    amesos_solver_type(const DirectSolverPackage package)
    {
      return package == DirectSolverPackage::mumps ? "Amesos_Mumps" : "Amesos_Klu";
    }
  } // namespace

  DirectSolver::DirectSolver(const DirectSolverPackage package)
    : package(package)
  {
    assert_available(package);
  }

  bool
  DirectSolver::available(const DirectSolverPackage package)
  {
    Amesos factory;
    return factory.Query(amesos_solver_type(package));
  }

  void
  DirectSolver::assert_available(const DirectSolverPackage package)
  {
    if (!available(package))
      throw std::invalid_argument("plastix::DirectSolver: " + package_name(package) +
                                  " is not in this Trilinos build's Amesos");
  }

  DirectSolverPackage
  DirectSolver::automatic_package()
  {
    return available(DirectSolverPackage::mumps) ? DirectSolverPackage::mumps : DirectSolverPackage::klu;
  }

  std::string
  DirectSolver::package_name(const DirectSolverPackage package)
  {
    return "Amesos " + enum_name(package);
  }

  void
  DirectSolver::initialize(const MechanicsOperator &new_op)
  {
    op = &new_op;
    solver.reset();
    matrix.clear();
    new_op.copy_matrix(matrix);
    solver = std::make_unique<dealii::TrilinosWrappers::SolverDirect>(
      control, dealii::TrilinosWrappers::SolverDirect::AdditionalData(false, amesos_solver_type(package)));
    try
      {
        solver->initialize(matrix);
      }
    catch (const dealii::ExceptionBase &error)
      {
        solver.reset();
        std::ostringstream message;
        error.print_info(message);
        throw std::runtime_error("the sparse LU factorization (" + package_name(package) +
                                 ") failed: the matrix is singular "
                                 "(prescribed displacements that leave a rigid-body motion free?): " +
                                 message.str());
      }
  }

  double
  DirectSolver::solve(DeviceVector &x, const DeviceVector &b)
  {
    if (solver == nullptr)
      throw std::logic_error("plastix::DirectSolver::solve() before a successful initialize()");
    dealii::LinearAlgebra::distributed::Vector<double> x_host(op->get_partitioner()), b_host(op->get_partitioner());
    b.copy_to_host(b_host);
    try
      {
        solver->solve(x_host, b_host);
      }
    catch (const dealii::ExceptionBase &error)
      {
        std::ostringstream message;
        error.print_info(message);
        throw std::runtime_error("the sparse direct solve (" + package_name(package) + ") failed: " + message.str());
      }
    x.copy_from_host(x_host);
    DeviceVector residual;
    op->initialize_dof_vector(residual);
    op->vmult(residual, x);
    residual.sadd(-1., 1., b);
    const double norm = residual.l2_norm();
    if (!std::isfinite(norm))
      throw std::runtime_error("the sparse direct solve (" + package_name(package) +
                               ") gave a non-finite solution (a singular matrix?)");
    return norm;
  }
} // namespace plastix
