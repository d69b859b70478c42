// DeviceOperator with a FiniteStrainState (total-Lagrangian compressible
// Mooney-Rivlin) on a distorted box with two materials and a clamped face,
// in every strategy, cell kernel and thread mapping that takes it: the
// internal force and the tangent product against the sums of the host cell
// kernels (plastix/backend/hyperelasticity.h) over the cells, the diagonal
// against the host tangent's, the tangent against central differences of
// the device's internal force, its symmetry, the single-precision tangent,
// the settings that refuse finite strain, the count of inverted points, and
// the elastic operator again after release_finite_strain_state().
#include <plastix/backend/device.h>
#include <plastix/backend/device_array.h>
#include <plastix/backend/device_operator.h>
#include <plastix/backend/finite_strain_state.h>
#include <plastix/backend/hyperelasticity.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../checker.h"
#include "finite_strain_device.h"
#include "hyperelastic_materials.h"
#include "box_mesh.h"

using namespace plastix::backend;

namespace
{
  plastix_test::Checker checker;

  using plastix_test::device_apply;
  using plastix_test::device_internal_force;
  using plastix_test::dot;
  using plastix_test::norm;
  using plastix_test::relative_difference;

  /** The host reference: sum over the cells of the host cell kernels; @p du null gives the internal force. */
  std::vector<double>
  host_sum(const MeshData &mesh, const std::vector<double> &u, const std::vector<double> *du)
  {
    std::vector<double> f(mesh.n_dofs(), 0.);
    for (LocalIndex c = 0; c < mesh.n_cells(); ++c)
      {
        double X[24], uc[24], duc[24], fc[24];
        for (int a = 0; a < 8; ++a)
          for (int i = 0; i < 3; ++i)
            {
              const LocalIndex node = mesh.cell_nodes[8 * c + a];
              X[3 * a + i]          = mesh.node_coordinates[3 * node + i];
              uc[3 * a + i]         = u[3 * node + i];
              duc[3 * a + i]        = du != nullptr ? (*du)[3 * node + i] : 0.;
            }
        const MaterialConstants &m = mesh.materials[mesh.cell_material[c]];
        if (du == nullptr)
          hyperelastic_cell_force(m, X, uc, fc);
        else
          hyperelastic_cell_tangent(m, X, uc, duc, fc);
        for (int a = 0; a < 8; ++a)
          for (int i = 0; i < 3; ++i)
            f[3 * mesh.cell_nodes[8 * c + a] + i] += fc[3 * a + i];
      }
    return f;
  }

  bool
  refused(const MeshData &mesh, const OperatorSettings &settings, const std::string &expected)
  {
    try
      {
        DeviceOperator op(mesh, settings);
        op.create_finite_strain_state();
      }
    catch (const std::invalid_argument &e)
      {
        return std::string(e.what()).find(expected) != std::string::npos;
      }
    return false;
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
      desc.seed       = 11;
      MeshData mesh   = make_box_mesh(desc, true);
      // Two rubbers: neo-Hookean below z = 1, Mooney-Rivlin above.
      mesh.materials = {plastix_test::hyperelastic_material(1., 0.3, 0.),
                        plastix_test::hyperelastic_material(3., 0.45, 0.3)};
      for (LocalIndex c = 0; c < mesh.n_cells(); ++c)
        {
          double z = 0;
          for (int a = 0; a < 8; ++a)
            z += mesh.node_coordinates[3 * mesh.cell_nodes[8 * c + a] + 2] / 8;
          mesh.cell_material[c] = z > 1. ? 1 : 0;
        }
      std::vector<bool> free(mesh.n_dofs());
      for (int i = 0; i < mesh.n_dofs(); ++i)
        free[i] = mesh.constrained_dofs[i] == 0;

      // A displacement of 5 % of the box (zero on the clamped face) and increments.
      std::mt19937                           rng(20261129);
      std::uniform_real_distribution<double> uniform(-1., 1.);
      std::vector<double>                    u(mesh.n_dofs()), du(mesh.n_dofs()), dw(mesh.n_dofs());
      for (int i = 0; i < mesh.n_dofs(); ++i)
        {
          u[i]  = free[i] ? 0.05 * uniform(rng) : 0.;
          du[i] = free[i] ? uniform(rng) : 0.;
          dw[i] = free[i] ? uniform(rng) : 0.;
        }
      const std::vector<double> f_host  = host_sum(mesh, u, nullptr);
      const std::vector<double> Kdu     = host_sum(mesh, u, &du);
      std::vector<double>       diagonal(mesh.n_dofs(), 0.);
      {
        // The host tangent's diagonal from unit increments (small mesh).
        std::vector<double> e(mesh.n_dofs(), 0.);
        for (int i = 0; i < mesh.n_dofs(); ++i)
          if (free[i])
            {
              e[i]        = 1.;
              diagonal[i] = host_sum(mesh, u, &e)[i];
              e[i]        = 0.;
            }
      }
      std::printf("box: %d cells, %d DoFs; |f_int| %.3e, |K du| %.3e\n", mesh.n_cells(), mesh.n_dofs(), norm(f_host),
                  norm(Kdu));

      OperatorSettings structured;
      structured.strategy = Strategy::dbd_structured;
      {
        BoxMeshDescription lattice = desc;
        lattice.distortion         = 0;
        checker.check_true("dbd structured (on a lattice) refused",
                           refused(make_box_mesh(lattice, true), structured, "other than dbd structured"));
      }
      OperatorSettings matrices;
      matrices.cell_kernel = CellKernel::element_matrix;
      OperatorSettings bbar;
      bbar.element_formulation = ElementFormulation::bbar;
      checker.check_true("element-matrix cell kernel refused", refused(mesh, matrices, "quadrature cell kernel"));
      checker.check_true("B-bar refused", refused(mesh, bbar, "small-strain element formulation"));

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
              {
                DeviceArray<double> src(u, "test u"), f(u.size(), "test f");
                const std::size_t   inverted = state.update(src.data(), f.data());
                op.update_tangent();
                fence();
                checker.check_true(what + ": no inverted points", inverted == 0);
                checker.check(what + ": update()'s internal force vs host cells",
                              relative_difference(f.to_host(), f_host), 1e-13);
              }
              checker.check(what + ": internal_force() vs host cells",
                            relative_difference(device_internal_force(state, u), f_host), 1e-13);
              const std::vector<double> r = device_apply(op, du);
              checker.check(what + ": tangent apply vs host cells (free rows)", relative_difference(r, Kdu, free),
                            1e-12);
              double unit_rows = 0;
              for (int i = 0; i < mesh.n_dofs(); ++i)
                if (!free[i])
                  unit_rows = std::max(unit_rows, std::abs(r[i] - du[i]));
              checker.check(what + ": unit rows at the clamped DoFs", unit_rows, 0.);
              checker.check(what + ": single-precision tangent apply (free rows)",
                            relative_difference(device_apply<float>(op, du), Kdu, free), 1e-5);
              {
                DeviceArray<double> d(mesh.n_dofs(), "test diagonal");
                op.compute_diagonal(d.data());
                checker.check(what + ": diagonal vs host tangent (free rows)",
                              relative_difference(d.to_host(), diagonal, free), 1e-12);
              }
              const std::vector<double> rw = device_apply(op, dw);
              checker.check(what + ": tangent symmetric, |dw.K du - du.K dw| / (|dw| |K du|)",
                            std::abs(dot(dw, r) - dot(du, rw)) / (norm(dw) * norm(r)), 1e-13);
              if (strategy == Strategy::ebe_atomic && kernel == CellKernel::stored_geometry &&
                  mapping == ThreadMapping::cell)
                {
                  // Central differences of the device's internal force along du.
                  double best = 1e300;
                  for (const double h : {1e-4, 1e-5, 1e-6})
                    {
                      std::vector<double> up = u, um = u;
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
                      best = std::min(best, relative_difference(fd, r, free));
                    }
                  checker.check(what + ": tangent vs central differences of the internal force", best, 1e-8);

                  // An inverted cell: the top layer pushed through the bottom of the box.
                  std::vector<double> crushed(mesh.n_dofs(), 0.);
                  for (LocalIndex n = 0; n < mesh.n_nodes; ++n)
                    if (mesh.node_coordinates[3 * n + 2] > 1.99)
                      crushed[3 * n + 2] = -1.9;
                  DeviceArray<double> src(crushed, "test crushed");
                  const std::size_t   inverted = state.update(src.data(), nullptr);
                  checker.check_true(what + ": crushed top layer: inverted points counted (" +
                                       std::to_string(inverted) + ")",
                                     inverted > 0);

                  // The operator is elastic again after release, and refuses a plasticity state while finite.
                  op.create_finite_strain_state();
                  bool plasticity_refused = false;
                  try
                    {
                      op.create_plasticity_state();
                    }
                  catch (const std::invalid_argument &)
                    {
                      plasticity_refused = true;
                    }
                  checker.check_true(what + ": a plasticity state is refused while finite strain", plasticity_refused);
                  const std::vector<double> at_identity = device_apply(op, du);
                  op.release_finite_strain_state();
                  checker.check(what + ": the tangent at u = 0 is the elastic operator",
                                relative_difference(at_identity, device_apply(op, du), free), 1e-13);
                  checker.check_true(what + ": no state after release", op.finite_strain_state() == nullptr);
                }
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
