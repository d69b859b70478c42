// The subsections Output and Monitor: declaration and checks.
#include <deal.II/base/patterns.h>
#include <deal.II/base/utilities.h>

#include <plastix/core/mechanics_operator.h>

#include "parameters.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <unistd.h>

namespace plastix
{
  bool
  OutputParameters::writes(const std::string &quantity) const
  {
    return list_contains(additional_quantities, quantity);
  }

  void
  OutputParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Output");
    prm.add_parameter("Directory", directory, "Folder for all output (created if missing)",
                      dealii::Patterns::Anything());
    prm.add_parameter("Base name", base_name, "File name stem of the VTU/PVTU output",
                      dealii::Patterns::FileName());
    prm.add_parameter("Write VTU", write_vtu,
                      "Write displacement, stress and von Mises stress as VTU/PVTU");
    prm.add_parameter("Additional quantities", additional_quantities,
                      "Cell quantities the VTU output holds besides the displacement, the "
                      "cell-average stress and the von Mises stress (and, in elastoplastic runs, the "
                      "plastic quantities): any of strain (the cell-average strain tensor, "
                      "strain_xx ... strain_xy), plastic strain (elastoplastic runs: the cell-average "
                      "plastic strain tensor, plastic_strain_xx ... plastic_strain_xy), principal "
                      "stresses (principal_stress_1 >= 2 >= 3 and "
                      "their unit directions principal_direction_1..3 as vectors), pressure "
                      "(-tr sigma / 3), nodal stresses (point data nodal_stress, a symmetric tensor in "
                      "VTK's order xx, yy, zz, xy, yz, xz, and nodal_von_mises: the cell-average "
                      "stresses around each vertex averaged with the cells' volumes as weights), "
                      "separated by commas",
                      dealii::Patterns::MultipleSelection("strain|plastic strain|principal stresses|pressure|nodal stresses"));
    prm.add_parameter("Checkpoint interval", checkpoint_interval,
                      "Elastoplastic and dynamic runs: write a checkpoint (mesh, displacement, "
                      "Gauss-point history and load-stepping state; a dynamic run's displacement, "
                      "velocity, acceleration and time-stepping state) into 'Directory'/checkpoint "
                      "after every this many converged load steps or time steps, replacing the "
                      "previous one atomically; "
                      "'plastix --restart <Directory>/checkpoint' continues the run from it, on any "
                      "number of MPI ranks. Removed when the run completes. 0: by 'Checkpoint wall "
                      "time' only",
                      dealii::Patterns::Integer(0));
    prm.add_parameter("Checkpoint wall time", checkpoint_wall_time,
                      "Elastoplastic and dynamic runs: also write a checkpoint after a converged step "
                      "when this many seconds of wall time have passed since the run started or "
                      "the last checkpoint (a checkpoint costs about as much as a few Newton "
                      "iterations on the GPU, so short runs write none). 0: by 'Checkpoint "
                      "interval' only. A run stopped by 'Load stepping/Steps per run' always "
                      "writes one",
                      dealii::Patterns::Double(0.));
    prm.add_parameter("Summary file", summary_file,
                      "File in the output directory to which the one-line summary is appended "
                      "(empty: only print it)",
                      dealii::Patterns::Anything());
    prm.leave_subsection();
  }

  void
  MonitorParameters::declare(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Monitor");
    prm.add_parameter("Points", points_text,
                      "Points whose displacement (of the nearest mesh vertex) is written to the "
                      "CSV file each load step: 'name: x, y, z; ...'",
                      dealii::Patterns::Anything());
    prm.add_parameter("Reactions", reactions_text,
                      "Boundary ids whose summed reaction force is written each load step, e.g. '0, 4'",
                      dealii::Patterns::Anything());
    prm.add_parameter("Plot x column", plot_x_column,
                      "CSV column on the x axis of the plot (empty: the first displacement or "
                      "reaction column)",
                      dealii::Patterns::Anything());
    prm.add_parameter("Plot y column", plot_y_column,
                      "CSV column on the y axis of the plot, e.g. load_factor (load control) or a "
                      "reaction such as R4_z (displacement control)",
                      dealii::Patterns::Anything());
    prm.add_parameter("Length unit", length_unit,
                      "Unit of lengths in the plot labels (plastix takes numbers in any consistent "
                      "unit system; this only labels the axes)",
                      dealii::Patterns::Anything());
    prm.add_parameter("Force unit", force_unit, "Unit of forces in the plot labels (see Length unit)",
                      dealii::Patterns::Anything());
    prm.add_parameter("Write plot", write_plot,
                      "Write <base name>.gnuplot, a gnuplot script that plots the CSV file, and run "
                      "gnuplot on it at the end of the run to draw <base name>.png (if gnuplot is "
                      "installed; otherwise the run says how to draw it later)");
    prm.leave_subsection();
  }

  void
  MonitorParameters::check()
  {
    points.clear();
    reaction_ids.clear();
    const std::string entry = "Monitor/Points";
    for (const auto &[name, rest] : parse_id_list(points_text, entry, "tip: 10, 0.5, 0.5"))
      {
        if (name.empty() || name.find_first_of(", \t") != std::string::npos)
          throw InputError(entry, "point name '" + name + "' must be one word");
        const auto x = parse_vector(rest, entry);
        points.push_back({name, dealii::Point<3>(x[0], x[1], x[2])});
      }
    for (const auto &item : split(reactions_text, ','))
      if (!item.empty())
        reaction_ids.push_back(parse_id(item, "Monitor/Reactions", "boundary id"));
    for (const auto &[entry, unit] : {std::make_pair("Monitor/Length unit", &length_unit),
                                      std::make_pair("Monitor/Force unit", &force_unit)})
      if (unit->find_first_of("\n\r") != std::string::npos || unit->size() > 40)
        throw InputError(entry, "must be a short label such as 'm' or 'kN'");
    if (write_plot)
      {
        const auto names = csv_columns();
        for (const auto &[entry, column] : {std::make_pair("Monitor/Plot x column", &plot_x_column),
                                            std::make_pair("Monitor/Plot y column", &plot_y_column)})
          if (!column->empty() && std::find(names.begin(), names.end(), *column) == names.end())
            {
              std::string list;
              for (const auto &name : names)
                list += (list.empty() ? "" : ", ") + name;
              throw InputError(entry, "no CSV column '" + *column + "' (columns: " + list + ")");
            }
      }
  }

  std::vector<std::string>
  MonitorParameters::csv_columns() const
  {
    std::vector<std::string> names = {"step", "load_factor", "newton_iterations", "linear_iterations",
                                      "plastic_points"};
    for (const auto &point : points)
      for (const char *c : {"ux", "uy", "uz"})
        names.push_back(point.name + "_" + c);
    for (const auto id : reaction_ids)
      for (const char *c : {"x", "y", "z"})
        names.push_back("R" + std::to_string(id) + "_" + c);
    return names;
  }

  void
  Parameters::check_output() const
  {
    namespace fs = std::filesystem;
    if (output.base_name.empty())
      throw InputError("Output/Base name", "must not be empty");
    for (const auto &[entry, name] : {std::pair<std::string, std::string>("Output/Base name", output.base_name),
                                     std::pair<std::string, std::string>("Output/Summary file", output.summary_file)})
      {
        if (!name.empty() && (name.find('/') != std::string::npos || name == "." || name == ".."))
          throw InputError(entry, "'" + name + "' must be a plain file name (files go into 'Output/Directory')");
        // Room for the suffixes (_NNNN.<rank>.vtu) within a file name's 255 bytes.
        if (name.size() > 200)
          throw InputError(entry, "is " + std::to_string(name.size()) + " characters long (at most 200)");
      }
    const fs::path  directory = output.directory.empty() ? fs::path(".") : fs::path(output.directory);
    std::error_code ec;
    if (fs::exists(directory, ec) && !fs::is_directory(directory, ec))
      throw InputError("Output/Directory", "'" + directory.string() + "' exists and is not a directory");
    // The nearest existing folder must be writable (the directory is created in it).
    fs::path existing = directory;
    while (!existing.empty() && !fs::exists(existing, ec))
      existing = existing.parent_path();
    if (existing.empty())
      existing = ".";
    if (!fs::is_directory(existing, ec) || access(existing.c_str(), W_OK | X_OK) != 0)
      throw InputError("Output/Directory", "cannot create output directory '" + directory.string() + "' ('" +
                                             existing.string() + "' is not a writable folder)");
    if (!output.summary_file.empty() && fs::is_directory(directory / output.summary_file, ec))
      throw InputError("Output/Summary file",
                       "'" + (directory / output.summary_file).string() + "' is a directory");
  }
} // namespace plastix
