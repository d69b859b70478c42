// The backend operator against a dense global stiffness matrix that this test
// assembles itself with an independent host implementation (explicit
// trilinear shape functions on [0,1]^3, 2x2x2 Gauss points, B^T D B with
// engineering strains), on small box meshes: uniform and distorted, two
// materials, randomly renumbered nodes, mixed constrained/free components of
// one node and (in one case) a layer of "ghost" nodes. For every strategy,
// cell kernel and (element by element) thread mapping, full integration and
// (on three of the meshes) B-bar, mean dilatation, from this test's own B
// matrices:
//   apply               == A_c x     (A_c: constrained rows/columns zero, unit
//                                      diagonal at owned constrained DoFs)
//   apply_unconstrained == A x
//   apply in single precision == A_c x to 1e-6
//   compute_diagonal    == diag(A_c)
//   x^T A_c y           == y^T A_c x
//   A r = 0 for the six rigid-body modes r
// all to 1e-12 relative; plus bitwise reproducibility of the conflict-free
// strategies, the rejection of a tangled mesh and of impossible tile settings.
// dbd structured runs on the meshes whose cells are equal boxes of one lattice
// (one with a hole, stiffness factors and ghosts, so that nodes of both of
// its kinds occur) and must be refused on the others. Backend only (no deal.II).
#include <plastix/backend/device.h>
#include <plastix/backend/device_array.h>
#include <plastix/backend/device_operator.h>

#include "box_mesh.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../checker.h"

using namespace plastix::backend;

namespace
{
  plastix_test::Checker checker;

  /** Dense row-major n x n matrix. */
  struct Dense
  {
    std::size_t         n = 0;
    std::vector<double> a;
    explicit Dense(std::size_t n)
      : n(n)
      , a(n * n, 0.)
    {}
    double &
    operator()(std::size_t i, std::size_t j)
    {
      return a[i * n + j];
    }
    double
    operator()(std::size_t i, std::size_t j) const
    {
      return a[i * n + j];
    }
    std::vector<double>
    times(const std::vector<double> &x) const
    {
      std::vector<double> y(n, 0.);
      for (std::size_t i = 0; i < n; ++i)
        {
          long double s = 0;
          for (std::size_t j = 0; j < n; ++j)
            s += static_cast<long double>(a[i * n + j]) * x[j];
          y[i] = static_cast<double>(s);
        }
      return y;
    }
  };

  double
  norm(const std::vector<double> &x)
  {
    long double s = 0;
    for (const double v : x)
      s += static_cast<long double>(v) * v;
    return std::sqrt(static_cast<double>(s));
  }

  double
  dot(const std::vector<double> &x, const std::vector<double> &y)
  {
    long double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      s += static_cast<long double>(x[i]) * y[i];
    return static_cast<double>(s);
  }

  double
  relative_difference(const std::vector<double> &a, const std::vector<double> &reference)
  {
    std::vector<double> d(a.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      d[i] = a[i] - reference[i];
    return norm(d) / norm(reference);
  }

  /** Inverse of a 3x3 matrix by Gauss-Jordan elimination with partial pivoting; returns det. */
  double
  invert3(const double J[3][3], double inv[3][3])
  {
    double m[3][6];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 6; ++j)
        m[i][j] = j < 3 ? J[i][j] : (j - 3 == i ? 1. : 0.);
    double det = 1;
    for (int c = 0; c < 3; ++c)
      {
        int p = c;
        for (int r = c + 1; r < 3; ++r)
          if (std::abs(m[r][c]) > std::abs(m[p][c]))
            p = r;
        if (p != c)
          {
            for (int j = 0; j < 6; ++j)
              std::swap(m[p][j], m[c][j]);
            det = -det;
          }
        det *= m[c][c];
        const double pivot = m[c][c];
        for (int j = 0; j < 6; ++j)
          m[c][j] /= pivot;
        for (int r = 0; r < 3; ++r)
          if (r != c)
            {
              const double f = m[r][c];
              for (int j = 0; j < 6; ++j)
                m[r][j] -= f * m[c][j];
            }
      }
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        inv[i][j] = m[i][j + 3];
    return det;
  }

  /**
   * Element stiffness (24 x 24, DoF 3a+c) of a trilinear hexahedron with
   * vertices X (deal.II lexicographic order) by B^T D B over 2x2x2 Gauss
   * points; with @p bbar, B's volumetric rows carry the cell average of the
   * divergence (B-bar, mean dilatation: B_bar = B + (1/3) [1 1 1 0 0 0]^T
   * (mean div - div)).
   */
  void
  element_matrix(const double X[8][3], const MaterialConstants &m, const bool bbar, double K[24][24])
  {
    double Bq[8][6][24] = {}, JxWq[8];
    const double g[2] = {0.5 - 0.5 / std::sqrt(3.), 0.5 + 0.5 / std::sqrt(3.)};
    // D in Voigt notation xx, yy, zz, yz, xz, xy with engineering shear strains.
    double D[6][6] = {};
    for (int i = 0; i < 3; ++i)
      {
        for (int j = 0; j < 3; ++j)
          D[i][j] = m.lambda;
        D[i][i] += 2. * m.mu;
        D[i + 3][i + 3] = m.mu;
      }
    for (int i = 0; i < 24; ++i)
      for (int j = 0; j < 24; ++j)
        K[i][j] = 0;
    for (int qz = 0; qz < 2; ++qz)
      for (int qy = 0; qy < 2; ++qy)
        for (int qx = 0; qx < 2; ++qx)
          {
            const double xi[3] = {g[qx], g[qy], g[qz]};
            double       dN[8][3]; // reference gradients
            for (int a = 0; a < 8; ++a)
              {
                const int bit[3] = {a & 1, (a >> 1) & 1, (a >> 2) & 1};
                double    f[3], df[3];
                for (int d = 0; d < 3; ++d)
                  {
                    f[d]  = bit[d] ? xi[d] : 1. - xi[d];
                    df[d] = bit[d] ? 1. : -1.;
                  }
                dN[a][0] = df[0] * f[1] * f[2];
                dN[a][1] = f[0] * df[1] * f[2];
                dN[a][2] = f[0] * f[1] * df[2];
              }
            double J[3][3] = {}; // J[i][d] = dx_i/dxi_d
            for (int a = 0; a < 8; ++a)
              for (int i = 0; i < 3; ++i)
                for (int d = 0; d < 3; ++d)
                  J[i][d] += X[a][i] * dN[a][d];
            double       Jinv[3][3]; // Jinv[d][i] = dxi_d/dx_i
            const double det = invert3(J, Jinv);
            const int    q   = qx + 2 * qy + 4 * qz;
            JxWq[q]          = det * 0.125;
            double(&B)[6][24] = Bq[q];
            for (int a = 0; a < 8; ++a)
              {
                double gr[3];
                for (int i = 0; i < 3; ++i)
                  gr[i] = dN[a][0] * Jinv[0][i] + dN[a][1] * Jinv[1][i] + dN[a][2] * Jinv[2][i];
                const int k = 3 * a;
                B[0][k]     = gr[0];
                B[1][k + 1] = gr[1];
                B[2][k + 2] = gr[2];
                B[3][k + 1] = gr[2];
                B[3][k + 2] = gr[1];
                B[4][k]     = gr[2];
                B[4][k + 2] = gr[0];
                B[5][k]     = gr[1];
                B[5][k + 1] = gr[0];
              }
          }
    if (bbar)
      {
        double volume = 0, mean_divergence[24] = {};
        for (int q = 0; q < 8; ++q)
          {
            volume += JxWq[q];
            for (int j = 0; j < 24; ++j)
              mean_divergence[j] += JxWq[q] * (Bq[q][0][j] + Bq[q][1][j] + Bq[q][2][j]);
          }
        for (int q = 0; q < 8; ++q)
          for (int j = 0; j < 24; ++j)
            {
              const double shift = (mean_divergence[j] / volume - (Bq[q][0][j] + Bq[q][1][j] + Bq[q][2][j])) / 3.;
              for (int r = 0; r < 3; ++r)
                Bq[q][r][j] += shift;
            }
      }
    for (int q = 0; q < 8; ++q)
          {
            const double(&B)[6][24] = Bq[q];
            const double JxW        = JxWq[q];
            double DB[6][24];
            for (int r = 0; r < 6; ++r)
              for (int j = 0; j < 24; ++j)
                {
                  double s = 0;
                  for (int k = 0; k < 6; ++k)
                    s += D[r][k] * B[k][j];
                  DB[r][j] = s;
                }
            for (int i = 0; i < 24; ++i)
              for (int j = 0; j < 24; ++j)
                {
                  double s = 0;
                  for (int r = 0; r < 6; ++r)
                    s += B[r][i] * DB[r][j];
                  K[i][j] += s * JxW;
                }
          }
  }

  /** The unconstrained global matrix of the local cells. */
  Dense
  assemble(const MeshData &mesh, const bool bbar)
  {
    Dense A(mesh.n_dofs());
    for (LocalIndex cell = 0; cell < mesh.n_cells(); ++cell)
      {
        double X[8][3];
        for (int a = 0; a < 8; ++a)
          for (int i = 0; i < 3; ++i)
            X[a][i] = mesh.node_coordinates[3 * mesh.cell_nodes[8 * cell + a] + i];
        double K[24][24];
        element_matrix(X, mesh.materials[mesh.cell_material[cell]], bbar, K);
        const double factor = mesh.cell_factors.empty() ? 1. : mesh.cell_factors[cell];
        for (int a = 0; a < 8; ++a)
          for (int c = 0; c < 3; ++c)
            for (int b = 0; b < 8; ++b)
              for (int e = 0; e < 3; ++e)
                A(3 * mesh.cell_nodes[8 * cell + a] + c, 3 * mesh.cell_nodes[8 * cell + b] + e) +=
                  factor * K[3 * a + c][3 * b + e];
      }
    return A;
  }

  /** Constrained version: rows and columns zero, unit diagonal at owned constrained DoFs. */
  Dense
  constrain(const Dense &A, const MeshData &mesh)
  {
    Dense C = A;
    for (std::size_t i = 0; i < C.n; ++i)
      for (std::size_t j = 0; j < C.n; ++j)
        if (mesh.constrained_dofs[i] || mesh.constrained_dofs[j])
          C(i, j) = 0;
    for (LocalIndex i = 0; i < mesh.n_owned_dofs(); ++i)
      if (mesh.constrained_dofs[i])
        C(i, i) = 1;
    return C;
  }

  /** Renumber the nodes by a random permutation (cells keep their vertex order). */
  void
  permute_nodes(MeshData &mesh, std::mt19937 &rng)
  {
    std::vector<LocalIndex> new_index(mesh.n_nodes);
    std::iota(new_index.begin(), new_index.end(), 0);
    std::shuffle(new_index.begin(), new_index.end(), rng);
    std::vector<double>       coordinates(mesh.node_coordinates.size());
    std::vector<std::uint8_t> constrained(mesh.constrained_dofs.size());
    for (LocalIndex n = 0; n < mesh.n_nodes; ++n)
      for (int i = 0; i < 3; ++i)
        {
          coordinates[3 * new_index[n] + i] = mesh.node_coordinates[3 * n + i];
          constrained[3 * new_index[n] + i] = mesh.constrained_dofs[3 * n + i];
        }
    for (auto &node : mesh.cell_nodes)
      node = new_index[node];
    mesh.node_coordinates = coordinates;
    mesh.constrained_dofs = constrained;
  }

  /**
   * apply() (or, with @p constrained false, apply_unconstrained(), double
   * only) on vectors of @p Number, evaluated in that precision, returned in
   * double.
   */
  template <typename Number = double>
  std::vector<double>
  run_apply(const DeviceOperator &op, const std::vector<double> &x, const bool constrained)
  {
    DeviceArray<Number> src(std::vector<Number>(x.begin(), x.end()), "test src"), dst(x.size(), "test dst");
    // Garbage in dst: the operator must overwrite every entry.
    const Number garbage = std::is_same_v<Number, double> ? Number(1.2345e300) : Number(1.2345e30);
    dst.copy_from_host(std::vector<Number>(x.size(), garbage));
    if (constrained)
      op.apply(src.data(), dst.data());
    else if constexpr (std::is_same_v<Number, double>)
      op.apply_unconstrained(src.data(), dst.data());
    else
      throw std::logic_error("apply_unconstrained is double precision only");
    fence();
    const std::vector<Number> result = dst.to_host();
    return std::vector<double>(result.begin(), result.end());
  }

  /** The six rigid-body modes at the nodes of @p mesh. */
  std::vector<std::vector<double>>
  rigid_body_modes(const MeshData &mesh)
  {
    std::vector<std::vector<double>> modes(6, std::vector<double>(mesh.n_dofs(), 0.));
    for (LocalIndex n = 0; n < mesh.n_nodes; ++n)
      {
        const double *x = &mesh.node_coordinates[3 * n];
        for (int c = 0; c < 3; ++c)
          modes[c][3 * n + c] = 1.;
        // rotations about the axes through (0.3, -0.2, 0.5): omega x (x - x0)
        const double y[3] = {x[0] - 0.3, x[1] + 0.2, x[2] - 0.5};
        for (int axis = 0; axis < 3; ++axis)
          {
            double w[3] = {0, 0, 0};
            w[axis]     = 1.;
            modes[3 + axis][3 * n + 0] = w[1] * y[2] - w[2] * y[1];
            modes[3 + axis][3 * n + 1] = w[2] * y[0] - w[0] * y[2];
            modes[3 + axis][3 * n + 2] = w[0] * y[1] - w[1] * y[0];
          }
      }
    return modes;
  }

  /**
   * The device-assembled matrix entry by entry against the dense reference
   * with the rows and columns of constrained DoFs zeroed: every entry of the
   * CSR matrix, every non-zero of the reference inside its sparsity,
   * ascending columns and consistent offsets.
   */
  void
  check_assembled_matrix(const std::string &what, const DeviceOperator &op, const Dense &A, const MeshData &mesh)
  {
    const CsrMatrix m = op.copy_matrix();
    bool            structure = m.row_offsets.size() == A.n + 1 && m.row_offsets.front() == 0 &&
                     m.row_offsets.back() == static_cast<std::int64_t>(m.columns.size()) &&
                     m.columns.size() == m.values.size() && op.n_matrix_entries() == m.values.size();
    double          max_entry = 0, max_difference = 0, missing = 0;
    for (std::size_t i = 0; i < A.n; ++i)
      for (std::size_t j = 0; j < A.n; ++j)
        max_entry = std::max(max_entry, std::abs(A(i, j)));
    std::vector<char> covered(A.n);
    for (std::size_t i = 0; structure && i < A.n; ++i)
      {
        std::fill(covered.begin(), covered.end(), 0);
        for (std::int64_t k = m.row_offsets[i]; k < m.row_offsets[i + 1]; ++k)
          {
            const std::size_t j = m.columns[k];
            structure           = structure && j < A.n && (k == m.row_offsets[i] || m.columns[k - 1] < m.columns[k]);
            if (!structure)
              break;
            covered[j]             = 1;
            const double reference = mesh.constrained_dofs[i] || mesh.constrained_dofs[j] ? 0. : A(i, j);
            max_difference         = std::max(max_difference, std::abs(m.values[k] - reference));
          }
        for (std::size_t j = 0; j < A.n; ++j)
          if (!covered[j] && !mesh.constrained_dofs[i] && !mesh.constrained_dofs[j])
            missing = std::max(missing, std::abs(A(i, j)));
      }
    checker.check_true(what + ": CSR structure (offsets, ascending columns)", structure);
    checker.check(what + ": CSR entries vs dense A with constrained rows and columns zero, max diff / max |A|",
                  max_difference / max_entry, 1e-13);
    checker.check(what + ": reference entries outside the CSR sparsity / max |A|", missing / max_entry, 0.);
  }

  /** Whether constructing the operator of @p mesh with @p settings throws std::invalid_argument saying @p expected. */
  bool
  refused(const MeshData &mesh, const OperatorSettings &settings, const std::string &expected)
  {
    try
      {
        DeviceOperator op(mesh, settings);
      }
    catch (const std::invalid_argument &error)
      {
        return std::string(error.what()).find(expected) != std::string::npos;
      }
    return false;
  }

  /**
   * @p box without the cells for which @p keep(centre) is false: the kept
   * cells in their order, their nodes renumbered in the order the cells
   * first touch them (coordinates and constraints with them), and each kept
   * cell's material and stiffness factor from @p cell_data(cell of @p box,
   * centre, material, factor).
   */
  template <typename Keep, typename CellData>
  MeshData
  remove_cells(const MeshData &box, const Keep &keep, const CellData &cell_data)
  {
    MeshData                mesh;
    std::vector<LocalIndex> new_index(box.n_nodes, -1);
    for (LocalIndex cell = 0; cell < box.n_cells(); ++cell)
      {
        double centre[3] = {0, 0, 0};
        for (int a = 0; a < 8; ++a)
          for (int c = 0; c < 3; ++c)
            centre[c] += box.node_coordinates[3 * box.cell_nodes[8 * cell + a] + c] / 8;
        if (!keep(centre))
          continue;
        for (int a = 0; a < 8; ++a)
          {
            LocalIndex &node = new_index[box.cell_nodes[8 * cell + a]];
            if (node < 0)
              node = mesh.n_nodes++;
            mesh.cell_nodes.push_back(node);
          }
        std::uint16_t material = 0;
        float         factor   = 1.f;
        cell_data(cell, centre, material, factor);
        mesh.cell_material.push_back(material);
        mesh.cell_factors.push_back(factor);
      }
    mesh.n_owned_nodes = mesh.n_nodes;
    mesh.node_coordinates.resize(3 * mesh.n_nodes);
    mesh.constrained_dofs.resize(3 * mesh.n_nodes);
    for (LocalIndex node = 0; node < box.n_nodes; ++node)
      if (new_index[node] >= 0)
        for (int c = 0; c < 3; ++c)
          {
            mesh.node_coordinates[3 * new_index[node] + c] = box.node_coordinates[3 * node + c];
            mesh.constrained_dofs[3 * new_index[node] + c] = box.constrained_dofs[3 * node + c];
          }
    mesh.materials = box.materials;
    return mesh;
  }

  /**
   * Every operator variant on @p mesh against the dense reference. dbd
   * structured runs where @p lattice (the cells are equal boxes of one
   * lattice) and must be refused naming the cause elsewhere.
   */
  void
  test_mesh(const std::string &name_of_mesh, const MeshData &mesh, const bool expect_shared_matrices,
            const ElementFormulation formulation = ElementFormulation::full, const bool lattice = false)
  {
    const std::string name = name_of_mesh + (formulation == ElementFormulation::bbar ? ", B-bar" : "");
    std::printf("%s: %d cells, %d nodes (%d owned), %d DoFs, %d constrained\n", name.c_str(),
                mesh.n_cells(), mesh.n_nodes, mesh.n_owned_nodes, mesh.n_dofs(),
                static_cast<int>(std::count(mesh.constrained_dofs.begin(), mesh.constrained_dofs.end(), 1)));
    const Dense A = assemble(mesh, formulation == ElementFormulation::bbar);
    const Dense C = constrain(A, mesh);

    // Sanity of the reference itself: symmetric, rigid modes in its null space.
    {
      double asym = 0, amax = 0;
      for (std::size_t i = 0; i < A.n; ++i)
        for (std::size_t j = 0; j < A.n; ++j)
          {
            asym = std::max(asym, std::abs(A(i, j) - A(j, i)));
            amax = std::max(amax, std::abs(A(i, j)));
          }
      checker.check(name + ": reference matrix symmetric (max |A-A^T| / max |A|)", asym / amax, 1e-14);
    }

    std::mt19937                           rng(12345);
    std::uniform_real_distribution<double> uniform(-1., 1.);
    std::vector<double>                    x(mesh.n_dofs()), y(mesh.n_dofs());
    for (auto &v : x)
      v = uniform(rng);
    for (auto &v : y)
      v = uniform(rng);
    const std::vector<double> Cx = C.times(x), Cy = C.times(y), Ax = A.times(x);
    std::vector<double>       diagonal(A.n);
    for (std::size_t i = 0; i < A.n; ++i)
      diagonal[i] = C(i, i);
    const double A_norm_estimate = norm(Ax) / norm(x);
    const auto   modes           = rigid_body_modes(mesh);
    for (const auto &mode : modes)
      checker.check(name + ": reference A r (rigid mode) / (|A| |r|)", norm(A.times(mode)) / (A_norm_estimate * norm(mode)), 1e-13);

    OperatorSettings structured;
    structured.strategy = Strategy::dbd_structured;
    if (!lattice)
      checker.check_true(name + ": dbd structured refused (not a lattice), naming the cell",
                         refused(mesh, structured, "dbd structured: cell"));
    std::vector<double> first_result;
    for (const auto strategy : {Strategy::ebe_atomic, Strategy::ebe_colored, Strategy::dbd, Strategy::ebe_tiled,
                                Strategy::assembled, Strategy::dbd_structured})
      for (const auto kernel : {CellKernel::stored_geometry, CellKernel::geometry_on_the_fly, CellKernel::element_matrix})
        for (const auto mapping : {ThreadMapping::cell, ThreadMapping::node, ThreadMapping::shuffle})
          for (const unsigned int cells_per_tile : {3u, 128u})
        {
          // The thread mapping only matters for the element-by-element
          // strategies with one launch per cell (ebe tiled: one thread per
          // cell, tiles of 3 cells so that most nodes are shared by tiles,
          // and of 128).
          const bool tiled = strategy == Strategy::ebe_tiled;
          const bool node_wise = strategy == Strategy::dbd || strategy == Strategy::dbd_structured;
          // dbd structured: its element-by-element products (unconstrained,
          // stored stress) run one thread or eight shuffle lanes per cell.
          const bool structured_lanes = strategy == Strategy::dbd_structured && mapping == ThreadMapping::shuffle;
          if ((node_wise || tiled || strategy == Strategy::assembled) && mapping != ThreadMapping::cell &&
              !structured_lanes)
            continue;
          if (strategy == Strategy::dbd_structured && !lattice)
            continue;
          if (!tiled && cells_per_tile != 128)
            continue;
          const std::string what = name + ", " + to_string(strategy) + ", " + to_string(kernel) +
                                   (structured_lanes ? ", shuffle mapping" :
                                    node_wise ? std::string() :
                                    tiled                     ? ", " + std::to_string(cells_per_tile) + " cells per tile" :
                                                                ", " + to_string(mapping) + " mapping");
          OperatorSettings settings;
          settings.strategy       = strategy;
          settings.cell_kernel    = kernel;
          settings.thread_mapping = mapping;
          settings.cells_per_tile = cells_per_tile;
          settings.element_formulation = formulation;
          const DeviceOperator op(mesh, settings);
          if (op.n_cells() != mesh.n_cells() || op.n_dofs() != mesh.n_dofs() || op.n_owned_dofs() != mesh.n_owned_dofs())
            checker.check_true(what + ": sizes", false);
          if (kernel == CellKernel::element_matrix)
            {
              const std::size_t expected = expect_shared_matrices ? mesh.materials.size() : mesh.n_cells();
              checker.check_true(what + ": " + std::to_string(op.n_element_matrices()) + " element matrices (expected " +
                           std::to_string(expected) + ")",
                         op.n_element_matrices() == expected);
            }

          if (strategy == Strategy::assembled)
            check_assembled_matrix(what, op, A, mesh);

          const std::vector<double> r = run_apply(op, x, true);
          checker.check(what + ": apply vs dense A_c", relative_difference(r, Cx), 1e-12);
          // Single precision (the multigrid levels): float round-off of the
          // data and of every step, against the double-precision reference.
          checker.check(what + ": single-precision apply vs dense A_c",
                        relative_difference(run_apply<float>(op, x, true), Cx), 1e-6);
          const std::vector<double> ru = run_apply(op, x, false);
          checker.check(what + ": apply_unconstrained vs dense A", relative_difference(ru, Ax), 1e-12);

          // Symmetry x^T A_c y = y^T A_c x (device results only).
          const std::vector<double> ry = run_apply(op, y, true);
          checker.check(what + ": |x.Ay - y.Ax| / (|x| |Ay|)", std::abs(dot(x, ry) - dot(y, r)) / (norm(x) * norm(ry)), 1e-12);

          {
            DeviceArray<double> d(mesh.n_dofs(), "test diagonal");
            d.copy_from_host(std::vector<double>(mesh.n_dofs(), -7.));
            op.compute_diagonal(d.data());
            checker.check(what + ": compute_diagonal vs dense diag(A_c)", relative_difference(d.to_host(), diagonal), 1e-12);
          }

          double worst_mode = 0;
          for (const auto &mode : modes)
            worst_mode = std::max(worst_mode, norm(run_apply(op, mode, false)) / (A_norm_estimate * norm(mode)));
          checker.check(what + ": rigid-body modes, max |A r| / (|A| |r|)", worst_mode, 1e-12);

          if (strategy != Strategy::ebe_atomic && !tiled)
            {
              const std::vector<double> again = run_apply(op, x, true);
              checker.check_true(what + ": repeated apply bitwise identical", again == r);
            }
          if (first_result.empty())
            first_result = r;
          else
            checker.check(what + ": vs first variant", relative_difference(r, first_result), 1e-13);
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
      const MaterialConstants steel{1.1538461538461537e11, 7.6923076923076923e10, 0, 0, 0};
      // E = 70e9, nu = 0.35
      const MaterialConstants aluminium{70e9 * 0.35 / (1.35 * 0.3), 70e9 / 2.7, 0, 0, 0};

      auto make = [&](const double distortion, const bool two_materials) {
        BoxMeshDescription desc;
        desc.n_cells[0] = 3;
        desc.n_cells[1] = 2;
        desc.n_cells[2] = 4;
        desc.extent[0]  = 1.5;
        desc.extent[1]  = 0.8;
        desc.extent[2]  = 2.0;
        desc.distortion = distortion;
        desc.seed       = 7;
        desc.material   = steel;
        MeshData mesh   = make_box_mesh(desc, true);
        if (two_materials)
          {
            mesh.materials = {steel, aluminium};
            for (LocalIndex c = 0; c < mesh.n_cells(); ++c)
              {
                double z = 0;
                for (int a = 0; a < 8; ++a)
                  z += mesh.node_coordinates[3 * mesh.cell_nodes[8 * c + a] + 2] / 8;
                mesh.cell_material[c] = z > 1.1 ? 1 : 0;
              }
          }
        return mesh;
      };

      {
        // Uniform mesh, one material, the x = 0 face clamped: element
        // matrices are shared by all cells.
        MeshData mesh = make(0., false);
        test_mesh("uniform, clamped", mesh, true, ElementFormulation::full, true);
        test_mesh("uniform, clamped", mesh, true, ElementFormulation::bbar, true);

        // The same with a stiffness factor per cell (fixed-grid volume
        // fractions from 1e-6 to 1): one shared element matrix, scaled per
        // cell in every strategy (the shared-matrix fast paths included).
        std::mt19937                          rng(7);
        std::uniform_real_distribution<float> fraction(0.f, 1.f);
        mesh.cell_factors.resize(mesh.n_cells());
        for (auto &factor : mesh.cell_factors)
          {
            const float xi = fraction(rng) < 0.3f ? 0.f : fraction(rng);
            factor         = xi + 1e-6f * (1.f - xi);
          }
        test_mesh("uniform, clamped, stiffness factor per cell", mesh, true, ElementFormulation::full, true);
        test_mesh("uniform, clamped, stiffness factor per cell", mesh, true, ElementFormulation::bbar, true);
      }
      {
        // Uniform, two materials, no constraints at all.
        MeshData mesh = make(0., true);
        std::fill(mesh.constrained_dofs.begin(), mesh.constrained_dofs.end(), 0);
        test_mesh("uniform, two materials, unconstrained", mesh, true, ElementFormulation::full, true);
      }
      {
        // A lattice with a hole, for dbd structured's two kinds of node
        // (27-point stencil where the eight cells share material and factor,
        // rows of each cell elsewhere): a 6 x 5 x 4 box without the cells of
        // x > 1, y > 0.5, two materials, stiffness factors on some cells,
        // single components constrained, renumbered nodes, the last ten nodes
        // ghosts, and a ghost node that no cell has (its row stays zero).
        BoxMeshDescription desc;
        desc.n_cells[0] = 6;
        desc.n_cells[1] = 5;
        desc.n_cells[2] = 4;
        desc.extent[0]  = 1.5;
        desc.extent[1]  = 1.0;
        desc.extent[2]  = 0.6;
        desc.material   = steel;
        MeshData mesh = remove_cells(
          make_box_mesh(desc, true), [](const double *centre) { return !(centre[0] > 1.0 && centre[1] > 0.5); },
          [](const LocalIndex cell, const double *centre, std::uint16_t &material, float &factor) {
            material = centre[2] > 0.3 ? 1 : 0;
            factor   = cell % 5 == 2 ? 0.25f : 1.f;
          });
        mesh.materials = {steel, aluminium};
        for (LocalIndex n = 0; n < mesh.n_nodes; n += 5)
          mesh.constrained_dofs[3 * n + (n % 3)] = 1;
        std::mt19937 rng(3);
        permute_nodes(mesh, rng);
        mesh.n_owned_nodes = mesh.n_nodes - 10;
        ++mesh.n_nodes;
        for (const double x : {0.7, 0.3, 0.2})
          mesh.node_coordinates.push_back(x);
        for (int c = 0; c < 3; ++c)
          mesh.constrained_dofs.push_back(0);
        test_mesh("lattice with a hole, two materials, factors, ghosts", mesh, true, ElementFormulation::full, true);
        test_mesh("lattice with a hole, two materials, factors, ghosts", mesh, true, ElementFormulation::bbar, true);

        // Cells of another size on the lattice are refused.
        MeshData bad = make_box_mesh(desc, true);
        for (LocalIndex node = 0; node < bad.n_nodes; ++node)
          if (bad.node_coordinates[3 * node] > 1.4)
            bad.node_coordinates[3 * node] += 0.1;
        OperatorSettings structured;
        structured.strategy = Strategy::dbd_structured;
        checker.check_true("dbd structured refuses a wider last cell layer",
                           refused(bad, structured, "is not an axis-parallel box of the size of cell 0"));
      }
      {
        // Distorted, two materials, renumbered nodes, single components
        // constrained on some nodes (mixed masks within a node).
        MeshData     mesh = make(0.25, true);
        std::mt19937 rng(99);
        for (LocalIndex n = 0; n < mesh.n_nodes; n += 7)
          mesh.constrained_dofs[3 * n + (n % 3)] = 1;
        permute_nodes(mesh, rng);
        test_mesh("distorted, two materials, renumbered", mesh, false);
        test_mesh("distorted, two materials, renumbered", mesh, false, ElementFormulation::bbar);

        // The same with the last 12 nodes as ghosts (constrained ghost DoFs
        // included): their rows hold partial sums and no unit diagonal.
        mesh.n_owned_nodes = mesh.n_nodes - 12;
        for (LocalIndex n = mesh.n_owned_nodes; n < mesh.n_nodes; n += 3)
          mesh.constrained_dofs[3 * n + 1] = 1;
        test_mesh("distorted, with ghost nodes", mesh, false);
        test_mesh("distorted, with ghost nodes", mesh, false, ElementFormulation::bbar);

        // And with a stiffness factor per cell.
        mesh.cell_factors.resize(mesh.n_cells());
        for (LocalIndex cell = 0; cell < mesh.n_cells(); ++cell)
          mesh.cell_factors[cell] = 0.05f + 0.9f * static_cast<float>((cell * 37) % 11) / 10.f;
        test_mesh("distorted, ghost nodes, stiffness factor per cell", mesh, false);
      }
      {
        // Stiffness factors must be one per cell, finite and positive.
        for (const float bad : {0.f, -1.f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()})
          {
            MeshData mesh = make(0., false);
            mesh.cell_factors.assign(mesh.n_cells(), 1.f);
            mesh.cell_factors[3] = bad;
            bool thrown = false;
            try
              {
                DeviceOperator op(mesh, {});
              }
            catch (const std::invalid_argument &error)
              {
                thrown = std::string(error.what()).find("stiffness factor of cell 3") != std::string::npos;
              }
            checker.check_true("stiffness factor " + std::to_string(bad) + " refused naming the cell", thrown);
          }
        MeshData mesh = make(0., false);
        mesh.cell_factors.assign(mesh.n_cells() - 1, 1.f);
        bool thrown = false;
        try
          {
            DeviceOperator op(mesh, {});
          }
        catch (const std::invalid_argument &)
          {
            thrown = true;
          }
        checker.check_true("stiffness factors of the wrong size refused", thrown);
      }
      {
        // The fixed-grid L-beam of prm/fixed_grid_l_beam.prm (100 x 100 x 25
        // cubes without x > 0.4, y > 0.4): its Morton tiles are irregular and
        // hold more nodes than a box's, up to the scratch-memory budget, which
        // on a GPU must leave Kokkos its share (a budget of the whole 48 KiB
        // failed there). ebe tiled (one shared matrix, stiffness factors) must
        // equal ebe atomic; no dense reference at this size.
        BoxMeshDescription desc;
        desc.n_cells[0] = desc.n_cells[1] = 100;
        desc.n_cells[2]                   = 25;
        desc.extent[2]                    = 0.25;
        const MeshData mesh = remove_cells(
          make_box_mesh(desc, true), [](const double *centre) { return !(centre[0] > 0.4 && centre[1] > 0.4); },
          [](const LocalIndex cell, const double *, std::uint16_t &, float &factor) {
            factor = 0.5f + 0.5f * static_cast<float>(cell % 3) / 2.f;
          });
        std::vector<double> x(mesh.n_dofs());
        for (std::size_t i = 0; i < x.size(); ++i)
          x[i] = std::sin(0.37 * i + 0.1);
        OperatorSettings atomic_settings, tiled_settings;
        atomic_settings.cell_kernel = tiled_settings.cell_kernel = CellKernel::element_matrix;
        tiled_settings.strategy                                   = Strategy::ebe_tiled;
        const DeviceOperator atomic(mesh, atomic_settings), tiled(mesh, tiled_settings);
        checker.check_true("L-beam " + std::to_string(mesh.n_cells()) + " cells: one shared element matrix",
                           tiled.n_element_matrices() == 1);
        checker.check("L-beam, ebe tiled (" + std::to_string(tiled.n_tiles()) + " tiles) vs ebe atomic",
                      relative_difference(run_apply(tiled, x, true), run_apply(atomic, x, true)), 1e-13);
      }
      {
        // A tangled cell must be rejected.
        MeshData mesh = make(0., false);
        std::swap(mesh.cell_nodes[0], mesh.cell_nodes[7]);
        bool thrown = false;
        try
          {
            DeviceOperator op(mesh, {});
          }
        catch (const std::invalid_argument &error)
          {
            thrown = std::string(error.what()).find("Jacobian") != std::string::npos;
          }
        checker.check_true("tangled mesh throws std::invalid_argument mentioning the Jacobian", thrown);
      }
      {
        // ebe tiled: no eight-threads-per-cell mapping, tile sizes in [1, 128].
        const MeshData mesh = make(0., false);
        auto           rejected = [&](const OperatorSettings &settings, const std::string &expected) {
          return refused(mesh, settings, expected);
        };
        OperatorSettings settings;
        settings.strategy       = Strategy::ebe_tiled;
        settings.thread_mapping = ThreadMapping::node;
        checker.check_true("ebe tiled with node mapping throws", rejected(settings, "one thread per cell"));
        settings.thread_mapping = ThreadMapping::shuffle;
        checker.check_true("ebe tiled with shuffle mapping throws", rejected(settings, "'shuffle' does not apply"));
        {
          // Thread mapping auto (documented in ThreadMapping::automatic): on GPUs shuffle lanes for ebe
          // atomic and dbd structured with geometry on the fly, node for ebe colored, one thread per cell
          // otherwise; on CPUs shuffle lanes for the three with the quadrature kernels, one thread per
          // cell with element matrices.
          const bool gpu      = plastix::backend::device_memory_is_separate();
          const auto resolved = [&](const Strategy strategy, const CellKernel kernel) {
            OperatorSettings automatic;
            automatic.strategy    = strategy;
            automatic.cell_kernel = kernel;
            return DeviceOperator(mesh, automatic).settings().thread_mapping;
          };
          const auto expect = [&](const Strategy strategy, const CellKernel kernel, const ThreadMapping on_gpu,
                                  const ThreadMapping on_cpu) {
            const ThreadMapping mapping = resolved(strategy, kernel);
            checker.check_true("auto mapping, " + to_string(strategy) + ", " + to_string(kernel) + ": " +
                                 to_string(mapping),
                               mapping == (gpu ? on_gpu : on_cpu));
          };
          expect(Strategy::ebe_atomic, CellKernel::geometry_on_the_fly, ThreadMapping::shuffle, ThreadMapping::shuffle);
          expect(Strategy::ebe_atomic, CellKernel::stored_geometry, ThreadMapping::cell, ThreadMapping::shuffle);
          expect(Strategy::ebe_atomic, CellKernel::element_matrix, ThreadMapping::cell, ThreadMapping::cell);
          expect(Strategy::ebe_colored, CellKernel::geometry_on_the_fly, ThreadMapping::node, ThreadMapping::shuffle);
          expect(Strategy::ebe_colored, CellKernel::stored_geometry, ThreadMapping::node, ThreadMapping::shuffle);
          expect(Strategy::ebe_colored, CellKernel::element_matrix, ThreadMapping::node, ThreadMapping::cell);
          expect(Strategy::dbd, CellKernel::stored_geometry, ThreadMapping::cell, ThreadMapping::cell);
          // dbd structured: the mapping of its element-by-element cells (those with plastic points).
          expect(Strategy::dbd_structured, CellKernel::geometry_on_the_fly, ThreadMapping::shuffle,
                 ThreadMapping::shuffle);
          expect(Strategy::dbd_structured, CellKernel::stored_geometry, ThreadMapping::cell, ThreadMapping::shuffle);
          expect(Strategy::dbd_structured, CellKernel::element_matrix, ThreadMapping::cell, ThreadMapping::cell);
        }
        {
          OperatorSettings structured;
          structured.strategy       = Strategy::dbd_structured;
          structured.thread_mapping = ThreadMapping::node;
          checker.check_true("dbd structured with node mapping throws", rejected(structured, "'node' does not apply"));
        }
        settings.thread_mapping = ThreadMapping::automatic;
        for (const unsigned int n : {0u, 129u})
          {
            settings.cells_per_tile = n;
            checker.check_true("ebe tiled with " + std::to_string(n) + " cells per tile throws",
                       rejected(settings, "cells per tile"));
          }
      }
    }
  catch (const std::exception &error)
    {
      std::printf("FAIL exception: %s\n", error.what());
      ++checker.failures;
    }
  finalize();
  std::printf("%s\n", checker.failures == 0 ? "PASSED" : "FAILED");
  return checker.failures == 0 ? 0 : 1;
}
