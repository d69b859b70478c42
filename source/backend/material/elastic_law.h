// The material laws of the cell operators, and the elastic one.
//
// A law is what QuadratureCellOperator (q1_kernels.h) asks at each Gauss
// point: a type with
//   using value_type = double or float;
//   KOKKOS_INLINE_FUNCTION void
//   stress(Index64 cell, int q, const value_type eps[6], value_type sig[6]) const;
// that maps the strain (or strain increment) eps of point q of a cell to the
// stress (increment) sig, both in the 6-entry storage xx, yy, zz, yz, xz, xy
// (shear strains as tensor components). The laws: ElasticLaw (here),
// TangentLaw (consistent J2 tangent) and StoredStressLaw (internal force) in
// j2_plasticity.h. Backend-internal (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_MATERIAL_ELASTIC_LAW_H
#define PLASTIX_SOURCE_BACKEND_MATERIAL_ELASTIC_LAW_H

#include <plastix/backend/material_constants.h>

#include "../kernels/q1_kernels.h"

#include <cstdint>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /**
       * Linear isotropic elasticity, sigma = lambda tr(eps) I + 2 mu eps,
       * evaluated in @p Number, times the cell's stiffness factor if
       * @p cell_factors is set.
       */
      template <typename Number = double>
      struct ElasticLaw
      {
        using value_type = Number;

        const MaterialConstants *materials     = nullptr;
        const std::uint16_t     *cell_material = nullptr;
        const float             *cell_factors  = nullptr;

        KOKKOS_INLINE_FUNCTION void
        stress(const Index64 cell, const int, const Number eps[6], Number sig[6]) const
        {
          const MaterialConstants &m      = materials[cell_material[cell]];
          const Number             lambda = static_cast<Number>(m.lambda);
          const Number             two_mu = static_cast<Number>(2. * m.mu);
          const Number             tr     = eps[0] + eps[1] + eps[2];
          PLASTIX_UNROLL
          for (int k = 0; k < 3; ++k)
            sig[k] = lambda * tr + two_mu * eps[k];
          PLASTIX_UNROLL
          for (int k = 3; k < 6; ++k)
            sig[k] = two_mu * eps[k];
          scale_by_cell_factor(cell_factors, cell, sig, 6);
        }
      };
    } // namespace internal
  } // namespace backend
} // namespace plastix

#endif
