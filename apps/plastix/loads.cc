// Dirichlet constraints, external forces and material tables.
#include <deal.II/base/function.h>
#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/numerics/vector_tools.h>

#include "input_checks.h"
#include "loads.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

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
    constraints.close();
  }

  void
  assemble_external_force(const dealii::DoFHandler<3>                         &dof_handler,
                          const BoundaryParameters                            &boundary,
                          dealii::LinearAlgebra::distributed::Vector<double> &force)
  {
    const auto ids = boundary_ids_on_mesh(dof_handler.get_triangulation());
    std::map<dealii::types::boundary_id, dealii::Tensor<1, 3>> tractions;
    std::map<dealii::types::boundary_id, double>               pressures;
    for (const auto &t : boundary.tractions)
      {
        check_id_on_mesh(ids, t.boundary_id,
                         t.pressure != 0 ? "Boundary conditions/Pressure" : "Boundary conditions/Traction",
                         "boundary id");
        for (unsigned int d = 0; d < 3; ++d)
          tractions[t.boundary_id][d] += t.traction[d];
        pressures[t.boundary_id] += t.pressure;
      }
    assemble_external_force(dof_handler, tractions, pressures, boundary.body_force, force);
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
