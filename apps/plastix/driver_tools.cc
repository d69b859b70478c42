// Helpers shared by the drivers.
#include <deal.II/base/mpi.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/core/interruption.h>

#include "driver_tools.h"
#include "mesh_quality.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace plastix
{
  namespace internal
  {
    DisplacementMaxima
    max_nodal_displacement(const DeviceVector &u)
    {
      dealii::LinearAlgebra::distributed::Vector<double> host(u.get_partitioner());
      u.copy_to_host(host);
      // The squared magnitude and the three components' absolute values.
      double local[4] = {0, 0, 0, 0}, global[4];
      for (unsigned int i = 0; i + 2 < host.locally_owned_size(); i += 3)
        {
          local[0] = std::max(local[0], host.local_element(i) * host.local_element(i) +
                                          host.local_element(i + 1) * host.local_element(i + 1) +
                                          host.local_element(i + 2) * host.local_element(i + 2));
          for (unsigned int c = 0; c < 3; ++c)
            local[1 + c] = std::max(local[1 + c], std::abs(host.local_element(i + c)));
        }
      dealii::Utilities::MPI::max(local, u.get_mpi_communicator(), global);
      return {std::sqrt(global[0]), {{global[1], global[2], global[3]}}};
    }

    void
    set_up_mesh_dofs_operator(Discretization &d, StageTimer &timer, RunSummary &summary, const std::string &mesh_file)
    {
      timer.start();
      if (mesh_file.empty())
        d.make_mesh();
      else
        d.load_mesh(mesh_file);
      summary.n_cells = d.triangulation->n_global_active_cells();
      if (mesh_file.empty())
        {
          // A slab with u_z = 0 on both faces (z- id 4, z+ id 5) is plane strain.
          bool z_fixed[2] = {false, false};
          for (const auto &c : d.parameters.boundary.dirichlet)
            if ((c.boundary_id == 4 || c.boundary_id == 5) && c.components[2] && c.values[2] == 0.)
              z_fixed[c.boundary_id - 4] = true;
          print_warning(aspect_ratio_warning(*d.triangulation, z_fixed[0] && z_fixed[1], d.communicator),
                        d.communicator);
        }
      timer.stop("mesh");
      if (interrupt_requested(d.communicator))
        throw Interrupted("while the mesh was built; nothing was solved");

      timer.start();
      d.setup_dofs();
      summary.n_dofs = d.dof_handler.n_dofs();
      timer.stop("dofs");
      timer.start();
      d.setup_operator();
      // dbd structured's thread mapping serves only its cells with plastic points.
      const bool mapping_used = d.parameters.op.strategy.value != backend::Strategy::dbd_structured ||
                                d.parameters.problem.type == ProblemType::elastoplastic;
      summary.operator_description = d.parameters.op.description(
        mapping_used ? d.op.backend_operator().settings().thread_mapping : backend::ThreadMapping::cell);
    }

    void
    set_up_preconditioner(Discretization &d, LinearSolver &solver)
    {
      d.initialize_solver(solver, true);
      // The level DoFs are complete now, also where they were distributed in the background.
      if (dealii::Utilities::MPI::this_mpi_process(d.communicator) == 0)
        std::cout << "  dofs: set-up [s]: " << d.dofs_stage_description() << std::endl
                  << "  preconditioner: " << solver.preconditioner_description() << std::endl;
    }

    void
    append_summary(StagedOutput &output, const OutputParameters &parameters, const std::string &line)
    {
      if (parameters.summary_file.empty())
        return;
      std::string previous;
      if (dealii::Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
        {
          std::ifstream     in(std::filesystem::path(output.directory()) / parameters.summary_file);
          std::stringstream buffer;
          buffer << in.rdbuf();
          previous = buffer.str();
        }
      output.write_text(parameters.summary_file, previous + line + "\n");
    }
  } // namespace internal
} // namespace plastix
