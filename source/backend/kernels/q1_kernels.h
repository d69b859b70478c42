// Device functions of the Q1 hexahedron with 2x2x2 Gauss points: reference
// gradients by sum factorisation, geometry and the cell operators (quadrature
// and element matrix), which take the material as a law (material/*.h).
// Backend-internal (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_Q1_KERNELS_H
#define PLASTIX_SOURCE_BACKEND_Q1_KERNELS_H

#include <plastix/backend/mesh_data.h>

#include "../kokkos_common.h"
#include "f_bar.h"

#include <type_traits>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /** Gauss points of the 2-point rule on [0,1]: (1 -+ 1/sqrt(3))/2. */
      constexpr double gauss_lo = 0.21132486540518711775;
      constexpr double gauss_hi = 0.78867513459481288225;
      /** Weight of each of the 8 tensor Gauss points on the unit cube. */
      constexpr double gauss_weight = 0.125;

      /**
       * A two-dimensional array with run-time strides, so that the same
       * kernel reads structure-of-arrays data on GPUs (coalesced across cells)
       * and array-of-structures data on CPUs (one cache line per cell).
       */
      template <typename T>
      struct Strided
      {
        T      *data        = nullptr;
        Index64 stride_item = 0;
        Index64 stride_entry = 0;

        KOKKOS_INLINE_FUNCTION T &
        operator()(const Index64 item, const Index64 entry) const
        {
          return data[item * stride_item + entry * stride_entry];
        }

        /** Read-only view of the same data. */
        template <typename U = T, typename = std::enable_if_t<!std::is_const<U>::value>>
        operator Strided<const U>() const
        {
          return {data, stride_item, stride_entry};
        }
      };

      /**
       * Strides of n_items x n_entries data: structure of arrays for one GPU
       * thread per item (coalesced across items), array of structures
       * otherwise (CPUs, and GPU teams that share an item: coalesced within).
       */
      inline void
      default_strides(const Index64 n_items,
                      const Index64 n_entries,
                      Index64      &stride_item,
                      Index64      &stride_entry,
                      const bool    thread_per_item)
      {
        if (on_device && thread_per_item)
          {
            stride_item  = 1;
            stride_entry = n_items;
          }
        else
          {
            stride_item  = n_entries;
            stride_entry = 1;
          }
      }

      /**
       * Bilinear weights (1-s)(1-t), s(1-t), (1-s)t, st: the reference
       * derivative of a trilinear function along one axis at a Gauss point
       * interpolates the four edge differences along that axis with them.
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      bilinear_weights(const Number s, const Number t, Number w[4])
      {
        w[0] = (1. - s) * (1. - t);
        w[1] = s * (1. - t);
        w[2] = (1. - s) * t;
        w[3] = s * t;
      }

      /** The two vertices (lexicographic) of edge m along direction d. */
      KOKKOS_INLINE_FUNCTION void
      edge_vertices(const int d, const int m, int &lo, int &hi)
      {
        if (d == 0)
          {
            lo = 2 * m;
            hi = lo + 1;
          }
        else if (d == 1)
          {
            lo = (m & 1) + 4 * (m >> 1);
            hi = lo + 2;
          }
        else
          {
            lo = m;
            hi = m + 4;
          }
      }

      /** Coordinates of Gauss point q (lexicographic) in the unit cube. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      gauss_point(const int q, Number &x, Number &y, Number &z)
      {
        x = static_cast<Number>((q & 1) ? gauss_hi : gauss_lo);
        y = static_cast<Number>((q & 2) ? gauss_hi : gauss_lo);
        z = static_cast<Number>((q & 4) ? gauss_hi : gauss_lo);
      }

      /** Weights of the edge differences along the three axes at Gauss point q. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      gradient_weights(const int q, Number w[3][4])
      {
        Number x, y, z;
        gauss_point(q, x, y, z);
        bilinear_weights(y, z, w[0]);
        bilinear_weights(x, z, w[1]);
        bilinear_weights(x, y, w[2]);
      }

      /** Edge differences of vertex values v along each axis: e[d][m] = v[hi] - v[lo]. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      edge_differences(const Number v[8], Number e[3][4])
      {
        PLASTIX_UNROLL
        for (int d = 0; d < 3; ++d)
          PLASTIX_UNROLL
          for (int m = 0; m < 4; ++m)
            {
              int lo, hi;
              edge_vertices(d, m, lo, hi);
              e[d][m] = v[hi] - v[lo];
            }
      }

      /** Transpose of edge_differences: r[hi] += a[d][m], r[lo] -= a[d][m]. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      edge_differences_transpose(const Number a[3][4], Number r[8])
      {
        PLASTIX_UNROLL
        for (int v = 0; v < 8; ++v)
          r[v] = 0;
        PLASTIX_UNROLL
        for (int d = 0; d < 3; ++d)
          PLASTIX_UNROLL
          for (int m = 0; m < 4; ++m)
            {
              int lo, hi;
              edge_vertices(d, m, lo, hi);
              r[hi] += a[d][m];
              r[lo] -= a[d][m];
            }
      }

      /**
       * Add the flux of the tensor S at a Gauss point (edge-difference
       * weights w, inverse Jacobian inv, JxW) to acc, the edge-difference
       * form of sum_q B^T S JxW (edge_differences_transpose() gives the
       * nodal values).
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      add_point_flux(const Number w[3][4], const Number inv[3][3], const Number JxW, const Number S[3][3],
                     Number acc[3][3][4])
      {
        PLASTIX_UNROLL
        for (int c = 0; c < 3; ++c)
          PLASTIX_UNROLL
          for (int d = 0; d < 3; ++d)
            {
              const Number t = JxW * (inv[d][0] * S[c][0] + inv[d][1] * S[c][1] + inv[d][2] * S[c][2]);
              PLASTIX_UNROLL
              for (int m = 0; m < 4; ++m)
                acc[c][d][m] += w[d][m] * t;
            }
      }

      /** Value of d N_a / d xi_d at Gauss point q. */
      template <typename Number = double>
      KOKKOS_INLINE_FUNCTION Number
      shape_gradient(const int q, const int a, const int d)
      {
        Number p[3];
        gauss_point(q, p[0], p[1], p[2]);
        Number r = 1;
        PLASTIX_UNROLL
        for (int e = 0; e < 3; ++e)
          {
            const int bit = (a >> e) & 1;
            if (e == d)
              r *= bit ? Number(1) : Number(-1);
            else
              r *= bit ? p[e] : Number(1) - p[e];
          }
        return r;
      }

      /** Physical gradient grad[i] = d N_a / d x_i at Gauss point q (inverse Jacobian inv[d][i]). */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      physical_shape_gradient(const int q, const int a, const Number inv[3][3], Number grad[3])
      {
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          grad[i] = shape_gradient<Number>(q, a, 0) * inv[0][i] + shape_gradient<Number>(q, a, 1) * inv[1][i] +
                    shape_gradient<Number>(q, a, 2) * inv[2][i];
      }

      /**
       * Inverse and determinant of the Jacobian J[i][d] = d x_i / d xi_d. The
       * inverse is returned as inv[d][i] = d xi_d / d x_i.
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION Number
      invert_jacobian(const Number J[3][3], Number inv[3][3])
      {
        const Number c00 = J[1][1] * J[2][2] - J[1][2] * J[2][1];
        const Number c01 = J[1][2] * J[2][0] - J[1][0] * J[2][2];
        const Number c02 = J[1][0] * J[2][1] - J[1][1] * J[2][0];
        const Number det = J[0][0] * c00 + J[0][1] * c01 + J[0][2] * c02;
        const Number r   = Number(1) / det;
        inv[0][0]        = c00 * r;
        inv[1][0]        = c01 * r;
        inv[2][0]        = c02 * r;
        inv[0][1]        = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) * r;
        inv[1][1]        = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) * r;
        inv[2][1]        = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) * r;
        inv[0][2]        = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) * r;
        inv[1][2]        = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) * r;
        inv[2][2]        = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) * r;
        return det;
      }

      /** Number of doubles stored per cell with stored geometry: (9 + 1) per Gauss point. */
      constexpr int stored_geometry_entries = 80;

      /**
       * Geometry from stored inverse Jacobians and JxW (entry 10 q + 3 d + i
       * holds inv[d][i], entry 10 q + 9 JxW), stored in double precision and
       * returned as @p Number.
       */
      template <typename Number = double>
      struct StoredGeometry
      {
        using value_type = Number;

        Strided<const double> data;

        struct CellData
        {
          Index64 cell;
        };

        KOKKOS_INLINE_FUNCTION void
        load(const Index64 cell, CellData &c) const
        {
          c.cell = cell;
        }

        KOKKOS_INLINE_FUNCTION Number
        at(const CellData &c, const int q, Number inv[3][3]) const
        {
          PLASTIX_UNROLL
          for (int d = 0; d < 3; ++d)
            PLASTIX_UNROLL
            for (int i = 0; i < 3; ++i)
              inv[d][i] = static_cast<Number>(data(c.cell, 10 * q + 3 * d + i));
          return static_cast<Number>(data(c.cell, 10 * q + 9));
        }

        /** No coordinates are needed: the data are stored. */
        static constexpr bool needs_coordinates = false;

        /** Point access for the team kernels (x unused). */
        KOKKOS_INLINE_FUNCTION Number
        at_point(const Index64 cell, const Number *, const int q, Number inv[3][3]) const
        {
          CellData c{cell};
          return at(c, q, inv);
        }
      };

      /**
       * Inverse Jacobian and JxW at Gauss point q from the edge differences
       * edges[i][d][m] of the vertex coordinates (coordinate i along
       * direction d).
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION Number
      geometry_from_edges(const Number edges[3][3][4], const int q, Number inv[3][3])
      {
        Number w[3][4];
        gradient_weights(q, w);
        Number J[3][3];
        PLASTIX_UNROLL
        for (int i = 0; i < 3; ++i)
          PLASTIX_UNROLL
          for (int d = 0; d < 3; ++d)
            J[i][d] = w[d][0] * edges[i][d][0] + w[d][1] * edges[i][d][1] + w[d][2] * edges[i][d][2] +
                      w[d][3] * edges[i][d][3];
        return invert_jacobian(J, inv) * static_cast<Number>(gauss_weight);
      }

      /** Edge differences e[c][d][m] of the 24 nodal values u[3a+c] of a cell. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      vector_edge_differences(const Number *u, Number e[3][3][4])
      {
        PLASTIX_UNROLL
        for (int c = 0; c < 3; ++c)
          {
            Number v[8];
            PLASTIX_UNROLL
            for (int a = 0; a < 8; ++a)
              v[a] = u[3 * a + c];
            edge_differences(v, e[c]);
          }
      }

      /** Inverse Jacobian and JxW at Gauss point q from the 24 vertex coordinates x[3a+i]. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION Number
      geometry_from_coordinates(const Number *x, const int q, Number inv[3][3])
      {
        Number edges[3][3][4];
        vector_edge_differences(x, edges);
        return geometry_from_edges(edges, q, inv);
      }

      /**
       * Geometry recomputed from the eight vertex coordinates (trilinear
       * map); the coordinates are stored in double precision, the edge
       * differences are taken in double and then rounded to @p Number.
       */
      template <typename Number = double>
      struct OnTheFlyGeometry
      {
        using value_type = Number;

        Strided<const LocalIndex> cell_nodes;
        const double             *coordinates = nullptr;

        struct CellData
        {
          Number edges[3][3][4]; // [coordinate][direction][edge]
        };

        KOKKOS_INLINE_FUNCTION void
        load(const Index64 cell, CellData &c) const
        {
          double x[3][8];
          PLASTIX_UNROLL
          for (int a = 0; a < 8; ++a)
            {
              const Index64 node = cell_nodes(cell, a);
              PLASTIX_UNROLL
              for (int i = 0; i < 3; ++i)
                x[i][a] = coordinates[3 * node + i];
            }
          PLASTIX_UNROLL
          for (int i = 0; i < 3; ++i)
            {
              double e[3][4];
              edge_differences(x[i], e);
              PLASTIX_UNROLL
              for (int d = 0; d < 3; ++d)
                PLASTIX_UNROLL
                for (int m = 0; m < 4; ++m)
                  c.edges[i][d][m] = static_cast<Number>(e[d][m]);
            }
        }

        KOKKOS_INLINE_FUNCTION Number
        at(const CellData &c, const int q, Number inv[3][3]) const
        {
          return geometry_from_edges(c.edges, q, inv);
        }

        /** The team kernels gather the vertex coordinates into shared memory. */
        static constexpr bool needs_coordinates = true;

        /** Point access for the team kernels from the gathered coordinates x[3a+i]. */
        KOKKOS_INLINE_FUNCTION Number
        at_point(const Index64, const Number *x, const int q, Number inv[3][3]) const
        {
          return geometry_from_coordinates(x, q, inv);
        }
      };

      /**
       * Symmetric tensors are stored as 6 entries xx, yy, zz, yz, xz, xy
       * (tensor, not engineering, shear components).
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      symmetric_part(const Number G[3][3], Number eps[6])
      {
        const Number half = 0.5;
        eps[0]            = G[0][0];
        eps[1]            = G[1][1];
        eps[2]            = G[2][2];
        eps[3]            = half * (G[1][2] + G[2][1]);
        eps[4]            = half * (G[0][2] + G[2][0]);
        eps[5]            = half * (G[0][1] + G[1][0]);
      }

      /**
       * Physical displacement gradient G[c][i] = d u_c / d x_i at Gauss point
       * q, from the edge differences e[c][d][m] of the displacement.
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      displacement_gradient(const Number e[3][3][4],
                            const Number w[3][4],
                            const Number inv[3][3],
                            Number       G[3][3])
      {
        PLASTIX_UNROLL
        for (int c = 0; c < 3; ++c)
          {
            Number gref[3];
            PLASTIX_UNROLL
            for (int d = 0; d < 3; ++d)
              gref[d] = w[d][0] * e[c][d][0] + w[d][1] * e[c][d][1] +
                        w[d][2] * e[c][d][2] + w[d][3] * e[c][d][3];
            PLASTIX_UNROLL
            for (int i = 0; i < 3; ++i)
              G[c][i] = gref[0] * inv[0][i] + gref[1] * inv[1][i] +
                        gref[2] * inv[2][i];
          }
      }

      /**
       * The displacement gradient at Gauss point q from the edge differences
       * of the displacement @p e and the inverse Jacobian @p inv.
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      gradient_at_point(const Number e[3][3][4], const int q, const Number inv[3][3], Number G[3][3])
      {
        Number w[3][4];
        gradient_weights(q, w);
        displacement_gradient(e, w, inv, G);
      }

      /**
       * The symmetric strain at Gauss point q from the edge differences of
       * the displacement @p e and the inverse Jacobian @p inv.
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      strain_at_point(const Number e[3][3][4], const int q, const Number inv[3][3], Number eps[6])
      {
        Number G[3][3];
        gradient_at_point(e, q, inv, G);
        symmetric_part(G, eps);
      }

      /**
       * Whether @p Law maps the displacement gradient to a stress tensor
       * that need not be symmetric (a finite-strain law: a member
       * first_piola(cell, q, G, P) and finite_strain = true) rather than
       * the symmetric strain to the symmetric stress (stress(cell, q, eps,
       * sig)).
       */
      template <typename Law, typename = void>
      struct is_finite_strain_law : std::false_type
      {};

      template <typename Law>
      struct is_finite_strain_law<Law, std::void_t<decltype(Law::finite_strain)>>
        : std::bool_constant<Law::finite_strain>
      {};

      /**
       * Whether @p Law is a linearised finite-strain law: its first_piola()
       * maps an increment of the displacement gradient to that of P at a
       * stored linearisation point (linearisation_point()).
       */
      template <typename Law, typename = void>
      struct is_linearised_law : std::false_type
      {};

      template <typename Law>
      struct is_linearised_law<Law, std::void_t<decltype(Law::linearised)>> : std::bool_constant<Law::linearised>
      {};

      /** The symmetric stress sig[6] as a 3x3 tensor. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      symmetric_tensor(const Number sig[6], Number S[3][3])
      {
        S[0][0] = sig[0];
        S[1][1] = sig[1];
        S[2][2] = sig[2];
        S[1][2] = S[2][1] = sig[3];
        S[0][2] = S[2][0] = sig[4];
        S[0][1] = S[1][0] = sig[5];
      }

      /**
       * B-bar (mean dilatation): replace the dilatation tr(eps) of the
       * strain @p eps by the cell average @p mean_dilatation, keeping its
       * deviatoric part.
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      replace_dilatation(Number eps[6], const Number mean_dilatation)
      {
        const Number shift = (mean_dilatation - (eps[0] + eps[1] + eps[2])) / Number(3);
        eps[0] += shift;
        eps[1] += shift;
        eps[2] += shift;
      }

      /**
       * Split the stress @p sig into its deviatoric part (returned in
       * @p sig) and the mean stress (returned).
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION Number
      remove_mean_stress(Number sig[6])
      {
        const Number p = (sig[0] + sig[1] + sig[2]) / Number(3);
        sig[0] -= p;
        sig[1] -= p;
        sig[2] -= p;
        return p;
      }

      /**
       * The cell average of the dilatation div u (volume integral over
       * volume, 2x2x2 Gauss points) from the edge differences @p e of the
       * displacement: the volumetric strain of every point of a B-bar
       * (mean dilatation) cell.
       */
      template <typename Geometry, typename Number>
      KOKKOS_INLINE_FUNCTION Number
      cell_mean_dilatation(const Geometry &geometry, const typename Geometry::CellData &g, const Number e[3][3][4])
      {
        Number volume = 0, integral = 0;
        for (int q = 0; q < 8; ++q)
          {
            Number       w[3][4], inv[3][3], G[3][3];
            const Number JxW = geometry.at(g, q, inv);
            gradient_weights(q, w);
            displacement_gradient(e, w, inv, G);
            integral += JxW * (G[0][0] + G[1][1] + G[2][2]);
            volume += JxW;
          }
        return integral / volume;
      }

      /**
       * The B-bar volume pass of one Gauss point q of a cell, for the team
       * kernels (one thread per point): V[0] = JxW, V[1] = JxW div u, from
       * the edge differences @p e of the displacement and the gathered
       * vertex coordinates @p x.
       */
      template <typename Geometry, typename Number>
      KOKKOS_INLINE_FUNCTION void
      point_volume(const Geometry &geometry, const Index64 cell, const Number *x, const int q,
                   const Number e[3][3][4], Number V[2])
      {
        Number       inv[3][3], eps[6];
        const Number JxW = geometry.at_point(cell, x, q, inv);
        strain_at_point(e, q, inv, eps);
        V[0] = JxW;
        V[1] = JxW * (eps[0] + eps[1] + eps[2]);
      }

      /** The cell's mean dilatation from the volume passes V[2q], V[2q+1] of its 8 points. */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION Number
      mean_dilatation_of_points(const Number *V)
      {
        Number volume = 0, integral = 0;
        for (int q = 0; q < 8; ++q)
          {
            volume += V[2 * q];
            integral += V[2 * q + 1];
          }
        return integral / volume;
      }

      /**
       * Quadrature form of the cell operator: f = sum_q B^T D B u JxW with B
       * from geometry and D from the law, evaluated in the common value_type
       * of both. u and f hold 24 values, 3 a + c.
       *
       * With @p mean_dilatation the operator is B-bar's (Hughes 1980, mean
       * dilatation): every point of the cell sees the strain
       * eps_bar = dev eps + (theta_bar / 3) I with theta_bar the cell average
       * of div u, so f = sum_q B_bar^T sigma(eps_bar) JxW, which is
       * sum_q B^T (dev sigma_q + p_bar I) JxW with p_bar the cell average of
       * the mean stress. The law sees eps_bar and may be any law (elastic,
       * tangent, stored stress), so the tangent stays B_bar^T D B_bar.
       * With a finite-strain law, @p mean_dilatation makes it the F-bar
       * element (f_bar.h): every point sees F_bar = (J_bar / J)^(1/3) F with
       * J_bar the cell's volume-averaged J; the stress law gives the
       * internal force, the linearised law (which stores F_bar) the
       * consistent tangent.
       */
      template <typename Geometry, typename Law, bool mean_dilatation = false>
      struct QuadratureCellOperator
      {
        using value_type = typename Geometry::value_type;
        static_assert(std::is_same<value_type, typename Law::value_type>::value,
                      "geometry and law must use the same number type");
        using Number = value_type;
        /** Whether the law is a finite-strain one (stress tensor from the displacement gradient). */
        static constexpr bool finite_strain = is_finite_strain_law<Law>::value;
        /** F-bar: mean dilatation with a finite-strain law. */
        static constexpr bool f_bar = finite_strain && mean_dilatation;
        /** The F-bar tangent (a linearised law), whose volume pass has three entries per point. */
        static constexpr bool f_bar_tangent = f_bar && is_linearised_law<Law>::value;

        Geometry geometry;
        Law      law;

        /**
         * The stress tensor S[c][i] whose flux the point contributes, from
         * the displacement gradient G: the law's first Piola-Kirchhoff
         * stress (finite strain), or the stress of the symmetric strain.
         */
        KOKKOS_INLINE_FUNCTION void
        point_stress(const Index64 cell, const int q, const Number G[3][3], Number S[3][3]) const
        {
          if constexpr (finite_strain)
            law.first_piola(cell, q, G, S);
          else
            {
              Number eps[6], sig[6];
              symmetric_part(G, eps);
              law.stress(cell, q, eps, sig);
              symmetric_tensor(sig, S);
            }
        }

        /** Add the flux of the symmetric stress sig at a point (weights w, inverse Jacobian inv) to acc. */
        KOKKOS_INLINE_FUNCTION static void
        add_flux(const Number w[3][4], const Number inv[3][3], const Number JxW, const Number sig[6],
                 Number acc[3][3][4])
        {
          Number S[3][3];
          symmetric_tensor(sig, S);
          add_flux(w, inv, JxW, S, acc);
        }

        /** Add the flux of the stress tensor S at a point (weights w, inverse Jacobian inv) to acc. */
        KOKKOS_INLINE_FUNCTION static void
        add_flux(const Number w[3][4], const Number inv[3][3], const Number JxW, const Number S[3][3],
                 Number acc[3][3][4])
        {
          add_point_flux(w, inv, JxW, S, acc);
        }

        /** Volume pass of an F-bar point (internal force or tangent) with displacement gradient @p G. */
        KOKKOS_INLINE_FUNCTION void
        f_bar_volume(const Index64 cell, const int q, const Number G[3][3], const Number JxW, Number *V) const
        {
          if constexpr (f_bar_tangent)
            f_bar_tangent_volume(law, cell, q, G, JxW, V);
          else
            f_bar_stress_volume(G, JxW, V);
        }

        /** The 20 entries of an F-bar point (internal force or tangent), f_bar.h. */
        KOKKOS_INLINE_FUNCTION void
        f_bar_point(const Index64 cell,
                    const int     q,
                    const Number  G[3][3],
                    const Number  inv[3][3],
                    const Number  JxW,
                    const Number *V,
                    Number       *T) const
        {
          if constexpr (f_bar_tangent)
            f_bar_tangent_point(law, cell, q, G, inv, JxW, V, T);
          else
            f_bar_stress_point(law, cell, q, G, inv, JxW, V, T);
        }

        /**
         * apply() of the F-bar tangent with the law's stored cell data
         * (f_bar_cell_entries): no volume pass, b from the volume gradient
         * and the cell part added from it.
         */
        KOKKOS_INLINE_FUNCTION void
        apply_f_bar_tangent_with_cell_data(const Index64 cell, const Number u[24], Number f[24]) const
        {
          typename Geometry::CellData g;
          geometry.load(cell, g);
          Number e[3][3][4];
          vector_edge_differences(u, e);
          const auto  &data   = law.f_bar_cell_data;
          const Number volume = static_cast<Number>(data(cell, 0));
          const Number p_bar  = static_cast<Number>(data(cell, 1));
          Number       mean_J_a = 0;
          PLASTIX_UNROLL
          for (int k = 0; k < 24; ++k)
            mean_J_a += static_cast<Number>(data(cell, 2 + k)) * u[k];
          mean_J_a /= volume;
          Number acc[3][3][4];
          PLASTIX_UNROLL
          for (int c = 0; c < 3; ++c)
            PLASTIX_UNROLL
            for (int d = 0; d < 3; ++d)
              PLASTIX_UNROLL
              for (int m = 0; m < 4; ++m)
                acc[c][d][m] = 0;
          Number integral = 0;
          for (int q = 0; q < 8; ++q)
            {
              Number w[3][4], inv[3][3], G[3][3], T[10];
              gradient_weights(q, w);
              const Number JxW = geometry.at(g, q, inv);
              displacement_gradient(e, w, inv, G);
              f_bar_tangent_point_parts<false>(law, cell, q, G, inv, JxW, mean_J_a, p_bar, T);
              PLASTIX_UNROLL
              for (int c = 0; c < 3; ++c)
                PLASTIX_UNROLL
                for (int d = 0; d < 3; ++d)
                  PLASTIX_UNROLL
                  for (int m = 0; m < 4; ++m)
                    acc[c][d][m] += w[d][m] * T[3 * c + d];
              integral += T[9];
            }
          const Number scalar = integral / volume;
          PLASTIX_UNROLL
          for (int c = 0; c < 3; ++c)
            {
              Number r[8];
              edge_differences_transpose(acc[c], r);
              PLASTIX_UNROLL
              for (int a = 0; a < 8; ++a)
                f[3 * a + c] = r[a] + scalar * static_cast<Number>(data(cell, 2 + 3 * a + c));
            }
        }

        /** apply() of the F-bar element: volume pass, point parts and the cell part. */
        KOKKOS_INLINE_FUNCTION void
        apply_f_bar(const Index64 cell, const Number u[24], Number f[24]) const
        {
          if constexpr (f_bar_tangent)
            if (law.f_bar_cell_data.data != nullptr)
              {
                apply_f_bar_tangent_with_cell_data(cell, u, f);
                return;
              }
          typename Geometry::CellData g;
          geometry.load(cell, g);
          Number e[3][3][4];
          vector_edge_differences(u, e);
          Number V[8 * volume_entries_per_point];
          for (int q = 0; q < 8; ++q)
            {
              Number w[3][4], inv[3][3], G[3][3];
              gradient_weights(q, w);
              const Number JxW = geometry.at(g, q, inv);
              displacement_gradient(e, w, inv, G);
              f_bar_volume(cell, q, G, JxW, V + volume_entries_per_point * q);
            }
          // acc: the points' own parts; cell_part: the fluxes of J F^-T, times the cell scalar at the end.
          Number acc[3][3][4], cell_part[3][3][4];
          PLASTIX_UNROLL
          for (int c = 0; c < 3; ++c)
            PLASTIX_UNROLL
            for (int d = 0; d < 3; ++d)
              PLASTIX_UNROLL
              for (int m = 0; m < 4; ++m)
                acc[c][d][m] = cell_part[c][d][m] = 0;
          Number integral = 0, volume = 0;
          for (int q = 0; q < 8; ++q)
            {
              Number w[3][4], inv[3][3], G[3][3], T[20];
              gradient_weights(q, w);
              const Number JxW = geometry.at(g, q, inv);
              displacement_gradient(e, w, inv, G);
              f_bar_point(cell, q, G, inv, JxW, V, T);
              PLASTIX_UNROLL
              for (int c = 0; c < 3; ++c)
                PLASTIX_UNROLL
                for (int d = 0; d < 3; ++d)
                  PLASTIX_UNROLL
                  for (int m = 0; m < 4; ++m)
                    {
                      acc[c][d][m] += w[d][m] * T[3 * c + d];
                      cell_part[c][d][m] += w[d][m] * T[10 + 3 * c + d];
                    }
              integral += T[9];
              volume += T[19];
            }
          const Number scalar = integral / volume;
          PLASTIX_UNROLL
          for (int c = 0; c < 3; ++c)
            {
              Number sum[3][4], r[8];
              PLASTIX_UNROLL
              for (int d = 0; d < 3; ++d)
                PLASTIX_UNROLL
                for (int m = 0; m < 4; ++m)
                  sum[d][m] = acc[c][d][m] + scalar * cell_part[c][d][m];
              edge_differences_transpose(sum, r);
              PLASTIX_UNROLL
              for (int a = 0; a < 8; ++a)
                f[3 * a + c] = r[a];
            }
        }

        KOKKOS_INLINE_FUNCTION void
        apply(const Index64 cell, const Number u[24], Number f[24]) const
        {
          if constexpr (f_bar)
            apply_f_bar(cell, u, f);
          else
            apply_full_or_b_bar(cell, u, f);
        }

        /** apply() with full integration or B-bar. */
        KOKKOS_INLINE_FUNCTION void
        apply_full_or_b_bar(const Index64 cell, const Number u[24], Number f[24]) const
        {
          typename Geometry::CellData g;
          geometry.load(cell, g);

          Number e[3][3][4];
          vector_edge_differences(u, e);

          Number acc[3][3][4];
          PLASTIX_UNROLL
          for (int c = 0; c < 3; ++c)
            PLASTIX_UNROLL
            for (int d = 0; d < 3; ++d)
              PLASTIX_UNROLL
              for (int m = 0; m < 4; ++m)
                acc[c][d][m] = 0;

          Number theta_bar = 0, pressure_integral = 0, volume = 0;
          if constexpr (mean_dilatation)
            theta_bar = cell_mean_dilatation(geometry, g, e);

          for (int q = 0; q < 8; ++q)
            {
              Number w[3][4];
              gradient_weights(q, w);
              Number       inv[3][3];
              const Number JxW = geometry.at(g, q, inv);
              Number       G[3][3];
              displacement_gradient(e, w, inv, G);
              if constexpr (!mean_dilatation)
                {
                  Number S[3][3];
                  point_stress(cell, q, G, S);
                  add_flux(w, inv, JxW, S, acc);
                }
              else
                {
                  Number eps[6], sig[6];
                  symmetric_part(G, eps);
                  replace_dilatation(eps, theta_bar);
                  law.stress(cell, q, eps, sig);
                  pressure_integral += JxW * remove_mean_stress(sig);
                  volume += JxW;
                  add_flux(w, inv, JxW, sig, acc);
                }
            }

          if constexpr (mean_dilatation)
            {
              // The mean-stress part: sum_q B^T (p_bar I) JxW.
              const Number p_bar = pressure_integral / volume;
              const Number mean[6] = {p_bar, p_bar, p_bar, 0, 0, 0};
              for (int q = 0; q < 8; ++q)
                {
                  Number w[3][4];
                  gradient_weights(q, w);
                  Number       inv[3][3];
                  const Number JxW = geometry.at(g, q, inv);
                  add_flux(w, inv, JxW, mean, acc);
                }
            }

          PLASTIX_UNROLL
          for (int c = 0; c < 3; ++c)
            {
              Number r[8];
              edge_differences_transpose(acc[c], r);
              PLASTIX_UNROLL
              for (int a = 0; a < 8; ++a)
                f[3 * a + c] = r[a];
            }
        }

        /** The team kernels evaluate point by point (one thread per Gauss point). */
        static constexpr bool has_point_phase = true;
        static constexpr bool needs_coordinates = Geometry::needs_coordinates;
        /**
         * B-bar needs the cell's mean dilatation before the point phase:
         * the team kernels run volume_pass() at every point first.
         */
        static constexpr bool has_volume_pass = mean_dilatation;
        /**
         * Entries per point of the volume pass: B-bar JxW and JxW div u;
         * F-bar f_bar_stress_volume_entries, or for the tangent
         * f_bar_tangent_volume_entries.
         */
        static constexpr int volume_entries_per_point =
          f_bar_tangent ? f_bar_tangent_volume_entries : f_bar ? f_bar_stress_volume_entries : 2;
        /**
         * Entries per point of the point phase's output: the 9 fluxes, and
         * for B-bar also JxW times the mean stress, the 9 fluxes of a unit
         * mean stress and JxW.
         */
        static constexpr int point_entries = mean_dilatation ? 20 : 9;

        /**
         * Volume pass of the team kernels at point q (volume_entries_per_point
         * values): B-bar V[0] = JxW, V[1] = JxW div u; F-bar those of f_bar.h.
         */
        KOKKOS_INLINE_FUNCTION void
        volume_pass(const Index64 cell, const int q, const Number *u, const Number *x, Number *V) const
        {
          Number e[3][3][4];
          vector_edge_differences(u, e);
          if constexpr (f_bar)
            {
              Number       inv[3][3], G[3][3];
              const Number JxW = geometry.at_point(cell, x, q, inv);
              gradient_at_point(e, q, inv, G);
              f_bar_volume(cell, q, G, JxW, V);
            }
          else
            point_volume(geometry, cell, x, q, e, V);
        }

        /**
         * Point phase of the team kernels: at Gauss point q of @p cell, from
         * the gathered values u[3a+c] (and coordinates x), the fluxes
         * T[3c+d] = JxW sum_i inv[d][i] sigma[c][i] that the node phase
         * integrates. For B-bar, @p V holds the volume pass of the cell's
         * 8 points, sigma is the deviatoric stress at eps_bar, and T[9] =
         * JxW p, T[10 + 3c + d] = JxW inv[d][c], T[19] = JxW.
         */
        KOKKOS_INLINE_FUNCTION void
        point_phase(const Index64 cell, const int q, const Number *u, const Number *x, const Number *V,
                    Number *T) const
        {
          Number e[3][3][4];
          vector_edge_differences(u, e);
          Number       inv[3][3];
          const Number JxW = geometry.at_point(cell, x, q, inv);
          Number       G[3][3], S[3][3];
          gradient_at_point(e, q, inv, G);
          if constexpr (f_bar)
            {
              f_bar_point(cell, q, G, inv, JxW, V, T);
              return;
            }
          Number p = 0;
          if constexpr (mean_dilatation && !f_bar)
            {
              Number eps[6], sig[6];
              symmetric_part(G, eps);
              replace_dilatation(eps, mean_dilatation_of_points(V));
              law.stress(cell, q, eps, sig);
              p = remove_mean_stress(sig);
              symmetric_tensor(sig, S);
            }
          else
            point_stress(cell, q, G, S);
          PLASTIX_UNROLL
          for (int c = 0; c < 3; ++c)
            PLASTIX_UNROLL
            for (int d = 0; d < 3; ++d)
              T[3 * c + d] = JxW * (inv[d][0] * S[c][0] + inv[d][1] * S[c][1] + inv[d][2] * S[c][2]);
          if constexpr (mean_dilatation)
            {
              T[9] = JxW * p;
              PLASTIX_UNROLL
              for (int c = 0; c < 3; ++c)
                PLASTIX_UNROLL
                for (int d = 0; d < 3; ++d)
                  T[10 + 3 * c + d] = JxW * inv[d][c];
              T[19] = JxW;
            }
        }

        /** Node phase: f[c] = sum_q sum_d dN_a/dxi_d(q) T_q[3c+d] (T of the 8 points, point_entries each). */
        KOKKOS_INLINE_FUNCTION void
        node_phase(const Index64, const int a, const Number *, const Number *T, Number f[3]) const
        {
          Number p_bar = 0;
          if constexpr (mean_dilatation)
            {
              Number volume = 0, integral = 0;
              for (int q = 0; q < 8; ++q)
                {
                  integral += T[point_entries * q + 9];
                  volume += T[point_entries * q + 19];
                }
              p_bar = integral / volume;
            }
          f[0] = f[1] = f[2] = 0;
          for (int q = 0; q < 8; ++q)
            {
              const Number  g[3] = {shape_gradient<Number>(q, a, 0), shape_gradient<Number>(q, a, 1),
                                    shape_gradient<Number>(q, a, 2)};
              const Number *Tq   = T + point_entries * q;
              PLASTIX_UNROLL
              for (int c = 0; c < 3; ++c)
                {
                  f[c] += g[0] * Tq[3 * c] + g[1] * Tq[3 * c + 1] + g[2] * Tq[3 * c + 2];
                  if constexpr (mean_dilatation)
                    f[c] += p_bar * (g[0] * Tq[10 + 3 * c] + g[1] * Tq[11 + 3 * c] + g[2] * Tq[12 + 3 * c]);
                }
            }
        }

        /** Rows 3a..3a+2 of the cell operator (the whole cell is evaluated). */
        KOKKOS_INLINE_FUNCTION void
        apply_node_rows(const Index64 cell,
                        const int     a,
                        const Number  u[24],
                        Number        f3[3]) const
        {
          Number f[24];
          apply(cell, u, f);
          PLASTIX_UNROLL
          for (int c = 0; c < 3; ++c)
            f3[c] = f[3 * a + c];
        }

        /**
         * Diagonal of the cell matrix: diag[3a+c] = sum_q B_ac^T D B_ac JxW
         * (B_bar with mean dilatation).
         */
        KOKKOS_INLINE_FUNCTION void
        diagonal(const Index64 cell, Number diag[24]) const
        {
          if constexpr (f_bar)
            {
              // The cell part couples all points: the diagonal from the products with unit vectors.
              for (int k = 0; k < 24; ++k)
                {
                  Number unit[24] = {}, f[24];
                  unit[k] = Number(1);
                  apply_f_bar(cell, unit, f);
                  diag[k] = f[k];
                }
              return;
            }
          typename Geometry::CellData g;
          geometry.load(cell, g);
          PLASTIX_UNROLL
          for (int k = 0; k < 24; ++k)
            diag[k] = 0;
          // B-bar: the mean dilatation of the unit displacement of DoF 3a+c
          // is (sum_q JxW dN_a/dx_c) / volume.
          Number mean_divergence[24] = {}, volume = 0;
          if constexpr (mean_dilatation)
            {
              for (int q = 0; q < 8; ++q)
                {
                  Number       inv[3][3];
                  const Number JxW = geometry.at(g, q, inv);
                  volume += JxW;
                  for (int a = 0; a < 8; ++a)
                    {
                      Number grad[3];
                      physical_shape_gradient(q, a, inv, grad);
                      PLASTIX_UNROLL
                      for (int i = 0; i < 3; ++i)
                        mean_divergence[3 * a + i] += JxW * grad[i];
                    }
                }
              PLASTIX_UNROLL
              for (int k = 0; k < 24; ++k)
                mean_divergence[k] /= volume;
            }
          for (int q = 0; q < 8; ++q)
            {
              Number       inv[3][3];
              const Number JxW = geometry.at(g, q, inv);
              if constexpr (finite_strain)
                {
                  // The unit displacement of DoF 3a+c has the gradient e_c (x) grad N_a, so its entry is
                  // grad N_a . A_c grad N_a with A_c[i][j] = P(e_c (x) e_j)[c][i]: nine calls of the
                  // (linear) law per point instead of 24.
                  Number A[3][3][3];
                  PLASTIX_UNROLL
                  for (int c = 0; c < 3; ++c)
                    PLASTIX_UNROLL
                    for (int j = 0; j < 3; ++j)
                      {
                        Number G[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, P[3][3];
                        G[c][j]        = Number(1);
                        law.first_piola(cell, q, G, P);
                        PLASTIX_UNROLL
                        for (int i = 0; i < 3; ++i)
                          A[c][i][j] = P[c][i];
                      }
                  for (int a = 0; a < 8; ++a)
                    {
                      Number grad[3];
                      physical_shape_gradient(q, a, inv, grad);
                      PLASTIX_UNROLL
                      for (int c = 0; c < 3; ++c)
                        {
                          Number entry = 0;
                          PLASTIX_UNROLL
                          for (int i = 0; i < 3; ++i)
                            entry += grad[i] * (A[c][i][0] * grad[0] + A[c][i][1] * grad[1] + A[c][i][2] * grad[2]);
                          diag[3 * a + c] += JxW * entry;
                        }
                    }
                }
              else
                for (int a = 0; a < 8; ++a)
                  {
                    Number grad[3];
                    physical_shape_gradient(q, a, inv, grad);
                    PLASTIX_UNROLL
                    for (int c = 0; c < 3; ++c)
                      {
                        Number G[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
                        PLASTIX_UNROLL
                        for (int i = 0; i < 3; ++i)
                          G[c][i] = grad[i];
                        Number eps[6], sig[6];
                        symmetric_part(G, eps);
                        if constexpr (mean_dilatation)
                          replace_dilatation(eps, mean_divergence[3 * a + c]);
                        law.stress(cell, q, eps, sig);
                        // sig : eps_bar (sig symmetric)
                        const Number energy = sig[0] * eps[0] + sig[1] * eps[1] + sig[2] * eps[2] +
                                              Number(2) * (sig[3] * eps[3] + sig[4] * eps[4] + sig[5] * eps[5]);
                        diag[3 * a + c] += JxW * energy;
                      }
                  }
            }
        }
      };

      /**
       * f = K u for a 24x24 element matrix @p K stored column-major (column
       * j contiguous, as compute_element_matrices() writes it), column by
       * column: the 24 accumulators are
       * independent (a row-wise dot product would chain 24 dependent FMAs).
       * The entries of K (MatrixNumber) are rounded to the vectors' Number.
       */
      template <typename MatrixNumber, typename Number>
      KOKKOS_INLINE_FUNCTION void
      element_matrix_times(const MatrixNumber *K, const Number u[24], Number f[24])
      {
        PLASTIX_UNROLL
        for (int i = 0; i < 24; ++i)
          f[i] = 0;
        PLASTIX_UNROLL
        for (int j = 0; j < 24; ++j)
          {
            const Number        uj = u[j];
            const MatrixNumber *Kj = K + 24 * j;
            PLASTIX_UNROLL
            for (int i = 0; i < 24; ++i)
              f[i] += static_cast<Number>(Kj[i]) * uj;
          }
      }

      /** Element-matrix form of the cell operator: f = K_cell u, the double matrices applied in @p Number. */
      /** values *= the stiffness factor of @p cell, if there are factors (MeshData::cell_factors). */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      scale_by_cell_factor(const float *cell_factors, const Index64 cell, Number *values, const int n)
      {
        if (cell_factors == nullptr)
          return;
        const Number factor = static_cast<Number>(cell_factors[cell]);
        for (int k = 0; k < n; ++k)
          values[k] *= factor;
      }

      template <typename Number = double>
      struct MatrixCellOperator
      {
        using value_type = Number;

        /** 576 doubles per matrix, column-major (compute_element_matrices()): the shared (group) matrices. */
        const double     *matrices    = nullptr;
        /** Matrix index of each cell: < n_shared in matrices, else in own_matrices. */
        const LocalIndex *cell_matrix = nullptr;
        /** Matrices of individual cells (plastic cells). */
        const double *own_matrices = nullptr;
        /** Number of shared matrices. */
        LocalIndex n_shared = 0;
        /**
         * Stiffness factors (MeshData::cell_factors), or null; the matrices
         * are the cells' without their factors.
         */
        const float *cell_factors = nullptr;

        KOKKOS_INLINE_FUNCTION const double *
        matrix(const Index64 cell) const
        {
          const LocalIndex m = cell_matrix[cell];
          return m < n_shared ? matrices + 576 * static_cast<Index64>(m) :
                                own_matrices + 576 * static_cast<Index64>(m - n_shared);
        }

        /** f = K u (element_matrix_times). */
        KOKKOS_INLINE_FUNCTION void
        apply(const Index64 cell, const Number u[24], Number f[24]) const
        {
          element_matrix_times(matrix(cell), u, f);
          scale_by_cell_factor(cell_factors, cell, f, 24);
        }

        /** Rows 3a..3a+2 of K_cell u (K stored column-major), two partial sums each. */
        KOKKOS_INLINE_FUNCTION void
        apply_node_rows(const Index64 cell,
                        const int     a,
                        const Number  u[24],
                        Number        f[3]) const
        {
          const double *K = matrix(cell) + 3 * a;
          Number        even[3] = {0, 0, 0}, odd[3] = {0, 0, 0};
          PLASTIX_UNROLL
          for (int j = 0; j < 24; j += 2)
            PLASTIX_UNROLL
            for (int c = 0; c < 3; ++c)
              {
                even[c] += static_cast<Number>(K[24 * j + c]) * u[j];
                odd[c] += static_cast<Number>(K[24 * (j + 1) + c]) * u[j + 1];
              }
          PLASTIX_UNROLL
          for (int c = 0; c < 3; ++c)
            f[c] = even[c] + odd[c];
          scale_by_cell_factor(cell_factors, cell, f, 3);
        }

        /** The team kernels need only the node phase (rows of the matrix). */
        static constexpr bool has_point_phase   = false;
        static constexpr bool needs_coordinates = false;
        static constexpr bool has_volume_pass   = false;
        static constexpr int  volume_entries_per_point = 0;
        static constexpr int  point_entries     = 0;

        KOKKOS_INLINE_FUNCTION void
        volume_pass(const Index64, const int, const Number *, const Number *, Number *) const
        {}

        KOKKOS_INLINE_FUNCTION void
        point_phase(const Index64, const int, const Number *, const Number *, const Number *, Number *) const
        {}

        /** Node phase: rows 3a..3a+2 of K_cell u for the gathered u. */
        KOKKOS_INLINE_FUNCTION void
        node_phase(const Index64 cell, const int a, const Number *u, const Number *, Number f[3]) const
        {
          apply_node_rows(cell, a, u, f);
        }
      };
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
