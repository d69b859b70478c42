// Checkpoints (mesh, displacement (velocity, acceleration), Gauss-point history, load- or time-stepping state).
#include <deal.II/base/mpi.h>
#include <deal.II/distributed/cell_data_transfer.templates.h>
#include <deal.II/distributed/solution_transfer.h>

#include <deal.II/fe/fe_system.h>

#include "checkpoint.h"
#include "mesh_generation.h"
#include "parameters.h"

#include <cmath>
#include <csignal>
#include <limits>
#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <unistd.h>
#include <zlib.h>

namespace plastix
{
  namespace fs = std::filesystem;
  using HostVector = dealii::LinearAlgebra::distributed::Vector<double>;

  namespace
  {
    /** Values of the history of one cell (backend::GaussPointState::history_values_per_cell). */
    constexpr unsigned int history_size = 13 * 8;

    /**
     * Per-cell history as deal.II's CellDataTransfer carries it: one fixed-size
     * array per active cell (fixed-size data is written as it is; variable-size
     * data would be serialized and compressed, several times slower).
     */
    using CellHistory = std::vector<std::array<double, history_size>>;

    const char *state_file_name    = "state.txt";
    const char *complete_file_name = "complete";

    std::string
    hex(const double x)
    {
      std::ostringstream s;
      s << std::hexfloat << x;
      return s.str();
    }

    /** Size and CRC-32 (zlib) of @p file, as "size crc". */
    std::string
    fingerprint(const fs::path &file)
    {
      std::ifstream      in(file, std::ios::binary);
      std::vector<char>  buffer(1 << 20);
      uLong              crc  = crc32(0L, Z_NULL, 0);
      unsigned long long size = 0;
      while (in)
        {
          in.read(buffer.data(), buffer.size());
          const std::streamsize n = in.gcount();
          crc = crc32(crc, reinterpret_cast<const Bytef *>(buffer.data()), static_cast<uInt>(n));
          size += n;
        }
      return std::to_string(size) + " " + std::to_string(crc);
    }

    double
    read_double(std::istream &in)
    {
      std::string token;
      in >> token;
      char        *end   = nullptr;
      const double value = std::strtod(token.c_str(), &end);
      if (token.empty() || *end != '\0' || !std::isfinite(value))
        throw std::runtime_error("unreadable or non-finite number '" + token + "'");
      return value;
    }

    /** Run @p action on rank 0 and throw its error (if any) on every rank. */
    template <typename Action>
    void
    on_root(const MPI_Comm communicator, const Action &action)
    {
      std::string error;
      if (dealii::Utilities::MPI::this_mpi_process(communicator) == 0)
        try
          {
            action();
          }
        catch (const std::exception &e)
          {
            error = e.what();
          }
      error = dealii::Utilities::MPI::broadcast(communicator, error, 0);
      if (!error.empty())
        throw std::runtime_error("checkpoint: " + error);
    }
  } // namespace

  std::string
  checkpoint_directory(const std::string &output_directory)
  {
    return (fs::path(output_directory.empty() ? "." : output_directory) / "checkpoint").string();
  }

  std::string
  checkpoint_mesh_file(const std::string &directory)
  {
    return (fs::path(directory) / "mesh").string();
  }

  std::string
  checkpoint_parameter_file(const std::string &directory)
  {
    return (fs::path(directory) / "parameters.prm").string();
  }

  bool
  checkpoint_due(const OutputParameters &output,
                 const unsigned int      step,
                 const bool              last,
                 const bool              stop_here,
                 const dealii::Timer    &since_last,
                 const MPI_Comm          communicator)
  {
    const unsigned int interval = output.checkpoint_interval;
    const double       wall     = output.checkpoint_wall_time;
    const bool         time_due =
      wall > 0 && dealii::Utilities::MPI::max(since_last.wall_time(), communicator) >= wall;
    return !last && (stop_here || (interval > 0 && step % interval == 0) || time_due);
  }

  std::string
  interruption_message(const std::string &where,
                       const std::string &step_kind,
                       const unsigned int checkpoint_step,
                       const std::string &checkpoint)
  {
    const int         signal = caught_signal();
    const std::string name   = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "a signal";
    std::string       text   = "interrupted by " + name + " " + where + "; ";
    if (checkpoint_step > 0)
      text += "the checkpoint of " + step_kind + " step " + std::to_string(checkpoint_step) +
              " continues the run: plastix --restart " + checkpoint;
    else
      text += "no checkpoint was written yet (Output/Checkpoint interval, Output/Checkpoint wall time)";
    return text;
  }

  void
  remove_checkpoint(const std::string &directory)
  {
    std::error_code ec;
    fs::remove_all(directory, ec);
    fs::remove_all(directory + ".old", ec);
    fs::remove_all(directory + ".new", ec);
  }

  std::string
  find_checkpoint(const std::string &directory, const MPI_Comm communicator)
  {
    // Rank 0 checks the files (sizes and checksums); every rank gets its verdict.
    std::string found, error;
    if (dealii::Utilities::MPI::this_mpi_process(communicator) == 0)
      {
        std::error_code ec;
        // The newest complete one: the checkpoint, or one that a write cut
        // short between its renames left as .new (complete) or .old.
        for (const std::string &candidate : {directory, directory + ".new", directory + ".old"})
          {
            const fs::path marker = fs::path(candidate) / complete_file_name;
            if (!fs::is_regular_file(marker, ec))
              continue;
            std::ifstream in(marker);
            std::string   line;
            unsigned int  n_files = 0;
            while (error.empty() && std::getline(in, line))
              {
                std::istringstream words(line);
                std::string        keyword, name, size, crc;
                if (!(words >> keyword) || keyword != "file")
                  continue;
                words >> name >> size >> crc;
                ++n_files;
                if (name.find('/') != std::string::npos || !fs::is_regular_file(fs::path(candidate) / name, ec))
                  error = "'" + candidate + "' lacks its file '" + name + "'";
                else if (fingerprint(fs::path(candidate) / name) != size + " " + crc)
                  error = "'" + (fs::path(candidate) / name).string() +
                          "' is damaged (its size or checksum differs from when it was written)";
              }
            if (error.empty() && (n_files == 0 || !fs::is_regular_file(checkpoint_parameter_file(candidate), ec)))
              error = "'" + candidate + "' is not a complete plastix checkpoint";
            found = candidate;
            break;
          }
        if (found.empty())
          error = "'" + directory +
                  "' is not a complete plastix checkpoint (an elastoplastic or dynamic run writes one into "
                  "<Output/Directory>/checkpoint after its converged load steps)";
        else if (error.empty() && found != directory && !fs::exists(directory, ec))
          {
            // Put a left-over checkpoint back in its place, so that the next
            // checkpoint write (which starts by clearing .new and .old) keeps it.
            fs::rename(found, directory, ec);
            if (!ec)
              found = directory;
          }
      }
    error = dealii::Utilities::MPI::broadcast(communicator, error, 0);
    if (!error.empty())
      throw InputError("--restart", error);
    return dealii::Utilities::MPI::broadcast(communicator, found, 0);
  }

  void
  write_checkpoint(const std::string                                   &directory,
                   const std::string                                   &parameter_text,
                   const dealii::parallel::distributed::Triangulation<3> &triangulation,
                   const dealii::DoFHandler<3>                         &dof_handler,
                   const std::vector<const HostVector *>               &vectors,
                   const std::vector<double>                           &history,
                   const unsigned int                                   values_per_cell,
                   const LoadSteppingState                             &state)
  {
    const MPI_Comm    communicator = triangulation.get_communicator();
    const std::string fresh        = directory + ".new";
    const std::string previous     = directory + ".old";
    on_root(communicator, [&] {
      fs::remove_all(fresh);
      fs::create_directories(fresh);
    });

    // The mesh with the vectors and the history attached (deal.II/p4est).
    dealii::parallel::distributed::SolutionTransfer<3, HostVector> solution_transfer(dof_handler);
    solution_transfer.prepare_for_serialization(vectors);
    AssertThrow(values_per_cell == history_size || values_per_cell == 0,
                dealii::ExcMessage("checkpoint: unexpected history size"));
    CellHistory cell_history(values_per_cell > 0 ? triangulation.n_active_cells() : 0);
    if (values_per_cell > 0)
      {
        std::size_t k = 0;
        for (const auto &cell : triangulation.active_cell_iterators())
          if (cell->is_locally_owned())
            {
              std::copy(history.begin() + k * values_per_cell, history.begin() + (k + 1) * values_per_cell,
                        cell_history[cell->active_cell_index()].begin());
              ++k;
            }
      }
    dealii::parallel::distributed::CellDataTransfer<3, 3, CellHistory> history_transfer(triangulation, false);
    if (values_per_cell > 0)
      history_transfer.prepare_for_serialization(cell_history);
    triangulation.save(checkpoint_mesh_file(fresh));

    on_root(communicator, [&] {
      {
        std::ofstream out(checkpoint_parameter_file(fresh));
        out << parameter_text;
        if (!out)
          throw std::runtime_error("cannot write " + checkpoint_parameter_file(fresh));
      }
      {
        std::ofstream out(fs::path(fresh) / state_file_name);
        out << "plastix-checkpoint 3\n"
            << "step " << state.step << "\ntarget_index " << state.target_index << "\nlambda "
            << hex(state.lambda) << "\nincrement " << hex(state.increment) << "\ncuts_to_target "
            << state.cuts_to_target << "\nlambda_previous " << hex(state.lambda_previous) << "\nforce_scale "
            << hex(state.force_scale) << "\nnewton_iterations " << state.newton_iterations
            << "\nlinear_iterations " << state.linear_iterations << "\nn_cuts " << state.n_cuts << "\npvd "
            << state.pvd.size() << "\n";
        for (const auto &[lambda, file] : state.pvd)
          out << hex(lambda) << ' ' << file << '\n';
        out << "monitor " << state.monitor_values.size() << '\n';
        for (const auto &[lambda, values] : state.monitor_values)
          {
            out << hex(lambda) << ' ' << values.size();
            for (const double v : values)
              out << ' ' << hex(v);
            out << '\n';
          }
        out << "rows " << state.monitor_rows.size() << '\n';
        for (const auto &row : state.monitor_rows)
          out << row << '\n';
        out << "time_stepping " << (state.time_stepping ? 1 : 0);
        if (const auto &t = state.time_stepping)
          out << ' ' << hex(t->dynamics.time) << ' ' << hex(t->dynamics.start_time) << ' '
              << t->dynamics.steps_taken << ' ' << hex(t->dynamics.time_step) << ' ' << hex(t->dynamics.force_scale)
              << ' ' << hex(t->dynamics.energy.kinetic) << ' ' << hex(t->dynamics.energy.strain) << ' '
              << hex(t->dynamics.energy.external_work) << ' ' << hex(t->dynamics.energy.dissipated) << ' '
              << hex(t->initial_energy) << ' ' << hex(t->run_time_step);
        out << '\n';
        if (!out)
          throw std::runtime_error("cannot write the load-stepping state in " + fresh);
      }
      // Written last: the checkpoint is complete. It lists every file with
      // its size and checksum, so that a damaged checkpoint is refused before
      // p4est reads it (p4est aborts on damaged files).
      {
        std::ostringstream listing;
        listing << "load step " << state.step << '\n';
        for (const auto &entry : fs::directory_iterator(fresh))
          if (entry.is_regular_file())
            listing << "file " << entry.path().filename().string() << ' ' << fingerprint(entry.path()) << '\n';
        std::ofstream out(fs::path(fresh) / complete_file_name);
        out << listing.str();
        if (!out)
          throw std::runtime_error("cannot complete " + fresh);
      }
      // Replace the previous checkpoint; until the rename it stays usable.
      fs::remove_all(previous);
      if (fs::exists(directory))
        fs::rename(directory, previous);
      fs::rename(fresh, directory);
      fs::remove_all(previous);
    });
  }

  void
  write_checkpoint(const std::string                     &directory,
                   const std::string                     &parameter_text,
                   const MeshParameters                  &mesh,
                   const dealii::Triangulation<3>        &triangulation,
                   const dealii::DoFHandler<3>           &dof_handler,
                   const std::vector<const HostVector *> &vectors,
                   const std::vector<double>             &history,
                   const unsigned int                     values_per_cell,
                   const LoadSteppingState               &state)
  {
    if (const auto *distributed = dynamic_cast<const dealii::parallel::distributed::Triangulation<3> *>(&triangulation))
      {
        write_checkpoint(directory, parameter_text, *distributed, dof_handler, vectors, history, values_per_cell,
                         state);
        return;
      }
    // A serial mesh (one rank): the same mesh built as p4est's, the data
    // moved to it cell by cell, matched by the cell centres on a grid far
    // finer than the smallest cell.
    dealii::parallel::distributed::Triangulation<3> replica(MPI_COMM_SELF);
    create_mesh(mesh, replica);
    AssertThrow(replica.n_active_cells() == triangulation.n_active_cells(),
                dealii::ExcMessage("checkpoint: the rebuilt mesh differs from the run's"));
    double smallest = std::numeric_limits<double>::max();
    for (const auto &cell : triangulation.active_cell_iterators())
      smallest = std::min(smallest, cell->minimum_vertex_distance());
    const double resolution = 1e-3 * smallest;
    auto         key        = [resolution](const dealii::Point<3> &x) {
      return std::array<long long, 3>{{std::llround(x[0] / resolution), std::llround(x[1] / resolution),
                                       std::llround(x[2] / resolution)}};
    };
    std::map<std::array<long long, 3>, std::pair<dealii::DoFHandler<3>::active_cell_iterator, std::size_t>> cells;
    std::size_t                                                                                           k = 0;
    for (const auto &cell : dof_handler.active_cell_iterators())
      cells.emplace(key(cell->center()), std::make_pair(cell, k++));

    dealii::DoFHandler<3> replica_dofs(replica);
    replica_dofs.distribute_dofs(dof_handler.get_fe());
    std::vector<HostVector> replica_vectors(vectors.size(), HostVector(replica_dofs.locally_owned_dofs(), MPI_COMM_SELF));
    std::vector<double>     replica_history;
    dealii::Vector<double>  values(dof_handler.get_fe().n_dofs_per_cell());
    replica_history.reserve(history.size());
    for (const auto &cell : replica_dofs.active_cell_iterators())
      {
        const auto found = cells.find(key(cell->center()));
        AssertThrow(found != cells.end(), dealii::ExcMessage("checkpoint: a cell of the rebuilt mesh has no twin"));
        for (std::size_t i = 0; i < vectors.size(); ++i)
          {
            found->second.first->get_dof_values(*vectors[i], values);
            cell->set_dof_values(values, replica_vectors[i]);
          }
        const auto first = history.begin() + found->second.second * values_per_cell;
        replica_history.insert(replica_history.end(), first, first + values_per_cell);
      }
    std::vector<const HostVector *> replica_pointers;
    for (const HostVector &v : replica_vectors)
      replica_pointers.push_back(&v);
    write_checkpoint(directory, parameter_text, replica, replica_dofs, replica_pointers, replica_history,
                     values_per_cell, state);
  }

  void
  read_checkpoint_data(const dealii::parallel::distributed::Triangulation<3> &triangulation,
                       const dealii::DoFHandler<3>                         &dof_handler,
                       const std::vector<HostVector *>                     &vectors,
                       std::vector<double>                                 &history,
                       const unsigned int                                   values_per_cell)
  {
    // In the order of write_checkpoint().
    dealii::parallel::distributed::SolutionTransfer<3, HostVector> solution_transfer(dof_handler);
    std::vector<HostVector *> targets = vectors;
    solution_transfer.deserialize(targets);
    AssertThrow(values_per_cell == history_size || values_per_cell == 0,
                dealii::ExcMessage("checkpoint: unexpected history size"));
    history.clear();
    if (values_per_cell == 0)
      return;
    CellHistory cell_history(triangulation.n_active_cells());
    dealii::parallel::distributed::CellDataTransfer<3, 3, CellHistory> history_transfer(triangulation, false);
    history_transfer.deserialize(cell_history);
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          const auto &values = cell_history[cell->active_cell_index()];
          history.insert(history.end(), values.begin(), values.end());
        }
  }

  LoadSteppingState
  read_load_stepping_state(const std::string &directory)
  {
    const std::string file = (fs::path(directory) / state_file_name).string();
    std::ifstream     in(file);
    std::string       word;
    int               version = 0;
    // Version 1 (before the gradual increment growth after cuts) lacks
    // 'increment' and 'cuts_to_target'; versions 1 and 2 (before the
    // checkpoints of dynamic runs) lack 'time_stepping'.
    if (!(in >> word >> version) || word != "plastix-checkpoint" || version < 1 || version > 3)
      throw InputError("--restart", "'" + file + "' is not a plastix checkpoint state");
    auto expect = [&](const char *key) {
      if (!(in >> word) || word != key)
        throw InputError("--restart", "'" + file + "': expected '" + key + "'");
    };
    LoadSteppingState state;
    try
      {
        expect("step");
        in >> state.step;
        expect("target_index");
        in >> state.target_index;
        expect("lambda");
        state.lambda = read_double(in);
        if (version >= 2)
          {
            expect("increment");
            state.increment = read_double(in);
            expect("cuts_to_target");
            in >> state.cuts_to_target;
          }
        expect("lambda_previous");
        state.lambda_previous = read_double(in);
        expect("force_scale");
        state.force_scale = read_double(in);
        expect("newton_iterations");
        in >> state.newton_iterations;
        expect("linear_iterations");
        in >> state.linear_iterations;
        expect("n_cuts");
        in >> state.n_cuts;
        expect("pvd");
        std::size_t n = 0;
        in >> n;
        for (std::size_t i = 0; i < n; ++i)
          {
            const double lambda = read_double(in);
            std::string  name;
            in >> name;
            state.pvd.emplace_back(lambda, name);
          }
        expect("monitor");
        in >> n;
        for (std::size_t i = 0; i < n; ++i)
          {
            const double        lambda = read_double(in);
            std::size_t         m      = 0;
            std::vector<double> values;
            in >> m;
            for (std::size_t j = 0; j < m; ++j)
              values.push_back(read_double(in));
            state.monitor_values.emplace_back(lambda, values);
          }
        expect("rows");
        in >> n;
        std::getline(in, word);
        for (std::size_t i = 0; i < n; ++i)
          {
            std::string row;
            std::getline(in, row);
            state.monitor_rows.push_back(row);
          }
        if (version >= 3)
          {
            expect("time_stepping");
            int present = 0;
            in >> present;
            if (present == 1)
              {
                TimeSteppingState t;
                t.dynamics.time       = read_double(in);
                t.dynamics.start_time = read_double(in);
                in >> t.dynamics.steps_taken;
                t.dynamics.time_step             = read_double(in);
                t.dynamics.force_scale           = read_double(in);
                t.dynamics.energy.kinetic        = read_double(in);
                t.dynamics.energy.strain         = read_double(in);
                t.dynamics.energy.external_work  = read_double(in);
                t.dynamics.energy.dissipated     = read_double(in);
                t.initial_energy                 = read_double(in);
                t.run_time_step                  = read_double(in);
                state.time_stepping              = t;
              }
          }
        if (!in)
          throw std::runtime_error("truncated");
      }
    catch (const InputError &)
      {
        throw;
      }
    catch (const std::exception &error)
      {
        throw InputError("--restart", "'" + file + "': " + error.what());
      }
    return state;
  }
} // namespace plastix
