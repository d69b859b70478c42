// Static linear elasticity: mesh -> operator -> solve -> output.
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/numerics/data_component_interpretation.h>

#include <plastix/dealii/elastic_problem.h>
#include <plastix/dealii/linear_solver.h>
#include <plastix/dealii/loads.h>
#include <plastix/dealii/mesh_generation.h>
#include <plastix/dealii/output.h>
#include <plastix/dealii/runtime.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace plastix
{
  std::string
  RunSummary::line() const
  {
    std::ostringstream s;
    s << std::setprecision(4) << "plastix: " << n_ranks << " rank(s), " << device << ", " << n_dofs
      << " DoFs, " << n_cells << " cells, " << operator_description << ", " << solver << " " << iterations
      << " iterations, residual " << final_residual << " (relative " << relative_residual
      << "), max |u| " << max_displacement << ", time [s]:";
    double total = 0;
    for (const auto &[stage, seconds] : stage_seconds)
      {
        s << " " << stage << " " << seconds;
        total += seconds;
      }
    s << ", total " << total;
    return s.str();
  }

  ElasticProblem::ElasticProblem(const Parameters &parameters, MPI_Comm communicator)
    : parameters(parameters)
    , communicator(communicator)
  {}

  namespace
  {
    /** Times stages as the maximum wall time over the ranks. */
    class StageTimer
    {
    public:
      StageTimer(MPI_Comm communicator, RunSummary &summary)
        : communicator(communicator)
        , summary(summary)
      {}

      void
      start()
      {
        MPI_Barrier(communicator);
        timer.restart();
      }

      void
      stop(const std::string &stage)
      {
        const double t = dealii::Utilities::MPI::max(timer.wall_time(), communicator);
        summary.stage_seconds.emplace_back(stage, t);
      }

    private:
      MPI_Comm      communicator;
      RunSummary   &summary;
      dealii::Timer timer;
    };
  } // namespace

  RunSummary
  ElasticProblem::run()
  {
    RunSummary summary;
    summary.n_ranks = dealii::Utilities::MPI::n_mpi_processes(communicator);
    summary.device  = Runtime::execution_space();
    StageTimer timer(communicator, summary);

    // Output first: a bad output directory fails before any work.
    StagedOutput output(parameters.output.directory, communicator);

    timer.start();
    dealii::parallel::distributed::Triangulation<3> triangulation(communicator);
    create_mesh(parameters.mesh, triangulation);
    summary.n_cells = triangulation.n_global_active_cells();
    timer.stop("mesh");

    timer.start();
    const dealii::FESystem<3> fe(dealii::FE_Q<3>(1), 3);
    dealii::DoFHandler<3>     dof_handler(triangulation);
    dof_handler.distribute_dofs(fe);
    summary.n_dofs = dof_handler.n_dofs();
    dealii::AffineConstraints<double> constraints;
    make_dirichlet_constraints(dof_handler, parameters.boundary, constraints);
    const MaterialTable materials = make_material_table(dof_handler, parameters.materials);
    MechanicsOperator   op;
    op.reinit(dof_handler, constraints, materials,
              {parameters.op.get_strategy(), parameters.op.get_cell_kernel()});
    summary.operator_description = parameters.op.strategy + " / " + parameters.op.cell_kernel;
    timer.stop("setup");

    timer.start();
    dealii::LinearAlgebra::distributed::Vector<double> force_host(op.get_partitioner());
    assemble_external_force(dof_handler, parameters.boundary, force_host);
    DeviceVector rhs, solution;
    op.initialize_dof_vector(rhs);
    op.initialize_dof_vector(solution);
    rhs.copy_from_host(force_host);
    op.lift_inhomogeneities(rhs);
    timer.stop("rhs");

    timer.start();
    LinearSolver solver(parameters.solver);
    solver.initialize(op);
    op.set_constrained_values(solution);
    const SolverStatistics statistics = solver.solve(solution, rhs);
    summary.solver                    = solver.name();
    summary.iterations                = statistics.iterations;
    summary.final_residual            = statistics.final_residual;
    summary.relative_residual         = statistics.final_residual / std::max(rhs.l2_norm(), 1e-300);
    timer.stop("solve");

    timer.start();
    dealii::IndexSet relevant;
    dealii::DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    dealii::LinearAlgebra::distributed::Vector<double> u(dof_handler.locally_owned_dofs(), relevant, communicator);
    solution.copy_to_host(u);
    u.update_ghost_values();
    {
      double max_sq = 0;
      for (unsigned int i = 0; i + 2 < u.locally_owned_size(); i += 3)
        max_sq = std::max(max_sq, u.local_element(i) * u.local_element(i) +
                                    u.local_element(i + 1) * u.local_element(i + 1) +
                                    u.local_element(i + 2) * u.local_element(i + 2));
      summary.max_displacement = std::sqrt(dealii::Utilities::MPI::max(max_sq, communicator));
    }
    if (parameters.output.write_vtu)
      {
        const std::vector<double> strain = op.cell_average_strain(solution);
        const unsigned int        n_active = triangulation.n_active_cells();
        std::vector<dealii::Vector<double>> stress(6, dealii::Vector<double>(n_active));
        dealii::Vector<double>              von_mises(n_active), material(n_active), rank(n_active);
        const double this_rank = dealii::Utilities::MPI::this_mpi_process(communicator);
        unsigned int k         = 0;
        for (const auto &cell : triangulation.active_cell_iterators())
          {
            if (!cell->is_locally_owned())
              continue;
            const auto   &m   = materials.at(cell->material_id());
            const double *e   = &strain[6 * k++];
            const double  tr  = e[0] + e[1] + e[2];
            double        s[6];
            for (unsigned int c = 0; c < 6; ++c)
              s[c] = 2. * m.mu * e[c] + (c < 3 ? m.lambda * tr : 0.);
            const unsigned int i = cell->active_cell_index();
            for (unsigned int c = 0; c < 6; ++c)
              stress[c][i] = s[c];
            const double p = tr * (m.lambda + 2. / 3. * m.mu);
            double       j2 = 0;
            for (unsigned int c = 0; c < 3; ++c)
              j2 += 0.5 * (s[c] - p) * (s[c] - p);
            for (unsigned int c = 3; c < 6; ++c)
              j2 += s[c] * s[c];
            von_mises[i] = std::sqrt(3. * j2);
            material[i]  = cell->material_id();
            rank[i]      = this_rank;
          }
        dealii::DataOut<3> data_out;
        data_out.attach_dof_handler(dof_handler);
        data_out.add_data_vector(u, std::vector<std::string>(3, "displacement"),
                                 dealii::DataOut<3>::type_dof_data,
                                 std::vector<dealii::DataComponentInterpretation::DataComponentInterpretation>(
                                   3, dealii::DataComponentInterpretation::component_is_part_of_vector));
        const char *names[6] = {"stress_xx", "stress_yy", "stress_zz", "stress_yz", "stress_xz", "stress_xy"};
        for (unsigned int c = 0; c < 6; ++c)
          data_out.add_data_vector(stress[c], names[c], dealii::DataOut<3>::type_cell_data);
        data_out.add_data_vector(von_mises, "von_mises", dealii::DataOut<3>::type_cell_data);
        data_out.add_data_vector(material, "material_id", dealii::DataOut<3>::type_cell_data);
        data_out.add_data_vector(rank, "rank", dealii::DataOut<3>::type_cell_data);
        data_out.build_patches();
        summary.output_file =
          (std::filesystem::path(parameters.output.directory) / output.write_vtu(data_out, parameters.output.base_name, 0)).string();
      }
    timer.stop("output");
    if (!parameters.output.summary_file.empty())
      {
        std::string previous;
        const auto  target = std::filesystem::path(parameters.output.directory) / parameters.output.summary_file;
        if (dealii::Utilities::MPI::this_mpi_process(communicator) == 0)
          {
            std::ifstream in(target);
            std::stringstream buffer;
            buffer << in.rdbuf();
            previous = buffer.str();
          }
        output.write_text(parameters.output.summary_file, previous + summary.line() + "\n");
      }
    output.commit();
    return summary;
  }
} // namespace plastix
