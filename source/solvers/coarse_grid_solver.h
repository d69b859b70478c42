// The level-0 solvers of the geometric multigrid (as ExaDG's
// coarse_grid_solvers.h): Chebyshev or CG on the device, KLU or ML AMG of
// the assembled level-0 matrix on the host, the dense inverse on the device,
// and automatic's switch from CG to the dense inverse.
#ifndef PLASTIX_SOURCE_SOLVERS_COARSE_GRID_SOLVER_H
#define PLASTIX_SOURCE_SOLVERS_COARSE_GRID_SOLVER_H

#include <deal.II/base/index_set.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/utilities.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/affine_constraints.templates.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/lapack_full_matrix.h>
#include <deal.II/lac/sparsity_tools.h>
#include <deal.II/multigrid/mg_coarse.h>
#include <deal.II/multigrid/mg_tools.h>
#include <deal.II/base/timer.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>

#include <plastix/backend/dense_inverse.h>
#include <plastix/backend/device.h>
#include <plastix/backend/vector_operations.h>
#include <plastix/core/collective_failure.h>
#include <plastix/core/elastic_matrix.h>
#include <plastix/core/mass_matrix.h>
#include <plastix/solvers/chebyshev_smoother.h>
#include <plastix/solvers/preconditioners.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "preconditioner_tools.h"

namespace plastix
{
  namespace internal
  {
    template <typename Number>
    using JacobiOf = dealii::DiagonalMatrix<device::Vector<Number>>;
    template <typename Number>
    using ChebyshevOf = dealii::PreconditionChebyshev<MechanicsOperator, device::Vector<Number>, JacobiOf<Number>>;

    /**
     * The level-0 solver for deal.II's Multigrid: on the device (a Chebyshev
     * polynomial or CG around the level-0 operator) or on the host (KLU or
     * ML AMG of the assembled level-0 matrix, one round trip per call).
     * Always in double precision: a single-precision V-cycle converts its
     * small level-0 vectors (a high-degree Chebyshev polynomial in single
     * precision loses the symmetry of the V-cycle to round-off).
     */
    template <typename Number>
    class CoarseSolver : public dealii::MGCoarseGridBase<device::Vector<Number>>
    {
    public:
      using VectorType = device::Vector<Number>;
      using Jacobi     = JacobiOf<double>;
      using Chebyshev  = ChebyshevOf<double>;

      /**
       * @p prepared_dense: a DenseInverse whose prepare() ran (or null) for
       * the dense_inverse type. @p may_switch: CoarseSolverType::automatic
       * chose cg, which switch_if_repaid() may replace by the dense inverse
       * (then @p level_dofs and @p level_operator's cell stiffness factor must
       * outlive this object).
       */
      CoarseSolver(const CoarseSolverType                        type,
                   const MechanicsOperator                      &level_operator,
                   const dealii::DoFHandler<3>                  &level_dofs,
                   const dealii::IndexSet                       &boundary,
                   const MaterialTable                          &materials,
                   const MultigridData                          &data,
                   const std::shared_ptr<backend::DenseInverse> &prepared_dense,
                   const bool                                    may_switch)
        : type(type)
        , level_operator(level_operator)
        , tolerance(data.coarse_tolerance)
        , max_iterations(data.coarse_max_iterations)
        , dense(prepared_dense ? prepared_dense : std::make_shared<backend::DenseInverse>())
      {
        if (may_switch && type == CoarseSolverType::cg && level_operator.m() <= max_dense_inverse_dofs)
          {
            switch_state             = std::make_unique<SwitchState>();
            switch_state->level_dofs = &level_dofs;
            switch_state->boundary   = boundary;
            switch_state->materials  = materials;
          }
        if constexpr (!std::is_same<Number, double>::value)
          {
            level_operator.initialize_dof_vector(source);
            level_operator.initialize_dof_vector(solution);
          }
        if (type == CoarseSolverType::cg || type == CoarseSolverType::chebyshev)
          {
            typename Chebyshev::AdditionalData chebyshev_data;
            chebyshev_data.preconditioner = std::make_shared<Jacobi>();
            level_operator.compute_inverse_diagonal(chebyshev_data.preconditioner->get_vector());
            if (type == CoarseSolverType::cg)
              {
                chebyshev_data.degree              = data.smoother_degree;
                chebyshev_data.smoothing_range     = data.smoothing_range;
                chebyshev_data.eig_cg_n_iterations = data.eigenvalue_iterations;
              }
            else
              {
                // Chebyshev as a solver: deal.II picks the degree that reduces
                // the error by the tolerance from the estimated extreme
                // eigenvalues, which needs enough CG iterations to find the
                // smallest one.
                chebyshev_data.degree              = dealii::numbers::invalid_unsigned_int;
                chebyshev_data.smoothing_range     = data.coarse_tolerance;
                chebyshev_data.eig_cg_n_iterations = 100;
                chebyshev_data.eigenvalue_algorithm =
                  Chebyshev::AdditionalData::EigenvalueAlgorithm::lanczos;
              }
            chebyshev.initialize(level_operator, chebyshev_data);
            DeviceVector ones;
            level_operator.initialize_dof_vector(ones);
            ones            = 1.;
            const auto info = chebyshev.estimate_eigenvalues(ones);
            chebyshev_degree = info.degree;
          }
        else
          {
            assemble_level_matrix(level_dofs, boundary, materials);
            if (type == CoarseSolverType::dense_inverse)
              setup_dense_inverse();
            else
              setup_host_solver(level_dofs, data);
          }
      }

      void
      operator()(const unsigned int, VectorType &dst, const VectorType &src) const override
      {
        if (dst.get_partitioner() != src.get_partitioner())
          dst.reinit(src, true);
        if constexpr (std::is_same<Number, double>::value)
          solve(dst, src);
        else
          {
            source.copy_converted(1., src);
            solve(solution, source);
            dst.copy_converted(1., solution);
          }
      }

      /**
       * CoarseSolverType::automatic's cg: once its solves so far have taken
       * (on the slowest rank) at least the dense inverse's estimated set-up,
       * replace it by the dense inverse (the ski-rental rule: about twice
       * the time of the better fixed choice in hindsight at most, where the
       * estimate holds). Collective; call
       * between solves. If the dense inverse cannot be set up on some rank
       * (memory), all keep cg. Returns whether it switched now.
       */
      bool
      switch_if_repaid()
      {
        if (!switch_state || switch_state->done || type != CoarseSolverType::cg)
          return false;
        const MPI_Comm communicator = level_operator.get_partitioner()->get_mpi_communicator();
        const double   spent        = dealii::Utilities::MPI::max(switch_state->cg_seconds, communicator);
        const double   estimate     = dense_inverse_setup_estimate(level_operator.m());
        if (spent < estimate)
          return false;
        switch_state->done = true;
        dealii::Timer timer;
        try
          {
            // Both throw on every rank if they fail on some rank (host or
            // device memory): no rank is left waiting in a collective step.
            assemble_level_matrix(*switch_state->level_dofs, switch_state->boundary, switch_state->materials);
            setup_dense_inverse();
          }
        catch (const std::exception &error)
          {
            matrix.clear();
            dense                 = std::make_shared<backend::DenseInverse>();
            switch_state->failure = error.what();
            return false;
          }
        type                         = CoarseSolverType::dense_inverse;
        switch_state->n_cg_solves_at = switch_state->n_cg_solves;
        switch_state->spent          = spent;
        switch_state->estimate       = estimate;
        switch_state->setup_seconds  = timer.wall_time();
        return true;
      }

      /** Whether switch_if_repaid() replaced cg by the dense inverse. */
      bool
      switched() const
      {
        return switch_state && type == CoarseSolverType::dense_inverse;
      }

      /** The solver in use. */
      CoarseSolverType
      solver_type() const
      {
        return type;
      }

      /** "chebyshev (degree 57)" etc. */
      std::string
      description() const
      {
        if (switched())
          {
            std::ostringstream text;
            text << std::setprecision(3) << "cg (chebyshev, relative tolerance " << tolerance
                 << ") for the first " << switch_state->n_cg_solves_at << " solves (" << switch_state->spent
                 << " s), then dense inverse ("
                 << (backend::DenseInverse::can_factorize() ? "cuSOLVER" : "LAPACK") << ", " << dense->n()
                 << "^2 entries; set-up " << switch_state->setup_seconds << " s, estimated "
                 << switch_state->estimate << " s)";
            return text.str();
          }
        if (type == CoarseSolverType::chebyshev)
          return "chebyshev (degree " + std::to_string(chebyshev_degree) + ")";
        if (type == CoarseSolverType::cg)
          {
            std::ostringstream text;
            text << "cg (chebyshev, relative tolerance " << tolerance << ")";
            if (switch_state && !switch_state->failure.empty())
              text << "; the switch to the dense inverse failed (" << switch_state->failure << ")";
            return text.str();
          }
        if (type == CoarseSolverType::dense_inverse)
          return "dense inverse (" + std::string(backend::DenseInverse::can_factorize() ? "cuSOLVER" : "LAPACK") +
                 ", " + std::to_string(dense->n()) + "^2 entries)";
        return to_string(type);
      }

    private:
      /** dst = the coarse solve of src, in double precision. */
      void
      solve(DeviceVector &dst, const DeviceVector &src) const
      {
        switch (type)
          {
            case CoarseSolverType::chebyshev:
              chebyshev.vmult(dst, src);
              return;
            case CoarseSolverType::cg:
              {
                // The solve's first reduction waits for the device anyway:
                // waiting before it keeps the levels above out of its time.
                if (switch_state)
                  backend::fence();
                dealii::Timer                  timer;
                dealii::ReductionControl       control(max_iterations, 1e-300, tolerance, false, false);
                dealii::SolverCG<DeviceVector> solver(control);
                dst = 0.;
                try
                  {
                    solver.solve(level_operator, dst, src, chebyshev);
                  }
                catch (const dealii::SolverControl::NoConvergence &)
                  {
                    // A preconditioner needs no exact coarse solve: keep the iterate.
                  }
                if (switch_state)
                  {
                    switch_state->cg_seconds += timer.wall_time();
                    ++switch_state->n_cg_solves;
                  }
                return;
              }
            case CoarseSolverType::dense_inverse:
              if (full_source.size() == 0)
                dense->vmult(dst.device_data(), src.device_data());
              else
                {
                  namespace ops = backend::vector_operations;
                  ops::equ(src.locally_owned_size(), 1., src.device_data(), gathered.device_data());
                  gathered.update_ghost_values();
                  ops::gather(full_source.size(), gathered_order.data(), gathered.device_data(), full_source.data());
                  dense->vmult(dst.device_data(), full_source.data());
                }
              return;
            default:
              // The small level-0 vector through the host.
              copy_to_trilinos(src, host_src);
              if (direct)
                direct->solve(host_dst, host_src);
              else
                amg->vmult(host_dst, host_src);
              copy_from_trilinos(host_dst, dst);
          }
      }

      /**
       * Assemble the level-0 matrix on the host (the owned rows of each
       * rank). Collective; a failure on some rank throws on every rank.
       */
      void
      assemble_level_matrix(const dealii::DoFHandler<3> &level_dofs,
                            const dealii::IndexSet      &boundary,
                            const MaterialTable         &materials)
      {
        // Level-0 stiffness matrix, assembled like the device operator
        // (elastic_cell_matrix: QGauss(2), trilinear mapping, the level
        // operators' formulation), Dirichlet
        // rows/columns zero with a positive diagonal.
        const unsigned int      level        = 0;
        const MPI_Comm          communicator = level_dofs.get_communicator();
        const dealii::IndexSet &owned        = level_dofs.locally_owned_mg_dofs(level);
        const MechanicsOperator::AdditionalData &operator_data = level_operator.get_additional_data();
        // A failure of one rank's local steps (a user's stiffness-factor
        // callback that throws, a material id without a material, host
        // memory) must not leave the others waiting in the collective steps
        // (the sparsity pattern's exchange, compress()): the ranks agree
        // before them, and then every rank throws.
        internal::CollectiveFailure       failures("plastix multigrid (coarse matrix assembly)");
        dealii::IndexSet                  relevant;
        dealii::AffineConstraints<double> constraints;
        dealii::DynamicSparsityPattern    dsp;
        failures.guard([&] {
          dealii::DoFTools::extract_locally_relevant_level_dofs(level_dofs, level, relevant);
          constraints.reinit(relevant);
          for (const auto i : boundary)
            if (relevant.is_element(i))
              constraints.add_line(i);
          constraints.close();
          dsp.reinit(relevant.size(), relevant.size(), relevant);
          dealii::MGTools::make_sparsity_pattern(level_dofs, dsp, level);
        });
        failures.throw_on_every_rank(communicator);
        dealii::SparsityTools::distribute_sparsity_pattern(dsp, owned, communicator, relevant);
        matrix.reinit(owned, owned, dsp, communicator);

        const auto                              &fe = level_dofs.get_fe();
        const dealii::MappingQ<3>                mapping(1);
        const dealii::QGauss<3>                  quadrature(2);
        dealii::FEValues<3>                      fe_values(mapping, fe, quadrature,
                                      dealii::update_values | dealii::update_gradients |
                                        dealii::update_JxW_values);
        dealii::FEFaceValues<3>                  fe_face_values(mapping, fe, dealii::QGauss<2>(2),
                                               boundary_spring_update_flags());
        dealii::FullMatrix<double>               cell_matrix;
        std::vector<dealii::types::global_dof_index> dofs(fe.n_dofs_per_cell());
        failures.guard([&] {
          for (const auto &cell : level_dofs.mg_cell_iterators_on_level(level))
            {
              if (!cell->is_locally_owned_on_level())
                continue;
              const auto material = materials.find(cell->material_id());
              if (material == materials.end())
                throw std::invalid_argument("plastix multigrid: no material given for material id " +
                                            std::to_string(cell->material_id()) + " of a level-0 cell");
              fe_values.reinit(cell);
              elastic_cell_matrix(fe_values, material->second, operator_data.element_formulation, cell_matrix);
              if (operator_data.cell_stiffness_factor)
                cell_matrix *= operator_data.cell_stiffness_factor(cell);
              add_boundary_spring_matrices(fe_face_values, cell, operator_data.boundary_springs, cell_matrix);
              // The effective stiffness K + c M of an implicit time step (MechanicsOperator::set_mass_factor()).
              if (operator_data.mass_matrix != MassMatrix::none && operator_data.mass_factor != 0.)
                add_cell_mass_matrix(fe_values, material->second.density, operator_data.mass_matrix,
                                     operator_data.mass_factor, cell_matrix);
              cell->get_mg_dof_indices(dofs);
              constraints.distribute_local_to_global(cell_matrix, dofs, matrix);
            }
        });
        matrix.compress(dealii::VectorOperation::add);
        failures.throw_on_every_rank(communicator);
      }

      /** KLU or ML on the assembled level-0 matrix. */
      void
      setup_host_solver(const dealii::DoFHandler<3> &level_dofs, const MultigridData &data)
      {
        const unsigned int      level        = 0;
        const MPI_Comm          communicator = level_dofs.get_communicator();
        const dealii::IndexSet &owned        = level_dofs.locally_owned_mg_dofs(level);
        host_src.reinit(owned, communicator);
        host_dst.reinit(owned, communicator);

        if (type == CoarseSolverType::direct)
          {
            control = std::make_unique<dealii::SolverControl>(1, 0);
            direct  = std::make_unique<dealii::TrilinosWrappers::SolverDirect>(*control);
            direct->initialize(matrix);
          }
        else
          {
            amg = std::make_unique<AmgPreconditioner>();
            amg->initialize(matrix, owned_dof_coordinates(level_dofs, level), data.coarse_amg);
          }
      }

      /**
       * The explicit inverse of the assembled level-0 matrix: every rank
       * gathers the whole matrix (dense, n^2 doubles), factorises and inverts
       * it (cuSOLVER on a GPU, deal.II's LAPACKFullMatrix on the host) and
       * keeps its owned rows in device memory. Collective: a failure on some
       * ranks (host or device memory, a matrix that is not positive
       * definite) throws on every rank; the other ranks' #dense then holds
       * rows, which the caller drops (switch_if_repaid()) or discards with
       * this object (the constructor).
       */
      void
      factorize_dense_inverse()
      {
        const MPI_Comm          communicator_of_matrix = matrix.get_mpi_communicator();
        const dealii::IndexSet &owned                  = matrix.locally_owned_range_indices();
        const std::size_t       n                      = matrix.m();
        const std::size_t       n_owned                = owned.n_elements();
        if (n > max_dense_inverse_dofs)
          throw std::invalid_argument("plastix multigrid: level 0 has " + std::to_string(n) +
                                      " DoFs, more than the dense inverse coarse solver takes (" +
                                      std::to_string(max_dense_inverse_dofs) + ")");
        // Checked on all ranks together: the gathers below are collective.
        if (dealii::Utilities::MPI::min(owned.is_contiguous() ? 1 : 0, communicator_of_matrix) == 0)
          throw std::logic_error("plastix multigrid: the owned level-0 DoFs of some rank are not contiguous");
        const std::size_t first = n_owned > 0 ? owned.nth_index_in_set(0) : 0;

        // A rank whose local step fails (memory) still takes part in the
        // gathers' collective steps; the ranks agree before each of them and
        // after the factorisation.
        internal::CollectiveFailure failures("plastix multigrid (dense inverse coarse solver)");

        // The owned rows' entries (row, column, value), then those of all ranks on every rank.
        std::vector<std::int32_t> owned_entry_rows, owned_entry_columns;
        std::vector<double>       owned_entry_values;
        failures.guard([&] {
          for (std::size_t i = 0; i < n_owned; ++i)
            // end() once per row: each call of it copies the next row out of Epetra.
            for (auto entry = matrix.begin(first + i), end = matrix.end(first + i); entry != end; ++entry)
              {
                owned_entry_rows.push_back(static_cast<std::int32_t>(first + i));
                owned_entry_columns.push_back(static_cast<std::int32_t>(entry->column()));
                owned_entry_values.push_back(entry->value());
              }
        });
        failures.throw_on_every_rank(communicator_of_matrix);
        const GatherLayout        entry_layout(communicator_of_matrix, owned_entry_rows.size());
        const std::size_t         n_entries = entry_layout.size();
        std::vector<std::int32_t> entry_rows, entry_columns;
        std::vector<double>       entry_values;
        failures.guard([&] {
          entry_rows.resize(n_entries);
          entry_columns.resize(n_entries);
          entry_values.resize(n_entries);
        });
        failures.throw_on_every_rank(communicator_of_matrix);
        entry_layout.all_gather(communicator_of_matrix, owned_entry_rows, MPI_INT32_T, entry_rows.data());
        entry_layout.all_gather(communicator_of_matrix, owned_entry_columns, MPI_INT32_T, entry_columns.data());
        entry_layout.all_gather(communicator_of_matrix, owned_entry_values, MPI_DOUBLE, entry_values.data());
        failures.guard([&] {
          invert_gathered(n, n_entries, entry_rows, entry_columns, entry_values, first, n_owned);
        });
        matrix.clear();
        failures.throw_on_every_rank(communicator_of_matrix);
      }

      /**
       * factorize_dense_inverse()'s local step: the inverse of the gathered
       * matrix, its rows [first, first + n_owned) kept in #dense.
       */
      void
      invert_gathered(const std::size_t                n,
                      const std::size_t                n_entries,
                      const std::vector<std::int32_t> &entry_rows,
                      const std::vector<std::int32_t> &entry_columns,
                      const std::vector<double>       &entry_values,
                      const std::size_t                first,
                      const std::size_t                n_owned)
      {
        const auto not_positive_definite = [n](const std::string &detail) {
          return std::runtime_error("plastix multigrid: the level-0 matrix (" + std::to_string(n) +
                                    " DoFs) is not positive definite (" + detail +
                                    "); the dense inverse coarse solver needs a body held by Dirichlet boundaries");
        };
        if (backend::DenseInverse::can_factorize())
          {
            const int info = dense->factorize_and_invert(n, n_entries, entry_rows.data(), entry_columns.data(),
                                                         entry_values.data(), first, n_owned);
            if (info != 0)
              throw not_positive_definite("leading minor " + std::to_string(info));
          }
        else
          {
            dealii::LAPACKFullMatrix<double> inverse(n, n);
            for (std::size_t k = 0; k < n_entries; ++k)
              inverse(entry_rows[k], entry_columns[k]) = entry_values[k];
            inverse.set_property(dealii::LAPACKSupport::symmetric);
            try
              {
                inverse.invert();
              }
            catch (const std::exception &)
              {
                throw not_positive_definite("Cholesky factorisation failed");
              }
            std::vector<double> rows(n_owned * n);
            for (std::size_t i = 0; i < n_owned; ++i)
              for (std::size_t c = 0; c < n; ++c)
                rows[i * n + c] = inverse(first + i, c);
            dense->set_rows(n, first, n_owned, rows.data());
          }
      }

      /**
       * The explicit inverse: factorize_dense_inverse(), then
       * setup_dense_gather(). Collective; a failure on some rank throws on
       * every rank.
       */
      void
      setup_dense_inverse()
      {
        factorize_dense_inverse();
        setup_dense_gather();
      }

      /**
       * On several ranks: what gathers the whole level-0 vector for the owned
       * rows. Collective; a failure on some rank (device memory) throws on
       * every rank.
       */
      void
      setup_dense_gather()
      {
        const MPI_Comm          communicator_of_matrix = level_operator.get_partitioner()->get_mpi_communicator();
        const dealii::IndexSet &owned                  = level_operator.get_partitioner()->locally_owned_range();
        const std::size_t       n                      = level_operator.m();
        if (dealii::Utilities::MPI::n_mpi_processes(communicator_of_matrix) > 1)
          {
            // Every rank's rows need the whole level-0 vector: a vector that
            // holds all entries it does not own as ghosts gathers it in its
            // ghost exchange (device to device where the ranks share memory:
            // the host does not wait), and a gather puts it in order.
            dealii::IndexSet all_others(n);
            all_others.add_range(0, n);
            all_others.subtract_set(owned);
            const auto whole =
              std::make_shared<const dealii::Utilities::MPI::Partitioner>(owned, all_others, communicator_of_matrix);
            internal::CollectiveFailure failures("plastix multigrid (dense inverse coarse solver)");
            failures.guard([&] {
              gathered.reinit(whole);
              std::vector<backend::LocalIndex> order(n);
              for (std::size_t j = 0; j < n; ++j)
                order[j] = static_cast<backend::LocalIndex>(whole->global_to_local(j));
              gathered_order = backend::DeviceArray<backend::LocalIndex>(order, "dense coarse solver order");
              full_source.resize(n, "dense coarse solver input");
            });
            failures.throw_on_every_rank(communicator_of_matrix);
          }
      }

      /** What switch_if_repaid() needs and what it found. */
      struct SwitchState
      {
        const dealii::DoFHandler<3> *level_dofs = nullptr;
        dealii::IndexSet             boundary;
        MaterialTable                materials;
        /** The cg solves so far (this rank's time). */
        double       cg_seconds  = 0;
        unsigned int n_cg_solves = 0;
        bool         done        = false;
        /** At the switch: solves, their time (slowest rank), the estimate, the set-up's time; or why it failed. */
        unsigned int n_cg_solves_at = 0;
        double       spent = 0, estimate = 0, setup_seconds = 0;
        std::string  failure;
      };

      CoarseSolverType         type;
      const MechanicsOperator &level_operator;
      const double             tolerance;
      const unsigned int       max_iterations;
      Chebyshev                chebyshev;
      unsigned int             chebyshev_degree = 0;
      dealii::TrilinosWrappers::SparseMatrix                  matrix;
      std::unique_ptr<dealii::SolverControl>                  control;
      std::unique_ptr<dealii::TrilinosWrappers::SolverDirect> direct;
      std::unique_ptr<AmgPreconditioner>                      amg;
      mutable dealii::TrilinosWrappers::MPI::Vector           host_src, host_dst;
      /**
       * dense_inverse: the owned rows of the inverse; on several ranks the
       * level-0 vector with all entries it does not own as ghosts, the local
       * position of each global entry in it, and the whole vector in order.
       */
      std::shared_ptr<backend::DenseInverse>     dense;
      mutable DeviceVector                       gathered;
      backend::DeviceArray<backend::LocalIndex>  gathered_order;
      mutable backend::DeviceArray<double>       full_source;
      /** Double-precision copies of a single-precision V-cycle's level-0 vectors. */
      mutable DeviceVector source, solution;
      /** automatic's cg: the switch to the dense inverse (null otherwise). */
      std::unique_ptr<SwitchState> switch_state;
    };
  } // namespace internal
} // namespace plastix

#endif
