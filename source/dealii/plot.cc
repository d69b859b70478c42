// Line plots as PNG files: a small rasteriser with a built-in bitmap font and
// a PNG encoder that needs no zlib (stored deflate blocks, own CRC-32 and
// Adler-32). File size does not matter for a handful of plots per run;
// independence from the zlib that happens to be linked does.
#include <plastix/dealii/plot.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace plastix
{
  namespace
  {
    using Colour = std::array<std::uint8_t, 3>;

    constexpr Colour white{{255, 255, 255}};
    constexpr Colour black{{0, 0, 0}};
    constexpr Colour grid_grey{{225, 225, 225}};
    constexpr Colour legend_grey{{150, 150, 150}};

    // Tableau 10: hues that stay distinguishable for most colour vision
    // deficiencies and in greyscale print together with the marker shapes.
    constexpr std::array<Colour, 10> palette{{{{31, 119, 180}},
                                              {{255, 127, 14}},
                                              {{44, 160, 44}},
                                              {{214, 39, 40}},
                                              {{148, 103, 189}},
                                              {{140, 86, 75}},
                                              {{227, 119, 194}},
                                              {{127, 127, 127}},
                                              {{188, 189, 34}},
                                              {{23, 190, 207}}}};

    // ------------------------------------------------------------------
    // Bitmap font: 5 columns (bit 4 is the left one) by 9 rows; rows 0-6 lie
    // above the baseline (capitals and digits), rows 7-8 hold descenders.
    // Printable ASCII only; undefined glyphs are drawn as a box.
    // ------------------------------------------------------------------
    struct Glyph
    {
      bool         defined;
      std::uint8_t rows[9];
    };

    constexpr int glyph_columns = 5;
    constexpr int glyph_advance = 6;
    constexpr int glyph_rows    = 9;
    constexpr int glyph_ascent  = 7;

    // clang-format off
    constexpr Glyph font[95] = {
      {true, {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}}, // ' '
      {true, {0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x04, 0x00, 0x00}}, // '!'
      {true, {0x0A, 0x0A, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}}, // '"'
      {true, {0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A, 0x00, 0x00}}, // '#'
      {false, {}}, // 36
      {true, {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03, 0x00, 0x00}}, // '%'
      {false, {}}, // 38
      {true, {0x04, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}}, // '\''
      {true, {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02, 0x00, 0x00}}, // '('
      {true, {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08, 0x00, 0x00}}, // ')'
      {true, {0x00, 0x04, 0x15, 0x0E, 0x15, 0x04, 0x00, 0x00, 0x00}}, // '*'
      {true, {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00, 0x00, 0x00}}, // '+'
      {true, {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C, 0x04, 0x08}}, // ','
      {true, {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00, 0x00, 0x00}}, // '-'
      {true, {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C, 0x00, 0x00}}, // '.'
      {true, {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00, 0x00, 0x00}}, // '/'
      {true, {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E, 0x00, 0x00}}, // '0'
      {true, {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E, 0x00, 0x00}}, // '1'
      {true, {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F, 0x00, 0x00}}, // '2'
      {true, {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E, 0x00, 0x00}}, // '3'
      {true, {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02, 0x00, 0x00}}, // '4'
      {true, {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E, 0x00, 0x00}}, // '5'
      {true, {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E, 0x00, 0x00}}, // '6'
      {true, {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08, 0x00, 0x00}}, // '7'
      {true, {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E, 0x00, 0x00}}, // '8'
      {true, {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C, 0x00, 0x00}}, // '9'
      {true, {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00, 0x00, 0x00}}, // ':'
      {true, {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x04, 0x08, 0x00}}, // ';'
      {true, {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02, 0x00, 0x00}}, // '<'
      {true, {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00, 0x00, 0x00}}, // '='
      {true, {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08, 0x00, 0x00}}, // '>'
      {true, {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04, 0x00, 0x00}}, // '?'
      {false, {}}, // 64
      {true, {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11, 0x00, 0x00}}, // 'A'
      {true, {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E, 0x00, 0x00}}, // 'B'
      {true, {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E, 0x00, 0x00}}, // 'C'
      {true, {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C, 0x00, 0x00}}, // 'D'
      {true, {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F, 0x00, 0x00}}, // 'E'
      {true, {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10, 0x00, 0x00}}, // 'F'
      {true, {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F, 0x00, 0x00}}, // 'G'
      {true, {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11, 0x00, 0x00}}, // 'H'
      {true, {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E, 0x00, 0x00}}, // 'I'
      {true, {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C, 0x00, 0x00}}, // 'J'
      {true, {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11, 0x00, 0x00}}, // 'K'
      {true, {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F, 0x00, 0x00}}, // 'L'
      {true, {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11, 0x00, 0x00}}, // 'M'
      {true, {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11, 0x00, 0x00}}, // 'N'
      {true, {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E, 0x00, 0x00}}, // 'O'
      {true, {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10, 0x00, 0x00}}, // 'P'
      {true, {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D, 0x00, 0x00}}, // 'Q'
      {true, {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11, 0x00, 0x00}}, // 'R'
      {true, {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E, 0x00, 0x00}}, // 'S'
      {true, {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x00}}, // 'T'
      {true, {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E, 0x00, 0x00}}, // 'U'
      {true, {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04, 0x00, 0x00}}, // 'V'
      {true, {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A, 0x00, 0x00}}, // 'W'
      {true, {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11, 0x00, 0x00}}, // 'X'
      {true, {0x11, 0x11, 0x0A, 0x04, 0x04, 0x04, 0x04, 0x00, 0x00}}, // 'Y'
      {true, {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F, 0x00, 0x00}}, // 'Z'
      {true, {0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E, 0x00, 0x00}}, // '['
      {true, {0x00, 0x10, 0x08, 0x04, 0x02, 0x01, 0x00, 0x00, 0x00}}, // '\\'
      {true, {0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E, 0x00, 0x00}}, // ']'
      {true, {0x04, 0x0A, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}}, // '^'
      {true, {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F, 0x00}}, // '_'
      {false, {}}, // 96
      {true, {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F, 0x00, 0x00}}, // 'a'
      {true, {0x10, 0x10, 0x1E, 0x11, 0x11, 0x11, 0x1E, 0x00, 0x00}}, // 'b'
      {true, {0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E, 0x00, 0x00}}, // 'c'
      {true, {0x01, 0x01, 0x0F, 0x11, 0x11, 0x11, 0x0F, 0x00, 0x00}}, // 'd'
      {true, {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E, 0x00, 0x00}}, // 'e'
      {true, {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08, 0x00, 0x00}}, // 'f'
      {true, {0x00, 0x00, 0x0F, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x0E}}, // 'g'
      {true, {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11, 0x00, 0x00}}, // 'h'
      {true, {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E, 0x00, 0x00}}, // 'i'
      {true, {0x02, 0x00, 0x06, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C}}, // 'j'
      {true, {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12, 0x00, 0x00}}, // 'k'
      {true, {0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E, 0x00, 0x00}}, // 'l'
      {true, {0x00, 0x00, 0x1A, 0x15, 0x15, 0x15, 0x15, 0x00, 0x00}}, // 'm'
      {true, {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11, 0x00, 0x00}}, // 'n'
      {true, {0x00, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E, 0x00, 0x00}}, // 'o'
      {true, {0x00, 0x00, 0x1E, 0x11, 0x11, 0x11, 0x1E, 0x10, 0x10}}, // 'p'
      {true, {0x00, 0x00, 0x0F, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x01}}, // 'q'
      {true, {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10, 0x00, 0x00}}, // 'r'
      {true, {0x00, 0x00, 0x0F, 0x10, 0x0E, 0x01, 0x1E, 0x00, 0x00}}, // 's'
      {true, {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06, 0x00, 0x00}}, // 't'
      {true, {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D, 0x00, 0x00}}, // 'u'
      {true, {0x00, 0x00, 0x11, 0x11, 0x11, 0x0A, 0x04, 0x00, 0x00}}, // 'v'
      {true, {0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0A, 0x00, 0x00}}, // 'w'
      {true, {0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x00, 0x00}}, // 'x'
      {true, {0x00, 0x00, 0x11, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x0E}}, // 'y'
      {true, {0x00, 0x00, 0x1F, 0x02, 0x04, 0x08, 0x1F, 0x00, 0x00}}, // 'z'
      {false, {}}, // 123
      {true, {0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x00}}, // '|'
      {false, {}}, // 125
      {true, {0x00, 0x00, 0x00, 0x08, 0x15, 0x02, 0x00, 0x00, 0x00}}, // '~'
    };
    // clang-format on


    // ------------------------------------------------------------------
    // Raster with a clip rectangle; all drawing goes through set().
    // ------------------------------------------------------------------
    class Image
    {
    public:
      Image(const int width, const int height)
        : width(width)
        , height(height)
        , pixels(static_cast<std::size_t>(width) * height * 3, 255)
      {
        reset_clip();
      }

      void
      reset_clip()
      {
        clip_x0 = 0;
        clip_y0 = 0;
        clip_x1 = width - 1;
        clip_y1 = height - 1;
      }

      /** Restrict drawing to [x0,x1] x [y0,y1] (inclusive, within the image). */
      void
      set_clip(const int x0, const int y0, const int x1, const int y1)
      {
        clip_x0 = std::max(x0, 0);
        clip_y0 = std::max(y0, 0);
        clip_x1 = std::min(x1, width - 1);
        clip_y1 = std::min(y1, height - 1);
      }

      void
      set(const int x, const int y, const Colour &colour)
      {
        if (x < clip_x0 || x > clip_x1 || y < clip_y0 || y > clip_y1)
          return;
        std::uint8_t *p = &pixels[(static_cast<std::size_t>(y) * width + x) * 3];
        p[0]            = colour[0];
        p[1]            = colour[1];
        p[2]            = colour[2];
      }

      Colour
      get(const int x, const int y) const
      {
        const std::uint8_t *p = &pixels[(static_cast<std::size_t>(y) * width + x) * 3];
        return {{p[0], p[1], p[2]}};
      }

      /** Fill [x0,x1] x [y0,y1] (inclusive). */
      void
      fill(const int x0, const int y0, const int x1, const int y1, const Colour &colour)
      {
        for (int y = std::max(y0, clip_y0); y <= std::min(y1, clip_y1); ++y)
          for (int x = std::max(x0, clip_x0); x <= std::min(x1, clip_x1); ++x)
            set(x, y, colour);
      }

      /** Outline of [x0,x1] x [y0,y1], one pixel wide. */
      void
      frame(const int x0, const int y0, const int x1, const int y1, const Colour &colour)
      {
        fill(x0, y0, x1, y0, colour);
        fill(x0, y1, x1, y1, colour);
        fill(x0, y0, x0, y1, colour);
        fill(x1, y0, x1, y1, colour);
      }

      /** Bresenham line drawn with a square brush of @p thickness pixels. */
      void
      line(int x0, int y0, const int x1, const int y1, const Colour &colour, const int thickness)
      {
        const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
        const int dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
        const int o0 = -(thickness - 1) / 2, o1 = thickness / 2;
        int       error = dx + dy;
        while (true)
          {
            fill(x0 + o0, y0 + o0, x0 + o1, y0 + o1, colour);
            if (x0 == x1 && y0 == y1)
              break;
            const int e2 = 2 * error;
            if (e2 >= dy)
              {
                error += dy;
                x0 += sx;
              }
            if (e2 <= dx)
              {
                error += dx;
                y0 += sy;
              }
          }
      }

      const int                 width;
      const int                 height;
      std::vector<std::uint8_t> pixels;

    private:
      int clip_x0, clip_y0, clip_x1, clip_y1;
    };

    // ------------------------------------------------------------------
    // Text
    // ------------------------------------------------------------------

    /** Glyph index per character: one per UTF-8 code point, -1 for a box. */
    std::vector<int>
    glyph_indices(const std::string &text)
    {
      std::vector<int> indices;
      for (const char c : text)
        {
          const unsigned char u = static_cast<unsigned char>(c);
          if ((u & 0xC0) == 0x80) // UTF-8 continuation byte: same character
            continue;
          indices.push_back(u >= 32 && u < 127 && font[u - 32].defined ? u - 32 : -1);
        }
      return indices;
    }

    int
    text_width(const std::string &text, const int scale)
    {
      const int n = static_cast<int>(glyph_indices(text).size());
      return n == 0 ? 0 : (n * glyph_advance - 1) * scale;
    }

    /**
     * Draw @p text with pixel blocks of @p scale x @p scale. Horizontal text
     * has its top-left corner at (x, y). Vertical text reads from bottom to
     * top (rotated counter-clockwise): (x, y) is then its bottom-left corner.
     */
    void
    draw_text(Image             &image,
              const int          x,
              const int          y,
              const std::string &text,
              const int          scale,
              const Colour      &colour,
              const bool         vertical = false)
    {
      const std::vector<int> indices = glyph_indices(text);
      for (std::size_t i = 0; i < indices.size(); ++i)
        for (int row = 0; row < glyph_rows; ++row)
          for (int column = 0; column < glyph_columns; ++column)
            {
              bool on;
              if (indices[i] >= 0)
                on = (font[indices[i]].rows[row] >> (glyph_columns - 1 - column)) & 1;
              else // box over the capital height
                on = row < glyph_ascent &&
                     (row == 0 || row == glyph_ascent - 1 || column == 0 || column == glyph_columns - 1);
              if (!on)
                continue;
              const int along = static_cast<int>(i) * glyph_advance + column;
              if (vertical)
                image.fill(x + row * scale,
                           y - along * scale - (scale - 1),
                           x + row * scale + scale - 1,
                           y - along * scale,
                           colour);
              else
                image.fill(x + along * scale,
                           y + row * scale,
                           x + along * scale + scale - 1,
                           y + row * scale + scale - 1,
                           colour);
            }
    }

    // ------------------------------------------------------------------
    // Axes with nice ticks
    // ------------------------------------------------------------------
    struct Axis
    {
      double                   lo, hi;
      std::vector<double>      ticks;
      std::vector<std::string> labels;

      /** Position of @p v in [lo, hi] as a fraction; halves avoid overflow for huge ranges. */
      double
      fraction(const double v) const
      {
        return (0.5 * v - 0.5 * lo) / (0.5 * hi - 0.5 * lo);
      }
    };

    /** m * 10^k, correctly rounded where 10^|k| is exact (|k| <= 22). */
    double
    times_power_of_ten(const double m, const int k)
    {
      return k >= 0 ? m * std::pow(10., k) : m / std::pow(10., -k);
    }

    /**
     * Axis over the data range [min, max] (min > max: no data). The range
     * is widened to multiples of a step m*10^k, m in {1, 2, 5, 2.5}, chosen
     * for 4 to 6 ticks and the tightest fit, then for the rounder m.
     */
    Axis
    make_axis(double min, double max)
    {
      constexpr double largest = std::numeric_limits<double>::max();
      if (!(min <= max))
        {
          min = 0;
          max = 1;
        }
      else if (max - min <= 1e-12 * std::max(std::abs(min), std::abs(max)))
        {
          // All values (nearly) equal: widen around them so the line shows.
          const double centre = 0.5 * min + 0.5 * max;
          const double delta  = centre == 0 ? 1. : 0.1 * std::abs(centre);
          min                 = std::max(centre - delta, -largest);
          max                 = std::min(centre + delta, largest);
        }

      Axis         axis;
      const double range = max - min;
      struct Candidate
      {
        double m;
        int    k, rank;
        double first, last; // tick indices
      };
      bool      found = false;
      Candidate best{};
      if (std::isfinite(range) && range > 0)
        {
          const int    e       = static_cast<int>(std::floor(std::log10(range / 5)));
          const double ms[4]   = {1., 2., 5., 2.5}; // in order of roundness
          auto         count   = [](const Candidate &c) { return c.last - c.first + 1; };
          auto         in_band = [&](const Candidate &c) { return count(c) >= 4 && count(c) <= 6; };
          auto         span    = [&](const Candidate &c) { return times_power_of_ten((c.last - c.first) * c.m, c.k); };
          for (int k = e - 1; k <= e + 1; ++k)
            for (int rank = 0; rank < 4; ++rank)
              {
                const double step = times_power_of_ten(ms[rank], k);
                if (!(step > 0) || !std::isfinite(step))
                  continue;
                // The tolerance keeps a bound that is a tick up to rounding
                // from adding a whole step.
                const Candidate c{ms[rank], k, rank, std::floor(min / step + 1e-9), std::ceil(max / step - 1e-9)};
                if (!std::isfinite(c.first) || !std::isfinite(c.last) || count(c) > 1000)
                  continue;
                bool better;
                if (!found)
                  better = true;
                else if (in_band(c) != in_band(best))
                  better = in_band(c);
                else if (!in_band(c))
                  better = std::abs(count(c) - 5) < std::abs(count(best) - 5);
                else if (std::abs(span(c) - span(best)) > 1e-9 * span(best))
                  better = span(c) < span(best);
                else
                  better = c.rank < best.rank;
                if (better)
                  {
                    best  = c;
                    found = true;
                  }
              }
        }

      if (found)
        {
          const double step = times_power_of_ten(best.m, best.k);
          for (double i = best.first; i <= best.last; ++i)
            {
              double v = times_power_of_ten(i * best.m, best.k);
              if (std::abs(v) < 1e-9 * step) // no 1e-17 or -0 at the origin
                v = 0;
              axis.ticks.push_back(v);
            }
        }
      else
        // Range beyond the largest double (or steps underflow): five
        // evenly spaced, unrounded ticks.
        for (int i = 0; i <= 4; ++i)
          axis.ticks.push_back(min * (1 - i / 4.) + max * (i / 4.));
      axis.lo = axis.ticks.front();
      axis.hi = axis.ticks.back();

      // %g, with more digits where %g would print neighbouring ticks alike.
      for (int precision = 6; precision <= 17; ++precision)
        {
          axis.labels.clear();
          for (const double v : axis.ticks)
            {
              char buffer[64];
              std::snprintf(buffer, sizeof(buffer), "%.*g", precision, v);
              axis.labels.emplace_back(buffer);
            }
          if (std::adjacent_find(axis.labels.begin(), axis.labels.end()) == axis.labels.end())
            break;
        }
      return axis;
    }

    // ------------------------------------------------------------------
    // Markers
    // ------------------------------------------------------------------
    void
    draw_marker(Image &image, const int cx, const int cy, const int r, const unsigned int shape, const Colour &colour)
    {
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx)
          {
            bool on;
            switch (shape % 5)
              {
                case 0: // square
                  on = true;
                  break;
                case 1: // disc
                  on = dx * dx + dy * dy <= r * r + r;
                  break;
                case 2: // triangle pointing up
                  on = 2 * std::abs(dx) <= dy + r;
                  break;
                case 3: // diamond
                  on = std::abs(dx) + std::abs(dy) <= r;
                  break;
                default: // diagonal cross
                  on = std::abs(std::abs(dx) - std::abs(dy)) <= 1;
                  break;
              }
            if (on)
              image.set(cx + dx, cy + dy, colour);
          }
    }

    // ------------------------------------------------------------------
    // PNG encoding
    // ------------------------------------------------------------------
    std::uint32_t
    crc32(const std::uint8_t *data, const std::size_t n, std::uint32_t crc = 0)
    {
      static const std::array<std::uint32_t, 256> table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t i = 0; i < 256; ++i)
          {
            std::uint32_t c = i;
            for (int j = 0; j < 8; ++j)
              c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
          }
        return t;
      }();
      crc = ~crc;
      for (std::size_t i = 0; i < n; ++i)
        crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
      return ~crc;
    }

    std::uint32_t
    adler32(const std::vector<std::uint8_t> &data)
    {
      std::uint32_t a = 1, b = 0;
      for (const std::uint8_t byte : data)
        {
          a = (a + byte) % 65521;
          b = (b + a) % 65521;
        }
      return (b << 16) | a;
    }

    void
    append_u32(std::vector<std::uint8_t> &out, const std::uint32_t v)
    {
      for (int shift = 24; shift >= 0; shift -= 8)
        out.push_back(static_cast<std::uint8_t>(v >> shift));
    }

    void
    append_chunk(std::vector<std::uint8_t> &out, const char *type, const std::vector<std::uint8_t> &data)
    {
      append_u32(out, static_cast<std::uint32_t>(data.size()));
      const std::size_t start = out.size();
      out.insert(out.end(), type, type + 4);
      out.insert(out.end(), data.begin(), data.end());
      append_u32(out, crc32(&out[start], out.size() - start));
    }

    /** The PNG file of @p image: 8-bit RGB, no interlace, filter 0 per row, stored deflate blocks. */
    std::vector<std::uint8_t>
    encode_png(const Image &image)
    {
      const std::size_t         row_bytes = 3 * static_cast<std::size_t>(image.width);
      std::vector<std::uint8_t> raw;
      raw.reserve((row_bytes + 1) * image.height);
      for (int y = 0; y < image.height; ++y)
        {
          raw.push_back(0); // filter type None
          const auto row = image.pixels.begin() + y * row_bytes;
          raw.insert(raw.end(), row, row + row_bytes);
        }

      // zlib stream: header (deflate, 32K window, no dictionary; 0x7801 is a
      // multiple of 31), stored blocks of at most 65535 bytes, Adler-32.
      std::vector<std::uint8_t> zlib{0x78, 0x01};
      zlib.reserve(raw.size() + raw.size() / 65535 * 5 + 16);
      for (std::size_t offset = 0; offset < raw.size(); offset += 65535)
        {
          const std::size_t   n     = std::min<std::size_t>(65535, raw.size() - offset);
          const bool          last  = offset + n == raw.size();
          const std::uint16_t len   = static_cast<std::uint16_t>(n);
          const std::uint16_t nlen  = static_cast<std::uint16_t>(~len);
          const std::uint8_t  bytes[5] = {static_cast<std::uint8_t>(last ? 1 : 0), // BFINAL, BTYPE=00
                                          static_cast<std::uint8_t>(len & 0xFF),
                                          static_cast<std::uint8_t>(len >> 8),
                                          static_cast<std::uint8_t>(nlen & 0xFF),
                                          static_cast<std::uint8_t>(nlen >> 8)};
          zlib.insert(zlib.end(), bytes, bytes + 5);
          zlib.insert(zlib.end(), raw.begin() + offset, raw.begin() + offset + n);
        }
      append_u32(zlib, adler32(raw));

      std::vector<std::uint8_t> png{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
      std::vector<std::uint8_t> header;
      append_u32(header, image.width);
      append_u32(header, image.height);
      header.insert(header.end(), {8, 2, 0, 0, 0}); // bit depth, RGB, deflate, filter 0, no interlace
      append_chunk(png, "IHDR", header);
      append_chunk(png, "IDAT", zlib);
      append_chunk(png, "IEND", {});
      return png;
    }
  } // namespace



  std::array<std::uint8_t, 3>
  plot_series_colour(const unsigned int series_index)
  {
    return palette[series_index % palette.size()];
  }



  void
  write_line_plot_png(const std::string             &file_name,
                      const std::vector<PlotSeries> &series,
                      const std::string             &x_label,
                      const std::string             &y_label,
                      const std::string             &title,
                      const unsigned int             width,
                      const unsigned int             height)
  {
    if (width < 100 || width > 16384 || height < 100 || height > 16384)
      throw std::invalid_argument("write_line_plot_png: image size " + std::to_string(width) + "x" +
                                  std::to_string(height) + " for '" + file_name + "' is outside [100, 16384]");
    for (const PlotSeries &s : series)
      if (s.x.size() != s.y.size())
        throw std::invalid_argument("write_line_plot_png: series '" + s.label + "' for '" + file_name + "' has " +
                                    std::to_string(s.x.size()) + " x values but " + std::to_string(s.y.size()) +
                                    " y values");

    auto finite = [](const PlotSeries &s, const std::size_t i) {
      return std::isfinite(s.x[i]) && std::isfinite(s.y[i]);
    };
    double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min;
    double y_min = x_min, y_max = x_max;
    for (const PlotSeries &s : series)
      for (std::size_t i = 0; i < s.x.size(); ++i)
        if (finite(s, i))
          {
            x_min = std::min(x_min, s.x[i]);
            x_max = std::max(x_max, s.x[i]);
            y_min = std::min(y_min, s.y[i]);
            y_max = std::max(y_max, s.y[i]);
          }
    const Axis x_axis = make_axis(x_min, x_max);
    const Axis y_axis = make_axis(y_min, y_max);

    // Layout in units of the text scale: 1 below 450 pixels (the smaller
    // side), 2 at the default size, growing with larger images.
    const int W = static_cast<int>(width), H = static_cast<int>(height);
    const int s          = std::max(1, static_cast<int>(std::lround(std::min(W, H) / 300.)));
    const int title_s    = s + 1;
    const int pad        = 6 * s;
    const int gap        = 2 * s;
    const int tick       = 3 * s;
    const int line_width = std::max(2, s);
    const int r          = 1 + s; // marker "radius"

    int y_labels_width = 0;
    for (const std::string &label : y_axis.labels)
      y_labels_width = std::max(y_labels_width, text_width(label, s));
    int left = pad + (y_label.empty() ? 0 : glyph_rows * s + 2 * gap) + y_labels_width + gap + tick;
    int right =
      W - 1 - std::max(2 * pad, text_width(x_axis.labels.back(), s) / 2 + gap); // last x label is centred on the edge
    int top    = title.empty() ? 2 * pad : pad + glyph_rows * title_s + pad;
    int bottom = H - 1 - (tick + gap + glyph_rows * s + (x_label.empty() ? 0 : 2 * gap + glyph_rows * s) + pad);
    // Pathological labels on a small image: keep a usable plot area.
    left   = std::min(left, W / 3);
    right  = std::max(right, 2 * W / 3);
    top    = std::min(top, H / 3);
    bottom = std::max(bottom, 2 * H / 3);

    auto px = [&](const double x) { return left + static_cast<int>(std::lround(x_axis.fraction(x) * (right - left))); };
    auto py = [&](const double y) { return bottom - static_cast<int>(std::lround(y_axis.fraction(y) * (bottom - top))); };

    Image image(W, H);

    // Grid, frame, ticks and tick labels.
    for (const double t : x_axis.ticks)
      {
        image.fill(px(t), top + 1, px(t), bottom - 1, grid_grey);
        image.fill(px(t), bottom + 1, px(t), bottom + tick, black);
      }
    for (const double t : y_axis.ticks)
      {
        image.fill(left + 1, py(t), right - 1, py(t), grid_grey);
        image.fill(left - tick, py(t), left - 1, py(t), black);
      }
    image.frame(left, top, right, bottom, black);
    for (std::size_t i = 0; i < x_axis.ticks.size(); ++i)
      draw_text(image,
                px(x_axis.ticks[i]) - text_width(x_axis.labels[i], s) / 2,
                bottom + tick + gap + 1,
                x_axis.labels[i],
                s,
                black);
    for (std::size_t i = 0; i < y_axis.ticks.size(); ++i)
      draw_text(image,
                left - tick - gap - text_width(y_axis.labels[i], s),
                py(y_axis.ticks[i]) - glyph_ascent * s / 2,
                y_axis.labels[i],
                s,
                black);

    // Series: lines first, then markers on top (at most ~50 per series so
    // that long curves stay readable), clipped to the plot area.
    image.set_clip(left, top, right, bottom);
    for (std::size_t k = 0; k < series.size(); ++k)
      {
        const PlotSeries &c = series[k];
        for (std::size_t i = 1; i < c.x.size(); ++i)
          if (finite(c, i - 1) && finite(c, i))
            image.line(px(c.x[i - 1]), py(c.y[i - 1]), px(c.x[i]), py(c.y[i]), palette[k % palette.size()], line_width);
      }
    for (std::size_t k = 0; k < series.size(); ++k)
      {
        const PlotSeries &c      = series[k];
        const std::size_t stride = std::max<std::size_t>(1, (c.x.size() + 49) / 50);
        for (std::size_t i = 0; i < c.x.size(); ++i)
          if (finite(c, i) && (i % stride == 0 || i + 1 == c.x.size()))
            draw_marker(image, px(c.x[i]), py(c.y[i]), r, k, palette[k % palette.size()]);
      }
    image.reset_clip();

    // Legend in the corner of the plot area with the fewest data pixels
    // (ties: upper left, upper right, lower right, lower left).
    if (series.size() > 1)
      {
        const int sample   = 8 * s + 2 * r;
        const int entry    = std::max(glyph_rows * s, 2 * r + 1) + gap;
        int       labels_w = 0;
        for (const PlotSeries &c : series)
          labels_w = std::max(labels_w, text_width(c.label, s));
        const int bw     = pad + sample + 2 * gap + labels_w + pad;
        const int bh     = static_cast<int>(series.size()) * entry + pad;
        const int margin = pad;
        const int xs[4]  = {left + margin, right - margin - bw, right - margin - bw, left + margin};
        const int ys[4]  = {top + margin, top + margin, bottom - margin - bh, bottom - margin - bh};
        int       best = 0, best_count = std::numeric_limits<int>::max();
        for (int corner = 0; corner < 4; ++corner)
          {
            int count = 0;
            for (int y = std::max(ys[corner], 0); y <= std::min(ys[corner] + bh, H - 1); ++y)
              for (int x = std::max(xs[corner], 0); x <= std::min(xs[corner] + bw, W - 1); ++x)
                {
                  const Colour c = image.get(x, y);
                  count += c != white && c != grid_grey;
                }
            if (count < best_count)
              {
                best       = corner;
                best_count = count;
              }
          }
        const int bx = xs[best], by = ys[best];
        image.fill(bx, by, bx + bw, by + bh, white);
        image.frame(bx, by, bx + bw, by + bh, legend_grey);
        for (std::size_t k = 0; k < series.size(); ++k)
          {
            const int    cy     = by + pad / 2 + static_cast<int>(k) * entry + entry / 2;
            const Colour colour = palette[k % palette.size()];
            image.line(bx + pad, cy, bx + pad + sample, cy, colour, line_width);
            draw_marker(image, bx + pad + sample / 2, cy, r, k, colour);
            draw_text(image, bx + pad + sample + 2 * gap, cy - glyph_ascent * s / 2, series[k].label, s, black);
          }
      }

    // Axis labels and title, centred on the plot area.
    if (!x_label.empty())
      draw_text(image,
                (left + right) / 2 - text_width(x_label, s) / 2,
                bottom + tick + gap + glyph_rows * s + 2 * gap,
                x_label,
                s,
                black);
    if (!y_label.empty())
      draw_text(image, pad, (top + bottom) / 2 + text_width(y_label, s) / 2, y_label, s, black, true);
    if (!title.empty())
      draw_text(image,
                std::max(0, (left + right) / 2 - text_width(title, title_s) / 2),
                pad,
                title,
                title_s,
                black);

    // Write; fopen/fclose report errno reliably, unlike ofstream.
    const std::vector<std::uint8_t> png  = encode_png(image);
    std::FILE                      *file = std::fopen(file_name.c_str(), "wb");
    if (file == nullptr)
      throw std::runtime_error("write_line_plot_png: cannot open '" + file_name +
                               "' for writing: " + std::strerror(errno));
    const bool written = std::fwrite(png.data(), 1, png.size(), file) == png.size();
    const int  error   = errno;
    if (std::fclose(file) != 0 || !written)
      throw std::runtime_error("write_line_plot_png: cannot write '" + file_name +
                               "': " + std::strerror(written ? errno : error));
  }
} // namespace plastix
