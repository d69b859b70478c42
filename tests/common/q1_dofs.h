// The DoFs every deal.II-side test puts on its mesh: FESystem(FE_Q(1), 3),
// the element plastix takes.
#ifndef PLASTIX_TESTS_Q1_DOFS_H
#define PLASTIX_TESTS_Q1_DOFS_H

#include <deal.II/base/index_set.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>

namespace plastix_test
{
  /**
   * Distributes the DoFs of FESystem(FE_Q(1), 3) on @p dof_handler (which
   * keeps its own copy of the element: dof_handler.get_fe()); returns the
   * locally relevant DoFs.
   */
  inline dealii::IndexSet
  distribute_q1_dofs(dealii::DoFHandler<3> &dof_handler)
  {
    dof_handler.distribute_dofs(dealii::FESystem<3>(dealii::FE_Q<3>(1), 3));
    dealii::IndexSet relevant;
    dealii::DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    return relevant;
  }
} // namespace plastix_test

#endif
