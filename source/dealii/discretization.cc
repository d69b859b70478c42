// Mesh, DoFs, constraints, operator and output shared by the drivers.
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/numerics/data_component_interpretation.h>
#include <deal.II/numerics/data_out.h>

#include <plastix/dealii/discretization.h>
#include <plastix/dealii/loads.h>
#include <plastix/dealii/mesh_generation.h>

namespace plastix
{
  Discretization::Discretization(const Parameters &parameters, MPI_Comm communicator)
    : parameters(parameters)
    , communicator(communicator)
    // The multigrid preconditioner needs the level hierarchy (level DoFs);
    // other runs keep deal.II's defaults.
    , triangulation(communicator,
                    parameters.solver.preconditioner == "multigrid" ?
                      dealii::Triangulation<3>::limit_level_difference_at_vertices :
                      dealii::Triangulation<3>::none,
                    parameters.solver.preconditioner == "multigrid" ?
                      dealii::parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy :
                      dealii::parallel::distributed::Triangulation<3>::default_setting)
    , fe(dealii::FE_Q<3>(1), 3)
    , dof_handler(triangulation)
  {}

  void
  Discretization::make_mesh()
  {
    create_mesh(parameters.mesh, triangulation);
  }

  void
  Discretization::setup()
  {
    dof_handler.distribute_dofs(fe);
    make_dirichlet_constraints(dof_handler, parameters.boundary, constraints);
    materials = make_material_table(dof_handler, parameters.materials);
    op.reinit(dof_handler, constraints, materials, parameters.op.get_additional_data());
  }

  void
  Discretization::assemble_external_force()
  {
    dealii::LinearAlgebra::distributed::Vector<double> force(op.get_partitioner());
    plastix::assemble_external_force(dof_handler, parameters.boundary, force);
    op.initialize_dof_vector(external_force);
    external_force.copy_from_host(force);
  }

  dealii::LinearAlgebra::distributed::Vector<double>
  Discretization::to_host(const DeviceVector &u) const
  {
    dealii::IndexSet relevant;
    dealii::DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    dealii::LinearAlgebra::distributed::Vector<double> host(dof_handler.locally_owned_dofs(), relevant,
                                                            communicator);
    u.copy_to_host(host);
    host.update_ghost_values();
    return host;
  }

  std::string
  Discretization::write_vtu(StagedOutput       &output,
                            const DeviceVector &u,
                            const CellFields   &cell_fields,
                            const std::string  &base_name,
                            const unsigned int  counter) const
  {
    const auto                          host     = to_host(u);
    const unsigned int                  n_active = triangulation.n_active_cells();
    std::vector<dealii::Vector<double>> fields(cell_fields.size() + 2, dealii::Vector<double>(n_active));
    const double rank = dealii::Utilities::MPI::this_mpi_process(communicator);
    unsigned int k    = 0;
    for (const auto &cell : triangulation.active_cell_iterators())
      {
        if (!cell->is_locally_owned())
          continue;
        const unsigned int i = cell->active_cell_index();
        for (unsigned int f = 0; f < cell_fields.size(); ++f)
          fields[f][i] = cell_fields[f].second[k];
        fields[cell_fields.size()][i]     = cell->material_id();
        fields[cell_fields.size() + 1][i] = rank;
        ++k;
      }
    dealii::DataOut<3> data_out;
    data_out.attach_dof_handler(dof_handler);
    data_out.add_data_vector(host, std::vector<std::string>(3, "displacement"), dealii::DataOut<3>::type_dof_data,
                             std::vector<dealii::DataComponentInterpretation::DataComponentInterpretation>(
                               3, dealii::DataComponentInterpretation::component_is_part_of_vector));
    for (unsigned int f = 0; f < cell_fields.size(); ++f)
      data_out.add_data_vector(fields[f], cell_fields[f].first, dealii::DataOut<3>::type_cell_data);
    data_out.add_data_vector(fields[cell_fields.size()], "material_id", dealii::DataOut<3>::type_cell_data);
    data_out.add_data_vector(fields[cell_fields.size() + 1], "rank", dealii::DataOut<3>::type_cell_data);
    data_out.build_patches();
    return output.write_vtu(data_out, base_name, counter);
  }
} // namespace plastix
