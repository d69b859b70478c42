// An independent host implementation of incremental small-strain J2
// elastoplasticity for the plasticity tests: deal.II FEValues assembly of the
// internal force and of the consistent tangent matrix (Trilinos), its own
// radial return written from the textbook formulas (Simo & Hughes 1998,
// box 3.2, with linear isotropic and Prager kinematic hardening), its own
// Dirichlet constraints and external force from the run parameters, and
// Newton's method with a direct solver (MUMPS or KLU through Amesos) per
// load step. Full integration or B-bar (mean dilatation, written from
// Hughes 1980: the volumetric part of the strain and of B replaced by its
// cell average) as the parameters' Operator/Element formulation says.
//
// Nothing of plastix is called except the parameter structs (what the user
// asked for) and, by the tests, the mesh and DoFHandler of
// plastix::Discretization, so that the vectors of both share one numbering.
#ifndef PLASTIX_TESTS_HOST_J2_REFERENCE_H
#define PLASTIX_TESTS_HOST_J2_REFERENCE_H

#include <deal.II/base/function.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/sparsity_tools.h>
#include <deal.II/lac/trilinos_solver.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include "parameters.h"

#include <array>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <stdexcept>
#include <vector>

namespace host_reference
{
  using namespace dealii;

  /** Material constants (Lame, bulk, yield, hardening). */
  struct Material
  {
    double lambda = 0, mu = 0, bulk = 0, yield_stress = 0, H = 0, H_kin = 0;
    /** Voce saturation sigma_inf - sigma_0 (0: none) and its rate. */
    double saturation = 0, rate = 0;
    /** A tabulated yield stress (alpha, sigma_y), linear between the points, constant beyond; empty: none. */
    std::vector<std::array<double, 2>> table;

    /** The table's piece [k - 1, k] that holds @p alpha (table.size() past the last point). */
    std::size_t
    table_piece(const double alpha) const
    {
      std::size_t k = 1;
      while (k < table.size() && alpha >= table[k][0])
        ++k;
      return k;
    }

    /** The yield stress at the accumulated plastic strain @p alpha. */
    double
    kappa(const double alpha) const
    {
      if (!table.empty())
        {
          const std::size_t k = table_piece(alpha);
          if (k == table.size())
            return table.back()[1];
          const double t = (alpha - table[k - 1][0]) / (table[k][0] - table[k - 1][0]);
          return (1 - t) * table[k - 1][1] + t * table[k][1];
        }
      return yield_stress + H * alpha + saturation * (1 - std::exp(-rate * alpha));
    }

    /** Its slope (from the right at the table's points). */
    double
    slope(const double alpha) const
    {
      if (!table.empty())
        {
          const std::size_t k = table_piece(alpha);
          return k == table.size() ? 0. : (table[k][1] - table[k - 1][1]) / (table[k][0] - table[k - 1][0]);
        }
      return H + saturation * rate * std::exp(-rate * alpha);
    }
  };

  inline Material
  make_material(const plastix::MaterialDescription &d)
  {
    Material m;
    const double E = d.young_modulus, nu = d.poisson_ratio;
    m.lambda       = E * nu / ((1 + nu) * (1 - 2 * nu));
    m.mu           = E / (2 * (1 + nu));
    m.bulk         = E / (3 * (1 - 2 * nu));
    m.yield_stress = d.yield_stress;
    m.H            = d.isotropic_hardening;
    m.H_kin        = d.kinematic_hardening;
    if (d.saturation_yield_stress > d.yield_stress)
      {
        m.saturation = d.saturation_yield_stress - d.yield_stress;
        m.rate       = d.saturation_rate;
      }
    // The table's points as plastix parsed them (its data, not its return).
    const plastix::backend::MaterialConstants constants = d.make("host reference");
    for (int k = 0; k < constants.hardening_points; ++k)
      m.table.push_back({{constants.hardening_alpha[k], constants.hardening_stress[k]}});
    if (!m.table.empty())
      m.yield_stress = m.table[0][1];
    return m;
  }

  /** History of one Gauss point: plastic strain, equivalent plastic strain, back stress (tensor components). */
  struct History
  {
    double plastic_strain[6] = {0, 0, 0, 0, 0, 0};
    double alpha             = 0;
    double back_stress[6]    = {0, 0, 0, 0, 0, 0};
  };

  /**
   * Radial return for the total strain @p eps (tensor components xx, yy, zz,
   * yz, xz, xy) from the history @p old: stress (tensor components), the
   * consistent tangent as a 6x6 Voigt matrix acting on engineering strains
   * (d sigma_i = D_ij d gamma_j, gamma_j = 2 eps_j for shears) and the new
   * history. Returns whether the point yields.
   */
  inline bool
  return_map(const Material &m, const History &old, const double eps[6], double stress[6], double D[6][6], History &now)
  {
    // Elastic trial: sigma_tr = lambda tr(e_el) I + 2 mu e_el.
    double e_el[6];
    for (int k = 0; k < 6; ++k)
      e_el[k] = eps[k] - old.plastic_strain[k];
    const double tr = e_el[0] + e_el[1] + e_el[2];
    double       trial[6];
    for (int k = 0; k < 6; ++k)
      trial[k] = 2 * m.mu * e_el[k] + (k < 3 ? m.lambda * tr : 0.);
    // Relative deviatoric stress xi = dev(sigma_tr) - beta and its norm.
    const double p = (trial[0] + trial[1] + trial[2]) / 3;
    double       xi[6];
    for (int k = 0; k < 6; ++k)
      xi[k] = trial[k] - (k < 3 ? p : 0.) - old.back_stress[k];
    const double xi_norm = std::sqrt(xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2] +
                                     2 * (xi[3] * xi[3] + xi[4] * xi[4] + xi[5] * xi[5]));
    const double q_trial = std::sqrt(1.5) * xi_norm;
    const double f       = q_trial - m.kappa(old.alpha);
    now                  = old;
    // Voigt helpers: m m^T (volumetric) and the deviatoric projector on engineering strains.
    auto identity_dev = [](const int i, const int j) {
      return (i == j ? (i < 3 ? 1. : 0.5) : 0.) - (i < 3 && j < 3 ? 1. / 3. : 0.);
    };
    if (!(m.yield_stress > 0 && f > 0))
      {
        for (int k = 0; k < 6; ++k)
          stress[k] = trial[k];
        for (int i = 0; i < 6; ++i)
          for (int j = 0; j < 6; ++j)
            D[i][j] = (i < 3 && j < 3 ? m.bulk : 0.) + 2 * m.mu * identity_dev(i, j);
        return false;
      }
    // q_trial - (3 mu + H_kin) dgamma = kappa(alpha + dgamma): closed form for linear hardening, bisection
    // on [0, f / (3 mu + H_kin)] with Voce saturation.
    double dgamma = f / (3 * m.mu + m.H + m.H_kin);
    if (m.saturation > 0 || !m.table.empty())
      {
        double lo = 0, hi = f / (3 * m.mu + m.H_kin);
        for (int i = 0; i < 100 && hi - lo > 1e-16 * hi; ++i)
          {
            const double mid = 0.5 * (lo + hi);
            (q_trial - (3 * m.mu + m.H_kin) * mid - m.kappa(old.alpha + mid) > 0 ? lo : hi) = mid;
          }
        dgamma = 0.5 * (lo + hi);
      }
    double       n[6];
    for (int k = 0; k < 6; ++k)
      n[k] = xi[k] / xi_norm;
    for (int k = 0; k < 6; ++k)
      {
        stress[k] = trial[k] - 2 * m.mu * std::sqrt(1.5) * dgamma * n[k];
        now.plastic_strain[k] += std::sqrt(1.5) * dgamma * n[k];
        now.back_stress[k] += std::sqrt(2. / 3.) * m.H_kin * dgamma * n[k];
      }
    now.alpha += dgamma;
    // Consistent tangent (Simo & Hughes eq. 3.3.14 with H -> H + H_kin).
    const double theta     = 1 - 3 * m.mu * dgamma / q_trial;
    const double theta_bar = 1 / (1 + (m.slope(now.alpha) + m.H_kin) / (3 * m.mu)) - (1 - theta);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j)
        D[i][j] = (i < 3 && j < 3 ? m.bulk : 0.) + 2 * m.mu * theta * identity_dev(i, j) -
                  2 * m.mu * theta_bar * n[i] * n[j];
    return true;
  }

  /** Outcome of one load step. */
  struct StepResult
  {
    bool                converged  = false;
    unsigned int        iterations = 0;
    double              relative_residual = 0;
    unsigned long long  plastic_points = 0, plastic_cells = 0;
    std::vector<double> residual_history;
  };

  /**
   * The host reference problem on a (possibly distributed) DoFHandler with
   * FESystem(FE_Q(1), 3), trilinear mapping and 2x2x2 Gauss points.
   */
  class Problem
  {
  public:
    Problem(const plastix::Parameters &parameters, const DoFHandler<3> &dof_handler)
      : parameters(parameters)
      , dof_handler(dof_handler)
      , bbar(parameters.op.element_formulation == plastix::backend::ElementFormulation::bbar)
      , communicator(dof_handler.get_communicator())
      , mapping(1)
      , quadrature(2)
    {
      if (parameters.boundary.body_force.norm() != 0)
        throw std::logic_error("host reference: body forces are not implemented");
      owned = dof_handler.locally_owned_dofs();
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);

      // Dirichlet values at load factor 1 and the homogeneous constraints of the Newton updates.
      dirichlet.reinit(relevant);
      for (const auto &c : parameters.boundary.dirichlet)
        {
          Vector<double> values(3);
          for (unsigned int d = 0; d < 3; ++d)
            values[d] = c.values[d];
          VectorTools::interpolate_boundary_values(mapping, dof_handler, c.boundary_id,
                                                   Functions::ConstantFunction<3>(values), dirichlet,
                                                   ComponentMask(std::vector<bool>(c.components.begin(),
                                                                                   c.components.end())));
        }
      dirichlet.close();
      zero.reinit(relevant);
      for (const auto i : relevant)
        if (dirichlet.is_constrained(i))
          zero.add_line(i);
      zero.close();

      DynamicSparsityPattern dsp(relevant);
      DoFTools::make_sparsity_pattern(dof_handler, dsp, zero, false);
      SparsityTools::distribute_sparsity_pattern(dsp, owned, communicator, relevant);
      matrix.reinit(owned, owned, dsp, communicator);

      u.reinit(owned, communicator);
      du.reinit(owned, communicator);
      // Writable ghost rows: cells add to DoFs that other ranks own.
      f_ext.reinit(owned, relevant, communicator, true);
      f_int.reinit(owned, relevant, communicator, true);
      predictor_rhs.reinit(owned, relevant, communicator, true);
      residual.reinit(owned, communicator);
      u_ghosted.reinit(owned, relevant, communicator);

      const auto &tria = dof_handler.get_triangulation();
      committed.assign(8 * tria.n_active_cells(), History());
      trial = committed;
      assemble_external_force();
    }

    /**
     * Internal force (all rows) and, if wanted, the tangent matrix at
     * @p displacement from the committed history. With @p increment (the
     * prescribed increments as inhomogeneous constraints), the matrix and
     * the right-hand side predictor_rhs = -f_int - K_fc increment (free
     * rows), diagonal x increment (prescribed rows) are assembled through
     * deal.II's inhomogeneous distribute_local_to_global instead.
     */
    void
    evaluate(const TrilinosWrappers::MPI::Vector &displacement,
             const bool                           with_matrix,
             const AffineConstraints<double>     *increment = nullptr)
    {
      u_ghosted = displacement;
      FEValues<3> fe_values(mapping, dof_handler.get_fe(), quadrature, update_gradients | update_JxW_values);
      const FEValuesExtractors::Vector disp(0);
      const unsigned int               n = dof_handler.get_fe().n_dofs_per_cell();
      std::vector<types::global_dof_index>          dofs(n);
      std::vector<SymmetricTensor<2, 3>>            strains(quadrature.size());
      FullMatrix<double>                            cell_matrix(n, n);
      Vector<double>                                cell_force(n);
      std::vector<std::array<double, 6>>            B(n);
      f_int = 0;
      if (with_matrix)
        matrix = 0;
      if (increment)
        predictor_rhs = 0;
      plastic_points = plastic_cells = 0;
      for (const auto &cell : dof_handler.active_cell_iterators())
        {
          if (!cell->is_locally_owned())
            continue;
          const Material m = material(cell->material_id());
          fe_values.reinit(cell);
          cell->get_dof_indices(dofs);
          fe_values[disp].get_function_symmetric_gradients(u_ghosted, strains);
          cell_matrix = 0;
          cell_force  = 0;
          bool any    = false;
          // B-bar (mean dilatation): the cell averages of div u and of the
          // divergence of each shape function replace the pointwise ones in
          // the volumetric part of the strain and of B.
          double              mean_dilatation = 0, volume = 0;
          std::vector<double> mean_divergence(n, 0.);
          if (bbar)
            {
              for (unsigned int q = 0; q < quadrature.size(); ++q)
                {
                  volume += fe_values.JxW(q);
                  mean_dilatation += trace(strains[q]) * fe_values.JxW(q);
                  for (unsigned int i = 0; i < n; ++i)
                    mean_divergence[i] += fe_values[disp].divergence(i, q) * fe_values.JxW(q);
                }
              mean_dilatation /= volume;
              for (auto &v : mean_divergence)
                v /= volume;
            }
          for (unsigned int q = 0; q < quadrature.size(); ++q)
            {
              const double shift  = bbar ? (mean_dilatation - trace(strains[q])) / 3. : 0.;
              const double eps[6] = {strains[q][0][0] + shift, strains[q][1][1] + shift, strains[q][2][2] + shift,
                                     strains[q][1][2], strains[q][0][2], strains[q][0][1]};
              double       stress[6], D[6][6];
              const unsigned int index = 8 * cell->active_cell_index() + q;
              const bool yields = return_map(m, committed[index], eps, stress, D, trial[index]);
              plastic_points += yields;
              any = any || yields;
              const double JxW = fe_values.JxW(q);
              for (unsigned int i = 0; i < n; ++i)
                {
                  const auto e = fe_values[disp].symmetric_gradient(i, q);
                  const double b = bbar ? (mean_divergence[i] - trace(e)) / 3. : 0.;
                  B[i]           = {{e[0][0] + b, e[1][1] + b, e[2][2] + b, 2 * e[1][2], 2 * e[0][2], 2 * e[0][1]}};
                  double s     = 0;
                  for (int k = 0; k < 6; ++k)
                    s += stress[k] * B[i][k];
                  cell_force(i) += s * JxW;
                }
              if (with_matrix)
                for (unsigned int j = 0; j < n; ++j)
                  {
                    double DB[6];
                    for (int k = 0; k < 6; ++k)
                      {
                        DB[k] = 0;
                        for (int l = 0; l < 6; ++l)
                          DB[k] += D[k][l] * B[j][l];
                      }
                    for (unsigned int i = 0; i < n; ++i)
                      {
                        double s = 0;
                        for (int k = 0; k < 6; ++k)
                          s += B[i][k] * DB[k];
                        cell_matrix(i, j) += s * JxW;
                      }
                  }
            }
          plastic_cells += any;
          for (unsigned int i = 0; i < n; ++i)
            f_int(dofs[i]) += cell_force(i);
          if (increment)
            {
              Vector<double> cell_rhs(cell_force);
              cell_rhs *= -1.;
              increment->distribute_local_to_global(cell_matrix, cell_rhs, dofs, matrix, predictor_rhs);
            }
          else if (with_matrix)
            zero.distribute_local_to_global(cell_matrix, dofs, matrix);
        }
      f_int.compress(VectorOperation::add);
      if (increment)
        predictor_rhs.compress(VectorOperation::add);
      if (with_matrix)
        matrix.compress(VectorOperation::add);
      plastic_points = Utilities::MPI::sum(plastic_points, communicator);
      plastic_cells  = Utilities::MPI::sum(plastic_cells, communicator);
    }

    /**
     * Newton's method for load factor @p lambda from the committed state
     * (a tangent predictor that carries the prescribed increment, then the
     * prescribed values set to lambda g exactly), direct solves, until the
     * correction stalls at round-off. Does not commit.
     */
    StepResult
    solve_step(const double lambda, std::ostream *log = nullptr)
    {
      StepResult result;
      // Predictor (the standard one for prescribed displacements): from the
      // converged state, the tangent there carries the prescribed increment
      // into the free DoFs, K_ff du_f = lambda f_ext - f_int - K_fc du_c.
      // Starting Newton from the converged state with only the prescribed
      // values moved concentrates the whole increment in the boundary cells;
      // from there Newton may cycle (it did with B-bar on a bar pulled at
      // one end) although the tangent is exact.
      // The increment is what the prescribed DoFs still lack: lambda g - u.
      u_ghosted = u;
      AffineConstraints<double> increment(relevant);
      for (const auto i : relevant)
        if (dirichlet.is_constrained(i))
          {
            increment.add_line(i);
            increment.set_inhomogeneity(i, lambda * dirichlet.get_inhomogeneity(i) - u_ghosted(i));
          }
      increment.close();
      evaluate(u, true, &increment);
      for (const auto i : owned)
        if (!dirichlet.is_constrained(i))
          predictor_rhs(i) += lambda * f_ext(i);
      predictor_rhs.compress(VectorOperation::add);
      residual = predictor_rhs;
      du       = 0;
      direct_solve();
      u.add(1., du);
      // The prescribed values exactly, not as the direct solve returns them.
      for (const auto i : owned)
        if (dirichlet.is_constrained(i))
          u(i) = lambda * dirichlet.get_inhomogeneity(i);
      u.compress(VectorOperation::insert);
      double previous_du = du.l2_norm();
      for (unsigned int k = 0; k <= 60; ++k)
        {
          evaluate(u, true);
          result.relative_residual = relative_residual(lambda);
          result.residual_history.push_back(result.relative_residual);
          result.iterations     = k;
          result.plastic_points = plastic_points;
          result.plastic_cells  = plastic_cells;
          if (log)
            *log << "    reference Newton " << k << ": |R|/F = " << std::scientific << std::setprecision(3)
                 << result.relative_residual << std::defaultfloat << ", plastic points " << plastic_points << "\n";
          // Converged once the residual is at round-off and the last correction was negligible.
          const double u_norm = u.l2_norm();
          if (result.relative_residual < 1e-11 && previous_du <= 1e-12 * u_norm)
            {
              result.converged = true;
              return result;
            }
          if (result.relative_residual < 1e-14)
            {
              result.converged = true;
              return result;
            }
          du = 0;
          direct_solve();
          u.add(1., du);
          previous_du = du.l2_norm();
        }
      return result;
    }

    /** du = matrix^-1 residual: MUMPS (multifrontal, fast in 3D) through Amesos, KLU where MUMPS is missing. */
    void
    direct_solve()
    {
      SolverControl control(1, 0);
      if (use_mumps)
        try
          {
            TrilinosWrappers::SolverDirect solver(control, TrilinosWrappers::SolverDirect::AdditionalData(false, "Amesos_Mumps"));
            solver.solve(matrix, du, residual);
            return;
          }
        catch (const std::exception &)
          {
            use_mumps = false;
          }
      TrilinosWrappers::SolverDirect solver(control, TrilinosWrappers::SolverDirect::AdditionalData(false, "Amesos_Klu"));
      solver.solve(matrix, du, residual);
    }

    /** |lambda f_ext - f_int| on free rows over max(|lambda f_ext| free, |reactions|); fills residual. */
    double
    relative_residual(const double lambda)
    {
      double r2 = 0, f2 = 0, reaction2 = 0;
      for (const auto i : owned)
        {
          if (dirichlet.is_constrained(i))
            {
              residual(i) = 0;
              reaction2 += f_int(i) * f_int(i);
            }
          else
            {
              residual(i) = lambda * f_ext(i) - f_int(i);
              r2 += residual(i) * residual(i);
              f2 += lambda * lambda * f_ext(i) * f_ext(i);
            }
        }
      residual.compress(VectorOperation::insert);
      r2        = Utilities::MPI::sum(r2, communicator);
      f2        = Utilities::MPI::sum(f2, communicator);
      reaction2 = Utilities::MPI::sum(reaction2, communicator);
      return std::sqrt(r2) / std::max({std::sqrt(f2), std::sqrt(reaction2), 1e-300});
    }

    /** Accept the trial history of the last evaluate(). */
    void
    commit()
    {
      committed = trial;
    }

    /** Whether DoF @p i is prescribed. */
    bool
    is_constrained(const types::global_dof_index i) const
    {
      return dirichlet.is_constrained(i);
    }

    const plastix::Parameters         &parameters;
    const DoFHandler<3>               &dof_handler;
    /** B-bar (mean dilatation) as the parameters ask, full integration otherwise. */
    bool                               bbar;
    MPI_Comm                           communicator;
    MappingQ<3>                        mapping;
    QGauss<3>                          quadrature;
    IndexSet                           owned, relevant;
    AffineConstraints<double>          dirichlet, zero;
    TrilinosWrappers::SparseMatrix     matrix;
    TrilinosWrappers::MPI::Vector      u, du, f_ext, f_int, residual, u_ghosted, predictor_rhs;
    std::vector<History>               committed, trial;
    unsigned long long                 plastic_points = 0, plastic_cells = 0;

  private:
    bool use_mumps = true;

    Material
    material(const types::material_id id) const
    {
      const auto it = parameters.materials.per_material_id.find(id);
      return make_material(it != parameters.materials.per_material_id.end() ? it->second :
                                                                              parameters.materials.default_material);
    }

    /** Tractions and pressures of the parameters at load factor 1. */
    void
    assemble_external_force()
    {
      QGauss<2>       face_quadrature(2);
      FEFaceValues<3> fe_face(mapping, dof_handler.get_fe(), face_quadrature,
                              update_values | update_normal_vectors | update_JxW_values);
      const unsigned int                   n = dof_handler.get_fe().n_dofs_per_cell();
      std::vector<types::global_dof_index> dofs(n);
      f_ext = 0;
      for (const auto &cell : dof_handler.active_cell_iterators())
        if (cell->is_locally_owned())
          for (const auto f : cell->face_indices())
            if (cell->face(f)->at_boundary())
              for (const auto &t : parameters.boundary.tractions)
                if (t.boundary_id == cell->face(f)->boundary_id())
                  {
                    fe_face.reinit(cell, f);
                    cell->get_dof_indices(dofs);
                    for (unsigned int q = 0; q < face_quadrature.size(); ++q)
                      for (unsigned int i = 0; i < n; ++i)
                        {
                          const unsigned int c = dof_handler.get_fe().system_to_component_index(i).first;
                          const double load = t.traction[c] - t.pressure * fe_face.normal_vector(q)[c];
                          f_ext(dofs[i]) += fe_face.shape_value(i, q) * load * fe_face.JxW(q);
                        }
                  }
      f_ext.compress(VectorOperation::add);
    }
  };
} // namespace host_reference

#endif
