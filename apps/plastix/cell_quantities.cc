// Strain, principal stresses and pressure per cell for the VTU output.
#include <deal.II/base/symmetric_tensor.h>

#include "cell_quantities.h"

namespace plastix
{
  void
  add_additional_quantities(const OutputParameters    &output,
                            const std::vector<double> &stress,
                            const std::vector<double> &strain,
                            CellFields                &fields)
  {
    const std::size_t n_cells = stress.size() / 6;
    if (output.writes("strain"))
      {
        const char *names[6] = {"strain_xx", "strain_yy", "strain_zz", "strain_yz", "strain_xz", "strain_xy"};
        for (unsigned int k = 0; k < 6; ++k)
          {
            std::vector<double> values(n_cells);
            for (std::size_t c = 0; c < n_cells; ++c)
              values[c] = strain[6 * c + k];
            fields.emplace_back(names[k], std::move(values));
          }
      }
    if (output.writes("principal stresses"))
      {
        std::vector<double> values[3], directions[3];
        for (unsigned int i = 0; i < 3; ++i)
          {
            values[i].resize(n_cells);
            directions[i].resize(3 * n_cells);
          }
        for (std::size_t c = 0; c < n_cells; ++c)
          {
            const double                   *s = &stress[6 * c];
            dealii::SymmetricTensor<2, 3>   sigma;
            sigma[0][0] = s[0];
            sigma[1][1] = s[1];
            sigma[2][2] = s[2];
            sigma[1][2] = s[3];
            sigma[0][2] = s[4];
            sigma[0][1] = s[5];
            // deal.II orders the eigenpairs by descending eigenvalue.
            const auto eigen = dealii::eigenvectors(sigma);
            for (unsigned int i = 0; i < 3; ++i)
              {
                values[i][c] = eigen[i].first;
                for (unsigned int d = 0; d < 3; ++d)
                  directions[i][3 * c + d] = eigen[i].second[d];
              }
          }
        for (unsigned int i = 0; i < 3; ++i)
          fields.emplace_back("principal_stress_" + std::to_string(i + 1), std::move(values[i]));
        for (unsigned int i = 0; i < 3; ++i)
          fields.emplace_back("principal_direction_" + std::to_string(i + 1), std::move(directions[i]), 3);
      }
    if (output.writes("pressure"))
      {
        std::vector<double> values(n_cells);
        for (std::size_t c = 0; c < n_cells; ++c)
          values[c] = -(stress[6 * c] + stress[6 * c + 1] + stress[6 * c + 2]) / 3.;
        fields.emplace_back("pressure", std::move(values));
      }
  }
} // namespace plastix
