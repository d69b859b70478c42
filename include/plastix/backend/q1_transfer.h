// Kokkos-free interface of the matrix-free multigrid transfer of Q1 vector
// fields between a coarse mesh level and its uniform refinement.
#ifndef PLASTIX_BACKEND_Q1_TRANSFER_H
#define PLASTIX_BACKEND_Q1_TRANSFER_H

#include <plastix/backend/config.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace plastix
{
  namespace backend
  {
    /**
     * What Q1Transfer needs of one pair of levels, in process-local node
     * numbers (node n holds DoFs 3n, 3n+1, 3n+2 of its level's local
     * vector, owned nodes first).
     */
    struct TransferData
    {
      /** Local nodes of the coarse level. */
      LocalIndex n_coarse_nodes = 0;

      /** Local nodes of the fine level (the owned ones and those of the children of the cells below). */
      LocalIndex n_fine_nodes = 0;

      /** The eight vertices of each coarse cell this process transfers, lexicographic (x fastest). */
      std::vector<LocalIndex> coarse_cell_nodes;

      /**
       * The 27 fine nodes of each of those cells: the vertices of its eight
       * children on the 3 x 3 x 3 lattice of the cell's reference
       * coordinates {0, 1/2, 1}^3, x fastest.
       */
      std::vector<LocalIndex> fine_cell_nodes;

      /**
       * Per fine node: 1 / (the number of coarse cells, on all processes,
       * among whose lattice points the node is). Every coarse cell adds its
       * weighted interpolation, so a node's contributions sum to the
       * interpolated value (prolongation) and the restriction is exactly
       * the transpose.
       */
      std::vector<double> fine_node_weights;

      /** Per coarse local DoF: 1 if constrained (a zero Dirichlet value on the level). */
      std::vector<std::uint8_t> coarse_constrained;

      /** Per fine local DoF: 1 if constrained. */
      std::vector<std::uint8_t> fine_constrained;

      /**
       * @name The gather form given by the caller (several processes)
       *
       * Where these are given, both transfers gather without atomics and
       * give complete values on the first nodes of their destination only
       * (a process's owned nodes): no partial sums to add up. The caller
       * assembles them from all processes' coarse cells; fine_cell_nodes
       * and fine_node_weights may then be empty. Where they are empty, one
       * process derives the same from the cells (see Q1Transfer).
       */
      ///@{
      /** Whether the caller gives the gather form (the members below; they may be empty on a process that owns no nodes). */
      bool gather_form = false;

      /**
       * Per fine node 0 .. fine_node_cell.size() - 1: the coarse cell (an
       * index into coarse_cell_nodes) whose interpolation gives its value.
       */
      std::vector<LocalIndex> fine_node_cell;

      /** Per such fine node: its lattice position in that cell (0..26, x fastest). */
      std::vector<std::uint8_t> fine_node_position;

      /**
       * The rows of the restriction R = P^T of coarse nodes 0 ..
       * coarse_row_start.size() - 2: entries coarse_row_start[c] to
       * coarse_row_start[c + 1] - 1 of the two arrays below.
       */
      std::vector<std::int64_t> coarse_row_start;

      /** Per entry: the fine node. */
      std::vector<LocalIndex> coarse_row_fine_nodes;

      /** Per entry: along how many axes the fine node is a midpoint of the coarse node's cells (weight 2^-k). */
      std::vector<std::uint8_t> coarse_row_midpoint_axes;
      ///@}

      /** Number of coarse cells. */
      std::size_t
      n_cells() const
      {
        return coarse_cell_nodes.size() / 8;
      }

      /** Throw std::invalid_argument naming the first inconsistency. */
      void
      check_consistency() const;
    };

    /**
     * Prolongation P from a coarse level to its uniformly refined fine level
     * for trilinear (Q1) vector fields, and the restriction R = P^T, applied
     * cell by cell on the device without a stored matrix: one thread per
     * lattice point of each coarse cell interpolates the cell's vertex
     * values there (tensor products of the 1D factors 1, 1/2, 0) and adds
     * the value, weighted, to the fine node (atomics); the restriction is
     * the transpose, one thread per coarse vertex of each cell gathering its
     * 8 lattice points. Where all coarse cells of every fine node are local
     * (one process), both run without atomics instead: the prolongation one
     * thread per fine node, interpolating in one of its cells, and the
     * restriction one thread per coarse node, summing the row of P^T built
     * from those cells at set-up (the 27 fine nodes around a coarse node of
     * a uniform box, weights 1, 1/2, 1/4, 1/8).
     * Constrained DoFs of either level are left out (zero
     * rows of P for constrained fine DoFs, zero columns for constrained
     * coarse DoFs). With MPI, the caller gives the gather form
     * (TransferData::fine_node_cell and the restriction's rows): the
     * results are then complete on the first (owned) nodes of the
     * destination and its other nodes are not touched. Without it, the
     * results at nodes shared with other processes are partial sums for the
     * caller to add up (compress).
     */
    class PLASTIX_BACKEND_EXPORT Q1Transfer
    {
    public:
      /** Upload @p data. */
      explicit Q1Transfer(const TransferData &data);

      ~Q1Transfer();

      Q1Transfer(const Q1Transfer &) = delete;
      Q1Transfer &
      operator=(const Q1Transfer &) = delete;

      /**
       * fine = P coarse on all local fine DoFs (fine zeroed first), or
       * fine += P coarse with @p add (one kernel: no zeroing, no temporary).
       */
      void
      prolongate(const double *coarse, double *fine, bool add = false) const;

      /** As above in single precision. */
      void
      prolongate(const float *coarse, float *fine, bool add = false) const;

      /**
       * coarse = P^T fine on all local coarse DoFs (coarse zeroed first), or
       * coarse += P^T fine with @p add; reads the ghost fine values.
       */
      void
      restrict_to_coarse(const double *fine, double *coarse, bool add = false) const;

      /** As above in single precision. */
      void
      restrict_to_coarse(const float *fine, float *coarse, bool add = false) const;

      /**
       * Whether both transfers gather (complete values on the first nodes
       * of their destination, no atomics): always on one process and where
       * the caller gives the gather form.
       */
      bool
      gathers() const;

      /** Device memory held (bytes). */
      std::size_t
      memory_consumption() const;

      /**
       * Bytes that one prolongation plus one restriction must move at least
       * (transfer data, source read, destination zeroed and accumulated),
       * with @p bytes_per_value bytes per vector entry.
       */
      std::size_t
      bytes_per_pair(std::size_t bytes_per_value) const;

      struct Impl;

    private:
      std::unique_ptr<Impl> impl_;
    };
  } // namespace backend
} // namespace plastix

#endif
