// Kokkos-free access to the finite-strain hyperelastic law of the device
// kernels (compressible Mooney-Rivlin, neo-Hookean when
// MaterialConstants::second_shear_modulus is 0), evaluated on the host with
// the code the device runs: for tests and for host references.
#ifndef PLASTIX_BACKEND_HYPERELASTICITY_H
#define PLASTIX_BACKEND_HYPERELASTICITY_H

#include <plastix/backend/config.h>
#include <plastix/backend/material_constants.h>

namespace plastix
{
  namespace backend
  {
    /**
     * The first Piola-Kirchhoff stress @p P of the deformation gradient
     * @p F (both row-major 3x3: entry 3 i + j is the component ij) of the
     * material @p material; returns J = det F. P is not finite where J <= 0.
     */
    PLASTIX_BACKEND_EXPORT double
    hyperelastic_stress(const MaterialConstants &material, const double F[9], double P[9]);

    /**
     * The strain energy W(F) per reference volume of @p material at @p F
     * (row-major 3x3), whose derivative is hyperelastic_stress(); not
     * finite where det F <= 0.
     */
    PLASTIX_BACKEND_EXPORT double
    hyperelastic_energy(const MaterialConstants &material, const double F[9]);

    /** The derivative @p dP of hyperelastic_stress() at @p F in the direction @p H (row-major 3x3). */
    PLASTIX_BACKEND_EXPORT void
    hyperelastic_stress_derivative(const MaterialConstants &material,
                                   const double             F[9],
                                   const double             H[9],
                                   double                   dP[9]);

    /**
     * The internal force @p f = sum_q B^T P(F_q) JxW (2 x 2 x 2 Gauss
     * points) of one trilinear hexahedron with the vertex coordinates
     * @p X (3 a + i: coordinate i of vertex a, deal.II's vertex order) at
     * the displacement @p u (3 a + c), with the cell kernel of the device
     * operators.
     */
    PLASTIX_BACKEND_EXPORT void
    hyperelastic_cell_force(const MaterialConstants &material, const double X[24], const double u[24], double f[24]);

    /**
     * The consistent tangent of hyperelastic_cell_force() at @p u applied to
     * the increment @p du: @p df = K(u) du, with the cell kernel and the
     * point data (deformation gradients) of the device operators.
     */
    PLASTIX_BACKEND_EXPORT void
    hyperelastic_cell_tangent(const MaterialConstants &material,
                              const double             X[24],
                              const double             u[24],
                              const double             du[24],
                              double                   df[24]);
  } // namespace backend
} // namespace plastix

#endif
