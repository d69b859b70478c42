// VTU/PVTU writer with point data (displacement) and cell data (cell fields).
#include <deal.II/base/exceptions.h>
#include <deal.II/base/utilities.h>
#include <deal.II/grid/reference_cell.h>

#include "vtu_writer.h"

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace plastix
{
  namespace
  {
    /** Uncompressed size of the zlib blocks of a DataArray (VTK's layout, any size works). */
    constexpr std::uint32_t zlib_block_size = 1u << 20;

    /** deal.II's (lexicographic) vertex index of each vertex of a VTK_HEXAHEDRON (counter-clockwise). */
    constexpr unsigned int vtk_to_deal_vertex[8] = {0, 1, 3, 2, 4, 5, 7, 6};

    /** The VTK name of the element type @p T. */
    template <typename T>
    const char *
    vtk_type_name();

    template <>
    const char *
    vtk_type_name<double>()
    {
      return "Float64";
    }

    template <>
    const char *
    vtk_type_name<std::int32_t>()
    {
      return "Int32";
    }

    template <>
    const char *
    vtk_type_name<std::uint8_t>()
    {
      return "UInt8";
    }

    /** "LittleEndian" or "BigEndian": the byte order of this machine, in which the data are written. */
    const char *
    byte_order()
    {
      const std::uint16_t one = 1;
      unsigned char       first;
      std::memcpy(&first, &one, 1);
      return first == 1 ? "LittleEndian" : "BigEndian";
    }

    /** @p text with the characters that XML attributes cannot hold escaped. */
    std::string
    xml_escape(const std::string &text)
    {
      std::string out;
      for (const char c : text)
        switch (c)
          {
            case '&':
              out += "&amp;";
              break;
            case '<':
              out += "&lt;";
              break;
            case '>':
              out += "&gt;";
              break;
            case '"':
              out += "&quot;";
              break;
            default:
              out += c;
          }
      return out;
    }

    /**
     * @p data in VTK's binary, zlib-compressed encoding: base64 of the UInt32
     * header {number of blocks, block size, size of the last block (0 if it
     * is full), compressed size of each block}, followed by base64 of the
     * concatenated compressed blocks. Empty for empty @p data (as deal.II).
     */
    template <typename T>
    std::string
    encode_binary(const std::vector<T> &data)
    {
      if (data.empty())
        return "";
      const auto       *bytes    = reinterpret_cast<const unsigned char *>(data.data());
      const std::size_t n_bytes  = data.size() * sizeof(T);
      const std::size_t n_full   = n_bytes / zlib_block_size;
      const std::size_t last     = n_bytes % zlib_block_size;
      const std::size_t n_blocks = n_full + (last != 0 ? 1 : 0);
      AssertThrow(n_blocks < std::numeric_limits<std::uint32_t>::max() / 2,
                  dealii::ExcMessage("VTU output: data array too large"));

      std::vector<std::uint32_t> header = {static_cast<std::uint32_t>(n_blocks), zlib_block_size,
                                           static_cast<std::uint32_t>(last)};
      std::vector<unsigned char> compressed;
      std::vector<unsigned char> buffer;
      for (std::size_t b = 0; b < n_blocks; ++b)
        {
          const std::size_t size = (b == n_full) ? last : zlib_block_size;
          uLongf            length = compressBound(size);
          buffer.resize(length);
          const int error = compress2(buffer.data(), &length, bytes + b * zlib_block_size, size, Z_BEST_SPEED);
          AssertThrow(error == Z_OK, dealii::ExcMessage("VTU output: zlib compression failed"));
          header.push_back(static_cast<std::uint32_t>(length));
          compressed.insert(compressed.end(), buffer.begin(), buffer.begin() + length);
        }
      const auto *header_bytes = reinterpret_cast<const unsigned char *>(header.data());
      return dealii::Utilities::encode_base64(
               std::vector<unsigned char>(header_bytes, header_bytes + header.size() * sizeof(std::uint32_t))) +
             dealii::Utilities::encode_base64(compressed);
    }

    /** Append a binary DataArray element holding @p data to @p out. */
    template <typename T>
    void
    write_data_array(std::ostream         &out,
                     const std::string    &name,
                     const unsigned int    n_components,
                     const std::vector<T> &data)
    {
      out << "        <DataArray type=\"" << vtk_type_name<T>() << "\"";
      if (!name.empty())
        out << " Name=\"" << xml_escape(name) << "\"";
      if (n_components != 1)
        out << " NumberOfComponents=\"" << n_components << "\"";
      out << " format=\"binary\">\n"
          << "          " << encode_binary(data) << "\n"
          << "        </DataArray>\n";
    }

    /** Append the PDataArray element of a PVTU record to @p out. */
    void
    write_pdata_array(std::ostream      &out,
                      const char        *type,
                      const std::string &name,
                      const unsigned int n_components)
    {
      out << "      <PDataArray type=\"" << type << "\"";
      if (!name.empty())
        out << " Name=\"" << xml_escape(name) << "\"";
      if (n_components != 1)
        out << " NumberOfComponents=\"" << n_components << "\"";
      out << "/>\n";
    }

    /** The XML declaration and the VTKFile element of a file of type @p type. */
    std::string
    vtk_file_header(const std::string &type)
    {
      return std::string("<?xml version=\"1.0\"?>\n<!-- written by plastix -->\n<VTKFile type=\"") + type +
             "\" version=\"1.0\" byte_order=\"" + byte_order() +
             "\" header_type=\"UInt32\" compressor=\"vtkZLibDataCompressor\">\n";
    }

    /** The points and cells of the written locally owned cells (one VTU piece). */
    struct Piece
    {
      /** Coordinates and displacement of the distinct vertices, in the order met. */
      std::vector<double> points, point_displacement;
      /** The values of each point field at the points. */
      std::vector<std::vector<double>> point_values;
      std::vector<std::int32_t>        connectivity;
      std::vector<std::int32_t>        material_id;
      unsigned int                     n_points = 0;
      /** Whether each locally owned cell is written. */
      std::vector<bool> written;

      std::size_t
      n_cells() const
      {
        return material_id.size();
      }
    };

    Piece
    collect_piece(const dealii::DoFHandler<3>                                                    &dof_handler,
                  const dealii::LinearAlgebra::distributed::Vector<double>                       &displacement,
                  const std::function<bool(const dealii::DoFHandler<3>::active_cell_iterator &)> &write_cell,
                  const PointFields                                                              &point_fields)
    {
      constexpr unsigned int    invalid = std::numeric_limits<unsigned int>::max();
      std::vector<unsigned int> point_of_vertex(dof_handler.get_triangulation().n_vertices(), invalid);
      Piece                     piece;
      piece.point_values.resize(point_fields.size());
      for (const auto &cell : dof_handler.active_cell_iterators())
        {
          if (!cell->is_locally_owned())
            continue;
          piece.written.push_back(!write_cell || write_cell(cell));
          if (!piece.written.back())
            continue;
          for (const unsigned int vtk_vertex : vtk_to_deal_vertex)
            {
              unsigned int &point = point_of_vertex[cell->vertex_index(vtk_vertex)];
              if (point == invalid)
                {
                  point       = piece.n_points++;
                  const auto &x = cell->vertex(vtk_vertex);
                  for (unsigned int d = 0; d < 3; ++d)
                    {
                      piece.points.push_back(x[d]);
                      piece.point_displacement.push_back(displacement(cell->vertex_dof_index(vtk_vertex, d)));
                    }
                  for (std::size_t f = 0; f < point_fields.size(); ++f)
                    {
                      std::vector<double> &values = piece.point_values[f];
                      values.resize(values.size() + point_fields[f].n_components);
                      point_fields[f].values(cell->vertex_dof_index(vtk_vertex, 0),
                                             values.data() + values.size() - point_fields[f].n_components);
                    }
                }
              piece.connectivity.push_back(static_cast<std::int32_t>(point));
            }
          piece.material_id.push_back(static_cast<std::int32_t>(cell->material_id()));
        }
      AssertThrow(piece.n_points <= static_cast<unsigned int>(std::numeric_limits<std::int32_t>::max()) &&
                    piece.connectivity.size() <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()),
                  dealii::ExcMessage("VTU output: piece too large for Int32 connectivity"));
      return piece;
    }

    /** The values of @p cell_fields (given per locally owned cell) of the written cells. */
    CellFields
    written_cell_fields(const CellFields &cell_fields, const std::vector<bool> &written)
    {
      CellFields fields;
      for (const auto &field : cell_fields)
        {
          AssertThrow(field.values.size() == field.n_components * written.size(),
                      dealii::ExcMessage("VTU output: cell field '" + field.name + "' has " +
                                         std::to_string(field.values.size()) + " values for " +
                                         std::to_string(written.size()) + " locally owned cells and " +
                                         std::to_string(field.n_components) + " components"));
          std::vector<double> kept;
          for (std::size_t c = 0; c < written.size(); ++c)
            if (written[c])
              kept.insert(kept.end(), field.values.begin() + c * field.n_components,
                          field.values.begin() + (c + 1) * field.n_components);
          fields.emplace_back(field.name, std::move(kept), field.n_components);
        }
      return fields;
    }

    /** The VTU file of @p piece written by rank @p rank. */
    std::string
    piece_text(const Piece &piece, const CellFields &fields, const PointFields &point_fields, const unsigned int rank)
    {
      const std::size_t         n_cells = piece.n_cells();
      std::vector<std::int32_t> offsets(n_cells);
      for (std::size_t c = 0; c < n_cells; ++c)
        offsets[c] = static_cast<std::int32_t>(8 * (c + 1));
      const std::vector<std::uint8_t> types(
        n_cells, static_cast<std::uint8_t>(dealii::ReferenceCells::Hexahedron.vtk_linear_type()));
      const std::vector<std::int32_t> ranks(n_cells, static_cast<std::int32_t>(rank));
      std::ostringstream              out;
      out << vtk_file_header("UnstructuredGrid") << "  <UnstructuredGrid>\n"
          << "    <Piece NumberOfPoints=\"" << piece.n_points << "\" NumberOfCells=\"" << n_cells << "\">\n"
          << "      <Points>\n";
      write_data_array(out, "", 3, piece.points);
      out << "      </Points>\n"
          << "      <Cells>\n";
      write_data_array(out, "connectivity", 1, piece.connectivity);
      write_data_array(out, "offsets", 1, offsets);
      write_data_array(out, "types", 1, types);
      out << "      </Cells>\n"
          << "      <PointData Vectors=\"displacement\">\n";
      write_data_array(out, "displacement", 3, piece.point_displacement);
      for (std::size_t f = 0; f < point_fields.size(); ++f)
        write_data_array(out, point_fields[f].name, point_fields[f].n_components, piece.point_values[f]);
      out << "      </PointData>\n"
          << "      <CellData>\n";
      for (const auto &field : fields)
        write_data_array(out, field.name, field.n_components, field.values);
      write_data_array(out, "material_id", 1, piece.material_id);
      write_data_array(out, "rank", 1, ranks);
      out << "      </CellData>\n"
          << "    </Piece>\n"
          << "  </UnstructuredGrid>\n"
          << "</VTKFile>\n";
      return out.str();
    }

    /** The PVTU record of the pieces @p piece_names with these fields. */
    std::string
    record_text(const PointFields &point_fields, const CellFields &cell_fields, const std::vector<std::string> &piece_names)
    {
      std::ostringstream out;
      out << vtk_file_header("PUnstructuredGrid") << "  <PUnstructuredGrid GhostLevel=\"0\">\n"
          << "    <PPoints>\n";
      write_pdata_array(out, "Float64", "", 3);
      out << "    </PPoints>\n"
          << "    <PPointData Vectors=\"displacement\">\n";
      write_pdata_array(out, "Float64", "displacement", 3);
      for (const auto &field : point_fields)
        write_pdata_array(out, "Float64", field.name, field.n_components);
      out << "    </PPointData>\n"
          << "    <PCellData>\n";
      for (const auto &field : cell_fields)
        write_pdata_array(out, "Float64", field.name, field.n_components);
      write_pdata_array(out, "Int32", "material_id", 1);
      write_pdata_array(out, "Int32", "rank", 1);
      out << "    </PCellData>\n";
      for (const std::string &name : piece_names)
        out << "    <Piece Source=\"" << xml_escape(name) << "\"/>\n";
      out << "  </PUnstructuredGrid>\n"
          << "</VTKFile>\n";
      return out.str();
    }

    /** Write @p text to @p path; the error message, or empty on success. */
    std::string
    write_file(const std::string &path, const std::string &text)
    {
      std::ofstream file(path, std::ios::binary);
      file << text;
      file.close();
      return file ? std::string() : "cannot write '" + path + "'";
    }
  } // namespace

  std::string
  write_vtu_with_cell_data(const std::string                                                              &directory,
                           const dealii::DoFHandler<3>                                                    &dof_handler,
                           const dealii::LinearAlgebra::distributed::Vector<double>                       &displacement,
                           const CellFields                                                               &cell_fields,
                           const std::string                                                              &base_name,
                           const unsigned int                                                              counter,
                           MPI_Comm                                                                        communicator,
                           const std::function<bool(const dealii::DoFHandler<3>::active_cell_iterator &)> &write_cell,
                           const PointFields                                                              &point_fields)
  {
    const unsigned int rank    = dealii::Utilities::MPI::this_mpi_process(communicator);
    const unsigned int n_ranks = dealii::Utilities::MPI::n_mpi_processes(communicator);
    AssertThrow(dof_handler.get_fe().n_components() == 3 && dof_handler.get_fe().n_dofs_per_vertex() == 3,
                dealii::ExcMessage("VTU output needs a vector-valued Q1 element with 3 components"));
    const Piece      piece  = collect_piece(dof_handler, displacement, write_cell, point_fields);
    const CellFields fields = written_cell_fields(cell_fields, piece.written);

    // File names as DataOutInterface::write_vtu_with_pvtu_record() gives them.
    const std::string        stem        = base_name + "_" + dealii::Utilities::int_to_string(counter, 4);
    const unsigned int       rank_digits = dealii::Utilities::needed_digits(n_ranks - 1);
    std::vector<std::string> piece_names;
    for (unsigned int r = 0; r < n_ranks; ++r)
      piece_names.push_back(stem + "." + dealii::Utilities::int_to_string(r, rank_digits) + ".vtu");
    const std::string prefix = directory.empty() ? std::string() : directory + "/";
    const std::string pvtu   = stem + ".pvtu";
    std::string       error  = write_file(prefix + piece_names[rank], piece_text(piece, fields, point_fields, rank));
    if (rank == 0 && error.empty())
      error = write_file(prefix + pvtu, record_text(point_fields, cell_fields, piece_names));

    // Every rank learns of any rank's failure, so that all of them throw (or none).
    const auto errors = dealii::Utilities::MPI::all_gather(communicator, error);
    for (const auto &e : errors)
      if (!e.empty())
        throw std::runtime_error("VTU output: " + e);
    MPI_Barrier(communicator);
    return pvtu;
  }
} // namespace plastix
