// Plots through gnuplot: a script next to the CSV, run where gnuplot exists.
#include "plot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char **environ;

namespace plastix
{
  namespace
  {
    /** @p text as a single-quoted gnuplot string (a quote is doubled). */
    std::string
    quoted(const std::string &text)
    {
      if (text.find_first_of("\n\r") != std::string::npos)
        throw std::invalid_argument("plot: a line break in '" + text + "'");
      std::string result = "'";
      for (const char c : text)
        result += c == '\'' ? std::string("''") : std::string(1, c);
      return result + "'";
    }

    /** The 1-based number of @p name in @p columns. */
    unsigned int
    column_number(const std::vector<std::string> &columns, const std::string &name)
    {
      const auto it = std::find(columns.begin(), columns.end(), name);
      if (it == columns.end())
        throw std::invalid_argument("plot: no CSV column '" + name + "'");
      return static_cast<unsigned int>(it - columns.begin()) + 1;
    }
  } // namespace

  std::string
  gnuplot_script(const CsvPlot &plot)
  {
    const unsigned int x = column_number(plot.columns, plot.x_column);
    const unsigned int y = column_number(plot.columns, plot.y_column);
    std::ostringstream script;
    script << "# " << plot.title << "\n"
           << "# Written by plastix: 'gnuplot <this file>' in this folder redraws " << plot.png_file << " from "
           << plot.csv_file << ".\n"
           << "set terminal pngcairo size " << plot.width << "," << plot.height << " noenhanced font ',11'\n"
           << "set output " << quoted(plot.png_file) << "\n"
           << "set datafile separator ','\n"
           << "set title " << quoted(plot.title) << "\n"
           << "set xlabel " << quoted(plot.x_label) << "\n"
           << "set ylabel " << quoted(plot.y_label) << "\n"
           << "set grid\n"
           << "unset key\n"
           << "plot " << quoted(plot.csv_file) << " skip 1 using " << x << ":" << y
           << " with linespoints linewidth 2 pointtype 7 pointsize 1.2 linecolor rgb '#1f77b4'\n";
    return script.str();
  }

  PlotResult
  write_plot(const std::string &directory, const std::string &script_file, const CsvPlot &plot)
  {
    namespace fs = std::filesystem;
    const fs::path folder(directory);
    {
      std::ofstream out(folder / script_file);
      out << gnuplot_script(plot);
      if (!out)
        throw std::runtime_error("cannot write the plot script '" + (folder / script_file).string() + "'");
    }

    PlotResult                 result;
    const std::string          log_file = script_file + ".log";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addchdir_np(&actions, directory.c_str());
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    std::string program = "gnuplot", argument = script_file;
    char       *argv[]  = {program.data(), argument.data(), nullptr};
    pid_t       pid     = 0;
    const int   spawned = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    if (spawned == 0)
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        {
        }

    // gnuplot's message is the last line of its error output (the lines
    // before it echo the offending command).
    std::string error_line;
    {
      std::ifstream log(folder / log_file);
      std::string   line;
      while (std::getline(log, line))
        if (line.find_first_not_of(" \t^") != std::string::npos)
          error_line = line;
    }
    std::error_code ec;
    fs::remove(folder / log_file, ec);

    if (spawned != 0)
      result.reason = spawned == ENOENT ? "gnuplot is not installed (not on the PATH)" :
                                          std::string("gnuplot could not be started: ") + std::strerror(spawned);
    else if (!WIFEXITED(status) || WEXITSTATUS(status) == 127)
      result.reason = "gnuplot is not installed (not on the PATH)";
    else if (WEXITSTATUS(status) != 0)
      result.reason = "gnuplot exited with status " + std::to_string(WEXITSTATUS(status)) +
                      (error_line.empty() ? std::string() : ": " + error_line);
    else if (!fs::is_regular_file(folder / plot.png_file, ec) || fs::file_size(folder / plot.png_file, ec) == 0)
      result.reason = "gnuplot wrote no " + plot.png_file;
    else
      result.written = true;
    if (!result.written)
      fs::remove(folder / plot.png_file, ec);
    return result;
  }

  std::string
  monitor_column_label(const std::string &column, const std::string &length_unit, const std::string &force_unit)
  {
    if (column == "step")
      return "load step [-]";
    if (column == "load_factor")
      return "load factor [-]";
    if (column == "newton_iterations")
      return "Newton iterations [-]";
    if (column == "linear_iterations")
      return "linear iterations [-]";
    if (column == "plastic_points")
      return "plastic Gauss points [-]";
    const auto n = column.size();
    if (n > 3 && column[n - 3] == '_' && column[n - 2] == 'u' && std::string("xyz").find(column[n - 1]) != std::string::npos)
      return column + ": displacement " + column[n - 1] + " of point " + column.substr(0, n - 3) + " [" +
             length_unit + "]";
    if (n > 3 && column[0] == 'R' && column[n - 2] == '_' && std::string("xyz").find(column[n - 1]) != std::string::npos &&
        std::all_of(column.begin() + 1, column.end() - 2, [](const char c) { return std::isdigit(c) != 0; }))
      return column + ": reaction force " + column[n - 1] + " on boundary " + column.substr(1, n - 3) + " [" +
             force_unit + "]";
    return column;
  }
} // namespace plastix
