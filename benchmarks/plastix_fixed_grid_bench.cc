// plastix-fixed-grid-bench: the fixed-grid L-beam of J. Martinez-Frutos and
// D. Herrero-Perez, "Efficient matrix-free GPU implementation of Fixed Grid
// Finite Element Analysis" (Finite Elements in Analysis and Design, 2015),
// solved by Jacobi-preconditioned CG on the device backend alone (no
// deal.II: cheap to carry to a GPU, and no host mesh generation in the way
// of the largest grids).
//
// Usage: plastix-fixed-grid-bench [--sizes 100,200,400] [--outside removed,kept]
//                                 [--strategies "dbd structured,ebe atomic"]
//                                 [--tolerance 1e-8] [--max-iterations 200000]
//                                 [--repeats 10]
//
// The body is prm/fixed_grid_l_beam.prm's: the L-shaped profile x < 0.4 or
// y < 0.4 of the unit square, 0.25 thick, in the box [0,1] x [0,1] x [0,0.25]
// cut into n x n x n/4 cubes (aligned with the grid: inside and outside cells
// only); E = 1 GPa, nu = 0.2; clamped on y = 1, a shear traction -1 MPa in y
// on x = 1 (consistent nodal forces). --outside removed drops the outside
// cells and the DoFs only they touch (the paper's active DoFs); kept keeps
// them with the stiffness factor Delta = 1e-6 (the fixed grid without
// removal). Nodes are numbered lexicographically (the fastest order for dbd
// structured, measured faster than deal.II's cell-wise numbering on a GPU,
// doc/benchmarks.md, "GPU: the elastic operator on lattices (uniform meshes)"),
// cells along a Morton curve.
//
// For every size, outside treatment and strategy: DoFs, set-up time of the
// operator, device memory, the median time of one operator application
// (GDoF/s, against the STREAM triad of the same run), the Jacobi-PCG solve
// (iterations, time per iteration, time to solution; relative residual
// tolerance as the paper's 1e-8), the largest displacement magnitude (the
// application's max |u|), and the relative
// difference of the solution to the first strategy's (it must agree to the
// solver tolerance: exit status 2 otherwise).
#include <plastix/backend/device.h>
#include <plastix/backend/device_array.h>
#include <plastix/backend/device_operator.h>
#include <plastix/backend/vector_operations.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "bench_tools.h"

using namespace plastix::backend;
using plastix::bench::median_seconds;
using plastix::bench::seconds_since;
using plastix::bench::split;
using plastix::bench::split_integers;

namespace
{
  std::uint64_t
  morton_key(const std::uint64_t i, const std::uint64_t j, const std::uint64_t k)
  {
    std::uint64_t key = 0;
    for (int b = 0; b < 21; ++b)
      key |= ((i >> b) & 1u) << (3 * b) | ((j >> b) & 1u) << (3 * b + 1) | ((k >> b) & 1u) << (3 * b + 2);
    return key;
  }

  /** The L-beam on an n x n x n/4 grid, with the external force. */
  struct FixedGridProblem
  {
    MeshData            mesh;
    std::vector<double> force;
  };

  FixedGridProblem
  make_l_beam(const int n, const bool keep_outside)
  {
    const int         nx = n, ny = n, nz = std::max(1, n / 4);
    const double      h  = 1.0 / n;
    const double      delta = 1e-6;
    const std::size_t px = nx + 1, py = ny + 1, pz = nz + 1;
    auto inside = [&](const int i, const int j) { return (i + 0.5) * h < 0.4 || (j + 0.5) * h < 0.4; };

    // Kept cells, along a Morton curve.
    std::vector<std::uint64_t> cells;
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i)
          if (keep_outside || inside(i, j))
            cells.push_back(static_cast<std::uint64_t>(i) | static_cast<std::uint64_t>(j) << 21 |
                            static_cast<std::uint64_t>(k) << 42);
    const auto unpack = [](const std::uint64_t c, int &i, int &j, int &k) {
      i = static_cast<int>(c & 0x1fffff);
      j = static_cast<int>((c >> 21) & 0x1fffff);
      k = static_cast<int>(c >> 42);
    };
    std::vector<std::uint64_t> keys(cells.size());
    for (std::size_t c = 0; c < cells.size(); ++c)
      {
        int i, j, k;
        unpack(cells[c], i, j, k);
        keys[c] = morton_key(i, j, k);
      }
    std::vector<std::size_t> order(cells.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](const std::size_t a, const std::size_t b) { return keys[a] < keys[b]; });

    // The nodes of kept cells, numbered lexicographically.
    std::vector<LocalIndex> node_of_point(px * py * pz, -1);
    for (const std::uint64_t c : cells)
      {
        int i, j, k;
        unpack(c, i, j, k);
        for (int a = 0; a < 8; ++a)
          node_of_point[(i + (a & 1)) + px * ((j + ((a >> 1) & 1)) + py * (k + ((a >> 2) & 1)))] = 0;
      }
    FixedGridProblem problem;
    MeshData        &mesh = problem.mesh;
    for (std::size_t p = 0; p < node_of_point.size(); ++p)
      if (node_of_point[p] == 0)
        node_of_point[p] = mesh.n_nodes++;
    mesh.n_owned_nodes = mesh.n_nodes;
    mesh.node_coordinates.resize(3 * static_cast<std::size_t>(mesh.n_nodes));
    mesh.constrained_dofs.assign(3 * static_cast<std::size_t>(mesh.n_nodes), 0);
    for (std::size_t k = 0; k < pz; ++k)
      for (std::size_t j = 0; j < py; ++j)
        for (std::size_t i = 0; i < px; ++i)
          {
            const LocalIndex node = node_of_point[i + px * (j + py * k)];
            if (node < 0)
              continue;
            const double x[3] = {i * h, j * h, k * h};
            for (int d = 0; d < 3; ++d)
              {
                mesh.node_coordinates[3 * static_cast<std::size_t>(node) + d] = x[d];
                // Clamped on y = 1 where the body is (the top of the vertical arm; a
                // kept outside cell's face is free, as in the application).
                const bool on_body_face = j == static_cast<std::size_t>(ny) &&
                                          ((i > 0 && inside(static_cast<int>(i) - 1, ny - 1)) ||
                                           (i < static_cast<std::size_t>(nx) && inside(static_cast<int>(i), ny - 1)));
                mesh.constrained_dofs[3 * static_cast<std::size_t>(node) + d] = on_body_face;
              }
          }
    mesh.cell_nodes.resize(8 * cells.size());
    mesh.cell_material.assign(cells.size(), 0);
    mesh.cell_factors.resize(cells.size());
    for (std::size_t c = 0; c < cells.size(); ++c)
      {
        int i, j, k;
        unpack(cells[order[c]], i, j, k);
        for (int a = 0; a < 8; ++a)
          mesh.cell_nodes[8 * c + a] =
            node_of_point[(i + (a & 1)) + px * ((j + ((a >> 1) & 1)) + py * (k + ((a >> 2) & 1)))];
        mesh.cell_factors[c] = inside(i, j) ? 1.f : static_cast<float>(delta);
      }
    // E = 1 GPa, nu = 0.2.
    const double E = 1e9, nu = 0.2;
    mesh.materials = {MaterialConstants{E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu)), 0, 0, 0}};

    // Traction -1e6 in y on x = 1 where the body is (y < 0.4): a quarter of
    // each face's force to each of its four nodes.
    problem.force.assign(mesh.n_dofs(), 0.);
    const double face_force = -1e6 * h * h / 4;
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        if (inside(nx - 1, j))
          for (int a = 0; a < 4; ++a)
            {
              const LocalIndex node = node_of_point[nx + px * ((j + (a & 1)) + py * (k + (a >> 1)))];
              if (!mesh.constrained_dofs[3 * static_cast<std::size_t>(node) + 1])
                problem.force[3 * static_cast<std::size_t>(node) + 1] += face_force;
            }
    return problem;
  }

  struct SolveResult
  {
    unsigned int iterations = 0;
    double       seconds    = 0;
    double       residual   = 0;
    bool         converged  = false;
  };

  /** Jacobi-preconditioned CG on the device: K u = f, |r| <= tolerance |f|. */
  SolveResult
  jacobi_cg(const DeviceOperator &op, const DeviceArray<double> &f, DeviceArray<double> &u, const double tolerance,
            const unsigned int max_iterations)
  {
    const std::size_t   n = f.size();
    DeviceArray<double> r(n, "r"), z(n, "z"), p(n, "p"), q(n, "q"), inverse_diagonal(n, "diagonal");
    op.compute_diagonal(inverse_diagonal.data());
    vector_operations::invert_diagonal(n, inverse_diagonal.data());
    const auto start = std::chrono::steady_clock::now();
    u.set_zero();
    r.copy_from(f);
    const double f_norm = std::sqrt(vector_operations::dot(n, f.data(), f.data()));
    vector_operations::equ(n, 1., r.data(), z.data());
    vector_operations::pointwise_multiply(n, inverse_diagonal.data(), z.data());
    p.copy_from(z);
    double      rz = vector_operations::dot(n, r.data(), z.data());
    SolveResult result;
    result.residual = f_norm;
    while (result.iterations < max_iterations)
      {
        op.apply(p.data(), q.data());
        const double alpha = rz / vector_operations::dot(n, p.data(), q.data());
        vector_operations::axpy(n, alpha, p.data(), u.data());
        // r -= alpha q, and |r|^2 in the same pass.
        result.residual = std::sqrt(vector_operations::add_and_dot(n, -alpha, q.data(), r.data(), r.data()));
        ++result.iterations;
        if (result.residual <= tolerance * f_norm)
          {
            result.converged = true;
            break;
          }
        vector_operations::equ(n, 1., r.data(), z.data());
        vector_operations::pointwise_multiply(n, inverse_diagonal.data(), z.data());
        const double rz_new = vector_operations::dot(n, r.data(), z.data());
        vector_operations::sadd(n, rz_new / rz, 1., z.data(), p.data());
        rz = rz_new;
      }
    fence();
    result.seconds  = seconds_since(start);
    result.residual /= f_norm;
    return result;
  }
} // namespace

int
main(int argc, char **argv)
{
  std::vector<int>         sizes      = {100, 200};
  std::vector<std::string> outside    = {"removed", "kept"};
  std::vector<std::string> strategies = {"dbd structured", "ebe atomic"};
  double                   tolerance  = 1e-8;
  unsigned int             max_iterations = 200000;
  int                      repeats        = 10;
  for (int i = 1; i < argc; ++i)
    {
      const std::string arg  = argv[i];
      const bool        more = i + 1 < argc;
      if (arg == "--sizes" && more)
        sizes = split_integers(argv[++i]);
      else if (arg == "--outside" && more)
        outside = split(argv[++i], ',');
      else if (arg == "--strategies" && more)
        strategies = split(argv[++i], ',');
      else if (arg == "--tolerance" && more)
        tolerance = std::stod(argv[++i]);
      else if (arg == "--max-iterations" && more)
        max_iterations = static_cast<unsigned int>(std::stoul(argv[++i]));
      else if (arg == "--repeats" && more)
        repeats = std::stoi(argv[++i]);
      else
        {
          std::cerr << "usage: plastix-fixed-grid-bench [--sizes 100,200] [--outside removed,kept] "
                       "[--strategies \"dbd structured,ebe atomic\"] [--tolerance 1e-8] [--max-iterations n] "
                       "[--repeats r]\n";
          return 1;
        }
    }
  for (const auto &o : outside)
    if (o != "removed" && o != "kept")
      {
        std::cerr << "plastix-fixed-grid-bench: --outside takes removed and/or kept\n";
        return 1;
      }

  initialize();
  int status = 0;
  try
    {
      std::cout << "# plastix-fixed-grid-bench, " << device_description() << "\n"
                << "# L-beam of prm/fixed_grid_l_beam.prm, n x n x n/4 cubes, Jacobi-PCG to relative residual "
                << tolerance << ", median of " << repeats << " applications\n"
                << "| n | outside cells | cells | DoFs | strategy | set-up s | device MiB | apply ms | GDoF/s | "
                   "% triad | PCG iterations | ms per iteration | solve s | max u | rel. diff |\n"
                << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
      for (const int n : sizes)
        for (const auto &o : outside)
          {
            const auto             build_start = std::chrono::steady_clock::now();
            const FixedGridProblem problem     = make_l_beam(n, o == "kept");
            const double           build_s     = seconds_since(build_start);
            const std::size_t      n_dofs      = problem.mesh.n_dofs();
            std::cerr << "n " << n << ", outside " << o << ": " << problem.mesh.n_cells() << " cells, " << n_dofs
                      << " DoFs, built in " << build_s << " s\n";
            const DeviceArray<double> f(problem.force, "force");
            DeviceArray<double>       u(n_dofs, "u"), x(n_dofs, "x"), y(n_dofs, "y");
            std::vector<double>       host_x(n_dofs);
            for (std::size_t i = 0; i < n_dofs; ++i)
              host_x[i] = std::sin(0.37 * i + 0.1);
            x.copy_from_host(host_x);

            // The triad of the same run, over the larger of the vectors and 32M entries.
            const std::size_t   n_triad = std::max<std::size_t>(n_dofs, 1u << 25);
            double              triad_gbs;
            {
              DeviceArray<double> ta(n_triad, "a"), tb(n_triad, "b"), tc(n_triad, "c");
              vector_operations::set(n_triad, 1., tb.data());
              vector_operations::set(n_triad, 2., tc.data());
              const double s = median_seconds(repeats, [&] {
                vector_operations::triad(n_triad, 3., tb.data(), tc.data(), ta.data());
              });
              triad_gbs = 24. * n_triad / s / 1e9;
            }

            std::vector<double> reference;
            for (const auto &strategy : strategies)
              {
                OperatorSettings settings;
                settings.strategy    = parse_strategy(strategy);
                settings.cell_kernel = settings.strategy == Strategy::dbd_structured ? CellKernel::geometry_on_the_fly :
                                                                                        CellKernel::element_matrix;
                const auto setup_start = std::chrono::steady_clock::now();
                std::unique_ptr<DeviceOperator> op;
                try
                  {
                    op = std::make_unique<DeviceOperator>(problem.mesh, settings);
                  }
                catch (const DeviceMemoryError &error)
                  {
                    std::cout << "| " << n << " | " << o << " | " << problem.mesh.n_cells() << " | " << n_dofs << " | "
                              << strategy << " | out of device memory: " << error.what() << " |\n";
                    continue;
                  }
                fence();
                const double setup_s = seconds_since(setup_start);
                const double apply_s = median_seconds(repeats, [&] { op->apply(x.data(), y.data()); });
                const SolveResult solve = jacobi_cg(*op, f, u, tolerance, max_iterations);
                const std::vector<double> solution = u.to_host();
                double                    max_u = 0, diff = 0, norm = 0;
                for (std::size_t i = 0; i < n_dofs; i += 3)
                  max_u = std::max(max_u, std::hypot(solution[i], solution[i + 1], solution[i + 2]));
                if (reference.empty())
                  reference = solution;
                for (std::size_t i = 0; i < n_dofs; ++i)
                  {
                    diff += (solution[i] - reference[i]) * (solution[i] - reference[i]);
                    norm += reference[i] * reference[i];
                  }
                const double rel = std::sqrt(diff / norm);
                if (!solve.converged || !(rel < 1e-5) || !std::isfinite(max_u))
                  status = 2;
                char line[640];
                std::snprintf(line, sizeof(line),
                              "| %d | %s | %d | %zu | %s | %.3g | %.0f | %.4g | %.3g | %.1f | %u%s | %.4g | %.4g | %.6g | %.1e |",
                              n, o.c_str(), problem.mesh.n_cells(), n_dofs, strategy.c_str(), setup_s,
                              op->memory_consumption() / 1048576., apply_s * 1e3, n_dofs / apply_s / 1e9,
                              100. * op->bytes_per_apply() / apply_s / 1e9 / triad_gbs, solve.iterations,
                              solve.converged ? "" : " (not converged)", solve.seconds / solve.iterations * 1e3,
                              solve.seconds, max_u, rel);
                std::cout << line << std::endl;
              }
          }
    }
  catch (const std::exception &error)
    {
      std::cerr << "plastix-fixed-grid-bench: error: " << error.what() << "\n";
      status = 1;
    }
  finalize();
  return status;
}
