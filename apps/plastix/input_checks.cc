// Input checks beyond single entries: mesh file contents, memory estimate,
// ids on the mesh, rigid-body motions left free by the prescribed values.
#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/lapack_full_matrix.h>

#include <plastix/backend/device.h>

#include "input_checks.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <unordered_set>
#include <vector>

namespace plastix
{
  namespace
  {
    /** gmsh element types: name and number of nodes (0 for types plastix does not know). */
    std::pair<std::string, unsigned int>
    gmsh_type(const int type)
    {
      static const std::map<int, std::pair<std::string, unsigned int>> types = {
        {1, {"line", 2}},
        {2, {"triangle", 3}},
        {3, {"quadrilateral", 4}},
        {4, {"tetrahedron", 4}},
        {5, {"hexahedron", 8}},
        {6, {"prism", 6}},
        {7, {"pyramid", 5}},
        {8, {"second-order line", 3}},
        {9, {"second-order triangle", 6}},
        {10, {"second-order quadrilateral", 9}},
        {11, {"second-order tetrahedron", 10}},
        {12, {"second-order hexahedron", 27}},
        {13, {"second-order prism", 18}},
        {14, {"second-order pyramid", 14}},
        {15, {"point", 1}},
        {16, {"8-node quadrilateral", 8}},
        {17, {"20-node hexahedron", 20}},
        {18, {"15-node prism", 15}},
        {19, {"13-node pyramid", 13}}};
      const auto it = types.find(type);
      if (it == types.end())
        return {"element", 0};
      return it->second;
    }

    /** Types a 3-D hexahedral mesh may hold in deal.II's reader: hexahedra and boundary markers. */
    bool
    gmsh_type_supported(const int type)
    {
      return type == 5 || type == 3 || type == 1 || type == 15;
    }

    [[noreturn]] void
    fail(const std::string &file, const std::string &reason)
    {
      throw InputError("Mesh/File", "'" + file + "': " + reason);
    }

    /** Throw if @p contents holds cell types plastix cannot use, naming them with their counts. */
    void
    reject_unsupported(const std::string &file, const std::map<std::string, unsigned long long> &unsupported)
    {
      if (unsupported.empty())
        return;
      std::string list;
      for (const auto &[name, count] : unsupported)
        list += (list.empty() ? "" : ", ") + std::to_string(count) + " " + name;
      fail(file, "unsupported cells: " + list + " (plastix needs a mesh of first-order hexahedra)");
    }

    /**
     * A scan of a gmsh file (ASCII, format 2.x or 4.x): the nodes, the cell
     * counts by type and every reason why deal.II's reader would fail or
     * plastix could not use the mesh, as an InputError naming the file.
     */
    class GmshScanner
    {
    public:
      GmshScanner(const std::string &file, std::istream &in)
        : file(file)
        , in(in)
      {}

      MeshFileContents
      scan()
      {
        while (std::getline(in, line))
          {
            const std::string t = trim(line);
            if (t == "$MeshFormat")
              read_format();
            else if (t == "$Nodes" || t == "$NOD")
              read_nodes(t == "$NOD");
            else if (t == "$Elements" || t == "$ELM")
              read_elements(t == "$ELM");
          }
        if (!have_nodes || !have_elements)
          fail(file, "not a gmsh mesh (no $Nodes or $Elements section)");
        reject_unsupported(file, unsupported);
        if (contents.n_hexahedra == 0)
          fail(file, "contains no hexahedra");
        return contents;
      }

    private:
      const std::string &
      next_line(const char *section)
      {
        if (!std::getline(in, line))
          fail(file, std::string("truncated in section ") + section);
        line = trim(line);
        return line;
      }

      /** The four non-negative integers of a gmsh 4 section or block header. */
      std::array<long long, 4>
      four_integers(const std::string &text, const std::string &what) const
      {
        std::istringstream       words(text);
        std::array<long long, 4> values{{0, 0, 0, 0}};
        for (auto &v : values)
          words >> v;
        if (!words || values[0] < 0 || values[3] < 0)
          fail(file, "unreadable " + what);
        return values;
      }

      /** The count of a gmsh 2 section header: "unreadable number of @p what" unless non-negative. */
      long long
      section_count(std::istringstream &header, const std::string &what) const
      {
        long long count = -1;
        header >> count;
        if (!header || count < 0)
          fail(file, "unreadable number of " + what);
        return count;
      }

      void
      read_format()
      {
        std::istringstream format(next_line("$MeshFormat"));
        int                file_type = -1, data_size = 0;
        format >> version >> file_type >> data_size;
        if (!format)
          fail(file, "unreadable $MeshFormat line");
        if (file_type != 0)
          fail(file, "binary gmsh files are not supported (save the mesh as ASCII)");
        if (version < 2 || version >= 5)
          fail(file, "gmsh format version " + std::to_string(version) + " is not supported (2.x or 4.x)");
      }

      void
      read_nodes(const bool legacy)
      {
        have_nodes = true;
        std::istringstream header(next_line("$Nodes"));
        if (version >= 4)
          {
            const long long n_blocks = four_integers(header.str(), "$Nodes header")[0];
            for (long long b = 0; b < n_blocks; ++b)
              {
                const long long n_in_block = four_integers(next_line("$Nodes"), "node block in $Nodes")[3];
                for (long long i = 0; i < n_in_block; ++i)
                  {
                    std::istringstream tag(next_line("$Nodes"));
                    long long          id = 0;
                    if (!(tag >> id))
                      fail(file, "unreadable node tag in $Nodes");
                    nodes.insert(id);
                  }
                for (long long i = 0; i < n_in_block; ++i)
                  {
                    std::istringstream xyz(next_line("$Nodes"));
                    double             x, y, z;
                    if (!(xyz >> x >> y >> z) || !std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z))
                      fail(file, "unreadable or non-finite node coordinates in $Nodes");
                  }
              }
          }
        else
          {
            const long long n_nodes = section_count(header, "nodes in $Nodes");
            for (long long i = 0; i < n_nodes; ++i)
              {
                std::istringstream node(next_line("$Nodes"));
                long long          id;
                double             x, y, z;
                if (!(node >> id >> x >> y >> z))
                  fail(file, "unreadable node line " + std::to_string(i + 1) + " in $Nodes");
                if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z))
                  fail(file, "node " + std::to_string(id) + " has non-finite coordinates");
                nodes.insert(id);
              }
          }
        if (next_line("$Nodes") != (legacy ? "$ENDNOD" : "$EndNodes"))
          fail(file, "the $Nodes section does not end where its count says");
        contents.n_nodes = nodes.size();
      }

      void
      count_element(const int type, const std::vector<long long> &element_nodes)
      {
        const auto [name, n_nodes] = gmsh_type(type);
        if (!gmsh_type_supported(type))
          {
            ++unsupported[name + " (gmsh type " + std::to_string(type) + ")"];
            return;
          }
        if (element_nodes.size() != n_nodes)
          fail(file, "a " + name + " with " + std::to_string(element_nodes.size()) +
                       " nodes (a malformed or truncated element line)");
        for (const auto node : element_nodes)
          if (nodes.count(node) == 0)
            fail(file, "an element refers to node " + std::to_string(node) + ", which is not in $Nodes");
        if (type == 5)
          ++contents.n_hexahedra;
        ++contents.cells[name];
      }

      void
      read_elements(const bool legacy)
      {
        have_elements = true;
        if (!have_nodes)
          fail(file, "$Elements before $Nodes");
        std::istringstream header(next_line("$Elements"));
        if (version >= 4)
          {
            const long long n_blocks = four_integers(header.str(), "$Elements header")[0];
            for (long long b = 0; b < n_blocks; ++b)
              {
                const auto      block      = four_integers(next_line("$Elements"), "element block in $Elements");
                const long long type       = block[2];
                const long long n_in_block = block[3];
                for (long long i = 0; i < n_in_block; ++i)
                  {
                    std::istringstream     element(next_line("$Elements"));
                    long long              tag, node;
                    std::vector<long long> element_nodes;
                    element >> tag;
                    while (element >> node)
                      element_nodes.push_back(node);
                    count_element(static_cast<int>(type), element_nodes);
                  }
              }
          }
        else
          {
            const long long n_elements = section_count(header, "elements in $Elements");
            for (long long i = 0; i < n_elements; ++i)
              {
                std::istringstream element(next_line("$Elements"));
                long long          id = 0, type = 0, n_tags = 0, value;
                if (!(element >> id >> type))
                  fail(file, "unreadable element line " + std::to_string(i + 1));
                std::vector<long long> element_nodes;
                if (legacy)
                  {
                    long long physical, elementary, n;
                    element >> physical >> elementary >> n;
                  }
                else
                  {
                    element >> n_tags;
                    for (long long k = 0; k < n_tags && element; ++k)
                      element >> value;
                  }
                while (element >> value)
                  element_nodes.push_back(value);
                count_element(static_cast<int>(type), element_nodes);
              }
          }
        if (next_line("$Elements") != (legacy ? "$ENDELM" : "$EndElements"))
          fail(file, "the $Elements section does not end where its count says");
      }

      const std::string                         &file;
      std::istream                              &in;
      std::string                                line;
      double                                     version       = 0;
      bool                                       have_nodes    = false;
      bool                                       have_elements = false;
      MeshFileContents                           contents;
      std::map<std::string, unsigned long long>  unsupported;
      std::unordered_set<long long>              nodes;
    };

    MeshFileContents
    scan_gmsh(const std::string &file, std::istream &in)
    {
      return GmshScanner(file, in).scan();
    }

    MeshFileContents
    scan_abaqus(const std::string &file, std::istream &in)
    {
      MeshFileContents                          contents;
      std::map<std::string, unsigned long long> unsupported;
      std::unordered_set<long long>             nodes;
      std::vector<long long>                    referenced;
      enum class Section
      {
        other,
        nodes,
        elements
      } section = Section::other;
      std::string type;
      bool        supported = false, hexahedron = false, continued = false;
      std::string line;
      while (std::getline(in, line))
        {
          const std::string t = trim(line);
          if (t.empty() || t.rfind("**", 0) == 0)
            continue;
          if (t[0] == '*')
            {
              const std::string keyword = to_lower(t);
              continued                 = false;
              if (keyword.rfind("*node", 0) == 0 && keyword.rfind("*node output", 0) != 0 &&
                  keyword.rfind("*node print", 0) != 0)
                section = Section::nodes;
              else if (keyword.rfind("*element", 0) == 0 && keyword.rfind("*element output", 0) != 0)
                {
                  section        = Section::elements;
                  const auto pos = keyword.find("type=");
                  if (pos == std::string::npos)
                    fail(file, "an *Element section without type=");
                  type = trim(t.substr(pos + 5));
                  type = type.substr(0, type.find(','));
                  const std::string upper_type = [&] {
                    std::string u = type;
                    for (auto &c : u)
                      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
                    return u;
                  }();
                  type       = upper_type;
                  hexahedron = type.rfind("C3D8", 0) == 0;
                  supported  = hexahedron || type.rfind("S4", 0) == 0 || type.rfind("CPS4", 0) == 0 ||
                              type.rfind("CPE4", 0) == 0 || type.rfind("M3D4", 0) == 0;
                }
              else
                section = Section::other;
              continue;
            }
          if (section == Section::nodes)
            {
              std::istringstream node(t);
              long long          id;
              char               comma;
              double             x, y, z = 0;
              if (!(node >> id >> comma >> x))
                fail(file, "unreadable *Node line '" + t.substr(0, 60) + "'");
              if (node >> comma >> y)
                node >> comma >> z;
              if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z))
                fail(file, "node " + std::to_string(id) + " has non-finite coordinates");
              nodes.insert(id);
            }
          else if (section == Section::elements)
            {
              std::istringstream element(t);
              std::string        item;
              std::vector<long long> values;
              while (std::getline(element, item, ','))
                {
                  item = trim(item);
                  if (item.empty())
                    continue;
                  try
                    {
                      values.push_back(std::stoll(item));
                    }
                  catch (const std::exception &)
                    {
                      fail(file, "unreadable *Element line '" + t.substr(0, 60) + "'");
                    }
                }
              // A line ending in ',' continues on the next one (long elements).
              const bool starts_element = !continued;
              continued                 = !t.empty() && t.back() == ',';
              if (!supported)
                {
                  if (starts_element)
                    ++unsupported["element of type " + type];
                  continue;
                }
              if (starts_element)
                {
                  ++contents.cells[type];
                  if (hexahedron)
                    ++contents.n_hexahedra;
                  if (values.size() != (hexahedron ? 9u : 5u))
                    fail(file, "a " + type + " element with " + std::to_string(values.size() - 1) + " nodes");
                }
              referenced.insert(referenced.end(), values.begin() + (starts_element ? 1 : 0), values.end());
            }
        }
      reject_unsupported(file, unsupported);
      for (const auto node : referenced)
        if (nodes.count(node) == 0)
          fail(file, "an element refers to node " + std::to_string(node) + ", which is not in *Node");
      contents.n_nodes = nodes.size();
      if (contents.n_hexahedra == 0)
        fail(file, "contains no hexahedra (C3D8 elements)");
      return contents;
    }

    /** Host memory the kernel reports as available (bytes; 0 if unknown). */
    long double
    host_memory_available()
    {
      std::ifstream in("/proc/meminfo");
      std::string   key;
      long double   value;
      std::string   unit;
      while (in >> key >> value >> unit)
        if (key == "MemAvailable:")
          return value * 1024.L;
      return 0;
    }

    std::string
    bytes_text(const long double bytes)
    {
      std::ostringstream s;
      s << std::setprecision(3);
      if (bytes >= 1e12L)
        s << static_cast<double>(bytes / 1e12L) << " TB";
      else if (bytes >= 1e9L)
        s << static_cast<double>(bytes / 1e9L) << " GB";
      else
        s << static_cast<double>(bytes / 1e6L) << " MB";
      return s.str();
    }
  } // namespace

  MeshFileContents
  scan_mesh_file(const std::string &file)
  {
    std::ifstream in(file, std::ios::binary);
    if (!in)
      throw InputError("Mesh/File", "cannot open mesh file '" + file + "'");
    const auto dot = file.rfind('.');
    const auto ext = dot == std::string::npos ? std::string() : to_lower(file.substr(dot));
    if (ext == ".msh")
      return scan_gmsh(file, in);
    if (ext == ".inp")
      return scan_abaqus(file, in);
    throw InputError("Mesh/File", "unknown mesh format '" + ext + "' of '" + file + "' (expected .msh or .inp)");
  }

  long double
  estimate_active_cells(const MeshParameters &mesh)
  {
    long double coarse = 0;
    const auto &s      = mesh.subdivisions;
    switch (mesh.geometry)
      {
        case GeometryType::box:
        case GeometryType::cantilever:
        case GeometryType::fixed_grid: // at most every cell of the grid
          coarse = static_cast<long double>(s[0]) * s[1] * s[2];
          break;
        case GeometryType::l_shaped:
          coarse = 0.75L * s[0] * s[1] * s[2];
          break;
        case GeometryType::l_bracket:
          coarse = 20 * 20 * 4 - 12 * 12 * 4;
          break;
        case GeometryType::plate_with_holes:
          coarse = 20 * 20 * 2 - 4 * 2 * 2 * 2;
          break;
        case GeometryType::cutout_cantilever:
          coarse = 60 * 20 * 4;
          break;
        case GeometryType::wellbore:
        case GeometryType::cook_membrane:
          coarse = static_cast<long double>(mesh.subdivisions[0]) * mesh.subdivisions[1] * mesh.subdivisions[2];
          break;
        case GeometryType::necking_bar:
          coarse = 3.L * mesh.subdivisions[2];
          break;
        case GeometryType::cylinder:
        case GeometryType::sphere:
          coarse = 64; // deal.II's quarter shells have a handful of coarse cells
          break;
        case GeometryType::file:
          coarse = scan_mesh_file(mesh.file).n_hexahedra;
          break;
      }
    return coarse * std::pow(8.L, mesh.global_refinements);
  }

  double
  estimate_direct_solver_work(const MeshParameters &mesh)
  {
    std::array<double, 3> n;
    switch (mesh.geometry)
      {
        case GeometryType::box:
        case GeometryType::cantilever:
        case GeometryType::l_shaped:
        case GeometryType::fixed_grid:
          for (unsigned int d = 0; d < 3; ++d)
            n[d] = mesh.subdivisions[d] * std::pow(2., mesh.global_refinements);
          break;
        default:
          n.fill(std::cbrt(static_cast<double>(estimate_active_cells(mesh))));
      }
    std::sort(n.begin(), n.end());
    const double dofs = 3 * (n[0] + 1) * (n[1] + 1) * (n[2] + 1);
    const double band = 3 * (n[0] + 1) * (n[1] + 1);
    return dofs * band * band;
  }

  void
  check_memory_estimate(const Parameters &parameters)
  {
    // Peak resident memory per active cell of a whole run (mesh, DoFs,
    // constraints, operator, vectors, output; elastoplastic: the Gauss-point
    // history, its checkpoint copy), measured with /usr/bin/time on a
    // 64,000-cell cube, host Serial build, Debian 12: 310 MB elastic, 607 MB
    // elastoplastic. The device share (CUDA builds) is what the backend
    // allocates per cell: geometry, vectors, and the J2 state.
    // Finite strain (deformation gradients, Newton's vectors) counts as elastoplastic.
    const bool        plastic        = parameters.problem.is_incremental();
    const long double host_per_cell  = plastic ? 9500.L : 4800.L;
    // Strategy = assembled adds its matrix: 3 rows of 81 values (8 B) and
    // 27 block indices (4 B) per node, about one node per cell.
    const long double device_per_cell = (plastic ? 4500.L : 1500.L) +
                                        (parameters.op.strategy == backend::Strategy::assembled ? 3.L * 81.L * 8.L + 27.L * 4.L : 0.L);
    const long double cells          = estimate_active_cells(parameters.mesh);
    const std::string entries        = parameters.mesh.geometry == GeometryType::file ?
                                         "Mesh/File, Mesh/Global refinements" :
                                         "Mesh/Subdivisions, Mesh/Global refinements";
    std::ostringstream cells_text;
    cells_text << std::setprecision(3) << static_cast<double>(cells);
    if (cells > 2e9L)
      throw InputError(entries, "the mesh would have " + cells_text.str() +
                                  " cells, more than plastix can index (2e9)");
    const long double host_needed    = cells * host_per_cell;
    const long double host_available = host_memory_available();
    if (host_available > 0 && host_needed > host_available)
      throw InputError(entries, "the mesh would have " + cells_text.str() + " cells and need about " +
                                  bytes_text(host_needed) + " of host memory; " + bytes_text(host_available) +
                                  " is available");
    const std::size_t device_free = backend::device_memory_available();
    if (device_free > 0)
      {
        const long double ranks         = dealii::Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD);
        const long double device_needed = cells * device_per_cell / ranks;
        if (device_needed > device_free)
          throw InputError(entries, "the mesh would have " + cells_text.str() + " cells and need about " +
                                      bytes_text(device_needed) + " of device memory per rank; " +
                                      bytes_text(device_free) + " is free");
      }
  }

  namespace
  {
    /** The union over the ranks of @p local_ids. */
    std::set<unsigned int>
    union_over_ranks(const std::set<unsigned int> &local_ids, const MPI_Comm comm)
    {
      const auto all = dealii::Utilities::MPI::compute_set_union(
        std::vector<unsigned int>(local_ids.begin(), local_ids.end()), comm);
      return {all.begin(), all.end()};
    }
  } // namespace

  std::set<unsigned int>
  boundary_ids_on_mesh(const dealii::Triangulation<3> &triangulation)
  {
    std::set<unsigned int> local;
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned() && cell->at_boundary())
        for (const auto f : cell->face_indices())
          if (cell->face(f)->at_boundary())
            local.insert(cell->face(f)->boundary_id());
    return union_over_ranks(local, triangulation.get_communicator());
  }

  std::set<unsigned int>
  material_ids_on_mesh(const dealii::Triangulation<3> &triangulation)
  {
    std::set<unsigned int> local;
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        local.insert(cell->material_id());
    return union_over_ranks(local, triangulation.get_communicator());
  }

  void
  check_id_on_mesh(const std::set<unsigned int> &ids,
                   const unsigned int            id,
                   const std::string            &entry,
                   const std::string            &kind)
  {
    if (ids.count(id) != 0)
      return;
    std::string list;
    for (const auto i : ids)
      list += (list.empty() ? "" : ", ") + std::to_string(i);
    throw InputError(entry, kind + " " + std::to_string(id) + " does not occur on the mesh (its " + kind +
                              "s are " + list + ")");
  }

  void
  check_mesh_ids(const Parameters &parameters, const dealii::Triangulation<3> &triangulation)
  {
    const auto materials = material_ids_on_mesh(triangulation);
    for (const auto &[id, material] : parameters.materials.per_material_id)
      check_id_on_mesh(materials, id, "Materials/Per material id", "material id");
    const auto boundary = boundary_ids_on_mesh(triangulation);
    for (const auto id : parameters.monitor.reaction_ids)
      check_id_on_mesh(boundary, id, "Monitor/Reactions", "boundary id");
    for (const auto &[id, spring] : parameters.boundary.springs)
      check_id_on_mesh(boundary, id, "Boundary conditions/Springs", "boundary id");
  }

  namespace
  {
    /**
     * The Gram matrix of the six rigid-body modes (translations e_0, e_1,
     * e_2 and rotations e_a x x) restricted to the held components: each
     * support adds the row of what it holds of every mode. A mode that no
     * support holds is a null vector. Coordinates relative to the centre of
     * the bounding box, scaled by its size, so that translations and
     * rotations weigh alike.
     */
    class RigidBodyGram
    {
    public:
      explicit RigidBodyGram(const dealii::Triangulation<3> &triangulation, const MPI_Comm comm)
      {
        const auto box = dealii::GridTools::compute_bounding_box(triangulation);
        auto       lo  = box.get_boundary_points().first;
        auto       hi  = box.get_boundary_points().second;
        for (unsigned int d = 0; d < 3; ++d)
          {
            lo[d] = dealii::Utilities::MPI::min(lo[d], comm);
            hi[d] = dealii::Utilities::MPI::max(hi[d], comm);
          }
        centre = 0.5 * (lo + hi);
        size   = std::max(lo.distance(hi), 1e-300);
      }

      /** Component @p c of the six modes at @p p, times @p weight, added to @p row. */
      void
      add_modes(const dealii::Point<3> &p, const unsigned int c, const double weight, double *row) const
      {
        const dealii::Tensor<1, 3> x              = (p - centre) / size;
        const double               rotation[3][3] = {{0, -x[2], x[1]}, {x[2], 0, -x[0]}, {-x[1], x[0], 0}};
        row[c] += weight;
        for (unsigned int a = 0; a < 3; ++a)
          row[3 + a] += weight * rotation[a][c];
      }

      /** Add row^T row. */
      void
      add_row(const double *row)
      {
        for (unsigned int i = 0; i < 6; ++i)
          for (unsigned int j = 0; j < 6; ++j)
            gram[6 * i + j] += row[i] * row[j];
      }

      /** A component @p c held at @p p (a Dirichlet DoF). */
      void
      add_held_component(const dealii::Point<3> &p, const unsigned int c)
      {
        double row[6] = {0, 0, 0, 0, 0, 0};
        add_modes(p, c, 1., row);
        add_row(row);
      }

      /**
       * A spring face holds, at each of its owned vertex DoFs, the modes with
       * a component along the normal (k_n > 0) and along the face (k_t > 0).
       */
      template <typename FaceIterator>
      void
      add_spring_face(const FaceIterator &face, const BoundarySpring &spring, const dealii::IndexSet &owned)
      {
        const dealii::Tensor<1, 3> normal =
          dealii::cross_product_3d(face->vertex(3) - face->vertex(0), face->vertex(2) - face->vertex(1));
        if (normal.norm() == 0)
          return;
        const dealii::Tensor<1, 3> n = normal / normal.norm();
        for (const auto fv : face->vertex_indices())
          for (unsigned int c = 0; c < 3; ++c)
            {
              if (!owned.is_element(face->vertex_dof_index(fv, c)))
                continue;
              // The projection of e_c onto the normal and onto the face, weighted by the stiffness.
              double row_normal[6] = {0, 0, 0, 0, 0, 0}, row_tangential[6] = {0, 0, 0, 0, 0, 0};
              for (unsigned int d = 0; d < 3; ++d)
                {
                  const double projection = n[c] * n[d];
                  add_modes(face->vertex(fv), d, spring.normal_stiffness > 0 ? projection : 0., row_normal);
                  add_modes(face->vertex(fv), d, spring.tangential_stiffness > 0 ? (c == d) - projection : 0.,
                            row_tangential);
                }
              add_row(row_normal);
              add_row(row_tangential);
            }
      }

      /**
       * A normal support's line u_c = sum_j w_j u_j at vertex @p fv of
       * @p face ties the components of one node: it holds the modes whose
       * component c differs from the weighted others there
       * (e_c - sum_j w_j e_j). A hanging-node line (to other nodes) holds no
       * rigid motion.
       */
      template <typename FaceIterator>
      void
      add_normal_support_line(const FaceIterator                                                    &face,
                              const unsigned int                                                     fv,
                              const unsigned int                                                     c,
                              const std::vector<std::pair<dealii::types::global_dof_index, double>> &entries)
      {
        double row[6] = {0, 0, 0, 0, 0, 0};
        add_modes(face->vertex(fv), c, 1., row);
        for (const auto &[column, weight] : entries)
          {
            unsigned int component = 3;
            for (unsigned int d = 0; d < 3; ++d)
              if (face->vertex_dof_index(fv, d) == column)
                component = d;
            if (component == 3)
              return;
            add_modes(face->vertex(fv), component, -weight, row);
          }
        add_row(row);
      }

      /** The Gram matrix summed over the ranks of @p comm, row by row. */
      std::vector<double>
      sum(const MPI_Comm comm) const
      {
        std::vector<double> total(36);
        dealii::Utilities::MPI::sum(gram, comm, total);
        return total;
      }

    private:
      dealii::Point<3>    centre;
      double              size = 1;
      std::vector<double> gram = std::vector<double>(36, 0.);
    };

    /** InputError naming the rigid-body motions that the Gram matrix @p gram leaves free, if any. */
    void
    throw_on_free_motions(const std::vector<double> &gram)
    {
      dealii::LAPACKFullMatrix<double> matrix(6, 6);
      for (unsigned int i = 0; i < 6; ++i)
        for (unsigned int j = 0; j < 6; ++j)
          matrix(i, j) = gram[6 * i + j];
      dealii::Vector<double>     eigenvalues;
      dealii::FullMatrix<double> eigenvectors;
      matrix.compute_eigenvalues_symmetric(-1., 1e300, 0., eigenvalues, eigenvectors);
      double largest = 0;
      for (unsigned int i = 0; i < eigenvalues.size(); ++i)
        largest = std::max(largest, eigenvalues[i]);
      static const char *mode_names[6] = {"translation in x",  "translation in y",  "translation in z",
                                          "rotation about x", "rotation about y", "rotation about z"};
      std::vector<std::string> free_modes;
      unsigned int             n_free = 0;
      for (unsigned int i = 0; i < eigenvalues.size(); ++i)
        if (eigenvalues[i] <= 1e-10 * std::max(largest, 1.))
          {
            ++n_free;
            unsigned int dominant = 0;
            for (unsigned int m = 1; m < 6; ++m)
              if (std::abs(eigenvectors(m, i)) > std::abs(eigenvectors(dominant, i)))
                dominant = m;
            free_modes.push_back(mode_names[dominant]);
          }
      if (largest == 0)
        throw InputError("Boundary conditions/Dirichlet",
                         "no displacement is prescribed, so the body can move freely (a singular problem): "
                         "prescribe displacements (or normal supports, or springs) that hold every translation and "
                         "rotation");
      if (free_modes.empty())
        return;
      std::sort(free_modes.begin(), free_modes.end());
      free_modes.erase(std::unique(free_modes.begin(), free_modes.end()), free_modes.end());
      std::string list;
      for (const auto &m : free_modes)
        list += (list.empty() ? "" : ", ") + m;
      throw InputError("Boundary conditions/Dirichlet",
                       "the prescribed displacements leave " + std::to_string(n_free) + " rigid-body motion(s) free (" +
                         list +
                         "), so the problem is singular: prescribe more components or faces (or normal "
                         "supports, or springs)");
    }
  } // namespace

  void
  check_rigid_body_motions(const dealii::DoFHandler<3>                   &dof_handler,
                           const dealii::AffineConstraints<double>       &constraints,
                           const std::vector<dealii::types::boundary_id> &normal_supports,
                           const BoundarySprings                         &springs)
  {
    const MPI_Comm          comm = dof_handler.get_communicator();
    RigidBodyGram           gram(dof_handler.get_triangulation(), comm);
    const dealii::IndexSet &owned = dof_handler.locally_owned_dofs();
    // Dirichlet lines only: a hanging-node DoF follows its neighbours.
    const auto is_dirichlet = [&constraints](const dealii::types::global_dof_index dof) {
      return constraints.is_constrained(dof) && constraints.get_constraint_entries(dof)->empty();
    };
    std::size_t n_owned_dirichlet = 0;
    for (const auto &line : constraints.get_lines())
      n_owned_dirichlet += owned.is_element(line.index) && is_dirichlet(line.index);
    // Each owned constrained DoF counts once.
    std::vector<bool> counted(owned.n_elements(), false);
    std::size_t       n_counted = 0;
    const auto        first_time = [&](const dealii::types::global_dof_index dof) {
      const auto k = owned.index_within_set(dof);
      if (counted[k])
        return false;
      counted[k] = true;
      return true;
    };
    const auto is_normal_support = [&](const dealii::types::boundary_id id) {
      return std::find(normal_supports.begin(), normal_supports.end(), id) != normal_supports.end();
    };
    // The cells at the boundary first, where prescribed displacements
    // usually are; the others only if some Dirichlet DoF is still missing.
    for (const bool boundary_pass : {true, false})
      for (const auto &cell : dof_handler.active_cell_iterators())
        {
          if (n_counted == n_owned_dirichlet && ((normal_supports.empty() && springs.empty()) || !boundary_pass))
            break;
          if (!cell->is_locally_owned() || cell->at_boundary() != boundary_pass)
            continue;
          for (const auto v : cell->vertex_indices())
            for (unsigned int c = 0; c < 3; ++c)
              {
                const auto dof = cell->vertex_dof_index(v, c);
                if (owned.is_element(dof) && is_dirichlet(dof) && first_time(dof))
                  {
                    ++n_counted;
                    gram.add_held_component(cell->vertex(v), c);
                  }
              }
          for (const auto f : cell->face_indices())
            {
              const auto face = cell->face(f);
              if (!face->at_boundary())
                continue;
              const auto spring = springs.find(face->boundary_id());
              if (spring != springs.end())
                gram.add_spring_face(face, spring->second, owned);
              if (!is_normal_support(face->boundary_id()))
                continue;
              for (const auto fv : face->vertex_indices())
                for (unsigned int c = 0; c < 3; ++c)
                  {
                    const auto dof = face->vertex_dof_index(fv, c);
                    if (owned.is_element(dof) && constraints.is_constrained(dof) && !is_dirichlet(dof) &&
                        first_time(dof))
                      gram.add_normal_support_line(face, fv, c, *constraints.get_constraint_entries(dof));
                  }
            }
        }
    throw_on_free_motions(gram.sum(comm));
  }

  void
  check_reactions_on_normal_supports(const Parameters                        &parameters,
                                     const dealii::DoFHandler<3>             &dof_handler,
                                     const dealii::AffineConstraints<double> &constraints)
  {
    const auto &supports = parameters.boundary.normal_supports;
    for (const auto id : parameters.monitor.reaction_ids)
      {
        if (std::find(supports.begin(), supports.end(), id) == supports.end())
          continue;
        // A normal along an axis fixes that component (a line without
        // entries), whose reaction sums as on a Dirichlet face; an inclined
        // one condenses the row onto the node's other components.
        const dealii::IndexSet dofs = dealii::DoFTools::extract_boundary_dofs(dof_handler, dealii::ComponentMask(), {id}) &
                                      dof_handler.locally_owned_dofs();
        bool inclined = false;
        for (const auto dof : dofs)
          if (const auto *entries = constraints.get_constraint_entries(dof))
            inclined = inclined || !entries->empty();
        if (dealii::Utilities::MPI::logical_or(inclined, dof_handler.get_communicator()))
          throw InputError("Monitor/Reactions",
                           "boundary id " + std::to_string(id) + " is a normal support not along an axis, whose "
                             "reaction the sum over its nodes does not give; monitor the reactions of Dirichlet faces "
                             "or of normal supports along x, y or z");
      }
  }

  std::map<dealii::types::boundary_id, unsigned int>
  normal_support_axes(const Parameters &parameters, const dealii::Triangulation<3> &triangulation)
  {
    const auto &ids = parameters.boundary.normal_supports;
    // Entry 4 i + d: a face of support i normal to axis d; 4 i + 3: a face of
    // support i normal to none. One pass over the mesh for all supports.
    std::vector<unsigned int> found(4 * ids.size(), 0);
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        for (const auto f : cell->face_indices())
          if (cell->face(f)->at_boundary())
            {
              const auto position = std::find(ids.begin(), ids.end(), cell->face(f)->boundary_id());
              if (position == ids.end())
                continue;
              const auto   face      = cell->face(f);
              const double tolerance = 1e-10 * face->diameter();
              unsigned int normal    = 3;
              for (unsigned int d = 0; d < 3 && normal == 3; ++d)
                {
                  bool planar = true;
                  for (const auto v : face->vertex_indices())
                    planar = planar && std::abs(face->vertex(v)[d] - face->vertex(0)[d]) <= tolerance;
                  if (planar)
                    normal = d;
                }
              found[4 * (position - ids.begin()) + normal] = 1;
            }
    // The union over the ranks, in one reduction.
    dealii::Utilities::MPI::max(found, triangulation.get_communicator(), found);
    std::map<dealii::types::boundary_id, unsigned int> axes;
    for (unsigned int i = 0; i < ids.size(); ++i)
      {
        const unsigned int n_kinds = found[4 * i] + found[4 * i + 1] + found[4 * i + 2] + found[4 * i + 3];
        unsigned int       axis    = dealii::numbers::invalid_unsigned_int;
        for (unsigned int d = 0; d < 3; ++d)
          if (n_kinds == 1 && found[4 * i + d] == 1)
            axis = d;
        axes[ids[i]] = axis;
      }
    return axes;
  }

  DirichletBoundaries
  normal_support_components(const std::map<dealii::types::boundary_id, unsigned int> &axes)
  {
    DirichletBoundaries components;
    for (const auto &[id, axis] : axes)
      {
        if (axis == dealii::numbers::invalid_unsigned_int)
          throw InputError("Linear solver/Preconditioner",
                           "multigrid fixes the normal component of a normal support on its levels, which needs "
                           "faces normal to x, y or z, but boundary id " + std::to_string(id) +
                             " is inclined or curved: use auto, chebyshev, jacobi or amg");
        std::vector<bool> mask(3, false);
        mask[axis]     = true;
        components[id] = dealii::ComponentMask(mask);
      }
    return components;
  }
} // namespace plastix
