// The F-bar element (ElementFormulation::fbar) of a DeviceOperator with a
// FiniteStrainState, on a distorted box with a clamped face:
// - its small-strain limit: the tangent at u = 0 is the B-bar elastic
//   operator of the same moduli (and not the full one);
// - a homogeneous deformation gives the full element's internal force;
// - hyperelastic materials (neo-Hookean, Mooney-Rivlin, isochoric
//   neo-Hookean): the internal force is the gradient of the stored energy
//   sum_q W(F_bar_q) JxW_q (central differences), and the tangent is
//   symmetric;
// - elastoplastic materials in the logarithmic strain (J2 with Voce and
//   kinematic hardening, Mohr-Coulomb) beside a neo-Hookean one, after a
//   plastic load step: the committed history equals the host return at
//   F_bar = (J_bar / J)^(1/3) F computed here from the vertices; in every
//   strategy, cell kernel and thread mapping the internal force, the
//   tangent product, its single-precision product and the diagonal agree;
//   the tangent equals central differences of the internal force.
#include <plastix/backend/device.h>
#include <plastix/backend/device_array.h>
#include <plastix/backend/device_operator.h>
#include <plastix/backend/finite_strain_state.h>
#include <plastix/backend/logarithmic_strain_plasticity.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../checker.h"
#include "box_mesh.h"
#include "cell_deformation.h"
#include "finite_strain_device.h"
#include "hyperelastic_materials.h"
#include "yield_materials.h"

using namespace plastix::backend;

namespace
{
  plastix_test::Checker checker;

  using plastix_test::cell_deformation_gradients;
  using plastix_test::device_apply;
  using plastix_test::device_internal_force;
  using plastix_test::dot;
  using plastix_test::norm;
  using plastix_test::relative_difference;

  /** update() at @p u; returns the internal force. */
  std::vector<double>
  update(FiniteStrainState &state, const std::vector<double> &u)
  {
    DeviceArray<double> src(u, "test u"), f(u.size(), "test f");
    state.update(src.data(), f.data());
    fence();
    return f.to_host();
  }

  /** stored_energy() after update() at @p u. */
  double
  energy_at(FiniteStrainState &state, const std::vector<double> &u)
  {
    update(state, u);
    return state.stored_energy();
  }

  OperatorSettings
  f_bar_settings()
  {
    OperatorSettings settings;
    settings.element_formulation = ElementFormulation::fbar;
    return settings;
  }

  MeshData
  distorted_box()
  {
    BoxMeshDescription desc;
    desc.n_cells[0] = 3;
    desc.n_cells[1] = 2;
    desc.n_cells[2] = 4;
    desc.extent[0]  = 1.5;
    desc.extent[1]  = 0.8;
    desc.extent[2]  = 2.0;
    desc.distortion = 0.2;
    desc.seed       = 11;
    return make_box_mesh(desc, true);
  }

  /** Random values on the free DoFs, zero on the constrained ones. */
  std::vector<double>
  random_field(const MeshData &mesh, std::mt19937 &rng, const double scale)
  {
    std::uniform_real_distribution<double> uniform(-1., 1.);
    std::vector<double>                    v(mesh.n_dofs());
    for (int i = 0; i < mesh.n_dofs(); ++i)
      v[i] = mesh.constrained_dofs[i] == 0 ? scale * uniform(rng) : 0.;
    return v;
  }

  std::vector<bool>
  free_dofs(const MeshData &mesh)
  {
    std::vector<bool> free(mesh.n_dofs());
    for (int i = 0; i < mesh.n_dofs(); ++i)
      free[i] = mesh.constrained_dofs[i] == 0;
    return free;
  }

  MaterialConstants
  hencky_von_mises()
  {
    MaterialConstants m   = plastix_test::hyperelastic_material(200., 0.3, 0., StrainEnergy::hencky);
    m.yield_stress        = 0.4;
    m.isotropic_hardening = 2.;
    m.kinematic_hardening = 5.;
    m.voce_saturation     = 0.3;
    m.voce_rate           = 20.;
    return m;
  }

  MaterialConstants
  hencky_mohr_coulomb()
  {
    MaterialConstants m = plastix_test::mohr_coulomb(100., 0.25, 0.2, 30, 10, 1.);
    m.strain_energy     = StrainEnergy::hencky;
    return m;
  }

  /** The small-strain limit: the F-bar tangent at u = 0 against the B-bar and full elastic operators. */
  void
  check_small_strain_limit()
  {
    MeshData mesh  = distorted_box();
    mesh.materials = {plastix_test::hyperelastic_material(100., 0.49, 0.)};
    std::mt19937              rng(1);
    const std::vector<double> du   = random_field(mesh, rng, 1.);
    const std::vector<bool>   free = free_dofs(mesh);

    DeviceOperator     f_bar(mesh, f_bar_settings());
    FiniteStrainState &state = f_bar.create_finite_strain_state();
    update(state, std::vector<double>(mesh.n_dofs(), 0.));
    f_bar.update_tangent();
    const std::vector<double> K_f_bar = device_apply(f_bar, du);

    OperatorSettings b_bar_settings;
    b_bar_settings.element_formulation = ElementFormulation::bbar;
    const DeviceOperator b_bar(mesh, b_bar_settings);
    const DeviceOperator full(mesh, OperatorSettings());
    checker.check("F-bar tangent at u = 0 vs the B-bar elastic operator",
                  relative_difference(K_f_bar, device_apply(b_bar, du), free), 1e-13);
    const double to_full = relative_difference(K_f_bar, device_apply(full, du), free);
    checker.check_true("F-bar tangent at u = 0 differs from the full elastic operator (" + std::to_string(to_full) +
                         ")",
                       to_full > 1e-2);
  }

  /** A homogeneous deformation: every point has the cell's J, so F-bar is the full element. */
  void
  check_homogeneous_deformation()
  {
    MeshData mesh  = distorted_box();
    mesh.materials = {plastix_test::hyperelastic_material(100., 0.3, 0.2)};
    const double        A[3][3] = {{0.10, 0.05, -0.02}, {0.03, -0.08, 0.04}, {-0.01, 0.02, 0.15}};
    std::vector<double> u(mesh.n_dofs());
    for (LocalIndex n = 0; n < mesh.n_nodes; ++n)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          u[3 * n + i] += A[i][j] * mesh.node_coordinates[3 * n + j];
    DeviceOperator f_bar(mesh, f_bar_settings());
    DeviceOperator full(mesh, OperatorSettings());
    checker.check("homogeneous deformation: F-bar internal force vs full",
                  relative_difference(device_internal_force(f_bar.create_finite_strain_state(), u),
                                      device_internal_force(full.create_finite_strain_state(), u)),
                  1e-13);
  }

  /** Hyperelastic materials: the force is the energy's gradient, the tangent symmetric. */
  void
  check_energy_consistency()
  {
    MeshData mesh  = distorted_box();
    mesh.materials = {plastix_test::hyperelastic_material(100., 0.45, 0.),
                      plastix_test::hyperelastic_material(80., 0.49, 0.3),
                      plastix_test::hyperelastic_material(60., 0.4999, 0., StrainEnergy::isochoric_neo_hookean)};
    for (LocalIndex c = 0; c < mesh.n_cells(); ++c)
      mesh.cell_material[c] = c % 3;
    std::mt19937              rng(2);
    const std::vector<bool>   free = free_dofs(mesh);
    std::vector<double>       u    = random_field(mesh, rng, 0.05);
    for (LocalIndex n = 0; n < mesh.n_nodes; ++n)
      if (mesh.constrained_dofs[3 * n + 2] == 0)
        u[3 * n + 2] += 0.1 * mesh.node_coordinates[3 * n + 2];
    const std::vector<double> v = random_field(mesh, rng, 1.), w = random_field(mesh, rng, 1.);

    DeviceOperator            op(mesh, f_bar_settings());
    FiniteStrainState        &state = op.create_finite_strain_state();
    const std::vector<double> f     = update(state, u);
    op.update_tangent();
    const std::vector<double> Kv = device_apply(op, v), Kw = device_apply(op, w);

    double best = 1e300;
    for (const double h : {1e-4, 1e-5, 1e-6})
      {
        std::vector<double> up = u, um = u;
        for (int i = 0; i < mesh.n_dofs(); ++i)
          {
            up[i] += h * v[i];
            um[i] -= h * v[i];
          }
        const double derivative = (energy_at(state, up) - energy_at(state, um)) / (2 * h);
        best                    = std::min(best, std::abs(derivative - dot(f, v)) / std::abs(dot(f, v)));
      }
    std::printf("energy consistency: |f| %.3e, f.v %.6e\n", norm(f), dot(f, v));
    checker.check("F-bar internal force . v vs central differences of the stored energy", best, 1e-8);
    checker.check("F-bar tangent symmetric: w.Kv vs v.Kw (free rows)",
                  std::abs(dot(w, Kv) - dot(v, Kw)) / std::abs(dot(v, Kw)), 1e-12);
    // The same force in the full element differs (the test sees F-bar).
    DeviceOperator full(mesh, OperatorSettings());
    const double   to_full = relative_difference(device_internal_force(full.create_finite_strain_state(), u), f, free);
    checker.check_true("F-bar internal force differs from the full one (" + std::to_string(to_full) + ")",
                       to_full > 1e-3);
  }

  /** Plasticity in the logarithmic strain with F-bar, in every variant. */
  void
  check_plastic_variants()
  {
    MeshData mesh = distorted_box();
    mesh.materials = {hencky_von_mises(), hencky_mohr_coulomb(), plastix_test::hyperelastic_material(50., 0.3, 0.)};
    for (LocalIndex c = 0; c < mesh.n_cells(); ++c)
      {
        double z = 0;
        for (int a = 0; a < 8; ++a)
          z += mesh.node_coordinates[3 * mesh.cell_nodes[8 * c + a] + 2] / 8;
        mesh.cell_material[c] = z < 0.7 ? 0 : z < 1.4 ? 1 : 2;
      }
    const std::vector<bool> free = free_dofs(mesh);
    std::mt19937            rng(20261201);
    std::vector<double>     u1 = random_field(mesh, rng, 0.02);
    for (LocalIndex n = 0; n < mesh.n_nodes; ++n)
      if (mesh.constrained_dofs[3 * n] == 0)
        u1[3 * n] += 0.08 * mesh.node_coordinates[3 * n];
    std::vector<double> u2 = random_field(mesh, rng, 0.01);
    for (int i = 0; i < mesh.n_dofs(); ++i)
      u2[i] += u1[i];
    const std::vector<double> du = random_field(mesh, rng, 1.);

    std::vector<double> f_reference, Kdu_reference, diagonal_reference, history_reference;
    bool                first = true;
    for (const auto strategy : {Strategy::ebe_atomic, Strategy::ebe_colored, Strategy::dbd, Strategy::ebe_tiled,
                                Strategy::assembled})
      for (const auto kernel : {CellKernel::stored_geometry, CellKernel::geometry_on_the_fly})
        for (const auto mapping : {ThreadMapping::cell, ThreadMapping::node, ThreadMapping::shuffle})
          {
            const bool element_by_element = strategy == Strategy::ebe_atomic || strategy == Strategy::ebe_colored;
            if (!element_by_element && mapping != ThreadMapping::cell)
              continue;
            const std::string what = "F-bar, " + to_string(strategy) + ", " + to_string(kernel) +
                                     (element_by_element ? ", " + to_string(mapping) + " mapping" : std::string());
            OperatorSettings settings    = f_bar_settings();
            settings.strategy            = strategy;
            settings.cell_kernel         = kernel;
            settings.thread_mapping      = mapping;
            settings.cells_per_tile      = 3;
            DeviceOperator     op(mesh, settings);
            FiniteStrainState &state = op.create_finite_strain_state();
            update(state, u1);
            const std::size_t   yielded = state.commit();
            std::vector<double> history(FiniteStrainState::history_values_per_cell * mesh.n_cells());
            state.get_committed_history(history.data());
            const std::vector<double> f = update(state, u2);
            op.update_tangent();
            const std::vector<double> Kdu = device_apply(op, du);
            std::vector<double>       diagonal;
            {
              DeviceArray<double> d(mesh.n_dofs(), "test diagonal");
              op.compute_diagonal(d.data());
              diagonal = d.to_host();
            }
            if (first)
              {
                first = false;
                std::printf("box: %d cells, %d DoFs; %zu of %d points yield in the first step; |f_int| %.3e\n",
                            mesh.n_cells(), mesh.n_dofs(), yielded, 8 * mesh.n_cells(), norm(f));
                std::printf("operator: %s\n", op.description().c_str());
                checker.check_true(what + ": some points yield, not all",
                                   yielded > 8 && yielded < 8 * static_cast<std::size_t>(mesh.n_cells()) - 8);
                f_reference       = f;
                Kdu_reference     = Kdu;
                history_reference = history;
                diagonal_reference.assign(mesh.n_dofs(), 0.);
                std::vector<double> e(mesh.n_dofs(), 0.);
                for (int i = 0; i < mesh.n_dofs(); ++i)
                  if (free[i])
                    {
                      e[i]                  = 1.;
                      diagonal_reference[i] = device_apply(op, e)[i];
                      e[i]                  = 0.;
                    }

                // The committed history against the host return at F_bar(u1), F_bar computed here.
                double history_error = 0, history_scale = 0;
                for (LocalIndex c = 0; c < mesh.n_cells(); ++c)
                  {
                    const MaterialConstants &m = mesh.materials[mesh.cell_material[c]];
                    if (m.strain_energy != StrainEnergy::hencky)
                      continue;
                    std::vector<double> jacobians;
                    auto                F = cell_deformation_gradients(mesh, c, u1, &jacobians);
                    double              J[8], volume = 0, current = 0;
                    for (int q = 0; q < 8; ++q)
                      {
                        const auto &Fq = F[q];
                        J[q] = Fq[0] * (Fq[4] * Fq[8] - Fq[5] * Fq[7]) - Fq[1] * (Fq[3] * Fq[8] - Fq[5] * Fq[6]) +
                               Fq[2] * (Fq[3] * Fq[7] - Fq[4] * Fq[6]);
                        volume += jacobians[q];
                        current += jacobians[q] * J[q];
                      }
                    for (int q = 0; q < 8; ++q)
                      {
                        const double s = std::cbrt(current / volume / J[q]);
                        for (double &x : F[q])
                          x *= s;
                        const double virgin[logarithmic_strain_history_size] = {};
                        const auto   p = logarithmic_strain_return(m, F[q].data(), virgin);
                        for (int k = 0; k < logarithmic_strain_history_size; ++k)
                          {
                            const double stored = history[c * FiniteStrainState::history_values_per_cell + 8 * k + q];
                            history_error       = std::max(history_error, std::abs(stored - p.history[k]));
                            history_scale       = std::max(history_scale, std::abs(p.history[k]));
                          }
                      }
                  }
                checker.check(what + ": committed history vs host return at F_bar(u1)", history_error / history_scale,
                              1e-10);

                // Central differences of the internal force along du, the history held.
                double best = 1e300;
                for (const double h : {1e-5, 1e-6, 1e-7})
                  {
                    std::vector<double> up = u2, um = u2;
                    for (int i = 0; i < mesh.n_dofs(); ++i)
                      {
                        up[i] += h * du[i];
                        um[i] -= h * du[i];
                      }
                    const std::vector<double> fp = device_internal_force(state, up);
                    const std::vector<double> fm = device_internal_force(state, um);
                    std::vector<double>       fd(mesh.n_dofs());
                    for (int i = 0; i < mesh.n_dofs(); ++i)
                      fd[i] = (fp[i] - fm[i]) / (2 * h);
                    best = std::min(best, relative_difference(fd, Kdu, free));
                  }
                checker.check(what + ": tangent vs central differences of the internal force", best, 1e-7);
              }
            else
              {
                checker.check(what + ": committed history vs the first variant's",
                              relative_difference(history, history_reference), 1e-13);
                checker.check(what + ": internal force vs the first variant's", relative_difference(f, f_reference),
                              1e-13);
                checker.check(what + ": tangent apply vs the first variant's (free rows)",
                              relative_difference(Kdu, Kdu_reference, free), 1e-12);
              }
            checker.check(what + ": single-precision tangent apply (free rows)",
                          relative_difference(device_apply<float>(op, du), Kdu_reference, free), 1e-5);
            checker.check(what + ": diagonal vs unit products (free rows)",
                          relative_difference(diagonal, diagonal_reference, free), 1e-12);
          }
  }
} // namespace

int
main()
{
  initialize();
  std::printf("backend: %s\n", device_description().c_str());
  try
    {
      check_small_strain_limit();
      check_homogeneous_deformation();
      check_energy_consistency();
      check_plastic_variants();
    }
  catch (const std::exception &e)
    {
      checker.fail(std::string("exception: ") + e.what());
    }
  finalize();
  std::printf(checker.failures == 0 ? "all checks passed\n" : "%d check(s) FAILED\n", checker.failures);
  return checker.failures == 0 ? 0 : 1;
}
