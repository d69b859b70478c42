// Parsing of entry values of the parameter file: numbers, ids, lists and
// vectors; InputError names the entry of a value that cannot be used.
#ifndef PLASTIX_APP_PARAMETER_PARSING_H
#define PLASTIX_APP_PARAMETER_PARSING_H

#include <deal.II/base/types.h>

#include <array>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace plastix
{
  /**
   * Bad input: a parameter value that cannot be used, a missing file, an
   * impossible material. The message names the parameter (subsection/entry)
   * and the reason; applications print it and exit with a non-zero status.
   */
  class InputError : public std::runtime_error
  {
  public:
    /** @p entry is "Subsection/Entry name", @p reason what is wrong with it. */
    InputError(const std::string &entry, const std::string &reason)
      : std::runtime_error(entry.empty() ? reason : entry + ": " + reason)
    {}
  };

  /**
   * The parser's own words from the text of a deal.II FunctionParser
   * exception (the part after "Additional information:"), on one line.
   */
  std::string
  parser_message(const std::string &text);

  /**
   * Run @p evaluate, which builds and evaluates a deal.II FunctionParser,
   * with std::cerr silenced (FunctionParser writes muparser's details there
   * before it throws, and those belong in no one-line message). Returns the
   * parser_message() of a failure, or an empty string.
   */
  std::string
  parser_failure(const std::function<void()> &evaluate);

  /** @p text without leading and trailing blanks, tabs and line breaks. */
  std::string
  trim(const std::string &text);

  /** @p text in lower case (ASCII). */
  std::string
  to_lower(std::string text);

  /** The items of the list @p s (deal.II's split_string_list), trimmed of tabs and line breaks too. */
  std::vector<std::string>
  split(const std::string &s, char separator);

  /** Whether the comma-separated list @p list (a MultipleSelection's value) holds @p item. */
  bool
  list_contains(const std::string &list, const std::string &item);

  /** @p text as a finite number; throws InputError naming @p entry otherwise. */
  double
  parse_double(const std::string &text, const std::string &entry);

  /** @p text as a boundary or material id (an integer 0..254); throws InputError naming @p entry and @p what. */
  dealii::types::boundary_id
  parse_id(const std::string &text, const std::string &entry, const std::string &what);

  /**
   * Split "id: rest; id: rest" into (id text, rest) pairs; throws InputError
   * naming @p entry, with @p example, for an item without 'id:'.
   */
  std::vector<std::pair<std::string, std::string>>
  parse_id_list(const std::string &text, const std::string &entry, const std::string &example);

  /** Parse "x, y, z" into three doubles; throws InputError naming @p entry. */
  std::array<double, 3>
  parse_vector(const std::string &text, const std::string &entry);
} // namespace plastix

#endif
