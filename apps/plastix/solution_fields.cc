// The cell fields of linear-elastic and finite-strain solutions.
#include "solution_fields.h"

#include "driver_tools.h"

#include <plastix/core/finite_strain_state.h>

namespace plastix
{
  CellFields
  elastic_cell_fields(const Discretization &d, const DeviceVector &u, PointFields &point_fields)
  {
    const std::vector<double> strain = d.op.cell_average_strain(u);
    const char *names[6] = {"stress_xx", "stress_yy", "stress_zz", "stress_yz", "stress_xz", "stress_xy"};
    CellFields  fields;
    for (const char *name : names)
      fields.emplace_back(name, std::vector<double>());
    fields.emplace_back("von_mises", std::vector<double>());
    std::vector<double> stress;
    unsigned int        k = 0;
    for (const auto &cell : d.triangulation->active_cell_iterators())
      {
        if (!cell->is_locally_owned())
          continue;
        const auto   &m  = d.materials.at(cell->material_id());
        const double *e  = &strain[6 * k++];
        const double  tr = e[0] + e[1] + e[2];
        double        s[6];
        for (unsigned int c = 0; c < 6; ++c)
          s[c] = 2. * m.mu * e[c] + (c < 3 ? m.lambda * tr : 0.);
        for (unsigned int c = 0; c < 6; ++c)
          fields[c].values.push_back(s[c]);
        fields[6].values.push_back(von_mises_stress(s));
        stress.insert(stress.end(), s, s + 6);
      }
    add_additional_quantities(d.parameters.output, d.dof_handler, stress, strain, fields, point_fields);
    d.add_geometry_fields(fields);
    return fields;
  }

  CellFields
  finite_strain_cell_fields(const Discretization                                     &d,
                            const dealii::LinearAlgebra::distributed::Vector<double> &u_host,
                            PointFields                                              &point_fields)
  {
    constexpr unsigned int    n        = finite_strain_values_per_cell;
    const std::vector<double> history  = d.op.finite_strain().committed_history();
    const std::vector<double> averages =
      finite_strain_cell_averages(d.dof_handler, d.materials, u_host, history,
                                  d.parameters.op.element_formulation == backend::ElementFormulation::fbar);
    const std::size_t         n_cells  = averages.size() / n;
    const char *names[6] = {"stress_xx", "stress_yy", "stress_zz", "stress_yz", "stress_xz", "stress_xy"};
    CellFields  fields;
    std::vector<double> stress(6 * n_cells), strain(6 * n_cells), von_mises(n_cells), volume_ratio(n_cells);
    for (std::size_t c = 0; c < n_cells; ++c)
      {
        std::copy_n(&averages[n * c], 6, &stress[6 * c]);
        std::copy_n(&averages[n * c + 7], 6, &strain[6 * c]);
        von_mises[c]    = von_mises_stress(&stress[6 * c]);
        volume_ratio[c] = averages[n * c + 6];
      }
    for (unsigned int f = 0; f < 6; ++f)
      {
        std::vector<double> values(n_cells);
        for (std::size_t c = 0; c < n_cells; ++c)
          values[c] = stress[6 * c + f];
        fields.emplace_back(names[f], std::move(values));
      }
    fields.emplace_back("von_mises", std::move(von_mises));
    fields.emplace_back("volume_ratio", std::move(volume_ratio));
    if (!history.empty())
      {
        // Elastoplasticity in the logarithmic strain: its strain measures.
        std::vector<double> alpha(n_cells);
        for (std::size_t c = 0; c < n_cells; ++c)
          alpha[c] = averages[n * c + 13];
        fields.emplace_back("equivalent_plastic_strain", std::move(alpha));
        if (d.parameters.output.writes("strain"))
          {
            const char *log_names[6] = {"logarithmic_strain_xx", "logarithmic_strain_yy", "logarithmic_strain_zz",
                                        "logarithmic_strain_yz", "logarithmic_strain_xz", "logarithmic_strain_xy"};
            for (unsigned int f = 0; f < 6; ++f)
              {
                std::vector<double> values(n_cells);
                for (std::size_t c = 0; c < n_cells; ++c)
                  values[c] = averages[n * c + 14 + f];
                fields.emplace_back(log_names[f], std::move(values));
              }
          }
        if (d.parameters.output.writes("plastic strain"))
          add_plastic_strain(d.dof_handler, history, fields);
      }
    add_additional_quantities(d.parameters.output, d.dof_handler, stress,
                              d.parameters.output.writes("strain") ? strain : std::vector<double>(), fields,
                              point_fields);
    return fields;
  }
} // namespace plastix
