// The hyperelastic law and cell kernel of the device evaluated on the host
// (plastix/backend/hyperelasticity.h).
#include <plastix/backend/hyperelasticity.h>

#include "material/hyperelastic_law.h"

namespace plastix
{
  namespace backend
  {
    namespace
    {
      using internal::Index64;

      /** One cell with the vertices 0..7 at the coordinates @p X (array of structures). */
      struct SingleCell
      {
        LocalIndex nodes[8] = {0, 1, 2, 3, 4, 5, 6, 7};

        internal::OnTheFlyGeometry<double>
        geometry(const double X[24]) const
        {
          internal::OnTheFlyGeometry<double> g;
          g.cell_nodes  = {nodes, 8, 1};
          g.coordinates = X;
          return g;
        }
      };

      const std::uint16_t material_zero[1] = {0};

      /** The history of a point, and of a cell's points, that has not yielded (Hencky materials). */
      const double virgin_history[internal::history_fields]          = {};
      const double virgin_cell_history[8 * internal::history_fields] = {};
    } // namespace

    double
    hyperelastic_stress(const MaterialConstants &material, const double F[9], double P[9])
    {
      double F3[3][3], P3[3][3];
      for (int k = 0; k < 9; ++k)
        F3[k / 3][k % 3] = F[k];
      if (material.strain_energy == StrainEnergy::hencky)
        {
          internal::LogarithmicStrainResult r;
          internal::logarithmic_strain_return(material, F3, virgin_history, r);
          for (int k = 0; k < 9; ++k)
            P[k] = r.P[k / 3][k % 3];
          return F[0] * (F[4] * F[8] - F[5] * F[7]) - F[1] * (F[3] * F[8] - F[5] * F[6]) +
                 F[2] * (F[3] * F[7] - F[4] * F[6]);
        }
      const double J = internal::hyperelastic_stress(material, F3, P3);
      for (int k = 0; k < 9; ++k)
        P[k] = P3[k / 3][k % 3];
      return J;
    }

    double
    hyperelastic_energy(const MaterialConstants &material, const double F[9])
    {
      double F3[3][3];
      for (int k = 0; k < 9; ++k)
        F3[k / 3][k % 3] = F[k];
      return internal::hyperelastic_energy(material, F3);
    }

    void
    hyperelastic_stress_derivative(const MaterialConstants &material,
                                   const double             F[9],
                                   const double             H[9],
                                   double                   dP[9])
    {
      double F3[3][3], H3[3][3], dP3[3][3];
      for (int k = 0; k < 9; ++k)
        {
          F3[k / 3][k % 3] = F[k];
          H3[k / 3][k % 3] = H[k];
        }
      if (material.strain_energy == StrainEnergy::hencky)
        {
          internal::LogarithmicStrainResult r;
          internal::logarithmic_strain_return(material, F3, virgin_history, r);
          r.first_piola_derivative(F3, H3, dP3);
        }
      else
        internal::hyperelastic_stress_derivative(material, F3, H3, dP3);
      for (int k = 0; k < 9; ++k)
        dP[k] = dP3[k / 3][k % 3];
    }

    void
    hyperelastic_cell_force(const MaterialConstants &material, const double X[24], const double u[24], double f[24])
    {
      const SingleCell                        cell;
      internal::HyperelasticLaw<double, true> law;
      law.materials     = &material;
      law.cell_material = material_zero;
      law.history       = {virgin_cell_history, 0, 1};
      const internal::QuadratureCellOperator<internal::OnTheFlyGeometry<double>, internal::HyperelasticLaw<double, true>>
        op{cell.geometry(X), law};
      op.apply(0, u, f);
    }

    void
    hyperelastic_cell_tangent(const MaterialConstants &material,
                              const double             X[24],
                              const double             u[24],
                              const double             du[24],
                              double                   df[24])
    {
      const SingleCell cell;
      const auto       geometry = cell.geometry(X);
      // The deformation gradients F = I + Grad u at the 8 points, as the device stores them.
      double                                                F[72];
      typename internal::OnTheFlyGeometry<double>::CellData g;
      geometry.load(0, g);
      double e[3][3][4];
      internal::vector_edge_differences(u, e);
      internal::store_cell_deformation_gradients(geometry, g, e, 0, internal::Strided<double>{F, 72, 1});
      internal::HyperelasticTangentLaw<double, true> law;
      law.materials            = &material;
      law.cell_material        = material_zero;
      law.deformation_gradient = {F, 72, 1};
      // The tangent data of the points of a Hencky material, from a virgin history.
      double tangent_data[8 * internal::logarithmic_strain_tangent_fields] = {};
      if (material.strain_energy == StrainEnergy::hencky)
        for (int q = 0; q < 8; ++q)
          {
            double Fq[3][3];
            internal::load_deformation_gradient(law.deformation_gradient, 0, q, Fq);
            internal::store_logarithmic_strain_tangent(material, {virgin_cell_history, 0, 1}, 0, q, Fq,
                                                       {tangent_data, 0, 1});
          }
      law.tangent_data = {tangent_data, 0, 1};
      const internal::QuadratureCellOperator<internal::OnTheFlyGeometry<double>,
                                             internal::HyperelasticTangentLaw<double, true>>
        op{geometry, law};
      op.apply(0, du, df);
    }
  } // namespace backend
} // namespace plastix

#include "firewall_check.h"
