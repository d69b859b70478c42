// Dirichlet constraints, external forces (surface, body and point loads) and
// material tables.
#include <deal.II/base/function.h>
#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/numerics/vector_tools.h>

#include "input_checks.h"
#include "loads.h"
#include "mesh_quality.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

namespace plastix
{

  void
  make_dirichlet_constraints(const dealii::DoFHandler<3>       &dof_handler,
                             const BoundaryParameters          &boundary,
                             dealii::AffineConstraints<double> &constraints)
  {
    dealii::IndexSet relevant;
    dealii::DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    constraints.clear();
    constraints.reinit(relevant);
    // Hanging nodes first, as in deal.II's step-6: a hanging DoF on a
    // clamped face keeps its line, which close() turns into the prescribed
    // value; lines next to it get the value as an inhomogeneity. Only where
    // the mesh has them: deal.II's search borrows the mesh's user flags,
    // which distribute_mg_dofs() may be using meanwhile (Discretization).
    if (dof_handler.get_triangulation().has_hanging_nodes())
      dealii::DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    const auto ids = boundary_ids_on_mesh(dof_handler.get_triangulation());
    // The value and condition of every prescribed DoF: where two conditions
    // meet (an edge or corner of two faces) they must agree, whatever their
    // order in the list.
    std::map<dealii::types::global_dof_index, std::pair<double, std::size_t>> prescribed;
    // The first disagreement (condition a, condition b, component), encoded so
    // that the ranks agree on the smallest: (a * n + b) * 3 + component.
    const std::size_t n_conditions = boundary.dirichlet.size();
    unsigned long long conflict = std::numeric_limits<unsigned long long>::max();
    for (std::size_t k = 0; k < n_conditions; ++k)
      {
        const auto &c = boundary.dirichlet[k];
        check_id_on_mesh(ids, c.boundary_id, "Boundary conditions/Dirichlet", "boundary id");
        const dealii::ComponentMask mask(std::vector<bool>(c.components.begin(), c.components.end()));
        dealii::Vector<double>      values(3);
        for (unsigned int d = 0; d < 3; ++d)
          values[d] = c.values[d];
        std::map<dealii::types::global_dof_index, double> boundary_values;
        dealii::VectorTools::interpolate_boundary_values(dof_handler, c.boundary_id,
                                                         dealii::Functions::ConstantFunction<3>(values),
                                                         boundary_values, mask);
        for (const auto &[dof, value] : boundary_values)
          {
            const auto [it, first] = prescribed.emplace(dof, std::make_pair(value, k));
            const double other     = it->second.first;
            if (!first && std::abs(other - value) > 1e-12 * std::max(std::abs(other), std::abs(value)))
              conflict = std::min<unsigned long long>(conflict, (it->second.second * n_conditions + k) * 3 + dof % 3);
            // As deal.II's interpolate_boundary_values() into constraints:
            // a hanging-node line stays (close() gives it the value).
            if (first && constraints.can_store_line(dof) && !constraints.is_constrained(dof))
              {
                constraints.add_line(dof);
                constraints.set_inhomogeneity(dof, value);
              }
          }
      }
    conflict = dealii::Utilities::MPI::min(conflict, dof_handler.get_communicator());
    if (conflict != std::numeric_limits<unsigned long long>::max())
      {
        const auto &a = boundary.dirichlet[conflict / 3 / n_conditions];
        const auto &b = boundary.dirichlet[conflict / 3 % n_conditions];
        throw InputError("Boundary conditions/Dirichlet",
                         "ids " + std::to_string(a.boundary_id) + " and " + std::to_string(b.boundary_id) +
                           " prescribe different values of u_" + std::string(1, "xyz"[conflict % 3]) +
                           " on the nodes they share (an edge or a corner); give them the same value or "
                           "leave the component out of one of them");
      }
    // Normal supports last: deal.II leaves the DoFs constrained already (by
    // hanging nodes or Dirichlet values) as they are.
    if (!boundary.normal_supports.empty())
      {
        for (const auto id : boundary.normal_supports)
          check_id_on_mesh(ids, id, "Boundary conditions/Normal supports", "boundary id");
        const std::set<dealii::types::boundary_id> normal(boundary.normal_supports.begin(),
                                                          boundary.normal_supports.end());
        dealii::VectorTools::compute_no_normal_flux_constraints(dof_handler, 0, normal, constraints);
      }
    constraints.close();
  }

  void
  assemble_external_force(const dealii::DoFHandler<3>                        &dof_handler,
                          const BoundaryParameters                           &boundary,
                          dealii::LinearAlgebra::distributed::Vector<double> &force,
                          const std::vector<std::string>                     &kinds)
  {
    const auto in_group = [&](const std::string &kind) {
      return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
    };
    const auto ids = boundary_ids_on_mesh(dof_handler.get_triangulation());
    std::map<dealii::types::boundary_id, dealii::Tensor<1, 3>> tractions;
    std::map<dealii::types::boundary_id, double>               pressures;
    for (const auto &t : boundary.tractions)
      {
        const bool pressure = t.pressure != 0;
        check_id_on_mesh(ids, t.boundary_id,
                         pressure ? "Boundary conditions/Pressure" : "Boundary conditions/Traction", "boundary id");
        if (!in_group(pressure ? "pressure" : "traction"))
          continue;
        for (unsigned int d = 0; d < 3; ++d)
          tractions[t.boundary_id][d] += t.traction[d];
        pressures[t.boundary_id] += t.pressure;
      }
    const dealii::Tensor<1, 3> body_force = in_group("body force") ? dealii::Tensor<1, 3>(boundary.body_force) :
                                                                      dealii::Tensor<1, 3>();
    assemble_external_force(dof_handler, tractions, pressures, body_force, force);
    add_point_loads(dof_handler, in_group("point loads") ? boundary.point_loads : std::vector<PointLoad>(), force);
  }

  void
  add_point_loads(const dealii::DoFHandler<3>                        &dof_handler,
                  const std::vector<PointLoad>                       &point_loads,
                  dealii::LinearAlgebra::distributed::Vector<double> &force)
  {
    if (point_loads.empty())
      return;
    const MPI_Comm          communicator = dof_handler.get_communicator();
    const dealii::IndexSet &owned        = dof_handler.locally_owned_dofs();
    // The nearest vertex whose DoFs this rank owns, for every point.
    const std::size_t                                           n_points = point_loads.size();
    std::vector<double>                                         best(n_points, std::numeric_limits<double>::max());
    std::vector<std::array<dealii::types::global_dof_index, 3>> best_dofs(n_points);
    std::vector<dealii::Point<3>>                               nearest(n_points);
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        for (const auto v : cell->vertex_indices())
          {
            const dealii::Point<3> &vertex = cell->vertex(v);
            if (!owned.is_element(cell->vertex_dof_index(v, 0)))
              continue;
            for (std::size_t i = 0; i < n_points; ++i)
              {
                const double distance = vertex.distance(point_loads[i].location);
                if (distance < best[i])
                  {
                    best[i]     = distance;
                    for (unsigned int c = 0; c < 3; ++c)
                      best_dofs[i][c] = cell->vertex_dof_index(v, c);
                    nearest[i]  = vertex;
                  }
              }
          }
    const auto   extent    = body_extent(dof_handler.get_triangulation(), communicator);
    const double tolerance = 1e-6 * std::sqrt(extent[0] * extent[0] + extent[1] * extent[1] + extent[2] * extent[2]);
    const int    rank      = static_cast<int>(dealii::Utilities::MPI::this_mpi_process(communicator));
    for (std::size_t i = 0; i < n_points; ++i)
      {
        struct
        {
          double distance;
          int    rank;
        } local{best[i], rank}, global;
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE_INT, MPI_MINLOC, communicator);
        const PointLoad &load = point_loads[i];
        if (global.distance > tolerance)
          {
            // Every rank throws the same message: the owner's nearest vertex.
            dealii::Point<3> closest = global.rank == rank ? nearest[i] : dealii::Point<3>();
            closest                  = dealii::Utilities::MPI::broadcast(communicator, closest, global.rank);
            std::ostringstream message;
            message << "the point (" << load.location << ") is not a vertex of the mesh; the nearest vertex is ("
                    << closest << "), " << global.distance << " away";
            throw InputError("Boundary conditions/Point loads", message.str());
          }
        if (global.rank == rank)
          for (unsigned int c = 0; c < 3; ++c)
            force(best_dofs[i][c]) += load.force[c];
      }
  }

  MaterialTable
  make_material_table(const dealii::DoFHandler<3> &dof_handler, const MaterialParameters &materials)
  {
    MaterialTable table;
    for (const auto id : material_ids_on_mesh(dof_handler.get_triangulation()))
      {
        const auto               it = materials.per_material_id.find(id);
        const MaterialDescription &m = it != materials.per_material_id.end() ? it->second : materials.default_material;
        table[id] = m.make("Materials");
      }
    return table;
  }
} // namespace plastix
