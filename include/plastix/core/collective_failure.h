// A failure on one MPI rank during a collective set-up, turned into an
// exception on every rank instead of a hang of the others.
#ifndef PLASTIX_CORE_COLLECTIVE_FAILURE_H
#define PLASTIX_CORE_COLLECTIVE_FAILURE_H

#include <deal.II/base/mpi.h>

#include <array>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace plastix
{
  namespace internal
  {
    /**
     * The first failure of this rank in a set-up whose ranks meet in
     * collective steps. A rank that fails must still take part in those
     * steps, or the others wait for ever: guard() runs a local step unless
     * this rank has failed already and keeps its first exception; the
     * collective steps run on every rank regardless; throw_on_every_rank()
     * at the end makes every rank throw if any rank failed.
     */
    class CollectiveFailure
    {
    public:
      /** The longest message passed on by throw_on_every_rank(); longer ones are cut. */
      static constexpr std::size_t max_message_length = 4096;

      /** @p context names the set-up in the message of an exception that is not a std::exception. */
      explicit CollectiveFailure(std::string context)
        : context(std::move(context))
      {}

      /** Run @p step unless this rank has failed; keep its exception if it throws. */
      template <typename Step>
      void
      guard(const Step &step)
      {
        if (failure)
          return;
        try
          {
            step();
          }
        catch (const std::exception &e)
          {
            failure = std::current_exception();
            if (*e.what() != '\0')
              keep_message(e.what());
            else
              keep_message(context.c_str(), ": an exception without a message");
          }
        catch (...)
          {
            failure = std::current_exception();
            keep_message(context.c_str(), ": an unknown exception");
          }
      }

      /** Whether a guarded step of this rank threw. */
      bool
      failed() const
      {
        return static_cast<bool>(failure);
      }

      /**
       * Collective. If some rank failed, throw on every rank: the failing
       * rank its own exception, the others std::invalid_argument with the
       * first failing rank's message. A rank without an exception may
       * still report @p error (a failure that did not throw): every rank
       * then throws std::invalid_argument with the first such message.
       *
       * It allocates nothing on the heap, because the failure it passes on
       * is often exhausted memory: one reduction finds the first failing
       * rank, and only if there is one, a broadcast of that rank's message
       * (its first max_message_length characters) follows.
       */
      void
      throw_on_every_rank(const MPI_Comm communicator, const std::string &error = std::string()) const
      {
        const bool         failed_here        = failure || !error.empty();
        const unsigned int rank               = dealii::Utilities::MPI::this_mpi_process(communicator);
        const unsigned int n_ranks            = dealii::Utilities::MPI::n_mpi_processes(communicator);
        unsigned int       first_failing_rank = failed_here ? rank : n_ranks;
        int ierr = MPI_Allreduce(MPI_IN_PLACE, &first_failing_rank, 1, MPI_UNSIGNED, MPI_MIN, communicator);
        AssertThrowMPI(ierr);
        if (first_failing_rank == n_ranks)
          return;
        std::array<char, max_message_length + 1> text{};
        if (rank == first_failing_rank)
          {
            if (failure)
              text = message;
            else
              error.copy(text.data(), max_message_length);
          }
        ierr = MPI_Bcast(text.data(), max_message_length, MPI_CHAR, first_failing_rank, communicator);
        AssertThrowMPI(ierr);
        if (failure)
          std::rethrow_exception(failure);
        throw std::invalid_argument(text.data());
      }

    private:
      /** Keep @p first and @p second as this rank's message; in place, as the failure may be exhausted memory. */
      void
      keep_message(const char *first, const char *second = "")
      {
        std::size_t length = 0;
        for (const char *part : {first, second})
          for (; *part != '\0' && length < max_message_length; ++part)
            message[length++] = *part;
        message[length] = '\0';
      }

      std::string                              context;
      std::exception_ptr                       failure;
      std::array<char, max_message_length + 1> message{};
    };
  } // namespace internal
} // namespace plastix

#endif
