// Plots through gnuplot (plot.h):
//  - gnuplot_script(): the columns by number (load control: tip_uy:load_factor;
//    displacement control: tip_uy:R0_y), the labels as given with quotes
//    doubled, the pngcairo terminal and size; an unknown column and a line
//    break in a label throw std::invalid_argument;
//  - monitor_column_label(): what and unit of every kind of monitor column;
//  - write_plot() with gnuplot installed (scripts/install-dependencies.sh
//    installs gnuplot-nox; without it this test fails): the PNG has the
//    signature, 800 x 600 in IHDR, is compressed (< 150 kB; the former
//    hand-written encoder stored 1.4 MB), and its decoded pixels hold the
//    curve's colour along the data: the image is inflated with zlib and
//    unfiltered here, and at least 300 pixels have the line colour;
//  - gnuplot not on the PATH: no PNG, the reason says so, the script stays;
//    gnuplot failing (an output folder that does not exist): no PNG, a
//    reason; a missing directory for the script throws std::runtime_error.

// Test: libraries zlib
#include "plot.h"

#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{
  int failures = 0;

  void
  check(const bool ok, const std::string &what)
  {
    std::cout << (ok ? "  ok    " : "  FAIL  ") << what << std::endl;
    if (!ok)
      ++failures;
  }

  bool
  contains(const std::string &text, const std::string &part)
  {
    return text.find(part) != std::string::npos;
  }

  using Bytes = std::vector<std::uint8_t>;

  Bytes
  read_file(const std::string &name)
  {
    std::ifstream in(name, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  std::uint32_t
  be32(const Bytes &b, const std::size_t i)
  {
    return (std::uint32_t(b[i]) << 24) | (std::uint32_t(b[i + 1]) << 16) | (std::uint32_t(b[i + 2]) << 8) | b[i + 3];
  }

  /** A decoded 8-bit RGB or RGBA PNG: width, height, channels and pixels (row-major). */
  struct Image
  {
    unsigned int width = 0, height = 0, channels = 0;
    Bytes        pixels;
  };

  /** Decode a non-interlaced 8-bit RGB/RGBA PNG (zlib for the inflate, the five PNG filters here). */
  Image
  decode_png(const Bytes &png)
  {
    const Bytes signature = {137, 80, 78, 71, 13, 10, 26, 10};
    if (png.size() < 33 || !std::equal(signature.begin(), signature.end(), png.begin()))
      throw std::runtime_error("no PNG signature");
    Image image;
    Bytes idat;
    for (std::size_t pos = 8; pos + 12 <= png.size();)
      {
        const std::uint32_t length = be32(png, pos);
        const std::string   type(png.begin() + pos + 4, png.begin() + pos + 8);
        if (pos + 12 + length > png.size())
          throw std::runtime_error("truncated chunk");
        const auto data = png.begin() + pos + 8;
        if (type == "IHDR")
          {
            image.width  = be32(png, pos + 8);
            image.height = be32(png, pos + 12);
            const int depth = data[8], colour = data[9], interlace = data[12];
            if (depth != 8 || (colour != 2 && colour != 6) || interlace != 0)
              throw std::runtime_error("not an 8-bit RGB(A) non-interlaced PNG");
            image.channels = colour == 2 ? 3 : 4;
          }
        else if (type == "IDAT")
          idat.insert(idat.end(), data, data + length);
        pos += 12 + length;
      }
    const std::size_t stride = std::size_t(image.width) * image.channels;
    Bytes             raw((stride + 1) * image.height);
    uLongf            raw_size = raw.size();
    if (uncompress(raw.data(), &raw_size, idat.data(), idat.size()) != Z_OK || raw_size != raw.size())
      throw std::runtime_error("IDAT does not inflate to the image size");
    image.pixels.assign(stride * image.height, 0);
    const unsigned int bpp = image.channels;
    for (unsigned int y = 0; y < image.height; ++y)
      {
        const std::uint8_t  filter = raw[y * (stride + 1)];
        const std::uint8_t *in     = &raw[y * (stride + 1) + 1];
        std::uint8_t       *out    = &image.pixels[y * stride];
        const std::uint8_t *up     = y > 0 ? &image.pixels[(y - 1) * stride] : nullptr;
        for (std::size_t i = 0; i < stride; ++i)
          {
            const int a = i >= bpp ? out[i - bpp] : 0, b = up ? up[i] : 0, c = (up && i >= bpp) ? up[i - bpp] : 0;
            int       predictor = 0;
            switch (filter)
              {
                case 0:
                  break;
                case 1:
                  predictor = a;
                  break;
                case 2:
                  predictor = b;
                  break;
                case 3:
                  predictor = (a + b) / 2;
                  break;
                case 4:
                  {
                    const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
                    predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
                    break;
                  }
                default:
                  throw std::runtime_error("unknown PNG filter " + std::to_string(filter));
              }
            out[i] = static_cast<std::uint8_t>(in[i] + predictor);
          }
      }
    return image;
  }

  const std::string csv_text = "step,load_factor,newton_iterations,linear_iterations,plastic_points,tip_uy,R0_y\n"
                               "1,0.25,2,10,0,0.001,-2.5e5\n"
                               "2,0.5,2,11,0,0.002,-5e5\n"
                               "3,0.75,3,12,40,0.0035,-7e5\n"
                               "4,1,4,15,100,0.007,-8e5\n";

  plastix::CsvPlot
  load_curve()
  {
    plastix::CsvPlot plot;
    plot.csv_file = "curve.csv";
    plot.png_file = "curve.png";
    plot.columns  = {"step", "load_factor", "newton_iterations", "linear_iterations", "plastic_points", "tip_uy", "R0_y"};
    plot.x_column = "tip_uy";
    plot.y_column = "load_factor";
    plot.x_label  = plastix::monitor_column_label("tip_uy", "mm", "kN");
    plot.y_label  = plastix::monitor_column_label("load_factor", "mm", "kN");
    plot.title    = "it's a test";
    return plot;
  }
} // namespace

int
main()
{
  namespace fs          = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / ("plastix_plot_gnuplot_" + std::to_string(getpid()));
  fs::create_directories(folder);

  std::cout << "gnuplot_script:\n";
  {
    const std::string script = plastix::gnuplot_script(load_curve());
    check(contains(script, "using 6:2 "), "load control: tip_uy (column 6) on x, load_factor (column 2) on y");
    check(contains(script, "set terminal pngcairo size 800,600"), "pngcairo terminal, 800 x 600");
    check(contains(script, "set output 'curve.png'"), "the PNG name");
    check(contains(script, "plot 'curve.csv' skip 1 "), "the CSV, header line skipped");
    check(contains(script, "set title 'it''s a test'"), "a quote in a label is doubled");
    check(contains(script, "set xlabel 'tip_uy: displacement y of point tip [mm]'"), "x label with its unit");
    check(contains(script, "set ylabel 'load factor [-]'"), "y label with its unit");
    auto displacement_control     = load_curve();
    displacement_control.y_column = "R0_y";
    check(contains(plastix::gnuplot_script(displacement_control), "using 6:7 "),
          "displacement control: tip_uy on x, the reaction R0_y (column 7) on y");
    auto unknown     = load_curve();
    unknown.x_column = "tip_uz";
    bool threw       = false;
    try
      {
        plastix::gnuplot_script(unknown);
      }
    catch (const std::invalid_argument &)
      {
        threw = true;
      }
    check(threw, "an unknown column throws std::invalid_argument");
    auto broken    = load_curve();
    broken.y_label = "two\nlines";
    threw          = false;
    try
      {
        plastix::gnuplot_script(broken);
      }
    catch (const std::invalid_argument &)
      {
        threw = true;
      }
    check(threw, "a line break in a label throws std::invalid_argument");
  }

  std::cout << "monitor_column_label:\n";
  check(plastix::monitor_column_label("R12_z", "m", "N") == "R12_z: reaction force z on boundary 12 [N]", "reaction");
  check(plastix::monitor_column_label("R4_ux", "m", "N") == "R4_ux: displacement x of point R4 [m]",
        "a point named R4");
  check(plastix::monitor_column_label("top_1_uz", "in", "lbf") == "top_1_uz: displacement z of point top_1 [in]",
        "a point name with an underscore, other units");
  check(plastix::monitor_column_label("step", "m", "N") == "load step [-]", "step");
  check(plastix::monitor_column_label("plastic_points", "m", "N") == "plastic Gauss points [-]", "plastic points");

  std::cout << "write_plot with gnuplot:\n";
  {
    std::ofstream(folder / "curve.csv") << csv_text;
    const plastix::PlotResult result = plastix::write_plot(folder.string(), "curve.gnuplot", load_curve());
    check(result.written, "PNG written (reason if not: '" + result.reason +
                            "'; scripts/install-dependencies.sh installs gnuplot-nox)");
    check(fs::exists(folder / "curve.gnuplot"), "the script stays next to the CSV");
    check(!fs::exists(folder / "curve.gnuplot.log"), "no log file left behind");
    if (result.written)
      {
        const Bytes png = read_file((folder / "curve.png").string());
        check(png.size() < 150000, "compressed: " + std::to_string(png.size()) + " bytes < 150 kB");
        try
          {
            const Image image = decode_png(png);
            check(image.width == 800 && image.height == 600, "800 x 600 pixels");
            // The line colour #1f77b4 (antialiasing: within 24 per channel).
            unsigned int line_pixels = 0;
            for (std::size_t p = 0; p < std::size_t(image.width) * image.height; ++p)
              {
                const std::uint8_t *px = &image.pixels[p * image.channels];
                if (std::abs(px[0] - 0x1f) < 24 && std::abs(px[1] - 0x77) < 24 && std::abs(px[2] - 0xb4) < 24)
                  ++line_pixels;
              }
            check(line_pixels >= 300, "the curve is drawn: " + std::to_string(line_pixels) + " pixels of its colour");
          }
        catch (const std::exception &error)
          {
            check(false, std::string("decode the PNG: ") + error.what());
          }
      }
  }

  std::cout << "write_plot without gnuplot, and with a failing one:\n";
  {
    const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
    fs::remove(folder / "curve.png");
    setenv("PATH", (folder / "empty").c_str(), 1);
    const plastix::PlotResult result = plastix::write_plot(folder.string(), "curve.gnuplot", load_curve());
    setenv("PATH", path.c_str(), 1);
    check(!result.written && contains(result.reason, "not installed"),
          "gnuplot not on the PATH: no PNG, reason '" + result.reason + "'");
    check(!fs::exists(folder / "curve.png") && fs::exists(folder / "curve.gnuplot"), "no PNG, the script is written");

    auto failing     = load_curve();
    failing.png_file = "no_such_folder/curve.png";
    const plastix::PlotResult failed = plastix::write_plot(folder.string(), "failing.gnuplot", failing);
    check(!failed.written && !failed.reason.empty(), "gnuplot failing: no PNG, reason '" + failed.reason + "'");
    bool threw = false;
    try
      {
        plastix::write_plot((folder / "missing").string(), "curve.gnuplot", load_curve());
      }
    catch (const std::runtime_error &)
      {
        threw = true;
      }
    check(threw, "a missing folder for the script throws std::runtime_error");
  }

  fs::remove_all(folder);
  std::cout << (failures == 0 ? "all checks passed" : std::to_string(failures) + " check(s) failed") << std::endl;
  return failures == 0 ? 0 : 1;
}
