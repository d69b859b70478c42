// DeviceOperator with a FiniteStrainState whose materials are elastoplastic
// in the logarithmic strain space (StrainEnergy::hencky: J2 with Voce and
// kinematic hardening, non-associative Mohr-Coulomb) beside a neo-Hookean
// one, on a distorted box with a clamped face, in every strategy, cell
// kernel and thread mapping that takes finite strain: after a plastic load
// step (update, commit), at a further displacement the internal force, the
// tangent product, its single-precision product and the diagonal agree
// across the variants; the tangent equals central differences of the
// device's internal force with the committed history held; the committed
// history equals the host return (logarithmic_strain_return() at the
// deformation gradients of the cells' Gauss points) and survives a
// round trip through get/set_committed_history(); a state whose history is
// reset to zero gives another force.
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

} // namespace

int
main()
{
  initialize();
  std::printf("backend: %s\n", device_description().c_str());
  try
    {
      BoxMeshDescription desc;
      desc.n_cells[0] = 3;
      desc.n_cells[1] = 2;
      desc.n_cells[2] = 4;
      desc.extent[0]  = 1.5;
      desc.extent[1]  = 0.8;
      desc.extent[2]  = 2.0;
      desc.distortion = 0.2;
      desc.seed       = 7;
      MeshData mesh   = make_box_mesh(desc, true);
      // J2 below z = 0.7, Mohr-Coulomb up to 1.4, neo-Hookean above.
      mesh.materials = {hencky_von_mises(), hencky_mohr_coulomb(), plastix_test::hyperelastic_material(50., 0.3, 0.)};
      for (LocalIndex c = 0; c < mesh.n_cells(); ++c)
        {
          double z = 0;
          for (int a = 0; a < 8; ++a)
            z += mesh.node_coordinates[3 * mesh.cell_nodes[8 * c + a] + 2] / 8;
          mesh.cell_material[c] = z < 0.7 ? 0 : z < 1.4 ? 1 : 2;
        }
      std::vector<bool> free(mesh.n_dofs());
      for (int i = 0; i < mesh.n_dofs(); ++i)
        free[i] = mesh.constrained_dofs[i] == 0;

      // A load step of about 8 % strain (stretch along z, random part), then a further 1 %.
      std::mt19937                           rng(20261201);
      std::uniform_real_distribution<double> uniform(-1., 1.);
      std::vector<double> u1(mesh.n_dofs()), u2(mesh.n_dofs()), du(mesh.n_dofs());
      for (LocalIndex n = 0; n < mesh.n_nodes; ++n)
        for (int i = 0; i < 3; ++i)
          {
            const int    dof = 3 * n + i;
            const double x   = mesh.node_coordinates[3 * n];
            u1[dof] = free[dof] ? (i == 0 ? 0.08 * x : 0.) + 0.02 * uniform(rng) : 0.;
            u2[dof] = free[dof] ? u1[dof] + 0.01 * uniform(rng) : 0.;
            du[dof] = free[dof] ? uniform(rng) : 0.;
          }

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
              const std::string what = to_string(strategy) + ", " + to_string(kernel) +
                                       (element_by_element ? ", " + to_string(mapping) + " mapping" : std::string());
              OperatorSettings settings;
              settings.strategy       = strategy;
              settings.cell_kernel    = kernel;
              settings.thread_mapping = mapping;
              settings.cells_per_tile = 3;
              DeviceOperator     op(mesh, settings);
              FiniteStrainState &state = op.create_finite_strain_state();
              checker.check_true(what + ": the state holds a history", state.has_history());
              update(state, u1);
              const std::size_t yielded = state.commit();
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

                  // The committed history against the host return at each point's F(u1).
                  double history_error = 0, history_scale = 0;
                  for (LocalIndex c = 0; c < mesh.n_cells(); ++c)
                    {
                      const MaterialConstants &m = mesh.materials[mesh.cell_material[c]];
                      if (m.strain_energy != StrainEnergy::hencky)
                        continue;
                      const auto F = cell_deformation_gradients(mesh, c, u1);
                      for (int q = 0; q < 8; ++q)
                        {
                          const double virgin[logarithmic_strain_history_size] = {};
                          const auto   p = logarithmic_strain_return(m, F[q].data(), virgin);
                          for (int k = 0; k < logarithmic_strain_history_size; ++k)
                            {
                              const double stored = history[c * FiniteStrainState::history_values_per_cell + 8 * k + q];
                              history_error = std::max(history_error, std::abs(stored - p.history[k]));
                              history_scale = std::max(history_scale, std::abs(p.history[k]));
                            }
                        }
                    }
                  checker.check(what + ": committed history vs host return at F(u1)", history_error / history_scale,
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

                  // A round trip of the history, and a reset history that changes the force.
                  std::vector<double> zero(history.size(), 0.);
                  state.set_committed_history(zero.data());
                  const double reset_change = relative_difference(device_internal_force(state, u2), f);
                  state.set_committed_history(history.data());
                  checker.check_true(what + ": a zero history changes the internal force (" +
                                       std::to_string(reset_change) + ")",
                                     reset_change > 1e-3);
                  checker.check(what + ": history round trip gives the same internal force",
                                relative_difference(device_internal_force(state, u2), f), 0.);
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
  catch (const std::exception &e)
    {
      checker.fail(std::string("exception: ") + e.what());
    }
  finalize();
  std::printf(checker.failures == 0 ? "all checks passed\n" : "%d check(s) FAILED\n", checker.failures);
  return checker.failures == 0 ? 0 : 1;
}
