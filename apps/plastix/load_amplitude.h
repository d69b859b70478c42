// The amplitude of a load over the load factor ('Boundary conditions/Amplitudes').
#ifndef PLASTIX_APP_LOAD_AMPLITUDE_H
#define PLASTIX_APP_LOAD_AMPLITUDE_H

#include <deal.II/base/function_parser.h>

#include <memory>
#include <string>
#include <vector>

namespace plastix
{
  /**
   * The factor a(lambda) by which a load is multiplied at load factor
   * lambda: lambda itself (the default), 1 (a load held at its full value,
   * 'Boundary conditions/Constant loads'), a table of points (lambda_i, a_i)
   * interpolated linearly and held at its end values outside it (Abaqus'
   * tabular amplitude), or an expression of t = lambda (deal.II
   * FunctionParser). The load factor is then the pseudo-time of the run.
   */
  class LoadAmplitude
  {
  public:
    /** How the amplitude is given. */
    enum class Kind
    {
      /** a(lambda) = lambda. */
      load_factor,
      /** a(lambda) = 1. */
      constant,
      /** Linear interpolation in a table. */
      table,
      /** An expression of t. */
      function
    };

    /** a(lambda) = lambda. */
    LoadAmplitude() = default;

    /** a(lambda) = 1. */
    static LoadAmplitude
    constant();

    /**
     * The amplitude an entry gives: empty, the load factor; a table
     * 'lambda_0: a_0, lambda_1: a_1, ...' with increasing lambda_i; anything
     * else, an expression of t (pi known). Throws InputError naming @p entry
     * for a table out of order or an expression that does not parse.
     */
    static LoadAmplitude
    parse(const std::string &text, const std::string &entry);

    /** a(@p load_factor). */
    double
    operator()(double load_factor) const;

    /** How the amplitude was given. */
    Kind
    kind() const;

    /** Whether a(lambda) = lambda. */
    bool
    follows_load_factor() const;

    /** The load factors of the table's points (empty unless a table). */
    const std::vector<double> &
    table_load_factors() const;

  private:
    Kind                                       amplitude_kind = Kind::load_factor;
    std::vector<double>                        load_factors;
    std::vector<double>                        values;
    std::shared_ptr<dealii::FunctionParser<1>> expression;
  };
} // namespace plastix

#endif
