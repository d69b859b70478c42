// Strategy::assembled: the tangent assembled on the device into CSR form
// (assembled_matrix.h), applied by rows; its unmasked products (the
// stored-stress forces, apply_unconstrained()) stay element by element (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_STRATEGIES_ASSEMBLED_H
#define PLASTIX_SOURCE_BACKEND_STRATEGIES_ASSEMBLED_H

#include "element_by_element.h"

#include <chrono>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /**
       * Strategy::assembled (the interface of a strategy, see
       * strategy_dispatch.h); apply_with() is ElementByElement's, with
       * atomics: the matrix holds the operator's own law only.
       */
      struct Assembled : ElementByElement
      {
        /** The sparsity from the cell -> node table, then the values of the current law. */
        static void
        setup(const MeshData &, DeviceOperator::Impl &d)
        {
          const auto start = std::chrono::steady_clock::now();
          assemble_symbolic(d.cell_node_table(), d.n_cells, d.n_nodes, d.matrix);
          Kokkos::fence();
          d.matrix.symbolic_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          assemble_matrix_values(d);
        }

        /** dst = A src: the CSR matrix if @p masked (its constrained rows are unit rows), else element by element. */
        template <typename Number>
        static void
        apply(const DeviceOperator::Impl &d, const Number *src, Number *dst, const bool masked)
        {
          if (!masked)
            {
              ElementByElement::apply(d, src, dst, masked);
              return;
            }
          csr_apply(d.matrix, src, dst);
          copy_unit_rows(d, src, dst);
        }

        /** The matrix values of the new law. */
        static void
        update_tangent(DeviceOperator::Impl &d)
        {
          if (d.matrix.node_offsets.size() > 0)
            assemble_matrix_values(d);
        }
      };
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
