// Meshes of the plastix application: generated geometries and mesh files.
#ifndef PLASTIX_APP_MESH_GENERATION_H
#define PLASTIX_APP_MESH_GENERATION_H

#include <deal.II/base/function.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/grid/tria.h>

#include "parameters.h"
#include "voxel_image.h"

#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace plastix
{
  /**
   * Fill the empty @p triangulation (serial or parallel::distributed) as
   * @p parameters describe: generate or read the coarse mesh, refine, distort.
   * Generated geometries have material id 0 and boundary ids 0..5 on the
   * faces of their bounding box (x-, x+, y-, y+, z-, z+), 6 elsewhere; file
   * meshes keep the ids of the file. Throws InputError for unreadable files.
   */
  void
  create_mesh(const MeshParameters &parameters, dealii::Triangulation<3> &triangulation);

  /**
   * The coarse mesh of @p parameters (generated or read, with its boundary
   * and material ids and manifolds), not refined or distorted.
   */
  /**
   * A deal.II FunctionParser of @p expression in @p variables (e.g.
   * "x,y,z"; with @p time_dependent the last one is the time variable),
   * pi known, evaluated once: a malformed expression is an InputError of
   * @p entry, one line (muparser's own report, which deal.II writes to
   * std::cerr, is kept out of it).
   */
  std::unique_ptr<dealii::Function<3>>
  parse_expression(const std::string &entry,
                   const std::string &variables,
                   const std::string &expression,
                   bool               time_dependent = false);

  /** The function of 'Mesh/Local refinement region' (parse_expression() in x, y, z). */
  std::unique_ptr<dealii::Function<3>>
  make_local_refinement_region(const MeshParameters &parameters);

  /**
   * Refine the active cells whose centre makes the region positive,
   * 'Local refinements' times (locally owned cells of a distributed mesh).
   */
  void
  refine_locally(const MeshParameters &parameters, dealii::Triangulation<3> &triangulation);

  void
  create_coarse_mesh(const MeshParameters &parameters, dealii::Triangulation<3> &triangulation);

  /**
   * The body of Geometry = fixed grid: the expression 'Mesh/Fixed grid/Body'
   * (negative inside), or the voxel image 'Image file' spanning the box
   * from 'Lower corner' to 'Upper corner' (inside where a voxel value is at
   * least 'Threshold'), with the 'Material regions' of the grid cells.
   */
  class FixedGridBody
  {
  public:
    /** Parse the expressions and read the image; InputError naming the entry on any fault. */
    explicit FixedGridBody(const MeshParameters &parameters);

    ~FixedGridBody();

    /** Whether @p x lies in the body. */
    bool
    inside(const dealii::Point<3> &x) const;

    /** The body's value at @p x: the Body expression, or the value of the voxel that holds @p x. */
    double
    value(const dealii::Point<3> &x) const;

    /** The share of the Samples^3 sub-cell centres of the box [@p lower, @p upper] inside the body. */
    double
    fraction(const dealii::Point<3> &lower, const dealii::Point<3> &upper, unsigned int samples) const;

    /** The id of the first material region whose expression is negative at @p x (with v = value(x)), else 0. */
    dealii::types::material_id
    material_id(const dealii::Point<3> &x) const;

  private:
    std::unique_ptr<dealii::Function<3>> expression;
    std::shared_ptr<const VoxelImage>    image;
    dealii::Point<3>                     lower, upper;
    double                               threshold = 0;
    /** (id, expression in x, y, z and the time variable v). */
    std::vector<std::pair<dealii::types::material_id, std::unique_ptr<dealii::Function<3>>>> regions;
  };

  /**
   * The fixed-grid body of @p parameters, built once for a run (the image
   * is read once; a later call with the same 'Mesh' entries returns the
   * same body).
   */
  std::shared_ptr<const FixedGridBody>
  fixed_grid_body(const MeshParameters &parameters);

  /**
   * The volume fractions of the fixed-grid body in the cells of a mesh: an
   * active cell's is the share of its Samples^3 sub-cell centres inside
   * the body; a cell with children takes their mean, so that the multigrid
   * levels see the material their fine cells hold. Cached per cell.
   */
  class FixedGridFractions
  {
  public:
    explicit FixedGridFractions(const MeshParameters &parameters);

    /** The volume fraction xi of @p cell (active or level). */
    double
    operator()(const dealii::TriaIterator<dealii::CellAccessor<3>> &cell) const;

    /** The stiffness factor xi + Delta (1 - xi) of @p cell. */
    double
    stiffness_factor(const dealii::TriaIterator<dealii::CellAccessor<3>> &cell) const;

    /** The volume fraction from the samples of @p cell alone (its children ignored). */
    double
    sampled(const dealii::TriaIterator<dealii::CellAccessor<3>> &cell) const;

    /** Forget the cached values (after the mesh changed). */
    void
    clear();

  private:
    std::shared_ptr<const FixedGridBody>          body;
    unsigned int                                  samples;
    double                                        void_stiffness;
    mutable std::map<std::pair<int, int>, double> cache;
  };

  /**
   * Fill the empty @p triangulation with the mesh saved in @p file (by
   * parallel::distributed::Triangulation::save(), e.g. in a checkpoint) on
   * the coarse mesh of @p parameters, then distort it as create_mesh() does.
   * The data attached to the saved mesh is then ready to be unpacked.
   */
  void
  load_mesh(const MeshParameters                            &parameters,
            dealii::parallel::distributed::Triangulation<3> &triangulation,
            const std::string                               &file);

  /**
   * Give boundary faces ids 0..5 if their centre lies on the face x-, x+, y-,
   * y+, z-, z+ of the bounding box of @p triangulation, 6 otherwise.
   */
  void
  set_bounding_box_boundary_ids(dealii::Triangulation<3> &triangulation);

  /** As set_bounding_box_boundary_ids() for the box [@p lower, @p upper] (which the mesh need not fill). */
  void
  set_box_boundary_ids(dealii::Triangulation<3> &triangulation, const dealii::Point<3> &lower,
                       const dealii::Point<3> &upper);

  /**
   * Move every interior vertex by @p factor times the shortest edge of the
   * active cells around it, in a pseudo-random direction that is a function
   * of the vertex position and @p seed only. Unlike
   * dealii::GridTools::distort_random, which draws numbers in the order the
   * vertices are stored, the result does not depend on the number of MPI
   * ranks: every vertex of a locally owned cell moves the same way whatever
   * the partition (its adjacent cells are all owned or ghost cells). Vertices
   * only touched by artificial cells may move differently; plastix never
   * uses them. Vertices on the boundary stay.
   */
  void
  distort_vertices(dealii::Triangulation<3> &triangulation, const double factor, const unsigned int seed);
} // namespace plastix

#endif
