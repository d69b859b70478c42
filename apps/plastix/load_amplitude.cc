#include "load_amplitude.h"

#include <deal.II/base/numbers.h>
#include <deal.II/base/utilities.h>

#include "parameters.h"

#include <algorithm>
#include <iostream>
#include <sstream>

namespace plastix
{
  namespace
  {
    /** @p text as a finite number (parse_double()), or false. */
    bool
    read_number(const std::string &text, double &value)
    {
      try
        {
          value = parse_double(text, "");
          return true;
        }
      catch (const InputError &)
        {
          return false;
        }
    }
  } // namespace

  LoadAmplitude
  LoadAmplitude::constant()
  {
    LoadAmplitude a;
    a.amplitude_kind = Kind::constant;
    return a;
  }

  LoadAmplitude
  LoadAmplitude::parse(const std::string &text, const std::string &entry)
  {
    LoadAmplitude a;
    if (trim(text).empty())
      return a;
    // A table when every item is 'number: number'.
    bool is_table = true;
    for (const auto &item : dealii::Utilities::split_string_list(text, ','))
      {
        const auto colon = item.find(':');
        double     t, value;
        if (colon == std::string::npos || !read_number(trim(item.substr(0, colon)), t) ||
            !read_number(trim(item.substr(colon + 1)), value))
          {
            is_table = false;
            break;
          }
        if (!a.load_factors.empty() && t <= a.load_factors.back())
          throw InputError(entry, "the load factors of the table must increase ('" + trim(item) + "' follows " +
                                    std::to_string(a.load_factors.back()) + ")");
        a.load_factors.push_back(t);
        a.values.push_back(value);
      }
    if (is_table)
      {
        a.amplitude_kind = Kind::table;
        return a;
      }
    a.load_factors.clear();
    a.values.clear();
    const std::string failure = parser_failure([&] {
      a.expression = std::make_shared<dealii::FunctionParser<1>>(1);
      a.expression->initialize("t", text, {{"pi", dealii::numbers::PI}});
      (void)a.expression->value(dealii::Point<1>(0.5));
    });
    if (!failure.empty())
      throw InputError(entry, "'" + trim(text) + "' is neither a table 'load factor: amplitude, ...' nor an "
                                "expression of t (" + failure + ")");
    a.amplitude_kind = Kind::function;
    return a;
  }

  double
  LoadAmplitude::operator()(const double load_factor) const
  {
    switch (amplitude_kind)
      {
        case Kind::load_factor:
          return load_factor;
        case Kind::constant:
          return 1.;
        case Kind::function:
          return expression->value(dealii::Point<1>(load_factor));
        case Kind::table:
          break;
      }
    if (load_factor <= load_factors.front())
      return values.front();
    if (load_factor >= load_factors.back())
      return values.back();
    const auto   upper = std::upper_bound(load_factors.begin(), load_factors.end(), load_factor);
    const auto   i     = static_cast<std::size_t>(upper - load_factors.begin());
    const double w     = (load_factor - load_factors[i - 1]) / (load_factors[i] - load_factors[i - 1]);
    return (1. - w) * values[i - 1] + w * values[i];
  }

  LoadAmplitude::Kind
  LoadAmplitude::kind() const
  {
    return amplitude_kind;
  }

  bool
  LoadAmplitude::follows_load_factor() const
  {
    return amplitude_kind == Kind::load_factor;
  }

  const std::vector<double> &
  LoadAmplitude::table_load_factors() const
  {
    return load_factors;
  }
} // namespace plastix
