// Clean interruption of a long computation on SIGINT or SIGTERM: the first
// signal sets a flag that the load stepping (plastix::NewtonRaphson) polls at
// its clean points, a second one ends the process at once.
#ifndef PLASTIX_CORE_INTERRUPTION_H
#define PLASTIX_CORE_INTERRUPTION_H

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace plastix
{
  /**
   * A run stopped on request (SIGINT, SIGTERM) at a clean point; the message
   * says where and which checkpoint continues it.
   */
  class Interrupted : public std::runtime_error
  {
  public:
    explicit Interrupted(const std::string &what)
      : std::runtime_error(what)
    {}
  };

  /**
   * Catch SIGINT and SIGTERM: the first one sets a flag that
   * interrupt_requested() reports, so the run stops at the next clean point;
   * a second one ends the process at once.
   */
  void
  install_interrupt_handlers();

  /** The signal that was caught (0: none), on this rank. */
  int
  caught_signal();

  /** Whether any rank caught SIGINT or SIGTERM (collective). */
  bool
  interrupt_requested(MPI_Comm communicator);

} // namespace plastix

#endif
