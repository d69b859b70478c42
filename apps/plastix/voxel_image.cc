// Voxel images (NRRD and raw volumes) as the body of a fixed grid.
#include "voxel_image.h"

#include "parameters.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace plastix
{
  namespace
  {
    /** The NRRD names of the types (the specification's list). */
    VoxelType
    nrrd_type(const std::string &name, const std::string &file)
    {
      static const std::map<std::string, VoxelType> names = {
        {"signed char", VoxelType::int8},     {"int8", VoxelType::int8},
        {"int8_t", VoxelType::int8},          {"uchar", VoxelType::uint8},
        {"unsigned char", VoxelType::uint8},  {"uint8", VoxelType::uint8},
        {"uint8_t", VoxelType::uint8},        {"short", VoxelType::int16},
        {"short int", VoxelType::int16},      {"signed short", VoxelType::int16},
        {"signed short int", VoxelType::int16}, {"int16", VoxelType::int16},
        {"int16_t", VoxelType::int16},        {"ushort", VoxelType::uint16},
        {"unsigned short", VoxelType::uint16}, {"unsigned short int", VoxelType::uint16},
        {"uint16", VoxelType::uint16},        {"uint16_t", VoxelType::uint16},
        {"int", VoxelType::int32},            {"signed int", VoxelType::int32},
        {"int32", VoxelType::int32},          {"int32_t", VoxelType::int32},
        {"uint", VoxelType::uint32},          {"unsigned int", VoxelType::uint32},
        {"uint32", VoxelType::uint32},        {"uint32_t", VoxelType::uint32},
        {"float", VoxelType::float32},        {"double", VoxelType::float64}};
      const auto it = names.find(to_lower(name));
      if (it == names.end())
        throw std::runtime_error("'" + file + "': NRRD type '" + name +
                                 "' is not supported (8-, 16-, 32-bit integers, float, double)");
      return it->second;
    }

    /** The value of a voxel of @p type stored at @p bytes (@p swap: the other byte order). */
    float
    decode(const char *bytes, const VoxelType type, const bool swap)
    {
      char         buffer[8];
      const size_t n = voxel_bytes(type);
      std::memcpy(buffer, bytes, n);
      if (swap)
        std::reverse(buffer, buffer + n);
      switch (type)
        {
          case VoxelType::uint8:
            return static_cast<unsigned char>(buffer[0]);
          case VoxelType::int8:
            return static_cast<signed char>(buffer[0]);
          case VoxelType::uint16:
            {
              std::uint16_t v;
              std::memcpy(&v, buffer, 2);
              return v;
            }
          case VoxelType::int16:
            {
              std::int16_t v;
              std::memcpy(&v, buffer, 2);
              return v;
            }
          case VoxelType::uint32:
            {
              std::uint32_t v;
              std::memcpy(&v, buffer, 4);
              return static_cast<float>(v);
            }
          case VoxelType::int32:
            {
              std::int32_t v;
              std::memcpy(&v, buffer, 4);
              return static_cast<float>(v);
            }
          case VoxelType::float32:
            {
              float v;
              std::memcpy(&v, buffer, 4);
              return v;
            }
          case VoxelType::float64:
            {
              double v;
              std::memcpy(&v, buffer, 8);
              return static_cast<float>(v);
            }
        }
      return 0;
    }

    bool
    host_is_little_endian()
    {
      const std::uint16_t one = 1;
      char                first;
      std::memcpy(&first, &one, 1);
      return first == 1;
    }

    std::string
    describe(const std::array<std::size_t, 3> &size)
    {
      return std::to_string(size[0]) + " x " + std::to_string(size[1]) + " x " + std::to_string(size[2]);
    }

    /** Decode @p data (the voxel bytes, exactly) into @p image. */
    void
    decode_raw(const std::string_view data, const VoxelType type, const bool big_endian, const std::string &file,
               VoxelImage &image)
    {
      const std::size_t n        = image.size[0] * image.size[1] * image.size[2];
      const std::size_t expected = n * voxel_bytes(type);
      if (data.size() != expected)
        throw std::runtime_error("'" + file + "' holds " + std::to_string(data.size()) + " bytes of voxel data, but " +
                                 describe(image.size) + " voxels of " + std::to_string(voxel_bytes(type)) +
                                 " bytes need " + std::to_string(expected) +
                                 (data.size() < expected ? " (a truncated file)" : ""));
      const bool swap = voxel_bytes(type) > 1 && big_endian == host_is_little_endian();
      image.values.resize(n);
      for (std::size_t i = 0; i < n; ++i)
        image.values[i] = decode(data.data() + i * voxel_bytes(type), type, swap);
    }

    std::string
    read_file(const std::string &file)
    {
      std::ifstream in(file, std::ios::binary);
      if (!in)
        throw std::runtime_error("cannot open '" + file + "'");
      return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  } // namespace

  std::size_t
  voxel_bytes(const VoxelType type)
  {
    switch (type)
      {
        case VoxelType::uint8:
        case VoxelType::int8:
          return 1;
        case VoxelType::uint16:
        case VoxelType::int16:
          return 2;
        case VoxelType::uint32:
        case VoxelType::int32:
        case VoxelType::float32:
          return 4;
        case VoxelType::float64:
          return 8;
      }
    return 1;
  }

  namespace
  {
    /** The fields of an NRRD header and where its attached data start. */
    struct NrrdHeader
    {
      /** "field: value" by the field's lower-case name. */
      std::map<std::string, std::string> fields;
      /** Whether the header ended with a blank line (attached data follow). */
      bool ends_with_blank_line = false;
      /** The offset of the attached data in the file. */
      std::size_t data_offset = 0;

      /** The value of @p name; std::runtime_error naming @p file if the header lacks it. */
      std::string
      field(const std::string &name, const std::string &file) const
      {
        const auto it = fields.find(name);
        if (it == fields.end())
          throw std::runtime_error("'" + file + "': the NRRD header has no '" + name + "' field");
        return it->second;
      }
    };

    /** The header of the NRRD file @p file with the contents @p content, read in place. */
    NrrdHeader
    parse_nrrd_header(const std::string &content, const std::string &file)
    {
      // A magic line, then "field: value" lines up to an empty line.
      std::size_t position = 0;
      std::string line;
      auto        next_line = [&]() {
        if (position >= content.size())
          return false;
        const std::size_t end = std::min(content.find('\n', position), content.size());
        line                  = content.substr(position, end - position);
        position              = end + 1;
        return true;
      };
      next_line();
      if (line.rfind("NRRD000", 0) != 0)
        throw std::runtime_error("'" + file + "' is not an NRRD file (its first line is not NRRD000x)");
      NrrdHeader header;
      while (next_line())
        {
          if (trim(line).empty())
            {
              header.ends_with_blank_line = true;
              break;
            }
          if (line[0] == '#')
            continue;
          const auto colon = line.find(':');
          // Key/value pairs (":=") are comments for this purpose.
          if (colon == std::string::npos || (colon + 1 < line.size() && line[colon + 1] == '='))
            continue;
          header.fields[to_lower(trim(line.substr(0, colon)))] = trim(line.substr(colon + 1));
        }
      header.data_offset = std::min(position, content.size());
      return header;
    }

    /** The whitespace-separated voxel values in @p data (from @p data_name) into @p image. */
    void
    decode_ascii(const std::string_view data, const std::string &data_name, VoxelImage &image)
    {
      const std::size_t  n = image.size[0] * image.size[1] * image.size[2];
      std::istringstream numbers{std::string(data)};
      image.values.reserve(n);
      double v;
      while (numbers >> v)
        image.values.push_back(static_cast<float>(v));
      if (!numbers.eof())
        throw std::runtime_error("'" + data_name + "': the ASCII voxel data holds something that is not a number");
      if (image.values.size() != n)
        throw std::runtime_error("'" + data_name + "' holds " + std::to_string(image.values.size()) +
                                 " voxel values, but " + describe(image.size) + " voxels need " + std::to_string(n) +
                                 (image.values.size() < n ? " (a truncated file)" : ""));
    }

    /** The NRRD image @p file (contents @p content) with attached or detached raw or ASCII data. */
    VoxelImage
    read_nrrd(const std::string &content, const std::string &file)
    {
      NrrdHeader      header = parse_nrrd_header(content, file);
      auto           &fields = header.fields;
      auto            field  = [&](const std::string &name) { return header.field(name, file); };
      VoxelImage      image;
      const VoxelType type = nrrd_type(field("type"), file);
      if (trim(field("dimension")) != "3")
        throw std::runtime_error("'" + file + "': NRRD dimension " + field("dimension") + " (a 3-D image is needed)");
      {
        std::istringstream sizes(field("sizes"));
        for (auto &s : image.size)
          if (!(sizes >> s) || s == 0)
            throw std::runtime_error("'" + file + "': NRRD sizes '" + field("sizes") + "' are not three positive numbers");
      }
      const std::string encoding = to_lower(field("encoding"));
      const bool        ascii    = encoding == "ascii" || encoding == "text" || encoding == "txt";
      if (!ascii && encoding != "raw")
        throw std::runtime_error("'" + file + "': NRRD encoding '" + encoding +
                                 "' is not supported (save the image with raw or ascii encoding)");
      bool big_endian = false;
      if (fields.count("endian"))
        {
          const std::string e = to_lower(fields["endian"]);
          if (e != "little" && e != "big")
            throw std::runtime_error("'" + file + "': NRRD endian '" + e + "' is neither little nor big");
          big_endian = e == "big";
        }
      else if (!ascii && voxel_bytes(type) > 1)
        throw std::runtime_error("'" + file + "': the NRRD header of a multi-byte raw image needs an 'endian' field");
      for (const char *unsupported : {"line skip", "lineskip", "byte skip", "byteskip"})
        if (fields.count(unsupported) && trim(fields[unsupported]) != "0")
          throw std::runtime_error("'" + file + "': NRRD '" + unsupported + "' is not supported");

      // The data: attached after the blank line, or in the detached 'data file'.
      std::string      detached_data, data_name = file;
      std::string_view data;
      const auto detached = fields.count("data file") ? fields["data file"] : fields.count("datafile") ? fields["datafile"] : "";
      if (!detached.empty())
        {
          const std::filesystem::path path = std::filesystem::path(detached).is_absolute() ?
                                               std::filesystem::path(detached) :
                                               std::filesystem::path(file).parent_path() / detached;
          data_name = path.string();
          if (!std::filesystem::is_regular_file(path))
            throw std::runtime_error("'" + file + "' names the data file '" + data_name + "', which cannot be opened");
          detached_data = read_file(data_name);
          data          = detached_data;
        }
      else
        {
          if (!header.ends_with_blank_line)
            throw std::runtime_error("'" + file + "': the NRRD header ends without data (a truncated file)");
          data = std::string_view(content).substr(header.data_offset);
        }
      if (ascii)
        decode_ascii(data, data_name, image);
      else
        decode_raw(data, type, big_endian, data_name, image);
      return image;
    }
  } // namespace

  VoxelImage
  read_voxel_image(const std::string &file, const std::array<std::size_t, 3> &raw_size, const VoxelType raw_type)
  {
    if (!std::filesystem::is_regular_file(file))
      throw std::runtime_error("cannot open '" + file + "' (no such file)");
    const std::string content   = read_file(file);
    const std::string extension = to_lower(std::filesystem::path(file).extension().string());
    VoxelImage        image;
    if (extension == ".nrrd" || extension == ".nhdr")
      image = read_nrrd(content, file);
    else
      {
        if (raw_size[0] == 0 || raw_size[1] == 0 || raw_size[2] == 0)
          throw std::runtime_error("'" + file + "' is a raw volume (not .nrrd or .nhdr), which needs 'Image size'");
        image.size = raw_size;
        decode_raw(content, raw_type, false, file, image);
      }
    for (std::size_t i = 0; i < image.values.size(); ++i)
      if (!std::isfinite(image.values[i]))
        throw std::runtime_error("'" + file + "': voxel " + std::to_string(i) + " is not finite");
    return image;
  }
} // namespace plastix
