// Belos traits for DeviceMultiVector / BelosOperator and the solve driver.
//
// The only deal.II-side translation unit that includes Belos: Belos' headers
// bring Teuchos_ScalarTraits.hpp and with it Trilinos' own Kokkos 3.x headers
// (the same Kokkos that deal.II's Sacado brings into every deal.II unit; no
// device Kokkos is involved). The firewall check tolerates Kokkos reached
// through Belos headers for that reason (tests/scripts/firewall.sh).
#include <deal.II/base/mpi.h>

#include <plastix/backend/device.h>
#include <plastix/backend/vector_operations.h>
#include <plastix/solvers/belos_solver.h>

#include <BelosLinearProblem.hpp>
#include <BelosMVOPTester.hpp>
#include <BelosMinresSolMgr.hpp>
#include <BelosMultiVecTraits.hpp>
#include <BelosOperatorTraits.hpp>
#include <BelosOutputManager.hpp>
#include <BelosPseudoBlockCGSolMgr.hpp>
#include <BelosPseudoBlockGmresSolMgr.hpp>

#include <cmath>
#include <ostream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace plastix
{
  namespace ops = backend::vector_operations;

  DeviceMultiVector::DeviceMultiVector(
    const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &partitioner,
    const unsigned int                                                 n_vectors)
  {
    columns.reserve(n_vectors);
    for (unsigned int i = 0; i < n_vectors; ++i)
      columns.push_back(std::make_shared<DeviceVector>(partitioner));
  }

  DeviceMultiVector::DeviceMultiVector(std::vector<std::shared_ptr<DeviceVector>> columns)
    : columns(std::move(columns))
  {}

  DeviceMultiVector
  DeviceMultiVector::view_of(DeviceVector &vector)
  {
    // Non-owning: the caller keeps the vector alive for the view's lifetime.
    return DeviceMultiVector({std::shared_ptr<DeviceVector>(&vector, [](DeviceVector *) {})});
  }

  DeviceMultiVector
  DeviceMultiVector::view(const std::vector<int> &indices) const
  {
    std::vector<std::shared_ptr<DeviceVector>> selected;
    selected.reserve(indices.size());
    for (const int i : indices)
      {
        if (i < 0 || static_cast<unsigned int>(i) >= columns.size())
          throw std::out_of_range("DeviceMultiVector::view: column " + std::to_string(i) + " of " +
                                  std::to_string(columns.size()));
        selected.push_back(columns[i]);
      }
    return DeviceMultiVector(std::move(selected));
  }

  unsigned int
  DeviceMultiVector::n_vectors() const
  {
    return columns.size();
  }

  DeviceVector &
  DeviceMultiVector::operator[](const unsigned int i) const
  {
    return *columns[i];
  }

  const std::shared_ptr<DeviceVector> &
  DeviceMultiVector::column(const unsigned int i) const
  {
    return columns[i];
  }

  const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &
  DeviceMultiVector::get_partitioner() const
  {
    if (columns.empty())
      throw std::logic_error("DeviceMultiVector::get_partitioner: no columns");
    return columns.front()->get_partitioner();
  }

  namespace internal
  {
    /** Indices of a Teuchos range. */
    std::vector<int>
    indices_of(const Teuchos::Range1D &range)
    {
      std::vector<int> indices(range.size());
      for (int i = 0; i < range.size(); ++i)
        indices[i] = range.lbound() + i;
      return indices;
    }

    /** Sum @p values over the ranks of @p partitioner's communicator in one reduction. */
    void
    sum_over_ranks(std::vector<double> &values, const DeviceMultiVector &mv)
    {
      if (values.empty())
        return;
      const MPI_Comm communicator = mv.get_partitioner()->get_mpi_communicator();
      if (dealii::Utilities::MPI::n_mpi_processes(communicator) > 1)
        {
          const int ierr = MPI_Allreduce(MPI_IN_PLACE, values.data(), values.size(), MPI_DOUBLE, MPI_SUM, communicator);
          AssertThrowMPI(ierr);
        }
    }
  } // namespace internal
} // namespace plastix

namespace Belos
{
  /**
   * Belos' multi-vector interface for plastix::DeviceMultiVector: all vector
   * arithmetic runs on the device (DeviceVector operations, backend kernels);
   * the small dense matrices of MvTimesMatAddMv/MvTransMv live on the host.
   */
  template <>
  class MultiVecTraits<double, plastix::DeviceMultiVector>
  {
  public:
    using MV           = plastix::DeviceMultiVector;
    using DenseMatrix  = Teuchos::SerialDenseMatrix<int, double>;
    using VectorPtr    = std::shared_ptr<plastix::DeviceVector>;

    static Teuchos::RCP<MV>
    Clone(const MV &mv, const int numvecs)
    {
      return Teuchos::rcp(new MV(mv.get_partitioner(), numvecs));
    }

    static Teuchos::RCP<MV>
    CloneCopy(const MV &mv)
    {
      std::vector<VectorPtr> columns;
      for (unsigned int i = 0; i < mv.n_vectors(); ++i)
        columns.push_back(std::make_shared<plastix::DeviceVector>(mv[i]));
      return Teuchos::rcp(new MV(std::move(columns)));
    }

    static Teuchos::RCP<MV>
    CloneCopy(const MV &mv, const std::vector<int> &index)
    {
      return CloneCopy(mv.view(index));
    }

    static Teuchos::RCP<MV>
    CloneCopy(const MV &mv, const Teuchos::Range1D &index)
    {
      return CloneCopy(mv.view(plastix::internal::indices_of(index)));
    }

    static Teuchos::RCP<MV>
    CloneViewNonConst(MV &mv, const std::vector<int> &index)
    {
      return Teuchos::rcp(new MV(mv.view(index)));
    }

    static Teuchos::RCP<MV>
    CloneViewNonConst(MV &mv, const Teuchos::Range1D &index)
    {
      return Teuchos::rcp(new MV(mv.view(plastix::internal::indices_of(index))));
    }

    static Teuchos::RCP<const MV>
    CloneView(const MV &mv, const std::vector<int> &index)
    {
      return Teuchos::rcp(new MV(mv.view(index)));
    }

    static Teuchos::RCP<const MV>
    CloneView(const MV &mv, const Teuchos::Range1D &index)
    {
      return Teuchos::rcp(new MV(mv.view(plastix::internal::indices_of(index))));
    }

    static ptrdiff_t
    GetGlobalLength(const MV &mv)
    {
      return mv.n_vectors() == 0 ? 0 : static_cast<ptrdiff_t>(mv[0].size());
    }

    static int
    GetNumberVecs(const MV &mv)
    {
      return mv.n_vectors();
    }

    static bool
    HasConstantStride(const MV &)
    {
      return false;
    }

    /** mv = alpha A B + beta mv */
    static void
    MvTimesMatAddMv(const double alpha, const MV &A, const DenseMatrix &B, const double beta, MV &mv)
    {
      const unsigned int k = A.n_vectors();
      for (unsigned int j = 0; j < mv.n_vectors(); ++j)
        {
          // Belos never passes a column of A as output, but be safe.
          bool aliased = false;
          for (unsigned int i = 0; i < k; ++i)
            aliased = aliased || A.column(i).get() == mv.column(j).get();
          plastix::DeviceVector  temporary;
          plastix::DeviceVector &target = aliased ? temporary : mv[j];
          if (aliased)
            temporary.reinit(mv[j]);
          unsigned int i = 0;
          if (beta == 0. || aliased)
            {
              // Overwrite (also clears NaN garbage in uninitialised columns).
              if (k == 0)
                target = 0.;
              else
                target.equ(alpha * B(0, j), A[0]);
              i = 1;
            }
          else if (beta != 1.)
            target *= beta;
          for (; i + 1 < k; i += 2)
            target.add(alpha * B(i, j), A[i], alpha * B(i + 1, j), A[i + 1]);
          if (i < k)
            target.add(alpha * B(i, j), A[i]);
          if (aliased)
            mv[j].sadd(beta, 1., temporary);
        }
    }

    /** mv = alpha A + beta B */
    static void
    MvAddMv(const double alpha, const MV &A, const double beta, const MV &B, MV &mv)
    {
      for (unsigned int j = 0; j < mv.n_vectors(); ++j)
        {
          plastix::DeviceVector *x = mv.column(j).get();
          const auto            *a = A.column(j).get();
          const auto            *b = B.column(j).get();
          if (x == a && x == b)
            *x *= alpha + beta;
          else if (x == a)
            x->sadd(alpha, beta, *b);
          else if (x == b)
            x->sadd(beta, alpha, *a);
          else
            {
              x->equ(alpha, *a);
              x->add(beta, *b);
            }
        }
    }

    static void
    MvScale(MV &mv, const double alpha)
    {
      for (unsigned int j = 0; j < mv.n_vectors(); ++j)
        mv[j] *= alpha;
    }

    static void
    MvScale(MV &mv, const std::vector<double> &alpha)
    {
      for (unsigned int j = 0; j < mv.n_vectors(); ++j)
        mv[j] *= alpha[j];
    }

    /** B = alpha A^T mv: all local products first, then one MPI reduction. */
    static void
    MvTransMv(const double alpha, const MV &A, const MV &mv, DenseMatrix &B)
    {
      const unsigned int  k = A.n_vectors(), m = mv.n_vectors();
      std::vector<double> products(k * m);
      for (unsigned int j = 0; j < m; ++j)
        for (unsigned int i = 0; i < k; ++i)
          products[i + k * j] = local_dot(A[i], mv[j]);
      plastix::internal::sum_over_ranks(products, k > 0 ? A : mv);
      for (unsigned int j = 0; j < m; ++j)
        for (unsigned int i = 0; i < k; ++i)
          B(i, j) = alpha * products[i + k * j];
    }

    /** b[j] = mv_j . A_j, one MPI reduction. */
    static void
    MvDot(const MV &mv, const MV &A, std::vector<double> &b)
    {
      std::vector<double> products(mv.n_vectors());
      for (unsigned int j = 0; j < mv.n_vectors(); ++j)
        products[j] = local_dot(mv[j], A[j]);
      plastix::internal::sum_over_ranks(products, mv);
      for (unsigned int j = 0; j < mv.n_vectors(); ++j)
        b[j] = products[j];
    }

    static void
    MvNorm(const MV &mv, std::vector<double> &normvec, NormType type = TwoNorm)
    {
      if (type == TwoNorm)
        {
          std::vector<double> squares(mv.n_vectors());
          for (unsigned int j = 0; j < mv.n_vectors(); ++j)
            squares[j] = local_dot(mv[j], mv[j]);
          plastix::internal::sum_over_ranks(squares, mv);
          for (unsigned int j = 0; j < mv.n_vectors(); ++j)
            normvec[j] = std::sqrt(squares[j]);
        }
      else
        for (unsigned int j = 0; j < mv.n_vectors(); ++j)
          normvec[j] = type == OneNorm ? mv[j].l1_norm() : mv[j].linfty_norm();
    }

    /** mv(:, index[i]) = A(:, i) */
    static void
    SetBlock(const MV &A, const std::vector<int> &index, MV &mv)
    {
      for (unsigned int i = 0; i < index.size(); ++i)
        if (A.column(i).get() != mv.column(index[i]).get())
          mv[index[i]] = A[i];
    }

    static void
    SetBlock(const MV &A, const Teuchos::Range1D &index, MV &mv)
    {
      SetBlock(A, plastix::internal::indices_of(index), mv);
    }

    static void
    Assign(const MV &A, MV &mv)
    {
      for (unsigned int j = 0; j < mv.n_vectors(); ++j)
        if (A.column(j).get() != mv.column(j).get())
          mv[j] = A[j];
    }

    /** Random entries in [-1, 1] (generated on the host: set-up and tests only). */
    static void
    MvRandom(MV &mv)
    {
      static std::mt19937 generator(
        12345u + dealii::Utilities::MPI::this_mpi_process(mv.get_partitioner()->get_mpi_communicator()));
      std::uniform_real_distribution<double> distribution(-1., 1.);
      for (unsigned int j = 0; j < mv.n_vectors(); ++j)
        {
          std::vector<double> values(mv[j].locally_owned_size());
          for (double &v : values)
            v = distribution(generator);
          plastix::backend::copy_to_device(mv[j].device_data(), values.data(), values.size() * sizeof(double));
        }
    }

    static void
    MvInit(MV &mv, const double alpha = 0.)
    {
      for (unsigned int j = 0; j < mv.n_vectors(); ++j)
        mv[j] = alpha;
    }

    static void
    MvPrint(const MV &mv, std::ostream &os)
    {
      for (unsigned int j = 0; j < mv.n_vectors(); ++j)
        mv[j].print(os);
    }

  private:
    /** Dot product over the owned entries of this rank (no reduction). */
    static double
    local_dot(const plastix::DeviceVector &x, const plastix::DeviceVector &y)
    {
      return plastix::backend::vector_operations::dot(x.locally_owned_size(), x.device_data(), y.device_data());
    }
  };

  /** Belos' operator interface for plastix::BelosOperator, column by column. */
  template <>
  class OperatorTraits<double, plastix::DeviceMultiVector, plastix::BelosOperator>
  {
  public:
    static void
    Apply(const plastix::BelosOperator     &op,
          const plastix::DeviceMultiVector &x,
          plastix::DeviceMultiVector       &y,
          const ETrans                      trans = NOTRANS)
    {
      if (trans != NOTRANS)
        throw std::logic_error("plastix::BelosOperator: transposed application is not available");
      for (unsigned int j = 0; j < x.n_vectors(); ++j)
        op.vmult(y[j], x[j]);
    }

    static bool
    HasApplyTranspose(const plastix::BelosOperator &)
    {
      return false;
    }
  };
} // namespace Belos

namespace plastix
{
  BelosStatistics
  solve_with_belos(const BelosOperator   &A,
                   const BelosOperator   *preconditioner,
                   DeviceVector          &x,
                   const DeviceVector    &b,
                   const BelosSolverData &data)
  {
    using MV = DeviceMultiVector;
    using OP = BelosOperator;

    BelosStatistics statistics;
    DeviceVector    residual(x);
    auto            explicit_residual = [&]() {
      A.vmult(residual, x);
      residual.sadd(-1., 1., b);
      return residual.l2_norm();
    };
    statistics.initial_residual = explicit_residual();
    if (statistics.initial_residual <= data.tolerance)
      {
        statistics.converged      = true;
        statistics.final_residual = statistics.initial_residual;
        return statistics;
      }

    // Views of the caller's vectors: Belos updates x in place. Belos takes
    // the right-hand side as const, so the const_cast never leads to a write.
    auto X = Teuchos::rcp(new MV(MV::view_of(x)));
    auto B = Teuchos::rcp(new MV(MV::view_of(const_cast<DeviceVector &>(b))));
    auto problem =
      Teuchos::rcp(new Belos::LinearProblem<double, MV, OP>(Teuchos::rcp(&A, false), X, B));
    if (preconditioner != nullptr)
      {
        if (data.type == BelosSolverType::gmres)
          problem->setRightPrec(Teuchos::rcp(preconditioner, false));
        else
          problem->setLeftPrec(Teuchos::rcp(preconditioner, false));
      }
    if (!problem->setProblem())
      throw std::runtime_error("Belos::LinearProblem::setProblem failed");

    auto parameters = Teuchos::rcp(new Teuchos::ParameterList);
    // Belos tests |r| / |r0|; the caller's tolerance is absolute.
    parameters->set("Convergence Tolerance", data.tolerance / statistics.initial_residual);
    parameters->set("Maximum Iterations", static_cast<int>(data.max_iterations));
    parameters->set("Verbosity", static_cast<int>(Belos::Errors + Belos::Warnings));

    Teuchos::RCP<Belos::SolverManager<double, MV, OP>> solver;
    if (data.type == BelosSolverType::cg)
      {
        parameters->set("Implicit Residual Scaling", std::string("Norm of Initial Residual"));
        solver = Teuchos::rcp(new Belos::PseudoBlockCGSolMgr<double, MV, OP>(problem, parameters));
      }
    else if (data.type == BelosSolverType::gmres)
      {
        parameters->set("Num Blocks", static_cast<int>(data.gmres_restart));
        // Belos counts restarts separately (default 20); the iteration limit governs here.
        parameters->set("Maximum Restarts", static_cast<int>(data.max_iterations / data.gmres_restart + 1));
        parameters->set("Implicit Residual Scaling", std::string("Norm of Initial Residual"));
        parameters->set("Explicit Residual Scaling", std::string("Norm of Initial Residual"));
        solver = Teuchos::rcp(new Belos::PseudoBlockGmresSolMgr<double, MV, OP>(problem, parameters));
      }
    else
      // MINRES scales by the initial residual itself (not configurable).
      solver = Teuchos::rcp(new Belos::MinresSolMgr<double, MV, OP>(problem, parameters));

    const Belos::ReturnType result = solver->solve();
    statistics.converged            = result == Belos::Converged;
    statistics.iterations           = solver->getNumIters();
    statistics.final_residual       = explicit_residual();
    return statistics;
  }

  bool
  check_belos_traits(const DeviceVector &layout, const BelosOperator &A, std::ostream &out)
  {
    using MV = DeviceMultiVector;
    using OP = BelosOperator;
    // Messages from rank 0 only.
    std::ostringstream elsewhere;
    std::ostream      &stream =
      dealii::Utilities::MPI::this_mpi_process(layout.get_mpi_communicator()) == 0 ? out : elsewhere;
    auto printer =
      Teuchos::rcp(new Belos::OutputManager<double>(Belos::Errors + Belos::Warnings, Teuchos::rcp(&stream, false)));
    auto       mv      = Teuchos::rcp(new MV(layout.get_partitioner(), 5));
    const bool vectors = Belos::TestMultiVecTraits<double, MV>(printer, mv);
    const bool matrix  = Belos::TestOperatorTraits<double, MV, OP>(printer, mv, Teuchos::rcp(&A, false));
    return vectors && matrix;
  }
} // namespace plastix
