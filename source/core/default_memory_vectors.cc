// MechanicsOperator on deal.II's distributed vectors in deal.II's default
// memory space (deal.II 9.5 and later): the vectors of Portable::MatrixFree
// programs, applied without copies where their layout and memory are the
// operator's.
#include <deal.II/base/config.h>

#include <plastix/core/mechanics_operator.h>

#if DEAL_II_VERSION_GTE(9, 5, 0)

#  include <deal.II/base/mpi.h>

#  include <plastix/backend/device.h>
#  include <plastix/backend/vector_operations.h>

#  include <stdexcept>
#  include <string>

namespace plastix
{
  namespace
  {
    namespace ops = backend::vector_operations;

    /**
     * Whether deal.II's MemorySpace::Default is device memory: deal.II's
     * Kokkos (whose configuration macros deal.II's headers bring) has a
     * device back-end.
     */
    constexpr bool dealii_default_memory_on_device =
#  if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP) || defined(KOKKOS_ENABLE_SYCL) || \
    defined(KOKKOS_ENABLE_OPENMPTARGET)
      true;
#  else
      false;
#  endif

    /**
     * How a deal.II vector's memory reaches the backend's kernels: in place,
     * or copied from host memory to the backend's device memory.
     */
    enum class MemoryAccess
    {
      in_place,
      host_to_device
    };

    MemoryAccess
    memory_access()
    {
      const bool backend_on_device = backend::device_memory_is_separate();
      if (dealii_default_memory_on_device && !backend_on_device)
        throw std::invalid_argument(
          "plastix::MechanicsOperator: deal.II's vectors in MemorySpace::Default are in device memory, but plastix "
          "was built for the host; build plastix with PLASTIX_ENABLE_CUDA=ON, or use "
          "MemorySpace::Host vectors");
      return dealii_default_memory_on_device == backend_on_device ? MemoryAccess::in_place :
                                                                    MemoryAccess::host_to_device;
    }

    /** Copy @p n doubles from a deal.II vector's memory to the backend's. */
    void
    copy_into_backend(double *destination, const double *source, const std::size_t n, const MemoryAccess access)
    {
      if (n == 0)
        return;
      if (access == MemoryAccess::in_place)
        backend::copy_on_device(destination, source, n * sizeof(double));
      else
        backend::copy_to_device(destination, source, n * sizeof(double));
    }

    /** Copy @p n doubles from the backend's memory to a deal.II vector's. */
    void
    copy_out_of_backend(double *destination, const double *source, const std::size_t n, const MemoryAccess access)
    {
      if (n == 0)
        return;
      if (access == MemoryAccess::in_place)
        backend::copy_on_device(destination, source, n * sizeof(double));
      else
        backend::copy_to_host(destination, source, n * sizeof(double));
    }
  } // namespace

  void
  MechanicsOperator::apply_to_default_memory_vectors(DefaultMemoryVector       &dst,
                                                     const DefaultMemoryVector &src,
                                                     const bool                 add) const
  {
    AssertThrow(device_operator, dealii::ExcMessage("plastix::MechanicsOperator::vmult(): not initialized"));
    const MemoryAccess access = memory_access();
    const auto same_owned_dofs = [this](const DefaultMemoryVector &vector) {
      return vector.get_partitioner()->local_range() == partitioner->local_range() &&
             vector.size() == partitioner->size();
    };
    const auto same_layout = [this](const DefaultMemoryVector &vector) {
      return vector.get_partitioner().get() == partitioner.get() ||
             vector.get_partitioner()->is_compatible(*partitioner);
    };
    // Decided on all ranks together (one reduction): a vector of other owned
    // DoFs on one rank is refused on every rank, and every rank takes the
    // same path (the two exchange ghosts through different channels), in
    // place only where all ranks can.
    unsigned int flags[2] = {same_owned_dofs(src) && same_owned_dofs(dst) ? 1u : 0u,
                             access == MemoryAccess::in_place && same_layout(src) && same_layout(dst) ? 1u : 0u};
    if (partitioner->n_mpi_processes() > 1)
      dealii::Utilities::MPI::min(flags, partitioner->get_mpi_communicator(), flags);
    if (flags[0] == 0)
      throw std::invalid_argument("plastix::MechanicsOperator::vmult(): deal.II vectors of " +
                                  std::to_string(src.size()) + " and " + std::to_string(dst.size()) +
                                  " entries (" + std::to_string(src.locally_owned_size()) + " and " +
                                  std::to_string(dst.locally_owned_size()) +
                                  " owned on this rank), but the operator has " + std::to_string(m()) + " (" +
                                  std::to_string(partitioner->locally_owned_size()) +
                                  "; the owned DoFs differ on at least one rank): initialize the vectors with "
                                  "initialize_dof_vector()");
    // deal.II's convention: the destination leaves ghost mode (its ghost
    // entries are zero afterwards, as compress() needs them).
    if (dst.has_ghost_elements())
      dst.zero_out_ghost_values();
    const std::size_t n_owned  = partitioner->locally_owned_size();
    const bool        in_place = flags[1] == 1;
    // deal.II's Kokkos and the backend's run on streams of their own: on a
    // device, a device-wide fence on either side of the backend's kernels and
    // copies orders them.
    const bool on_device = backend::device_memory_is_separate();
    if (in_place)
      {
        // In place: deal.II exchanges the ghost values of src, the kernels
        // read and write the vectors' memory.
        const bool src_had_ghost_values = src.has_ghost_elements();
        if (!src_had_ghost_values)
          src.update_ghost_values();
        if (on_device)
          backend::fence();
        if (add)
          {
            temporary.reinit(partitioner, true);
            device_operator->apply(src.get_values(), temporary.device_data());
            complete_owned_rows(temporary);
            ops::axpy(n_owned, 1., temporary.device_data(), dst.get_values());
            if (on_device)
              backend::fence();
          }
        else
          {
            device_operator->apply(src.get_values(), dst.get_values());
            if (on_device)
              backend::fence();
            if (applies_ghost_cells)
              dst.zero_out_ghost_values();
            else
              dst.compress(dealii::VectorOperation::add);
          }
        if (!src_had_ghost_values)
          src.zero_out_ghost_values();
        return;
      }
    // Through the operator's vectors: the owned entries copied in and out.
    if (on_device)
      backend::fence();
    copied_source.reinit(partitioner, true);
    copy_into_backend(copied_source.device_data(), src.get_values(), n_owned, access);
    copied_product.reinit(partitioner, true);
    if (add)
      {
        copy_into_backend(copied_product.device_data(), dst.get_values(), n_owned, access);
        vmult_add(copied_product, copied_source);
      }
    else
      vmult(copied_product, copied_source);
    copy_out_of_backend(dst.get_values(), copied_product.device_data(), n_owned, access);
    if (on_device)
      backend::fence();
  }

  void
  MechanicsOperator::vmult(DefaultMemoryVector &dst, const DefaultMemoryVector &src) const
  {
    apply_to_default_memory_vectors(dst, src, false);
  }

  void
  MechanicsOperator::Tvmult(DefaultMemoryVector &dst, const DefaultMemoryVector &src) const
  {
    apply_to_default_memory_vectors(dst, src, false);
  }

  void
  MechanicsOperator::vmult_add(DefaultMemoryVector &dst, const DefaultMemoryVector &src) const
  {
    apply_to_default_memory_vectors(dst, src, true);
  }

  void
  MechanicsOperator::Tvmult_add(DefaultMemoryVector &dst, const DefaultMemoryVector &src) const
  {
    apply_to_default_memory_vectors(dst, src, true);
  }

  void
  MechanicsOperator::initialize_dof_vector(DefaultMemoryVector &vector) const
  {
    vector.reinit(partitioner);
  }

  void
  MechanicsOperator::compute_diagonal(DefaultMemoryVector &diagonal) const
  {
    const MemoryAccess access = memory_access();
    DeviceVector       computed;
    compute_diagonal(computed);
    if (diagonal.get_partitioner().get() != partitioner.get() &&
        !diagonal.get_partitioner()->is_compatible(*partitioner))
      diagonal.reinit(partitioner);
    else if (diagonal.has_ghost_elements())
      diagonal.zero_out_ghost_values();
    copy_out_of_backend(diagonal.get_values(), computed.device_data(), partitioner->locally_owned_size(), access);
    if (backend::device_memory_is_separate())
      backend::fence();
  }
} // namespace plastix

#endif
