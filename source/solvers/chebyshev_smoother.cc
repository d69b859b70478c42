// The Chebyshev-Jacobi smoother with fused steps (ChebyshevSmoother).
// deal.II's eigenvalue estimate (SolverCG) zeroes constrained entries through
// AffineConstraints' templates, which must be instantiated for device vectors here.
#include <deal.II/lac/affine_constraints.templates.h>

#include <plastix/solvers/chebyshev_smoother.h>

#include <cmath>
#include <stdexcept>

namespace plastix
{
  template <typename Number>
  void
  ChebyshevSmoother<Number>::initialize(const MechanicsOperator &matrix_in, const AdditionalData &data_in)
  {
    if (data_in.preconditioner == nullptr)
      throw std::invalid_argument("ChebyshevSmoother: no inverse diagonal given");
    reference.initialize(matrix_in, data_in);
    matrix            = &matrix_in;
    data              = data_in;
    eigenvalues_known = false;
  }

  template <typename Number>
  typename ChebyshevSmoother<Number>::Reference::EigenvalueInformation
  ChebyshevSmoother<Number>::estimate_eigenvalues(const VectorType &src)
  {
    const auto info = reference.estimate_eigenvalues(src);
    // PreconditionChebyshev::estimate_eigenvalues() of deal.II 9.4 to 9.6,
    // first-kind polynomial: the interval [alpha, max] with alpha the
    // largest eigenvalue over the smoothing range.
    const double alpha = data.smoothing_range > 1. ?
                           info.max_eigenvalue_estimate / data.smoothing_range :
                           std::min(0.9 * info.max_eigenvalue_estimate, info.min_eigenvalue_estimate);
    delta             = (info.max_eigenvalue_estimate - alpha) * 0.5;
    theta             = (info.max_eigenvalue_estimate + alpha) * 0.5;
    degree            = info.degree;
    eigenvalues_known = true;
    solution_old.reinit(src);
    temp.reinit(src, true);
    return info;
  }

  template <typename Number>
  void
  ChebyshevSmoother<Number>::iterate(const unsigned int iteration_index,
                                     const double       factor1,
                                     const double       factor2,
                                     const VectorType  &rhs,
                                     VectorType        &solution) const
  {
    const auto &inverse_diagonal = data.preconditioner->get_vector();
    if (iteration_index > 0 && matrix->chebyshev_step(solution,
                                                      iteration_index == 1 ? nullptr : &solution_old,
                                                      rhs,
                                                      inverse_diagonal,
                                                      factor1,
                                                      factor2,
                                                      iteration_index == 1 ? temp : solution_old))
      {
        ++fused_steps;
        // The vector rotation of deal.II's update: x_old <- x, x <- the new iterate.
        if (iteration_index == 1)
          {
            solution.swap(temp);
            solution_old.swap(temp);
          }
        else
          solution.swap(solution_old);
        return;
      }
    if (iteration_index > 0)
      matrix->vmult(temp, solution);
    device::vector_updates(
      rhs, *data.preconditioner, iteration_index, factor1, factor2, solution_old, temp, temp, solution);
  }

  template <typename Number>
  void
  ChebyshevSmoother<Number>::run(const unsigned int first_index, VectorType &solution, const VectorType &rhs) const
  {
    fused_steps = 0;
    if (!eigenvalues_known)
      {
        // No estimate_eigenvalues() yet: deal.II's smoother estimates them and iterates.
        if (first_index == 0)
          reference.vmult(solution, rhs);
        else
          reference.step(solution, rhs);
        return;
      }
    iterate(first_index, 0., 1. / theta, rhs, solution);
    if (degree < 2 || std::abs(delta) < 1e-40)
      return;
    double rhok = delta / theta, sigma = theta / delta;
    for (unsigned int k = 0; k < degree - 1; ++k)
      {
        const double rhokp   = 1. / (2. * sigma - rhok);
        const double factor1 = rhokp * rhok, factor2 = 2. * rhokp / delta;
        rhok                 = rhokp;
        iterate(first_index + k + 1, factor1, factor2, rhs, solution);
      }
  }

  template <typename Number>
  void
  ChebyshevSmoother<Number>::vmult(VectorType &dst, const VectorType &src) const
  {
    run(0, dst, src);
  }

  template <typename Number>
  void
  ChebyshevSmoother<Number>::Tvmult(VectorType &dst, const VectorType &src) const
  {
    vmult(dst, src);
  }

  template <typename Number>
  void
  ChebyshevSmoother<Number>::step(VectorType &dst, const VectorType &src) const
  {
    run(1, dst, src);
  }

  template <typename Number>
  void
  ChebyshevSmoother<Number>::Tstep(VectorType &dst, const VectorType &src) const
  {
    step(dst, src);
  }

  template <typename Number>
  void
  ChebyshevSmoother<Number>::clear()
  {
    reference.clear();
    matrix            = nullptr;
    eigenvalues_known = false;
    solution_old = VectorType();
    temp         = VectorType();
  }

  template class ChebyshevSmoother<double>;
  template class ChebyshevSmoother<float>;
} // namespace plastix
