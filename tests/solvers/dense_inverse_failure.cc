// The multigrid's dense inverse coarse solver when its set-up fails on one
// rank only: memory runs out on the last rank while the others have enough.
// On a host build the last rank's address space is limited with
// setrlimit(RLIMIT_AS) to more than the set-up takes before the
// factorisation, and less than the dense level-0 matrix the factorisation
// needs (2187 DoFs, 36.5 MiB). On a GPU build (cuSOLVER factorises on every
// rank's device) the last rank holds back all of its GPU's free memory but
// 24 MiB instead, with one GPU per rank.
// Checked, on 2 and 3 ranks:
//  - (host build) the ranks' agreement on a failure
//    (internal::CollectiveFailure) works when the failing rank has no memory
//    to spare at all;
//  - LinearSolver::initialize() throws on every rank: the last rank its own
//    out-of-memory exception, every other rank std::invalid_argument with the
//    last rank's message (before the change the others went on into the
//    next collective step and the run hung);
//  - the limit was what failed: the last rank's message is deal.II's
//    ExcOutOfMemory for the dense matrix (host), or the backend's
//    DeviceMemoryError for the dense matrix on the device (GPU);
//  - afterwards, on the same communicator, a new set-up without the limit
//    solves to |b - A x| <= 1e-8 |b| on every rank (no rank was left in a
//    collective step of the failed one).
// An address-space limit would stop the CUDA driver, so a GPU build checks
// the device memory only. Ranks that share a GPU would share the held-back
// memory as well: there the test says so and checks nothing.

// Test: ranks 2 3
#include <deal.II/base/function.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/backend/dense_inverse.h>
#include <plastix/backend/device.h>
#include <plastix/backend/device_array.h>
#include <plastix/core/collective_failure.h>
#include <plastix/core/device_vector.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>
#include <plastix/solvers/linear_solver.h>

#include "test_environment.h"

#include <sys/resource.h>

#include <fstream>
#include <iostream>
#include <new>
#include <set>
#include <string>
#include <vector>

using namespace dealii;

namespace
{
  /** The size of this process's address space in bytes (VmSize). */
  std::size_t
  address_space_bytes()
  {
    std::ifstream status("/proc/self/status");
    std::string   line;
    while (std::getline(status, line))
      if (line.rfind("VmSize:", 0) == 0)
        return std::stoull(line.substr(7)) * 1024;
    throw std::runtime_error("no VmSize in /proc/self/status");
  }

  /** Limit this process's address space to @p bytes (RLIM_INFINITY: no limit). */
  void
  limit_address_space(const rlim_t bytes)
  {
    rlimit limit;
    getrlimit(RLIMIT_AS, &limit);
    limit.rlim_cur = bytes;
    if (setrlimit(RLIMIT_AS, &limit) != 0)
      throw std::runtime_error("setrlimit(RLIMIT_AS) failed");
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    AssertThrow(env.n_ranks >= 2, ExcMessage("run on 2 or more ranks"));
    const bool last   = env.rank + 1 == env.n_ranks;
    const bool on_gpu = plastix::backend::DenseInverse::can_factorize();
    if (on_gpu)
      {
        // The device description names the GPU's index: one per rank on this host.
        const std::vector<std::string> devices =
          Utilities::MPI::all_gather(env.comm, plastix::backend::device_description());
        if (std::set<std::string>(devices.begin(), devices.end()).size() != devices.size())
          {
            env.pout << "GPU build with ranks that share a GPU (" << devices[0]
                     << "): memory held back by one rank is missing on the others too; nothing checked\n";
            return;
          }
      }

    // The agreement itself (internal::CollectiveFailure) allocates nothing
    // on the heap: with the last rank's address space limited to what it
    // has, a guarded step that allocates 64 MiB fails there, and every rank
    // throws. (deal.II's all_gather of strings, used before, compresses
    // with zlib, whose allocation failed on the last rank: the others hung.)
    // Host build only (the address-space limit).
    if (!on_gpu)
      {
        plastix::internal::CollectiveFailure failures("the agreement test");
        bool                                 own = false, reported = false;
        try
          {
            if (last)
              limit_address_space(address_space_bytes());
            failures.guard([] {
              std::vector<char> block(std::size_t(64) << 20);
              block.back() = 1;
            });
            failures.throw_on_every_rank(env.comm);
          }
        catch (const std::bad_alloc &)
          {
            own = true;
          }
        catch (const std::invalid_argument &error)
          {
            reported = std::string(error.what()) == std::bad_alloc().what();
          }
        if (last)
          limit_address_space(RLIM_INFINITY);
        checker.check_true("the agreement without memory to spare: the last rank gets its std::bad_alloc, every "
                           "other rank std::invalid_argument with its message",
                           Utilities::MPI::min((last ? own : reported) ? 1 : 0, env.comm) == 1);
      }

    // Unit cube, 8^3 coarse cells (2187 level-0 DoFs) refined once, clamped.
    parallel::distributed::Triangulation<3> triangulation(
      env.comm, Triangulation<3>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
    GridGenerator::subdivided_hyper_cube(triangulation, 8);
    triangulation.refine_global(1);
    const FESystem<3> fe(FE_Q<3>(1), 3);
    DoFHandler<3>     dof_handler(triangulation);
    dof_handler.distribute_dofs(fe);
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    AffineConstraints<double> constraints(relevant);
    VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
    constraints.close();
    const plastix::MaterialTable materials{{0, plastix::make_material(200e3, 0.3, 250.)}};
    plastix::MechanicsOperator   op;
    op.reinit(dof_handler, constraints, materials);

    plastix::LinearSolverData data;
    data.type                    = plastix::SolverType::cg;
    data.preconditioner          = plastix::PreconditionerType::multigrid;
    data.multigrid.coarse_solver = plastix::CoarseSolverType::dense_inverse;
    data.relative_tolerance      = 1e-8;
    const auto initialize        = [&](plastix::LinearSolver &solver) {
      solver.initialize(op, dof_handler, materials, {{0, ComponentMask(3, true)}});
    };

    // Host build: the last rank gets the address space it has plus 20 MiB:
    // the set-up up to the factorisation takes 5-6 MiB of it, the dense
    // matrix 36.5 MiB. This comes before any other set-up: one run before
    // would leave its freed memory mapped (glibc keeps it for reuse), and the
    // dense matrix would fit in it.
    // GPU build: the last rank holds back its GPU's free memory but 24 MiB;
    // the level operators, vectors and cuSOLVER's handle take a few MiB of
    // them, the dense matrix on the device 36.5 MiB. (Two H200s: the dense
    // matrix is what fails with 4 to 40 MiB left; with less, the held-back
    // block itself does not fit.)
    bool        own = false, reported = false;
    std::string message;
    {
      plastix::LinearSolver solver(data);
      plastix::backend::DeviceArray<char> held_back;
      if (last && on_gpu)
        try
          {
            held_back.resize(plastix::backend::device_memory_available() - std::size_t(24) * 1048576,
                             "memory held back by the test");
          }
        catch (const std::exception &error)
          {
            std::cout << "the last rank could not hold back its GPU's memory: " << error.what() << std::endl;
          }
      AssertThrow(Utilities::MPI::min(!last || !on_gpu || held_back.size() > 0 ? 1 : 0, env.comm) == 1,
                  ExcMessage("the last rank could not hold back its GPU's memory"));
      try
        {
          if (last && !on_gpu)
            limit_address_space(address_space_bytes() + 20 * 1048576);
          initialize(solver);
        }
      catch (const std::invalid_argument &error)
        {
          message  = error.what();
          reported = true;
        }
      catch (const std::exception &error)
        {
          message = error.what();
          own     = true;
        }
      held_back.release();
      if (last && !on_gpu)
        limit_address_space(RLIM_INFINITY);
    }
    // deal.II's ExcOutOfMemory for the dense level-0 matrix (LAPACKFullMatrix),
    // or the backend's DeviceMemoryError for the dense matrix on the device.
    const std::string dense_request =
      on_gpu ? "device memory exhausted: allocating 36.5 MiB for 'dense coarse matrix'" :
               "the request was for " + std::to_string(std::size_t(2187) * 2187 * sizeof(double)) + " bytes";
    const auto        end_of_request = message.find(dense_request);
    env.pout << "rank 0's message: "
             << message.substr(0, end_of_request == std::string::npos ? 400 : end_of_request + dense_request.size())
             << '\n';
    checker.check_true("the last rank runs out of memory for the dense level-0 matrix and gets its own exception; "
                       "every other rank gets std::invalid_argument with that message",
                       Utilities::MPI::min((last ? own : reported) && end_of_request != std::string::npos ? 1 : 0,
                                           env.comm) == 1);

    // The same communicator afterwards: a whole set-up and solve on every rank.
    {
      plastix::LinearSolver solver(data);
      initialize(solver);
      plastix::DeviceVector b, x, r;
      op.initialize_dof_vector(b);
      op.initialize_dof_vector(x);
      b = 1.;
      op.set_constrained_zero(b);
      const auto statistics = solver.solve(x, b);
      op.vmult(r, x);
      r.sadd(-1., 1., b);
      checker.check("after the failure, a new set-up solves (" + std::to_string(statistics.iterations) +
                      " iterations): |b - A x| / |b|",
                    r.l2_norm() / b.l2_norm(), 1.5e-8);
      checker.check_true("after the failure: " + solver.preconditioner_description(),
                         solver.preconditioner_description().find("coarse dense inverse") != std::string::npos);
    }
  });
}
