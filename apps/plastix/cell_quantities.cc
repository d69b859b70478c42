// Strain, plastic strain, finite-strain stress, principal stresses and
// pressure per cell, and nodal stresses, for the VTU output.
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/symmetric_tensor.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <deal.II/base/tensor.h>
#include <deal.II/fe/fe_values_extractors.h>

#include <plastix/backend/finite_strain_state.h>
#include <plastix/backend/hyperelasticity.h>
#include <plastix/backend/logarithmic_strain_plasticity.h>
#include <plastix/core/plasticity_state.h>

#include "cell_quantities.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

namespace plastix
{
  namespace
  {
    /**
     * The nodal stresses of add_additional_quantities(): per vertex DoF triple
     * the volume-weighted sums of the normal (xx, yy, zz) and shear (yz, xz,
     * xy) cell stresses and, in the x entry of a third vector, the volume.
     */
    PointFields
    nodal_stresses(const dealii::DoFHandler<3> &dof_handler, const std::vector<double> &stress)
    {
      using Vector = dealii::LinearAlgebra::distributed::Vector<double>;
      dealii::IndexSet relevant;
      dealii::DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
      auto sums = std::make_shared<std::array<Vector, 3>>();
      for (auto &v : *sums)
        v.reinit(dof_handler.locally_owned_dofs(), relevant, dof_handler.get_communicator());
      std::size_t c = 0;
      for (const auto &cell : dof_handler.active_cell_iterators())
        if (cell->is_locally_owned())
          {
            const double  volume = cell->measure();
            const double *s      = &stress[6 * c++];
            for (const auto v : cell->vertex_indices())
              {
                for (unsigned int d = 0; d < 3; ++d)
                  {
                    (*sums)[0](cell->vertex_dof_index(v, d)) += volume * s[d];
                    (*sums)[1](cell->vertex_dof_index(v, d)) += volume * s[3 + d];
                  }
                (*sums)[2](cell->vertex_dof_index(v, 0)) += volume;
              }
          }
      for (auto &v : *sums)
        {
          v.compress(dealii::VectorOperation::add);
          v.update_ghost_values();
        }
      // The average of vertex_dof's cells, in our order xx, yy, zz, yz, xz, xy.
      const auto average = [sums](const dealii::types::global_dof_index dof, double *s) {
        const double volume = (*sums)[2](dof);
        for (unsigned int d = 0; d < 3; ++d)
          {
            s[d]     = (*sums)[0](dof + d) / volume;
            s[3 + d] = (*sums)[1](dof + d) / volume;
          }
      };
      PointFields fields;
      fields.push_back({"nodal_stress", 6, [average](const dealii::types::global_dof_index dof, double *out) {
                          double s[6];
                          average(dof, s);
                          const double vtk_order[6] = {s[0], s[1], s[2], s[5], s[3], s[4]};
                          std::copy_n(vtk_order, 6, out);
                        }});
      fields.push_back({"nodal_von_mises", 1, [average](const dealii::types::global_dof_index dof, double *out) {
                          double s[6];
                          average(dof, s);
                          out[0] = von_mises_stress(s);
                        }});
      return fields;
    }
  } // namespace

  double
  von_mises_stress(const double *s)
  {
    const double p  = (s[0] + s[1] + s[2]) / 3.;
    double       j2 = 0;
    for (unsigned int k = 0; k < 6; ++k)
      j2 += k < 3 ? 0.5 * (s[k] - p) * (s[k] - p) : s[k] * s[k];
    return std::sqrt(3. * j2);
  }

  void
  add_additional_quantities(const OutputParameters      &output,
                            const dealii::DoFHandler<3> &dof_handler,
                            const std::vector<double>   &stress,
                            const std::vector<double>   &strain,
                            CellFields                  &fields,
                            PointFields                 &point_fields)
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
    if (output.writes("nodal stresses"))
      for (auto &field : nodal_stresses(dof_handler, stress))
        point_fields.push_back(std::move(field));
    if (output.writes("pressure"))
      {
        std::vector<double> values(n_cells);
        for (std::size_t c = 0; c < n_cells; ++c)
          values[c] = -(stress[6 * c] + stress[6 * c + 1] + stress[6 * c + 2]) / 3.;
        fields.emplace_back("pressure", std::move(values));
      }
  }

  void
  add_plastic_strain(const dealii::DoFHandler<3> &dof_handler,
                     const std::vector<double>   &history,
                     CellFields                  &fields)
  {
    constexpr unsigned int values_per_cell = backend::GaussPointState::history_values_per_cell;
    const std::size_t      n_cells         = history.size() / values_per_cell;
    std::vector<double>    averages[6];
    for (auto &a : averages)
      a.assign(n_cells, 0.);
    // The backend's Gauss points are QGauss(2)'s, in the same order; the
    // plastic strain is the history's first six fields (value field * 8 + q).
    const dealii::MappingQ<3> mapping(1);
    dealii::FEValues<3>       fe_values(mapping, dof_handler.get_fe(), dealii::QGauss<3>(2), dealii::update_JxW_values);
    std::size_t               c = 0;
    for (const auto &cell : dof_handler.active_cell_iterators())
      {
        if (!cell->is_locally_owned())
          continue;
        fe_values.reinit(cell);
        double volume = 0;
        for (unsigned int q = 0; q < 8; ++q)
          {
            volume += fe_values.JxW(q);
            for (unsigned int k = 0; k < 6; ++k)
              averages[k][c] += fe_values.JxW(q) * history[c * values_per_cell + k * 8 + q];
          }
        for (unsigned int k = 0; k < 6; ++k)
          averages[k][c] /= volume;
        ++c;
      }
    AssertThrow(c == n_cells, dealii::ExcMessage("plastic strain history of the wrong size"));
    const char *names[6] = {"plastic_strain_xx", "plastic_strain_yy", "plastic_strain_zz",
                            "plastic_strain_yz", "plastic_strain_xz", "plastic_strain_xy"};
    for (unsigned int k = 0; k < 6; ++k)
      fields.emplace_back(names[k], std::move(averages[k]));
  }

  std::vector<double>
  finite_strain_cell_averages(const dealii::DoFHandler<3>                              &dof_handler,
                              const MaterialTable                                      &materials,
                              const dealii::LinearAlgebra::distributed::Vector<double> &u,
                              const std::vector<double>                                &history,
                              const bool                                                f_bar)
  {
    constexpr unsigned int history_values = backend::FiniteStrainState::history_values_per_cell;
    std::size_t            owned_cell     = 0;
    constexpr unsigned int     n = finite_strain_values_per_cell;
    const dealii::MappingQ<3>  mapping(1);
    dealii::FEValues<3>        fe_values(mapping, dof_handler.get_fe(), dealii::QGauss<3>(2),
                                         dealii::update_gradients | dealii::update_JxW_values);
    const dealii::FEValuesExtractors::Vector  displacement(0);
    std::vector<dealii::Tensor<2, 3>>         grad_u(fe_values.n_quadrature_points);
    std::vector<double>                       averages;
    // Symmetric tensors as xx, yy, zz, yz, xz, xy.
    constexpr unsigned int rows[6] = {0, 1, 2, 1, 0, 0}, columns[6] = {0, 1, 2, 2, 2, 1};
    for (const auto &cell : dof_handler.active_cell_iterators())
      {
        if (!cell->is_locally_owned())
          continue;
        fe_values.reinit(cell);
        fe_values[displacement].get_function_gradients(u, grad_u);
        const backend::MaterialConstants &material = material_of(materials, cell->material_id());
        double                            sums[n]  = {};
        double                            volume   = 0;
        // F-bar: the cell's volume-averaged J.
        double J_bar = 0, reference_volume = 0;
        for (unsigned int q = 0; q < fe_values.n_quadrature_points; ++q)
          {
            J_bar += fe_values.JxW(q) * determinant(dealii::unit_symmetric_tensor<3>() + grad_u[q]);
            reference_volume += fe_values.JxW(q);
          }
        J_bar /= reference_volume;
        for (unsigned int q = 0; q < fe_values.n_quadrature_points; ++q)
          {
            dealii::Tensor<2, 3> F = dealii::unit_symmetric_tensor<3>() + grad_u[q];
            if (f_bar)
              F *= std::cbrt(J_bar / determinant(F));
            double                     F_values[9], P_values[9];
            for (unsigned int i = 0; i < 3; ++i)
              for (unsigned int j = 0; j < 3; ++j)
                F_values[3 * i + j] = F[i][j];
            double       J     = 0;
            double       alpha = 0;
            if (material.strain_energy == backend::StrainEnergy::hencky && !history.empty())
              {
                // The point's committed history (Gauss points in the backend's order, as QGauss).
                double point_history[backend::logarithmic_strain_history_size];
                for (unsigned int k = 0; k < backend::logarithmic_strain_history_size; ++k)
                  point_history[k] = history[owned_cell * history_values + 8 * k + q];
                const backend::LogarithmicStrainPoint p =
                  backend::logarithmic_strain_return(material, F_values, point_history);
                std::copy_n(p.first_piola, 9, P_values);
                J     = determinant(F);
                alpha = p.history[6];
              }
            else
              J = backend::hyperelastic_stress(material, F_values, P_values);
            dealii::Tensor<2, 3> P;
            for (unsigned int i = 0; i < 3; ++i)
              for (unsigned int j = 0; j < 3; ++j)
                P[i][j] = P_values[3 * i + j];
            const dealii::Tensor<2, 3> sigma = P * transpose(F) / J;
            const dealii::Tensor<2, 3> E     = 0.5 * (transpose(F) * F - dealii::unit_symmetric_tensor<3>());
            const double               w     = fe_values.JxW(q);
            for (unsigned int k = 0; k < 6; ++k)
              {
                sums[k] += w * sigma[rows[k]][columns[k]];
                sums[7 + k] += w * E[rows[k]][columns[k]];
              }
            sums[6] += w * J;
            sums[13] += w * alpha;
            // The logarithmic strain 1/2 ln C from C's eigensystem (written with a history only).
            if (!history.empty())
              for (const auto &[value, vector] : dealii::eigenvectors(dealii::symmetrize(transpose(F) * F)))
                for (unsigned int k = 0; k < 6; ++k)
                  sums[14 + k] += w * 0.5 * std::log(value) * vector[rows[k]] * vector[columns[k]];
            volume += w;
          }
        for (const double sum : sums)
          averages.push_back(sum / volume);
        ++owned_cell;
      }
    return averages;
  }
} // namespace plastix
