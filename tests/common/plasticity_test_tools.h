// Helpers of the plasticity tests: parameters from .prm text, runs of
// plastix::ElastoplasticProblem with captured output, its CSV, the mesh
// vertices as monitor points, and ok/FAIL reporting.
#ifndef PLASTIX_TESTS_PLASTICITY_TEST_TOOLS_H
#define PLASTIX_TESTS_PLASTICITY_TEST_TOOLS_H

#include <deal.II/base/mpi.h>
#include <deal.II/base/parameter_handler.h>

#include "elastic_problem.h"
#include "parameters.h"

#include "../checker.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace plastix_test
{
  inline std::string
  read_text(const std::string &file)
  {
    std::ifstream in(file);
    if (!in)
      throw std::runtime_error("cannot read " + file);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  /**
   * The mixed-hardening beam of tests/data/mixed_hardening_beam.prm on
   * 10 x 2 x 4 cells, without load stepping: the beam of the strategy and
   * unloading tests.
   */
  inline std::string
  mixed_hardening_beam_prm()
  {
    return read_text(std::string(PLASTIX_TEST_DATA_DIR) + "/mixed_hardening_beam.prm") + R"(
subsection Mesh
  set Subdivisions = 10, 2, 4
end
)";
  }

  /**
   * Parameters from .prm text (typically a benchmark file followed by
   * overriding 'subsection ... set ... end' blocks: a later set wins).
   */
  inline plastix::Parameters
  parameters_from_text(const std::string &text)
  {
    plastix::Parameters      p;
    dealii::ParameterHandler prm;
    p.declare(prm);
    prm.parse_input_from_string(text);
    p.check();
    return p;
  }

  /** 'v0: x, y, z; v1: ...' for Monitor/Points, coordinates printed exactly. */
  inline std::string
  monitor_points_text(const std::vector<dealii::Point<3>> &points)
  {
    std::ostringstream s;
    s.precision(17);
    for (std::size_t i = 0; i < points.size(); ++i)
      s << (i ? "; " : "") << 'v' << i << ": " << points[i][0] << ", " << points[i][1] << ", " << points[i][2];
    return s.str();
  }

  /** A CSV file of the driver: header names and numeric rows. */
  struct Csv
  {
    std::vector<std::string>         names;
    std::vector<std::vector<double>> rows;

    int
    column(const std::string &name) const
    {
      for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == name)
          return static_cast<int>(i);
      throw std::runtime_error("no CSV column " + name);
    }
  };

  inline Csv
  read_csv(const std::string &file)
  {
    std::istringstream in(read_text(file));
    Csv                csv;
    std::string        line;
    bool               header = true;
    while (std::getline(in, line))
      {
        if (line.empty())
          continue;
        std::stringstream  s(line);
        std::string        item;
        std::vector<double> row;
        while (std::getline(s, item, ','))
          if (header)
            csv.names.push_back(item);
          else
            row.push_back(std::stod(item));
        if (!header)
          csv.rows.push_back(row);
        header = false;
      }
    return csv;
  }

  /**
   * Runs the elastoplastic driver; rank 0's standard output goes to @p captured
   * (if given; on every rank after a successful run) instead of the terminal.
   */
  inline plastix::RunSummary
  run_elastoplastic(const plastix::Parameters &parameters, const MPI_Comm comm, std::string *captured = nullptr)
  {
    std::ostringstream buffer;
    std::streambuf    *old = captured ? std::cout.rdbuf(buffer.rdbuf()) : nullptr;
    // The driver leaves its number format (precision 3) on std::cout: restore ours afterwards.
    const auto         flags     = std::cout.flags();
    const auto         precision = std::cout.precision();
    struct Restore
    {
      std::ios_base::fmtflags f;
      std::streamsize         p;
      ~Restore()
      {
        std::cout.flags(f);
        std::cout.precision(p);
      }
    } restore{flags, precision};
    try
      {
        plastix::ElastoplasticProblem problem(parameters, comm);
        const plastix::RunSummary     summary = problem.run();
        if (captured)
          {
            std::cout.rdbuf(old);
            // Rank 0 prints: give every rank its text.
            *captured = dealii::Utilities::MPI::broadcast(comm, buffer.str(), 0);
          }
        return summary;
      }
    catch (...)
      {
        if (captured)
          {
            std::cout.rdbuf(old);
            *captured = buffer.str();
          }
        throw;
      }
  }

  /**
   * run_elastoplastic() with an exception counted as a failed check of
   * @p checker: prints it and the end of the driver's output to @p out.
   * Returns whether the run finished; the driver's output goes to @p log
   * if given.
   */
  inline bool
  run_elastoplastic_checked(const plastix::Parameters &parameters,
                            const MPI_Comm             comm,
                            Checker                   &checker,
                            std::ostream              &out,
                            plastix::RunSummary       &summary,
                            std::string               *log = nullptr)
  {
    std::string captured;
    try
      {
        summary = run_elastoplastic(parameters, comm, &captured);
        if (log)
          *log = captured;
        return true;
      }
    catch (const std::exception &e)
      {
        out << captured.substr(captured.size() > 3000 ? captured.size() - 3000 : 0);
        checker.check_true(std::string("run threw: ") + e.what(), false);
        return false;
      }
  }

  /** The relative Newton residuals |R|/F printed by the driver, per load step (in order of appearance, cut steps included). */
  inline std::vector<std::vector<double>>
  newton_histories(const std::string &output)
  {
    std::vector<std::vector<double>> histories;
    std::istringstream               in(output);
    std::string                      line;
    while (std::getline(in, line))
      {
        const auto newton = line.find(") Newton ");
        const auto r      = line.find("|R|/F = ");
        if (line.rfind("  step ", 0) != 0 || newton == std::string::npos || r == std::string::npos)
          continue;
        const unsigned int k = std::stoul(line.substr(newton + 9));
        if (k == 1 || histories.empty())
          histories.emplace_back();
        histories.back().push_back(std::stod(line.substr(r + 8)));
      }
    return histories;
  }
} // namespace plastix_test

#endif
