// The monitor of a run: point displacements and reactions per load step.
#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/grid/grid_tools.h>

#include "monitor.h"
#include "plot.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

namespace plastix
{
  Monitor::Monitor(const Discretization &d, const MonitorParameters &p)
    : d(d)
    , parameters(p)
  {
    // The nearest vertex of each point (one pass over the cells for all
    // points); its owner records the DoFs.
    const std::size_t                                         n_points = p.points.size();
    std::vector<double>                                       best(n_points, std::numeric_limits<double>::max());
    std::vector<std::vector<dealii::types::global_dof_index>> best_dofs(
      n_points, std::vector<dealii::types::global_dof_index>(3, 0));
    const dealii::IndexSet &owned = d.dof_handler.locally_owned_dofs();
    if (n_points > 0)
      for (const auto &cell : d.dof_handler.active_cell_iterators())
        if (cell->is_locally_owned())
          for (const auto v : cell->vertex_indices())
            {
              const dealii::Point<3> &vertex = cell->vertex(v);
              for (std::size_t i = 0; i < n_points; ++i)
                {
                  const double distance = vertex.distance(p.points[i].location);
                  if (distance < best[i] && owned.is_element(cell->vertex_dof_index(v, 0)))
                    {
                      best[i] = distance;
                      for (unsigned int c = 0; c < 3; ++c)
                        best_dofs[i][c] = cell->vertex_dof_index(v, c);
                    }
                }
            }
    for (std::size_t i = 0; i < n_points; ++i)
      {
        struct
        {
          double distance;
          int    rank;
        } local{best[i], static_cast<int>(dealii::Utilities::MPI::this_mpi_process(d.communicator))}, global;
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE_INT, MPI_MINLOC, d.communicator);
        point_dofs.push_back(global.rank == local.rank ? best_dofs[i] : std::vector<dealii::types::global_dof_index>());
        point_distance.push_back(global.distance);
      }
    for (const auto id : p.reaction_ids)
      {
        dealii::IndexSet dofs = dealii::DoFTools::extract_boundary_dofs(d.dof_handler, dealii::ComponentMask(), {id});
        dofs                  = dofs & d.dof_handler.locally_owned_dofs();
        reaction_dofs.push_back(dofs);
        const auto spring = d.parameters.boundary.springs.find(id);
        reaction_springs.push_back(spring != d.parameters.boundary.springs.end() ? &spring->second : nullptr);
      }
    for (const auto &name : p.csv_columns())
      header += (header.empty() ? "" : ",") + name;
  }

  void
  Monitor::restore(const LoadSteppingState &state)
  {
    rows = state.monitor_rows;
    load_factors.clear();
    columns.clear();
    for (const auto &[lambda, values] : state.monitor_values)
      {
        load_factors.push_back(lambda);
        columns.push_back(values);
      }
  }

  void
  Monitor::save(LoadSteppingState &state) const
  {
    state.monitor_rows = rows;
    state.monitor_values.clear();
    for (std::size_t i = 0; i < rows.size(); ++i)
      state.monitor_values.emplace_back(load_factors[i], columns[i]);
  }

  bool
  Monitor::needs_internal_force() const
  {
    return !reaction_dofs.empty();
  }

  std::vector<double>
  Monitor::values(const dealii::LinearAlgebra::distributed::Vector<double> &u,
                  const DeviceVector                                       &internal_force,
                  const double                                              scale) const
  {
    std::vector<double> values;
    for (const auto &dofs : point_dofs)
      for (unsigned int c = 0; c < 3; ++c)
        values.push_back(dofs.empty() ? 0. : scale * u(dofs[c]));
    if (!reaction_dofs.empty())
      {
        dealii::LinearAlgebra::distributed::Vector<double> f(internal_force.get_partitioner());
        internal_force.copy_to_host(f);
        // u with the ghost DoFs of the owned cells, for the spring faces.
        dealii::LinearAlgebra::distributed::Vector<double> ghosted;
        if (std::any_of(reaction_springs.begin(), reaction_springs.end(), [](const auto *s) { return s != nullptr; }))
          {
            ghosted.reinit(d.op.get_partitioner());
            ghosted.copy_locally_owned_data_from(u);
            ghosted.update_ghost_values();
          }
        for (std::size_t k = 0; k < reaction_dofs.size(); ++k)
          {
            double r[3] = {0, 0, 0};
            if (reaction_springs[k] != nullptr)
              {
                const auto spring = spring_reaction(parameters.reaction_ids[k], *reaction_springs[k], ghosted);
                for (unsigned int c = 0; c < 3; ++c)
                  r[c] = scale * spring[c];
              }
            else
              for (const auto i : reaction_dofs[k])
                r[i % 3] += scale * f(i);
            values.insert(values.end(), r, r + 3);
          }
      }
    MPI_Allreduce(MPI_IN_PLACE, values.data(), values.size(), MPI_DOUBLE, MPI_SUM, d.communicator);
    return values;
  }

  void
  Monitor::record(const unsigned int                                        step,
                  const double                                              load_factor,
                  const unsigned int                                        newton_iterations,
                  const unsigned int                                        linear_iterations,
                  const unsigned long long                                  plastic_points,
                  const dealii::LinearAlgebra::distributed::Vector<double> &u,
                  const DeviceVector                                       &internal_force,
                  const double                                              scale)
  {
    const std::vector<double> values = this->values(u, internal_force, scale);
    std::ostringstream row;
    row << std::setprecision(15) << step << ',' << load_factor << ',' << newton_iterations << ','
        << linear_iterations << ',' << plastic_points;
    for (const double v : values)
      row << ',' << v;
    rows.push_back(row.str());
    load_factors.push_back(load_factor);
    columns.push_back(values);
  }

  std::array<double, 3>
  Monitor::spring_reaction(const dealii::types::boundary_id                          id,
                           const BoundarySpring                                     &spring,
                           const dealii::LinearAlgebra::distributed::Vector<double> &u) const
  {
    dealii::FEFaceValues<3>                  fe_face_values(d.dof_handler.get_fe(), dealii::QGauss<2>(2),
                                           boundary_spring_update_flags());
    const dealii::FEValuesExtractors::Vector displacement(0);
    std::vector<dealii::Tensor<1, 3>>        values(fe_face_values.n_quadrature_points);
    dealii::Tensor<1, 3>                     force;
    for (const auto &cell : d.dof_handler.active_cell_iterators())
      if (cell->is_locally_owned() && cell->at_boundary())
        for (const auto f : cell->face_indices())
          if (cell->face(f)->at_boundary() && cell->face(f)->boundary_id() == id)
            {
              fe_face_values.reinit(cell, f);
              fe_face_values[displacement].get_function_values(u, values);
              for (const unsigned int q : fe_face_values.quadrature_point_indices())
                force -= boundary_spring_stiffness(spring, fe_face_values.normal_vector(q)) * values[q] *
                         fe_face_values.JxW(q);
            }
    return {{force[0], force[1], force[2]}};
  }

  std::string
  Monitor::csv() const
  {
    std::string text = header + "\n";
    for (const auto &row : rows)
      text += row + "\n";
    return text;
  }

  void
  Monitor::plot(const std::string &directory, const std::string &base_name, const std::string &csv_file) const
  {
    if (rows.empty())
      return;
    CsvPlot plot;
    plot.columns  = dealii::Utilities::split_string_list(header, ',');
    plot.csv_file = csv_file;
    plot.png_file = base_name + ".png";
    plot.x_column = parameters.plot_x_column;
    if (plot.x_column.empty())
      {
        if (plot.columns.size() <= 5)
          return; // nothing monitored, nothing to plot
        plot.x_column = plot.columns[5];
      }
    plot.y_column = parameters.plot_y_column;
    plot.x_label  = monitor_column_label(plot.x_column, parameters.length_unit, parameters.force_unit);
    plot.y_label  = monitor_column_label(plot.y_column, parameters.length_unit, parameters.force_unit);
    plot.title    = "plastix " + base_name + ": " + plot.y_column + " vs " + plot.x_column;
    const PlotResult result = write_plot(directory, base_name + ".gnuplot", plot);
    if (!result.written)
      std::cout << "plot: " << plot.png_file << " not drawn (" << result.reason << "); 'gnuplot " << base_name
                << ".gnuplot' in the output directory draws it" << std::endl;
  }

  void
  Monitor::report_distant_points() const
  {
    // The bounding box, not GridTools::diameter: that compares all pairs of
    // boundary vertices, which takes minutes on meshes of millions of cells.
    const auto   box       = dealii::GridTools::compute_bounding_box(*d.triangulation);
    const double mesh_size = box.get_boundary_points().first.distance(box.get_boundary_points().second);
    if (dealii::Utilities::MPI::this_mpi_process(d.communicator) == 0)
      for (std::size_t i = 0; i < point_distance.size(); ++i)
        if (point_distance[i] > 1e-8 * mesh_size)
          std::cout << "  monitor point '" << parameters.points[i].name << "' is " << point_distance[i]
                    << " away from the nearest vertex, which is recorded" << std::endl;
  }
} // namespace plastix
