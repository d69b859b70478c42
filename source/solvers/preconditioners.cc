// Geometric multigrid on device-resident level operators, and ML AMG.
#include <deal.II/base/index_set.h>
#include <deal.II/base/mg_level_object.h>
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
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_coarse.h>
#include <deal.II/multigrid/mg_matrix.h>
#include <deal.II/multigrid/mg_smoother.h>
#include <deal.II/multigrid/mg_tools.h>
#include <deal.II/multigrid/multigrid.h>
#include <deal.II/multigrid/multigrid.templates.h>
#include <deal.II/base/timer.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>

#include <plastix/backend/dense_inverse.h>
#include <plastix/backend/device.h>
#include <plastix/backend/vector_operations.h>
#include <plastix/core/collective_failure.h>
#include <plastix/core/elastic_matrix.h>
#include <plastix/solvers/chebyshev_smoother.h>
#include <plastix/solvers/mg_transfer.h>
#include <plastix/solvers/preconditioners.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace plastix
{
  namespace
  {
    /** Which cell DoF is component c of vertex v (FESystem(FE_Q(1), 3)). */
    struct CellDofTable
    {
      explicit CellDofTable(const dealii::FiniteElement<3> &fe)
      {
        for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
          {
            const auto [component, vertex] = fe.system_to_component_index(i);
            index[vertex][component]       = i;
          }
      }
      unsigned int index[8][3];
    };

    /**
     * x, y, z of the vertex of each locally owned DoF (3 values per owned
     * row), from the owned cells of @p level (numbers::invalid_unsigned_int:
     * the active cells).
     */
    std::vector<double>
    owned_dof_coordinates(const dealii::DoFHandler<3> &dof_handler, const unsigned int level)
    {
      const bool              on_level = level != dealii::numbers::invalid_unsigned_int;
      const dealii::IndexSet &owned = on_level ? dof_handler.locally_owned_mg_dofs(level) : dof_handler.locally_owned_dofs();
      const CellDofTable      table(dof_handler.get_fe());
      std::vector<double>     coordinates(3 * owned.n_elements(), 0.);
      std::vector<dealii::types::global_dof_index> dofs(dof_handler.get_fe().n_dofs_per_cell());
      auto visit = [&](const auto &cell) {
        if (on_level)
          cell->get_mg_dof_indices(dofs);
        else
          cell->get_dof_indices(dofs);
        for (unsigned int v = 0; v < 8; ++v)
          for (unsigned int c = 0; c < 3; ++c)
            if (owned.is_element(dofs[table.index[v][c]]))
              {
                const auto row = owned.index_within_set(dofs[table.index[v][c]]);
                for (unsigned int d = 0; d < 3; ++d)
                  coordinates[3 * row + d] = cell->vertex(v)[d];
              }
      };
      if (on_level)
        {
          for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
            if (cell->is_locally_owned_on_level())
              visit(cell);
        }
      else
        for (const auto &cell : dof_handler.active_cell_iterators())
          if (cell->is_locally_owned())
            visit(cell);
      return coordinates;
    }

    /** Copy the owned entries of a DeviceVector into a Trilinos vector of the same layout. */
    void
    copy_to_trilinos(const DeviceVector &src, dealii::TrilinosWrappers::MPI::Vector &dst)
    {
      AssertThrow(dst.locally_owned_size() == src.locally_owned_size(),
                  dealii::ExcMessage("plastix: host and device vector layouts differ"));
      backend::copy_to_host(dst.begin(), src.device_data(), src.locally_owned_size() * sizeof(double));
    }

    /** Where each rank's part lies in a vector concatenated over the ranks (MPI_Allgatherv's counts and offsets). */
    struct GatherLayout
    {
      /** The layout of parts of @p local_size entries on each rank of @p communicator (collective). */
      GatherLayout(const MPI_Comm communicator, const std::size_t local_size)
        : counts(dealii::Utilities::MPI::all_gather(communicator, static_cast<int>(local_size)))
        , offsets(counts.size(), 0)
      {
        for (std::size_t r = 1; r < counts.size(); ++r)
          offsets[r] = offsets[r - 1] + counts[r - 1];
      }

      /** Entries of the whole vector. */
      std::size_t
      size() const
      {
        return offsets.back() + counts.back();
      }

      /** @p whole = every rank's @p local, in rank order (collective; @p type: MPI's type of T). */
      template <typename T>
      void
      all_gather(const MPI_Comm communicator, const std::vector<T> &local, const MPI_Datatype type, T *whole) const
      {
        MPI_Allgatherv(local.data(), static_cast<int>(local.size()), type, whole, counts.data(), offsets.data(), type,
                       communicator);
      }

      std::vector<int> counts, offsets;
    };

    /** Most level-0 DoFs of the dense inverse: n^2 entries within cuSOLVER's and LAPACK's 32-bit sizes. */
    constexpr dealii::types::global_dof_index max_dense_inverse_dofs = 46340;

    /**
     * Estimated seconds of the dense inverse's set-up for @p n level-0 DoFs
     * (assembly, gathering, factorisation, inversion), the price against
     * which CoarseSolverType::automatic weighs the coarse cg's solves: on a
     * GPU 3.5 ns per entry of the n x n matrix and 0.2 s for cuSOLVER's
     * start (set-up times measured on GPUs: doc/solvers.md, "Multigrid
     * settings"); on the host
     * n^3 flops at 1 GFlop/s (LAPACK's Cholesky and inverse).
     */
    double
    dense_inverse_setup_estimate(const dealii::types::global_dof_index n)
    {
      const double entries = static_cast<double>(n) * static_cast<double>(n);
      return backend::DenseInverse::can_factorize() ? 3.5e-9 * entries + 0.2 : 1e-9 * entries * static_cast<double>(n);
    }

    /** Copy the owned entries of a Trilinos vector into a DeviceVector of the same layout. */
    void
    copy_from_trilinos(const dealii::TrilinosWrappers::MPI::Vector &src, DeviceVector &dst)
    {
      AssertThrow(dst.locally_owned_size() == src.locally_owned_size(),
                  dealii::ExcMessage("plastix: host and device vector layouts differ"));
      backend::copy_to_device(dst.device_data(), src.begin(), dst.locally_owned_size() * sizeof(double));
    }
  } // namespace

  // ------------------------------------------------------------------ AMG

  AmgPreconditioner::AmgPreconditioner() = default;

  AmgPreconditioner::~AmgPreconditioner() = default;

  void
  AmgPreconditioner::initialize(const dealii::DoFHandler<3>           &dof_handler,
                                const MaterialTable                   &materials,
                                const DirichletBoundaries             &dirichlet,
                                const AmgData                         &data)
  {
    // Homogeneous Dirichlet rows/columns and the hanging-node lines, as in
    // the device operator (C^T A C; without the lines AMG would precondition
    // a different operator on a locally refined mesh).
    dealii::IndexSet relevant;
    dealii::DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    dealii::AffineConstraints<double> constraints(relevant);
    dealii::DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    for (const auto &[boundary_id, components] : dirichlet)
      dealii::DoFTools::make_zero_boundary_constraints(dof_handler, boundary_id, constraints, components);
    constraints.close();
    assemble_elastic_matrix(dof_handler, constraints, materials, own_matrix, data.element_formulation,
                            data.cell_stiffness_factor, data.boundary_springs);
    initialize(own_matrix, owned_dof_coordinates(dof_handler, dealii::numbers::invalid_unsigned_int), data);
  }

  void
  AmgPreconditioner::initialize(const dealii::TrilinosWrappers::SparseMatrix &new_matrix,
                                const std::vector<double>                    &coordinates,
                                const AmgData                                &data)
  {
    matrix = &new_matrix;
    const dealii::IndexSet owned = matrix->locally_owned_range_indices();
    AssertThrow(coordinates.size() == 3 * owned.n_elements(),
                dealii::ExcMessage("AmgPreconditioner: need 3 coordinates per owned row"));

    dealii::TrilinosWrappers::PreconditionAMG::AdditionalData amg_data;
    amg_data.elliptic              = true;
    amg_data.higher_order_elements = false;
    amg_data.n_cycles              = 1;
    amg_data.aggregation_threshold = data.aggregation_threshold;
    amg_data.smoother_sweeps       = data.smoother_sweeps;
    amg_data.smoother_type =
      data.smoother_type == AmgSmoother::chebyshev ? "Chebyshev" : "symmetric Gauss-Seidel";
    amg_data.coarse_type = "Amesos-KLU";

    Teuchos::ParameterList              parameters;
    std::unique_ptr<Epetra_MultiVector> distributed_modes;
    amg_data.set_parameters(parameters, distributed_modes, *matrix);
    // Three unknowns per node: ML aggregates nodes, not single DoFs.
    parameters.set("PDE equations", 3);
    if (data.rigid_body_modes)
      {
        // Six rigid-body modes, coordinates relative to the global centroid
        // (each rank must use the same origin). Row k is component k % 3
        // (MechanicsOperator's numbering: x, y, z of a vertex consecutive).
        const std::size_t n = owned.n_elements();
        double            sum[4] = {0, 0, 0, static_cast<double>(n / 3)};
        for (std::size_t k = 0; k < n; k += 3)
          for (unsigned int d = 0; d < 3; ++d)
            sum[d] += coordinates[3 * k + d];
        dealii::Utilities::MPI::sum(dealii::ArrayView<const double>(sum, 4), matrix->get_mpi_communicator(),
                                    dealii::ArrayView<double>(sum, 4));
        const double centroid[3] = {sum[0] / std::max(sum[3], 1.), sum[1] / std::max(sum[3], 1.),
                                    sum[2] / std::max(sum[3], 1.)};
        null_space.assign(6 * n, 0.);
        for (std::size_t k = 0; k < n; ++k)
          {
            const unsigned int c = k % 3;
            const double       x = coordinates[3 * k] - centroid[0], y = coordinates[3 * k + 1] - centroid[1],
                         z = coordinates[3 * k + 2] - centroid[2];
            null_space[c * n + k] = 1.;
            // Rotations about z, x, y: (-y, x, 0), (0, -z, y), (z, 0, -x).
            const double rz[3] = {-y, x, 0.}, rx[3] = {0., -z, y}, ry[3] = {z, 0., -x};
            null_space[3 * n + k] = rz[c];
            null_space[4 * n + k] = rx[c];
            null_space[5 * n + k] = ry[c];
          }
        parameters.set("null space: type", "pre-computed");
        parameters.set("null space: dimension", 6);
        parameters.set("null space: vectors", null_space.data());
        parameters.set("null space: add default vectors", false);
      }
    amg.initialize(*matrix, parameters);
    host_src.reinit(owned, matrix->get_mpi_communicator());
    host_dst.reinit(owned, matrix->get_mpi_communicator());
  }

  void
  AmgPreconditioner::vmult(dealii::TrilinosWrappers::MPI::Vector       &dst,
                           const dealii::TrilinosWrappers::MPI::Vector &src) const
  {
    amg.vmult(dst, src);
  }

  void
  AmgPreconditioner::vmult(DeviceVector &dst, const DeviceVector &src) const
  {
    copy_to_trilinos(src, host_src);
    amg.vmult(host_dst, host_src);
    if (dst.get_partitioner() != src.get_partitioner())
      dst.reinit(src, true);
    copy_from_trilinos(host_dst, dst);
  }

  const dealii::TrilinosWrappers::SparseMatrix &
  AmgPreconditioner::get_matrix() const
  {
    AssertThrow(matrix != nullptr, dealii::ExcMessage("AmgPreconditioner not initialized"));
    return *matrix;
  }

  // ------------------------------------------------------------ Multigrid

  bool
  all_active_cells_on_finest_level(const dealii::Triangulation<3> &tria)
  {
    const unsigned int finest       = tria.n_global_levels() - 1;
    unsigned long long owned_finest = 0;
    for (const auto &cell : tria.active_cell_iterators())
      if (cell->is_locally_owned() && static_cast<unsigned int>(cell->level()) == finest)
        ++owned_finest;
    return dealii::Utilities::MPI::sum(owned_finest, tria.get_communicator()) == tria.n_global_active_cells();
  }

  namespace
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
       * (then @p level_dofs and @p data's cell stiffness factor must outlive
       * this object).
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
            switch_state->data       = data;
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
            assemble_level_matrix(level_dofs, boundary, materials, data);
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
            assemble_level_matrix(*switch_state->level_dofs, switch_state->boundary, switch_state->materials,
                                  switch_state->data);
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
                            const MaterialTable         &materials,
                            const MultigridData         &data)
      {
        // Level-0 stiffness matrix, assembled like the device operator
        // (elastic_cell_matrix: QGauss(2), trilinear mapping, the level
        // operators' formulation), Dirichlet
        // rows/columns zero with a positive diagonal.
        const unsigned int      level        = 0;
        const MPI_Comm          communicator = level_dofs.get_communicator();
        const dealii::IndexSet &owned        = level_dofs.locally_owned_mg_dofs(level);
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
                                      dealii::update_gradients | dealii::update_JxW_values);
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
              elastic_cell_matrix(fe_values, material->second, data.level_operator.element_formulation,
                                  cell_matrix);
              if (data.level_operator.cell_stiffness_factor)
                cell_matrix *= data.level_operator.cell_stiffness_factor(cell);
              add_boundary_spring_matrices(fe_face_values, cell, data.level_operator.boundary_springs, cell_matrix);
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
        MultigridData                data;
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

    /** The parts of the V-cycle that depend on its number type, behind one interface. */
    class VCycle
    {
    public:
      virtual ~VCycle() = default;

      /** dst = V-cycle(src) on the double-precision vectors of the outer solver. */
      virtual void
      vmult(DeviceVector &dst, const DeviceVector &src) const = 0;

      /** (Re)compute the inverse diagonal and eigenvalue estimate of the smoother of level @p l. */
      virtual void
      setup_smoother(unsigned int l) = 0;

      /** The coarse solver in words. */
      virtual std::string
      coarse_description() const = 0;

      /** CoarseSolver::switch_if_repaid() (collective). */
      virtual bool
      switch_coarse_if_repaid() = 0;

      /** The coarse solver in use. */
      virtual CoarseSolverType
      coarse_type() const = 0;

      /** Whether automatic's cg was replaced by the dense inverse. */
      virtual bool
      coarse_switched() const = 0;

      /** Seconds of the set-up of the transfers, the smoothers and the coarse solver. */
      double time_transfer = 0, time_smoothers = 0, time_coarse = 0;
    };

    /**
     * deal.II's Multigrid and PreconditionMG over the given level operators
     * on device vectors of @p Number: transfers, Chebyshev-Jacobi smoothers
     * and the coarse solver.
     */
    template <typename Number>
    class VCycleOf : public VCycle
    {
    public:
      using VectorType = device::Vector<Number>;
      using Jacobi     = JacobiOf<Number>;
      using Chebyshev  = ChebyshevOf<Number>;
      using Smoother   = dealii::MGSmootherRelaxation<MechanicsOperator, ChebyshevSmoother<Number>, VectorType>;

      VCycleOf(const dealii::MGLevelObject<std::shared_ptr<const MechanicsOperator>>        &operators,
               const dealii::DoFHandler<3>                                                  &active_dofs,
               const dealii::DoFHandler<3>                                                  &level_dofs,
               const std::vector<std::shared_ptr<const dealii::Utilities::MPI::Partitioner>> &layouts,
               const std::vector<dealii::IndexSet>                                          &level_boundary,
               const dealii::IndexSet                                                       &fine_boundary,
               const CoarseSolverType                                                        coarse_type,
               const MaterialTable                                                          &materials,
               const MultigridData                                                          &data,
               const std::shared_ptr<backend::DenseInverse>                                 &prepared_dense)
        : operators(operators)
      {
        const unsigned int finest = operators.max_level();
        matrix.initialize(operators);

        dealii::Timer timer;
        transfer.initialize(active_dofs, level_dofs, layouts, level_boundary, fine_boundary);
        time_transfer = timer.wall_time();

        // Chebyshev-Jacobi smoothers as relaxations (deal.II's
        // MGSmootherRelaxation, as in step-37): the post-smoothing is
        // Chebyshev's step() from the current iterate. MGSmootherPrecondition
        // would form the residual, smooth it from zero and add the correction:
        // the same polynomial with three more vector passes per level.
        // ChebyshevSmoother is deal.II's PreconditionChebyshev whose steps
        // fuse the vector update into the lattice kernel where the level
        // operator allows (one kernel per step instead of three). The
        // inverse diagonals are computed in setup_smoother().
        timer.restart();
        smoother_data.resize(0, finest);
        for (unsigned int l = 0; l <= finest; ++l)
          {
            smoother_data[l].degree              = data.smoother_degree;
            smoother_data[l].smoothing_range     = data.smoothing_range;
            smoother_data[l].eig_cg_n_iterations = data.eigenvalue_iterations;
            smoother_data[l].preconditioner      = std::make_shared<Jacobi>();
          }
        smoother.smoothers.resize(0, finest);
        for (unsigned int l = 0; l <= finest; ++l)
          setup_smoother(l);
        time_smoothers = timer.wall_time();

        timer.restart();
        coarse = std::make_unique<CoarseSolver<Number>>(coarse_type, *operators[0], level_dofs, level_boundary[0],
                                                        materials, data, prepared_dense,
                                                        data.coarse_solver == CoarseSolverType::automatic);
        time_coarse = timer.wall_time();

        multigrid      = std::make_unique<dealii::Multigrid<VectorType>>(matrix, *coarse, transfer, smoother,
                                                                    smoother, 0, finest);
        preconditioner = std::make_unique<dealii::PreconditionMG<3, VectorType, MGTransferDevice<Number>>>(
          active_dofs, *multigrid, transfer);
      }

      void
      vmult(DeviceVector &dst, const DeviceVector &src) const override
      {
        // In single precision the residual enters the levels scaled by a
        // power of two to magnitude 1 (max entry in [1/2, 1)), and the result
        // leaves scaled back: float's range (1e-38 to 3e38) then covers any
        // units, where a residual of, say, 1e-41 would otherwise lose every
        // digit (the double-precision V-cycle needs no scaling).
        if constexpr (std::is_same_v<Number, float>)
          {
            const double norm     = src.linfty_norm();
            int          exponent = 0;
            if (norm > 0. && std::isfinite(norm))
              std::frexp(norm, &exponent);
            transfer.set_input_scaling(std::ldexp(1., -std::clamp(exponent, -1022, 1023)));
          }
        preconditioner->vmult(dst, src);
      }

      void
      setup_smoother(const unsigned int l) override
      {
        auto inverse_diagonal = std::make_shared<Jacobi>();
        operators[l]->compute_inverse_diagonal(inverse_diagonal->get_vector());
        smoother_data[l].preconditioner = inverse_diagonal;
        smoother.smoothers[l].initialize(*operators[l], smoother_data[l]);
        if (l == 0)
          return;
        // Estimate the eigenvalues now, so that the set-up cost is paid here
        // and not in the first V-cycle.
        VectorType ones;
        operators[l]->initialize_dof_vector(ones);
        ones = Number(1);
        smoother.smoothers[l].estimate_eigenvalues(ones);
      }

      std::string
      coarse_description() const override
      {
        return coarse->description();
      }

      bool
      switch_coarse_if_repaid() override
      {
        return coarse->switch_if_repaid();
      }

      CoarseSolverType
      coarse_type() const override
      {
        return coarse->solver_type();
      }

      bool
      coarse_switched() const override
      {
        return coarse->switched();
      }

    private:
      const dealii::MGLevelObject<std::shared_ptr<const MechanicsOperator>>               &operators;
      dealii::MGLevelObject<typename Chebyshev::AdditionalData>                            smoother_data;
      MGTransferDevice<Number>                                                             transfer;
      dealii::mg::Matrix<VectorType>                                                       matrix;
      Smoother                                                                             smoother;
      std::unique_ptr<CoarseSolver<Number>>                                                coarse;
      std::unique_ptr<dealii::Multigrid<VectorType>>                                       multigrid;
      std::unique_ptr<dealii::PreconditionMG<3, VectorType, MGTransferDevice<Number>>> preconditioner;
    };
  } // namespace

  namespace
  {
    /**
     * What CoarseSolverType::automatic picks for @p n_level0 level-0 DoFs:
     * cg above MultigridData::direct_solver_limit; below it the dense
     * inverse on a GPU from MultigridData::dense_inverse_minimum DoFs, else
     * direct.
     */
    CoarseSolverType
    automatic_coarse_solver(const dealii::types::global_dof_index n_level0, const MultigridData &data)
    {
      if (n_level0 > data.direct_solver_limit)
        return CoarseSolverType::cg;
      if (backend::device_memory_is_separate() && n_level0 >= data.dense_inverse_minimum &&
          n_level0 <= max_dense_inverse_dofs)
        return CoarseSolverType::dense_inverse;
      return CoarseSolverType::direct;
    }
  } // namespace

  /** The level operators and DoFs, and the V-cycle of the chosen precision around them. */
  struct MultigridPreconditioner::Implementation
  {
    MultigridData                                                   data;
    std::unique_ptr<dealii::DoFHandler<3>>                          own_level_dofs;
    const dealii::DoFHandler<3>                                    *level_dofs  = nullptr;
    const dealii::DoFHandler<3>                                    *active_dofs = nullptr;
    dealii::MGLevelObject<std::shared_ptr<const MechanicsOperator>> operators;
    CoarseSolverType                                                coarse_type = CoarseSolverType::automatic;
    std::unique_ptr<VCycle>                                         cycle;
    /** Seconds of the set-up stages: level DoFs, level operators (the others are the V-cycle's). */
    double time_dofs = 0, time_operators = 0;
  };

  MultigridPreconditioner::MultigridPreconditioner() = default;

  MultigridPreconditioner::~MultigridPreconditioner() = default;

  void
  MultigridPreconditioner::initialize(const MechanicsOperator               &fine_operator,
                                      const dealii::DoFHandler<3>           &dof_handler,
                                      const MaterialTable                   &materials,
                                      const DirichletBoundaries             &dirichlet,
                                      const MultigridData                   &data)
  {
    implementation = std::make_unique<Implementation>();
    Implementation &im = *implementation;
    im.data            = data;
    im.active_dofs     = &dof_handler;

    const auto    &tria         = dof_handler.get_triangulation();
    const auto    *parallel     = dynamic_cast<const dealii::parallel::TriangulationBase<3> *>(&tria);
    if (parallel != nullptr && !parallel->is_multilevel_hierarchy_constructed())
      throw std::invalid_argument(
        "plastix multigrid: the triangulation has no multigrid hierarchy (build the "
        "parallel::distributed::Triangulation with construct_multigrid_hierarchy)");
    const unsigned int n_levels = tria.n_global_levels();
    if (n_levels < 2)
      throw std::invalid_argument("plastix multigrid: the mesh has a single level; it needs at least one "
                                  "global refinement ('Mesh/Global refinements' >= 1)");
    const unsigned int finest = n_levels - 1;
    if (!all_active_cells_on_finest_level(tria))
      throw std::invalid_argument("plastix multigrid: all active cells must lie on the finest level "
                                  "(a uniformly refined mesh)");

    // The dense inverse coarse solver on a GPU: cuSOLVER starts in the
    // background now, while the host builds the level DoFs and operators.
    // Level 0 has the DoFs of the coarse mesh's vertices (every rank holds
    // the whole coarse mesh).
    std::shared_ptr<backend::DenseInverse> prepared_dense;
    if (backend::DenseInverse::can_factorize() && (data.coarse_solver == CoarseSolverType::dense_inverse ||
                                                   data.coarse_solver == CoarseSolverType::automatic))
      {
        std::vector<bool> coarse_vertex(tria.n_vertices(), false);
        for (const auto &cell : tria.cell_iterators_on_level(0))
          for (const unsigned int v : cell->vertex_indices())
            coarse_vertex[cell->vertex_index(v)] = true;
        const auto n_coarse_dofs = static_cast<dealii::types::global_dof_index>(
          std::count(coarse_vertex.begin(), coarse_vertex.end(), true) * dof_handler.get_fe().n_dofs_per_vertex());
        if (data.coarse_solver == CoarseSolverType::dense_inverse ||
            automatic_coarse_solver(n_coarse_dofs, data) == CoarseSolverType::dense_inverse)
          {
            prepared_dense = std::make_shared<backend::DenseInverse>();
            prepared_dense->prepare();
          }
      }

    // Level DoFs: the caller's DoFHandler if it has them, else an own one
    // on the same mesh (its active numbering is not used).
    dealii::Timer timer;
    if (dof_handler.has_level_dofs())
      im.level_dofs = &dof_handler;
    else
      {
        im.own_level_dofs = std::make_unique<dealii::DoFHandler<3>>(tria);
        im.own_level_dofs->distribute_dofs(dof_handler.get_fe());
        im.own_level_dofs->distribute_mg_dofs();
        im.level_dofs = im.own_level_dofs.get();
      }

    // The locally relevant DoFs of each level: all of them on one process,
    // where deal.II's search over the level's cells (which
    // MGConstrainedDoFs::initialize() would otherwise run for every level)
    // took two thirds of this stage on a serial mesh.
    const bool                              one_process = dealii::Utilities::MPI::n_mpi_processes(
                                           dof_handler.get_communicator()) == 1;
    dealii::MGLevelObject<dealii::IndexSet> level_relevant(0, finest);
    for (unsigned int l = 0; l <= finest; ++l)
      if (one_process)
        level_relevant[l] = dealii::complete_index_set(im.level_dofs->n_dofs(l));
      else
        dealii::DoFTools::extract_locally_relevant_level_dofs(*im.level_dofs, l, level_relevant[l]);

    // Zero Dirichlet constraints of every level, and the active boundary DoFs
    // of the finest level.
    dealii::MGConstrainedDoFs mg_constrained;
    mg_constrained.initialize(*im.level_dofs, level_relevant);
    dealii::IndexSet fine_boundary(dof_handler.n_dofs());
    for (const auto &[boundary_id, components] : dirichlet)
      {
        mg_constrained.make_zero_boundary_constraints(*im.level_dofs, {boundary_id}, components);
        fine_boundary.add_indices(dealii::DoFTools::extract_boundary_dofs(dof_handler, components, {boundary_id}));
      }
    std::vector<dealii::IndexSet> level_boundary(n_levels);
    for (unsigned int l = 0; l < finest; ++l)
      // Without Dirichlet boundaries MGConstrainedDoFs holds no boundary index sets at all.
      level_boundary[l] = mg_constrained.have_boundary_indices() ? mg_constrained.get_boundary_indices(l) :
                                                                   dealii::IndexSet(im.level_dofs->n_dofs(l));
    im.time_dofs = timer.wall_time();

    // Level operators: elastic device operators below the finest level, the
    // caller's operator (not owned) on the finest. They keep their data in
    // double precision and apply in the V-cycle's precision.
    timer.restart();
    const dealii::MappingQ<3> mapping(1);
    im.operators.resize(0, finest);
    std::vector<std::shared_ptr<const dealii::Utilities::MPI::Partitioner>> layouts(n_levels);
    for (unsigned int l = 0; l < finest; ++l)
      {
        const dealii::IndexSet           &relevant = level_relevant[l];
        dealii::AffineConstraints<double> constraints(relevant);
        for (const auto i : level_boundary[l])
          if (relevant.is_element(i))
            constraints.add_line(i);
        constraints.close();
        auto level_operator = std::make_shared<MechanicsOperator>();
        level_operator->reinit_level(mapping, *im.level_dofs, constraints, materials, l, data.level_operator);
        im.operators[l] = level_operator;
        layouts[l]      = level_operator->get_partitioner();
      }
    im.operators[finest] = std::shared_ptr<const MechanicsOperator>(&fine_operator, [](const MechanicsOperator *) {});
    layouts[finest]      = fine_operator.get_partitioner();
    im.time_operators    = timer.wall_time();

    im.coarse_type = data.coarse_solver;
    if (im.coarse_type == CoarseSolverType::automatic)
      im.coarse_type = automatic_coarse_solver(im.operators[0]->m(), data);
    if (data.level_precision == LevelPrecision::single_precision)
      im.cycle = std::make_unique<VCycleOf<float>>(im.operators, dof_handler, *im.level_dofs, layouts, level_boundary,
                                                   fine_boundary, im.coarse_type, materials, data, prepared_dense);
    else
      im.cycle = std::make_unique<VCycleOf<double>>(im.operators, dof_handler, *im.level_dofs, layouts,
                                                    level_boundary, fine_boundary, im.coarse_type, materials, data,
                                                    prepared_dense);
  }

  void
  MultigridPreconditioner::update_fine_level()
  {
    AssertThrow(implementation, dealii::ExcMessage("MultigridPreconditioner not initialized"));
    implementation->cycle->switch_coarse_if_repaid();
    implementation->cycle->setup_smoother(implementation->operators.max_level());
  }

  void
  MultigridPreconditioner::vmult(DeviceVector &dst, const DeviceVector &src) const
  {
    AssertThrow(implementation, dealii::ExcMessage("MultigridPreconditioner not initialized"));
    implementation->cycle->vmult(dst, src);
  }

  unsigned int
  MultigridPreconditioner::n_levels() const
  {
    return implementation ? implementation->operators.n_levels() : 0;
  }

  std::vector<dealii::types::global_dof_index>
  MultigridPreconditioner::n_dofs_per_level() const
  {
    std::vector<dealii::types::global_dof_index> n;
    if (implementation)
      for (unsigned int l = 0; l <= implementation->operators.max_level(); ++l)
        n.push_back(implementation->operators[l]->m());
    return n;
  }

  CoarseSolverType
  MultigridPreconditioner::coarse_solver() const
  {
    AssertThrow(implementation, dealii::ExcMessage("MultigridPreconditioner not initialized"));
    return implementation->cycle->coarse_type();
  }

  bool
  MultigridPreconditioner::coarse_solver_switched() const
  {
    AssertThrow(implementation, dealii::ExcMessage("MultigridPreconditioner not initialized"));
    return implementation->cycle->coarse_switched();
  }

  LevelPrecision
  MultigridPreconditioner::level_precision() const
  {
    AssertThrow(implementation, dealii::ExcMessage("MultigridPreconditioner not initialized"));
    return implementation->data.level_precision;
  }

  std::string
  MultigridPreconditioner::description() const
  {
    if (!implementation)
      return "multigrid (not initialized)";
    const Implementation &im = *implementation;
    std::ostringstream    text;
    text << n_levels() << " levels (DoFs";
    for (const auto n : n_dofs_per_level())
      text << ' ' << n;
    text << "), " << to_string(im.data.level_precision) << " precision, Chebyshev(" << im.data.smoother_degree
         << ") smoother, coarse " << im.cycle->coarse_description();
    if (im.data.coarse_solver == CoarseSolverType::automatic)
      {
        const auto n0 = im.operators[0]->m();
        text << " (auto: level 0 has " << n0;
        if (im.coarse_type == CoarseSolverType::cg)
          {
            text << " > " << im.data.direct_solver_limit << " DoFs";
            if (n0 <= max_dense_inverse_dofs)
              text << std::setprecision(3) << "; the dense inverse once the cg solves have taken its estimated set-up, "
                   << dense_inverse_setup_estimate(n0) << " s";
            text << ")";
          }
        else if (!backend::device_memory_is_separate())
          text << " <= " << im.data.direct_solver_limit << " DoFs, host)";
        else if (im.coarse_type == CoarseSolverType::dense_inverse)
          text << " DoFs, in [" << im.data.dense_inverse_minimum << ", " << im.data.direct_solver_limit << "], GPU)";
        else if (n0 < im.data.dense_inverse_minimum)
          text << " < " << im.data.dense_inverse_minimum << " DoFs, GPU)";
        else
          text << " DoFs, more than the dense inverse takes (" << max_dense_inverse_dofs << "), GPU)";
      }
    text << std::setprecision(3) << "; set-up [s]: level DoFs " << im.time_dofs << ", operators " << im.time_operators
         << ", transfers " << im.cycle->time_transfer << ", smoothers " << im.cycle->time_smoothers << ", coarse "
         << im.cycle->time_coarse;
    return text.str();
  }
} // namespace plastix

// deal.II's V-cycle on device vectors.
template class dealii::Multigrid<plastix::device::Vector<double>>;
template class dealii::Multigrid<plastix::device::Vector<float>>;
