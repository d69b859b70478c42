// plastix elastoplasticity vs the host reference (host_j2_reference.h):
// the reference solution of a parameter set with its per-step states, the
// kernel-level comparison of plastix::PlasticityState and the tangent
// operator at those states, and the comparison of the application driver's
// displacements at every mesh vertex (monitor CSV).
#ifndef PLASTIX_TESTS_PLASTICITY_COMPARISON_H
#define PLASTIX_TESTS_PLASTICITY_COMPARISON_H

#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/core/plasticity_state.h>

#include "discretization.h"

#include "host_j2_reference.h"
#include "plasticity_test_tools.h"

#include <algorithm>
#include <array>
#include <iomanip>
#include <limits>
#include <map>
#include <memory>
#include <set>

namespace plastix_test
{
  using namespace dealii;

  /** Index of every vertex coordinate in a list (exact match, else the nearest within 1e-9 of the mesh size). */
  class VertexIndex
  {
  public:
    explicit VertexIndex(const std::vector<Point<3>> &points)
      : points(points)
    {
      for (unsigned int i = 0; i < points.size(); ++i)
        index[{{points[i][0], points[i][1], points[i][2]}}] = i;
      for (const auto &p : points)
        size = std::max(size, p.norm());
    }

    unsigned int
    find(const Point<3> &p) const
    {
      const auto it = index.find({{p[0], p[1], p[2]}});
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

    unsigned int
    n_vertices() const
    {
      return points.size();
    }

  private:
    std::vector<Point<3>>                         points;
    std::map<std::array<double, 3>, unsigned int> index;
    double                                        size = 0;
  };

  /** Displacements of all vertices (3 per vertex, on every rank): each vertex from the owner of its DoFs. */
  template <typename VectorType>
  std::vector<double>
  vertex_values(const DoFHandler<3> &dof_handler, const VectorType &u, const VertexIndex &index, unsigned int &n_found)
  {
    const unsigned int  n = index.n_vertices();
    std::vector<double> values(3 * n, 0.), found(n, 0.);
    const IndexSet     &owned = dof_handler.locally_owned_dofs();
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        for (const auto v : cell->vertex_indices())
          {
            if (!owned.is_element(cell->vertex_dof_index(v, 0)))
              continue;
            const unsigned int i = index.find(cell->vertex(v));
            if (found[i] != 0)
              continue;
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

  /** The converged reference states of all load steps. */
  struct ReferenceSolution
  {
    std::vector<double>                                          load_factors;
    std::vector<TrilinosWrappers::MPI::Vector>                   u, f_int;
    std::vector<std::unique_ptr<TrilinosWrappers::SparseMatrix>> tangent;
    std::vector<unsigned long long>                              plastic_points, plastic_cells;
    std::vector<std::vector<double>>                             vertex_values;
    /** Owned DoFs with prescribed values. */
    IndexSet constrained;
    /** Whether every step converged. */
    bool converged = true;
  };

  /** Solve all load steps of @p parameters with the host reference on the DoFHandler of @p d. */
  inline ReferenceSolution
  solve_reference(const plastix::Parameters     &parameters,
                  const plastix::Discretization &d,
                  const VertexIndex             &vertex_index,
                  Checker                       &checker,
                  std::ostream                  &out)
  {
    ReferenceSolution       solution;
    host_reference::Problem reference(parameters, d.dof_handler);
    const IndexSet         &owned = d.dof_handler.locally_owned_dofs();
    solution.constrained.set_size(d.dof_handler.n_dofs());
    for (const auto i : owned)
      if (reference.is_constrained(i))
        solution.constrained.add_index(i);
    // The external forces of plastix and of the reference (both assembled from the parameters).
    {
      LinearAlgebra::distributed::Vector<double> host(d.op.get_partitioner());
      d.external_force.copy_to_host(host);
      double diff = 0, norm = 0;
      for (const auto i : owned)
        {
          diff += std::pow(host(i) - reference.f_ext(i), 2);
          norm += std::pow(reference.f_ext(i), 2);
        }
      checker.check("  external force vs reference, relative l2",
                    // Relative, or absolute where there is no external force.
                    std::sqrt(Utilities::MPI::sum(diff, d.communicator) /
                              std::max(Utilities::MPI::sum(norm, d.communicator), 1.)),
                    1e-13);
    }
    for (unsigned int k = 0; k < parameters.load_stepping.load_factors.size(); ++k)
      {
        const double                     lambda = parameters.load_stepping.load_factors[k];
        const host_reference::StepResult r      = reference.solve_step(lambda);
        out << "  step " << k + 1 << " (load factor " << lambda << "): reference Newton " << r.iterations
            << " iterations, |R|/F";
        for (const double h : r.residual_history)
          out << ' ' << std::scientific << std::setprecision(1) << h << std::defaultfloat;
        out << std::setprecision(6) << ", " << r.plastic_points << " plastic points in " << r.plastic_cells
            << " cells" << std::endl;
        if (!r.converged)
          {
            checker.check_true("  reference Newton converged (|R|/F " + std::to_string(r.relative_residual) + ")",
                               false);
            solution.converged = false;
          }
        solution.load_factors.push_back(lambda);
        solution.u.push_back(reference.u);
        solution.f_int.push_back(reference.f_int);
        solution.tangent.push_back(std::make_unique<TrilinosWrappers::SparseMatrix>());
        solution.tangent.back()->copy_from(reference.matrix);
        solution.plastic_points.push_back(r.plastic_points);
        solution.plastic_cells.push_back(r.plastic_cells);
        unsigned int n_found = 0;
        solution.vertex_values.push_back(vertex_values(d.dof_handler, reference.u, vertex_index, n_found));
        if (n_found != vertex_index.n_vertices())
          checker.check_true("  every vertex found once (" + std::to_string(n_found) + " of " +
                               std::to_string(vertex_index.n_vertices()) + ")",
                             false);
        reference.commit();
      }
    return solution;
  }

  /**
   * plastix's PlasticityState and tangent operator of @p d (its current
   * operator settings) at the reference states, step by step from a zero
   * history: internal force (all rows), plastic point and cell counts,
   * tangent vmult (constrained rows return the input) and diagonal, and
   * the tangent vmult in single precision (float vectors, as the levels of
   * a single-precision V-cycle apply it: a tangent kept from an earlier
   * state fails it). Prints
   * one line per step unless @p verbose, then every check.
   */
  inline void
  check_kernels(plastix::Discretization &d, const ReferenceSolution &reference, Checker &checker, const bool verbose,
                std::ostream &out, const std::string &label = "")
  {
    const MPI_Comm                             comm  = d.communicator;
    const IndexSet                            &owned = d.dof_handler.locally_owned_dofs();
    plastix::PlasticityState                  &state = d.op.enable_plasticity();
    LinearAlgebra::distributed::Vector<double> host(d.op.get_partitioner()), x_host(d.op.get_partitioner());
    plastix::DeviceVector                      u_dev, f_dev, x_dev, y_dev;
    for (auto *v : {&u_dev, &f_dev, &x_dev, &y_dev})
      d.op.initialize_dof_vector(*v);
    auto relative_l2 = [&](const double diff, const double norm) {
      return std::sqrt(Utilities::MPI::sum(diff, comm) / std::max(Utilities::MPI::sum(norm, comm), 1e-300));
    };
    // f_int sums cell contributions of stresses much larger than the net nodal forces (bending):
    // round-off up to 2.6e-13 relative was measured (voxel cantilever), hence 1e-11. A wrong
    // stress at a single Gauss point is orders of magnitude above it.
    const double force_tolerance = 1e-11;
    // Single precision: float data and arithmetic, sums over a few cells.
    const double single_tolerance = 1e-5;
    double       worst_force = 0, worst_tangent = 0, worst_constrained = 0, worst_diagonal = 0, worst_fd = 0;
    double       worst_single = 0;
    plastix::device::Vector<float> x_single, y_single;
    d.op.initialize_dof_vector(x_single);
    d.op.initialize_dof_vector(y_single);
    bool   counts_ok = true;
    for (unsigned int k = 0; k < reference.u.size(); ++k)
      {
        host = 0;
        for (const auto i : owned)
          host(i) = reference.u[k](i);
        u_dev.copy_from_host(host);
        const plastix::StressUpdateStatistics stats = state.update(u_dev, f_dev);
        f_dev.copy_to_host(host);
        double diff = 0, norm = 0;
        for (const auto i : owned)
          {
            diff += std::pow(host(i) - reference.f_int[k](i), 2);
            norm += std::pow(reference.f_int[k](i), 2);
          }
        const double force_error = relative_l2(diff, norm);
        const bool   counts      = stats.n_plastic_points == reference.plastic_points[k] &&
                            stats.n_plastic_cells == reference.plastic_cells[k];

        // Tangent: y = A x with x nonzero everywhere.
        TrilinosWrappers::MPI::Vector x_free(owned, comm), y_ref(owned, comm);
        for (const auto i : owned)
          {
            x_host(i) = std::sin(0.37 * i + 0.1 * k + 0.2) + 0.3 * std::cos(0.013 * i);
            x_free(i) = reference.constrained.is_element(i) ? 0. : x_host(i);
          }
        x_free.compress(VectorOperation::insert);
        x_dev.copy_from_host(x_host);
        d.op.vmult(y_dev, x_dev);
        y_dev.copy_to_host(host);
        reference.tangent[k]->vmult(y_ref, x_free);
        double diff_free = 0, norm_free = 0, diff_constrained = 0;
        for (const auto i : owned)
          if (reference.constrained.is_element(i))
            diff_constrained = std::max(diff_constrained, std::abs(host(i) - x_host(i)));
          else
            {
              diff_free += std::pow(host(i) - y_ref(i), 2);
              norm_free += std::pow(y_ref(i), 2);
            }
        const double tangent_error     = relative_l2(diff_free, norm_free);
        const double constrained_error = Utilities::MPI::max(diff_constrained, comm);
        x_single.copy_from_host(x_host);
        d.op.vmult(y_single, x_single);
        y_single.copy_to_host(host);
        double diff_single = 0;
        for (const auto i : owned)
          if (!reference.constrained.is_element(i))
            diff_single += std::pow(host(i) - y_ref(i), 2);
        const double single_error = relative_l2(diff_single, norm_free);
        d.op.compute_diagonal(y_dev);
        y_dev.copy_to_host(host);
        double diag_diff = 0, diag_max = 0;
        for (const auto i : owned)
          if (!reference.constrained.is_element(i))
            {
              const double r = reference.tangent[k]->diag_element(i);
              diag_diff      = std::max(diag_diff, std::abs(host(i) - r));
              diag_max       = std::max(diag_max, std::abs(r));
            }
        const double diagonal_error = Utilities::MPI::max(diag_diff, comm) / Utilities::MPI::max(diag_max, comm);

        // The tangent is the derivative of the internal force (B-bar
        // included): a central difference (f(u + h x) - f(u - h x)) / 2h on
        // the free rows, x zero at constrained DoFs, h = 1e-6 and 1e-7 times
        // |u| / |x|, the smaller difference of the two. f_int has a kink
        // where a point changes between elastic and plastic: the rows of
        // cells whose plastic points differ between u + h x and u - h x are
        // left out (seen: 5.6e-4 with them, 1e-9 without); the rest must
        // match.
        double fd_error = 0;
        {
          LinearAlgebra::distributed::Vector<double> free_x(d.op.get_partitioner()), f_plus(d.op.get_partitioner()),
            ax(d.op.get_partitioner());
          double u2 = 0, x2 = 0;
          for (const auto i : owned)
            {
              free_x(i) = x_free(i);
              u2 += reference.u[k](i) * reference.u[k](i);
              x2 += x_free(i) * x_free(i);
            }
          const double scale =
            std::sqrt(Utilities::MPI::sum(u2, comm) / std::max(Utilities::MPI::sum(x2, comm), 1e-300));
          // A x on the free rows at the reference state (the tangent of the update above).
          x_dev.copy_from_host(free_x);
          d.op.vmult(y_dev, x_dev);
          y_dev.copy_to_host(ax);
          fd_error = std::numeric_limits<double>::max();
          for (const double relative_h : {1e-6, 1e-7})
            {
              const double        h = relative_h * scale;
              std::vector<double> averages[2];
              for (const double sign : {1., -1.})
                {
                  for (const auto i : owned)
                    host(i) = reference.u[k](i) + sign * h * x_free(i);
                  u_dev.copy_from_host(host);
                  state.update(u_dev, f_dev);
                  f_dev.copy_to_host(sign > 0 ? f_plus : host);
                  averages[sign > 0 ? 0 : 1] = state.cell_averages();
                }
              // Rows of cells whose plastic points differ between u + h x and u - h x.
              std::vector<types::global_dof_index> cell_dofs(d.dof_handler.get_fe().n_dofs_per_cell());
              std::set<types::global_dof_index>    kinked;
              unsigned int                         cell_index = 0;
              for (const auto &cell : d.dof_handler.active_cell_iterators())
                if (cell->is_locally_owned())
                  {
                    if (averages[0][10 * cell_index + 8] != averages[1][10 * cell_index + 8])
                      {
                        cell->get_dof_indices(cell_dofs);
                        kinked.insert(cell_dofs.begin(), cell_dofs.end());
                      }
                    ++cell_index;
                  }
              double fd_diff = 0, fd_norm = 0, n_kinked = 0, n_free = 0;
              for (const auto i : owned)
                if (!reference.constrained.is_element(i))
                  {
                    n_free += 1;
                    if (kinked.count(i))
                      {
                        n_kinked += 1;
                        continue;
                      }
                    fd_diff += std::pow((f_plus(i) - host(i)) / (2 * h) - ax(i), 2);
                    fd_norm += std::pow(ax(i), 2);
                  }
              // A difference over fewer than 90 % of the free rows checks too little.
              if (Utilities::MPI::sum(n_kinked, comm) <= 0.1 * Utilities::MPI::sum(n_free, comm))
                fd_error = std::min(fd_error, relative_l2(fd_diff, fd_norm));
            }
          // Back to the reference state (trial history and tangent) before commit().
          for (const auto i : owned)
            host(i) = reference.u[k](i);
          u_dev.copy_from_host(host);
          state.update(u_dev, f_dev);
        }
        if (verbose)
          {
            out << "  step " << k + 1 << ": plastix at the reference state" << std::endl;
            checker.check("    update(): internal force (all rows) vs reference, relative l2", force_error, force_tolerance);
            checker.check_true("    update(): plastic points " + std::to_string(stats.n_plastic_points) +
                                 " == reference " + std::to_string(reference.plastic_points[k]) +
                                 ", plastic cells " + std::to_string(stats.n_plastic_cells) + " == " +
                                 std::to_string(reference.plastic_cells[k]),
                               counts);
            checker.check("    tangent vmult vs reference tangent matrix (free rows), relative l2", tangent_error,
                          1e-12);
            checker.check("    tangent: constrained rows return the input, max abs", constrained_error, 0.);
            checker.check("    tangent vmult in single precision vs reference (free rows), relative l2", single_error,
                          single_tolerance);
            checker.check("    tangent diagonal vs reference (free rows), max relative", diagonal_error, 1e-12);
            checker.check("    tangent vs central difference of the internal force (free rows), relative l2",
                          fd_error, 1e-6);
          }
        worst_force       = std::max(worst_force, force_error);
        worst_tangent     = std::max(worst_tangent, tangent_error);
        worst_constrained = std::max(worst_constrained, constrained_error);
        worst_single      = std::max(worst_single, single_error);
        worst_diagonal    = std::max(worst_diagonal, diagonal_error);
        worst_fd          = std::max(worst_fd, fd_error);
        counts_ok         = counts_ok && counts;
        state.commit();
      }
    if (!verbose)
      {
        checker.check(label + "f_int", worst_force, force_tolerance);
        checker.check(label + "tangent vmult", worst_tangent, 1e-12);
        checker.check(label + "tangent constrained rows", worst_constrained, 0.);
        checker.check(label + "tangent vmult in single precision", worst_single, single_tolerance);
        checker.check(label + "tangent diagonal", worst_diagonal, 1e-12);
        checker.check(label + "tangent vs central difference of f_int", worst_fd, 1e-6);
        checker.check_true(label + "plastic point and cell counts == reference, all steps", counts_ok);
      }
    d.op.disable_plasticity();
  }

  /** Driver results: displacement at every vertex and plastic points, per load factor of the run. */
  struct DriverSolution
  {
    plastix::RunSummary              summary;
    std::vector<std::vector<double>> vertex_values;
    std::vector<unsigned long long>  plastic_points;
    std::vector<unsigned int>        newton_iterations;
    bool                             ok = false;
  };

  /**
   * Run plastix::ElastoplasticProblem for @p parameters (whose monitor
   * points are the vertices of @p vertex_index, in order) and read its CSV
   * rows at the load factors of @p load_factors (on every rank).
   */
  inline DriverSolution
  run_driver(const plastix::Parameters &parameters, const std::vector<double> &load_factors,
             const VertexIndex &vertex_index, const MPI_Comm comm, Checker &checker, const std::string &label = "")
  {
    DriverSolution result;
    std::string    log;
    try
      {
        result.summary = run_elastoplastic(parameters, comm, &log);
      }
    catch (const std::exception &e)
      {
        if (Utilities::MPI::this_mpi_process(comm) == 0)
          std::cout << "  driver output before the failure:\n" << log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
        checker.check_true(label + "ElastoplasticProblem::run() threw: " + e.what(), false);
        return result;
      }
    const unsigned int n     = 3 * vertex_index.n_vertices();
    std::vector<double> data(load_factors.size() * (n + 2), 0.);
    int                 missing = 0;
    if (Utilities::MPI::this_mpi_process(comm) == 0)
      {
        const Csv csv   = read_csv(parameters.output.directory + "/" + parameters.output.base_name + ".csv");
        const int lf    = csv.column("load_factor"), pp = csv.column("plastic_points"),
                  ni    = csv.column("newton_iterations");
        const int first = csv.column("v0_ux");
        for (unsigned int k = 0; k < load_factors.size(); ++k)
          {
            const std::vector<double> *row = nullptr;
            for (const auto &r : csv.rows)
              if (std::abs(r[lf] - load_factors[k]) <= 1e-9 * std::abs(load_factors[k]))
                row = &r;
            if (!row)
              {
                ++missing;
                continue;
              }
            for (unsigned int i = 0; i < n; ++i)
              data[k * (n + 2) + i] = (*row)[first + i];
            data[k * (n + 2) + n]     = (*row)[pp];
            data[k * (n + 2) + n + 1] = (*row)[ni];
          }
      }
    missing = Utilities::MPI::broadcast(comm, missing, 0);
    data    = Utilities::MPI::broadcast(comm, data, 0);
    checker.check_true(label + "driver CSV has a row for every load factor", missing == 0);
    for (unsigned int k = 0; k < load_factors.size(); ++k)
      {
        result.vertex_values.emplace_back(data.begin() + k * (n + 2), data.begin() + k * (n + 2) + n);
        result.plastic_points.push_back(static_cast<unsigned long long>(data[k * (n + 2) + n]));
        result.newton_iterations.push_back(static_cast<unsigned int>(data[k * (n + 2) + n + 1]));
      }
    result.ok = missing == 0;
    return result;
  }

  /** Relative l2 difference of two vertex value lists. */
  inline double
  relative_difference(const std::vector<double> &a, const std::vector<double> &b)
  {
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      {
        diff += (a[i] - b[i]) * (a[i] - b[i]);
        norm += b[i] * b[i];
      }
    return std::sqrt(diff / std::max(norm, 1e-300));
  }

  /**
   * The vertices of the locally owned cells of all ranks, sorted and without
   * duplicates, identical on every rank (of the distributed mesh itself: a
   * distorted mesh depends on the partition).
   */
  inline std::vector<Point<3>>
  gather_vertices(const Triangulation<3> &triangulation, const MPI_Comm comm)
  {
    std::vector<Point<3>> local;
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        for (const auto v : cell->vertex_indices())
          local.push_back(cell->vertex(v));
    std::vector<Point<3>> all;
    for (const auto &part : Utilities::MPI::all_gather(comm, local))
      all.insert(all.end(), part.begin(), part.end());
    auto less = [](const Point<3> &a, const Point<3> &b) {
      return std::lexicographical_compare(&a[0], &a[0] + 3, &b[0], &b[0] + 3);
    };
    std::sort(all.begin(), all.end(), less);
    double size = 0;
    for (const auto &p : all)
      size = std::max(size, p.norm());
    std::vector<Point<3>> unique;
    for (const auto &p : all)
      {
        bool seen = false;
        // Equal points are neighbours after sorting unless round-off split them: look back a little.
        for (std::size_t k = unique.size(); k > 0 && k + 8 > unique.size() && !seen; --k)
          seen = unique[k - 1].distance(p) <= 1e-12 * size;
        if (!seen)
          unique.push_back(p);
      }
    return unique;
  }

  /** @p text with every vertex of @p vertices as a monitor point. */
  inline plastix::Parameters
  parameters_with_vertex_monitors(const std::string &text, const std::vector<Point<3>> &vertices)
  {
    return parameters_from_text(text + "\nsubsection Monitor\n set Points = " + monitor_points_text(vertices) +
                                "\nend\n");
  }

  /**
   * The problem of the .prm @p text set up as the driver sets it up (mesh,
   * DoFs, constraints, operator, external force), and the same parameters
   * with every vertex as a monitor point: what solve_reference(),
   * check_kernels() and run_driver() compare vertex by vertex.
   */
  struct VertexMonitoredProblem
  {
    VertexMonitoredProblem(const std::string &text, const MPI_Comm comm)
      : base(parameters_from_text(text))
      , d(base, comm)
      , vertices(set_up(d, comm))
      , parameters(parameters_with_vertex_monitors(text, vertices))
      , vertex_index(vertices)
    {}

    /** The parameters of @p text (the discretization refers to them). */
    const plastix::Parameters   base;
    plastix::Discretization     d;
    const std::vector<Point<3>> vertices;
    /** base with every vertex monitored (for the driver run). */
    const plastix::Parameters parameters;
    const VertexIndex         vertex_index;

  private:
    /** Mesh, DoFs, operator and external force of @p d; returns the vertices of all ranks. */
    static std::vector<Point<3>>
    set_up(plastix::Discretization &d, const MPI_Comm comm)
    {
      d.make_mesh();
      d.setup();
      d.assemble_external_force();
      return gather_vertices(*d.triangulation, comm);
    }
  };
} // namespace plastix_test

#endif
