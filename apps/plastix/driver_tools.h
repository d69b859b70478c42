// Helpers shared by the elastic and elastoplastic drivers.
#ifndef PLASTIX_APP_DRIVER_TOOLS_H
#define PLASTIX_APP_DRIVER_TOOLS_H

#include <plastix/core/device_vector.h>

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

    /** Stage the summary file of the output parameters with @p line appended. */
    void
    append_summary(StagedOutput &output, const OutputParameters &parameters, const std::string &line);
  } // namespace internal
} // namespace plastix

#endif
