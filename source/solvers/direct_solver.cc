// The sparse direct solver: Amesos KLU of the operator's assembled matrix.
#include <plastix/solvers/direct_solver.h>

#include <cmath>
#include <sstream>

namespace plastix
{
  void
  DirectSolver::initialize(const MechanicsOperator &new_op)
  {
    op = &new_op;
    solver.reset();
    matrix.clear();
    new_op.copy_matrix(matrix);
    solver = std::make_unique<dealii::TrilinosWrappers::SolverDirect>(
      control, dealii::TrilinosWrappers::SolverDirect::AdditionalData(false, "Amesos_Klu"));
    try
      {
        solver->initialize(matrix);
      }
    catch (const dealii::ExceptionBase &error)
      {
        solver.reset();
        std::ostringstream message;
        error.print_info(message);
        throw std::runtime_error("the sparse LU factorization (Amesos KLU) failed: the matrix is singular "
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
        throw std::runtime_error("the sparse direct solve (Amesos KLU) failed: " + message.str());
      }
    x.copy_from_host(x_host);
    DeviceVector residual;
    op->initialize_dof_vector(residual);
    op->vmult(residual, x);
    residual.sadd(-1., 1., b);
    const double norm = residual.l2_norm();
    if (!std::isfinite(norm))
      throw std::runtime_error("the sparse direct solve (Amesos KLU) gave a non-finite solution (a singular matrix?)");
    return norm;
  }
} // namespace plastix
