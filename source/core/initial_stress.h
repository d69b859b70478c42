// The in-situ stress in a Gauss-point history: the one loop that
// PlasticityState (small strain) and FiniteStrainState (the logarithmic
// strain of Hencky materials) share, since both histories hold the stress
// of a Mohr-Coulomb or Drucker-Prager point in the same slots (internal to
// source/core).
#ifndef PLASTIX_SOURCE_CORE_INITIAL_STRESS_H
#define PLASTIX_SOURCE_CORE_INITIAL_STRESS_H

#include <deal.II/base/mpi.h>
#include <deal.II/base/point.h>
#include <deal.II/base/symmetric_tensor.h>
#include <deal.II/dofs/dof_handler.h>

#include <plastix/material/material.h>

#include <functional>
#include <vector>

namespace plastix
{
  namespace internal
  {
    /**
     * Which materials hold an initial stress besides the pressure-dependent
     * criteria: at small strain every material has the history; at finite
     * strain only Hencky materials (backend::StrainEnergy::hencky) do.
     */
    enum class InitialStressHolders
    {
      every_material,
      hencky_materials
    };

    /**
     * Write @p initial_stress at the Gauss points (QGauss(2), the backend's
     * order) of the locally owned cells of @p dof_handler into @p history
     * (13 fields x 8 points per cell: plastic strain 0-5, alpha 6, back or
     * initial stress 7-12; the locally owned cells in the order of the
     * active cells), at the points of Mohr-Coulomb and Drucker-Prager
     * materials of @p materials. Throws std::invalid_argument on every rank
     * of @p communicator, naming the first point of the first rank that
     * has one, if a stress is not finite, lies outside the yield surface of
     * its material, or is not zero at a point that cannot hold it (a von
     * Mises material, or at finite strain a material that is not Hencky).
     */
    void
    write_initial_stress(const dealii::DoFHandler<3>                                                  &dof_handler,
                         const MaterialTable                                                          &materials,
                         const std::function<dealii::SymmetricTensor<2, 3>(const dealii::Point<3> &)> &initial_stress,
                         InitialStressHolders                                                          holders,
                         MPI_Comm                                                                      communicator,
                         std::vector<double>                                                          &history);
  } // namespace internal
} // namespace plastix

#endif
