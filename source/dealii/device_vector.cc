// DeviceVector: device storage, backend arithmetic, MPI ghost exchange.
#include <deal.II/base/mpi.h>
#include <deal.II/lac/vector_memory.templates.h>

#include <plastix/backend/vector_operations.h>
#include <plastix/dealii/device_vector.h>

#include <iomanip>
#include <ostream>

namespace plastix
{
  namespace ops = backend::vector_operations;

  namespace internal
  {
    /**
     * Who sends what in a ghost exchange, flattened from a deal.II
     * partitioner: owned entries to export (device indices) grouped by
     * target rank, and the ghost range received from each owner.
     */
    struct GhostExchangePattern
    {
      explicit GhostExchangePattern(const dealii::Utilities::MPI::Partitioner &p)
        : communicator(p.get_mpi_communicator())
        , n_owned(p.locally_owned_size())
        , n_ghosts(p.n_ghost_indices())
      {
        std::vector<backend::LocalIndex> indices;
        for (const auto &range : p.import_indices())
          for (unsigned int i = range.first; i < range.second; ++i)
            indices.push_back(i);
        import_indices = backend::DeviceArray<backend::LocalIndex>(indices, "ghost export indices");
        n_import       = indices.size();
        for (const auto &t : p.import_targets())
          import_targets.emplace_back(t.first, t.second);
        for (const auto &t : p.ghost_targets())
          ghost_targets.emplace_back(t.first, t.second);
      }

      bool
      communicates() const
      {
        return !import_targets.empty() || !ghost_targets.empty();
      }

      MPI_Comm                                 communicator;
      std::size_t                              n_owned;
      std::size_t                              n_ghosts;
      std::size_t                              n_import = 0;
      backend::DeviceArray<backend::LocalIndex> import_indices;
      std::vector<std::pair<int, unsigned int>> import_targets;
      std::vector<std::pair<int, unsigned int>> ghost_targets;
    };

    namespace
    {
      constexpr int ghost_tag = 4701;

      /** Send consecutive chunks of @p send to @p send_targets and receive chunks of @p receive from @p receive_sources. */
      void
      exchange(MPI_Comm                                         communicator,
               const std::vector<std::pair<int, unsigned int>> &send_targets,
               const double                                    *send,
               const std::vector<std::pair<int, unsigned int>> &receive_sources,
               double                                          *receive)
      {
        std::vector<MPI_Request> requests;
        requests.reserve(send_targets.size() + receive_sources.size());
        std::size_t offset = 0;
        for (const auto &[rank, count] : receive_sources)
          {
            requests.emplace_back();
            const int ierr = MPI_Irecv(receive + offset, count, MPI_DOUBLE, rank, ghost_tag,
                                       communicator, &requests.back());
            AssertThrowMPI(ierr);
            offset += count;
          }
        offset = 0;
        for (const auto &[rank, count] : send_targets)
          {
            requests.emplace_back();
            const int ierr = MPI_Isend(send + offset, count, MPI_DOUBLE, rank, ghost_tag,
                                       communicator, &requests.back());
            AssertThrowMPI(ierr);
            offset += count;
          }
        const int ierr = MPI_Waitall(requests.size(), requests.data(), MPI_STATUSES_IGNORE);
        AssertThrowMPI(ierr);
      }

      double
      sum_over_ranks(const double local, MPI_Comm communicator)
      {
        return dealii::Utilities::MPI::sum(local, communicator);
      }
    } // namespace
  }   // namespace internal

  DeviceVector::DeviceVector()
  {
    reinit(0);
  }

  DeviceVector::DeviceVector(const size_type n)
  {
    reinit(n);
  }

  DeviceVector::DeviceVector(
    const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &p)
  {
    reinit(p);
  }

  DeviceVector::DeviceVector(const DeviceVector &other)
    : dealii::Subscriptor()
  {
    reinit(other, true);
    values.copy_from(other.values);
  }

  DeviceVector::DeviceVector(DeviceVector &&other) noexcept
    : dealii::Subscriptor()
  {
    swap(other);
  }

  DeviceVector::~DeviceVector() = default;

  DeviceVector &
  DeviceVector::operator=(const DeviceVector &other)
  {
    if (this == &other)
      return *this;
    if (partitioner != other.partitioner)
      reinit(other, true);
    values.copy_from(other.values);
    return *this;
  }

  DeviceVector &
  DeviceVector::operator=(DeviceVector &&other) noexcept
  {
    swap(other);
    return *this;
  }

  void
  DeviceVector::reinit(const size_type n, const bool omit_zeroing)
  {
    reinit(std::make_shared<dealii::Utilities::MPI::Partitioner>(n), omit_zeroing);
  }

  void
  DeviceVector::reinit(
    const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &p,
    const bool                                                          omit_zeroing)
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

  void
  DeviceVector::reinit(const DeviceVector &other, const bool omit_zeroing)
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

  void
  DeviceVector::swap(DeviceVector &other) noexcept
  {
    std::swap(partitioner, other.partitioner);
    std::swap(exchange, other.exchange);
    std::swap(values, other.values);
    std::swap(device_buffer, other.device_buffer);
    std::swap(host_send_buffer, other.host_send_buffer);
    std::swap(host_receive_buffer, other.host_receive_buffer);
  }

  DeviceVector &
  DeviceVector::operator=(const double s)
  {
    ops::set(locally_owned_size(), s, values.data());
    zero_out_ghost_values();
    return *this;
  }

  DeviceVector &
  DeviceVector::operator*=(const double factor)
  {
    ops::scale(locally_owned_size(), factor, values.data());
    return *this;
  }

  DeviceVector &
  DeviceVector::operator/=(const double factor)
  {
    return operator*=(1. / factor);
  }

  DeviceVector &
  DeviceVector::operator+=(const DeviceVector &v)
  {
    add(1., v);
    return *this;
  }

  DeviceVector &
  DeviceVector::operator-=(const DeviceVector &v)
  {
    add(-1., v);
    return *this;
  }

  void
  DeviceVector::add(const double a)
  {
    ops::add_scalar(locally_owned_size(), a, values.data());
  }

  void
  DeviceVector::add(const double a, const DeviceVector &v)
  {
    AssertDimension(locally_owned_size(), v.locally_owned_size());
    ops::axpy(locally_owned_size(), a, v.values.data(), values.data());
  }

  void
  DeviceVector::add(const double a, const DeviceVector &v, const double b, const DeviceVector &w)
  {
    AssertDimension(locally_owned_size(), v.locally_owned_size());
    AssertDimension(locally_owned_size(), w.locally_owned_size());
    ops::add_two(locally_owned_size(), a, v.values.data(), b, w.values.data(), values.data());
  }

  void
  DeviceVector::sadd(const double s, const DeviceVector &v)
  {
    sadd(s, 1., v);
  }

  void
  DeviceVector::sadd(const double s, const double a, const DeviceVector &v)
  {
    AssertDimension(locally_owned_size(), v.locally_owned_size());
    ops::sadd(locally_owned_size(), s, a, v.values.data(), values.data());
  }

  void
  DeviceVector::equ(const double a, const DeviceVector &v)
  {
    if (partitioner != v.partitioner && locally_owned_size() != v.locally_owned_size())
      reinit(v, true);
    ops::equ(locally_owned_size(), a, v.values.data(), values.data());
  }

  void
  DeviceVector::scale(const DeviceVector &scaling_factors)
  {
    AssertDimension(locally_owned_size(), scaling_factors.locally_owned_size());
    ops::pointwise_multiply(locally_owned_size(), scaling_factors.values.data(), values.data());
  }

  double
  DeviceVector::operator*(const DeviceVector &v) const
  {
    AssertDimension(locally_owned_size(), v.locally_owned_size());
    return internal::sum_over_ranks(ops::dot(locally_owned_size(), values.data(), v.values.data()),
                                    get_mpi_communicator());
  }

  double
  DeviceVector::add_and_dot(const double a, const DeviceVector &v, const DeviceVector &w)
  {
    AssertDimension(locally_owned_size(), v.locally_owned_size());
    AssertDimension(locally_owned_size(), w.locally_owned_size());
    return internal::sum_over_ranks(
      ops::add_and_dot(locally_owned_size(), a, v.values.data(), w.values.data(), values.data()),
      get_mpi_communicator());
  }

  double
  DeviceVector::norm_sqr() const
  {
    return internal::sum_over_ranks(ops::dot(locally_owned_size(), values.data(), values.data()),
                                    get_mpi_communicator());
  }

  double
  DeviceVector::l2_norm() const
  {
    return std::sqrt(norm_sqr());
  }

  double
  DeviceVector::l1_norm() const
  {
    return internal::sum_over_ranks(ops::l1_norm(locally_owned_size(), values.data()),
                                    get_mpi_communicator());
  }

  double
  DeviceVector::linfty_norm() const
  {
    return dealii::Utilities::MPI::max(ops::linfty_norm(locally_owned_size(), values.data()),
                                       get_mpi_communicator());
  }

  double
  DeviceVector::mean_value() const
  {
    return internal::sum_over_ranks(ops::sum(locally_owned_size(), values.data()),
                                    get_mpi_communicator()) /
           static_cast<double>(size());
  }

  bool
  DeviceVector::all_zero() const
  {
    const std::size_t nonzero = ops::count_nonzero(locally_owned_size(), values.data());
    return dealii::Utilities::MPI::max(static_cast<unsigned long>(nonzero),
                                       get_mpi_communicator()) == 0;
  }

  DeviceVector::size_type
  DeviceVector::size() const
  {
    return partitioner->size();
  }

  DeviceVector::size_type
  DeviceVector::locally_owned_size() const
  {
    return partitioner->locally_owned_size();
  }

  dealii::IndexSet
  DeviceVector::locally_owned_elements() const
  {
    return partitioner->locally_owned_range();
  }

  bool
  DeviceVector::in_local_range(const size_type i) const
  {
    return partitioner->in_local_range(i);
  }

  const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &
  DeviceVector::get_partitioner() const
  {
    return partitioner;
  }

  MPI_Comm
  DeviceVector::get_mpi_communicator() const
  {
    return partitioner->get_mpi_communicator();
  }

  void
  DeviceVector::update_ghost_values() const
  {
    const auto &x = *exchange;
    if (!x.communicates())
      return;
    device_buffer.resize(std::max(x.n_import, x.n_ghosts), "ghost exchange buffer");
    host_send_buffer.resize(x.n_import);
    host_receive_buffer.resize(x.n_ghosts);
    ops::gather(x.n_import, x.import_indices.data(), values.data(), device_buffer.data());
    backend::copy_to_host(host_send_buffer.data(), device_buffer.data(), x.n_import * sizeof(double));
    internal::exchange(x.communicator, x.import_targets, host_send_buffer.data(),
                       x.ghost_targets, host_receive_buffer.data());
    backend::copy_to_device(values.data() + x.n_owned, host_receive_buffer.data(),
                            x.n_ghosts * sizeof(double));
  }

  void
  DeviceVector::compress(const dealii::VectorOperation::values operation)
  {
    const auto &x = *exchange;
    if (!x.communicates())
      return;
    if (operation == dealii::VectorOperation::add)
      {
        device_buffer.resize(std::max(x.n_import, x.n_ghosts), "ghost exchange buffer");
        host_send_buffer.resize(x.n_ghosts);
        host_receive_buffer.resize(x.n_import);
        backend::copy_to_host(host_send_buffer.data(), values.data() + x.n_owned,
                              x.n_ghosts * sizeof(double));
        internal::exchange(x.communicator, x.ghost_targets, host_send_buffer.data(),
                           x.import_targets, host_receive_buffer.data());
        backend::copy_to_device(device_buffer.data(), host_receive_buffer.data(),
                                x.n_import * sizeof(double));
        ops::scatter_add(x.n_import, x.import_indices.data(), device_buffer.data(), values.data());
      }
    zero_out_ghost_values();
  }

  void
  DeviceVector::zero_out_ghost_values() const
  {
    if (exchange->n_ghosts > 0)
      ops::set(exchange->n_ghosts, 0., values.data() + exchange->n_owned);
  }

  bool
  DeviceVector::has_ghost_elements() const
  {
    return partitioner->n_ghost_indices() > 0;
  }

  void
  DeviceVector::copy_from_host(const dealii::LinearAlgebra::distributed::Vector<double> &host)
  {
    AssertThrow(host.get_partitioner()->local_range() == partitioner->local_range(),
                dealii::ExcMessage("DeviceVector::copy_from_host: the host vector owns other entries "
                                   "(build it on the same locally owned DoFs, e.g. op.get_partitioner())"));
    backend::copy_to_device(values.data(), host.begin(), locally_owned_size() * sizeof(double));
  }

  void
  DeviceVector::copy_from_host(const dealii::Vector<double> &host)
  {
    AssertThrow(host.size() == size(),
                dealii::ExcMessage("DeviceVector::copy_from_host: the host vector has " +
                                   std::to_string(host.size()) + " entries, not one per DoF (" +
                                   std::to_string(size()) + ")"));
    backend::copy_to_device(values.data(), host.begin() + partitioner->local_range().first,
                            locally_owned_size() * sizeof(double));
  }

  void
  DeviceVector::copy_to_host(dealii::LinearAlgebra::distributed::Vector<double> &host) const
  {
    AssertThrow(host.get_partitioner()->local_range() == partitioner->local_range(),
                dealii::ExcMessage("DeviceVector::copy_to_host: the host vector owns other entries "
                                   "(build it on the same locally owned DoFs, e.g. op.get_partitioner())"));
    backend::copy_to_host(host.begin(), values.data(), locally_owned_size() * sizeof(double));
  }

  void
  DeviceVector::copy_to_host(dealii::Vector<double> &host) const
  {
    if (host.size() != size())
      host.reinit(size());
    backend::copy_to_host(host.begin() + partitioner->local_range().first, values.data(),
                          locally_owned_size() * sizeof(double));
  }

  std::size_t
  DeviceVector::local_index(const size_type global_index) const
  {
    AssertThrow(partitioner->in_local_range(global_index) ||
                  partitioner->is_ghost_entry(global_index),
                dealii::ExcMessage("DeviceVector: entry " + std::to_string(global_index) +
                                   " is neither owned nor a ghost on this rank"));
    return partitioner->global_to_local(global_index);
  }

  double
  DeviceVector::operator()(const size_type global_index) const
  {
    double value = 0;
    backend::copy_to_host(&value, values.data() + local_index(global_index), sizeof(double));
    return value;
  }

  DeviceVector::ElementReference
  DeviceVector::operator()(const size_type global_index)
  {
    return ElementReference(*this, local_index(global_index));
  }

  DeviceVector::ElementReference::ElementReference(DeviceVector &vector, const std::size_t local_index)
    : vector(vector)
    , local_index(local_index)
  {}

  DeviceVector::ElementReference &
  DeviceVector::ElementReference::operator=(const double value)
  {
    backend::copy_to_device(vector.values.data() + local_index, &value, sizeof(double));
    return *this;
  }

  DeviceVector::ElementReference &
  DeviceVector::ElementReference::operator+=(const double value)
  {
    return operator=(static_cast<double>(*this) + value);
  }

  DeviceVector::ElementReference::operator double() const
  {
    double value = 0;
    backend::copy_to_host(&value, vector.values.data() + local_index, sizeof(double));
    return value;
  }

  double *
  DeviceVector::device_data()
  {
    return values.data();
  }

  const double *
  DeviceVector::device_data() const
  {
    return values.data();
  }

  std::size_t
  DeviceVector::memory_consumption() const
  {
    return values.memory_consumption() + device_buffer.memory_consumption() +
           (host_send_buffer.capacity() + host_receive_buffer.capacity()) * sizeof(double);
  }

  void
  DeviceVector::print(std::ostream &out,
                      const unsigned int precision,
                      const bool         scientific,
                      const bool         across) const
  {
    std::vector<double> host(locally_owned_size());
    backend::copy_to_host(host.data(), values.data(), host.size() * sizeof(double));
    const auto old_flags     = out.flags();
    const auto old_precision = out.precision(precision);
    if (scientific)
      out.setf(std::ios::scientific, std::ios::floatfield);
    else
      out.setf(std::ios::fixed, std::ios::floatfield);
    for (const double v : host)
      out << v << (across ? ' ' : '\n');
    out << std::endl;
    out.flags(old_flags);
    out.precision(old_precision);
  }

  void
  vector_updates(const DeviceVector                          &rhs,
                 const dealii::DiagonalMatrix<DeviceVector> &jacobi,
                 const unsigned int                          iteration_index,
                 const double                                factor1,
                 const double                                factor2,
                 DeviceVector                               &solution_old,
                 DeviceVector                               &temp_vector1,
                 DeviceVector                               &,
                 DeviceVector                               &solution)
  {
    ops::chebyshev_update(rhs.locally_owned_size(),
                          iteration_index,
                          factor1,
                          factor2,
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

} // namespace plastix

// The vector memory pool that deal.II's solvers use for temporary vectors.
template class dealii::VectorMemory<plastix::DeviceVector>;
template class dealii::GrowingVectorMemory<plastix::DeviceVector>;
