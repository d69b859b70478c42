// A distributed vector whose entries live in device memory and that satisfies
// deal.II's vector concept (SolverCG, LinearOperator, PreconditionChebyshev).
#ifndef PLASTIX_CORE_DEVICE_VECTOR_H
#define PLASTIX_CORE_DEVICE_VECTOR_H

#include <deal.II/base/index_set.h>
#include <deal.II/base/partitioner.h>
#include <deal.II/base/subscriptor.h>
#include <deal.II/base/template_constraints.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/vector.h>
#include <deal.II/lac/vector_operation.h>

#include <plastix/backend/device_array.h>

#include <iosfwd>
#include <memory>
#include <utility>
#include <vector>

namespace plastix
{
  namespace internal
  {
    struct GhostExchangePattern;
  }

  namespace device
  {
    /**
     * A vector distributed over MPI ranks like
     * dealii::LinearAlgebra::distributed::Vector<Number>, with its values in
     * device memory: the locally owned entries first, then the ghost entries
     * of the partitioner. All arithmetic runs on the device (backend
     * kernels); reductions accumulate in double precision, return one scalar
     * to the host and are summed over the ranks. Ghost values go device to
     * device between the ranks of one node (shared memory, Runtime's ghost
     * exchange) and through host buffers with MPI otherwise.
     *
     * Implements what deal.II's SolverCG, SolverGMRES, LinearOperator,
     * DiagonalMatrix, PreconditionChebyshev and Multigrid need from a
     * vector, so the whole Krylov iteration stays on the device. @p Number is
     * double (plastix::DeviceVector, everything a user touches) or float
     * (the levels of a mixed-precision multigrid V-cycle).
     */
    template <typename Number>
    class Vector : public dealii::Subscriptor
    {
    public:
      using value_type = Number;
      using real_type  = Number;
      using size_type  = dealii::types::global_dof_index;

      /** Empty vector. */
      Vector();

      /** Serial vector of @p n entries, zeroed. */
      explicit Vector(size_type n);

      /** Vector with the layout of @p partitioner, zeroed. */
      explicit Vector(const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &partitioner);

      /** Deep copy (device to device). */
      Vector(const Vector &other);

      Vector(Vector &&other) noexcept;

      ~Vector() override;

      /** Deep copy; takes the layout of @p other if it differs. */
      Vector &
      operator=(const Vector &other);

      Vector &
      operator=(Vector &&other) noexcept;

      /** Serial layout of @p n entries; zeroed unless @p omit_zeroing. */
      void
      reinit(size_type n, bool omit_zeroing = false);

      /** Layout of @p partitioner; zeroed unless @p omit_zeroing. */
      void
      reinit(const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &partitioner,
             bool                                                              omit_zeroing = false);

      /** Layout of @p other (of either precision); zeroed unless @p omit_zeroing. */
      template <typename OtherNumber>
      void
      reinit(const Vector<OtherNumber> &other, bool omit_zeroing = false);

      /** Exchange contents and layout with @p other (no data movement). */
      void
      swap(Vector &other) noexcept;

      /** Set all owned entries to @p s (and ghost entries to zero). */
      Vector &
      operator=(Number s);

      /** Multiply by a scalar. */
      Vector &
      operator*=(Number factor);

      /** Divide by a scalar. */
      Vector &
      operator/=(Number factor);

      /** Add @p v. */
      Vector &
      operator+=(const Vector &v);

      /** Subtract @p v. */
      Vector &
      operator-=(const Vector &v);

      /** Add @p a to every entry. */
      void
      add(Number a);

      /** this += a v */
      void
      add(Number a, const Vector &v);

      /** this += a v + b w */
      void
      add(Number a, const Vector &v, Number b, const Vector &w);

      /** this = s this + v */
      void
      sadd(Number s, const Vector &v);

      /** this = s this + a v */
      void
      sadd(Number s, Number a, const Vector &v);

      /** this = a v */
      void
      equ(Number a, const Vector &v);

      /**
       * this = a v for a vector of the other precision (same layout): the
       * conversion at the boundary of a mixed-precision multigrid.
       */
      template <typename OtherNumber>
      void
      copy_converted(double a, const Vector<OtherNumber> &v);

      /** this += a v for a vector of the other precision (same layout). */
      template <typename OtherNumber>
      void
      add_converted(double a, const Vector<OtherNumber> &v);

      /** Entry-wise this *= scaling_factors. */
      void
      scale(const Vector &scaling_factors);

      /** Global scalar product over the owned entries. */
      Number
      operator*(const Vector &v) const;

      /** this += a v, then return this . w, in one pass. */
      Number
      add_and_dot(Number a, const Vector &v, const Vector &w);

      /** Global Euclidean norm. */
      real_type
      l2_norm() const;

      /** Square of the global Euclidean norm. */
      real_type
      norm_sqr() const;

      /** Global l1 norm. */
      real_type
      l1_norm() const;

      /** Global maximum norm. */
      real_type
      linfty_norm() const;

      /** Global mean of the entries. */
      Number
      mean_value() const;

      /** True if every entry is zero (all ranks). */
      bool
      all_zero() const;

      /** Global size. */
      size_type
      size() const;

      /** Number of owned entries. */
      size_type
      locally_owned_size() const;

      /** Global indices owned here. */
      dealii::IndexSet
      locally_owned_elements() const;

      /** Whether global index @p i is owned here. */
      bool
      in_local_range(size_type i) const;

      /** The layout. */
      const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &
      get_partitioner() const;

      /** The communicator of the layout. */
      MPI_Comm
      get_mpi_communicator() const;

      /** Import the owned values of the ghost entries from their owners. */
      void
      update_ghost_values() const;

      /**
       * Finish a distributed accumulation: with VectorOperation::add, the
       * ghost entries are added to their owners; then ghost entries are zeroed.
       * With VectorOperation::insert, ghost entries are simply zeroed.
       */
      void
      compress(dealii::VectorOperation::values operation);

      /** Set the ghost entries to zero. */
      void
      zero_out_ghost_values() const;

      /** Whether the layout has ghost entries. */
      bool
      has_ghost_elements() const;

      /**
       * Copy the owned entries of @p host to the device. @p host may have any
       * partitioner with the same locally owned range (e.g. one built on the
       * DoFHandler's locally owned and relevant DoFs, or the operator's
       * get_partitioner()); its ghost entries are ignored.
       */
      void
      copy_from_host(const dealii::LinearAlgebra::distributed::Vector<double> &host);

      /**
       * Copy the owned entries of a vector of all DoFs (a serial
       * dealii::Vector, e.g. a right-hand side assembled on one rank or
       * replicated on every rank) to the device: entries
       * [first owned index, last owned index] of @p host.
       */
      void
      copy_from_host(const dealii::Vector<double> &host);

      /**
       * Copy the owned entries to @p host (any partitioner with the same
       * locally owned range); ghosts of @p host are not updated.
       */
      void
      copy_to_host(dealii::LinearAlgebra::distributed::Vector<double> &host) const;

      /**
       * Copy the owned entries into the same positions of @p host, a vector of
       * all DoFs (resized to size() if it has another size; the entries this
       * rank does not own are left as they are).
       */
      void
      copy_to_host(dealii::Vector<double> &host) const;

      /**
       * Read entry @p global_index (owned or ghost). One device transfer per
       * call: for set-up and tests, not for loops.
       */
      Number
      operator()(size_type global_index) const;

      /** Write proxy for entry @p global_index (owned); one device transfer per assignment. */
      class ElementReference
      {
      public:
        ElementReference(Vector &vector, std::size_t local_index);

        ElementReference &
        operator=(Number value);

        ElementReference &
        operator+=(Number value);

        operator Number() const;

      private:
        Vector     &vector;
        std::size_t local_index;
      };

      /** Write access to entry @p global_index (owned or ghost). */
      ElementReference
      operator()(size_type global_index);

      /** Device pointer to the local array (owned entries, then ghosts). */
      Number *
      device_data();

      /** Device pointer to the local array (owned entries, then ghosts). */
      const Number *
      device_data() const;

      /** Device memory held (bytes). */
      std::size_t
      memory_consumption() const;

      /** Print the owned entries (copied to the host). */
      void
      print(std::ostream &out, unsigned int precision = 3, bool scientific = true, bool across = true) const;

    private:
      template <typename OtherNumber>
      friend class Vector;

      std::size_t
      local_index(size_type global_index) const;

      std::shared_ptr<const dealii::Utilities::MPI::Partitioner> partitioner;
      std::shared_ptr<const internal::GhostExchangePattern>      exchange;
      mutable backend::DeviceArray<Number>                        values;
      mutable backend::DeviceArray<Number>                        device_buffer;
      mutable backend::HostStagingArray<Number>                   host_send_buffer;
      mutable backend::HostStagingArray<Number>                   host_receive_buffer;
    };

    /**
     * Fused Chebyshev update for device vectors with a diagonal (Jacobi)
     * inner preconditioner, found by argument-dependent lookup from deal.II's
     * PreconditionChebyshev: one device pass per step instead of four.
     */
    template <typename Number>
    void
    vector_updates(const Vector<Number>                         &rhs,
                   const dealii::DiagonalMatrix<Vector<Number>> &jacobi,
                   const unsigned int                            iteration_index,
                   const double                                  factor1,
                   const double                                  factor2,
                   Vector<Number>                               &solution_old,
                   Vector<Number>                               &temp_vector1,
                   Vector<Number>                               &temp_vector2,
                   Vector<Number>                               &solution);
  } // namespace device

  /** The device vector of double precision: what solvers, operators and user programs use. */
  using DeviceVector = device::Vector<double>;
} // namespace plastix

namespace dealii
{
  namespace internal
  {
    namespace LinearOperatorImplementation
    {
      template <typename Vector>
      class ReinitHelper;

      /**
       * Vectors that dealii::LinearOperator creates (inverse_operator(),
       * operator*) get the distributed layout of the matrix: the generic
       * helper would call reinit(m()), a serial vector of the global size.
       */
      template <typename Number>
      class ReinitHelper<plastix::device::Vector<Number>>
      {
      public:
        template <typename Matrix>
        static void
        reinit_range_vector(const Matrix &matrix, plastix::device::Vector<Number> &v, const bool omit_zeroing_entries)
        {
          reinit(matrix, v, omit_zeroing_entries);
        }

        template <typename Matrix>
        static void
        reinit_domain_vector(const Matrix &matrix, plastix::device::Vector<Number> &v, const bool omit_zeroing_entries)
        {
          reinit(matrix, v, omit_zeroing_entries);
        }

      private:
        template <typename T>
        using get_partitioner_t = decltype(std::declval<const T &>().get_partitioner());
        template <typename T>
        using get_vector_t = decltype(std::declval<const T &>().get_vector().get_partitioner());

        template <typename Matrix>
        static void
        reinit(const Matrix &matrix, plastix::device::Vector<Number> &v, const bool omit_zeroing_entries)
        {
          if constexpr (is_supported_operation<get_partitioner_t, Matrix>)
            v.reinit(matrix.get_partitioner(), omit_zeroing_entries);
          else if constexpr (is_supported_operation<get_vector_t, Matrix>)
            v.reinit(matrix.get_vector(), omit_zeroing_entries);
          else
            v.reinit(matrix.m(), omit_zeroing_entries);
        }
      };
    } // namespace LinearOperatorImplementation
  }   // namespace internal
} // namespace dealii

#endif
