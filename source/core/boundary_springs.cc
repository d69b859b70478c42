// The stiffness of boundary springs on a face.
#include <plastix/core/boundary_springs.h>

namespace plastix
{
  void
  add_boundary_spring_matrix(const dealii::FEFaceValues<3> &fe_face_values,
                             const BoundarySpring          &spring,
                             dealii::FullMatrix<double>    &cell_matrix)
  {
    const auto        &fe      = fe_face_values.get_fe();
    const unsigned int n_dofs  = fe.n_dofs_per_cell();
    for (const unsigned int q : fe_face_values.quadrature_point_indices())
      {
        const dealii::Tensor<2, 3> K   = boundary_spring_stiffness(spring, fe_face_values.normal_vector(q));
        const double               JxW = fe_face_values.JxW(q);
        for (unsigned int i = 0; i < n_dofs; ++i)
          {
            const unsigned int a       = fe.system_to_component_index(i).first;
            const double       phi_i   = fe_face_values.shape_value(i, q);
            if (phi_i == 0.)
              continue;
            for (unsigned int j = 0; j < n_dofs; ++j)
              {
                const unsigned int b = fe.system_to_component_index(j).first;
                cell_matrix(i, j) += phi_i * K[a][b] * fe_face_values.shape_value(j, q) * JxW;
              }
          }
      }
  }

  dealii::Tensor<2, 3>
  boundary_spring_stiffness(const BoundarySpring &spring, const dealii::Tensor<1, 3> &normal)
  {
    dealii::Tensor<2, 3> K;
    for (unsigned int a = 0; a < 3; ++a)
      for (unsigned int b = 0; b < 3; ++b)
        K[a][b] = (spring.normal_stiffness - spring.tangential_stiffness) * normal[a] * normal[b] +
                  (a == b ? spring.tangential_stiffness : 0.);
    return K;
  }

  dealii::UpdateFlags
  boundary_spring_update_flags()
  {
    return dealii::update_values | dealii::update_normal_vectors | dealii::update_JxW_values;
  }
} // namespace plastix
