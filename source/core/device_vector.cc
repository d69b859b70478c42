// DeviceVector: device storage and backend arithmetic; the ghost exchange is ghost_exchange.h's.
#include <deal.II/base/mpi.h>
#include <deal.II/lac/affine_constraints.templates.h>
#include <deal.II/lac/vector_memory.templates.h>

#include <plastix/backend/vector_operations.h>
#include <plastix/core/device_vector.h>

#include "ghost_exchange.h"

#include <iomanip>
#include <ostream>

namespace plastix
{
  namespace ops = backend::vector_operations;

  namespace device
  {
    namespace
    {
      /** The owned entries of @p values (device) and @p host converted between double and Number. */
      template <typename Number>
      void
      owned_to_device(const double *host, const std::size_t n, Number *device)
      {
        if constexpr (std::is_same<Number, double>::value)
          backend::copy_to_device(device, host, n * sizeof(double));
        else
          {
            const std::vector<Number> converted(host, host + n);
            backend::copy_to_device(device, converted.data(), n * sizeof(Number));
          }
      }

      template <typename Number>
      void
      owned_to_host(const Number *device, const std::size_t n, double *host)
      {
        if constexpr (std::is_same<Number, double>::value)
          backend::copy_to_host(host, device, n * sizeof(double));
        else
          {
            std::vector<Number> converted(n);
            backend::copy_to_host(converted.data(), device, n * sizeof(Number));
            std::copy(converted.begin(), converted.end(), host);
          }
      }
    } // namespace
  }   // namespace device

  namespace internal
  {
    namespace
    {
      double
      sum_over_ranks(const double local, MPI_Comm communicator)
      {
        return dealii::Utilities::MPI::sum(local, communicator);
      }
    } // namespace
  }   // namespace internal

  namespace device
  {
    template <typename Number>
    Vector<Number>::Vector()
    {
      reinit(0);
    }

    template <typename Number>
    Vector<Number>::Vector(const size_type n)
    {
      reinit(n);
    }

    template <typename Number>
    Vector<Number>::Vector(const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &p)
    {
      reinit(p);
    }

    template <typename Number>
    Vector<Number>::Vector(const Vector &other)
      : dealii::Subscriptor()
    {
      reinit(other, true);
      values.copy_from(other.values);
    }

    template <typename Number>
    Vector<Number>::Vector(Vector &&other) noexcept
      : dealii::Subscriptor()
    {
      swap(other);
    }

    template <typename Number>
    Vector<Number>::~Vector() = default;

    template <typename Number>
    Vector<Number> &
    Vector<Number>::operator=(const Vector &other)
    {
      if (this == &other)
        return *this;
      if (partitioner != other.partitioner)
        reinit(other, true);
      values.copy_from(other.values);
      return *this;
    }

    template <typename Number>
    Vector<Number> &
    Vector<Number>::operator=(Vector &&other) noexcept
    {
      swap(other);
      return *this;
    }

    template <typename Number>
    void
    Vector<Number>::reinit(const size_type n, const bool omit_zeroing)
    {
      reinit(std::make_shared<dealii::Utilities::MPI::Partitioner>(n), omit_zeroing);
    }

    template <typename Number>
    void
    Vector<Number>::reinit(const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &p,
                           const bool                                                        omit_zeroing)
    {
      if (p != partitioner)
        {
          partitioner = p;
          exchange    = std::make_shared<internal::GhostExchangePattern>(*p);
          values.resize(p->locally_owned_size() + p->n_ghost_indices(), "vector");
        }
      if (!omit_zeroing)
        values.set_zero();
    }

    template <typename Number>
    template <typename OtherNumber>
    void
    Vector<Number>::reinit(const Vector<OtherNumber> &other, const bool omit_zeroing)
    {
      if (other.partitioner != partitioner)
        {
          partitioner = other.partitioner;
          exchange    = other.exchange;
          values.resize(other.values.size(), "vector");
        }
      if (!omit_zeroing)
        values.set_zero();
    }

    template <typename Number>
    void
    Vector<Number>::swap(Vector &other) noexcept
    {
      std::swap(partitioner, other.partitioner);
      std::swap(exchange, other.exchange);
      std::swap(values, other.values);
      std::swap(device_buffer, other.device_buffer);
      std::swap(host_send_buffer, other.host_send_buffer);
      std::swap(host_receive_buffer, other.host_receive_buffer);
    }

    template <typename Number>
    Vector<Number> &
    Vector<Number>::operator=(const Number s)
    {
      ops::set(locally_owned_size(), s, values.data());
      zero_out_ghost_values();
      return *this;
    }

    template <typename Number>
    Vector<Number> &
    Vector<Number>::operator*=(const Number factor)
    {
      ops::scale(locally_owned_size(), factor, values.data());
      return *this;
    }

    template <typename Number>
    Vector<Number> &
    Vector<Number>::operator/=(const Number factor)
    {
      return operator*=(Number(1) / factor);
    }

    template <typename Number>
    Vector<Number> &
    Vector<Number>::operator+=(const Vector &v)
    {
      add(Number(1), v);
      return *this;
    }

    template <typename Number>
    Vector<Number> &
    Vector<Number>::operator-=(const Vector &v)
    {
      add(Number(-1), v);
      return *this;
    }

    template <typename Number>
    void
    Vector<Number>::add(const Number a)
    {
      ops::add_scalar(locally_owned_size(), a, values.data());
    }

    template <typename Number>
    void
    Vector<Number>::add(const Number a, const Vector &v)
    {
      AssertDimension(locally_owned_size(), v.locally_owned_size());
      ops::axpy(locally_owned_size(), a, v.values.data(), values.data());
    }

    template <typename Number>
    void
    Vector<Number>::add(const Number a, const Vector &v, const Number b, const Vector &w)
    {
      AssertDimension(locally_owned_size(), v.locally_owned_size());
      AssertDimension(locally_owned_size(), w.locally_owned_size());
      ops::add_two(locally_owned_size(), a, v.values.data(), b, w.values.data(), values.data());
    }

    template <typename Number>
    void
    Vector<Number>::sadd(const Number s, const Vector &v)
    {
      sadd(s, Number(1), v);
    }

    template <typename Number>
    void
    Vector<Number>::sadd(const Number s, const Number a, const Vector &v)
    {
      AssertDimension(locally_owned_size(), v.locally_owned_size());
      ops::sadd(locally_owned_size(), s, a, v.values.data(), values.data());
    }

    template <typename Number>
    void
    Vector<Number>::equ(const Number a, const Vector &v)
    {
      if (partitioner != v.partitioner && locally_owned_size() != v.locally_owned_size())
        reinit(v, true);
      ops::equ(locally_owned_size(), a, v.values.data(), values.data());
    }

    template <typename Number>
    template <typename OtherNumber>
    void
    Vector<Number>::copy_converted(const double a, const Vector<OtherNumber> &v)
    {
      if (partitioner != v.partitioner && locally_owned_size() != v.locally_owned_size())
        reinit(v, true);
      ops::convert(locally_owned_size(), a, v.values.data(), 0., values.data());
    }

    template <typename Number>
    template <typename OtherNumber>
    void
    Vector<Number>::add_converted(const double a, const Vector<OtherNumber> &v)
    {
      AssertDimension(locally_owned_size(), v.locally_owned_size());
      ops::convert(locally_owned_size(), a, v.values.data(), 1., values.data());
    }

    template <typename Number>
    void
    Vector<Number>::scale(const Vector &scaling_factors)
    {
      AssertDimension(locally_owned_size(), scaling_factors.locally_owned_size());
      ops::pointwise_multiply(locally_owned_size(), scaling_factors.values.data(), values.data());
    }

    template <typename Number>
    Number
    Vector<Number>::operator*(const Vector &v) const
    {
      AssertDimension(locally_owned_size(), v.locally_owned_size());
      return internal::sum_over_ranks(ops::dot(locally_owned_size(), values.data(), v.values.data()),
                                      get_mpi_communicator());
    }

    template <typename Number>
    Number
    Vector<Number>::add_and_dot(const Number a, const Vector &v, const Vector &w)
    {
      AssertDimension(locally_owned_size(), v.locally_owned_size());
      AssertDimension(locally_owned_size(), w.locally_owned_size());
      return internal::sum_over_ranks(
        ops::add_and_dot(locally_owned_size(), a, v.values.data(), w.values.data(), values.data()),
        get_mpi_communicator());
    }

    template <typename Number>
    typename Vector<Number>::real_type
    Vector<Number>::norm_sqr() const
    {
      return internal::sum_over_ranks(ops::dot(locally_owned_size(), values.data(), values.data()),
                                      get_mpi_communicator());
    }

    template <typename Number>
    typename Vector<Number>::real_type
    Vector<Number>::l2_norm() const
    {
      return std::sqrt(internal::sum_over_ranks(ops::dot(locally_owned_size(), values.data(), values.data()),
                                                get_mpi_communicator()));
    }

    template <typename Number>
    typename Vector<Number>::real_type
    Vector<Number>::l1_norm() const
    {
      return internal::sum_over_ranks(ops::l1_norm(locally_owned_size(), values.data()), get_mpi_communicator());
    }

    template <typename Number>
    typename Vector<Number>::real_type
    Vector<Number>::linfty_norm() const
    {
      return dealii::Utilities::MPI::max(ops::linfty_norm(locally_owned_size(), values.data()),
                                         get_mpi_communicator());
    }

    template <typename Number>
    Number
    Vector<Number>::mean_value() const
    {
      return internal::sum_over_ranks(ops::sum(locally_owned_size(), values.data()), get_mpi_communicator()) /
             static_cast<double>(size());
    }

    template <typename Number>
    bool
    Vector<Number>::all_zero() const
    {
      const std::size_t nonzero = ops::count_nonzero(locally_owned_size(), values.data());
      return dealii::Utilities::MPI::max(static_cast<unsigned long>(nonzero), get_mpi_communicator()) == 0;
    }

    template <typename Number>
    typename Vector<Number>::size_type
    Vector<Number>::size() const
    {
      return partitioner->size();
    }

    template <typename Number>
    typename Vector<Number>::size_type
    Vector<Number>::locally_owned_size() const
    {
      return partitioner->locally_owned_size();
    }

    template <typename Number>
    dealii::IndexSet
    Vector<Number>::locally_owned_elements() const
    {
      return partitioner->locally_owned_range();
    }

    template <typename Number>
    bool
    Vector<Number>::in_local_range(const size_type i) const
    {
      return partitioner->in_local_range(i);
    }

    template <typename Number>
    const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &
    Vector<Number>::get_partitioner() const
    {
      return partitioner;
    }

    template <typename Number>
    MPI_Comm
    Vector<Number>::get_mpi_communicator() const
    {
      return partitioner->get_mpi_communicator();
    }

    template <typename Number>
    void
    Vector<Number>::update_ghost_values() const
    {
      internal::update_ghosts(*exchange, values.data(), device_buffer, host_send_buffer, host_receive_buffer);
    }

    template <typename Number>
    void
    Vector<Number>::compress(const dealii::VectorOperation::values operation)
    {
      if (!exchange->communicates())
        return;
      if (operation == dealii::VectorOperation::add)
        internal::add_ghosts_to_owners(*exchange, values.data(), device_buffer, host_send_buffer,
                                       host_receive_buffer);
      zero_out_ghost_values();
    }

    template <typename Number>
    void
    Vector<Number>::zero_out_ghost_values() const
    {
      if (exchange->n_ghosts > 0)
        ops::set(exchange->n_ghosts, Number(0), values.data() + exchange->n_owned);
    }

    template <typename Number>
    bool
    Vector<Number>::has_ghost_elements() const
    {
      return partitioner->n_ghost_indices() > 0;
    }

    template <typename Number>
    void
    Vector<Number>::copy_from_host(const dealii::LinearAlgebra::distributed::Vector<double> &host)
    {
      AssertThrow(host.get_partitioner()->local_range() == partitioner->local_range(),
                  dealii::ExcMessage("DeviceVector::copy_from_host: the host vector owns other entries "
                                     "(build it on the same locally owned DoFs, e.g. op.get_partitioner())"));
      owned_to_device(host.begin(), locally_owned_size(), values.data());
    }

    template <typename Number>
    void
    Vector<Number>::copy_from_host(const dealii::Vector<double> &host)
    {
      AssertThrow(host.size() == size(),
                  dealii::ExcMessage("DeviceVector::copy_from_host: the host vector has " +
                                     std::to_string(host.size()) + " entries, not one per DoF (" +
                                     std::to_string(size()) + ")"));
      owned_to_device(host.begin() + partitioner->local_range().first, locally_owned_size(), values.data());
    }

    template <typename Number>
    void
    Vector<Number>::copy_to_host(dealii::LinearAlgebra::distributed::Vector<double> &host) const
    {
      AssertThrow(host.get_partitioner()->local_range() == partitioner->local_range(),
                  dealii::ExcMessage("DeviceVector::copy_to_host: the host vector owns other entries "
                                     "(build it on the same locally owned DoFs, e.g. op.get_partitioner())"));
      owned_to_host(values.data(), locally_owned_size(), host.begin());
    }

    template <typename Number>
    void
    Vector<Number>::copy_to_host(dealii::Vector<double> &host) const
    {
      if (host.size() != size())
        host.reinit(size());
      owned_to_host(values.data(), locally_owned_size(), host.begin() + partitioner->local_range().first);
    }

    template <typename Number>
    std::size_t
    Vector<Number>::local_index(const size_type global_index) const
    {
      AssertThrow(partitioner->in_local_range(global_index) || partitioner->is_ghost_entry(global_index),
                  dealii::ExcMessage("DeviceVector: entry " + std::to_string(global_index) +
                                     " is neither owned nor a ghost on this rank"));
      return partitioner->global_to_local(global_index);
    }

    template <typename Number>
    Number
    Vector<Number>::operator()(const size_type global_index) const
    {
      Number value = 0;
      backend::copy_to_host(&value, values.data() + local_index(global_index), sizeof(Number));
      return value;
    }

    template <typename Number>
    typename Vector<Number>::ElementReference
    Vector<Number>::operator()(const size_type global_index)
    {
      return ElementReference(*this, local_index(global_index));
    }

    template <typename Number>
    Vector<Number>::ElementReference::ElementReference(Vector &vector, const std::size_t local_index)
      : vector(vector)
      , local_index(local_index)
    {}

    template <typename Number>
    typename Vector<Number>::ElementReference &
    Vector<Number>::ElementReference::operator=(const Number value)
    {
      backend::copy_to_device(vector.values.data() + local_index, &value, sizeof(Number));
      return *this;
    }

    template <typename Number>
    typename Vector<Number>::ElementReference &
    Vector<Number>::ElementReference::operator+=(const Number value)
    {
      return operator=(static_cast<Number>(*this) + value);
    }

    template <typename Number>
    Vector<Number>::ElementReference::operator Number() const
    {
      Number value = 0;
      backend::copy_to_host(&value, vector.values.data() + local_index, sizeof(Number));
      return value;
    }

    template <typename Number>
    Number *
    Vector<Number>::device_data()
    {
      return values.data();
    }

    template <typename Number>
    const Number *
    Vector<Number>::device_data() const
    {
      return values.data();
    }

    template <typename Number>
    std::size_t
    Vector<Number>::memory_consumption() const
    {
      return values.memory_consumption() + device_buffer.memory_consumption() +
             host_send_buffer.memory_consumption() + host_receive_buffer.memory_consumption();
    }

    template <typename Number>
    void
    Vector<Number>::print(std::ostream      &out,
                          const unsigned int precision,
                          const bool         scientific,
                          const bool         across) const
    {
      std::vector<Number> host(locally_owned_size());
      backend::copy_to_host(host.data(), values.data(), host.size() * sizeof(Number));
      const auto old_flags     = out.flags();
      const auto old_precision = out.precision(precision);
      if (scientific)
        out.setf(std::ios::scientific, std::ios::floatfield);
      else
        out.setf(std::ios::fixed, std::ios::floatfield);
      for (const Number v : host)
        out << v << (across ? ' ' : '\n');
      out << std::endl;
      out.flags(old_flags);
      out.precision(old_precision);
    }

    template <typename Number>
    void
    vector_updates(const Vector<Number>                          &rhs,
                   const dealii::DiagonalMatrix<Vector<Number>> &jacobi,
                   const unsigned int                            iteration_index,
                   const double                                  factor1,
                   const double                                  factor2,
                   Vector<Number>                               &solution_old,
                   Vector<Number>                               &temp_vector1,
                   Vector<Number>                               &,
                   Vector<Number>                               &solution)
    {
      ops::chebyshev_update(rhs.locally_owned_size(),
                            iteration_index,
                            static_cast<Number>(factor1),
                            static_cast<Number>(factor2),
                            rhs.device_data(),
                            jacobi.get_vector().device_data(),
                            solution.device_data(),
                            solution_old.device_data(),
                            temp_vector1.device_data());
      // Same vector rotation as deal.II's fused update for its own vectors.
      if (iteration_index == 1)
        {
          solution.swap(temp_vector1);
          solution_old.swap(temp_vector1);
        }
      else if (iteration_index > 1)
        solution.swap(solution_old);
    }

    template class Vector<double>;
    template class Vector<float>;
    template void Vector<double>::reinit(const Vector<float> &, bool);
    template void Vector<float>::reinit(const Vector<double> &, bool);
    template void Vector<double>::reinit(const Vector<double> &, bool);
    template void Vector<float>::reinit(const Vector<float> &, bool);
    template void Vector<double>::copy_converted(double, const Vector<float> &);
    template void Vector<float>::copy_converted(double, const Vector<double> &);
    template void Vector<double>::add_converted(double, const Vector<float> &);
    template void Vector<float>::add_converted(double, const Vector<double> &);
    template void Vector<double>::copy_converted(double, const Vector<double> &);
    template void Vector<double>::add_converted(double, const Vector<double> &);
    template void vector_updates(const Vector<double> &, const dealii::DiagonalMatrix<Vector<double>> &,
                                 unsigned int, double, double, Vector<double> &, Vector<double> &, Vector<double> &,
                                 Vector<double> &);
    template void vector_updates(const Vector<float> &, const dealii::DiagonalMatrix<Vector<float>> &, unsigned int,
                                 double, double, Vector<float> &, Vector<float> &, Vector<float> &, Vector<float> &);
  } // namespace device
} // namespace plastix

// The vector memory pool that deal.II's solvers use for temporary vectors.
template class dealii::VectorMemory<plastix::device::Vector<double>>;
template class dealii::GrowingVectorMemory<plastix::device::Vector<double>>;
template class dealii::VectorMemory<plastix::device::Vector<float>>;
template class dealii::GrowingVectorMemory<plastix::device::Vector<float>>;

// What deal.II's PreconditionChebyshev calls on the vectors (the constrained
// entries of its eigenvalue estimate set to zero), defined in a header that
// programs do not include: instantiated here so that a program's
// PreconditionChebyshev on DeviceVectors links.
template void
dealii::internal::AffineConstraintsImplementation::set_zero_all(const std::vector<dealii::types::global_dof_index> &,
                                                                plastix::device::Vector<double> &);
template void
dealii::internal::AffineConstraintsImplementation::set_zero_all(const std::vector<dealii::types::global_dof_index> &,
                                                                plastix::device::Vector<float> &);
