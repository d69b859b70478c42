// Helpers shared by the elastic and elastoplastic drivers.
#ifndef PLASTIX_APP_DRIVER_TOOLS_H
#define PLASTIX_APP_DRIVER_TOOLS_H

#include <plastix/core/device_vector.h>

#include "discretization.h"
#include "output.h"
#include "parameters.h"
#include "run_summary.h"

#include <string>

namespace plastix
{
  namespace internal
  {
    /** Largest nodal displacement magnitude (vertex DoFs are consecutive triples). */
    double
    max_nodal_displacement(const DeviceVector &u);

    /**
     * The stages every run starts with, timed by @p timer into @p summary:
     * the mesh (generated, or read from @p mesh_file if not empty; a
     * requested interrupt stops the run there), the DoFs (their parts
     * printed on rank 0) and the operator. The "operator" stage is still
     * being timed on return: the driver adds its own set-up and stops it.
     */
    void
    set_up_mesh_dofs_operator(Discretization &d, StageTimer &timer, RunSummary &summary, const std::string &mesh_file = "");

    /** Stage the summary file of the output parameters with @p line appended. */
    void
    append_summary(StagedOutput &output, const OutputParameters &parameters, const std::string &line);
  } // namespace internal
} // namespace plastix

#endif
