// Elastodynamics: the time integrators on a bar fixed at x = 0, free at
// x = L = 1 (E = 1, nu = 0, rho = 1: the axial wave speed c = 1, the first
// axial mode sin(pi x / 2) with omega = pi / 2, period T = 4), started with
// the velocity V sin(pi x / 2) of that mode, so that the exact tip
// displacement is V / omega sin(omega t). Run with 1 and 2 MPI ranks.
//
//  1. Newmark (consistent mass, CG + Jacobi, dt = T / 200): the period from
//     the tip's zero crossing within 0.2 % of 4 L / c; the total energy
//     constant to 1e-7 of the initial one; the tip at t = 1 within 0.2 % of
//     V / omega. The midpoint rule gives the same history (linear problem);
//     a geometric-multigrid preconditioner (level operators with the mass)
//     the same history as Jacobi.
//     With mass-proportional Rayleigh damping alpha_M the energy balance
//     with the dissipated work holds and the tip follows the damped mode
//     V / omega_d exp(-alpha_M t / 2) sin(omega_d t).
//     Stiffness-proportional damping: the same balance, and the energy
//     after half a period exp(-beta_K omega^2 t) of the initial one. Newmark
//     with the lumped mass: the period within 0.2 %.
//  2. Generalised-alpha damps: at dt = T / 8 over two periods, rho_inf = 0.5
//     loses energy (more than 1 %), Newmark at the same step conserves it.
//  3. Central differences with the lumped mass at 0.5 of the estimated
//     critical step: the period within 0.3 %, the energy within 1 %; at 1.1
//     of the estimated critical step the run blows up (the estimate is not
//     too small by more than 10 %); at 0.9 it stays bounded.
//  4. Finite strain: at V = 1e-6 the tip history equals the linear one to
//     1e-5 of the amplitude; at V = 0.3 (30 % strain) Newmark and the
//     midpoint rule keep the total energy within 1e-3 over half a period.
//  5. A free body (no supports) with a uniform velocity translates
//     rigidly at finite strain: u = v0 t to 1e-10.
//  6. Continuation (what the application's checkpoints use): a second
//     Elastodynamics on the same operator, given the first one's state(),
//     u, v and a after 40 of 80 steps (resume()), continues the history
//     exactly as the first would have (tip and total energy equal to 1e-14)
//     for Newmark with multigrid, generalised-alpha at finite strain and
//     central differences, also right after a step of half the time step
//     (as after a cut: the resumed run takes the smaller step from the state
//     and grows it back as the first would).

// Test: ranks 1 2
#include <deal.II/base/function.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/numerics/vector_tools.h>

#include <plastix/core/finite_strain_state.h>
#include <plastix/core/mechanics_operator.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/time_integration.h>

#include "q1_dofs.h"
#include "test_environment.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>

using namespace dealii;
using HostVector = LinearAlgebra::distributed::Vector<double>;

namespace
{
  constexpr double pi    = 3.14159265358979323846;
  constexpr double omega = pi / 2.;
  constexpr double period = 4.;

  /** The initial velocity V sin(pi x / 2) e_x (or a uniform velocity). */
  class InitialVelocity : public Function<3>
  {
  public:
    InitialVelocity(const double amplitude, const bool uniform)
      : Function<3>(3)
      , amplitude(amplitude)
      , uniform(uniform)
    {}

    double
    value(const Point<3> &p, const unsigned int component) const override
    {
      if (uniform)
        return amplitude * (component == 0 ? 1. : component == 1 ? 2. : -3.);
      return component == 0 ? amplitude * std::sin(pi * p[0] / 2.) : 0.;
    }

  private:
    const double amplitude;
    const bool   uniform;
  };

  struct Run
  {
    plastix::TimeIntegrator     integrator     = plastix::TimeIntegrator::newmark;
    plastix::MassMatrix         mass           = plastix::MassMatrix::consistent;
    plastix::PreconditionerType preconditioner = plastix::PreconditionerType::jacobi;
    double                      time_step      = period / 200.;
    /** Time step as a fraction of the estimated critical one (central differences; 0: time_step). */
    double       critical_fraction = 0.;
    unsigned int n_steps           = 110;
    /** If > 0: steps until this time instead of n_steps. */
    double       end_time          = 0.;
    double       amplitude         = 0.1;
    double       spectral_radius   = 1.;
    double       mass_damping      = 0.;
    double       stiffness_damping = 0.;
    bool         finite_strain     = false;
    bool         free_body         = false;
    /** If > 0: after this many steps a second Elastodynamics resumes from the first one's state. */
    unsigned int resume_after = 0;
    /** If > 0: step cut_at (from 1) takes half the time step (as after a cut); the one after it the whole again. */
    unsigned int cut_at = 0;
  };

  struct History
  {
    std::vector<double> time, tip, energy, mechanical;
    bool                failed = false;
    std::string         failure;
    double              time_step = 0.;
  };

  /** The bar: 16 x 4 x 4 cubes of 1/16 (4 x 1 x 1 refined twice: three multigrid levels). */
  struct Bar
  {
    explicit Bar(const MPI_Comm comm)
      : triangulation(comm,
                      Triangulation<3>::limit_level_difference_at_vertices,
                      parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy)
      , dof_handler(triangulation)
    {
      GridGenerator::subdivided_hyper_rectangle(triangulation, {4, 1, 1}, Point<3>(0, 0, 0),
                                                Point<3>(1., 0.25, 0.25), true);
      for (const auto &cell : triangulation.active_cell_iterators())
        cell->set_material_id(0);
      triangulation.refine_global(2);
      relevant = plastix_test::distribute_q1_dofs(dof_handler);
      dof_handler.distribute_mg_dofs();
      materials[0]         = plastix::make_hyperelastic_material(1., 0.);
      materials[0].density = 1.;
    }

    parallel::distributed::Triangulation<3> triangulation;
    DoFHandler<3>                           dof_handler;
    IndexSet                                relevant;
    plastix::MaterialTable                  materials;
  };

  History
  simulate(const Bar &bar, const Run &run)
  {
    const MPI_Comm            comm = bar.dof_handler.get_communicator();
    AffineConstraints<double> constraints(bar.relevant);
    if (!run.free_body)
      VectorTools::interpolate_boundary_values(bar.dof_handler, 0, Functions::ZeroFunction<3>(3), constraints);
    constraints.close();
    plastix::MechanicsOperator::AdditionalData data;
    data.mass_matrix = run.mass;
    plastix::MechanicsOperator op;
    op.reinit(bar.dof_handler, constraints, bar.materials, data);
    if (run.finite_strain)
      op.enable_finite_strain();

    plastix::LinearSolverData solver_data;
    solver_data.type               = plastix::SolverType::cg;
    solver_data.preconditioner     = run.preconditioner;
    solver_data.relative_tolerance = 1e-10;
    plastix::LinearSolver      solver(solver_data);
    const plastix::DirichletBoundaries dirichlet =
      run.free_body ? plastix::DirichletBoundaries() : plastix::DirichletBoundaries{{0, ComponentMask(3, true)}};
    plastix::TimeIntegrationData time_data;
    time_data.integrator         = run.integrator;
    time_data.time_step          = run.time_step;
    time_data.spectral_radius    = run.spectral_radius;
    time_data.mass_damping       = run.mass_damping;
    time_data.stiffness_damping  = run.stiffness_damping;
    time_data.residual_tolerance = 1e-10;
    time_data.linear_tolerance   = 1e-10;
    const bool is_explicit       = run.integrator == plastix::TimeIntegrator::central_differences;

    History history;
    if (is_explicit && run.critical_fraction > 0.)
      {
        plastix::Elastodynamics probe(op, nullptr, {}, time_data);
        time_data.time_step = run.critical_fraction * probe.critical_time_step();
      }
    history.time_step = time_data.time_step;
    const auto make_dynamics = [&] {
      return std::make_unique<plastix::Elastodynamics>(
        op, is_explicit ? nullptr : &solver,
        is_explicit ? std::function<void()>() : std::function<void()>([&] {
          solver.initialize(op, bar.dof_handler, bar.materials, dirichlet);
        }),
        time_data);
    };
    std::unique_ptr<plastix::Elastodynamics> current = make_dynamics();

    HostVector host(op.get_partitioner());
    VectorTools::interpolate(bar.dof_handler, InitialVelocity(run.amplitude, run.free_body), host);
    plastix::DeviceVector u0, v0, tip_weights;
    op.initialize_dof_vector(u0);
    op.initialize_dof_vector(v0);
    op.initialize_dof_vector(tip_weights);
    v0.copy_from_host(host);
    // The mean x displacement of the DoFs at x = 1 (or of all x DoFs for the free body).
    host = 0.;
    for (const auto &cell : bar.dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        for (const unsigned int v : cell->vertex_indices())
          if (run.free_body || std::abs(cell->vertex(v)[0] - 1.) < 1e-12)
            {
              const auto dof = cell->vertex_dof_index(v, 0);
              if (host.locally_owned_elements().is_element(dof))
                host(dof) = 1.;
            }
    double count = 0.;
    for (const auto i : host.locally_owned_elements())
      count += host(i);
    count = Utilities::MPI::sum(count, comm);
    host /= count;
    tip_weights.copy_from_host(host);

    current->set_initial_conditions(u0, v0);
    const auto record = [&] {
      history.time.push_back(current->time());
      history.tip.push_back(tip_weights * current->displacement());
      history.energy.push_back(current->energies().total());
      history.mechanical.push_back(current->energies().kinetic + current->energies().strain);
    };
    record();
    for (unsigned int n = 0; run.end_time > 0. ? current->time() < run.end_time - 1e-12 : n < run.n_steps; ++n)
      {
        if (run.cut_at > 0 && n + 1 == run.cut_at)
          current->set_time_step(0.5 * time_data.time_step);
        if (run.resume_after > 0 && n == run.resume_after)
          {
            std::unique_ptr<plastix::Elastodynamics> next = make_dynamics();
            next->resume(current->displacement(), current->velocity(), current->acceleration(), current->state());
            current = std::move(next);
          }
        if (run.cut_at > 0 && n == run.cut_at + 1)
          current->set_time_step(time_data.time_step);
        const plastix::TimeStepResult result = current->step();
        if (!result.converged)
          {
            history.failed  = true;
            history.failure = result.failure;
            if (!is_explicit)
              std::cout << "  step " << n + 1 << " failed: " << result.failure << std::endl;
            break;
          }
        record();
      }
    return history;
  }

  /** The first time the tip crosses zero downwards after t > 0 (linear interpolation); -1 if never. */
  double
  zero_crossing(const History &h)
  {
    for (std::size_t n = 1; n < h.tip.size(); ++n)
      if (h.time[n - 1] > 0. && h.tip[n - 1] > 0. && h.tip[n] <= 0.)
        return h.time[n - 1] + (h.time[n] - h.time[n - 1]) * h.tip[n - 1] / (h.tip[n - 1] - h.tip[n]);
    return -1.;
  }

  double
  max_energy_error(const History &h)
  {
    double error = 0.;
    for (const double e : h.energy)
      error = std::max(error, std::abs(e - h.energy[0]));
    return error / std::abs(h.energy[0]);
  }

  double
  max_difference(const History &a, const History &b)
  {
    double difference = 0.;
    for (std::size_t n = 0; n < std::min(a.tip.size(), b.tip.size()); ++n)
      difference = std::max(difference, std::abs(a.tip[n] - b.tip[n]));
    return a.tip.size() == b.tip.size() ? difference : 1e300;
  }

  /** The tip at time @p t (linear interpolation). */
  double
  tip_at(const History &h, const double t)
  {
    for (std::size_t n = 1; n < h.time.size(); ++n)
      if (h.time[n] >= t - 1e-12)
        return h.tip[n - 1] + (h.tip[n] - h.tip[n - 1]) * (t - h.time[n - 1]) / (h.time[n] - h.time[n - 1]);
    return 0.;
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [&](plastix_test::Environment &env, plastix_test::Checker &checker) {
    const Bar bar(env.comm);
    env.pout << "bar of " << bar.dof_handler.n_dofs() << " DoFs\n";

    // ---- 1. Newmark, midpoint, multigrid ----
    Run newmark;
    const History newmark_history = simulate(bar, newmark);
    checker.check_true("Newmark: 110 steps converge", !newmark_history.failed);
    const double newmark_period = 2. * zero_crossing(newmark_history);
    env.pout << "Newmark: period " << newmark_period << " (exact " << period << "), energy error "
             << max_energy_error(newmark_history) << "\n";
    checker.check("Newmark: period vs 4 L / c (relative)", std::abs(newmark_period - period) / period, 2e-3);
    checker.check("Newmark: energy conservation (relative)", max_energy_error(newmark_history), 1e-7);
    checker.check("Newmark: tip at t = T/4 vs V / omega (relative)",
                  std::abs(tip_at(newmark_history, 1.) - 0.1 / omega) / (0.1 / omega), 2e-3);

    Run midpoint      = newmark;
    midpoint.integrator = plastix::TimeIntegrator::midpoint;
    checker.check("midpoint = Newmark for a linear problem (tip, relative)",
                  max_difference(simulate(bar, midpoint), newmark_history) / (0.1 / omega), 1e-8);
    Run multigrid           = newmark;
    multigrid.preconditioner = plastix::PreconditionerType::multigrid;
    multigrid.n_steps        = 20;
    checker.check("Newmark with multigrid = with Jacobi (tip, relative)",
                  max_difference(simulate(bar, multigrid), simulate(bar, [&] {
                                   Run r     = newmark;
                                   r.n_steps = 20;
                                   return r;
                                 }())) /
                    (0.1 / omega),
                  1e-8);

    // Rayleigh (mass-proportional) damping: the balance with the dissipated
    // work holds; the mechanical energy of the mode decays as exp(-alpha_M t).
    {
      Run damped          = newmark;
      damped.mass_damping = 0.05;
      const History h     = simulate(bar, damped);
      // The damped mode: u = V / omega_d exp(-alpha t / 2) sin(omega_d t), omega_d^2 = omega^2 - alpha^2 / 4.
      const double omega_d = std::sqrt(omega * omega - 0.05 * 0.05 / 4.);
      double       error   = 0.;
      for (const double t : {0.5, 1., 1.5, 2.})
        error = std::max(error, std::abs(tip_at(h, t) - 0.1 / omega_d * std::exp(-0.025 * t) * std::sin(omega_d * t)));
      env.pout << "mass damping 0.05: energy balance error " << max_energy_error(h) << ", dissipated "
               << h.energy.back() - h.mechanical.back() << " of " << h.mechanical.front() << "\n";
      checker.check("Newmark with mass damping: energy balance with the dissipated work (relative)",
                    max_energy_error(h), 1e-9);
      checker.check("Newmark with mass damping: tip vs the damped mode at t = 0.5, 1, 1.5, 2 (relative)",
                    error / (0.1 / omega), 2e-3);
    }

    // Stiffness-proportional damping: the same balance; the mode's damping
    // ratio is beta_K omega / 2, so the energy after t = 2 is about
    // exp(-beta_K omega^2 t) of the initial one.
    {
      Run damped               = newmark;
      damped.stiffness_damping = 0.02;
      damped.n_steps           = 100;
      const History h          = simulate(bar, damped);
      const double  ratio      = h.mechanical.back() / h.mechanical.front();
      env.pout << "stiffness damping 0.02: energy balance error " << max_energy_error(h) << ", energy ratio at t = 2 "
               << ratio << " (exp(-beta_K omega^2 t) = " << std::exp(-0.02 * omega * omega * 2.) << ")\n";
      checker.check("Newmark with stiffness damping: energy balance with the dissipated work (relative)",
                    max_energy_error(h), 1e-9);
      checker.check("Newmark with stiffness damping: energy at t = T/2 vs exp(-beta_K omega^2 t) (relative)",
                    std::abs(ratio - std::exp(-0.02 * omega * omega * 2.)) / ratio, 1e-2);
    }

    // Newmark with the lumped mass: the same period to the discretisation error.
    {
      Run lumped  = newmark;
      lumped.mass = plastix::MassMatrix::lumped;
      const History h = simulate(bar, lumped);
      env.pout << "Newmark, lumped mass: period " << 2. * zero_crossing(h) << "\n";
      checker.check("Newmark, lumped mass: period vs 4 L / c (relative)",
                    std::abs(2. * zero_crossing(h) - period) / period, 2e-3);
    }

    // ---- 2. generalised-alpha damping ----
    Run coarse       = newmark;
    coarse.time_step = period / 8.;
    coarse.n_steps   = 16;
    Run alpha            = coarse;
    alpha.integrator     = plastix::TimeIntegrator::generalized_alpha;
    alpha.spectral_radius = 0.5;
    const History coarse_history = simulate(bar, coarse), alpha_history = simulate(bar, alpha);
    const double  alpha_loss     = 1. - alpha_history.energy.back() / alpha_history.energy.front();
    env.pout << "dt = T/8, two periods: Newmark energy error " << max_energy_error(coarse_history)
             << ", generalised-alpha (rho_inf = 0.5) energy loss " << alpha_loss << "\n";
    checker.check("Newmark at dt = T/8 conserves energy (relative)", max_energy_error(coarse_history), 1e-7);
    checker.check_true("generalised-alpha (rho_inf = 0.5) at dt = T/8 dissipates > 1 %", alpha_loss > 0.01);

    // ---- 3. central differences ----
    Run central               = newmark;
    central.integrator        = plastix::TimeIntegrator::central_differences;
    central.mass              = plastix::MassMatrix::lumped;
    central.critical_fraction = 0.5;
    {
      Run r                 = central;
      r.end_time            = 2.2;
      const History history = simulate(bar, r);
      env.pout << "central differences: estimated critical step " << 2. * history.time_step << " ("
               << history.time.size() - 1 << " steps)\n";
      const double  t_half  = zero_crossing(history);
      env.pout << "central differences at 0.5 dt_crit: period " << 2. * t_half << ", energy error "
               << max_energy_error(history) << "\n";
      checker.check("central differences: period vs 4 L / c (relative)", std::abs(2. * t_half - period) / period,
                    3e-3);
      checker.check("central differences: energy (relative)", max_energy_error(history), 1e-2);
      checker.check("central differences = Newmark at small steps (tip at T/4, relative)",
                    std::abs(tip_at(history, 1.) - tip_at(newmark_history, 1.)) / (0.1 / omega), 2e-3);

      Run stable               = central;
      stable.critical_fraction = 0.9;
      stable.n_steps           = 300;
      const History stable_history = simulate(bar, stable);
      checker.check_true("central differences at 0.9 dt_crit: bounded (energy within 5 %)",
                         !stable_history.failed && max_energy_error(stable_history) < 0.05);
      Run unstable               = central;
      unstable.critical_fraction = 1.1;
      unstable.n_steps           = 300;
      const History unstable_history = simulate(bar, unstable);
      env.pout << "central differences at 1.1 dt_crit: ";
      if (unstable_history.failed)
        env.pout << unstable_history.failure << "\n";
      else
        env.pout << "energy error " << max_energy_error(unstable_history) << "\n";
      checker.check_true("central differences at 1.1 dt_crit: blows up",
                         unstable_history.failed || max_energy_error(unstable_history) > 1.);
    }

    // ---- 4. finite strain ----
    {
      Run small_linear       = newmark;
      small_linear.amplitude = 1e-6;
      small_linear.n_steps   = 50;
      Run small_finite       = small_linear;
      small_finite.finite_strain = true;
      checker.check("finite strain at V = 1e-6 = linear (tip, relative to the amplitude)",
                    max_difference(simulate(bar, small_finite), simulate(bar, small_linear)) / (1e-6 / omega), 1e-5);
      for (const auto integrator : {plastix::TimeIntegrator::newmark, plastix::TimeIntegrator::midpoint})
        {
          Run large           = newmark;
          large.integrator    = integrator;
          large.amplitude     = 0.3;
          large.finite_strain = true;
          const History h     = simulate(bar, large);
          const std::string name = plastix::enum_name(integrator);
          env.pout << "finite strain, V = 0.3, " << name << ": energy error " << max_energy_error(h)
                   << ", tip at T/4 " << tip_at(h, 1.) << " (linear " << 0.3 / omega << ")\n";
          checker.check_true("finite strain, V = 0.3, " + name + ": 110 steps converge", !h.failed);
          checker.check("finite strain, V = 0.3, " + name + ": energy (relative)", max_energy_error(h), 1e-3);
        }
    }

    // ---- 5. rigid translation at finite strain ----
    {
      Run free           = newmark;
      free.free_body     = true;
      free.finite_strain = true;
      free.n_steps       = 20;
      const History h    = simulate(bar, free);
      double        error = 0.;
      for (std::size_t n = 0; n < h.time.size(); ++n)
        error = std::max(error, std::abs(h.tip[n] - 0.1 * h.time[n]));
      checker.check("free body: u = v0 t (mean x displacement, relative)", error / (0.1 * h.time.back()), 1e-10);
    }

    // ---- 6. continuation from state() with resume() ----
    {
      Run newmark_multigrid            = newmark;
      newmark_multigrid.preconditioner = plastix::PreconditionerType::multigrid;
      Run alpha_finite                 = newmark;
      alpha_finite.integrator          = plastix::TimeIntegrator::generalized_alpha;
      alpha_finite.spectral_radius     = 0.8;
      alpha_finite.finite_strain       = true;
      alpha_finite.amplitude           = 0.3;
      Run explicit_run                 = newmark;
      explicit_run.integrator          = plastix::TimeIntegrator::central_differences;
      explicit_run.mass                = plastix::MassMatrix::lumped;
      explicit_run.critical_fraction   = 0.5;
      Run newmark_cut                  = newmark;
      newmark_cut.cut_at               = 41;
      for (const auto &[name, run] : {std::pair<std::string, Run>("Newmark with multigrid", newmark_multigrid),
                                      std::pair<std::string, Run>("generalised-alpha, finite strain", alpha_finite),
                                      std::pair<std::string, Run>("central differences", explicit_run),
                                      std::pair<std::string, Run>("Newmark, cut before the resume", newmark_cut)})
        {
          Run whole            = run;
          whole.n_steps        = 80;
          Run resumed          = whole;
          resumed.resume_after = run.cut_at > 0 ? run.cut_at : 40;
          const History a      = simulate(bar, whole);
          const History b      = simulate(bar, resumed);
          double tip = 0., energy = 0., scale = 0., energy_scale = 0.;
          for (std::size_t n = 0; n < std::min(a.tip.size(), b.tip.size()); ++n)
            {
              tip          = std::max(tip, std::abs(a.tip[n] - b.tip[n]));
              energy       = std::max(energy, std::abs(a.energy[n] - b.energy[n]));
              scale        = std::max(scale, std::abs(a.tip[n]));
              energy_scale = std::max(energy_scale, std::abs(a.energy[n]));
            }
          checker.check_true(name + ": both runs take 80 steps", !a.failed && !b.failed && a.tip.size() == 81 &&
                                                                   b.tip.size() == 81);
          checker.check(name + ": resumed = uninterrupted (tip, relative)", tip / scale, 1e-14);
          checker.check(name + ": resumed = uninterrupted (total energy, relative)", energy / energy_scale, 1e-14);
        }
    }
  });
}
