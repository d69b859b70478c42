// The monitor of a run: displacements of chosen points and reactions of
// boundary ids, one CSV row per load step, and the plot of two columns.
#ifndef PLASTIX_APP_MONITOR_H
#define PLASTIX_APP_MONITOR_H

#include <deal.II/base/index_set.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <plastix/core/device_vector.h>

#include "checkpoint.h"
#include "discretization.h"
#include "parameters.h"

#include <array>
#include <string>
#include <vector>

namespace plastix
{
  /**
   * Displacements of the monitored points (the nearest mesh vertex of each)
   * and the summed reactions of boundary ids, one CSV row per load step
   * (the columns of MonitorParameters::csv_columns()), and the gnuplot plot
   * of two of its columns. Elastic and elastoplastic runs write the same
   * columns.
   */
  class Monitor
  {
  public:
    /** Find the vertex of each point and the DoFs of each reaction id (collective). */
    Monitor(const Discretization &d, const MonitorParameters &parameters);

    /** Continue the rows of a checkpoint. */
    void
    restore(const LoadSteppingState &state);

    /** The rows so far, for a checkpoint. */
    void
    save(LoadSteppingState &state) const;

    /**
     * Append the row of a converged step (collective): the displacements of
     * @p u (ghosted) at the monitored points, and the sums of
     * @p internal_force over the DoFs of each reaction id, both multiplied by
     * @p scale.
     */
    void
    record(unsigned int                                              step,
           double                                                    load_factor,
           unsigned int                                              newton_iterations,
           unsigned int                                              linear_iterations,
           unsigned long long                                        plastic_points,
           const dealii::LinearAlgebra::distributed::Vector<double> &u,
           const DeviceVector                                       &internal_force,
           double                                                    scale = 1.);

    /**
     * The monitored values (collective): the displacements of @p u
     * (ghosted) at the points and the reactions of @p internal_force, both
     * times @p scale, in the order of the columns after the first five of
     * MonitorParameters::csv_columns().
     */
    std::vector<double>
    values(const dealii::LinearAlgebra::distributed::Vector<double> &u,
           const DeviceVector                                       &internal_force,
           double                                                    scale = 1.) const;

    /** Whether the rows need an internal force (reactions are monitored). */
    bool
    needs_internal_force() const;

    /** The CSV text: header and rows. */
    std::string
    csv() const;

    /**
     * Write the gnuplot script of the load curve into @p directory (which
     * holds @p csv_file) and run gnuplot there (rank 0); says on stdout if
     * no PNG could be drawn.
     */
    void
    plot(const std::string &directory, const std::string &base_name, const std::string &csv_file) const;

    /**
     * On rank 0, say for each monitored point that lies further than a
     * relative 1e-8 of the mesh's bounding-box diagonal from the vertex
     * that stands for it how far it is.
     */
    void
    report_distant_points() const;

  private:
    const Discretization                                      &d;
    const MonitorParameters                                   &parameters;
    /** The DoFs of each point's vertex on the rank that owns it (empty elsewhere). */
    std::vector<std::vector<dealii::types::global_dof_index>> point_dofs;
    /** Distance of each monitored point to the vertex that stands for it. */
    std::vector<double>                                       point_distance;
    std::vector<dealii::IndexSet>                             reaction_dofs;
    /**
     * For each reaction id, its springs or null: the reaction of a spring
     * face is the force the springs exert on the body, -int (k_n u_n n + k_t
     * u_t) dA, integrated over the faces of the owned cells.
     */
    std::vector<const BoundarySpring *>                       reaction_springs;
    /**
     * The reaction of the springs @p spring on boundary id @p id (this
     * rank's faces), for the displacement @p u (with the ghost DoFs of the
     * owned cells).
     */
    std::array<double, 3>
    spring_reaction(dealii::types::boundary_id                                id,
                    const BoundarySpring                                     &spring,
                    const dealii::LinearAlgebra::distributed::Vector<double> &u) const;
    std::string                                               header;
    std::vector<std::string>                                  rows;
    std::vector<double>                                       load_factors;
    std::vector<std::vector<double>>                          columns;
  };
} // namespace plastix

#endif
