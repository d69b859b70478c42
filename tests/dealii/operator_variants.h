// Every variant of plastix's operator, for the tests that compare them all
// with deal.II's operators and with each other.
#ifndef PLASTIX_TESTS_OPERATOR_VARIANTS_H
#define PLASTIX_TESTS_OPERATOR_VARIANTS_H

#include <plastix/core/mechanics_operator.h>

#include <string>
#include <vector>

namespace plastix_test
{
  /** The settings of one operator variant and its name ("strategy, kernel, mapping"). */
  struct OperatorVariant
  {
    plastix::MechanicsOperator::AdditionalData data;
    std::string                                name;
  };

  /**
   * Every strategy, cell kernel and thread mapping the backend offers, with
   * @p formulation: eight threads per cell (ThreadMapping::node) exist for
   * the two element-by-element strategies with global vectors only.
   */
  inline std::vector<OperatorVariant>
  all_operator_variants(const plastix::backend::ElementFormulation formulation)
  {
    using namespace plastix::backend;
    std::vector<OperatorVariant> variants;
    for (const auto strategy :
         {Strategy::ebe_atomic, Strategy::ebe_colored, Strategy::dbd, Strategy::ebe_tiled, Strategy::assembled})
      for (const auto kernel : {CellKernel::stored_geometry, CellKernel::geometry_on_the_fly, CellKernel::element_matrix})
        for (const auto mapping : {ThreadMapping::cell, ThreadMapping::node})
          if (mapping == ThreadMapping::cell || strategy == Strategy::ebe_atomic || strategy == Strategy::ebe_colored)
            variants.push_back({{strategy, kernel, mapping, formulation},
                                to_string(strategy) + ", " + to_string(kernel) + ", " + to_string(mapping)});
    return variants;
  }
} // namespace plastix_test

#endif
