// Plots of the load curve through gnuplot: plastix writes a gnuplot script
// next to the CSV of the monitored values and runs gnuplot on it when gnuplot
// is installed (the CSV stays the primary output; the script can be run
// later, or edited, by hand).
#ifndef PLASTIX_APP_PLOT_H
#define PLASTIX_APP_PLOT_H

#include <string>
#include <vector>

namespace plastix
{
  /** A line plot of two columns of a CSV file (its first line names the columns). */
  struct CsvPlot
  {
    /** The CSV file, relative to the folder the script runs in. */
    std::string csv_file;
    /** The PNG file gnuplot writes, relative to the same folder. */
    std::string png_file;
    /** The column names of the CSV file (its first line). */
    std::vector<std::string> columns;
    /** The column on the x axis (one of columns). */
    std::string x_column;
    /** The column on the y axis (one of columns). */
    std::string y_column;
    /** Axis labels (printed as given, no gnuplot markup). */
    std::string x_label, y_label;
    /** Title above the plot. */
    std::string title;
    /** Size of the PNG in pixels. */
    unsigned int width = 800, height = 600;
  };

  /**
   * The gnuplot script that draws @p plot as lines with points into
   * plot.png_file (terminal pngcairo: an antialiased, compressed PNG), the
   * columns referred to by their number, with a grid and no legend.
   *
   * @throws std::invalid_argument if x_column or y_column is not one of
   * columns, or a file name holds a quote or a line break.
   */
  std::string
  gnuplot_script(const CsvPlot &plot);

  /** What write_plot() did. */
  struct PlotResult
  {
    /** The PNG was written. */
    bool written = false;
    /** Why not (empty if written): gnuplot missing, or its exit status and error message. */
    std::string reason;
  };

  /**
   * Write gnuplot_script(@p plot) as @p script_file in @p directory (which
   * holds plot.csv_file) and run `gnuplot script_file` there, if a gnuplot
   * executable is on the PATH. The PNG is written in place by gnuplot; a
   * PNG of a failed gnuplot run is removed. Never throws for a missing or
   * failing gnuplot (the result says what happened).
   *
   * @throws std::runtime_error if the script cannot be written.
   */
  PlotResult
  write_plot(const std::string &directory, const std::string &script_file, const CsvPlot &plot);

  /**
   * The axis label of the monitor CSV column @p column (MonitorParameters::
   * csv_columns()): what it is and its unit, e.g. "tip_uy: displacement y of
   * point tip [m]", "R4_z: reaction force z on boundary 4 [N]", "load factor
   * [-]".
   */
  std::string
  monitor_column_label(const std::string &column, const std::string &length_unit, const std::string &force_unit);
} // namespace plastix

#endif
