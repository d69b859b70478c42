// Staged output: complete files or none.
#include "output.h"
#include "parameters.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace plastix
{
  namespace fs = std::filesystem;

  StagedOutput::StagedOutput(const std::string &directory, MPI_Comm communicator)
    : directory_(directory.empty() ? "." : directory)
    , communicator(communicator)
  {
    const unsigned int rank = dealii::Utilities::MPI::this_mpi_process(communicator);
    std::string        error;
    if (rank == 0)
      {
        const auto stamp =
          std::chrono::steady_clock::now().time_since_epoch().count() ^ (static_cast<long long>(getpid()) << 32);
        staging_ = (fs::path(directory_) / (".plastix-staging-" + std::to_string(stamp))).string();
        std::error_code ec;
        fs::path target = fs::absolute(directory_, ec).lexically_normal();
        if (target.filename().empty())
          target = target.parent_path(); // "out/" names "out"
        for (fs::path p = target; !p.empty() && p != p.parent_path() && !fs::exists(p, ec); p = p.parent_path())
          created_directories.push_back(p.string());
        fs::create_directories(directory_, ec);
        if (!ec)
          fs::create_directories(staging_, ec);
        if (ec)
          error = "cannot create output directory '" + directory_ + "': " + ec.message();
      }
    error    = dealii::Utilities::MPI::broadcast(communicator, error, 0);
    staging_ = dealii::Utilities::MPI::broadcast(communicator, staging_, 0);
    if (!error.empty())
      throw InputError("Output/Directory", error);
  }

  StagedOutput::~StagedOutput()
  {
    // Not collective: an exception may have left other ranks elsewhere.
    if (dealii::Utilities::MPI::this_mpi_process(communicator) == 0)
      {
        std::error_code ec;
        fs::remove_all(staging_, ec);
        // fs::remove() leaves a directory that is not empty.
        if (!committed)
          for (const auto &created : created_directories)
            if (!fs::remove(created, ec))
              break;
      }
  }

  std::string
  StagedOutput::staged_path(const std::string &file_name) const
  {
    return (fs::path(staging_) / file_name).string();
  }

  std::string
  StagedOutput::staged_directory() const
  {
    return staging_;
  }

  void
  StagedOutput::write_text(const std::string &file_name, const std::string &content)
  {
    if (dealii::Utilities::MPI::this_mpi_process(communicator) == 0)
      {
        std::ofstream out(fs::path(staging_) / file_name);
        out << content;
        if (!out)
          throw std::runtime_error("cannot write '" + file_name + "' in '" + staging_ + "'");
      }
    MPI_Barrier(communicator);
  }

  void
  StagedOutput::commit()
  {
    MPI_Barrier(communicator);
    std::string error;
    if (dealii::Utilities::MPI::this_mpi_process(communicator) == 0)
      {
        std::error_code ec;
        for (const auto &entry : fs::directory_iterator(staging_, ec))
          {
            fs::rename(entry.path(), fs::path(directory_) / entry.path().filename(), ec);
            if (ec)
              {
                error = "cannot move '" + entry.path().string() + "' into '" + directory_ + "': " + ec.message();
                break;
              }
          }
      }
    error = dealii::Utilities::MPI::broadcast(communicator, error, 0);
    if (!error.empty())
      throw std::runtime_error(error);
    committed = true;
  }

  const std::string &
  StagedOutput::directory() const
  {
    return directory_;
  }
} // namespace plastix
