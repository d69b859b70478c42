// Elastic supports on boundary faces (springs, a Winkler foundation): the
// one place where their stiffness per face is computed.
#ifndef PLASTIX_CORE_BOUNDARY_SPRINGS_H
#define PLASTIX_CORE_BOUNDARY_SPRINGS_H

#include <deal.II/base/tensor.h>
#include <deal.II/base/types.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/lac/full_matrix.h>

#include <map>

namespace plastix
{
  /**
   * A bed of springs on a boundary face (an elastic support, a Winkler
   * foundation): it pushes back with the traction t = -(k_n (u.n) n + k_t
   * (u - (u.n) n)) per unit area, n the outward unit normal. Its stiffness
   * enters the operator as the face term
   *   S_ij = int_face phi_i . (k_n n n^T + k_t (I - n n^T)) phi_j dA,
   * which is constant (small strains): the same in elastic and
   * elastoplastic runs, added to the tangent and, as S u, to the internal
   * force.
   */
  struct BoundarySpring
  {
    /** k_n: force per area per unit displacement along the normal (>= 0). */
    double normal_stiffness = 0.;
    /** k_t: force per area per unit displacement tangential to the face (>= 0). */
    double tangential_stiffness = 0.;
  };

  /** The springs of a mesh by boundary id. */
  using BoundarySprings = std::map<dealii::types::boundary_id, BoundarySpring>;

  /**
   * The stiffness per area of @p spring where the outward unit normal is
   * @p normal: K = k_n n n^T + k_t (I - n n^T); the springs push back with
   * the traction -K u.
   */
  dealii::Tensor<2, 3>
  boundary_spring_stiffness(const BoundarySpring &spring, const dealii::Tensor<1, 3> &normal);

  /**
   * Add the spring matrix of the face of @p fe_face_values (reinitialized on
   * it) to @p cell_matrix.
   */
  void
  add_boundary_spring_matrix(const dealii::FEFaceValues<3> &fe_face_values,
                             const BoundarySpring          &spring,
                             dealii::FullMatrix<double>    &cell_matrix);

  /** What the face values of add_boundary_spring_matrices() must compute (2x2 Gauss points suffice). */
  dealii::UpdateFlags
  boundary_spring_update_flags();

  /**
   * Add the spring matrices of the faces of @p cell that lie on the
   * boundary with an id of @p springs to @p cell_matrix (n_dofs_per_cell
   * square, in the cell's DoF order of FESystem(FE_Q(1), 3)). @p fe_face_values
   * needs update_values, update_normal_vectors and update_JxW_values; it is
   * reinitialized on each such face. Returns whether the cell has a spring
   * face. The cell may be active or a multigrid level cell.
   */
  template <typename CellIterator>
  bool
  add_boundary_spring_matrices(dealii::FEFaceValues<3>    &fe_face_values,
                               const CellIterator         &cell,
                               const BoundarySprings      &springs,
                               dealii::FullMatrix<double> &cell_matrix)
  {
    if (springs.empty() || !cell->at_boundary())
      return false;
    bool found = false;
    for (unsigned int f = 0; f < cell->n_faces(); ++f)
      {
        if (!cell->at_boundary(f))
          continue;
        const auto spring = springs.find(cell->face(f)->boundary_id());
        if (spring == springs.end())
          continue;
        found = true;
        fe_face_values.reinit(cell, f);
        add_boundary_spring_matrix(fe_face_values, spring->second, cell_matrix);
      }
    return found;
  }
} // namespace plastix

#endif
