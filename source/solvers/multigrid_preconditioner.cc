// Geometric multigrid on device-resident level operators: the V-cycle in
// single or double precision around deal.II's Multigrid.
#include <deal.II/base/index_set.h>
#include <deal.II/base/mg_level_object.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/timer.h>
#include <deal.II/base/utilities.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_matrix.h>
#include <deal.II/multigrid/mg_smoother.h>
#include <deal.II/multigrid/multigrid.h>
#include <deal.II/multigrid/multigrid.templates.h>

#include <plastix/backend/dense_inverse.h>
#include <plastix/backend/device.h>
#include <plastix/backend/vector_operations.h>
#include <plastix/solvers/chebyshev_smoother.h>
#include <plastix/solvers/mg_transfer.h>
#include <plastix/solvers/preconditioners.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "coarse_grid_solver.h"
#include "preconditioner_tools.h"

namespace plastix
{
  using internal::ChebyshevOf;
  using internal::CoarseSolver;
  using internal::dense_inverse_setup_estimate;
  using internal::JacobiOf;
  using internal::max_dense_inverse_dofs;

  namespace
  {
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

      VCycleOf(const dealii::MGLevelObject<std::shared_ptr<const MechanicsOperator>>         &operators,
               const dealii::DoFHandler<3>                                                   &active_dofs,
               const dealii::DoFHandler<3>                                                   &level_dofs,
               const std::vector<std::shared_ptr<const dealii::Utilities::MPI::Partitioner>> &layouts,
               const std::vector<dealii::IndexSet>                                           &level_boundary,
               const dealii::IndexSet                                                        &fine_boundary,
               const CoarseSolverType                                                         coarse_type,
               const MaterialTable                                                           &materials,
               const MultigridData                                                           &data,
               const std::shared_ptr<backend::DenseInverse>                                  &prepared_dense)
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

    /**
     * The number of global levels of @p tria; std::invalid_argument if
     * multigrid cannot run on it (no level hierarchy on a distributed mesh,
     * a single level, active cells below the finest level).
     */
    unsigned int
    checked_number_of_levels(const dealii::Triangulation<3> &tria)
    {
      const auto *parallel = dynamic_cast<const dealii::parallel::TriangulationBase<3> *>(&tria);
      if (parallel != nullptr && !parallel->is_multilevel_hierarchy_constructed())
        throw std::invalid_argument(
          "plastix multigrid: the triangulation has no multigrid hierarchy (build the "
          "parallel::distributed::Triangulation with construct_multigrid_hierarchy)");
      const unsigned int n_levels = tria.n_global_levels();
      if (n_levels < 2)
        throw std::invalid_argument("plastix multigrid: the mesh has a single level; it needs at least one "
                                    "global refinement ('Mesh/Global refinements' >= 1)");
      if (!all_active_cells_on_finest_level(tria))
        throw std::invalid_argument("plastix multigrid: all active cells must lie on the finest level "
                                    "(a uniformly refined mesh)");
      return n_levels;
    }

    /**
     * The dense inverse coarse solver, its cuSOLVER start begun in the
     * background (while the host builds the level DoFs and operators), if
     * @p data chooses it for the level 0 of @p dof_handler on this device;
     * null otherwise. Level 0 has the DoFs of the coarse mesh's vertices
     * (every rank holds the whole coarse mesh).
     */
    std::shared_ptr<backend::DenseInverse>
    start_dense_coarse_inverse(const dealii::DoFHandler<3> &dof_handler, const MultigridData &data)
    {
      if (!backend::DenseInverse::can_factorize() || (data.coarse_solver != CoarseSolverType::dense_inverse &&
                                                      data.coarse_solver != CoarseSolverType::automatic))
        return nullptr;
      const auto       &tria = dof_handler.get_triangulation();
      std::vector<bool> coarse_vertex(tria.n_vertices(), false);
      for (const auto &cell : tria.cell_iterators_on_level(0))
        for (const unsigned int v : cell->vertex_indices())
          coarse_vertex[cell->vertex_index(v)] = true;
      const auto n_coarse_dofs = static_cast<dealii::types::global_dof_index>(
        std::count(coarse_vertex.begin(), coarse_vertex.end(), true) * dof_handler.get_fe().n_dofs_per_vertex());
      if (data.coarse_solver != CoarseSolverType::dense_inverse &&
          automatic_coarse_solver(n_coarse_dofs, data) != CoarseSolverType::dense_inverse)
        return nullptr;
      auto prepared = std::make_shared<backend::DenseInverse>();
      prepared->prepare();
      return prepared;
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
  MultigridPreconditioner::initialize(const MechanicsOperator     &fine_operator,
                                      const dealii::DoFHandler<3> &dof_handler,
                                      const MaterialTable         &materials,
                                      const DirichletBoundaries   &dirichlet,
                                      const MultigridData         &data)
  {
    implementation = std::make_unique<Implementation>();
    Implementation &im = *implementation;
    im.data            = data;
    im.active_dofs     = &dof_handler;

    const auto        &tria     = dof_handler.get_triangulation();
    const unsigned int n_levels = checked_number_of_levels(tria);
    const unsigned int finest   = n_levels - 1;
    const std::shared_ptr<backend::DenseInverse> prepared_dense = start_dense_coarse_inverse(dof_handler, data);

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
        level_operator->reinit_level(mapping, *im.level_dofs, constraints, materials, l,
                                     fine_operator.get_additional_data());
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
    // An unresolved auto runs in double (MultigridData::level_precision).
    return implementation->data.level_precision == LevelPrecision::single_precision ? LevelPrecision::single_precision :
                                                                                      LevelPrecision::double_precision;
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
    text << "), " << to_string(level_precision()) << " precision, Chebyshev(" << im.data.smoother_degree
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
} // namespace plastix

// deal.II's V-cycle on device vectors.
template class dealii::Multigrid<plastix::device::Vector<double>>;
template class dealii::Multigrid<plastix::device::Vector<float>>;
