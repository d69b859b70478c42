// External force of tractions, pressures and a body force (host assembly).
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>

#include <plastix/core/external_force.h>

namespace plastix
{
  void
  assemble_external_force(const dealii::DoFHandler<3>                                      &dof_handler,
                          const std::map<dealii::types::boundary_id, dealii::Tensor<1, 3>> &tractions,
                          const std::map<dealii::types::boundary_id, double>               &pressures,
                          const dealii::Tensor<1, 3>                                       &body_force,
                          dealii::LinearAlgebra::distributed::Vector<double>               &force)
  {

    const dealii::FiniteElement<3> &fe = dof_handler.get_fe();
    const dealii::MappingQ<3>       mapping(1);
    const dealii::QGauss<3>         cell_quadrature(2);
    const dealii::QGauss<2>         face_quadrature(2);
    dealii::FEValues<3>             fe_values(mapping, fe, cell_quadrature,
                                  dealii::update_values | dealii::update_JxW_values);
    dealii::FEFaceValues<3>         fe_face_values(mapping, fe, face_quadrature,
                                           dealii::update_values | dealii::update_JxW_values |
                                             dealii::update_normal_vectors);
    const bool has_body_force = body_force.norm() > 0;
    std::vector<dealii::types::global_dof_index> dofs(fe.n_dofs_per_cell());
    dealii::Vector<double>                       cell_force(fe.n_dofs_per_cell());
    force = 0;
    for (const auto &cell : dof_handler.active_cell_iterators())
      {
        // Without a body force only cells at the boundary can carry a load.
        if (!cell->is_locally_owned() || (!has_body_force && !cell->at_boundary()))
          continue;
        cell_force = 0;
        if (has_body_force)
          {
            fe_values.reinit(cell);
            for (unsigned int q = 0; q < cell_quadrature.size(); ++q)
              for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
                {
                  const unsigned int c = fe.system_to_component_index(i).first;
                  cell_force(i) += fe_values.shape_value(i, q) * body_force[c] * fe_values.JxW(q);
                }
          }
        for (const auto f : cell->face_indices())
          {
            if (!cell->face(f)->at_boundary())
              continue;
            const auto id       = cell->face(f)->boundary_id();
            const auto traction = tractions.find(id);
            const auto pressure = pressures.find(id);
            if (traction == tractions.end() && pressure == pressures.end())
              continue;
            const dealii::Tensor<1, 3> t = traction != tractions.end() ? traction->second : dealii::Tensor<1, 3>();
            const double               p = pressure != pressures.end() ? pressure->second : 0.;
            fe_face_values.reinit(cell, f);
            for (unsigned int q = 0; q < face_quadrature.size(); ++q)
              {
                const auto &n = fe_face_values.normal_vector(q);
                for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
                  {
                    const unsigned int c     = fe.system_to_component_index(i).first;
                    const double       value = t[c] - p * n[c];
                    cell_force(i) += fe_face_values.shape_value(i, q) * value * fe_face_values.JxW(q);
                  }
              }
          }
        cell->get_dof_indices(dofs);
        for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
          force(dofs[i]) += cell_force(i);
      }
    force.compress(dealii::VectorOperation::add);
  }
} // namespace plastix
