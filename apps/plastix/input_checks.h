// Checks of a run's input that go beyond single parameter entries: the cell
// types of a mesh file, the memory the requested mesh would need, ids that
// must occur on the mesh, and prescribed displacements that remove every
// rigid-body motion. Each throws InputError with a one-line message naming
// the entry, before any solve starts.
#ifndef PLASTIX_APP_INPUT_CHECKS_H
#define PLASTIX_APP_INPUT_CHECKS_H

#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>

#include "parameters.h"

#include <map>
#include <set>
#include <string>

namespace plastix
{
  /** What a mesh file holds, by cell type, as scan_mesh_file() counts it. */
  struct MeshFileContents
  {
    /** Number of volume and surface cells by type name (e.g. "hexahedron", "tetrahedron (gmsh type 4)"). */
    std::map<std::string, unsigned long long> cells;
    /** Number of hexahedra (the cells plastix uses). */
    unsigned long long n_hexahedra = 0;
    /** Number of nodes. */
    unsigned long long n_nodes = 0;
  };

  /**
   * Read the gmsh (.msh, ASCII format 2.x or 4.x) or Abaqus (.inp) file
   * @p file without building a mesh and check that deal.II can read it as a
   * hexahedral mesh: hexahedra of first order, optionally with lines,
   * quadrilaterals and points as boundary markers; every element refers to
   * nodes that exist; the file is complete. Throws InputError("Mesh/File",
   * ...) naming the unsupported cell types and their counts, a binary gmsh
   * file, a missing node or a truncated section.
   */
  MeshFileContents
  scan_mesh_file(const std::string &file);

  /**
   * Number of active cells the mesh of @p mesh will have (coarse cells times
   * 8^refinements), computed without building it; for geometry = file the
   * hexahedra of the file are counted. An upper bound for the curved
   * geometries.
   */
  long double
  estimate_active_cells(const MeshParameters &mesh);

  /**
   * Work of a sparse LU factorization of the mesh's stiffness matrix
   * (floating-point operations, a rough estimate), without building it: on
   * the structured geometries (box, cantilever, L-shaped, fixed grid) with
   * n_0 <= n_1 <= n_2 cells per direction, the DoFs times the square of the
   * band 3 (n_0 + 1)(n_1 + 1) that a fill-reducing ordering leaves along the
   * longest direction, which is small for slender and thin bodies; on the
   * other geometries the same for a cube of estimate_active_cells() cells.
   */
  double
  estimate_direct_solver_work(const MeshParameters &mesh);

  /** The boundary ids of the faces on the boundary of @p triangulation, all ranks together (collective). */
  std::set<unsigned int>
  boundary_ids_on_mesh(const dealii::Triangulation<3> &triangulation);

  /** The material ids of the cells of @p triangulation, all ranks together (collective). */
  std::set<unsigned int>
  material_ids_on_mesh(const dealii::Triangulation<3> &triangulation);

  /**
   * Throw InputError naming @p entry if @p id (a @p kind: "boundary id" or
   * "material id") is not among @p ids, the ids the mesh has, which the
   * message lists.
   */
  void
  check_id_on_mesh(const std::set<unsigned int> &ids,
                   unsigned int                  id,
                   const std::string            &entry,
                   const std::string            &kind);

  /**
   * Throw InputError naming 'Materials/Per material id' or 'Monitor/Reactions'
   * if they name a material id or boundary id that does not occur on
   * @p triangulation (collective).
   */
  void
  check_mesh_ids(const Parameters &parameters, const dealii::Triangulation<3> &triangulation);

  /**
   * Throw InputError naming 'Boundary conditions/Dirichlet' if the prescribed
   * DoFs of @p constraints leave a rigid-body motion (translation or
   * rotation) of the body free, so that the operator would be singular: the
   * 6 x 6 Gram matrix of the rigid-body modes restricted to the prescribed
   * DoFs and to the lines of the normal supports on the boundary ids
   * @p normal_supports (e_c - sum_j w_j e_j at a node) and to the spring
   * faces of @p springs (e_c projected onto the normal where k_n > 0 and
   * onto the face where k_t > 0) must be regular (collective).
   */
  void
  check_rigid_body_motions(const dealii::DoFHandler<3>                   &dof_handler,
                           const dealii::AffineConstraints<double>       &constraints,
                           const std::vector<dealii::types::boundary_id> &normal_supports = {},
                           const BoundarySprings                         &springs         = {});

  /**
   * The axis (0, 1, 2) to which every face of each normal support is normal,
   * by boundary id, or dealii::numbers::invalid_unsigned_int for a support
   * with an inclined or curved face or with faces normal to different axes:
   * one pass over the mesh and one reduction for all supports (collective).
   */
  std::map<dealii::types::boundary_id, unsigned int>
  normal_support_axes(const Parameters &parameters, const dealii::Triangulation<3> &triangulation);

  /**
   * The component that each normal support fixes, for the multigrid levels,
   * which know prescribed components only: that of the support's axis
   * (normal_support_axes()), = 0 on every level. Throws InputError naming
   * 'Linear solver/Preconditioner' for a support with an inclined or curved
   * face.
   */
  DirichletBoundaries
  normal_support_components(const std::map<dealii::types::boundary_id, unsigned int> &axes);

  /**
   * Throw InputError naming 'Monitor/Reactions' if it lists a normal support
   * whose constraint lines have entries (a face not normal to an axis): the
   * sum of the internal force over its nodes is not its reaction there
   * (collective).
   */
  void
  check_reactions_on_normal_supports(const Parameters                        &parameters,
                                     const dealii::DoFHandler<3>             &dof_handler,
                                     const dealii::AffineConstraints<double> &constraints);
} // namespace plastix

#endif
