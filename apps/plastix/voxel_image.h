// Voxel images (NRRD and raw volumes) as the body of a fixed grid.
#ifndef PLASTIX_APP_VOXEL_IMAGE_H
#define PLASTIX_APP_VOXEL_IMAGE_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace plastix
{
  /** How the voxels of a raw volume are stored ('Mesh/Fixed grid/Image type'). */
  enum class VoxelType
  {
    uint8,
    int8,
    uint16,
    int16,
    uint32,
    int32,
    float32,
    float64
  };

  /** Bytes per voxel of @p type. */
  std::size_t
  voxel_bytes(VoxelType type);

  /** A 3-D image: size[0] x size[1] x size[2] voxels, x fastest, values as floats. */
  struct VoxelImage
  {
    std::array<std::size_t, 3> size{{0, 0, 0}};
    std::vector<float>         values;

    /** The value of voxel (i, j, k). */
    float
    at(const std::size_t i, const std::size_t j, const std::size_t k) const
    {
      return values[i + size[0] * (j + size[1] * k)];
    }
  };

  /**
   * Read an NRRD image (@p file ending in .nrrd with the data attached, or a
   * .nhdr header naming its 'data file'; NRRD0001-0005, dimension 3, raw or
   * ascii encoding, 8-, 16-, 32-bit integers or 32-, 64-bit floats, little or
   * big endian), or a headerless raw volume of @p raw_size voxels of
   * @p raw_type (little endian, x fastest) for any other file name. Throws
   * std::runtime_error with a one-line reason: unreadable, not an NRRD
   * header, an unsupported encoding, type or dimension, fewer or more bytes
   * than the header announces (a truncated file), non-finite values.
   */
  VoxelImage
  read_voxel_image(const std::string &file, const std::array<std::size_t, 3> &raw_size, VoxelType raw_type);
} // namespace plastix

#endif
