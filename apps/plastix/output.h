// Output that never leaves half-written files behind: everything is written
// into a hidden staging folder and moved into place only when complete.
#ifndef PLASTIX_APP_OUTPUT_H
#define PLASTIX_APP_OUTPUT_H

#include <deal.II/base/mpi.h>

#include <string>
#include <vector>

namespace plastix
{
  /**
   * Stages output files of all ranks in "<directory>/.plastix-staging-<id>"
   * and moves them into <directory> on commit(). If the object is destroyed
   * without commit() (an error ended the run), the staging folder and its
   * contents are removed, so the output directory only ever holds complete
   * files; an output directory (and parents) that the object created is
   * removed too if nothing was ever committed to it, so a run that fails
   * leaves no trace.
   */
  class StagedOutput
  {
  public:
    /** Create @p directory (collective) and a fresh staging folder in it. */
    StagedOutput(const std::string &directory, MPI_Comm communicator);

    /** Remove the staging folder with whatever was not committed. */
    ~StagedOutput();

    StagedOutput(const StagedOutput &) = delete;
    StagedOutput &
    operator=(const StagedOutput &) = delete;

    /**
     * Path in the staging folder at which rank 0 may write @p file_name
     * itself (e.g. a PNG); it is moved into place by the next commit().
     */
    std::string
    staged_path(const std::string &file_name) const;

    /**
     * The staging folder (the same path on every rank), in which writers that
     * produce their own files (e.g. write_vtu_with_cell_data()) put them; they
     * are moved into place by the next commit().
     */
    std::string
    staged_directory() const;

    /** Write a text file (rank 0's @p content; collective). */
    void
    write_text(const std::string &file_name, const std::string &content);

    /**
     * Move every staged file into the output directory, replacing files of
     * the same name (collective). May be called repeatedly (after each load
     * step); staging continues afterwards.
     */
    void
    commit();

    /** The output directory. */
    const std::string &
    directory() const;

  private:
    std::string directory_;
    std::string staging_;
    MPI_Comm    communicator;
    /** The directories the constructor created, innermost first (rank 0). */
    std::vector<std::string> created_directories;
    /** Whether commit() has moved files into the directory. */
    bool committed = false;
  };
} // namespace plastix

#endif
