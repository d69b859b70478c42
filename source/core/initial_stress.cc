// The in-situ stress in a Gauss-point history (small and finite strain).
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>

#include <plastix/backend/finite_strain_state.h>
#include <plastix/backend/gauss_point_state.h>

#include "initial_stress.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace plastix
{
  namespace internal
  {
    void
    write_initial_stress(const dealii::DoFHandler<3>                                                  &dof_handler,
                         const MaterialTable                                                          &materials,
                         const std::function<dealii::SymmetricTensor<2, 3>(const dealii::Point<3> &)> &initial_stress,
                         const InitialStressHolders                                                    holders,
                         const MPI_Comm                                                                communicator,
                         std::vector<double>                                                          &history)
    {
      // Both histories: 13 fields x 8 points per cell.
      constexpr unsigned int values = backend::GaussPointState::history_values_per_cell;
      static_assert(values == backend::FiniteStrainState::history_values_per_cell, "history layouts differ");
      // Gauss points in the backend's order (lexicographic, x fastest), as QGauss.
      const dealii::MappingQ<3> mapping(1);
      dealii::FEValues<3>       fe_values(mapping, dof_handler.get_fe(), dealii::QGauss<3>(2),
                                    dealii::update_quadrature_points);
      constexpr unsigned int    row[6] = {0, 1, 2, 1, 0, 0}, col[6] = {0, 1, 2, 2, 2, 1};
      const double              zero[6] = {0, 0, 0, 0, 0, 0};
      std::string               first_error;
      std::size_t               c = 0;
      for (const auto &cell : dof_handler.active_cell_iterators())
        {
          if (!cell->is_locally_owned())
            continue;
          const backend::MaterialConstants &m = material_of(materials, cell->material_id());
          const bool holds_no_history =
            holders == InitialStressHolders::hencky_materials && m.strain_energy != backend::StrainEnergy::hencky;
          fe_values.reinit(cell);
          for (unsigned int q = 0; q < 8; ++q)
            {
              const dealii::Point<3>             &x     = fe_values.quadrature_point(q);
              const dealii::SymmetricTensor<2, 3> sigma = initial_stress(x);
              double                              s[6];
              bool                                finite = true, zero_stress = true;
              for (int k = 0; k < 6; ++k)
                {
                  s[k]        = sigma[row[k]][col[k]];
                  finite      = finite && std::isfinite(s[k]);
                  zero_stress = zero_stress && s[k] == 0.;
                }
              if (!first_error.empty())
                continue;
              std::ostringstream where;
              where << "the initial stress at (" << x << ") of material id " << int(cell->material_id());
              if (!finite)
                first_error = where.str() + " is not finite";
              else if (holds_no_history)
                {
                  if (!zero_stress)
                    first_error = where.str() + " is not zero, but at finite strain only a material with Strain "
                                                "energy = Hencky takes an initial stress";
                }
              else if (m.criterion == backend::YieldCriterion::von_mises)
                {
                  // The von Mises history holds the back stress in these slots.
                  if (!zero_stress)
                    first_error = where.str() + " is not zero, but a von Mises material takes no initial stress";
                }
              else
                {
                  if (backend::pressure_dependent_return_map(m, zero, history[c * values + 6 * 8 + q], s, zero)
                        .region != backend::ReturnRegion::elastic)
                    first_error = where.str() + " lies outside its yield surface";
                  for (int k = 0; k < 6; ++k)
                    history[c * values + (7 + k) * 8 + q] = s[k];
                }
            }
          ++c;
        }
      // Every rank throws if one found an error, with the first rank's message.
      const unsigned int errors = dealii::Utilities::MPI::sum(first_error.empty() ? 0u : 1u, communicator);
      if (errors > 0)
        {
          const auto messages = dealii::Utilities::MPI::all_gather(communicator, first_error);
          for (const auto &message : messages)
            if (!message.empty())
              throw std::invalid_argument(message);
        }
    }
  } // namespace internal
} // namespace plastix
