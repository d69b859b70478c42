// What the main() of every deal.II-side test sets up: MPI, the plastix
// runtime, output on rank 0 and the ok/FAIL checker; finish() reports;
// run() is the whole main() around the test's body.
#ifndef PLASTIX_TESTS_TEST_ENVIRONMENT_H
#define PLASTIX_TESTS_TEST_ENVIRONMENT_H

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/mpi.h>

#include <plastix/core/runtime.h>

#include "../checker.h"

#include <exception>
#include <iostream>
#include <sstream>
#include <type_traits>

namespace plastix_test
{
  /** MPI, the plastix runtime, rank-0 output and the checker of one test program. */
  struct Environment
  {
    Environment(int &argc, char **&argv)
      : mpi(argc, argv, 1)
      , comm(MPI_COMM_WORLD)
      , rank(dealii::Utilities::MPI::this_mpi_process(comm))
      , n_ranks(dealii::Utilities::MPI::n_mpi_processes(comm))
      , root(rank == 0)
      , pout(std::cout, root)
      , out(root ? std::cout : discard)
    {
      checker.root = root;
    }

    /** A test that ended early with an exception: a FAIL line on this rank. */
    void
    fail(const std::exception &error)
    {
      std::cout << "FAIL exception: " << error.what() << std::endl;
      ++checker.failures;
    }

    /** PASSED or FAILED (the failures of all ranks) on rank 0; the exit status. */
    int
    finish()
    {
      checker.failures = dealii::Utilities::MPI::max(checker.failures, comm);
      pout << (checker.failures == 0 ? "PASSED" : "FAILED") << std::endl;
      return checker.failures == 0 ? 0 : 1;
    }

    dealii::Utilities::MPI::MPI_InitFinalize mpi;
    plastix::Runtime                         runtime;
    const MPI_Comm                           comm;
    const unsigned int                       rank;
    const unsigned int                       n_ranks;
    const bool                               root;
    /** Output on rank 0 only. */
    dealii::ConditionalOStream pout;
    std::ostringstream         discard;
    /** std::cout on rank 0, a discarded stream elsewhere. */
    std::ostream &out;
    Checker       checker;
  };

  /**
   * The main() of a test: the Environment, then @p body(env, env.checker);
   * an exception from the body is a FAIL line on its rank. Returns the exit
   * status (Environment::finish()).
   */
  template <typename Body>
  int
  run(int argc, char **argv, const Body &body)
  {
    // A body that returned a value on some path would fall off its end on the others.
    static_assert(std::is_void_v<std::invoke_result_t<const Body &, Environment &, Checker &>>,
                  "the body of a test returns nothing: failures go through the Checker");
    Environment env(argc, argv);
    try
      {
        body(env, env.checker);
      }
    catch (const std::exception &error)
      {
        env.fail(error);
      }
    return env.finish();
  }
} // namespace plastix_test

#endif
