// Choices as enums bound to the .prm: one name table per enum (EnumNames)
// and deal.II's Patterns::Tools::Convert for it, so that
// ParameterHandler::add_parameter() reads and writes the enum directly with a
// Patterns::Selection of the names (the pattern of ExaDG's enum_patterns.h,
// without magic_enum: the .prm names have blanks and capitals).
#ifndef PLASTIX_BASE_ENUM_PATTERNS_H
#define PLASTIX_BASE_ENUM_PATTERNS_H

#include <deal.II/base/patterns.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace plastix
{
  /**
   * The .prm names of the values of @p Enum. Specialise it with
   * @code
   * template <>
   * struct EnumNames<MyEnum>
   * {
   *   static constexpr const char *what = "my choice";     // for messages
   *   static std::vector<std::pair<MyEnum, std::string>> table();
   * };
   * @endcode
   * and make it a .prm type with PLASTIX_ENUM_PATTERN(MyEnum) at global
   * scope. Every value appears once; the first value with a name is what
   * enum_name() prints.
   */
  template <typename Enum>
  struct EnumNames;

  /** The .prm name of @p value (std::logic_error if the table lacks it). */
  template <typename Enum>
  std::string
  enum_name(const Enum value)
  {
    for (const auto &[v, name] : EnumNames<Enum>::table())
      if (v == value)
        return name;
    throw std::logic_error(std::string("plastix: no name for a value of the enum of ") + EnumNames<Enum>::what);
  }

  /** The names of @p Enum joined by @p separator ("|" gives a Patterns::Selection). */
  template <typename Enum>
  std::string
  enum_names(const std::string &separator = "|")
  {
    std::string text;
    for (const auto &entry : EnumNames<Enum>::table())
      text += (text.empty() ? "" : separator) + entry.second;
    return text;
  }

  /**
   * The value of @p Enum called @p name; std::invalid_argument naming the
   * value and the accepted names otherwise.
   */
  template <typename Enum>
  Enum
  parse_enum(const std::string &name)
  {
    for (const auto &[value, value_name] : EnumNames<Enum>::table())
      if (value_name == name)
        return value;
    throw std::invalid_argument(std::string("unknown ") + EnumNames<Enum>::what + " '" + name +
                                "' (expected: " + enum_names<Enum>(", ") + ")");
  }

  /**
   * A choice that may be left to plastix ("auto" in the .prm): automatic,
   * or the given value. Bound to the .prm like an enum (the names of @p
   * Enum plus "auto"). The one owner of both what the .prm said and what
   * was chosen: resolve() records plastix's choice for auto and keeps the
   * fact that it was automatic (for the run summary's "(auto)").
   */
  template <typename Enum>
  struct AutoOr
  {
    /** auto. */
    AutoOr() = default;

    /** The given value. */
    AutoOr(const Enum value)
      : automatic(false)
      , value(value)
    {}

    /** Whether the .prm said auto (still true after resolve()). */
    bool automatic = true;
    /** The given value, or the one resolve() chose; meaningless while unresolved. */
    Enum value{};

    /** Whether the value is known: given, or chosen by resolve(). */
    bool
    is_resolved() const
    {
      return !automatic || resolved;
    }

    /** Record plastix's choice @p chosen for auto; a given value stays as it is. */
    void
    resolve(const Enum chosen)
    {
      if (!automatic)
        return;
      value    = chosen;
      resolved = true;
    }

    /** "auto" or the name of the given value: the text of the .prm. */
    std::string
    name() const
    {
      return automatic ? std::string("auto") : enum_name(value);
    }

    /** The name of the value, followed by " (auto)" where plastix chose it; "auto" while unresolved. */
    std::string
    description() const
    {
      if (!is_resolved())
        return "auto";
      return enum_name(value) + (automatic ? " (auto)" : "");
    }

    /** Whether the value is known and equal to @p other. */
    bool
    operator==(const Enum other) const
    {
      return is_resolved() && value == other;
    }

    /** Negation of operator==. */
    bool
    operator!=(const Enum other) const
    {
      return !(*this == other);
    }

  private:
    /** Whether resolve() chose the value of an automatic choice. */
    bool resolved = false;
  };

  namespace internal
  {
    /** Patterns::Tools::Convert for an enum with EnumNames. */
    template <typename Enum>
    struct ConvertEnum
    {
      static std::unique_ptr<dealii::Patterns::PatternBase>
      to_pattern()
      {
        return std::make_unique<dealii::Patterns::Selection>(enum_names<Enum>());
      }

      static std::string
      to_string(const Enum &value, const dealii::Patterns::PatternBase & = *to_pattern())
      {
        return enum_name(value);
      }

      static Enum
      to_value(const std::string &text, const dealii::Patterns::PatternBase & = *to_pattern())
      {
        return parse_enum<Enum>(text);
      }
    };
  } // namespace internal
} // namespace plastix

namespace dealii::Patterns::Tools
{
  /** "auto" or one of the names of @p Enum. */
  template <typename Enum>
  struct Convert<plastix::AutoOr<Enum>>
  {
    static std::unique_ptr<Patterns::PatternBase>
    to_pattern()
    {
      return std::make_unique<Patterns::Selection>("auto|" + plastix::enum_names<Enum>());
    }

    static std::string
    to_string(const plastix::AutoOr<Enum> &choice, const Patterns::PatternBase & = *to_pattern())
    {
      return choice.name();
    }

    static plastix::AutoOr<Enum>
    to_value(const std::string &text, const Patterns::PatternBase & = *to_pattern())
    {
      if (text == "auto")
        return {};
      return plastix::AutoOr<Enum>(plastix::parse_enum<Enum>(text));
    }
  };
} // namespace dealii::Patterns::Tools

/**
 * Make @p Enum (with an EnumNames specialisation) a type that
 * ParameterHandler::add_parameter() binds: an explicit specialisation of
 * Patterns::Tools::Convert, which takes precedence over deal.II 9.5+'s own
 * conversion of enums by their C++ identifiers. Use at global scope.
 */
#define PLASTIX_ENUM_PATTERN(Enum)                                          \
  namespace dealii::Patterns::Tools                                         \
  {                                                                         \
    template <>                                                             \
    struct Convert<Enum> : public plastix::internal::ConvertEnum<Enum>      \
    {};                                                                     \
  }

#endif
