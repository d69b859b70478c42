// The force and the load stiffness of a pressure that follows the
// deformation (host assembly on the boundary faces).
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/tensor.h>
#include <deal.II/fe/fe.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>

#include <plastix/core/follower_pressure.h>
#include <plastix/core/mechanics_operator.h>

namespace plastix
{
  namespace
  {
    using LoadedFaces = std::vector<std::pair<dealii::DoFHandler<3>::active_cell_iterator, unsigned int>>;

    /** The faces of owned active cells at the boundary with a non-zero pressure of @p pressures, by cell. */
    LoadedFaces
    loaded_faces(const dealii::DoFHandler<3>                        &dof_handler,
                 const std::map<dealii::types::boundary_id, double> &pressures)
    {
      LoadedFaces faces;
      for (const auto &cell : dof_handler.active_cell_iterators())
        if (cell->is_locally_owned() && cell->at_boundary())
          for (const auto f : cell->face_indices())
            if (cell->face(f)->at_boundary())
              {
                const auto pressure = pressures.find(cell->face(f)->boundary_id());
                if (pressure != pressures.end() && pressure->second != 0.)
                  faces.emplace_back(cell, f);
              }
      return faces;
    }

    /** assemble_follower_pressure() on the faces @p faces (those of loaded_faces()). */
    void
    assemble_on_faces(const dealii::DoFHandler<3>                              &dof_handler,
                      const LoadedFaces                                        &faces,
                      const std::map<dealii::types::boundary_id, double>       &pressures,
                      const dealii::LinearAlgebra::distributed::Vector<double> &displacement,
                      dealii::LinearAlgebra::distributed::Vector<double>       &force,
                      MatrixEntries                                            *stiffness)
    {
      const dealii::FiniteElement<3> &fe = dof_handler.get_fe();
      const dealii::MappingQ<3>       mapping(1);
      const dealii::QGauss<2>         face_quadrature(2);
      dealii::FEFaceValues<3>         fe_face_values(mapping, fe, face_quadrature,
                                             dealii::update_values | dealii::update_gradients |
                                               dealii::update_JxW_values | dealii::update_normal_vectors);
      const unsigned int              n_dofs = fe.n_dofs_per_cell();
      std::vector<dealii::types::global_dof_index> dofs(n_dofs);
      std::vector<double>                          cell_u(n_dofs);
      std::vector<unsigned int>                    face_dofs;
      dealii::Vector<double>                       cell_force(n_dofs);
      dealii::FullMatrix<double>                   cell_matrix(n_dofs, n_dofs);
      if (stiffness != nullptr)
        *stiffness = MatrixEntries();
      force = 0;
      // The faces come by cell: a cell's force and matrix are summed over its loaded faces, then added.
      for (std::size_t k = 0; k < faces.size();)
        {
          const auto &cell = faces[k].first;
          cell->get_dof_indices(dofs);
          for (unsigned int i = 0; i < n_dofs; ++i)
            cell_u[i] = displacement(dofs[i]);
          cell_force  = 0;
          cell_matrix = 0;
          for (; k < faces.size() && faces[k].first == cell; ++k)
            {
              const unsigned int f = faces[k].second;
              const double       p = pressures.at(cell->face(f)->boundary_id());
              fe_face_values.reinit(cell, f);
              face_dofs.clear();
              for (unsigned int i = 0; i < n_dofs; ++i)
                if (fe.has_support_on_face(i, f))
                  face_dofs.push_back(i);
              for (unsigned int q = 0; q < face_quadrature.size(); ++q)
                {
                  // F = I + Grad u at the face point (only its tangential part enters cof(F) N).
                  dealii::Tensor<2, 3> F;
                  for (unsigned int d = 0; d < 3; ++d)
                    F[d][d] = 1.;
                  for (unsigned int i = 0; i < n_dofs; ++i)
                    {
                      const unsigned int a = fe.system_to_component_index(i).first;
                      F[a] += cell_u[i] * fe_face_values.shape_grad(i, q);
                    }
                  const dealii::Tensor<1, 3> &N   = fe_face_values.normal_vector(q);
                  const dealii::Tensor<1, 3>  m   = dealii::cofactor(F) * N;
                  const double                JxW = fe_face_values.JxW(q);
                  for (const unsigned int i : face_dofs)
                    {
                      const unsigned int a     = fe.system_to_component_index(i).first;
                      const double       value = fe_face_values.shape_value(i, q) * JxW;
                      cell_force(i) -= p * m[a] * value;
                      if (stiffness == nullptr)
                        continue;
                      for (const unsigned int j : face_dofs)
                        {
                          const unsigned int b = fe.system_to_component_index(j).first;
                          if (a == b)
                            continue;
                          const dealii::Tensor<1, 3> w =
                            F * dealii::cross_product_3d(N, fe_face_values.shape_grad(j, q));
                          // eps_abc w_c for a != b: c the third index, the sign that of (a, b, c).
                          const unsigned int c    = 3 - a - b;
                          const double       sign = ((b + 3 - a) % 3 == 1) ? 1. : -1.;
                          cell_matrix(i, j) += p * value * sign * w[c];
                        }
                    }
                }
            }
          for (unsigned int i = 0; i < n_dofs; ++i)
            force(dofs[i]) += cell_force(i);
          if (stiffness != nullptr)
            for (unsigned int i = 0; i < n_dofs; ++i)
              for (unsigned int j = 0; j < n_dofs; ++j)
                if (cell_matrix(i, j) != 0.)
                  {
                    stiffness->rows.push_back(dofs[i]);
                    stiffness->columns.push_back(dofs[j]);
                    stiffness->values.push_back(cell_matrix(i, j));
                  }
        }
      force.compress(dealii::VectorOperation::add);
    }
  } // namespace

  void
  assemble_follower_pressure(const dealii::DoFHandler<3>                              &dof_handler,
                             const std::map<dealii::types::boundary_id, double>       &pressures,
                             const dealii::LinearAlgebra::distributed::Vector<double> &displacement,
                             dealii::LinearAlgebra::distributed::Vector<double>       &force,
                             MatrixEntries                                            *stiffness)
  {
    assemble_on_faces(dof_handler, loaded_faces(dof_handler, pressures), pressures, displacement, force, stiffness);
  }

  FollowerPressure::FollowerPressure(const dealii::DoFHandler<3>                        &dof_handler,
                                     MechanicsOperator                                  &op,
                                     const std::map<dealii::types::boundary_id, double> &pressures)
    : dof_handler(dof_handler)
    , op(op)
    , pressures(pressures)
    , faces(loaded_faces(dof_handler, pressures))
  {}

  void
  FollowerPressure::update(const DeviceVector &u, const double scale, DeviceVector &force, const bool with_stiffness)
  {
    if (host_displacement.get_partitioner() != op.get_partitioner())
      {
        host_displacement.reinit(op.get_partitioner());
        host_force.reinit(op.get_partitioner());
      }
    u.copy_to_host(host_displacement);
    host_displacement.update_ghost_values();
    assemble_on_faces(dof_handler, faces, pressures, host_displacement, host_force,
                      with_stiffness ? &entries : nullptr);
    if (force.get_partitioner() != op.get_partitioner())
      op.initialize_dof_vector(force);
    force.copy_from_host(host_force);
    op.condense(force);
    if (!with_stiffness)
      return;
    for (double &value : entries.values)
      value *= scale;
    op.set_load_stiffness(entries.rows, entries.columns, entries.values);
  }

  const std::map<dealii::types::boundary_id, double> &
  FollowerPressure::get_pressures() const
  {
    return pressures;
  }
} // namespace plastix
