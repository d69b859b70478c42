// write_line_plot_png: the file is re-read and decoded here independently of
// the writer (bitwise CRC-32, own stored-block inflater, Adler-32):
//  - PNG signature, IHDR (size, 8-bit RGB, no interlace), CRC of every chunk,
//    IHDR first, IEND last;
//  - the zlib stream of the IDAT chunks inflates to height*(1+3*width) bytes
//    with filter byte 0 on every row and a matching Adler-32;
//  - a plot of two series over x in [0,10], y in [0,1e6] (plus a NaN and an
//    infinite point that must be skipped): the black frame of the plot area
//    is found, every data point and segment midpoint mapped into it has a
//    pixel of its series' colour within 3 px, at least 500 pixels have series
//    1's colour and 90% of them lie within 6 px of series 1's polyline, the
//    image is mostly white and there is text left of and below the frame;
//  - the same call twice writes identical bytes;
//  - degenerate input (no series, all values equal, only NaN, one point,
//    +-1e308, a small image) gives valid PNGs; x/y of different lengths
//    throws std::invalid_argument;
//  - a file in a missing directory throws std::runtime_error naming the path.
// An optional argument names a file to receive a copy of the two-series plot.
#include <plastix/dealii/plot.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{
  int  failures = 0;
  bool quiet    = false; // report failures only

  void
  check(const bool ok, const std::string &what)
  {
    if (!ok || !quiet)
      std::cout << (ok ? "  ok    " : "  FAIL  ") << what << std::endl;
    if (!ok)
      ++failures;
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

  // Bitwise CRC-32 (no table), independent of the writer's.
  std::uint32_t
  crc32(const std::uint8_t *data, const std::size_t n)
  {
    std::uint32_t crc = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i)
      {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k)
          crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
      }
    return ~crc;
  }

  struct Decoded
  {
    bool         valid = false;
    unsigned int width = 0, height = 0;
    Bytes        rgb; // row-major, 3 bytes per pixel

    std::array<std::uint8_t, 3>
    at(const int x, const int y) const
    {
      const std::size_t i = (std::size_t(y) * width + x) * 3;
      return {{rgb[i], rgb[i + 1], rgb[i + 2]}};
    }
  };

  /** Decode a PNG as written by write_line_plot_png, checking its structure; labels checks with @p name. */
  Decoded
  decode(const std::string &file, const std::string &name, const unsigned int width, const unsigned int height)
  {
    Decoded     result;
    const Bytes png = read_file(file);
    const Bytes signature{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    bool        ok = png.size() > 8 && Bytes(png.begin(), png.begin() + 8) == signature;
    check(ok, name + ": PNG signature (" + std::to_string(png.size()) + " bytes)");
    if (!ok)
      return result;

    // Chunks.
    std::vector<std::string> types;
    Bytes                    header, idat;
    bool                     crcs_ok = true, bounds_ok = true;
    for (std::size_t pos = 8; pos < png.size();)
      {
        if (pos + 12 > png.size() || pos + 12 + be32(png, pos) > png.size())
          {
            bounds_ok = false;
            break;
          }
        const std::uint32_t length = be32(png, pos);
        const std::string   type(png.begin() + pos + 4, png.begin() + pos + 8);
        crcs_ok = crcs_ok && crc32(&png[pos + 4], length + 4) == be32(png, pos + 8 + length);
        types.push_back(type);
        if (type == "IHDR")
          header.assign(png.begin() + pos + 8, png.begin() + pos + 8 + length);
        else if (type == "IDAT")
          idat.insert(idat.end(), png.begin() + pos + 8, png.begin() + pos + 8 + length);
        pos += 12 + length;
      }
    check(bounds_ok, name + ": chunks lie within the file");
    check(crcs_ok, name + ": CRC of all " + std::to_string(types.size()) + " chunks");
    ok = bounds_ok && crcs_ok && !types.empty() && types.front() == "IHDR" && types.back() == "IEND" &&
         header.size() == 13 && !idat.empty();
    check(ok, name + ": IHDR first, IEND last, IDAT present");
    if (!ok)
      return result;
    ok = be32(header, 0) == width && be32(header, 4) == height && header[8] == 8 && header[9] == 2 &&
         header[10] == 0 && header[11] == 0 && header[12] == 0;
    check(ok,
          name + ": IHDR " + std::to_string(be32(header, 0)) + "x" + std::to_string(be32(header, 4)) +
            ", bit depth " + std::to_string(header[8]) + ", colour type " + std::to_string(header[9]));
    if (!ok)
      return result;

    // zlib stream of stored deflate blocks.
    ok = idat.size() >= 6 && (idat[0] & 0x0F) == 8 && ((idat[0] << 8) | idat[1]) % 31 == 0 && !(idat[1] & 0x20);
    check(ok, name + ": zlib header");
    if (!ok)
      return result;
    Bytes       raw;
    std::size_t pos = 2;
    bool        last = false, blocks_ok = true;
    while (!last)
      {
        if (pos + 5 > idat.size() || (idat[pos] & 0x06) != 0) // BTYPE 00 = stored
          {
            blocks_ok = false;
            break;
          }
        last                     = idat[pos] & 1;
        const unsigned int len  = idat[pos + 1] | (idat[pos + 2] << 8);
        const unsigned int nlen = idat[pos + 3] | (idat[pos + 4] << 8);
        if ((len ^ 0xFFFFu) != nlen || pos + 5 + len > idat.size())
          {
            blocks_ok = false;
            break;
          }
        raw.insert(raw.end(), idat.begin() + pos + 5, idat.begin() + pos + 5 + len);
        pos += 5 + len;
      }
    check(blocks_ok && pos + 4 == idat.size(), name + ": stored deflate blocks, then 4 bytes of Adler-32");
    if (!blocks_ok || pos + 4 != idat.size())
      return result;
    std::uint32_t a = 1, b = 0;
    for (const std::uint8_t byte : raw)
      {
        a = (a + byte) % 65521;
        b = (b + a) % 65521;
      }
    check(((b << 16) | a) == be32(idat, pos), name + ": Adler-32");
    const std::size_t row = 1 + 3 * std::size_t(width);
    ok                    = raw.size() == height * row;
    check(ok, name + ": inflated " + std::to_string(raw.size()) + " bytes = height*(1+3*width)");
    if (!ok)
      return result;
    bool filters_ok = true;
    for (std::size_t y = 0; y < height; ++y)
      {
        filters_ok = filters_ok && raw[y * row] == 0;
        result.rgb.insert(result.rgb.end(), raw.begin() + y * row + 1, raw.begin() + (y + 1) * row);
      }
    check(filters_ok, name + ": filter byte 0 on every row");
    result.valid  = filters_ok;
    result.width  = width;
    result.height = height;
    return result;
  }

  struct Frame
  {
    int left = -1, right = -1, top = -1, bottom = -1;
  };

  /** The plot area's black frame: outermost rows and columns that are mostly black. */
  Frame
  find_frame(const Decoded &image)
  {
    const std::array<std::uint8_t, 3> black{{0, 0, 0}};
    Frame                             f;
    for (unsigned int y = 0; y < image.height; ++y)
      {
        unsigned int n = 0;
        for (unsigned int x = 0; x < image.width; ++x)
          n += image.at(x, y) == black;
        if (n >= image.width / 2)
          {
            f.top    = f.top < 0 ? int(y) : f.top;
            f.bottom = int(y);
          }
      }
    for (unsigned int x = 0; x < image.width; ++x)
      {
        unsigned int n = 0;
        for (unsigned int y = 0; y < image.height; ++y)
          n += image.at(x, y) == black;
        if (n >= image.height / 2)
          {
            f.left  = f.left < 0 ? int(x) : f.left;
            f.right = int(x);
          }
      }
    return f;
  }

  bool
  colour_near(const Decoded &image, const int cx, const int cy, const int radius, const std::array<std::uint8_t, 3> &c)
  {
    for (int y = cy - radius; y <= cy + radius; ++y)
      for (int x = cx - radius; x <= cx + radius; ++x)
        if (x >= 0 && y >= 0 && x < int(image.width) && y < int(image.height) && image.at(x, y) == c)
          return true;
    return false;
  }

  double
  distance_to_segment(const double x, const double y, const double x0, const double y0, const double x1, const double y1)
  {
    const double dx = x1 - x0, dy = y1 - y0, l2 = dx * dx + dy * dy;
    const double t  = l2 > 0 ? std::min(1., std::max(0., ((x - x0) * dx + (y - y0) * dy) / l2)) : 0.;
    return std::hypot(x - x0 - t * dx, y - y0 - t * dy);
  }
} // namespace



int
main(int argc, char **argv)
{
  namespace fs          = std::filesystem;
  const std::string tmp = (fs::temp_directory_path() / ("plastix_plot_png_" + std::to_string(getpid()))).string();
  const double      nan = std::numeric_limits<double>::quiet_NaN();
  const double      inf = std::numeric_limits<double>::infinity();
  const std::array<std::uint8_t, 3> white{{255, 255, 255}}, black{{0, 0, 0}};

  // Two series spanning exactly x in [0,10] and y in [0,1e6], so that the
  // axes end at the data bounds; the non-finite points must not widen them.
  plastix::PlotSeries s1{"linear", {}, {}}, s2{"saturating", {}, {}};
  for (int i = 0; i <= 10; ++i)
    {
      s1.x.push_back(i);
      s1.y.push_back(1e5 * i);
      s2.x.push_back(i);
      s2.y.push_back(1e6 * (1 - std::exp(-i / 3.)) / (1 - std::exp(-10 / 3.)));
    }
  s2.x.insert(s2.x.begin() + 5, nan); // a gap in the line
  s2.y.insert(s2.y.begin() + 5, 3e6);
  s2.x.push_back(11);
  s2.y.push_back(inf);
  const std::vector<plastix::PlotSeries> series{s1, s2};

  std::cout << "two series, 800x600:" << std::endl;
  const std::string file = tmp + "_two.png";
  plastix::write_line_plot_png(file, series, "displacement u_z [mm]", "load F [N]", "Load-displacement (test)");
  if (argc > 1)
    plastix::write_line_plot_png(argv[1], series, "displacement u_z [mm]", "load F [N]", "Load-displacement (test)");
  const Decoded image = decode(file, "two series", 800, 600);
  if (image.valid)
    {
      const Frame f = find_frame(image);
      const bool  frame_ok =
        f.left > 20 && f.right > f.left + 300 && f.right < 800 && f.top > 5 && f.bottom > f.top + 200 && f.bottom < 590;
      check(frame_ok,
            "frame of the plot area found: x " + std::to_string(f.left) + ".." + std::to_string(f.right) + ", y " +
              std::to_string(f.top) + ".." + std::to_string(f.bottom));
      if (frame_ok)
        {
          auto px = [&](const double x) { return f.left + x / 10 * (f.right - f.left); };
          auto py = [&](const double y) { return f.bottom - y / 1e6 * (f.bottom - f.top); };
          for (unsigned int k = 0; k < 2; ++k)
            {
              const auto                colour = plastix::plot_series_colour(k);
              const plastix::PlotSeries &s     = series[k];
              unsigned int              points = 0, hits = 0;
              for (std::size_t i = 0; i < s.x.size(); ++i)
                {
                  if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]))
                    continue;
                  ++points;
                  hits += colour_near(image, std::lround(px(s.x[i])), std::lround(py(s.y[i])), 3, colour);
                  if (i + 1 < s.x.size() && std::isfinite(s.x[i + 1]) && std::isfinite(s.y[i + 1]))
                    {
                      ++points;
                      hits += colour_near(image,
                                          std::lround(0.5 * (px(s.x[i]) + px(s.x[i + 1]))),
                                          std::lround(0.5 * (py(s.y[i]) + py(s.y[i + 1]))),
                                          3,
                                          colour);
                    }
                }
              check(hits == points,
                    "series " + std::to_string(k + 1) + ": colour within 3 px of " + std::to_string(hits) + "/" +
                      std::to_string(points) + " points and segment midpoints");
            }

          // Series 1's pixels: enough of them, and on its polyline (the
          // legend's sample is the only other place).
          const auto   c1    = plastix::plot_series_colour(0);
          unsigned int count = 0, near = 0;
          for (unsigned int y = 0; y < image.height; ++y)
            for (unsigned int x = 0; x < image.width; ++x)
              if (image.at(x, y) == c1)
                {
                  ++count;
                  near += distance_to_segment(x, y, px(0), py(0), px(10), py(1e6)) <= 6;
                }
          check(count >= 500, "series 1: " + std::to_string(count) + " pixels of its colour (>= 500)");
          check(near >= 0.9 * count, "series 1: " + std::to_string(near) + " of them within 6 px of its line (>= 90%)");

          unsigned int white_count = 0, text_left = 0, text_below = 0;
          for (unsigned int y = 0; y < image.height; ++y)
            for (unsigned int x = 0; x < image.width; ++x)
              {
                const auto c = image.at(x, y);
                white_count += c == white;
                text_left += c == black && int(x) < f.left - 8;
                text_below += c == black && int(y) > f.bottom + 8;
              }
          check(white_count >= 0.8 * image.width * image.height,
                "background: " + std::to_string(white_count) + " of " + std::to_string(image.width * image.height) +
                  " pixels white (>= 80%)");
          check(text_left > 100 && text_below > 100,
                "tick and axis labels: " + std::to_string(text_left) + " black pixels left of the frame, " +
                  std::to_string(text_below) + " below");
        }
    }

  const std::string again = tmp + "_again.png";
  plastix::write_line_plot_png(again, series, "displacement u_z [mm]", "load F [N]", "Load-displacement (test)");
  check(read_file(again) == read_file(file), "deterministic: the same plot twice gives identical files");

  // Degenerate input must still give a valid plot.
  std::cout << "degenerate input:" << std::endl;
  struct Case
  {
    std::string                      name;
    std::vector<plastix::PlotSeries> series;
    unsigned int                     width, height;
  };
  const std::vector<Case> cases{
    {"no series", {}, 800, 600},
    {"all values equal", {{"flat", {2, 2, 2}, {-3e-4, -3e-4, -3e-4}}}, 640, 480},
    {"only NaN and inf", {{"a", {nan, 1}, {1, inf}}, {"b", {}, {}}}, 800, 600},
    {"one point, zero", {{"p", {0}, {0}}}, 400, 300},
    {"+-1e308", {{"huge", {-1e308, 1e308}, {1e308, -1e308}}, {"tiny", {0, 1e-300}, {0, 1e-300}}}, 800, 600},
    {"small image, odd text", {{"\xc3\xa4 {}", {0, 1}, {0, 1}}, {"@$", {0, 1}, {1, 0}}}, 100, 100}};
  for (const Case &c : cases)
    {
      const std::string name = tmp + "_case.png";
      try
        {
          plastix::write_line_plot_png(name, c.series, "x \xce\xb5 label", "y", "title " + c.name, c.width, c.height);
          quiet              = true;
          const bool valid   = decode(name, c.name, c.width, c.height).valid;
          quiet              = false;
          check(valid, c.name + ": valid " + std::to_string(c.width) + "x" + std::to_string(c.height) + " PNG");
        }
      catch (const std::exception &e)
        {
          check(false, c.name + ": threw " + e.what());
        }
      fs::remove(name);
    }
  try
    {
      plastix::write_line_plot_png(tmp + "_bad.png", {{"bad", {0, 1, 2}, {0, 1}}}, "x", "y", "t");
      check(false, "x and y of different lengths: no exception");
    }
  catch (const std::invalid_argument &e)
    {
      check(true, std::string("x and y of different lengths: std::invalid_argument (") + e.what() + ")");
    }

  // A file that cannot be created.
  std::cout << "errors:" << std::endl;
  const std::string missing = tmp + "_missing_directory/plot.png";
  try
    {
      plastix::write_line_plot_png(missing, series, "x", "y", "t");
      check(false, "missing directory: no exception");
    }
  catch (const std::runtime_error &e)
    {
      check(std::string(e.what()).find(missing) != std::string::npos,
            std::string("missing directory: std::runtime_error naming the path (") + e.what() + ")");
    }

  fs::remove(file);
  fs::remove(again);
  std::cout << (failures == 0 ? "plot_png: all checks passed" : "plot_png: " + std::to_string(failures) + " FAILED")
            << std::endl;
  return failures == 0 ? 0 : 1;
}
