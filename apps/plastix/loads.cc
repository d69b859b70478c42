// Dirichlet constraints, external forces and material tables.
#include <deal.II/base/function.h>
#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/numerics/vector_tools.h>

#include "input_checks.h"
#include "loads.h"

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
    for (const auto &c : boundary.dirichlet)
      {
        check_id_on_mesh(ids, c.boundary_id, "Boundary conditions/Dirichlet", "boundary id");
        const dealii::ComponentMask mask(std::vector<bool>(c.components.begin(), c.components.end()));
        dealii::Vector<double>      values(3);
        for (unsigned int d = 0; d < 3; ++d)
          values[d] = c.values[d];
        dealii::VectorTools::interpolate_boundary_values(dof_handler, c.boundary_id,
                                                         dealii::Functions::ConstantFunction<3>(values),
                                                         constraints, mask);
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
