// ok/FAIL reporting shared by the tests (deal.II-free: the backend tests use it too).
#ifndef PLASTIX_TESTS_CHECKER_H
#define PLASTIX_TESTS_CHECKER_H

#include <cstdio>
#include <string>

namespace plastix_test
{
  /** Counts failed checks; prints ok/FAIL lines on rank 0. */
  struct Checker
  {
    bool root     = true;
    int  failures = 0;

    /** Passes if value <= tolerance (NaN fails). */
    void
    check(const std::string &what, const double value, const double tolerance)
    {
      const bool ok = value <= tolerance;
      if (root)
        std::printf("  %s %s: %.3e (tolerance %.1e)\n", ok ? "ok  " : "FAIL", what.c_str(), value, tolerance);
      if (!ok)
        ++failures;
    }

    void
    check_true(const std::string &what, const bool ok)
    {
      if (root)
        std::printf("  %s %s\n", ok ? "ok  " : "FAIL", what.c_str());
      if (!ok)
        ++failures;
    }

    /** A failure that is not a comparison (an exception, say). */
    void
    fail(const std::string &what)
    {
      check_true(what, false);
    }
  };
} // namespace plastix_test

#endif
