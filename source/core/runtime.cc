// Backend start-up and shut-down from the deal.II side.
#include <deal.II/lac/vector_memory.h>

#include <plastix/backend/device.h>
#include <plastix/core/device_vector.h>
#include <plastix/core/runtime.h>

namespace plastix
{
  Runtime::Runtime(MPI_Comm communicator)
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
  }

  Runtime::~Runtime()
  {
    // Pooled solver vectors hold device memory that must go before Kokkos stops.
    dealii::GrowingVectorMemory<DeviceVector>::release_unused_memory();
    backend::finalize();
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
