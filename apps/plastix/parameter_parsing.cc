// Parsing of entry values: numbers, ids, lists and vectors, with InputError naming the entry.
#include <deal.II/base/utilities.h>

#include "parameter_parsing.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <iostream>

namespace plastix
{
  std::string
  trim(const std::string &s)
  {
    const auto begin = s.find_first_not_of(" \t\n\r");
    if (begin == std::string::npos)
      return "";
    const auto end = s.find_last_not_of(" \t\n\r");
    return s.substr(begin, end - begin + 1);
  }

  std::string
  to_lower(std::string text)
  {
    for (auto &c : text)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  }

  std::vector<std::string>
  split(const std::string &s, const char separator)
  {
    auto parts = dealii::Utilities::split_string_list(s, separator);
    for (auto &part : parts)
      part = trim(part);
    return parts;
  }

  bool
  list_contains(const std::string &list, const std::string &item)
  {
    const auto items = split(list, ',');
    return std::find(items.begin(), items.end(), item) != items.end();
  }

  double
  parse_double(const std::string &text, const std::string &entry)
  {
    try
      {
        std::size_t  used  = 0;
        const double value = std::stod(text, &used);
        if (trim(text.substr(used)).empty())
          {
            if (!std::isfinite(value))
              throw InputError(entry, "'" + text + "' is not a finite number");
            return value;
          }
      }
    catch (const InputError &)
      {
        throw;
      }
    catch (const std::exception &)
      {}
    throw InputError(entry, "'" + text + "' is not a number");
  }

  dealii::types::boundary_id
  parse_id(const std::string &text, const std::string &entry, const std::string &what)
  {
    const double value = parse_double(text, entry);
    if (value < 0 || value > 254 || value != static_cast<int>(value))
      throw InputError(entry, "'" + text + "' is not a valid " + what + " (an integer 0..254)");
    return static_cast<dealii::types::boundary_id>(value);
  }

  std::vector<std::pair<std::string, std::string>>
  parse_id_list(const std::string &text, const std::string &entry, const std::string &example)
  {
    std::vector<std::pair<std::string, std::string>> items;
    for (const auto &item : split(text, ';'))
      {
        if (item.empty())
          continue;
        const auto colon = item.find(':');
        if (colon == std::string::npos)
          throw InputError(entry, "'" + item + "' lacks 'id:' (expected e.g. '" + example + "')");
        items.emplace_back(trim(item.substr(0, colon)), trim(item.substr(colon + 1)));
      }
    return items;
  }

  std::string
  parser_message(const std::string &text)
  {
    const auto        at      = text.find("Additional information:");
    std::string       message = at == std::string::npos ? text : text.substr(at + 23);
    message                   = message.substr(0, message.find("Stacktrace"));
    std::string       line;
    for (const char c : message)
      {
        if (c == '-' && line.size() > 2 && line.compare(line.size() - 2, 2, "--") == 0)
          break; // deal.II's closing line of dashes
        if (std::isspace(static_cast<unsigned char>(c)))
          {
            if (!line.empty() && line.back() != ' ')
              line += ' ';
          }
        else
          line += c;
      }
    while (!line.empty() && (line.back() == ' ' || line.back() == '-'))
      line.pop_back();
    return line;
  }

  std::string
  parser_failure(const std::function<void()> &evaluate)
  {
    std::ostringstream parser_output;
    std::streambuf    *cerr_buffer = std::cerr.rdbuf(parser_output.rdbuf());
    try
      {
        evaluate();
      }
    catch (const std::exception &error)
      {
        std::cerr.rdbuf(cerr_buffer);
        const std::string message = parser_message(error.what());
        return message.empty() ? std::string("not understood") : message;
      }
    std::cerr.rdbuf(cerr_buffer);
    return std::string();
  }

  std::array<double, 3>
  parse_vector(const std::string &text, const std::string &entry)
  {
    const auto parts = split(text, ',');
    if (parts.size() != 3)
      throw InputError(entry, "'" + text + "' must be three numbers 'x, y, z'");
    return {{parse_double(parts[0], entry), parse_double(parts[1], entry), parse_double(parts[2], entry)}};
  }
} // namespace plastix
