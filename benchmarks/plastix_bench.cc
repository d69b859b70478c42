// plastix-bench: throughput of the plastix matrix-free Q1 elasticity operator
// next to deal.II's own ways to apply the same operator (MatrixFree/FEEvaluation,
// with deal.II 9.7 or later Portable::MatrixFree, assembled Trilinos and deal.II
// sparse matrices) and a STREAM triad, all
// timed in the same run, interleaved round by round.
//
//   plastix-bench [--sizes 32,64] [--distortion 0.2] [--repeats 30] ...
//   (plastix-bench --help lists all options)
//
// Mesh: unit cube, n^3 cells (p::d::Triangulation, subdivided_hyper_cube of
// n / 2^k cells refined k times), optionally distorted randomly (interior
// vertices only); FESystem(FE_Q(1), 3); homogeneous Dirichlet on x = 0;
// E = 200e9, nu = 0.3.
//
// plastix runs every requested strategy x cell kernel (x EbE thread mapping,
// --mappings) as plastix::MechanicsOperator::vmult on DeviceVectors.
//
// Timing: every operator is called --warmup times, then --repeats samples are
// taken in rounds of --batch calls, the operators interleaved round by round.
// Each call is bracketed by MPI_Barrier (and plastix::backend::fence() for
// plastix); a sample is the maximum over the ranks; the table shows the
// median and the minimum of the samples.
//
// Effective traffic models (bytes per application, summed over ranks):
//   plastix      backend::DeviceOperator::bytes_per_apply() (operator data
//                read once, src read, dst written; EbE: dst zeroed, then read
//                and written by the accumulation)
// With --multigrid the plastix geometric multigrid preconditioner (deal.II's
// Multigrid with the plastix level operators, Chebyshev smoothers (degree 3),
// matrix-free transfers, coarse solver auto) is built on the p4est levels
// of the mesh around the first plastix operator and one V-cycle is timed
// like an operator, in double and in single precision (the mixed-precision
// V-cycle); the notes give each V-cycle's time in applications of that
// fine-level operator, measured in the same rounds.
//
//   MatrixFree   MatrixFree::memory_consumption() + 24 B per local vector
//                entry (src read, dst read and written; the zeroing of dst is
//                fused into the cell loop)
//   Portable     24 B per local vector entry (the vectors only: a lower
//                bound; Portable::MatrixFree reports no memory consumption)
//   sparse       12 B per nonzero (value + column index) + 24 B per row
//                (row pointer/src/dst, the usual CSR estimate)
//   triad        24 B per entry (STREAM convention, no write-allocate)
//
// Verification: all plastix results agree with MatrixFree (all rows) and the
// assembled matrices and Portable::MatrixFree with MatrixFree (unconstrained
// rows) to 1e-12 relative
// (l2), else the exit status is 2.

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/function.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/revision.h>
#include <deal.II/base/utilities.h>
#include <deal.II/base/vectorization.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/backend/device.h>
#include <plastix/backend/device_array.h>
#include <plastix/backend/vector_operations.h>
#include <plastix/core/device_vector.h>
#include <plastix/core/elastic_matrix.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/runtime.h>
#include <plastix/solvers/preconditioners.h>

#include "bench_tools.h"
#include "portable_reference_operator.h"
#include "reference_operators.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace dealii;

namespace
{
  using Clock      = std::chrono::steady_clock;
  using HostVector = LinearAlgebra::distributed::Vector<double>;

  struct Options
  {
    std::vector<unsigned int> sizes      = {32};
    double                    distortion = 0.;
    /** Refine the cells with x < this once more (hanging nodes on that plane); 0: none. */
    double                    local_refinement = 0.;
    unsigned int              seed       = 42;
    unsigned int              repeats    = 30;
    unsigned int              batch      = 5;
    unsigned int              warmup     = 3;
    std::vector<std::string>  strategies = {"ebe atomic", "ebe colored", "dbd", "ebe tiled"};
    std::vector<std::string>  kernels    = {"stored geometry", "geometry on the fly", "element matrix"};
    std::vector<std::string>  mappings   = {"auto"};
    bool                      assembled  = true;
    bool                      multigrid  = false;
    /** The V-cycle's coarse solver and smoother degree (--multigrid). */
    std::string               coarse_solver   = "auto";
    unsigned int              smoother_degree = plastix::MultigridData().smoother_degree;
    /** How the ranks exchange ghost values (plastix::Runtime). */
    plastix::GhostExchange    ghost_exchange = plastix::GhostExchange::automatic;
    std::size_t               big_triad  = std::size_t(1) << 25;
    std::string               output;
    std::string               label;
  };

  const char *usage_text =
    "usage: plastix-bench [options]\n"
    "  --sizes n1,n2,...     cells per direction of the unit cube (n^3 cells, 3(n+1)^3 DoFs); default 32\n"
    "  --distortion d        GridTools::distort_random(d), boundary kept; default 0 (uniform)\n"
    "  --seed s              random seed of the distortion; default 42\n"
    "  --local-refinement f  refine the cells with x < f once more after the distortion: hanging nodes\n"
    "                        (deal.II's hanging-node constraints) on that plane; default 0 (none)\n"
    "  --repeats r           timed samples per operator; default 30\n"
    "  --batch b             calls per operator per round (interleaving granularity); default 5\n"
    "  --warmup w            untimed calls per operator first; default 3\n"
    "  --strategies a,b      plastix strategies: 'ebe atomic,ebe colored,dbd,ebe tiled,assembled,dbd structured'\n"
    "                        (default the first four; _ may replace blanks)\n"
    "  --kernels a,b         plastix cell kernels: 'stored geometry,geometry on the fly,element matrix' (or 'all')\n"
    "  --mappings a,b        thread mappings of the EbE strategies: 'auto,cell,node,shuffle' (or 'all'); default\n"
    "                        auto (the backend's measured choice, ThreadMapping::automatic; DbD has none and runs once)\n"
    "  --no-assembled        skip the assembled sparse matrices (they dominate memory and set-up time)\n"
    "  --multigrid           also time one V-cycle of the plastix multigrid (double and single precision)\n"
    "                        around the first plastix operator, in applications of that operator\n"
    "  --coarse-solver name  the V-cycle's coarse solver: 'auto,direct,dense inverse,amg,cg,chebyshev'; default auto\n"
    "  --smoother-degree d   the V-cycle's Chebyshev degree; default that of MultigridData\n"
    "  --ghost-exchange e    how ranks exchange ghost values: 'auto,mpi,shared memory'; default auto\n"
    "  --big-triad N         entries of the second (DRAM-sized) triad, at least the DoFs; default 33554432\n"
    "  --label text          a label for the run, printed in the header\n"
    "  --output file.md      append the header and the table to this file (rank 0)\n"
    "  --help                this text\n";

  /** The comma-separated items of @p s (blank ones dropped), '_' read as a blank. */
  std::vector<std::string>
  split_list(std::string s)
  {
    std::replace(s.begin(), s.end(), '_', ' ');
    std::vector<std::string> parts;
    for (const auto &item : dealii::Utilities::split_string_list(s, ','))
      if (!item.empty())
        parts.push_back(item);
    return parts;
  }


  /** Parse argv; returns false (after printing why) on a bad or missing value. */
  bool
  parse_options(int argc, char **argv, Options &o, bool &help)
  {
    help = false;
    for (int i = 1; i < argc; ++i)
      {
        const std::string arg  = argv[i];
        const bool        more = i + 1 < argc;
        auto              next = [&]() -> std::string { return argv[++i]; };
        try
          {
            if (arg == "--help" || arg == "-h")
              help = true;
            else if (arg == "--sizes" && more)
              {
                o.sizes.clear();
                for (const auto &s : split_list(next()))
                  {
                    const int n = std::stoi(s);
                    if (n < 2)
                      throw std::invalid_argument("sizes must be >= 2");
                    o.sizes.push_back(n);
                  }
              }
            else if (arg == "--distortion" && more)
              o.distortion = std::stod(next());
            else if (arg == "--local-refinement" && more)
              {
                o.local_refinement = std::stod(next());
                if (!(o.local_refinement >= 0 && o.local_refinement <= 1))
                  throw std::invalid_argument("--local-refinement needs a fraction in [0, 1]");
              }
            else if (arg == "--seed" && more)
              o.seed = std::stoul(next());
            else if (arg == "--repeats" && more)
              o.repeats = std::max(1ul, std::stoul(next()));
            else if (arg == "--batch" && more)
              o.batch = std::max(1ul, std::stoul(next()));
            else if (arg == "--warmup" && more)
              o.warmup = std::stoul(next());
            else if (arg == "--strategies" && more)
              {
                const std::string v = next();
                if (v != "all")
                  o.strategies = split_list(v);
              }
            else if (arg == "--kernels" && more)
              {
                const std::string v = next();
                if (v != "all")
                  o.kernels = split_list(v);
              }
            else if (arg == "--mappings" && more)
              {
                const std::string v = next();
                o.mappings = v == "all" ? std::vector<std::string>{"auto", "cell", "node", "shuffle"} : split_list(v);
              }
            else if (arg == "--no-assembled")
              o.assembled = false;
            else if (arg == "--multigrid")
              o.multigrid = true;
            else if (arg == "--coarse-solver" && more)
              {
                o.coarse_solver = next();
                std::replace(o.coarse_solver.begin(), o.coarse_solver.end(), '_', ' ');
              }
            else if (arg == "--smoother-degree" && more)
              o.smoother_degree = std::max(1ul, std::stoul(next()));
            else if (arg == "--ghost-exchange" && more)
              {
                std::string v = next();
                std::replace(v.begin(), v.end(), '_', ' ');
                o.ghost_exchange = plastix::parse_enum<plastix::GhostExchange>(v);
              }
            else if (arg == "--big-triad" && more)
              o.big_triad = std::stoull(next());
            else if (arg == "--label" && more)
              o.label = next();
            else if (arg == "--output" && more)
              o.output = next();
            else
              {
                std::cerr << "plastix-bench: unknown option or missing value: " << arg << "\n" << usage_text;
                return false;
              }
          }
        catch (const std::exception &e)
          {
            std::cerr << "plastix-bench: bad value for " << arg << ": " << e.what() << "\n";
            return false;
          }
      }
    // Validate the names now, before any set-up.
    try
      {
        for (const auto &s : o.strategies)
          plastix::backend::parse_strategy(s);
        for (const auto &k : o.kernels)
          plastix::backend::parse_cell_kernel(k);
        for (const auto &m : o.mappings)
          plastix::backend::parse_thread_mapping(m);
        if (o.mappings.empty())
          throw std::invalid_argument("--mappings needs at least one mapping");
        plastix::parse_enum<plastix::CoarseSolverType>(o.coarse_solver);
        if (o.multigrid && o.local_refinement > 0)
          throw std::invalid_argument("--multigrid needs a uniformly refined mesh: drop --local-refinement");
      }
    catch (const std::exception &e)
      {
        std::cerr << "plastix-bench: " << e.what() << "\n";
        return false;
      }
    return true;
  }

  std::string
  cpu_model()
  {
    std::ifstream in("/proc/cpuinfo");
    std::string   line;
    while (std::getline(in, line))
      if (line.rfind("model name", 0) == 0)
        {
          const auto colon = line.find(':');
          return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    return "unknown CPU";
  }

  /** Peak resident set size of this process (VmHWM), bytes. */
  std::size_t
  peak_rss()
  {
    std::ifstream in("/proc/self/status");
    std::string   line;
    while (std::getline(in, line))
      if (line.rfind("VmHWM:", 0) == 0)
        return std::stoull(line.substr(6)) * 1024;
    return 0;
  }

  /** The first three fields of /proc/loadavg (1, 5, 15 min load of the machine). */
  std::string
  load_average()
  {
    std::ifstream in("/proc/loadavg");
    std::string   a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
  }

  double
  max_over_ranks(const double x, const MPI_Comm comm)
  {
    return Utilities::MPI::max(x, comm);
  }

  /** Wall time of @p f, maximum over ranks, with a barrier before. */
  template <typename F>
  double
  timed_setup(const MPI_Comm comm, const F &f)
  {
    MPI_Barrier(comm);
    const auto start = Clock::now();
    f();
    const double t = plastix::bench::seconds_since(start);
    return max_over_ranks(t, comm);
  }

  /** One row of the table: a timed operation and what is known about it. */
  struct Candidate
  {
    std::string           name;
    std::function<void()> call;
    bool                  plastix    = false; // fence after the call; % of the device triad
    bool                  triad      = false;
    std::size_t           entries    = 0;  // triad: global entries
    double                bytes      = 0;  // effective bytes per call, all ranks
    double                memory     = -1; // operator memory, all ranks (bytes); < 0: n/a
    double                setup_s    = -1;
    double                rel_diff   = -1; // vs MatrixFree; < 0: n/a
    std::vector<double>   samples;
    /** plastix: the part of each sample until the call returned to the host, before the fence. */
    std::vector<double>   host_samples;
    double                host_median = -1;
    double                median = 0, minimum = 0;
  };

  std::string
  format(const char *fmt, const double x)
  {
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), fmt, x);
    return buffer;
  }

  /** Relative l2 difference of @p a and @p b over the owned rows (optionally unconstrained only). */
  double
  relative_difference(const HostVector                &a,
                      const HostVector                &b,
                      const AffineConstraints<double> &constraints,
                      const bool                       free_rows_only,
                      const MPI_Comm                   comm)
  {
    double diff = 0, norm = 0;
    for (const auto i : b.locally_owned_elements())
      {
        if (free_rows_only && constraints.is_constrained(i))
          continue;
        diff += (a(i) - b(i)) * (a(i) - b(i));
        norm += b(i) * b(i);
      }
    return std::sqrt(Utilities::MPI::sum(diff, comm) / Utilities::MPI::sum(norm, comm));
  }

  /** Benchmark one mesh size; appends the table rows to @p table, returns the number of failed checks. */
  int
  run_size(const Options &o, const unsigned int n, std::ostream &table, std::ostream &notes, ConditionalOStream &pout)
  {
    const MPI_Comm     comm    = MPI_COMM_WORLD;
    const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(comm);
    int                failures = 0;

    const std::string load_before = load_average();

    // Mesh: n = n0 2^k; p4est handles few coarse cells refined k times best.
    unsigned int n0 = n, k = 0;
    while (n0 % 2 == 0 && n0 > 2)
      {
        n0 /= 2;
        ++k;
      }
    parallel::distributed::Triangulation<3> tria(
      comm,
      o.multigrid ? Triangulation<3>::limit_level_difference_at_vertices : Triangulation<3>::none,
      o.multigrid ? parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy :
                    parallel::distributed::Triangulation<3>::default_setting);
    FESystem<3>                             fe(FE_Q<3>(1), 3);
    DoFHandler<3>                           dof_handler(tria);
    AffineConstraints<double>               constraints;
    const double mesh_s = timed_setup(comm, [&] {
      GridGenerator::subdivided_hyper_cube(tria, n0, 0., 1., true);
      // colorize also numbers the cells' material ids by octant: one material here.
      for (const auto &cell : tria.cell_iterators())
        cell->set_material_id(0);
      tria.refine_global(k);
      if (o.distortion > 0)
        GridTools::distort_random(o.distortion, tria, true, o.seed);
      if (o.local_refinement > 0)
        {
          for (const auto &cell : tria.active_cell_iterators())
            if (cell->is_locally_owned() && cell->center()[0] < o.local_refinement)
              cell->set_refine_flag();
          tria.execute_coarsening_and_refinement();
        }
      dof_handler.distribute_dofs(fe);
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
      constraints.reinit(relevant);
      DoFTools::make_hanging_node_constraints(dof_handler, constraints);
      VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
      constraints.close();
    });
    const types::global_dof_index n_dofs = dof_handler.n_dofs();
    const double                  dofs   = static_cast<double>(n_dofs);
    pout << "# size " << n << "^3: " << tria.n_global_active_cells() << " cells, " << n_dofs
         << " DoFs, mesh+DoFs+constraints " << mesh_s << " s" << std::endl;

    const plastix::MaterialTable materials = {{0, plastix::make_material(200e9, 0.3)}};

    // deal.II MatrixFree: the reference result.
    plastix::reference::MatrixFreeElasticity mf;
    const double mf_setup = timed_setup(comm, [&] { mf.reinit(dof_handler, constraints, materials); });
    HostVector   src_host, dst_mf, result;
    mf.initialize_dof_vector(src_host);
    mf.initialize_dof_vector(dst_mf);
    mf.initialize_dof_vector(result);
    for (const auto i : src_host.locally_owned_elements())
      src_host(i) = constraints.is_constrained(i) ? 0. : std::sin(1.7 * i + 0.3) + 0.25 * std::cos(0.11 * i);
    mf.vmult(dst_mf, src_host);

    std::vector<Candidate> candidates;
    {
      Candidate c;
      c.name    = "deal.II MatrixFree";
      c.call    = [&] { mf.vmult(dst_mf, src_host); };
      const std::size_t local_entries = src_host.locally_owned_size() + src_host.get_partitioner()->n_ghost_indices();
      c.bytes   = Utilities::MPI::sum(static_cast<double>(mf.memory_consumption() + 24 * local_entries), comm);
      c.memory  = Utilities::MPI::sum(static_cast<double>(mf.memory_consumption()), comm);
      c.setup_s = mf_setup;
      candidates.push_back(std::move(c));
    }

#if DEAL_II_VERSION_GTE(9, 7, 0)
    // deal.II's portable matrix-free operator (where deal.II's Kokkos runs:
    // the GPU for a deal.II with a CUDA Kokkos, else the host), one material.
    plastix::reference::PortableElasticity                 portable;
    plastix::reference::PortableElasticity::VectorType     portable_src, portable_dst;
    {
      Candidate c;
      c.name    = "deal.II Portable::MatrixFree";
      c.setup_s = timed_setup(comm, [&] { portable.reinit(dof_handler, constraints, materials.at(0)); });
      portable.initialize_dof_vector(portable_src);
      portable.initialize_dof_vector(portable_dst);
      // The source with zeros on the constrained DoFs, as every CG vector of
      // the homogeneous problem has: timed is vmult_homogeneous(), what a
      // deal.II user's solver calls (vmult() would copy the source first).
      HostVector staging(portable_src.get_partitioner());
      for (const auto i : src_host.locally_owned_elements())
        staging(i) = constraints.is_constrained(i) ? 0. : src_host(i);
      portable_src.import_elements(staging, VectorOperation::insert);
      portable.vmult_homogeneous(portable_dst, portable_src);
      staging.import_elements(portable_dst, VectorOperation::insert);
      c.rel_diff = relative_difference(staging, dst_mf, constraints, true, comm);
      if (!(c.rel_diff <= 1e-12))
        {
          pout << "FAIL " << c.name << " differs from MatrixFree by " << c.rel_diff << std::endl;
          ++failures;
        }
      // A device-wide fence: deal.II's kernels may run asynchronously on the GPU.
      c.call = [&] {
        portable.vmult_homogeneous(portable_dst, portable_src);
        plastix::backend::fence();
      };
      // The vectors only (read src, read and write dst): a lower bound.
      const std::size_t local_entries =
        portable_src.locally_owned_size() + portable_src.get_partitioner()->n_ghost_indices();
      c.bytes = Utilities::MPI::sum(24. * static_cast<double>(local_entries), comm);
      candidates.push_back(std::move(c));
    }
#endif

    // plastix operators, each with its own vectors (vmult reinits a vector of another layout).
    struct PlastixRun
    {
      plastix::MechanicsOperator op;
      plastix::DeviceVector      src, dst;
    };
    std::vector<std::unique_ptr<PlastixRun>> plastix_runs;
    // With --local-refinement, each operator also without the hanging-node
    // lines (the Dirichlet ones only) on the same cells and DoFs: the cost
    // of the constraints, measured in the same run. That operator is not
    // C^T A C, so it is not verified.
    AffineConstraints<double> dirichlet_only;
    if (o.local_refinement > 0)
      {
        IndexSet relevant_dofs;
        DoFTools::extract_locally_relevant_dofs(dof_handler, relevant_dofs);
        dirichlet_only.reinit(relevant_dofs);
        VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(3), dirichlet_only);
        dirichlet_only.close();
      }
    for (const bool with_hanging_nodes : {true, false})
    for (const auto &strategy : o.strategies)
      for (const auto &kernel : o.kernels)
        for (const auto &mapping : o.mappings)
        {
          const auto parsed_strategy = plastix::backend::parse_strategy(strategy);
          // DbD and the assembled matrix have no thread mapping and ebe tiled one thread per cell: run them once.
          const bool one_mapping = parsed_strategy == plastix::backend::Strategy::dbd ||
                                   parsed_strategy == plastix::backend::Strategy::ebe_tiled ||
                                   parsed_strategy == plastix::backend::Strategy::assembled ||
                                   parsed_strategy == plastix::backend::Strategy::dbd_structured;
          if ((one_mapping && mapping != o.mappings.front()) || (!with_hanging_nodes && o.local_refinement == 0))
            continue;
          auto run = std::make_unique<PlastixRun>();
          const plastix::MechanicsOperator::AdditionalData data(parsed_strategy,
                                                                 plastix::backend::parse_cell_kernel(kernel),
                                                                 one_mapping ? plastix::backend::ThreadMapping::automatic :
                                                                               plastix::backend::parse_thread_mapping(mapping));
          Candidate c;
          try
            {
              c.setup_s = timed_setup(comm, [&] {
                run->op.reinit(dof_handler, with_hanging_nodes ? constraints : dirichlet_only, materials, data);
                plastix::backend::fence();
              });
            }
          catch (const std::invalid_argument &error)
            {
              // dbd structured on a distorted or locally refined mesh.
              if (Utilities::MPI::this_mpi_process(comm) == 0)
                std::cout << "# plastix " << strategy << ", " << kernel << ": not applicable: " << error.what() << "\n";
              continue;
            }
          run->op.initialize_dof_vector(run->src);
          run->op.initialize_dof_vector(run->dst);
          run->src.copy_from_host(src_host);
          run->op.vmult(run->dst, run->src);
          if (with_hanging_nodes)
            {
              HostVector result_here(run->op.get_partitioner());
              run->dst.copy_to_host(result_here);
              c.rel_diff = relative_difference(result_here, dst_mf, constraints, false, comm);
              if (!(c.rel_diff <= 1e-12))
                ++failures;
            }
          c.name = "plastix " + strategy + ", " + kernel + (with_hanging_nodes ? "" : ", without hanging-node lines");
          if (!one_mapping && o.mappings.size() > 1)
            c.name += ", " + plastix::backend::to_string(run->op.backend_operator().settings().thread_mapping) +
                      (mapping == "auto" ? " (auto)" : "");
          c.plastix = true;
          c.bytes   = Utilities::MPI::sum(static_cast<double>(run->op.backend_operator().bytes_per_apply()), comm);
          c.memory  = Utilities::MPI::sum(static_cast<double>(run->op.memory_consumption()), comm);
          PlastixRun *r = run.get();
          c.call        = [r] { r->op.vmult(r->dst, r->src); };
          notes << "- " << n << "^3, " << c.name << ": " << run->op.description() << " (rank 0)\n";
          candidates.push_back(std::move(c));
          plastix_runs.push_back(std::move(run));
        }

    // One V-cycle of the multigrid around the first plastix operator, in
    // each level precision.
    std::vector<std::unique_ptr<plastix::MultigridPreconditioner>> multigrids;
    std::vector<std::size_t>                                       multigrid_index;
    const std::size_t first_plastix = 1;
    if (o.multigrid && !plastix_runs.empty())
      for (const auto precision : {plastix::LevelPrecision::double_precision, plastix::LevelPrecision::single_precision})
        {
          plastix::MultigridData data;
          data.level_precision = precision;
          data.coarse_solver   = plastix::parse_enum<plastix::CoarseSolverType>(o.coarse_solver);
          data.smoother_degree = o.smoother_degree;
          const plastix::DirichletBoundaries clamp{{0, dealii::ComponentMask(3, true)}};
          auto      mg      = std::make_unique<plastix::MultigridPreconditioner>();
          Candidate c;
          c.setup_s = timed_setup(comm, [&] {
            mg->initialize(plastix_runs[0]->op, dof_handler, materials, clamp, data);
            plastix::backend::fence();
          });
          c.name    = "plastix multigrid V-cycle, " + plastix::to_string(precision) + " precision";
          c.plastix = true;
          plastix::MultigridPreconditioner *m = mg.get();
          PlastixRun                       *r = plastix_runs[0].get();
          c.call                              = [m, r] { m->vmult(r->dst, r->src); };
          notes << "- " << n << "^3, " << c.name << ": " << mg->description() << "\n";
          multigrid_index.push_back(candidates.size());
          candidates.push_back(std::move(c));
          multigrids.push_back(std::move(mg));
        }

    // Assembled matrices (deal.II's step-8 assembly with the constraints).
    TrilinosWrappers::SparseMatrix trilinos_matrix;
    SparsityPattern                sparsity;
    SparseMatrix<double>           sparse_matrix;
    Vector<double>                 src_serial, dst_serial;
    HostVector                     dst_trilinos;
    if (o.assembled)
      {
        Candidate c;
        c.setup_s = timed_setup(comm, [&] {
          plastix::assemble_elastic_matrix(dof_handler, constraints, materials, trilinos_matrix);
        });
        mf.initialize_dof_vector(dst_trilinos);
        trilinos_matrix.vmult(dst_trilinos, src_host);
        c.rel_diff = relative_difference(dst_trilinos, dst_mf, constraints, true, comm);
        if (!(c.rel_diff <= 1e-12))
          ++failures;
        const double nnz = trilinos_matrix.n_nonzero_elements();
        c.name           = "Trilinos (Epetra) SpMV";
        c.call           = [&] { trilinos_matrix.vmult(dst_trilinos, src_host); };
        c.bytes          = 12. * nnz + 24. * dofs;
        c.memory         = Utilities::MPI::sum(static_cast<double>(trilinos_matrix.memory_consumption()), comm);
        notes << "- " << n << "^3, assembled matrix: " << nnz << " nonzeros (" << format("%.1f", nnz / dofs)
              << " per row)\n";
        candidates.push_back(std::move(c));

        if (n_ranks == 1)
          {
            Candidate s;
            s.setup_s = timed_setup(comm, [&] {
              plastix::assemble_elastic_matrix(dof_handler, constraints, materials, sparsity, sparse_matrix);
            });
            src_serial.reinit(n_dofs);
            dst_serial.reinit(n_dofs);
            for (types::global_dof_index i = 0; i < n_dofs; ++i)
              src_serial(i) = src_host(i);
            sparse_matrix.vmult(dst_serial, src_serial);
            for (types::global_dof_index i = 0; i < n_dofs; ++i)
              result(i) = dst_serial(i);
            s.rel_diff = relative_difference(result, dst_mf, constraints, true, comm);
            if (!(s.rel_diff <= 1e-12))
              ++failures;
            s.name   = "deal.II SparseMatrix SpMV";
            s.call   = [&] { sparse_matrix.vmult(dst_serial, src_serial); };
            s.bytes  = 12. * sparse_matrix.n_nonzero_elements() + 24. * dofs;
            s.memory = sparse_matrix.memory_consumption() + sparsity.memory_consumption();
            candidates.push_back(std::move(s));
          }
      }

    // STREAM triads: one over vectors of the DoF vectors' size (locally owned
    // entries), one large enough to leave the caches (--big-triad entries in
    // all, split over the ranks). In the plastix execution space; where that
    // has its own memory (GPU), also on the host for the deal.II operators.
    namespace ops = plastix::backend::vector_operations;
    const bool        separate   = plastix::backend::device_memory_is_separate();
    const std::size_t owned      = dof_handler.locally_owned_dofs().n_elements();
    const std::size_t big_global = std::max<std::size_t>(o.big_triad, n_dofs);
    const std::size_t big_local  = (big_global + n_ranks - 1) / n_ranks;
    const int         n_sizes    = big_global > n_dofs ? 2 : 1;
    const std::size_t triad_local[2]  = {owned, big_local};
    const std::size_t triad_global[2] = {n_dofs, big_local * n_ranks};
    std::vector<std::array<plastix::backend::DeviceArray<double>, 3>> device_arrays(2);
    std::vector<std::array<std::vector<double>, 3>>                   host_arrays(2);
    // Index into candidates of the triads: [device/host][small/large].
    std::size_t triad_index[2][2];
    for (int where = 0; where < (separate ? 2 : 1); ++where)
      for (int t = 0; t < 2; ++t)
        {
          if (t >= n_sizes)
            {
              triad_index[where][t] = triad_index[where][0];
              continue;
            }
          const std::size_t m = triad_local[t];
          Candidate         c;
          c.name    = std::string(where == 0 ? "triad" : "host triad") + (t == 0 ? " (DoF vector size)" : " (large)");
          c.triad   = true;
          c.plastix = where == 0;
          c.entries = triad_global[t];
          c.bytes   = 24. * triad_global[t];
          if (where == 0)
            {
              for (auto &a : device_arrays[t])
                {
                  a.resize(m, "triad");
                  ops::set(m, 1., a.data());
                }
              auto *a = &device_arrays[t];
              c.call  = [a, m] { ops::triad(m, 3., (*a)[1].data(), (*a)[2].data(), (*a)[0].data()); };
            }
          else
            {
              for (auto &a : host_arrays[t])
                a.assign(m, 1.);
              auto *a = &host_arrays[t];
              c.call  = [a, m] {
                double       *x = (*a)[0].data();
                const double *y = (*a)[1].data();
                const double *z = (*a)[2].data();
                for (std::size_t i = 0; i < m; ++i)
                  x[i] = y[i] + 3. * z[i];
              };
            }
          triad_index[where][t] = candidates.size();
          candidates.push_back(std::move(c));
        }
    if (!separate)
      for (int t = 0; t < 2; ++t)
        triad_index[1][t] = triad_index[0][t];
    plastix::backend::fence();

    // Timing, interleaved round by round. host_part: how long the host took
    // to return from the last plastix call (it queues kernels and returns
    // unless something waits for the device), the rest is the fence.
    double host_part = 0;
    auto timed_call = [&](Candidate &c) {
      MPI_Barrier(comm);
      const auto start = Clock::now();
      c.call();
      if (c.plastix)
        {
          host_part = plastix::bench::seconds_since(start);
          plastix::backend::fence();
        }
      const double t = plastix::bench::seconds_since(start);
      MPI_Barrier(comm);
      return t;
    };
    const double timing_s = timed_setup(comm, [&] {
      for (auto &c : candidates)
        for (unsigned int w = 0; w < o.warmup; ++w)
          timed_call(c);
      for (unsigned int done = 0; done < o.repeats;)
        {
          const unsigned int calls = std::min(o.batch, o.repeats - done);
          for (auto &c : candidates)
            for (unsigned int b = 0; b < calls; ++b)
              {
                c.samples.push_back(timed_call(c));
                if (c.plastix)
                  c.host_samples.push_back(host_part);
              }
          done += calls;
        }
    });
    for (auto &c : candidates)
      {
        std::vector<double> global(c.samples.size());
        MPI_Allreduce(c.samples.data(), global.data(), static_cast<int>(c.samples.size()), MPI_DOUBLE, MPI_MAX, comm);
        c.median  = plastix::bench::median(global);
        c.minimum = *std::min_element(global.begin(), global.end());
        if (!c.host_samples.empty())
          {
            MPI_Allreduce(c.host_samples.data(), global.data(), static_cast<int>(c.host_samples.size()), MPI_DOUBLE,
                          MPI_MAX, comm);
            c.host_median = plastix::bench::median(global);
          }
      }
    pout << "# size " << n << "^3 timed in " << timing_s << " s" << std::endl;

    // Table rows. % triad: of the triad over vectors of the DoF vectors' size
    // and of the large triad, both in this run (plastix and its triads: the
    // plastix execution space; deal.II: the host).
    auto bandwidth = [&](const std::size_t i) { return candidates[i].bytes / candidates[i].median / 1e9; };
    for (const auto &c : candidates)
      {
        const int    where       = c.plastix ? 0 : 1;
        const double triad_small = bandwidth(triad_index[where][0]);
        const double triad_big   = bandwidth(triad_index[where][1]);
        const double gbs         = c.bytes / c.median / 1e9;
        table << "| " << n << " | " << n_dofs << " | " << c.name << " | " << format("%.4g", c.median * 1e3) << " | "
              << format("%.4g", c.minimum * 1e3) << " | "
              << (c.triad ? std::string("") : format("%.3g", dofs / c.median / 1e9)) << " | " << format("%.3g", gbs)
              << " | " << format("%.0f", 100. * gbs / triad_small) << " | " << format("%.0f", 100. * gbs / triad_big)
              << " | " << (c.triad ? std::string("") : format("%.1f", c.bytes / dofs)) << " | "
              << (c.memory >= 0 ? format("%.1f", c.memory / 1048576.) : std::string("")) << " | "
              << (c.setup_s >= 0 ? format("%.3g", c.setup_s) : std::string("")) << " | "
              << (c.rel_diff >= 0 ? format("%.1e", c.rel_diff) : std::string("")) << " |\n";
      }
    for (const auto &c : candidates)
      if (c.host_median >= 0)
        notes << "- " << n << "^3: " << c.name << ": the host returned after " << format("%.4g", c.host_median * 1e3)
              << " ms (median; the slowest rank) of " << format("%.4g", c.median * 1e3)
              << " ms: the host part of a call that waits for nothing is its cost of queueing the kernels\n";
    for (const std::size_t i : multigrid_index)
      notes << "- " << n << "^3: " << candidates[i].name << " = " << format("%.2f", candidates[i].median / candidates[first_plastix].median)
            << " applications of " << candidates[first_plastix].name << " (medians of the same rounds)\n";
    notes << "- " << n << "^3: " << tria.n_global_active_cells() << " cells, " << n_dofs << " DoFs, "
          << Utilities::MPI::sum(static_cast<double>(constraints.n_constraints()), comm)
          << " constraint lines (sum over ranks, incl. ghosts); mesh+DoFs+constraints " << format("%.3g", mesh_s)
          << " s; timing loop " << format("%.3g", timing_s) << " s; machine load average (1/5/15 min) before "
          << load_before << ", after " << load_average() << "\n";
    if (n_sizes == 2)
      notes << "- " << n << "^3: triads over " << triad_global[0] << " and " << triad_global[1] << " entries\n";
    else
      notes << "- " << n << "^3: one triad over " << triad_global[0] << " entries (>= --big-triad)\n";
    return failures;
  }
} // namespace

int
main(int argc, char **argv)
{
  // Only the program name goes to MPI_InitFinalize: deal.II hands the
  // arguments to PETSc, which warns at exit about those it did not use.
  int                              mpi_argc = 1;
  Utilities::MPI::MPI_InitFinalize mpi(mpi_argc, argv, 1);
  const MPI_Comm                   comm    = MPI_COMM_WORLD;
  const bool                       is_root = Utilities::MPI::this_mpi_process(comm) == 0;

  Options o;
  bool    help = false;
  if (!parse_options(argc, argv, o, help))
    return 1;
  if (help)
    {
      if (is_root)
        std::cout << usage_text;
      return 0;
    }

  int status = 0;
  {
    plastix::Runtime   runtime(comm, o.ghost_exchange);
    ConditionalOStream pout(std::cout, is_root);
    const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(comm);

    std::ostringstream header, table, notes;
    {
      const std::time_t now = std::time(nullptr);
      char              date[64];
      std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
      header << "### plastix-bench" << (o.label.empty() ? "" : ": " + o.label) << "\n\n";
      header << "- " << date << "; command: `";
      for (int i = 0; i < argc; ++i)
        {
          const std::string arg = argv[i];
          header << (i ? " " : "") << (arg.find(' ') != std::string::npos ? "\"" + arg + "\"" : arg);
        }
      header << "`\n";
      header << "- deal.II " << DEAL_II_PACKAGE_VERSION << " (VectorizedArray<double>::size() = "
             << VectorizedArray<double>::size() << "), " << n_ranks << " MPI rank(s), CPU: " << cpu_model() << "\n";
      header << "- plastix backend: " << plastix::Runtime::description() << " (execution space "
             << plastix::Runtime::execution_space() << "); ghost exchange "
             << plastix::Runtime::ghost_exchange_description() << "\n";
      header << "- mesh: unit cube, n^3 cells, " << (o.distortion > 0 ? "distort_random(" + format("%g", o.distortion) + ", keep boundary, seed " + std::to_string(o.seed) + ")" : std::string("uniform"))
             << (o.local_refinement > 0 ? ", cells with x < " + format("%g", o.local_refinement) + " refined once more (hanging nodes)" : std::string())
             << "; FESystem(FE_Q(1),3), Dirichlet x=0, E=200e9, nu=0.3\n";
      header << "- timing: " << o.warmup << " warm-up calls, " << o.repeats << " samples per operator in rounds of "
             << o.batch << " calls, interleaved; MPI_Barrier around each call, max over ranks; median (min) in ms\n";
      header << "- GB/s: effective traffic models (plastix: bytes_per_apply; MatrixFree: memory_consumption + 24 B/local "
                "vector entry; sparse: 12 B/nnz + 24 B/row; triad: 24 B/entry); B/DoF = those bytes / DoFs; "
                "memory = operator data (sum over ranks); rel. diff = vs MatrixFree (sparse: unconstrained rows)\n\n";
      table << "| n | DoFs | operator | median ms | min ms | GDoF/s | GB/s | % triad | % large triad | B/DoF | "
               "memory MiB | set-up s | rel. diff |\n"
            << "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    }
    pout << header.str() << std::flush;

    int failures = 0;
    try
      {
        for (const unsigned int n : o.sizes)
          failures += run_size(o, n, table, notes, pout);
      }
    catch (const std::exception &e)
      {
        std::cerr << "plastix-bench: error: " << e.what() << std::endl;
        status = 1;
      }
    const double rss = Utilities::MPI::sum(static_cast<double>(peak_rss()), comm);
    notes << "- peak RSS (sum over ranks): " << format("%.0f", rss / 1048576.) << " MiB\n";
    if (status == 0 && failures > 0)
      {
        notes << "- **VERIFICATION FAILED** in " << failures << " case(s) (rel. diff > 1e-12)\n";
        status = 2;
      }
    pout << "\n" << table.str() << "\n" << notes.str() << std::flush;
    if (is_root && !o.output.empty())
      {
        std::ofstream out(o.output, std::ios::app);
        out << header.str() << table.str() << "\n" << notes.str() << "\n";
        if (!out)
          {
            std::cerr << "plastix-bench: cannot write " << o.output << std::endl;
            status = status == 0 ? 1 : status;
          }
      }
    if (status == 2)
      std::cerr << "plastix-bench: verification failed (a result differs from MatrixFree by more than 1e-12)"
                << std::endl;
  }
  return status;
}
