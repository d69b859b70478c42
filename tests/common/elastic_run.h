// The application's elastic solve of a .prm text, for tests that inspect the
// discretization and the solution afterwards.
#ifndef PLASTIX_TESTS_ELASTIC_RUN_H
#define PLASTIX_TESTS_ELASTIC_RUN_H

#include <plastix/core/device_vector.h>
#include <plastix/solvers/linear_solver.h>

#include "discretization.h"
#include "plasticity_test_tools.h"

#include <string>

namespace plastix_test
{
  /**
   * The parameters of @p text (checked), the mesh, DoFs, operator and
   * external force of the application's Discretization, and one linear
   * solve of the elastic problem with the parameters' solver.
   */
  struct ElasticRun
  {
    ElasticRun(const std::string &text, const MPI_Comm comm)
      : parameters(parameters_from_text(text))
      , d(parameters, comm)
    {
      d.make_mesh();
      d.setup();
      d.assemble_external_force();
      plastix::LinearSolver solver(parameters.solver);
      d.initialize_solver(solver);
      plastix::DeviceVector b;
      d.op.initialize_dof_vector(u);
      d.op.initialize_dof_vector(b);
      b = d.external_force;
      d.op.set_constrained_zero(b);
      iterations = solver.solve(u, b).iterations;
    }

    plastix::Parameters     parameters;
    plastix::Discretization d;
    plastix::DeviceVector   u;
    unsigned int            iterations = 0;
  };
} // namespace plastix_test

#endif
