// The names of the operator's choices, and the settings it runs with: the
// rules of each strategy and the automatic thread mapping.
#include <plastix/backend/device_operator.h>

#include "operator_impl.h"

#include <array>
#include <stdexcept>
#include <string>
#include <utility>

namespace plastix
{
  namespace backend
  {
    namespace
    {
      /** The one name table of each choice: parse_*() and to_string() read it. */
      template <typename Enum, std::size_t n>
      using NameTable = std::array<std::pair<Enum, const char *>, n>;

      constexpr NameTable<Strategy, 6> strategy_names{{{Strategy::ebe_atomic, "ebe atomic"},
                                                      {Strategy::ebe_colored, "ebe colored"},
                                                      {Strategy::dbd, "dbd"},
                                                      {Strategy::ebe_tiled, "ebe tiled"},
                                                      {Strategy::assembled, "assembled"},
                                                      {Strategy::dbd_structured, "dbd structured"}}};

      constexpr NameTable<CellKernel, 3> cell_kernel_names{{{CellKernel::stored_geometry, "stored geometry"},
                                                           {CellKernel::geometry_on_the_fly, "geometry on the fly"},
                                                           {CellKernel::element_matrix, "element matrix"}}};

      constexpr NameTable<ElementFormulation, 3> element_formulation_names{
        {{ElementFormulation::full, "full"}, {ElementFormulation::bbar, "bbar"}, {ElementFormulation::fbar, "fbar"}}};

      constexpr NameTable<ThreadMapping, 4> thread_mapping_names{{{ThreadMapping::automatic, "auto"},
                                                                 {ThreadMapping::cell, "cell"},
                                                                 {ThreadMapping::node, "node"},
                                                                 {ThreadMapping::shuffle, "shuffle"}}};

      /** The value called @p name; std::invalid_argument naming it and the accepted names otherwise. */
      template <typename Enum, std::size_t n>
      Enum
      parse(const NameTable<Enum, n> &table, const std::string &name, const std::string &what)
      {
        std::string expected;
        for (const auto &[value, value_name] : table)
          {
            if (name == value_name)
              return value;
            expected += (expected.empty() ? "" : ", ") + std::string(value_name);
          }
        throw std::invalid_argument("unknown " + what + " '" + name + "' (expected: " + expected + ")");
      }

      template <typename Enum, std::size_t n>
      std::string
      name_of(const NameTable<Enum, n> &table, const Enum value)
      {
        for (const auto &[table_value, value_name] : table)
          if (table_value == value)
            return value_name;
        return "?";
      }
    } // namespace

    Strategy
    parse_strategy(const std::string &name)
    {
      return parse(strategy_names, name, "operator strategy");
    }

    CellKernel
    parse_cell_kernel(const std::string &name)
    {
      return parse(cell_kernel_names, name, "cell kernel");
    }

    ElementFormulation
    parse_element_formulation(const std::string &name)
    {
      return parse(element_formulation_names, name, "element formulation");
    }

    ThreadMapping
    parse_thread_mapping(const std::string &name)
    {
      return parse(thread_mapping_names, name, "thread mapping");
    }

    std::string
    to_string(const Strategy strategy)
    {
      return name_of(strategy_names, strategy);
    }

    std::string
    to_string(const CellKernel kernel)
    {
      return name_of(cell_kernel_names, kernel);
    }

    std::string
    to_string(const ElementFormulation formulation)
    {
      return name_of(element_formulation_names, formulation);
    }

    std::string
    to_string(const ThreadMapping mapping)
    {
      return name_of(thread_mapping_names, mapping);
    }

    bool
    cells_on_shuffle_lanes(const ThreadMapping mapping, const CellKernel kernel)
    {
      return mapping == ThreadMapping::shuffle && kernel != CellKernel::element_matrix;
    }

    std::string
    thread_mapping_conflict(const Strategy strategy, const ThreadMapping mapping)
    {
      const std::string not_this = "thread mapping '" + to_string(mapping) + "' does not apply";
      const bool several_threads_per_cell = mapping == ThreadMapping::node || mapping == ThreadMapping::shuffle;
      if (strategy == Strategy::ebe_tiled && several_threads_per_cell)
        return "ebe tiled runs one thread per cell: " + not_this + " (use cell or auto, or another strategy)";
      if (strategy == Strategy::assembled && several_threads_per_cell)
        return "the assembled matrix is applied by rows: " + not_this + " (use cell or auto, or another strategy)";
      // The thread mapping of dbd structured is that of its element-by-element
      // pass (the cells the lattice leaves: those with plastic points of a
      // tangent, the stored-stress products), one thread or eight shuffle
      // lanes per cell.
      if (strategy == Strategy::dbd_structured && mapping == ThreadMapping::node)
        return "dbd structured runs one thread per lattice point: " + not_this +
               " (cell or shuffle choose the threads of its element-by-element cells; or use auto or another "
               "strategy)";
      return {};
    }

    namespace internal
    {
      OperatorSettings
      resolve_settings(const OperatorSettings &requested)
      {
        OperatorSettings  settings = requested;
        const std::string conflict = thread_mapping_conflict(requested.strategy, requested.thread_mapping);
        if (!conflict.empty())
          throw std::invalid_argument(conflict);
        if (requested.strategy == Strategy::ebe_tiled &&
            (requested.cells_per_tile < 1 || requested.cells_per_tile > 128))
          throw std::invalid_argument("ebe tiled: cells per tile must lie in [1, 128], not " +
                                      std::to_string(requested.cells_per_tile));
        // One thread per cell or matrix row.
        if (requested.strategy == Strategy::ebe_tiled || requested.strategy == Strategy::assembled)
          settings.thread_mapping = ThreadMapping::cell;
        if (settings.thread_mapping == ThreadMapping::automatic)
          settings.thread_mapping = automatic_thread_mapping(requested.strategy, requested.cell_kernel);
        return settings;
      }

      ThreadMapping
      automatic_thread_mapping(const Strategy strategy, const CellKernel kernel)
      {
        // Measured (doc/benchmarks.md, "GPU: the elastic operator on general
        // meshes (distorted, curved, file meshes)" and "GPU: plastic kernels
        // (J2)"; doc/design.md, "Designs tried and not kept"): on GPUs eight
        // threads per cell pay off for ebe colored (each colour is a small,
        // sparse launch) and, with geometry on the fly, the shuffle lanes for
        // ebe atomic and for the element-by-element cells of dbd structured;
        // otherwise one thread per cell. On CPUs the lanes' host form (one
        // thread holding a cell's eight lanes) is the faster quadrature kernel
        // for the EbE strategies, stored geometry included, with Kokkos Serial
        // and OpenMP alike; the element-matrix kernel runs one thread per
        // cell either way.
        const bool element_by_element = strategy == Strategy::ebe_atomic || strategy == Strategy::ebe_colored ||
                                        strategy == Strategy::dbd_structured;
        if (!element_by_element)
          return ThreadMapping::cell;
        if (!on_device)
          return element_by_element && kernel != CellKernel::element_matrix ? ThreadMapping::shuffle :
                                                                               ThreadMapping::cell;
        if (strategy == Strategy::ebe_colored)
          return ThreadMapping::node;
        return (strategy == Strategy::ebe_atomic || strategy == Strategy::dbd_structured) &&
                   kernel == CellKernel::geometry_on_the_fly ?
                 ThreadMapping::shuffle :
                 ThreadMapping::cell;
      }
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#include "firewall_check.h"
