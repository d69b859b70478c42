// VTU/PVTU output with genuine cell data: deal.II 9.4's DataOut writes every
// field as point data of per-cell patches, so plastix writes its own files.
#ifndef PLASTIX_APP_VTU_WRITER_H
#define PLASTIX_APP_VTU_WRITER_H

#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace plastix
{
  /**
   * A quantity with @p n_components values per locally owned cell (in the
   * order of the locally owned active cells): a scalar (1) or a vector (3,
   * e.g. a principal direction).
   */
  struct CellField
  {
    CellField(std::string name, std::vector<double> values, const unsigned int n_components = 1)
      : name(std::move(name))
      , values(std::move(values))
      , n_components(n_components)
    {}

    /** The name of the DataArray. */
    std::string name;
    /** n_components values per cell, cell after cell. */
    std::vector<double> values;
    /** Values per cell. */
    unsigned int n_components;
  };

  /** The cell quantities of an output. */
  using CellFields = std::vector<CellField>;

  /** A quantity with @p n_components values per mesh vertex (point data). */
  struct PointField
  {
    /** The name of the DataArray. */
    std::string name;
    /** Values per vertex. */
    unsigned int n_components;
    /**
     * values(vertex_dof, out) writes the n_components values of the vertex
     * whose x-displacement DoF is vertex_dof (a locally relevant DoF) to out.
     */
    std::function<void(dealii::types::global_dof_index, double *)> values;
  };

  /** The point quantities of an output besides the displacement. */
  using PointFields = std::vector<PointField>;

  /**
   * Write the displacement @p displacement and the cell quantities
   * @p cell_fields of the locally owned cells of @p dof_handler (an
   * FESystem(FE_Q(1), 3)) as one VTU file per rank plus a PVTU record
   * written by rank 0, in the format ParaView expects:
   *
   * - an UnstructuredGrid of the locally owned cells (VTK_HEXAHEDRON) whose
   *   points are the distinct vertices of these cells, shared between the
   *   cells of the piece;
   * - <PointData>: "displacement" (Float64, 3 components) from the vertex
   *   DoFs, then every field of @p point_fields;
   * - <CellData>: every field of @p cell_fields (Float64, with its number
   *   of components), then
   *   "material_id" and "rank" (Int32).
   *
   * Every DataArray is binary: base64 of the zlib-compressed data behind a
   * UInt32 header {number of blocks, block size, size of the last block,
   * compressed size of each block} (VTK's vtkZLibDataCompressor encoding, as
   * deal.II writes it). The file names follow
   * DataOutInterface::write_vtu_with_pvtu_record():
   * "<base_name>_<counter, 4 digits>.<rank>.vtu" (the rank with as many
   * digits as the largest rank needs) and "<base_name>_<counter, 4
   * digits>.pvtu".
   *
   * Collective over @p communicator (ends with a barrier).
   *
   * @param directory Folder the files are written to (must exist).
   * @param dof_handler The DoFs of the displacement.
   * @param displacement The displacement with the locally relevant ghost
   *   values updated.
   * @param cell_fields Per field one value per locally owned active cell, in
   *   the order of dof_handler.active_cell_iterators().
   * @param base_name The file name without counter and extension.
   * @param counter The output number (e.g. the load step).
   * @param communicator The communicator of the triangulation.
   * @param write_cell Which locally owned cells to write (empty: all); the
   *   fields keep one value per locally owned cell, those of skipped cells
   *   are left out with them (the fixed grid's outside cells).
   * @param point_fields Quantities per vertex besides the displacement.
   * @return The name of the PVTU record (without @p directory).
   */
  std::string
  write_vtu_with_cell_data(const std::string                                        &directory,
                           const dealii::DoFHandler<3>                              &dof_handler,
                           const dealii::LinearAlgebra::distributed::Vector<double> &displacement,
                           const CellFields                                         &cell_fields,
                           const std::string                                        &base_name,
                           unsigned int                                              counter,
                           MPI_Comm                                                  communicator,
                           const std::function<bool(const dealii::DoFHandler<3>::active_cell_iterator &)> &write_cell = {},
                           const PointFields &point_fields = {});
} // namespace plastix

#endif
