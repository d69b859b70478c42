// The cell mass matrix, consistent or row-sum lumped.
#include <plastix/core/mass_matrix.h>

#include <stdexcept>

namespace plastix
{
  void
  add_cell_mass_matrix(const dealii::FEValues<3>  &fe_values,
                       const double                density,
                       const MassMatrix            kind,
                       const double                factor,
                       dealii::FullMatrix<double> &cell_matrix)
  {
    if (kind == MassMatrix::none)
      throw std::invalid_argument("plastix::add_cell_mass_matrix: no mass matrix (MassMatrix::none) to add");
    const dealii::FiniteElement<3> &fe      = fe_values.get_fe();
    const unsigned int              n_dofs  = fe.n_dofs_per_cell();
    for (unsigned int i = 0; i < n_dofs; ++i)
      {
        const unsigned int component = fe.system_to_component_index(i).first;
        double             row_sum   = 0.;
        for (unsigned int j = 0; j < n_dofs; ++j)
          {
            if (fe.system_to_component_index(j).first != component)
              continue;
            double value = 0.;
            for (const unsigned int q : fe_values.quadrature_point_indices())
              value += fe_values.shape_value(i, q) * fe_values.shape_value(j, q) * fe_values.JxW(q);
            value *= factor * density;
            if (kind == MassMatrix::consistent)
              cell_matrix(i, j) += value;
            else
              row_sum += value;
          }
        if (kind == MassMatrix::lumped)
          cell_matrix(i, i) += row_sum;
      }
  }
} // namespace plastix
