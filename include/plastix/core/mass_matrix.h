// The mass matrix of solid dynamics: the choice of consistent or lumped mass
// and the cell matrix that the device operator's mass term and the
// multigrid coarse matrix both take.
#ifndef PLASTIX_CORE_MASS_MATRIX_H
#define PLASTIX_CORE_MASS_MATRIX_H

#include <deal.II/fe/fe_values.h>
#include <deal.II/lac/full_matrix.h>

#include <plastix/base/enum_patterns.h>

#include <string>
#include <utility>
#include <vector>

namespace plastix
{
  /**
   * The mass matrix of a MechanicsOperator (AdditionalData::mass_matrix),
   * from the densities of its materials (backend::MaterialConstants::density),
   * integrated with 2x2x2 Gauss points.
   */
  enum class MassMatrix
  {
    /** No mass matrix (statics). */
    none,
    /** Row-sum lumping: the diagonal rho int N_a dV of each vertex (explicit time integration). */
    lumped,
    /** The consistent mass matrix rho int N_a N_b dV on each displacement component. */
    consistent
  };

  template <>
  struct EnumNames<MassMatrix>
  {
    static constexpr const char *what = "mass matrix";
    static std::vector<std::pair<MassMatrix, std::string>>
    table()
    {
      return {{MassMatrix::none, "none"}, {MassMatrix::lumped, "lumped"}, {MassMatrix::consistent, "consistent"}};
    }
  };

  /**
   * Add @p factor times the mass matrix of kind @p kind (not none) with
   * @p density of the cell of @p fe_values (reinitialized on it, with
   * update_values and update_JxW_values; FESystem(FE_Q(1), 3), 2x2x2 Gauss
   * points) to @p cell_matrix (n_dofs_per_cell square).
   */
  void
  add_cell_mass_matrix(const dealii::FEValues<3>  &fe_values,
                       double                      density,
                       MassMatrix                  kind,
                       double                      factor,
                       dealii::FullMatrix<double> &cell_matrix);
} // namespace plastix

PLASTIX_ENUM_PATTERN(plastix::MassMatrix)

#endif
