// Helpers shared by the elastic and elastoplastic drivers.
#ifndef PLASTIX_APP_DRIVER_TOOLS_H
#define PLASTIX_APP_DRIVER_TOOLS_H

#include <plastix/core/device_vector.h>

#include "discretization.h"
#include "output.h"
#include "parameters.h"
#include "run_summary.h"

#include <array>
#include <string>

namespace plastix
{
  namespace internal
  {
    /** The largest nodal displacement of all ranks: its magnitude and each component's. */
    struct DisplacementMaxima
    {
      /** Largest |u| of a node. */
      double magnitude = 0;
      /** Largest |u_x|, |u_y|, |u_z|. */
      std::array<double, 3> components{{0., 0., 0.}};
    };

    /** The DisplacementMaxima of @p u (vertex DoFs are consecutive triples), from one copy to the host. */
    DisplacementMaxima
    max_nodal_displacement(const DeviceVector &u);

    /**
     * The stages every run starts with, timed by @p timer into @p summary:
     * the mesh (generated, or read from @p mesh_file if not empty; a
     * requested interrupt stops the run there), the DoFs and the operator.
     * The "operator" stage is still being timed on return: the driver adds
     * its own set-up and stops it. The level DoFs may still be distributed
     * in the background (Discretization::setup_dofs()).
     */
    void
    set_up_mesh_dofs_operator(Discretization &d, StageTimer &timer, RunSummary &summary, const std::string &mesh_file = "");

    /**
     * Set up the preconditioner of @p solver (Discretization::initialize_solver(),
     * which waits for the level DoFs) and print, on rank 0, the parts of the
     * dofs stage and the preconditioner's description.
     */
    void
    set_up_preconditioner(Discretization &d, LinearSolver &solver);

    /** Stage the summary file of the output parameters with @p line appended. */
    void
    append_summary(StagedOutput &output, const OutputParameters &parameters, const std::string &line);
  } // namespace internal
} // namespace plastix

#endif
