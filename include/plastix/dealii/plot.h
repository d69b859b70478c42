// Line plots as PNG files without any third-party library: a small raster
// renderer (built-in bitmap font) and a PNG encoder with stored (uncompressed)
// deflate blocks, used for the load-displacement curves of the application.
#ifndef PLASTIX_DEALII_PLOT_H
#define PLASTIX_DEALII_PLOT_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace plastix
{
  /**
   * One curve of a line plot: the points (x[i], y[i]) joined in order.
   * @p x and @p y must have the same length. Points with a NaN or infinite
   * coordinate are skipped: they interrupt the line and do not enter the
   * axis ranges.
   */
  struct PlotSeries
  {
    /** Legend text (the legend is drawn only for more than one series). */
    std::string label;
    /** Abscissae. */
    std::vector<double> x;
    /** Ordinates. */
    std::vector<double> y;
  };

  /**
   * Write a line plot (lines with markers) of @p series as an 8-bit RGB PNG
   * of @p width x @p height pixels to @p file_name: white background, a
   * framed plot area with light grid lines at 4 to 6 "nice" ticks per axis
   * (steps 1, 2, 2.5 or 5 times a power of ten) labelled with printf's %g
   * (more digits where %g would print two ticks alike), the axis labels, the
   * title, a legend if there is more than one series (in the corner of the
   * plot area that covers the least data) and a distinct colour per series
   * (plot_series_colour()). Text uses a built-in 5x7 bitmap font covering
   * printable ASCII; other characters are drawn as a box. Degenerate input
   * is drawn, not rejected: no series or no finite point gives empty axes
   * over [0,1], and an axis whose values are all equal is widened around the
   * value. The output is a deterministic function of the arguments.
   *
   * The file is written in place (no staging; callers that need complete
   * files only stage it themselves).
   *
   * @throws std::invalid_argument if a series has x and y of different
   * lengths, or @p width or @p height is outside [100, 16384].
   * @throws std::runtime_error, naming @p file_name, if the file cannot be
   * opened or written.
   */
  void
  write_line_plot_png(const std::string             &file_name,
                      const std::vector<PlotSeries> &series,
                      const std::string             &x_label,
                      const std::string             &y_label,
                      const std::string             &title,
                      unsigned int                   width  = 800,
                      unsigned int                   height = 600);

  /**
   * The RGB colour that write_line_plot_png() gives the series with index
   * @p series_index (a palette of ten colours, repeated with other marker
   * shapes beyond ten series).
   */
  std::array<std::uint8_t, 3>
  plot_series_colour(unsigned int series_index);
} // namespace plastix

#endif
