// plastix-kernel-bench: throughput of the backend operator on generated box
// meshes, without deal.II (so it runs on a GPU machine that has no deal.II).
//
//   plastix-kernel-bench [--sizes 32,64,128] [--distortion 0.2] [--repeats 20]
//                        [--strategies "ebe atomic,ebe colored,dbd,ebe tiled,assembled,dbd structured"]
//                        [--tile-cells 64,128]
//                        [--kernels "stored geometry,geometry on the fly,element matrix"]
//                        [--mappings auto,cell,node,shuffle] [--formulations full,bbar,fbar] [--csr-max-dofs N]
//
// With --formulations full,bbar every configuration is also run with B-bar
// (mean dilatation; its rows name it in the cell-kernel column), checked
// against the first B-bar configuration: the cost of B-bar, side by side.
// fbar is the F-bar element of finite strain: its finite-strain rows are
// F-bar's, its small-strain rows B-bar's (F-bar's small-strain limit).
//
// With --plastic-fractions f1,f2 (e.g. 0,0.1,0.3) the J2 kernels are timed
// too: for a displacement u_z = a z^2/2 on the unit cube (steel, sigma_y =
// 450 MPa, H = 66 GPa) that yields the fraction f of the Gauss points: the
// stress update (radial return + internal force), the internal force alone,
// and the consistent-tangent operator (checked against the first
// configuration; with --precision single also on float vectors, the
// multigrid levels' plastic pass). --criteria "von Mises,Mohr-Coulomb,
// Drucker-Prager" times the pressure-dependent kernels the same way (c = 50
// MPa, phi = 30, psi = 10 degrees, cohesion hardening 1 GPa; Drucker-Prager
// the outer cone): spectral decomposition and multi-surface return per
// point, a non-symmetric 6x6 tangent per point.
//
// With --finite-strain every configuration that takes finite strain is timed
// linearised at a displacement with strains of a few per cent (neo-Hookean
// with the mesh's lambda and mu): the update (F at the Gauss points and the
// internal force), the internal force alone, and the tangent apply (checked
// against the first configuration), with its speed as a percentage of the
// same configuration's elastic apply measured before it; with
// --plastic-fractions also elastoplasticity in the logarithmic strain
// (Hencky, the J2 material of the plasticity kernels, from a virgin history)
// at those fractions of plastic points.
//
// With --csr-max-dofs N (default 0: off) the assembled CSR matrix of the same
// operator is timed for meshes up to N DoFs: a portable Kokkos SpMV and, in
// CUDA builds, cuSPARSE (cusparseSpMV).
//
// With --precision double,single the operator rows are repeated on float
// vectors (the level operators of the mixed-precision multigrid: arithmetic
// in single precision, operator data double); they are checked against the
// double result to 1e-5.
//
// With --node-order cells the nodes are numbered in the order in which the
// cells (Morton order) first touch them, as deal.II numbers DoFs, instead of
// lexicographically.
//
// With --transfer the multigrid transfer between the box and its coarsening
// (n/2 cells per direction) is timed too: one prolongation plus one
// restriction, matrix-free (backend::Q1Transfer, double and float) against
// the stored prolongation and restriction matrices (Kokkos CSR SpMV, what
// plastix used before), with the time of one operator application (ebe
// atomic, element matrix) for scale; the two are checked against each other.
//
// For every size, strategy and cell kernel: median time of one operator
// application, GDoF/s, effective GB/s (DeviceOperator::bytes_per_apply)
// and its fraction of the STREAM triad measured in the same run; results of
// all variants are checked against the first one.
#include "bench_tools.h"
#include "box_mesh.h"
#include "csr_matrix.h"
#if defined(PLASTIX_WITH_CUSPARSE)
#  include "cusparse_spmv.h"
#endif
#include <plastix/backend/device.h>
#include <plastix/backend/device_array.h>
#include <plastix/backend/device_operator.h>
#include <plastix/backend/finite_strain_state.h>
#include <plastix/backend/gauss_point_state.h>
#include <plastix/backend/q1_transfer.h>
#include <plastix/backend/vector_operations.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace plastix::backend;
using plastix::bench::median_seconds;
using plastix::bench::split;
using plastix::bench::split_integers;

namespace
{
  /** One operator configuration to time, with the names it was asked for by. */
  struct Configuration
  {
    std::string      strategy, kernel;
    OperatorSettings settings;
  };

  /**
   * Every strategy x cell kernel x thread mapping asked for; DbD has one
   * mapping (thread per node), ebe tiled one (thread per cell) and one
   * configuration per tile size; dbd structured runs one thread per node
   * with the mapping (cell, shuffle, auto) of its element-by-element cells.
   */
  std::vector<Configuration>
  configurations(const std::vector<std::string>  &strategies,
                 const std::vector<std::string>  &kernels,
                 const std::vector<std::string>  &mappings,
                 const std::vector<unsigned int> &tile_sizes,
                 const std::vector<std::string>  &formulations)
  {
    std::vector<Configuration> result;
    for (const auto &formulation : formulations)
    for (const auto &strategy : strategies)
      for (const auto &cell_kernel : kernels)
        for (const auto &mapping : mappings)
          {
            // The kernel column names the formulation where it is B-bar.
            const std::string kernel = cell_kernel + (formulation == "full" ? "" : ", " + formulation);
            OperatorSettings settings;
            settings.element_formulation = parse_element_formulation(formulation);
            settings.strategy       = parse_strategy(strategy);
            settings.cell_kernel    = parse_cell_kernel(cell_kernel);
            settings.thread_mapping = parse_thread_mapping(mapping);
            if ((settings.strategy == Strategy::dbd || settings.strategy == Strategy::ebe_tiled ||
                 settings.strategy == Strategy::assembled) &&
                mapping != mappings.front())
              continue;
            if (settings.strategy == Strategy::assembled)
              settings.thread_mapping = ThreadMapping::cell;
            // dbd structured: the mapping is that of its element-by-element (plastic) cells; node does not apply.
            if (settings.strategy == Strategy::dbd_structured && settings.thread_mapping == ThreadMapping::node)
              continue;
            if (settings.strategy == Strategy::ebe_tiled)
              {
                settings.thread_mapping = ThreadMapping::cell;
                for (const unsigned int n : tile_sizes)
                  {
                    settings.cells_per_tile = n;
                    result.push_back({strategy, kernel, settings});
                  }
              }
            else
              result.push_back({strategy, kernel, settings});
          }
    return result;
  }

  /** Relative l2 difference of two host vectors. */
  template <typename A, typename B>
  double
  relative_difference(const std::vector<A> &result, const std::vector<B> &reference)
  {
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < reference.size(); ++i)
      {
        diff += (result[i] - reference[i]) * (result[i] - reference[i]);
        norm += static_cast<double>(reference[i]) * reference[i];
      }
    return std::sqrt(diff / norm);
  }

  /** Time and result of one operator application, checked against a reference. */
  struct CheckedApplication
  {
    double seconds             = 0;
    double relative_difference = 0;
  };

  /**
   * Time @p op's application to @p src in double precision and compare the
   * result with @p reference (which the first configuration sets, empty
   * until then); @p status becomes 2 if they differ by 1e-10 or more.
   */
  CheckedApplication
  time_checked_double(const DeviceOperator &op, const DeviceArray<double> &src, DeviceArray<double> &dst,
                      std::vector<double> &reference, const int repeats, int &status)
  {
    CheckedApplication checked;
    checked.seconds   = median_seconds(repeats, [&] { op.apply(src.data(), dst.data()); });
    const auto result = dst.to_host();
    if (reference.empty())
      reference = result;
    checked.relative_difference = relative_difference(result, reference);
    if (!(checked.relative_difference < 1e-10))
      status = 2;
    return checked;
  }

  /**
   * Time @p op's application to float vectors (the multigrid levels' form)
   * and compare it with the double-precision @p reference; @p status becomes
   * 2 if they differ by 1e-5 or more.
   */
  CheckedApplication
  time_checked_single(const DeviceOperator &op, const DeviceArray<float> &src, DeviceArray<float> &dst,
                      const std::vector<double> &reference, const int repeats, int &status)
  {
    CheckedApplication checked;
    checked.seconds             = median_seconds(repeats, [&] { op.apply(src.data(), dst.data()); });
    checked.relative_difference = relative_difference(dst.to_host(), reference);
    if (!(checked.relative_difference < 1e-5))
      status = 2;
    return checked;
  }

  /**
   * The transfer between the lexicographic box meshes of n_c and 2 n_c cells
   * per direction (unit cube, DoFs on x = 0 constrained on both levels):
   * the Q1Transfer data and the prolongation as a host CSR matrix (rows:
   * fine DoFs; constrained rows and columns left out).
   */
  void
  box_transfer(const int n_c, TransferData &data, CsrMatrixHost &P)
  {
    const int  n_f  = 2 * n_c;
    const auto node = [](const int n, const int i, const int j, const int k) {
      return static_cast<LocalIndex>(i + (n + 1) * (j + (n + 1) * k));
    };
    data.n_coarse_nodes = (n_c + 1) * (n_c + 1) * (n_c + 1);
    data.n_fine_nodes   = (n_f + 1) * (n_f + 1) * (n_f + 1);
    data.coarse_constrained.assign(3 * data.n_coarse_nodes, 0);
    data.fine_constrained.assign(3 * data.n_fine_nodes, 0);
    for (int k = 0; k <= n_c; ++k)
      for (int j = 0; j <= n_c; ++j)
        for (int c = 0; c < 3; ++c)
          data.coarse_constrained[3 * node(n_c, 0, j, k) + c] = 1;
    for (int k = 0; k <= n_f; ++k)
      for (int j = 0; j <= n_f; ++j)
        for (int c = 0; c < 3; ++c)
          data.fine_constrained[3 * node(n_f, 0, j, k) + c] = 1;
    std::vector<int> cells_of_node(data.n_fine_nodes, 0);
    for (int K = 0; K < n_c; ++K)
      for (int J = 0; J < n_c; ++J)
        for (int I = 0; I < n_c; ++I)
          {
            for (int a = 0; a < 8; ++a)
              data.coarse_cell_nodes.push_back(node(n_c, I + (a & 1), J + ((a >> 1) & 1), K + (a >> 2)));
            for (int q = 0; q < 27; ++q)
              {
                const LocalIndex f = node(n_f, 2 * I + q % 3, 2 * J + (q / 3) % 3, 2 * K + q / 9);
                data.fine_cell_nodes.push_back(f);
                ++cells_of_node[f];
              }
          }
    data.fine_node_weights.resize(data.n_fine_nodes);
    for (LocalIndex f = 0; f < data.n_fine_nodes; ++f)
      data.fine_node_weights[f] = 1. / cells_of_node[f];
    // The prolongation row of each fine node from the first coarse cell that has it.
    std::vector<std::vector<std::pair<std::int32_t, double>>> rows(3 * data.n_fine_nodes);
    std::vector<char>                                         done(data.n_fine_nodes, 0);
    for (std::size_t cell = 0; cell < data.n_cells(); ++cell)
      for (int q = 0; q < 27; ++q)
        {
          const LocalIndex f = data.fine_cell_nodes[27 * cell + q];
          if (done[f])
            continue;
          done[f] = 1;
          for (int a = 0; a < 8; ++a)
            {
              double w = 1;
              for (int d = 0, p = q; d < 3; ++d, p /= 3)
                w *= p % 3 == 1 ? 0.5 : (p % 3 == 2 * ((a >> d) & 1) ? 1. : 0.);
              if (w == 0)
                continue;
              for (int c = 0; c < 3; ++c)
                {
                  const LocalIndex coarse = data.coarse_cell_nodes[8 * cell + a];
                  if (!data.fine_constrained[3 * f + c] && !data.coarse_constrained[3 * coarse + c])
                    rows[3 * f + c].emplace_back(3 * coarse + c, w);
                }
            }
        }
    P.n_rows = rows.size();
    P.row_offsets.assign(1, 0);
    for (const auto &row : rows)
      {
        for (const auto &[column, value] : row)
          {
            P.columns.push_back(column);
            P.values.push_back(value);
          }
        P.row_offsets.push_back(P.columns.size());
      }
  }

  /** The transpose of @p P (n_columns columns). */
  CsrMatrixHost
  transpose(const CsrMatrixHost &P, const std::size_t n_columns)
  {
    CsrMatrixHost R;
    R.n_rows = n_columns;
    R.row_offsets.assign(n_columns + 1, 0);
    for (const auto column : P.columns)
      ++R.row_offsets[column + 1];
    for (std::size_t i = 0; i < n_columns; ++i)
      R.row_offsets[i + 1] += R.row_offsets[i];
    R.columns.resize(P.columns.size());
    R.values.resize(P.values.size());
    std::vector<std::int32_t> fill(R.row_offsets.begin(), R.row_offsets.end() - 1);
    for (LocalIndex i = 0; i < P.n_rows; ++i)
      for (std::int32_t k = P.row_offsets[i]; k < P.row_offsets[i + 1]; ++k)
        {
          const std::int32_t position = fill[P.columns[k]]++;
          R.columns[position]         = i;
          R.values[position]          = P.values[k];
        }
    return R;
  }

  /**
   * The device assembly of Strategy::assembled: the symbolic pass (once,
   * at construction), the numeric pass (median of re-assemblies through
   * update_tangent()), the matrix's size, and in CUDA builds cuSPARSE's
   * SpMV of the same matrix next to the operator's own.
   */
  void
  report_assembly(const int                        n,
                  const std::size_t                n_dofs,
                  const std::string               &kernel,
                  DeviceOperator                  &op,
                  const DeviceArray<double>       &src,
                  DeviceArray<double>             &dst,
                  const std::vector<double>       &reference,
                  const std::vector<std::uint8_t> &constrained,
                  const int                        repeats,
                  int                             &status)
  {
    const double symbolic_s = op.assembly_times().symbolic;
    const double numeric_s  = median_seconds(std::max(3, repeats / 4), [&] { op.update_tangent(); });
    const double matrix_mib = op.memory_consumption() / 1048576.;
    char         line[768];
    std::snprintf(line, sizeof(line),
                  "| %d | %zu | assembled: device assembly | %s | | double | symbolic %.4g ms, numeric %.4g ms "
                  "(%.3g M cells/s) | %zu entries, operator %.0f MiB | | | | |",
                  n, n_dofs, kernel.c_str(), symbolic_s * 1e3, numeric_s * 1e3, op.n_cells() / numeric_s / 1e6,
                  op.n_matrix_entries(), matrix_mib);
    std::cout << line << std::endl;
#if defined(PLASTIX_WITH_CUSPARSE)
    if (op.n_matrix_entries() < (std::size_t(1) << 31))
      {
        const CsrMatrix device_matrix = op.copy_matrix();
        CsrMatrixHost   csr;
        csr.n_rows = static_cast<LocalIndex>(n_dofs);
        csr.row_offsets.assign(device_matrix.row_offsets.begin(), device_matrix.row_offsets.end());
        csr.columns.assign(device_matrix.columns.begin(), device_matrix.columns.end());
        csr.values = device_matrix.values;
        const CusparseSpmv matrix(csr);
        const double       s = median_seconds(repeats, [&] { matrix.vmult(src.data(), dst.data()); });
        // No unit rows in the copied matrix: compare the unconstrained rows only.
        const auto   result = dst.to_host();
        double       diff = 0, norm = 0;
        for (std::size_t i = 0; i < n_dofs; ++i)
          if (!constrained[i])
            {
              diff += (result[i] - reference[i]) * (result[i] - reference[i]);
              norm += reference[i] * reference[i];
            }
        const double rel = norm > 0 ? std::sqrt(diff / norm) : 0.;
        if (!(rel < 1e-10))
          status = 2;
        std::snprintf(line, sizeof(line),
                      "| %d | %zu | assembled: cuSPARSE SpMV of the device-assembled matrix | %s | row | double | "
                      "%.4g | %.3g | | | | %.1e |",
                      n, n_dofs, kernel.c_str(), s * 1e3, n_dofs / s / 1e9, rel);
        std::cout << line << std::endl;
      }
#else
    (void)src;
    (void)dst;
    (void)reference;
    (void)constrained;
    (void)status;
#endif
  }

  /** The threads column: node, cell, or cell and the tile size. */
  std::string
  threads_column(const OperatorSettings &settings, const DeviceOperator &op)
  {
    if (settings.strategy == Strategy::dbd)
      return "node";
    if (settings.strategy == Strategy::dbd_structured)
      return "node; cells " + to_string(op.settings().thread_mapping);
    if (settings.strategy == Strategy::ebe_tiled)
      return "cell, tiles of " + std::to_string(settings.cells_per_tile);
    if (settings.strategy == Strategy::assembled)
      return "row";
    return to_string(op.settings().thread_mapping);
  }
} // namespace

int
main(int argc, char **argv)
{
  std::vector<int>         sizes      = {16, 32, 64};
  double                   distortion = 0.0;
  int                      repeats    = 20;
  std::vector<std::string> strategies = {"ebe atomic", "ebe colored", "dbd", "ebe tiled"};
  std::vector<std::string> kernels    = {"stored geometry", "geometry on the fly", "element matrix"};
  std::vector<std::string> mappings   = {"auto"};
  std::vector<std::string> formulations = {"full"};
  std::vector<unsigned int> tile_sizes = {128};
  std::size_t              csr_max_dofs = 0;
  std::vector<double>      plastic_fractions;
  std::vector<std::string> criteria = {"von Mises"};
  bool                     single_precision = false;
  bool                     transfer         = false;
  bool                     finite_strain    = false;
  std::string              node_order       = "lexicographic";
  for (int i = 1; i < argc; ++i)
    {
      const std::string arg  = argv[i];
      const bool        more = i + 1 < argc;
      if (arg == "--sizes" && more)
        sizes = split_integers(argv[++i]);
      else if (arg == "--distortion" && more)
        distortion = std::stod(argv[++i]);
      else if (arg == "--repeats" && more)
        repeats = std::stoi(argv[++i]);
      else if (arg == "--strategies" && more)
        strategies = split(argv[++i], ',');
      else if (arg == "--kernels" && more)
        kernels = split(argv[++i], ',');
      else if (arg == "--mappings" && more)
        mappings = split(argv[++i], ',');
      else if (arg == "--formulations" && more)
        formulations = split(argv[++i], ',');
      else if (arg == "--tile-cells" && more)
        {
          tile_sizes.clear();
          for (const auto &t : split(argv[++i], ','))
            tile_sizes.push_back(static_cast<unsigned int>(std::stoul(t)));
        }
      else if (arg == "--csr-max-dofs" && more)
        csr_max_dofs = std::stoull(argv[++i]);
      else if (arg == "--precision" && more)
        {
          for (const auto &p : split(argv[++i], ','))
            if (p == "single")
              single_precision = true;
            else if (p != "double")
              {
                std::cerr << "plastix-kernel-bench: --precision takes double and/or single\n";
                return 1;
              }
        }
      else if (arg == "--finite-strain")
        finite_strain = true;
      else if (arg == "--transfer")
        transfer = true;
      else if (arg == "--node-order" && more)
        {
          node_order = argv[++i];
          if (node_order != "lexicographic" && node_order != "cells")
            {
              std::cerr << "plastix-kernel-bench: --node-order takes lexicographic or cells\n";
              return 1;
            }
        }
      else if (arg == "--plastic-fractions" && more)
        for (const auto &f : split(argv[++i], ','))
          plastic_fractions.push_back(std::stod(f));
      else if (arg == "--criteria" && more)
        {
          criteria = split(argv[++i], ',');
          for (const auto &c : criteria)
            if (c != "von Mises" && c != "Mohr-Coulomb" && c != "Drucker-Prager")
              {
                std::cerr << "plastix-kernel-bench: --criteria takes von Mises, Mohr-Coulomb, Drucker-Prager\n";
                return 1;
              }
        }
      else
        {
          std::cerr << "usage: plastix-kernel-bench [--sizes n1,n2] [--distortion d] "
                       "[--repeats r] [--strategies a,b] [--kernels a,b] [--mappings auto,cell,node,shuffle] [--formulations full,bbar,fbar] "
                       "[--tile-cells 64,128] [--csr-max-dofs n] [--plastic-fractions f1,f2] "
                       "[--criteria \"von Mises,Mohr-Coulomb,Drucker-Prager\"] "
                       "[--precision double,single] [--finite-strain] [--transfer] [--node-order lexicographic|cells]\n";
          return 1;
        }
    }

  initialize();
  int status = 0;
  try
    {
      std::cout << "# plastix-kernel-bench, " << device_description() << "\n";
      std::cout << "# distortion " << distortion << ", nodes numbered " << node_order << ", median of " << repeats
                << " runs\n";
      std::cout << "| cells/dir | DoFs | strategy | cell kernel | threads | precision | ms | GDoF/s | GB/s | % triad | B/DoF | rel. diff |\n"
                << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
      for (const int n : sizes)
        {
          BoxMeshDescription desc;
          desc.n_cells[0] = desc.n_cells[1] = desc.n_cells[2] = n;
          desc.distortion = distortion;
          MeshData mesh = make_box_mesh(desc);
          if (node_order == "cells")
            number_nodes_by_cells(mesh);
          const std::size_t n_dofs = mesh.n_dofs();

          std::vector<double> host_src(n_dofs);
          for (std::size_t i = 0; i < n_dofs; ++i)
            host_src[i] = std::sin(0.37 * i + 0.1) + 0.01 * (i % 7);
          DeviceArray<double> src(host_src, "src"), dst(n_dofs, "dst"), tmp(n_dofs, "triad");

          // Triad over three arrays of the same size as the vectors, at least 32M entries so the cache does not help.
          const std::size_t   n_triad = std::max<std::size_t>(n_dofs, 1u << 25);
          DeviceArray<double> ta(n_triad, "a"), tb(n_triad, "b"), tc(n_triad, "c");
          vector_operations::set(n_triad, 1., tb.data());
          vector_operations::set(n_triad, 2., tc.data());
          const double triad_s = median_seconds(repeats, [&] {
            vector_operations::triad(n_triad, 3., tb.data(), tc.data(), ta.data());
          });
          const double triad_gbs = 24. * n_triad / triad_s / 1e9;
          std::cout << "| " << n << " | " << n_dofs << " | triad | " << n_triad << " entries | | double | "
                    << triad_s * 1e3 << " | | " << triad_gbs << " | 100 | | |\n";
          std::vector<float>       host_src_float(host_src.begin(), host_src.end());
          const DeviceArray<float> src_float(host_src_float, "src (float)");
          DeviceArray<float>       dst_float(n_dofs, "dst (float)");

          // Every configuration must agree with the first of its formulation.
          std::map<ElementFormulation, std::vector<double>> references;
          // The elastic apply of each configuration, for the finite-strain rows' ratio.
          std::map<std::string, double> elastic_seconds;
          for (const auto &[strategy, kernel, settings] : configurations(strategies, kernels, mappings, tile_sizes, formulations))
              {
                std::unique_ptr<DeviceOperator> op_pointer;
                try
                  {
                    op_pointer = std::make_unique<DeviceOperator>(mesh, settings);
                  }
                catch (const std::invalid_argument &error)
                  {
                    // dbd structured on a distorted mesh.
                    std::cout << "| " << n << " | " << n_dofs << " | " << strategy << " | " << kernel
                              << " | not applicable: " << error.what() << " |\n";
                    continue;
                  }
                DeviceOperator &op = *op_pointer;
                auto report = [&](const char *precision, const double s, const double rel, const double bytes) {
                  char line[512];
                  std::snprintf(line, sizeof(line),
                                "| %d | %zu | %s | %s | %s | %s | %.4g | %.3g | %.4g | %.1f | %.1f | %.1e |", n,
                                n_dofs, strategy.c_str(), kernel.c_str(), threads_column(settings, op).c_str(),
                                precision, s * 1e3, n_dofs / s / 1e9, bytes / s / 1e9,
                                100. * bytes / s / 1e9 / triad_gbs, bytes / n_dofs, rel);
                  std::cout << line << std::endl;
                };
                std::vector<double> &reference = references[settings.element_formulation];
                const auto checked = time_checked_double(op, src, dst, reference, repeats, status);
                report("double", checked.seconds, checked.relative_difference, op.bytes_per_apply());
                elastic_seconds[strategy + ", " + kernel + ", " + threads_column(settings, op)] = checked.seconds;
                if (single_precision)
                  {
                    const auto single = time_checked_single(op, src_float, dst_float, reference, repeats, status);
                    report("single", single.seconds, single.relative_difference, op.bytes_per_apply(sizeof(float)));
                  }
                if (settings.strategy == Strategy::assembled)
                  report_assembly(n, n_dofs, kernel, op, src, dst, reference, mesh.constrained_dofs, repeats, status);
              }

          // Plasticity kernels at prescribed fractions of plastic Gauss points.
          for (const std::string &criterion : criteria)
          for (const double fraction : plastic_fractions)
            {
              MeshData           plastic_mesh            = mesh;
              MaterialConstants &m                       = plastic_mesh.materials[0];
              // u_z = a z^2 / 2: uniaxial strain eps_zz = a z (tension),
              // yielding where eps_zz exceeds the yield strain of the criterion.
              double yield_strain = 0;
              if (criterion == "von Mises")
                {
                  m.yield_stress        = 450e6;
                  m.isotropic_hardening = 66e9;
                  yield_strain          = m.yield_stress / (2. * m.mu);
                }
              else
                {
                  // c = 50 MPa, phi = 30 degrees, psi = 10 degrees (non-symmetric
                  // tangent), cohesion hardening 1 GPa.
                  const double phi = 30. * M_PI / 180., psi = 10. * M_PI / 180.;
                  m.cohesion           = 50e6;
                  m.cohesion_hardening = 1e9;
                  m.sin_friction       = std::sin(phi);
                  m.cos_friction       = std::cos(phi);
                  m.sin_dilation       = std::sin(psi);
                  if (criterion == "Mohr-Coulomb")
                    {
                      m.criterion = YieldCriterion::mohr_coulomb;
                      // (sigma_zz - sigma_xx) + (sigma_zz + sigma_xx) sin(phi) = 2 c cos(phi).
                      yield_strain = 2. * m.cohesion * m.cos_friction / (2. * m.mu + 2. * (m.lambda + m.mu) * m.sin_friction);
                    }
                  else
                    {
                      // The outer cone: sqrt(J2) + eta p = xi c.
                      m.criterion    = YieldCriterion::drucker_prager;
                      m.cone_eta     = 6. * std::sin(phi) / (std::sqrt(3.) * (3. - std::sin(phi)));
                      m.cone_eta_bar = 6. * std::sin(psi) / (std::sqrt(3.) * (3. - std::sin(psi)));
                      m.cone_xi      = m.cone_eta * m.cos_friction / m.sin_friction;
                      yield_strain   = m.cone_xi * m.cohesion /
                                     (2. * m.mu / std::sqrt(3.) + m.cone_eta * (m.lambda + 2. * m.mu / 3.));
                    }
                }
              const double        a              = yield_strain / (1. - std::min(fraction, 0.95)) * (fraction > 0 ? 1. : 0.5);
              std::vector<double> host_u(n_dofs, 0.);
              for (LocalIndex node = 0; node < plastic_mesh.n_nodes; ++node)
                {
                  const double z    = plastic_mesh.node_coordinates[3 * node + 2];
                  host_u[3 * node + 2] = 0.5 * a * z * z;
                }
              const DeviceArray<double> u(host_u, "u");
              DeviceArray<double>       f_int(n_dofs, "f_int");
              // The tangent operator of every configuration must agree with the first of its formulation.
              std::map<ElementFormulation, std::vector<double>> tangent_references;
              for (const auto &[strategy, kernel, settings] : configurations(strategies, kernels, mappings, tile_sizes, formulations))
                    {
                      std::unique_ptr<DeviceOperator> op_pointer;
                      try
                        {
                          op_pointer = std::make_unique<DeviceOperator>(plastic_mesh, settings);
                        }
                      catch (const std::invalid_argument &)
                        {
                          continue;
                        }
                      DeviceOperator &op = *op_pointer;
                      GaussPointState  &state = op.create_plasticity_state();
                      op.use_tangent(false);
                      StressUpdateStatistics statistics;
                      const double update_s = median_seconds(repeats, [&] { statistics = state.update(u.data(), f_int.data()); });
                      const double force_s  = median_seconds(repeats, [&] { state.internal_force(f_int.data()); });
                      op.use_tangent(true);
                      const double tangent_setup_s = median_seconds(repeats, [&] { op.update_tangent(); });
                      std::vector<double> &reference = tangent_references[settings.element_formulation];
                      const auto tangent = time_checked_double(op, src, dst, reference, repeats, status);
                      std::string single_column;
                      if (single_precision)
                        {
                          const auto single = time_checked_single(op, src_float, dst_float, reference, repeats, status);
                          char       column[128];
                          std::snprintf(column, sizeof(column), " single %.4g ms (%.3g GDoF/s, rel. diff %.1e) |",
                                        single.seconds * 1e3, n_dofs / single.seconds / 1e9,
                                        single.relative_difference);
                          single_column = column;
                        }
                      op.release_plasticity_state();
                      const double plastic = statistics.n_plastic_points / (8. * plastic_mesh.n_cells());
                      char         line[512];
                      std::snprintf(line, sizeof(line),
                                    "| %d | %zu | %s | %s | %s | %s plastic %.1f%% | update %.4g ms (%.3g GDoF/s) | f_int %.4g ms "
                                    "(%.3g GDoF/s) | tangent setup %.4g ms | tangent apply %.4g ms (%.3g GDoF/s, "
                                    "rel. diff %.1e) |",
                                    n, n_dofs, strategy.c_str(), kernel.c_str(),
                                    threads_column(settings, op).c_str(), criterion.c_str(),
                                    100. * plastic, update_s * 1e3, n_dofs / update_s / 1e9, force_s * 1e3,
                                    n_dofs / force_s / 1e9, tangent_setup_s * 1e3, tangent.seconds * 1e3,
                                    n_dofs / tangent.seconds / 1e9, tangent.relative_difference);
                      std::cout << line << single_column << std::endl;
                    }
            }

          // Finite strain linearised at a displacement with strains of a few per cent: neo-Hookean with the
          // mesh's lambda and mu (F at the points and f_int, then the tangent), then with plastic fractions
          // elastoplasticity in the logarithmic strain (Hencky, J2 of the plasticity kernels above, from a
          // virgin history, so that the return at every application is plastic where it yields).
          if (finite_strain)
            {
              struct FiniteStrainCase
              {
                std::string         label;
                MeshData            mesh;
                std::vector<double> u;
              };
              std::vector<FiniteStrainCase> cases;
              {
                FiniteStrainCase neo_hookean{"finite strain", mesh, std::vector<double>(n_dofs, 0.)};
                for (LocalIndex node = 0; node < mesh.n_nodes; ++node)
                  {
                    const double *x              = &mesh.node_coordinates[3 * node];
                    neo_hookean.u[3 * node]     = 0.05 * x[2] * x[2];
                    neo_hookean.u[3 * node + 1] = 0.02 * x[0] * x[2];
                    neo_hookean.u[3 * node + 2] = -0.03 * x[0] * x[1];
                  }
                cases.push_back(std::move(neo_hookean));
              }
              for (const double fraction : plastic_fractions)
                {
                  FiniteStrainCase   hencky{"", mesh, std::vector<double>(n_dofs, 0.)};
                  MaterialConstants &m  = hencky.mesh.materials[0];
                  m.strain_energy       = StrainEnergy::hencky;
                  m.yield_stress        = 450e6;
                  m.isotropic_hardening = 66e9;
                  // u_z = a z^2 / 2 as for the small-strain J2 kernels.
                  const double yield_strain = m.yield_stress / (2. * m.mu);
                  const double a = yield_strain / (1. - std::min(fraction, 0.95)) * (fraction > 0 ? 1. : 0.5);
                  for (LocalIndex node = 0; node < mesh.n_nodes; ++node)
                    {
                      const double z         = mesh.node_coordinates[3 * node + 2];
                      hencky.u[3 * node + 2] = 0.5 * a * z * z;
                    }
                  char label[64];
                  std::snprintf(label, sizeof(label), "Hencky J2 %.0f%%", 100. * fraction);
                  hencky.label = label;
                  cases.push_back(std::move(hencky));
                }
              for (const FiniteStrainCase &fs : cases)
                {
                  const DeviceArray<double>                         u(fs.u, "u");
                  DeviceArray<double>                               f_int(n_dofs, "f_int");
                  std::map<ElementFormulation, std::vector<double>> tangent_references;
                  for (const auto &[strategy, kernel, settings] :
                       configurations(strategies, kernels, mappings, tile_sizes, formulations))
                    {
                      std::unique_ptr<DeviceOperator> op_pointer;
                      FiniteStrainState              *state = nullptr;
                      try
                        {
                          op_pointer = std::make_unique<DeviceOperator>(fs.mesh, settings);
                          state      = &op_pointer->create_finite_strain_state();
                        }
                      catch (const std::invalid_argument &)
                        {
                          continue;
                        }
                      DeviceOperator &op       = *op_pointer;
                      std::size_t     inverted = 0;
                      const double    update_s =
                        median_seconds(repeats, [&] { inverted = state->update(u.data(), f_int.data()); });
                      const double force_s = median_seconds(repeats, [&] { state->internal_force(u.data(), f_int.data()); });
                      const double tangent_setup_s = median_seconds(repeats, [&] { op.update_tangent(); });
                      if (inverted != 0)
                        {
                          std::cerr << "plastix-kernel-bench: " << inverted << " inverted points in the finite-strain run\n";
                          status = 1;
                        }
                      std::vector<double> &reference = tangent_references[settings.element_formulation];
                      const auto           tangent   = time_checked_double(op, src, dst, reference, repeats, status);
                      const auto elastic = elastic_seconds.find(strategy + ", " + kernel + ", " + threads_column(settings, op));
                      char       ratio[64] = "";
                      if (elastic != elastic_seconds.end())
                        std::snprintf(ratio, sizeof(ratio), "%.0f %% of the elastic apply",
                                      100. * elastic->second / tangent.seconds);
                      std::string single_column;
                      if (single_precision)
                        {
                          const auto single = time_checked_single(op, src_float, dst_float, reference, repeats, status);
                          char       column[128];
                          std::snprintf(column, sizeof(column), " single %.4g ms (%.3g GDoF/s, rel. diff %.1e) |",
                                        single.seconds * 1e3, n_dofs / single.seconds / 1e9, single.relative_difference);
                          single_column = column;
                        }
                      // The points that yield: those the commit finds plastic (after the timings).
                      char plastic[48] = "";
                      if (state->has_history())
                        std::snprintf(plastic, sizeof(plastic), " plastic %.1f%%",
                                      100. * state->commit() / (8. * fs.mesh.n_cells()));
                      char line[640];
                      std::snprintf(line, sizeof(line),
                                    "| %d | %zu | %s | %s | %s | %s%s | update %.4g ms (%.3g GDoF/s) | f_int %.4g ms "
                                    "(%.3g GDoF/s) | tangent setup %.4g ms | tangent apply %.4g ms (%.3g GDoF/s, rel. diff "
                                    "%.1e) | %s |",
                                    n, n_dofs, strategy.c_str(), kernel.c_str(), threads_column(settings, op).c_str(),
                                    fs.label.c_str(), plastic, update_s * 1e3, n_dofs / update_s / 1e9, force_s * 1e3,
                                    n_dofs / force_s / 1e9, tangent_setup_s * 1e3, tangent.seconds * 1e3,
                                    n_dofs / tangent.seconds / 1e9, tangent.relative_difference, ratio);
                      std::cout << line << single_column << std::endl;
                    }
                }
            }

          if (transfer && n % 2 == 0)
            {
              TransferData  data;
              CsrMatrixHost P;
              box_transfer(n / 2, data, P);
              const std::size_t n_coarse = 3 * static_cast<std::size_t>(data.n_coarse_nodes);
              const CsrMatrixHost R      = transpose(P, n_coarse);
              const Q1Transfer    matrix_free(data);
              const DeviceCsrMatrix prolongation(P), restriction(R);
              std::vector<double>   host_coarse(n_coarse);
              for (std::size_t i = 0; i < n_coarse; ++i)
                host_coarse[i] = std::cos(0.21 * i);
              const DeviceArray<double> coarse(host_coarse, "coarse");
              DeviceArray<double>       coarse_out(n_coarse, "coarse out");
              const std::vector<float>  host_coarse_float(host_coarse.begin(), host_coarse.end());
              const DeviceArray<float>  coarse_float(host_coarse_float, "coarse (float)");
              DeviceArray<float>        coarse_out_float(n_coarse, "coarse out (float)");

              // Agreement: P c and R f of both forms.
              prolongation.vmult(coarse.data(), dst.data());
              restriction.vmult(src.data(), coarse_out.data());
              const auto csr_fine = dst.to_host(), csr_coarse = coarse_out.to_host();
              matrix_free.prolongate(coarse.data(), dst.data());
              matrix_free.restrict_to_coarse(src.data(), coarse_out.data());
              const double rel = std::max(relative_difference(dst.to_host(), csr_fine),
                                          relative_difference(coarse_out.to_host(), csr_coarse));
              if (!(rel < 1e-12))
                status = 2;

              DeviceOperator op(mesh, OperatorSettings{Strategy::ebe_atomic, CellKernel::element_matrix});
              const double      apply_s = median_seconds(repeats, [&] { op.apply(src.data(), dst.data()); });
              const double      csr_s   = median_seconds(repeats, [&] {
                prolongation.vmult(coarse.data(), dst.data());
                restriction.vmult(src.data(), coarse_out.data());
              });
              const double mf_s = median_seconds(repeats, [&] {
                matrix_free.prolongate(coarse.data(), dst.data());
                matrix_free.restrict_to_coarse(src.data(), coarse_out.data());
              });
              const double mf_restrict_s = median_seconds(
                repeats, [&] { matrix_free.restrict_to_coarse(src.data(), coarse_out.data(), true); });
              const double mf_float_s = median_seconds(repeats, [&] {
                matrix_free.prolongate(coarse_float.data(), dst_float.data());
                matrix_free.restrict_to_coarse(src_float.data(), coarse_out_float.data());
              });
              const double csr_bytes = 2 * (12. * P.n_nonzeros() + 4. * (n_dofs + n_coarse)) +
                                       8. * (n_dofs + n_coarse) * 2;
              char line[768];
              std::snprintf(line, sizeof(line),
                            "| %d | %zu | transfer to %d^3 (prolongation + restriction) | | | | apply (ebe atomic, "
                            "element matrix) %.4g ms; CSR %.4g ms (%.1f B/fine DoF, %.4g GB/s); matrix-free %.4g ms "
                            "(%.1f B/fine DoF, %.4g GB/s; restriction alone %.4g ms), float %.4g ms; %.2f / %.2f / %.2f applies "
                            "| | | | | %.1e |",
                            n, n_dofs, n / 2, apply_s * 1e3, csr_s * 1e3, csr_bytes / n_dofs, csr_bytes / csr_s / 1e9,
                            mf_s * 1e3, double(matrix_free.bytes_per_pair(8)) / n_dofs,
                            matrix_free.bytes_per_pair(8) / mf_s / 1e9, mf_restrict_s * 1e3, mf_float_s * 1e3, csr_s / apply_s,
                            mf_s / apply_s, mf_float_s / apply_s, rel);
              std::cout << line << std::endl;
            }

          // The CSR matrix is the full-integration operator: compared with the first full configuration.
          const std::vector<double> &reference = references[ElementFormulation::full];
          if (n_dofs <= csr_max_dofs && !reference.empty())
            {
              const CsrMatrixHost csr        = assemble_csr_matrix(mesh);
              const double        csr_bytes  = 12. * csr.n_nonzeros() + 4. * (n_dofs + 1) + 16. * n_dofs;
              auto                report_csr = [&](const char *name, const double s, const std::size_t memory) {
                const auto result = dst.to_host();
                double     diff = 0, norm = 0;
                for (std::size_t i = 0; i < n_dofs; ++i)
                  {
                    diff += (result[i] - reference[i]) * (result[i] - reference[i]);
                    norm += reference[i] * reference[i];
                  }
                const double rel = std::sqrt(diff / norm);
                if (!(rel < 1e-10))
                  status = 2;
                char line[512];
                std::snprintf(line, sizeof(line),
                              "| %d | %zu | assembled CSR (%zu nnz, %.0f MiB) | %s | row | double | %.4g | %.3g | %.4g | %.1f | %.1f | %.1e |",
                              n, n_dofs, csr.n_nonzeros(), memory / 1048576., name, s * 1e3, n_dofs / s / 1e9,
                              csr_bytes / s / 1e9, 100. * csr_bytes / s / 1e9 / triad_gbs, csr_bytes / n_dofs, rel);
                std::cout << line << std::endl;
              };
              {
                const DeviceCsrMatrix matrix(csr);
                const double          s = median_seconds(repeats, [&] { matrix.vmult(src.data(), dst.data()); });
                report_csr("Kokkos SpMV", s, matrix.memory_consumption());
              }
#if defined(PLASTIX_WITH_CUSPARSE)
              {
                const CusparseSpmv matrix(csr);
                const double       s = median_seconds(repeats, [&] { matrix.vmult(src.data(), dst.data()); });
                report_csr("cuSPARSE SpMV", s, matrix.memory_consumption());
              }
#endif
            }
        }
    }
  catch (const std::exception &error)
    {
      std::cerr << "plastix-kernel-bench: error: " << error.what() << std::endl;
      status = 1;
    }
  finalize();
  if (status == 2)
    std::cerr << "plastix-kernel-bench: variants disagree (rel. diff > 1e-10)" << std::endl;
  return status;
}
