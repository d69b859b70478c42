// plastix elastoplasticity against an independent host implementation
// (host_j2_reference.h: deal.II FEValues assembly of internal force and
// consistent tangent matrix, its own radial return, Newton with a direct
// solver) on small versions of every benchmark geometry of prm/ with their
// materials, boundary conditions and load steps.
//
// Per load step, two comparisons:
//  1. kernels: at the reference's converged displacement u_k (same DoF
//     numbering: the reference runs on plastix::Discretization's DoFHandler)
//     and the same committed history, plastix::PlasticityState::update()
//     must give the reference's internal force (all rows: reactions too) and
//     plastic point / cell counts, and the operator, then the consistent
//     tangent, must act like the reference's tangent matrix (and have its
//     diagonal). A tangent bug would not change converged displacements, so
//     it is checked here directly.
//  2. the application driver: plastix::ElastoplasticProblem::run() with
//     tight tolerances and every mesh vertex as a monitor point must give
//     the reference displacements at every vertex (relative l2) and the
//     reference's number of plastic Gauss points, step by step (CSV).
//
// Usage: test_plasticity_vs_host_reference <prm directory> [case name]
#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/timer.h>
#include <deal.II/base/utilities.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/dealii/discretization.h>
#include <plastix/dealii/plasticity.h>
#include <plastix/dealii/runtime.h>

#include "host_j2_reference.h"
#include "plasticity_test_tools.h"

#include <array>
#include <filesystem>
#include <iostream>
#include <map>

using namespace dealii;

namespace
{
  struct Case
  {
    std::string name;
    std::string prm_file;
    /** Extra .prm text: the smaller mesh (and nothing else unless said). */
    std::string overrides;
  };

  /** Index of every vertex coordinate in @p points (exact match, else the nearest within 1e-9 of the mesh size). */
  class VertexIndex
  {
  public:
    explicit VertexIndex(const std::vector<Point<3>> &points)
      : points(points)
    {
      for (unsigned int i = 0; i < points.size(); ++i)
        index[{points[i][0], points[i][1], points[i][2]}] = i;
      for (const auto &p : points)
        size = std::max(size, p.norm());
    }

    unsigned int
    find(const Point<3> &p) const
    {
      const auto it = index.find({p[0], p[1], p[2]});
      if (it != index.end())
        return it->second;
      unsigned int best = 0;
      for (unsigned int i = 1; i < points.size(); ++i)
        if (points[i].distance(p) < points[best].distance(p))
          best = i;
      if (points[best].distance(p) > 1e-9 * size)
        throw std::runtime_error("vertex not in the serial mesh");
      return best;
    }

  private:
    const std::vector<Point<3>>                   &points;
    std::map<std::array<double, 3>, unsigned int> index;
    double                                        size = 0;
  };

  /** Displacements of all vertices (3 per vertex), summed over ranks: each vertex from the owner of its DoFs. */
  std::vector<double>
  vertex_values(const DoFHandler<3> &dof_handler, const TrilinosWrappers::MPI::Vector &u, const VertexIndex &index,
                const unsigned int n_vertices, unsigned int &n_found)
  {
    std::vector<double> values(3 * n_vertices, 0.), found(n_vertices, 0.);
    const IndexSet     &owned = dof_handler.locally_owned_dofs();
    std::vector<bool>   done(n_vertices, false);
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        for (const auto v : cell->vertex_indices())
          {
            const auto dof = cell->vertex_dof_index(v, 0);
            if (!owned.is_element(dof))
              continue;
            const unsigned int i = index.find(cell->vertex(v));
            if (done[i])
              continue;
            done[i]  = true;
            found[i] = 1;
            for (unsigned int c = 0; c < 3; ++c)
              values[3 * i + c] = u(cell->vertex_dof_index(v, c));
          }
    Utilities::MPI::sum(values, dof_handler.get_communicator(), values);
    Utilities::MPI::sum(found, dof_handler.get_communicator(), found);
    n_found = 0;
    for (const double f : found)
      n_found += (f == 1.);
    return values;
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  plastix::Runtime                 runtime;
  const MPI_Comm                   comm = MPI_COMM_WORLD;
  const bool                       root = Utilities::MPI::this_mpi_process(comm) == 0;
  const unsigned int               n_ranks = Utilities::MPI::n_mpi_processes(comm);
  ConditionalOStream               pout(std::cout, root);
  plastix_test::Checker            checker;
  checker.root = root;
  if (argc < 2)
    {
      pout << "usage: " << argv[0] << " <prm directory> [case]\n";
      return 2;
    }
  const std::string prm_dir = argv[1];
  const std::string only    = argc > 2 ? argv[2] : "";

  // Smaller versions of the benchmarks; materials, boundary conditions and
  // load factors are those of the prm files.
  const std::vector<Case> cases = {
    {"cube single element", "cube_single_element.prm", ""},
    // The C1-C5 set-up (clamped bottom, 800 MPa in one step) on 6 x 6 x 6 cells.
    {"cube C1 set-up", "cube_C1.prm", "subsection Mesh\n set Global refinements = 1\nend\n"},
    {"L-bracket", "l_bracket.prm", "subsection Mesh\n set Global refinements = 0\nend\n"},
    // 30 x 2 x 8 cells (8 through the height, so that Gauss points near the
    // surface yield at the benchmark loads; refinement 1 stays elastic).
    {"cantilever (voxel)", "cantilever_voxel.prm",
     "subsection Mesh\n set Subdivisions = 30, 2, 8\n set Global refinements = 0\nend\n"},
    {"plate with holes", "plate_with_holes.prm", "subsection Mesh\n set Global refinements = 0\nend\n"},
    // The coarsest mesh of the generator (3600 cells); the last two load steps.
    {"cut-out cantilever", "cutout_cantilever.prm",
     "subsection Mesh\n set Global refinements = 0\nend\nsubsection Load stepping\n set Load factors = 0.9, 1\nend\n"},
    {"cylinder", "cylinder.prm", "subsection Mesh\n set Global refinements = 2\nend\n"},
    {"sphere", "sphere.prm", "subsection Mesh\n set Global refinements = 2\nend\n"},
  };

  for (const auto &c : cases)
    {
      if (!only.empty() && c.name != only)
        continue;
      Timer timer;
      pout << "\n=== " << c.name << " (" << c.prm_file << ", " << n_ranks << " rank(s))\n";
      std::string dir_name = c.name;
      for (auto &ch : dir_name)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
          ch = '_';
      const std::string output_dir = "output_plasticity_vs_host_reference_np" + std::to_string(n_ranks) + "/" + dir_name;
      const std::string common =
        "subsection Newton\n set Residual tolerance = 1e-12\n set Displacement tolerance = 1e-12\n"
        " set Minimum forcing term = 1e-13\n set Maximum iterations = 50\nend\n"
        "subsection Linear solver\n set Maximum iterations = 100000\nend\n"
        "subsection Output\n set Directory = " + output_dir + "\n set Write VTU = false\nend\n"
        "subsection Monitor\n set Write plot = false\nend\n";
      const std::string text = plastix_test::read_text(prm_dir + "/" + c.prm_file) + "\n" + c.overrides + common;

      const plastix::Parameters    mesh_only = plastix_test::parameters_from_text(text);
      const std::vector<Point<3>>  vertices  = plastix_test::mesh_vertices(mesh_only.mesh);
      const VertexIndex            vertex_index(vertices);
      const plastix::Parameters    parameters = plastix_test::parameters_from_text(
        text + "subsection Monitor\n set Points = " + plastix_test::monitor_points_text(vertices) + "\nend\n");
      const auto &load_factors = parameters.load_stepping.load_factors;

      // --- 1. Reference solution, and plastix's kernels at its states.
      plastix::Discretization d(parameters, comm);
      d.make_mesh();
      d.setup();
      d.assemble_external_force();
      pout << "  " << d.triangulation.n_global_active_cells() << " cells, " << d.dof_handler.n_dofs() << " DoFs, "
           << vertices.size() << " vertices, load factors";
      for (const double f : load_factors)
        pout << ' ' << f;
      pout << '\n';
      host_reference::Problem   reference(parameters, d.dof_handler);
      plastix::PlasticityState state(d.op);

      const IndexSet                            &owned = d.dof_handler.locally_owned_dofs();
      LinearAlgebra::distributed::Vector<double> host(d.op.get_partitioner());
      plastix::DeviceVector                      u_dev, f_dev, x_dev, y_dev;
      for (auto *v : {&u_dev, &f_dev, &x_dev, &y_dev})
        d.op.initialize_dof_vector(*v);

      // External force (assembled independently on both sides).
      {
        d.external_force.copy_to_host(host);
        double diff = 0, norm = 0;
        for (const auto i : owned)
          {
            diff += std::pow(host(i) - reference.f_ext(i), 2);
            norm += std::pow(reference.f_ext(i), 2);
          }
        checker.check("external force vs reference, relative l2",
                      std::sqrt(Utilities::MPI::sum(diff, comm) / Utilities::MPI::sum(norm, comm)), 1e-13);
      }

      std::vector<std::vector<double>>  reference_vertex_values;
      std::vector<unsigned long long>   reference_points;
      for (unsigned int k = 0; k < load_factors.size(); ++k)
        {
          const double                     lambda = load_factors[k];
          const host_reference::StepResult r      = reference.solve_step(lambda);
          pout << "  step " << k + 1 << " (load factor " << lambda << "): reference Newton " << r.iterations
               << " iterations, |R|/F";
          for (const double h : r.residual_history)
            pout << ' ' << std::scientific << std::setprecision(1) << h << std::defaultfloat;
          pout << std::setprecision(6) << ", " << r.plastic_points << " plastic points in " << r.plastic_cells
               << " cells\n";
          checker.check_true("  reference Newton converged (|R|/F " + std::to_string(r.relative_residual) + ")",
                             r.converged);
          reference_points.push_back(r.plastic_points);

          // plastix at the reference state.
          host = 0;
          for (const auto i : owned)
            host(i) = reference.u(i);
          u_dev.copy_from_host(host);
          const plastix::StressUpdateStatistics stats = state.update(u_dev, f_dev);
          f_dev.copy_to_host(host);
          double diff = 0, norm = 0;
          for (const auto i : owned)
            {
              diff += std::pow(host(i) - reference.f_int(i), 2);
              norm += std::pow(reference.f_int(i), 2);
            }
          checker.check("  update(): internal force (all rows) vs reference, relative l2",
                        std::sqrt(Utilities::MPI::sum(diff, comm) / Utilities::MPI::sum(norm, comm)), 1e-12);
          checker.check_true("  update(): plastic points " + std::to_string(stats.n_plastic_points) +
                               " == reference " + std::to_string(r.plastic_points) + ", plastic cells " +
                               std::to_string(stats.n_plastic_cells) + " == " + std::to_string(r.plastic_cells),
                             stats.n_plastic_points == r.plastic_points && stats.n_plastic_cells == r.plastic_cells);

          // Tangent: y = A x with x nonzero everywhere (the constrained rows must return x).
          TrilinosWrappers::MPI::Vector x_free(owned, comm), y_ref(owned, comm);
          host = 0;
          for (const auto i : owned)
            {
              host(i)   = std::sin(0.37 * i + 0.1 * k + 0.2) + 0.3 * std::cos(0.013 * i);
              x_free(i) = reference.is_constrained(i) ? 0. : host(i);
            }
          x_free.compress(VectorOperation::insert);
          x_dev.copy_from_host(host);
          d.op.vmult(y_dev, x_dev);
          const LinearAlgebra::distributed::Vector<double> x_host = host;
          y_dev.copy_to_host(host);
          reference.matrix.vmult(y_ref, x_free);
          double diff_free = 0, norm_free = 0, diff_constrained = 0;
          for (const auto i : owned)
            if (reference.is_constrained(i))
              diff_constrained = std::max(diff_constrained, std::abs(host(i) - x_host(i)));
            else
              {
                diff_free += std::pow(host(i) - y_ref(i), 2);
                norm_free += std::pow(y_ref(i), 2);
              }
          checker.check("  tangent operator vmult vs reference tangent matrix (free rows), relative l2",
                        std::sqrt(Utilities::MPI::sum(diff_free, comm) / Utilities::MPI::sum(norm_free, comm)),
                        1e-12);
          checker.check("  tangent operator: constrained rows return the input, max abs",
                        Utilities::MPI::max(diff_constrained, comm), 0.);
          // The diagonal (Jacobi) of the tangent.
          d.op.compute_diagonal(y_dev);
          y_dev.copy_to_host(host);
          double diag_diff = 0, diag_max = 0;
          for (const auto i : owned)
            if (!reference.is_constrained(i))
              {
                diag_diff = std::max(diag_diff, std::abs(host(i) - reference.matrix.diag_element(i)));
                diag_max  = std::max(diag_max, std::abs(reference.matrix.diag_element(i)));
              }
          checker.check("  tangent diagonal vs reference (free rows), max relative",
                        Utilities::MPI::max(diag_diff, comm) / Utilities::MPI::max(diag_max, comm), 1e-12);

          state.commit();
          reference.commit();
          unsigned int n_found = 0;
          reference_vertex_values.push_back(
            vertex_values(d.dof_handler, reference.u, vertex_index, vertices.size(), n_found));
          if (n_found != vertices.size())
            checker.check_true("  every vertex found once (" + std::to_string(n_found) + " of " +
                                 std::to_string(vertices.size()) + ")",
                               false);
        }
      const double reference_seconds = timer.wall_time();

      // --- 2. The application driver with every vertex monitored.
      timer.restart();
      plastix::RunSummary summary;
      try
        {
          summary = plastix_test::run_elastoplastic(parameters, comm);
        }
      catch (const std::exception &e)
        {
          checker.check_true(std::string("ElastoplasticProblem::run() threw: ") + e.what(), false);
          continue;
        }
      pout << "  plastix run: " << summary.newton_iterations << " Newton iterations, " << summary.linear_iterations
           << " linear iterations, " << summary.n_cuts << " cuts, final |R|/F " << summary.relative_residual << "\n";
      int local_failures = 0;
      if (root)
        {
          const plastix_test::Csv csv = plastix_test::read_csv(output_dir + "/" + parameters.output.base_name + ".csv");
          const int               lf  = csv.column("load_factor"), pp = csv.column("plastic_points");
          const int               first = csv.column("v0_ux");
          for (unsigned int k = 0; k < load_factors.size(); ++k)
            {
              // The row of this load factor (cut steps add intermediate rows).
              const std::vector<double> *row = nullptr;
              for (const auto &r : csv.rows)
                if (std::abs(r[lf] - load_factors[k]) <= 1e-9 * std::abs(load_factors[k]))
                  row = &r;
              if (!row)
                {
                  checker.check_true("  CSV has a row for load factor " + std::to_string(load_factors[k]), false);
                  ++local_failures;
                  continue;
                }
              double diff = 0, norm = 0;
              for (std::size_t i = 0; i < 3 * vertices.size(); ++i)
                {
                  diff += std::pow((*row)[first + i] - reference_vertex_values[k][i], 2);
                  norm += std::pow(reference_vertex_values[k][i], 2);
                }
              const int before = checker.failures;
              checker.check("  step " + std::to_string(k + 1) +
                              ": driver displacement at all vertices vs reference, relative l2",
                            std::sqrt(diff / norm), 1e-8);
              checker.check_true("  step " + std::to_string(k + 1) + ": driver plastic points " +
                                   std::to_string(static_cast<unsigned long long>((*row)[pp])) + " == reference " +
                                   std::to_string(reference_points[k]),
                                 static_cast<unsigned long long>((*row)[pp]) == reference_points[k]);
              local_failures += checker.failures - before;
            }
        }
      // Keep the failure count consistent on all ranks.
      checker.failures += Utilities::MPI::sum(local_failures, comm) - local_failures;
      pout << "  time: reference and kernel checks " << reference_seconds << " s, plastix run " << timer.wall_time()
           << " s\n";
    }
  pout << (checker.failures == 0 ? "\nall checks passed\n" : "\n" + std::to_string(checker.failures) + " check(s) FAILED\n");
  return checker.failures == 0 ? 0 : 1;
}
