// Mohr-Coulomb and Drucker-Prager in the operator, on a distorted mesh of
// three materials (Mohr-Coulomb non-associative with cohesion hardening,
// Drucker-Prager associative, J2), 1 and 2 ranks, every operator variant:
//  1. the stress update against an independent host evaluation: the strain
//     at each Gauss point from deal.II's FEValues, the stress from the point
//     return map (backend::pressure_dependent_return_map and j2_return_map
//     on the host), cell averages of stress, accumulated plastic strain and
//     plastic fraction compared with the device's;
//  2. the consistent tangent equals the central difference of the internal
//     force, with points in every return region;
//  3. the tangent is not symmetric with a non-associative material
//     (has_symmetric_tangent() false, v.Aw != w.Av) and symmetric without;
//  4. the initial stress: f_int at u = 0 equals deal.II's assembly of
//     int grad(phi) : sigma_0(x); a stress outside the yield surface or not
//     finite is refused on every rank;
// and NewtonRaphson refuses CG and MINRES on a non-symmetric tangent, and
// impossible materials are refused naming the value;
//  5. on the same mesh without its distortion (a lattice), dbd structured,
//     whose cells with plastic points go element by element (one thread or
//     eight shuffle lanes per cell), gives ebe atomic's internal force and
//     tangent action.

// Test: ranks 1 2
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/core/mechanics_operator.h>
#include <plastix/core/plasticity_state.h>
#include <plastix/material/material.h>
#include <plastix/solvers/linear_solver.h>
#include <plastix/solvers/newton.h>

#include "operator_variants.h"
#include "q1_dofs.h"
#include "test_environment.h"

#include <array>
#include <cmath>
#include <iomanip>
#include <sstream>

using namespace dealii;

namespace
{
  using HostVector = LinearAlgebra::distributed::Vector<double>;

  /**
   * The displacement: a smooth wave plus, by bands in y, a volumetric
   * expansion (to the apex), an axisymmetric compression along z (the edge
   * sigma_1 = sigma_2) and an extension along x (the edge sigma_2 =
   * sigma_3); large enough to yield most points.
   */
  Tensor<1, 3>
  displacement(const Point<3> &x, const double amplitude)
  {
    const auto   band      = [&](const double centre) { return std::exp(-std::pow((x[1] - centre) / 0.25, 2)); };
    const double expansion = band(0.15), compression = band(0.75), extension = band(1.35);
    Tensor<1, 3> u;
    u[0] = amplitude * (0.3 * std::sin(2.1 * x[2] + 0.4 * x[0]) + 0.6 * expansion * x[0] - 0.1 * compression * x[0] +
                        0.9 * extension * x[0]);
    u[1] = amplitude * (0.2 * std::cos(1.7 * x[0]) * x[2] + 0.6 * expansion * x[1] - 0.1 * compression * x[1] -
                        0.2 * extension * x[1]);
    u[2] = amplitude * (0.2 * std::sin(3. * x[0]) + 0.6 * expansion * x[2] - 1.2 * compression * x[2] -
                        0.2 * extension * x[2]);
    return u;
  }

  std::string
  to_scientific(const double x)
  {
    std::ostringstream s;
    s << std::scientific << std::setprecision(2) << x;
    return s.str();
  }

  /** The initial stress: a compressive in-situ state growing with depth (-z), with a little shear. */
  SymmetricTensor<2, 3>
  in_situ(const Point<3> &x)
  {
    SymmetricTensor<2, 3> s;
    s[0][0] = -12 - 2 * x[2];
    s[1][1] = -10 - 2 * x[2];
    s[2][2] = -15 - 3 * x[2];
    s[0][1] = 0.5 + 0.2 * x[0];
    return s;
  }

  struct Mesh
  {
    /** @p distorted false: the lattice of 0.5-cubes that dbd structured takes. */
    explicit Mesh(const MPI_Comm comm, const bool distorted = true)
      : triangulation(comm)
      , dof_handler(triangulation)
    {
      GridGenerator::subdivided_hyper_rectangle(triangulation, {4, 3, 3}, Point<3>(), Point<3>(2, 1.5, 1.5));
      // A smooth distortion (the same on every rank).
      if (distorted)
        GridTools::transform(
          [](const Point<3> &p) {
            return Point<3>(p[0] + 0.08 * std::sin(2 * p[1]) * p[2], p[1] + 0.06 * p[0] * p[2],
                            p[2] + 0.07 * std::cos(1.5 * p[0]) * p[1]);
          },
          triangulation);
      for (const auto &cell : triangulation.active_cell_iterators())
        cell->set_material_id(cell->center()[0] < 0.8 ? 0 : (cell->center()[0] < 1.5 ? 1 : 2));
      relevant = plastix_test::distribute_q1_dofs(dof_handler);
      constraints.reinit(relevant);
      constraints.close();
    }

    /** The nodal interpolation of displacement() on the owned and relevant DoFs. */
    HostVector
    interpolate(const double amplitude) const
    {
      HostVector u(dof_handler.locally_owned_dofs(), relevant, dof_handler.get_communicator());
      std::vector<types::global_dof_index> dofs(24);
      for (const auto &cell : dof_handler.active_cell_iterators())
        if (!cell->is_artificial())
          {
            cell->get_dof_indices(dofs);
            for (unsigned int i = 0; i < 24; ++i)
              {
                const unsigned int c = dof_handler.get_fe().system_to_component_index(i).first;
                const unsigned int v = dof_handler.get_fe().system_to_component_index(i).second;
                if (u.in_local_range(dofs[i]))
                  u[dofs[i]] = displacement(cell->vertex(v), amplitude)[c];
              }
          }
      u.update_ghost_values();
      return u;
    }

    parallel::distributed::Triangulation<3> triangulation;
    DoFHandler<3>                            dof_handler;
    IndexSet                                 relevant;
    AffineConstraints<double>                constraints;
  };

  /**
   * |w.Av - v.Aw| / (|w.Av| + |v.Aw|) of the operator's current tangent A,
   * w the interpolation of displacement(amplitude) times a DoF pattern
   * unlike v's: round-off for a symmetric A.
   */
  double
  asymmetry(const plastix::MechanicsOperator &op, const Mesh &mesh, const plastix::DeviceVector &v,
            const double amplitude)
  {
    HostVector w_host = mesh.interpolate(amplitude);
    w_host.zero_out_ghost_values(); // written below
    for (const auto i : w_host.locally_owned_elements())
      w_host[i] *= 1 + 0.3 * std::sin(0.37 * i);
    plastix::DeviceVector w, Av, Aw;
    for (auto *x : {&w, &Av, &Aw})
      op.initialize_dof_vector(*x);
    w.copy_from_host(w_host);
    op.vmult(Av, v);
    op.vmult(Aw, w);
    return std::abs(w * Av - v * Aw) / (std::abs(w * Av) + std::abs(v * Aw));
  }

  plastix::MaterialTable
  materials(const bool associative_only)
  {
    return {{0, associative_only ? plastix::make_mohr_coulomb(2000, 0.25, 5, 30, 30, 80) :
                                   plastix::make_mohr_coulomb(2000, 0.25, 5, 30, 10, 80)},
            {1, plastix::make_drucker_prager(3000, 0.3, 4, 25, 25, plastix::ConeMatching::outer)},
            {2, plastix::make_material(2500, 0.3, 20, 100, 50)}};
  }
} // namespace

int
main(int argc, char **argv)
{
  return plastix_test::run(argc, argv, [](plastix_test::Environment &env, plastix_test::Checker &checker) {
    Mesh                         mesh(env.comm);
    const plastix::MaterialTable table     = materials(false);
    const double                 amplitude = 0.02;
    const HostVector             u_host    = mesh.interpolate(amplitude);

    env.pout << "1. stress update against the host point return maps (strain from FEValues)" << std::endl;
    // Host reference: JxW-weighted cell averages (stress 6, alpha, plastic fraction), as cell_averages().
    std::vector<std::array<double, 8>> reference;
    unsigned int                       regions_seen[5] = {0, 0, 0, 0, 0};
    {
      const MappingQ<3> mapping(1);
      FEValues<3>       fe_values(mapping, mesh.dof_handler.get_fe(), QGauss<3>(2),
                            update_gradients | update_JxW_values);
      std::vector<types::global_dof_index> dofs(24);
      const double                         zero[6] = {0, 0, 0, 0, 0, 0};
      for (const auto &cell : mesh.dof_handler.active_cell_iterators())
        if (cell->is_locally_owned())
          {
            fe_values.reinit(cell);
            cell->get_dof_indices(dofs);
            const plastix::backend::MaterialConstants &m = table.at(cell->material_id());
            std::array<double, 8>             avg{};
            double                            volume = 0;
            for (unsigned int q = 0; q < 8; ++q)
              {
                Tensor<2, 3> grad;
                for (unsigned int i = 0; i < 24; ++i)
                  {
                    const unsigned int c = mesh.dof_handler.get_fe().system_to_component_index(i).first;
                    grad[c] += u_host[dofs[i]] * fe_values.shape_grad_component(i, q, c);
                  }
                const SymmetricTensor<2, 3> e = symmetrize(grad);
                const double eps[6] = {e[0][0], e[1][1], e[2][2], e[1][2], e[0][2], e[0][1]};
                double       stress[6], alpha = 0;
                bool         plastic;
                if (m.criterion == plastix::backend::YieldCriterion::von_mises)
                  {
                    double tangent[36];
                    plastic = plastix::backend::j2_return_map(m, zero, 0, zero, eps, stress, tangent);
                    // J2's equivalent plastic strain: not recomputed here (alpha compared for the others).
                    alpha = std::nan("");
                  }
                else
                  {
                    const auto r = plastix::backend::pressure_dependent_return_map(m, zero, 0, zero, eps);
                    for (int k = 0; k < 6; ++k)
                      stress[k] = r.stress[k];
                    alpha   = r.alpha;
                    plastic = r.region != plastix::backend::ReturnRegion::elastic;
                    ++regions_seen[static_cast<int>(r.region)];
                  }
                const double JxW = fe_values.JxW(q);
                for (int k = 0; k < 6; ++k)
                  avg[k] += stress[k] * JxW;
                avg[6] += alpha * JxW;
                avg[7] += (plastic ? 1. : 0.) * JxW;
                volume += JxW;
              }
            for (double &a : avg)
              a /= volume;
            reference.push_back(avg);
          }
    }
    for (unsigned int &r : regions_seen)
      r = Utilities::MPI::sum(r, env.comm);
    env.pout << "   pressure-dependent points by region: elastic " << regions_seen[0] << ", smooth " << regions_seen[1]
             << ", left edge " << regions_seen[2] << ", right edge " << regions_seen[3] << ", apex "
             << regions_seen[4] << std::endl;
    checker.check_true("  every return region reached", regions_seen[1] > 0 && regions_seen[2] > 0 &&
                                                              regions_seen[3] > 0 && regions_seen[4] > 0 &&
                                                              regions_seen[0] > 0);

    for (const auto &variant : plastix_test::all_operator_variants(plastix::backend::ElementFormulation::full))
      {
        plastix::MechanicsOperator op;
        op.reinit(mesh.dof_handler, mesh.constraints, table, variant.data);
        plastix::PlasticityState &state = op.enable_plasticity();
        plastix::DeviceVector     u, f, fp, fm, Av, v;
        for (auto *x : {&u, &f, &fp, &fm, &Av, &v})
          op.initialize_dof_vector(*x);
        u.copy_from_host(u_host);
        state.update(u, f);
        const std::vector<double> averages = state.cell_averages();
        double                    error    = 0;
        for (std::size_t c = 0; c < reference.size(); ++c)
          {
            for (int k = 0; k < 6; ++k)
              error = std::max(error, std::abs(averages[10 * c + k] - reference[c][k]) / 5.);
            if (!std::isnan(reference[c][6]))
              error = std::max(error, std::abs(averages[10 * c + 7] - reference[c][6]) * 1e3);
            error = std::max(error, std::abs(averages[10 * c + 8] - reference[c][7]));
          }
        error = Utilities::MPI::max(error, env.comm);
        checker.check("  " + variant.name + ": cell averages of stress, alpha, plastic fraction vs host", error,
                      1e-11);

        // 2. Tangent against the central difference of f_int along v.
        const HostVector dir = mesh.interpolate(1.);
        v.copy_from_host(dir);
        const double h = 1e-7;
        {
          plastix::DeviceVector up;
          op.initialize_dof_vector(up);
          up = u;
          up.add(h, v);
          state.update(up, fp);
          up = u;
          up.add(-h, v);
          state.update(up, fm);
        }
        state.update(u, f);
        op.vmult(Av, v);
        fp.add(-1., fm);
        fp *= 1. / (2 * h);
        const double scale = Av.l2_norm();
        fp.add(-1., Av);
        checker.check("  " + variant.name + ": tangent vs central difference of f_int (relative)",
                      fp.l2_norm() / scale, 1e-6);

        // 3. Not symmetric (material 0 is non-associative).
        const double asym = asymmetry(op, mesh, v, -0.7);
        checker.check_true("  " + variant.name + ": non-associative: has_symmetric_tangent() false, |w.Av - v.Aw| " +
                             "relative " + to_scientific(asym) + " > 1e-8 (round-off: 1e-16)",
                           !op.has_symmetric_tangent() && asym > 1e-8);
      }

    env.pout << "3. associative materials only: a symmetric tangent" << std::endl;
    {
      plastix::MechanicsOperator op;
      op.reinit(mesh.dof_handler, mesh.constraints, materials(true));
      plastix::PlasticityState &state = op.enable_plasticity();
      plastix::DeviceVector     u, f, v;
      for (auto *x : {&u, &f, &v})
        op.initialize_dof_vector(*x);
      u.copy_from_host(u_host);
      const auto stats = state.update(u, f);
      v.copy_from_host(mesh.interpolate(1.));
      const double asym = asymmetry(op, mesh, v, -0.3);
      checker.check_true("  has_symmetric_tangent(), " + std::to_string(stats.n_plastic_points) + " plastic points",
                         op.has_symmetric_tangent() && stats.n_plastic_points > 100);
      checker.check("  |w.Av - v.Aw| relative", asym, 1e-13);
    }

    env.pout << "   Newton refuses CG and MINRES on a non-symmetric tangent, takes GMRES" << std::endl;
    {
      plastix::MechanicsOperator op;
      op.reinit(mesh.dof_handler, mesh.constraints, table);
      op.enable_plasticity();
      plastix::DeviceVector f_ext;
      op.initialize_dof_vector(f_ext);
      for (const auto type : {plastix::SolverType::cg, plastix::SolverType::belos_minres, plastix::SolverType::gmres})
        {
          plastix::LinearSolverData data;
          data.type = type;
          plastix::LinearSolver solver(data);
          bool                  refused = false;
          try
            {
              plastix::NewtonRaphson newton(op, f_ext, solver, [](bool) {});
            }
          catch (const std::invalid_argument &error)
            {
              refused = std::string(error.what()).find("not symmetric") != std::string::npos;
            }
          checker.check_true("  " + plastix::enum_name(type) + (type == plastix::SolverType::gmres ? " taken" : " refused"),
                             refused == (type != plastix::SolverType::gmres));
        }
    }

    env.pout << "   impossible materials are refused, naming the value" << std::endl;
    {
      const auto refused = [](const std::function<void()> &make, const std::string &expected) {
        try
          {
            make();
          }
        catch (const std::invalid_argument &error)
          {
            return std::string(error.what()).find(expected) != std::string::npos;
          }
        return false;
      };
      using plastix::ConeMatching;
      checker.check_true("  friction angle -1", refused([] { plastix::make_mohr_coulomb(2000, 0.2, 5, -1, 0); },
                                                       "friction angle must lie in [0, 90)"));
      checker.check_true("  friction angle 90", refused([] { plastix::make_mohr_coulomb(2000, 0.2, 5, 90, 10); },
                                                       "friction angle must lie in [0, 90)"));
      checker.check_true("  dilation above friction",
                         refused([] { plastix::make_drucker_prager(2000, 0.2, 5, 20, 25, ConeMatching::inner); },
                                 "dilation angle must lie in [0, friction angle"));
      checker.check_true("  negative dilation", refused([] { plastix::make_mohr_coulomb(2000, 0.2, 5, 20, -1); },
                                                       "dilation angle must lie in [0, friction angle"));
      checker.check_true("  negative cohesion", refused([] { plastix::make_mohr_coulomb(2000, 0.2, -5, 20, 20); },
                                                       "cohesion must be positive"));
      checker.check_true("  NaN cohesion", refused([] { plastix::make_mohr_coulomb(2000, 0.2, std::nan(""), 20, 20); },
                                                  "cohesion must be positive"));
      checker.check_true("  negative hardening",
                         refused([] { plastix::make_drucker_prager(2000, 0.2, 5, 20, 20, ConeMatching::outer, -1); },
                                 "cohesion hardening modulus"));
      checker.check_true("  nu = 0.5", refused([] { plastix::make_mohr_coulomb(2000, 0.5, 5, 20, 20); },
                                              "Poisson's ratio"));
      // The plane-strain cone: eta = 3 tan(phi) / sqrt(9 + 12 tan^2(phi)), xi = 3 / sqrt(...).
      const auto   dp = plastix::make_drucker_prager(2000, 0.2, 5, 30, 30, ConeMatching::plane_strain);
      const double t  = std::tan(30 * numbers::PI / 180);
      checker.check("  plane-strain cone constants", std::abs(dp.cone_eta - 3 * t / std::sqrt(9 + 12 * t * t)) +
                                                       std::abs(dp.cone_xi - 3 / std::sqrt(9 + 12 * t * t)),
                    1e-15);
    }

    env.pout << "4. initial stress" << std::endl;
    {
      plastix::MechanicsOperator op;
      // Pressure-dependent materials everywhere (the J2 cells would ignore sigma_0).
      plastix::MaterialTable all = table;
      all[2]                     = plastix::make_mohr_coulomb(2500, 0.3, 6, 35, 35);
      op.reinit(mesh.dof_handler, mesh.constraints, all);
      plastix::PlasticityState &state = op.enable_plasticity();
      state.set_initial_stress(mesh.dof_handler, in_situ);
      plastix::DeviceVector u, f;
      op.initialize_dof_vector(u);
      op.initialize_dof_vector(f);
      const auto stats = state.update(u, f);
      checker.check_true("  u = 0 with sigma_0 inside the yield surfaces: no plastic point", stats.n_plastic_points == 0);
      // deal.II: int grad(phi_i) : sigma_0.
      HostVector reference_force(mesh.dof_handler.locally_owned_dofs(), mesh.relevant, env.comm);
      {
        const MappingQ<3> mapping(1);
        FEValues<3>       fe_values(mapping, mesh.dof_handler.get_fe(), QGauss<3>(2),
                              update_gradients | update_quadrature_points | update_JxW_values);
        std::vector<types::global_dof_index> dofs(24);
        for (const auto &cell : mesh.dof_handler.active_cell_iterators())
          if (cell->is_locally_owned())
            {
              fe_values.reinit(cell);
              cell->get_dof_indices(dofs);
              for (unsigned int q = 0; q < 8; ++q)
                {
                  const SymmetricTensor<2, 3> s = in_situ(fe_values.quadrature_point(q));
                  for (unsigned int i = 0; i < 24; ++i)
                    {
                      const unsigned int c = mesh.dof_handler.get_fe().system_to_component_index(i).first;
                      const Tensor<1, 3> g = fe_values.shape_grad_component(i, q, c);
                      reference_force[dofs[i]] += (s[c][0] * g[0] + s[c][1] * g[1] + s[c][2] * g[2]) * fe_values.JxW(q);
                    }
                }
            }
        reference_force.compress(VectorOperation::add);
      }
      HostVector device_force(mesh.dof_handler.locally_owned_dofs(), env.comm);
      f.copy_to_host(device_force);
      HostVector difference(mesh.dof_handler.locally_owned_dofs(), env.comm);
      for (const auto i : difference.locally_owned_elements())
        difference[i] = device_force[i] - reference_force[i];
      checker.check("  f_int(u = 0) = int grad(phi) : sigma_0(x) (relative)",
                    difference.l2_norm() / reference_force.l2_norm(), 1e-13);

      const auto refused = [&](const std::function<SymmetricTensor<2, 3>(const Point<3> &)> &sigma_0,
                               const std::string                                             &expected) {
        try
          {
            state.set_initial_stress(mesh.dof_handler, sigma_0);
          }
        catch (const std::exception &error)
          {
            env.pout << "   refused: " << error.what() << std::endl;
            return std::string(error.what()).find(expected) != std::string::npos;
          }
        return false;
      };
      checker.check_true("  a tensile initial stress beyond the apex is refused (every rank)",
                         refused([](const Point<3> &) { return SymmetricTensor<2, 3>(unit_symmetric_tensor<3>() * 50.); },
                                 "lies outside its yield surface"));
      checker.check_true("  a non-finite initial stress is refused (every rank)",
                         refused(
                           [](const Point<3> &x) {
                             SymmetricTensor<2, 3> s = in_situ(x);
                             if (x[0] > 1.7)
                               s[1][2] = std::nan("");
                             return s;
                           },
                           "is not finite"));
      // The mesh of the other cases has von Mises cells (material id 2).
      plastix::MechanicsOperator mixed;
      mixed.reinit(mesh.dof_handler, mesh.constraints, table);
      plastix::PlasticityState &mixed_state = mixed.enable_plasticity();
      bool refused_j2 = false;
      try
        {
          mixed_state.set_initial_stress(mesh.dof_handler, in_situ);
        }
      catch (const std::exception &error)
        {
          env.pout << "   refused: " << error.what() << std::endl;
          refused_j2 = std::string(error.what()).find("takes no initial stress") != std::string::npos;
        }
      checker.check_true("  a non-zero initial stress at a von Mises cell is refused (every rank)", refused_j2);
    }

    env.pout << "5. dbd structured on the undistorted mesh (a lattice): its plastic cells by one thread and by "
                "shuffle lanes, against ebe atomic"
             << std::endl;
    {
      const Mesh       lattice(env.comm, false);
      const HostVector u_lattice = lattice.interpolate(amplitude), v_lattice = lattice.interpolate(1.);
      // Per variant: the internal force and the tangent's action on v, owned entries.
      const auto evaluate = [&](const plastix::MechanicsOperator::AdditionalData &data, unsigned long long &n_plastic) {
        plastix::MechanicsOperator op;
        op.reinit(lattice.dof_handler, lattice.constraints, table, data);
        plastix::PlasticityState &state = op.enable_plasticity();
        plastix::DeviceVector     u, f, v, Av;
        for (auto *x : {&u, &f, &v, &Av})
          op.initialize_dof_vector(*x);
        u.copy_from_host(u_lattice);
        v.copy_from_host(v_lattice);
        n_plastic = state.update(u, f).n_plastic_points; // over all ranks
        op.vmult(Av, v);
        std::array<HostVector, 2> result;
        for (unsigned int k = 0; k < 2; ++k)
          {
            result[k].reinit(lattice.dof_handler.locally_owned_dofs(), env.comm);
            (k == 0 ? f : Av).copy_to_host(result[k]);
          }
        return result;
      };
      const auto difference = [](const HostVector &a, const HostVector &b) {
        HostVector d(a);
        d.add(-1., b);
        return d.l2_norm() / b.l2_norm();
      };
      using plastix::backend::CellKernel;
      using plastix::backend::Strategy;
      using plastix::backend::ThreadMapping;
      unsigned long long n_reference = 0;
      const auto reference = evaluate({Strategy::ebe_atomic, CellKernel::geometry_on_the_fly, ThreadMapping::cell},
                                      n_reference);
      checker.check_true("  points yield on the lattice (" + std::to_string(n_reference) + ")", n_reference > 0);
      for (const auto kernel : {CellKernel::geometry_on_the_fly, CellKernel::stored_geometry})
        for (const auto mapping : {ThreadMapping::cell, ThreadMapping::shuffle})
          {
            const std::string name = "dbd structured, " + plastix::backend::to_string(kernel) + ", " +
                                     plastix::backend::to_string(mapping);
            unsigned long long n_plastic = 0;
            const auto         result    = evaluate({Strategy::dbd_structured, kernel, mapping}, n_plastic);
            checker.check_true("  " + name + ": the same plastic points", n_plastic == n_reference);
            checker.check("  " + name + ": f_int vs ebe atomic (relative)", difference(result[0], reference[0]), 1e-12);
            checker.check("  " + name + ": tangent action vs ebe atomic (relative)", difference(result[1], reference[1]),
                          1e-12);
          }
    }
  });
}
