// Backend start-up and shut-down from the deal.II side.
#include <deal.II/lac/vector_memory.h>

#include <plastix/backend/device.h>
#include <plastix/core/device_vector.h>
#include <plastix/core/runtime.h>

#include "node_exchange.h"

#include <exception>

namespace plastix
{
  Runtime::Runtime(MPI_Comm communicator, const GhostExchange ghost_exchange)
    : communicator(communicator)
  {
    int local_rank = 0;
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized)
      {
        MPI_Comm node_communicator;
        MPI_Comm_split_type(communicator, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_communicator);
        MPI_Comm_rank(node_communicator, &local_rank);
        MPI_Comm_free(&node_communicator);
      }
    backend::initialize(local_rank);
    if (initialized)
      set_ghost_exchange(ghost_exchange);
  }

  Runtime::~Runtime()
  {
    // Pooled solver vectors hold device memory that must go before Kokkos stops.
    dealii::GrowingVectorMemory<DeviceVector>::release_unused_memory();
    // Unwinding from an exception, other ranks may not get here: no collective wait then.
    internal::NodeExchange::release(std::uncaught_exceptions() == 0);
    backend::finalize();
  }

  void
  Runtime::set_ghost_exchange(const GhostExchange ghost_exchange)
  {
    internal::NodeExchange::setup(communicator, ghost_exchange);
  }

  std::string
  Runtime::ghost_exchange_description()
  {
    return internal::NodeExchange::description();
  }

  std::string
  Runtime::description()
  {
    return backend::device_description();
  }

  std::string
  Runtime::execution_space()
  {
    return backend::execution_space_name();
  }
} // namespace plastix
