// Clean interruption on SIGINT or SIGTERM.
#include <deal.II/base/mpi.h>

#include <plastix/core/interruption.h>

#include <csignal>

namespace plastix
{
  namespace
  {
    volatile std::sig_atomic_t signal_caught = 0;

    extern "C" void
    on_signal(const int signal)
    {
      if (signal_caught != 0)
        {
          // A second request: stop at once.
          std::signal(signal, SIG_DFL);
          std::raise(signal);
          return;
        }
      signal_caught = signal;
    }
  } // namespace

  void
  install_interrupt_handlers()
  {
    struct sigaction action = {};
    action.sa_handler       = on_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
  }

  int
  caught_signal()
  {
    return signal_caught;
  }

  bool
  interrupt_requested(const MPI_Comm communicator)
  {
    return dealii::Utilities::MPI::max(static_cast<int>(signal_caught), communicator) != 0;
  }
} // namespace plastix
