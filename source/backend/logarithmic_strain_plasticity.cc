// The finite-strain return of the device in the logarithmic strain space
// evaluated on the host (plastix/backend/logarithmic_strain_plasticity.h).
#include <plastix/backend/logarithmic_strain_plasticity.h>

#include "material/logarithmic_strain.h"

namespace plastix
{
  namespace backend
  {
    static_assert(logarithmic_strain_history_size == internal::history_fields,
                  "the host interface names the device's history layout");

    namespace
    {
      void
      to_matrix(const double a[9], double A[3][3])
      {
        for (int k = 0; k < 9; ++k)
          A[k / 3][k % 3] = a[k];
      }
    } // namespace

    LogarithmicStrainPoint
    logarithmic_strain_return(const MaterialConstants &material,
                              const double             F[9],
                              const double             history[logarithmic_strain_history_size])
    {
      double F3[3][3];
      to_matrix(F, F3);
      internal::LogarithmicStrainResult r;
      internal::logarithmic_strain_return(material, F3, history, r);
      LogarithmicStrainPoint point;
      point.valid   = r.valid;
      point.plastic = r.plastic;
      for (int k = 0; k < 9; ++k)
        point.first_piola[k] = r.P[k / 3][k % 3];
      for (int k = 0; k < 6; ++k)
        {
          point.second_piola[k]     = r.S[k];
          point.conjugate_stress[k] = r.T[k];
          point.strain[k]           = r.valid ? r.kinematics.strain[k] : r.S[k];
        }
      for (int k = 0; k < logarithmic_strain_history_size; ++k)
        point.history[k] = r.valid ? r.history[k] : history[k];
      return point;
    }

    void
    logarithmic_strain_stress_derivative(const MaterialConstants &material,
                                         const double             F[9],
                                         const double             history[logarithmic_strain_history_size],
                                         const double             H[9],
                                         double                   dP[9])
    {
      double F3[3][3], H3[3][3], dP3[3][3];
      to_matrix(F, F3);
      to_matrix(H, H3);
      internal::LogarithmicStrainResult r;
      internal::logarithmic_strain_return(material, F3, history, r);
      if (!r.valid)
        {
          for (int k = 0; k < 9; ++k)
            dP[k] = r.P[0][0];
          return;
        }
      r.first_piola_derivative(F3, H3, dP3);
      for (int k = 0; k < 9; ++k)
        dP[k] = dP3[k / 3][k % 3];
    }
  } // namespace backend
} // namespace plastix
