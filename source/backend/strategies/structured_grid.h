// Strategy::dbd_structured: DoF by DoF on a lattice of equal axis-parallel
// boxes (the "structured indexing" of J. Martinez-Frutos and D. Herrero-Perez,
// "Efficient matrix-free GPU implementation of Fixed Grid Finite Element
// Analysis"), shared by the backend translation units (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_STRUCTURED_GRID_H
#define PLASTIX_SOURCE_BACKEND_STRUCTURED_GRID_H

#include <plastix/backend/device_array.h>
#include <plastix/backend/device_operator.h>

#include "../kokkos_common.h"

#include <cstdint>
#include <vector>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /** Bits of a lattice entry that hold the local node; the three above hold its constrained components. */
      constexpr int        lattice_node_bits = 28;
      constexpr LocalIndex lattice_node_mask = (LocalIndex(1) << lattice_node_bits) - 1;
      /** Bit of a node class: the node's eight cells share material and factor, and the 27-point stencil applies. */
      constexpr std::uint16_t lattice_stencil_node = 256;
      /** The material of a stencil node sits in bits 9-11 of its class. */
      constexpr int lattice_material_shift = 9;
      /** Materials whose stencils a team copies into scratch memory; nodes of others take the cell rows. */
      constexpr int lattice_scratch_materials = 8;

      /**
       * The lattice of Strategy::dbd_structured. Lattice point p = i + X (j
       * + Y k) (X, Y, Z points per direction) sits at origin + (i hx, j hy,
       * k hz); a cell is indexed by the lattice point of its vertex 0 (its
       * lowest corner). No cell -> node table is read: a node finds its 26
       * neighbours and 8 cells by index arithmetic.
       */
      struct StructuredGrid
      {
        /** Lattice points per direction. */
        Index64 points[3] = {0, 0, 0};
        /**
         * Per lattice point: the local node there, with bit
         * lattice_node_bits + c set if its component c is constrained; -1 if
         * no local cell has a vertex there.
         */
        DeviceArray<LocalIndex> node;
        /** Per lattice point: the local cell whose vertex 0 is there, or -1. */
        DeviceArray<LocalIndex> cell;
        /**
         * Per lattice point: bit q (q = 0..7, the cell at offsets (q&1, q>>1&1,
         * q>>2&1) - 1) set if that cell exists and the lattice pass applies
         * it (not a cell left to the element-by-element pass); bit 8
         * (lattice_stencil_node) if all eight are set and share material
         * and stiffness factor, that material in the bits from
         * lattice_material_shift.
         */
        DeviceArray<std::uint16_t> node_class;
        /** Per lattice point: node_class with every existing cell applied by the lattice pass (no tangent). */
        DeviceArray<std::uint16_t> node_cells;
        /** 576 per material: the box's elastic element matrix without stiffness factor, column-major. */
        DeviceArray<double> element_matrices;
        /**
         * 243 per material: the 27 3x3 blocks of a node's row of the
         * stiffness, summed over its eight cells; block o = (ox+1) + 3 (oy+1)
         * + 9 (oz+1) couples the node with its neighbour at offset (ox, oy,
         * oz), entry 9 o + 3 i + j row component i, column component j.
         */
        DeviceArray<double> stencils;
        /** The same on the host (a one-material lattice passes its stencil to the kernel by value). */
        std::vector<double> host_stencils;
        std::size_t         n_materials = 0;
        /**
         * Whether block entries (i, j), i != j, vanish wherever offset
         * component i or j is zero (isotropic materials on boxes, full
         * integration or B-bar: checked on the computed stencils): the kernel
         * then skips those 90 of the 243 products.
         */
        bool sparse_blocks = false;
        /**
         * Per local node: its lattice point, or -1 for a node of no local
         * cell. The kernel runs one thread per local node, in the vectors'
         * order.
         */
        DeviceArray<LocalIndex> node_point;
        /** Cells left to the element-by-element pass: those with plastic points under a tangent. */
        DeviceArray<LocalIndex> other_cells;
        Index64                 n_other_cells = 0;

        /** Device memory held (bytes). */
        std::size_t
        memory_consumption() const
        {
          return node.memory_consumption() + cell.memory_consumption() + node_class.memory_consumption() +
                 node_cells.memory_consumption() + node_point.memory_consumption() + element_matrices.memory_consumption() +
                 stencils.memory_consumption() + other_cells.memory_consumption();
        }

        /** Number of lattice points. */
        Index64
        n_points() const
        {
          return points[0] * points[1] * points[2];
        }
      };

      /**
       * Build the lattice of @p mesh into @p d.structured; throws
       * std::invalid_argument if the cells are not equal axis-parallel boxes
       * of one lattice (with deal.II's vertex order) or the mesh has
       * hanging-node lines.
       */
      void
      build_structured_grid(const MeshData &mesh, DeviceOperator::Impl &d);

      /**
       * Which cells the lattice pass applies and which are left to the
       * element-by-element pass: all cells, or with a tangent the cells
       * without plastic points (call after the tangent changes).
       */
      void
      update_structured_classes(DeviceOperator::Impl &d);

      /**
       * The lattice pass of dst = A src: every node of the lattice gets the
       * sum over its cells that the lattice pass applies (stored plainly,
       * no atomics); zero on the components of constrained DoFs when
       * @p masked. The cells left over are the caller's.
       */
      template <typename Number>
      void
      apply_structured(const DeviceOperator::Impl &d, const Number *src, Number *dst, bool masked);

      /**
       * One Chebyshev-Jacobi step on the owned DoFs with t = A x (masked:
       * t = x on constrained rows), in the lattice pass:
       *   out = (1 + factor1) x - factor1 x_old + factor2 D^-1 (rhs - t)
       * (without the x_old term where x_old is null). out may be x_old, not x.
       */
      template <typename Number>
      struct ChebyshevEpilogue
      {
        const Number *rhs              = nullptr;
        const Number *inverse_diagonal = nullptr;
        const Number *x_old            = nullptr;
        Number       *out              = nullptr;
        Number        factor1 = 0, factor2 = 0;
        /** Set by chebyshev_step_structured(). */
        Index64       n_owned_nodes = 0;

        /** Entry @p i, given t_i and x_i. */
        KOKKOS_INLINE_FUNCTION void
        update(const Index64 i, const Number t, const Number x) const
        {
          const Number correction = factor2 * inverse_diagonal[i] * (rhs[i] - t);
          out[i] = x_old != nullptr ? (Number(1) + factor1) * x - factor1 * x_old[i] + correction :
                                      (Number(1) + factor1) * x + correction;
        }
      };

      /**
       * The Chebyshev step of ChebyshevEpilogue fused into the lattice pass
       * (masked). Only where the lattice pass is the whole operator: no
       * cells of the element-by-element pass, no constraint lines, no ghost
       * exchange.
       */
      template <typename Number>
      void
      chebyshev_step_structured(const DeviceOperator::Impl &d, const Number *x, ChebyshevEpilogue<Number> epilogue);
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
