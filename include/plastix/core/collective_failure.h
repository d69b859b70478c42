// A failure on one MPI rank during a collective set-up, turned into an
// exception on every rank instead of a hang of the others.
#ifndef PLASTIX_CORE_COLLECTIVE_FAILURE_H
#define PLASTIX_CORE_COLLECTIVE_FAILURE_H

#include <deal.II/base/mpi.h>

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
            message = e.what();
          }
        catch (...)
          {
            failure = std::current_exception();
            message = context + ": an unknown exception";
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
       */
      void
      throw_on_every_rank(const MPI_Comm communicator, const std::string &error = std::string()) const
      {
        const auto messages = dealii::Utilities::MPI::all_gather(communicator, failure ? message : error);
        if (failure)
          std::rethrow_exception(failure);
        for (const auto &m : messages)
          if (!m.empty())
            throw std::invalid_argument(m);
      }

    private:
      std::string        context;
      std::exception_ptr failure;
      std::string        message;
    };
  } // namespace internal
} // namespace plastix

#endif
