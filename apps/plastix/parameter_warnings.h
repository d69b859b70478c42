// What a parameter file says that the run will not do as written: entries
// under renamed names, and entries that have no effect for the problem type.
#ifndef PLASTIX_APP_PARAMETER_WARNINGS_H
#define PLASTIX_APP_PARAMETER_WARNINGS_H

#include <deal.II/base/parameter_handler.h>

#include <string>
#include <vector>

namespace plastix
{
  struct Parameters;

  /** An entry that was renamed: the old name keeps working, with a warning. */
  struct RenamedEntry
  {
    /** The subsection path, e.g. "Monitor". */
    const char *subsection;
    /** The name older parameter files use. */
    const char *old_name;
    /** The current name. */
    const char *new_name;
  };

  /** Every renamed entry (the old names are declared as aliases). */
  const std::vector<RenamedEntry> &
  renamed_entries();

  /** Declare the old name of every renamed entry as an alias of its new name in @p prm. */
  void
  declare_renamed_entries(dealii::ParameterHandler &prm);

  /**
   * The entries that the parameter file text @p text sets, as paths
   * "Subsection/Subsection/Entry" with runs of blanks made single; entries of
   * files it includes are not listed.
   */
  std::vector<std::string>
  entries_set_in(const std::string &text);

  /**
   * One line per thing to warn of in @p parameters, given the entries
   * @p set_entries that the file sets (entries_set_in()): a renamed entry
   * used under its old name, entries that have no effect for the problem
   * type (e.g. hardening in an elastic run).
   */
  std::vector<std::string>
  parameter_warnings(const Parameters &parameters, const std::vector<std::string> &set_entries);
} // namespace plastix

#endif
