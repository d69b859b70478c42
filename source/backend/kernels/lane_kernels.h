// ThreadMapping::shuffle: the quadrature cell operators with eight lanes per
// cell that exchange values through register shuffles (sum factorisation
// across the lanes), and its element-by-element apply. Backend-internal
// (Kokkos).
#ifndef PLASTIX_SOURCE_BACKEND_LANE_KERNELS_H
#define PLASTIX_SOURCE_BACKEND_LANE_KERNELS_H

#include "q1_kernels.h"

#include <cstdint>
#include <type_traits>

namespace plastix
{
  namespace backend
  {
    namespace internal
    {
      /**
       * The values of one quantity on the eight lanes of a cell, held by one
       * thread: the host form of the lane kernels (HostLanes), whose GPU form
       * holds one value per thread. Arithmetic acts lane by lane.
       */
      template <typename T>
      struct LaneArray
      {
        T v[8];

        LaneArray() = default;

        KOKKOS_INLINE_FUNCTION
        LaneArray(const T value)
        {
          PLASTIX_UNROLL
          for (int l = 0; l < 8; ++l)
            v[l] = value;
        }

        KOKKOS_INLINE_FUNCTION LaneArray &
        operator+=(const LaneArray &o)
        {
          PLASTIX_UNROLL
          for (int l = 0; l < 8; ++l)
            v[l] += o.v[l];
          return *this;
        }

        KOKKOS_INLINE_FUNCTION LaneArray &
        operator-=(const LaneArray &o)
        {
          PLASTIX_UNROLL
          for (int l = 0; l < 8; ++l)
            v[l] -= o.v[l];
          return *this;
        }

        KOKKOS_INLINE_FUNCTION LaneArray &
        operator*=(const LaneArray &o)
        {
          PLASTIX_UNROLL
          for (int l = 0; l < 8; ++l)
            v[l] *= o.v[l];
          return *this;
        }
      };

#define PLASTIX_LANE_OPERATOR(op)                                                                                  \
  template <typename T>                                                                                            \
  KOKKOS_INLINE_FUNCTION LaneArray<T> operator op(const LaneArray<T> &a, const LaneArray<T> &b)                    \
  {                                                                                                                \
    LaneArray<T> r;                                                                                                \
    PLASTIX_UNROLL                                                                                                 \
    for (int l = 0; l < 8; ++l)                                                                                    \
      r.v[l] = a.v[l] op b.v[l];                                                                                   \
    return r;                                                                                                      \
  }                                                                                                                \
  template <typename T>                                                                                            \
  KOKKOS_INLINE_FUNCTION LaneArray<T> operator op(const LaneArray<T> &a, const T b)                                \
  {                                                                                                                \
    return a op LaneArray<T>(b);                                                                                   \
  }                                                                                                                \
  template <typename T>                                                                                            \
  KOKKOS_INLINE_FUNCTION LaneArray<T> operator op(const T a, const LaneArray<T> &b)                                \
  {                                                                                                                \
    return LaneArray<T>(a) op b;                                                                                   \
  }

      PLASTIX_LANE_OPERATOR(+)
      PLASTIX_LANE_OPERATOR(-)
      PLASTIX_LANE_OPERATOR(*)
      PLASTIX_LANE_OPERATOR(/)
#undef PLASTIX_LANE_OPERATOR

      template <typename T>
      KOKKOS_INLINE_FUNCTION LaneArray<T>
      operator-(const LaneArray<T> &a)
      {
        LaneArray<T> r;
        PLASTIX_UNROLL
        for (int l = 0; l < 8; ++l)
          r.v[l] = -a.v[l];
        return r;
      }

      /**
       * The eight lanes of a cell held by one host thread (LaneArray
       * values): exchanges permute the array.
       */
      struct HostLanes
      {
        template <typename T>
        using value = LaneArray<T>;

        /** The value of lane l ^ (1 << bit) on every lane l. */
        template <typename T>
        KOKKOS_INLINE_FUNCTION LaneArray<T>
        exchange(const LaneArray<T> &x, const int bit) const
        {
          LaneArray<T> r;
          for (int l = 0; l < 8; ++l)
            r.v[l] = x.v[l ^ (1 << bit)];
          return r;
        }

        /** The lane-wise value f(l) of every lane l. */
        template <typename T, typename F>
        KOKKOS_INLINE_FUNCTION LaneArray<T>
        per_lane(const F &f) const
        {
          LaneArray<T> r;
          for (int l = 0; l < 8; ++l)
            r.v[l] = f(l);
          return r;
        }

        /** Run f(l) for every lane l. */
        template <typename F>
        KOKKOS_INLINE_FUNCTION void
        for_each_lane(const F &f) const
        {
          for (int l = 0; l < 8; ++l)
            f(l);
        }

        /** The value of lane @p l. */
        template <typename T>
        KOKKOS_INLINE_FUNCTION static T &
        at(LaneArray<T> &x, const int l)
        {
          return x.v[l];
        }

        template <typename T>
        KOKKOS_INLINE_FUNCTION static const T &
        at(const LaneArray<T> &x, const int l)
        {
          return x.v[l];
        }

        /** Convert every lane. */
        template <typename To, typename From>
        KOKKOS_INLINE_FUNCTION static LaneArray<To>
        convert(const LaneArray<From> &x)
        {
          LaneArray<To> r;
          for (int l = 0; l < 8; ++l)
            r.v[l] = static_cast<To>(x.v[l]);
          return r;
        }
      };

      /**
       * The lane of a cell that the calling GPU thread is (one of eight
       * consecutive threads of a warp; lane = vertex = Gauss point):
       * exchanges are warp shuffles within the eight.
       */
      struct DeviceLanes
      {
        template <typename T>
        using value = T;

        /** This thread's lane in its warp, 0..31 (the lanes of four cells). */
        int warp_lane = 0;

        /** This thread's lane in its cell, 0..7. */
        KOKKOS_INLINE_FUNCTION int
        lane() const
        {
          return warp_lane % 8;
        }

        template <typename T>
        KOKKOS_INLINE_FUNCTION T
        exchange(const T x, const int bit) const
        {
#if defined(__CUDA_ARCH__)
          return __shfl_xor_sync(0xffffffffu, x, 1 << bit, 8);
#else
          (void)bit;
          return x; // not reached: DeviceLanes runs in CUDA device code only
#endif
        }

        template <typename T, typename F>
        KOKKOS_INLINE_FUNCTION T
        per_lane(const F &f) const
        {
          return f(lane());
        }

        template <typename F>
        KOKKOS_INLINE_FUNCTION void
        for_each_lane(const F &f) const
        {
          f(lane());
        }

        template <typename T>
        KOKKOS_INLINE_FUNCTION static T &
        at(T &x, const int)
        {
          return x;
        }

        template <typename T>
        KOKKOS_INLINE_FUNCTION static const T &
        at(const T &x, const int)
        {
          return x;
        }

        template <typename To, typename From>
        KOKKOS_INLINE_FUNCTION static To
        convert(const From x)
        {
          return static_cast<To>(x);
        }
      };

      /**
       * Sum factorisation of the Q1 hexahedron across the eight lanes of a
       * cell. Lane bits 0, 1, 2 are the x, y, z bits of a vertex and of a
       * Gauss point (both lexicographic). In one direction, with g the lower
       * Gauss point and s the lane's own value, o its partner's (the lane
       * with that bit flipped), interpolation from the vertices to the
       * points is (1 - g) s + g o and the derivative sign (s - o), sign = +1
       * where the lane's bit is set and -1 elsewhere; both are symmetric up
       * to the sign, so their transposes are (1 - g) s + g o and
       * sign (s + o).
       *
       * The lanes compute in a scaled and signed form that needs neither the
       * sign nor the factor 1 - g: interpolation is s + k o with k = g / (1
       * - g), the derivative s - o. gradient() returns sign_d dN/dxi_d / (1 -
       * g)^2 and gradient_transpose() takes fluxes in the same form, so the
       * geometry carries the factors once: the Jacobian of the coordinates'
       * gradient() is J S / (1 - g)^2 with S = diag(sign), its inverse S (1 -
       * g)^2 J^-1, and the products of the two give the true displacement
       * gradient; the fluxes formed with that inverse are in the form that
       * gradient_transpose() takes. Its determinant is det J s_x s_y s_z / (1
       * - g)^6 (weight_factor()).
       */
      template <typename Lanes, typename T>
      struct LaneSumFactorization
      {
        using Value = typename Lanes::template value<T>;

        /** k = g / (1 - g) of the scaled interpolation. */
        static constexpr T ratio = T(gauss_lo / gauss_hi);

        Lanes lanes;

        KOKKOS_INLINE_FUNCTION explicit LaneSumFactorization(const Lanes &l)
          : lanes(l)
        {}

        /** s + k o in direction @p e (interpolation divided by 1 - g). */
        KOKKOS_INLINE_FUNCTION Value
        interpolate(const Value &s, const int e) const
        {
          return s + ratio * lanes.exchange(s, e);
        }

        /** s - o in direction @p e (the derivative times the lane's sign). */
        KOKKOS_INLINE_FUNCTION Value
        difference(const Value &s, const int e) const
        {
          return s - lanes.exchange(s, e);
        }

        /**
         * The factor s_x s_y s_z (1 - g)^6 w of the lane that turns the
         * determinant of the scaled, signed Jacobian into JxW.
         */
        KOKKOS_INLINE_FUNCTION Value
        weight_factor() const
        {
          // One rounding to T of the product formed in double.
          constexpr double g2 = gauss_hi * gauss_hi;
          const T          scale = T(gauss_weight * g2 * g2 * g2);
          return lanes.template per_lane<T>([&](const int lane) {
            const int parity = (lane ^ (lane >> 1) ^ (lane >> 2)) & 1;
            return parity ? scale : -scale;
          });
        }

        /**
         * The factor sign_d (1 - g)^2 of the lane that turns a true inverse
         * Jacobian's row d into the scaled, signed form.
         */
        KOKKOS_INLINE_FUNCTION Value
        inverse_factor(const int d) const
        {
          const T g2 = T(gauss_hi * gauss_hi);
          return lanes.template per_lane<T>([&](const int lane) { return (lane >> d) & 1 ? g2 : -g2; });
        }

        /**
         * The reference gradient g[d] at the lane's Gauss point of the
         * trilinear function with vertex values v (the lane's vertex), in
         * the scaled, signed form sign_d dv/dxi_d / (1 - g)^2: six
         * exchanges, one per value and stage, and one operation per
         * output of a stage.
         */
        KOKKOS_INLINE_FUNCTION void
        gradient(const Value &v, Value g[3]) const
        {
          const Value v_o = lanes.exchange(v, 0);
          const Value dx = v - v_o, ix = v + ratio * v_o;
          const Value ix_o  = lanes.exchange(ix, 1);
          const Value dx_iy = interpolate(dx, 1);
          const Value ix_dy = ix - ix_o;
          const Value ix_iy = ix + ratio * ix_o;
          g[0]              = interpolate(dx_iy, 2);
          g[1]              = interpolate(ix_dy, 2);
          g[2]              = difference(ix_iy, 2);
        }

        /**
         * The transpose of the derivative of p plus the interpolation of r
         * in direction @p e with one exchange, p in the signed form: p - p_o
         * + r + k r_o, where the partner sends its share k r_o - p_o.
         */
        KOKKOS_INLINE_FUNCTION Value
        difference_plus_interpolate(const Value &p, const Value &r, const int e) const
        {
          return (p + r) + lanes.exchange(ratio * r - p, e);
        }

        /**
         * The transpose of gradient(): the value at the lane's vertex of
         * sum_q sum_d dN/dxi_d(q) t_q[d] over the lanes' Gauss points q,
         * for fluxes @p t in the scaled, signed form sign_d (1 - g)^2 t_q[d].
         * Six exchanges: three in z, then two in y and one in x, where the
         * two terms of a sum share one (difference_plus_interpolate()).
         */
        KOKKOS_INLINE_FUNCTION Value
        gradient_transpose(const Value t[3]) const
        {
          const Value a = interpolate(t[0], 2), b = interpolate(t[1], 2), c = difference(t[2], 2);
          const Value p = interpolate(a, 1);
          const Value r = difference_plus_interpolate(b, c, 1);
          return difference_plus_interpolate(p, r, 0);
        }

        /** The sum of a value over the eight lanes, on every lane. */
        KOKKOS_INLINE_FUNCTION Value
        sum(Value s) const
        {
          PLASTIX_UNROLL
          for (int e = 0; e < 3; ++e)
            s += lanes.exchange(s, e);
          return s;
        }
      };

      /**
       * One cell of a quadrature cell operator (QuadratureCellOperator's
       * geometry, law and formulation) on eight lanes: lane l gathers vertex
       * l's values (and coordinates), evaluates Gauss point l and returns
       * vertex l's three results in @p f. @p u holds the lane's gathered
       * vertex values.
       */
      template <typename Lanes, typename Geometry, typename Law, bool mean_dilatation>
      KOKKOS_INLINE_FUNCTION void
      lane_cell_apply(const Lanes                                                         &lanes,
                      const Geometry                                                      &geometry,
                      const Law                                                           &law,
                      const Index64                                                        cell,
                      const typename Lanes::template value<LocalIndex>                    &node,
                      const typename Lanes::template value<typename Geometry::value_type>  u[3],
                      typename Lanes::template value<typename Geometry::value_type>        f[3])
      {
        static_assert(!(mean_dilatation && is_finite_strain_law<Law>::value), "the lanes do not evaluate F-bar");
        using Number = typename Geometry::value_type;
        using Value  = typename Lanes::template value<Number>;
        const LaneSumFactorization<Lanes, Number> sf(lanes);

        // Inverse Jacobian and JxW at the lane's point.
        Value inv[3][3], JxW;
        if constexpr (Geometry::needs_coordinates)
          {
            // Coordinates in double: the differences are taken before
            // rounding to Number, as OnTheFlyGeometry does.
            const LaneSumFactorization<Lanes, double> sfx(lanes);
            Value                                     J[3][3];
            PLASTIX_UNROLL
            for (int i = 0; i < 3; ++i)
              {
                const auto x = lanes.template per_lane<double>(
                  [&](const int l) { return geometry.coordinates[3 * static_cast<Index64>(Lanes::at(node, l)) + i]; });
                typename Lanes::template value<double> g[3];
                sfx.gradient(x, g);
                PLASTIX_UNROLL
                for (int d = 0; d < 3; ++d)
                  J[i][d] = Lanes::template convert<Number>(g[d]);
              }
            // J and inv are in the scaled, signed form of LaneSumFactorization.
            JxW = invert_jacobian(J, inv) * sf.weight_factor();
          }
        else
          {
            lanes.for_each_lane([&](const int l) {
              Number inv_l[3][3];
              Lanes::at(JxW, l) = geometry.at_point(cell, nullptr, l, inv_l);
              for (int d = 0; d < 3; ++d)
                for (int i = 0; i < 3; ++i)
                  Lanes::at(inv[d][i], l) = inv_l[d][i];
            });
            PLASTIX_UNROLL
            for (int d = 0; d < 3; ++d)
              {
                const Value factor = sf.inverse_factor(d);
                PLASTIX_UNROLL
                for (int i = 0; i < 3; ++i)
                  inv[d][i] *= factor;
              }
          }

        // Displacement gradient G[c][i] and strain at the point.
        Value G[3][3];
        PLASTIX_UNROLL
        for (int c = 0; c < 3; ++c)
          {
            Value g[3];
            sf.gradient(u[c], g);
            PLASTIX_UNROLL
            for (int i = 0; i < 3; ++i)
              G[c][i] = g[0] * inv[0][i] + g[1] * inv[1][i] + g[2] * inv[2][i];
          }
        // The stress tensor at the point: the first Piola-Kirchhoff stress of a
        // finite-strain law, else the stress of the symmetric strain.
        Value S[3][3];
        if constexpr (is_finite_strain_law<Law>::value)
          lanes.for_each_lane([&](const int l) {
            Number G_l[3][3], P_l[3][3];
            for (int c = 0; c < 3; ++c)
              for (int i = 0; i < 3; ++i)
                G_l[c][i] = Lanes::at(G[c][i], l);
            law.first_piola(cell, l, G_l, P_l);
            for (int c = 0; c < 3; ++c)
              for (int i = 0; i < 3; ++i)
                Lanes::at(S[c][i], l) = P_l[c][i];
          });
        else
          {
            Value eps[6], sig[6];
            symmetric_part(G, eps);
            Value volume = Number(0);
            if constexpr (mean_dilatation)
              {
                volume = sf.sum(JxW);
                replace_dilatation(eps, sf.sum(JxW * (eps[0] + eps[1] + eps[2])) / volume);
              }
            lanes.for_each_lane([&](const int l) {
              Number eps_l[6], sig_l[6];
              for (int k = 0; k < 6; ++k)
                eps_l[k] = Lanes::at(eps[k], l);
              law.stress(cell, l, eps_l, sig_l);
              for (int k = 0; k < 6; ++k)
                Lanes::at(sig[k], l) = sig_l[k];
            });
            if constexpr (mean_dilatation)
              {
                // Deviatoric stress of the point plus the cell average of the mean stress.
                const Value p_bar = sf.sum(JxW * remove_mean_stress(sig)) / volume;
                sig[0] += p_bar;
                sig[1] += p_bar;
                sig[2] += p_bar;
              }
            symmetric_tensor(sig, S);
          }

        // Fluxes t[d] = JxW sum_i inv[d][i] S[c][i], integrated against the shape gradients.
        PLASTIX_UNROLL
        for (int c = 0; c < 3; ++c)
          {
            Value t[3];
            PLASTIX_UNROLL
            for (int d = 0; d < 3; ++d)
              t[d] = JxW * (inv[d][0] * S[c][0] + inv[d][1] * S[c][1] + inv[d][2] * S[c][2]);
            f[c] = sf.gradient_transpose(t);
          }
      }

      /**
       * Lane mask @p k (0..3) of combine_shared_nodes(): the lane l ^ m of lane l is the
       * same vertex of the neighbouring cell across an x face (9: cells 2k,
       * 2k + 1 of the warp's four; 25: cells 1 and 2) or a y face (18: cells
       * 0 and 2, 1 and 3), for cells in Morton order (deal.II's children of
       * a cell) and in lexicographic order.
       */
      KOKKOS_INLINE_FUNCTION constexpr int
      shared_node_lane_mask(const int k)
      {
        return k == 0 ? 9 : k == 1 ? 18 : k == 2 ? 25 : 10;
      }

      /**
       * Combine the results of the warp's lanes that hold the same node
       * before they are added to global memory: where lane l and its
       * partner l ^ m (for each of shared_node_lane_mask(0..3)) hold the same
       * node, the lower lane takes the sum and the other lane drops out
       * (its @p node becomes a negative key of its own, -1 - warp_lane -
       * @p key_offset, as that of a lane that stores nothing from the start). Only a saving: any cell order
       * gives the same sums. GPUs only; every lane of the warp calls it.
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      combine_shared_nodes(const int warp_lane, const int key_offset, LocalIndex &node, Number f[3])
      {
#if defined(__CUDA_ARCH__)
        PLASTIX_UNROLL
        for (int k = 0; k < 4; ++k)
          {
            const int        m     = shared_node_lane_mask(k);
            const LocalIndex other = __shfl_xor_sync(0xffffffffu, node, m);
            // The results move only where some lane of the warp shares its
            // node with its partner: two of the four masks serve Morton
            // order, the other two lexicographic order.
            if (!__any_sync(0xffffffffu, other == node))
              continue;
            Number o[3];
            PLASTIX_UNROLL
            for (int c = 0; c < 3; ++c)
              o[c] = __shfl_xor_sync(0xffffffffu, f[c], m);
            if (other == node)
              {
                if (warp_lane < (warp_lane ^ m))
                  for (int c = 0; c < 3; ++c)
                    f[c] += o[c];
                else
                  node = -1 - warp_lane - key_offset;
              }
          }
#else
        (void)warp_lane;
        (void)key_offset;
        (void)node;
        (void)f;
#endif
      }

      /**
       * Combine the two rounds of a warp (LaneElementByElementApply with
       * atomics: round 1 evaluates the cells four items after those of
       * round 0, in Morton order the upper half of a 2x2x2 block): where a
       * lane's node of round 1 is its partner's (lane ^ 4: the same vertex
       * across a z face) or its own node of round 0, the round-0 lane takes
       * the sum and the round-1 key drops out. Keys of lanes that store
       * nothing are negative and distinct.
       */
      template <typename Number>
      KOKKOS_INLINE_FUNCTION void
      combine_rounds(const int warp_lane, LocalIndex key[2], Number f[2][3])
      {
#if defined(__CUDA_ARCH__)
        if (key[1] == key[0])
          {
            for (int c = 0; c < 3; ++c)
              f[0][c] += f[1][c];
            key[1] = -33 - warp_lane;
          }
        const LocalIndex other_key1 = __shfl_xor_sync(0xffffffffu, key[1], 4);
        Number           other_f1[3];
        PLASTIX_UNROLL
        for (int c = 0; c < 3; ++c)
          other_f1[c] = __shfl_xor_sync(0xffffffffu, f[1][c], 4);
        const LocalIndex other_key0 = __shfl_xor_sync(0xffffffffu, key[0], 4);
        if (other_key1 == key[0])
          for (int c = 0; c < 3; ++c)
            f[0][c] += other_f1[c];
        if (key[1] == other_key0)
          key[1] = -33 - warp_lane;
#else
        (void)warp_lane;
        (void)key;
        (void)f;
#endif
      }

      /**
       * Whether @p CellOperator is a QuadratureCellOperator that the lanes
       * evaluate: all but the F-bar element, whose cell part needs a pass
       * over the cell's points before and after the point phase (the
       * thread-per-cell kernel runs it under ThreadMapping::shuffle).
       */
      template <typename CellOperator>
      struct is_quadrature_operator : std::false_type
      {};

      template <typename Geometry, typename Law, bool mean_dilatation>
      struct is_quadrature_operator<QuadratureCellOperator<Geometry, Law, mean_dilatation>>
        : std::bool_constant<!QuadratureCellOperator<Geometry, Law, mean_dilatation>::f_bar>
      {};

      /** Cells per team of LaneElementByElementApply on GPUs (eight threads each: four warps). */
      constexpr int lane_cells_per_team = 16;

      /**
       * Element by element with eight lanes per cell (ThreadMapping::shuffle):
       * on GPUs eight consecutive threads of a warp per cell, exchanging
       * through register shuffles, no scratch memory; on CPUs one thread
       * per cell holding all eight lanes (HostLanes). Quadrature cell
       * operators only.
       */
      template <typename CellOperator, bool masked, bool atomic>
      struct LaneElementByElementApply;

      template <typename Geometry, typename Law, bool mean_dilatation, bool masked, bool atomic>
      struct LaneElementByElementApply<QuadratureCellOperator<Geometry, Law, mean_dilatation>, masked, atomic>
      {
        using CellOperator = QuadratureCellOperator<Geometry, Law, mean_dilatation>;
        using Number       = typename CellOperator::value_type;
        using TeamMember   = typename TeamPolicy::member_type;

        CellOperator              cell_operator;
        Strided<const LocalIndex> cell_nodes;
        const std::uint32_t      *masks     = nullptr;
        const LocalIndex         *cell_list = nullptr;
        Index64                   begin = 0, end = 0;
        const Number             *src = nullptr;
        Number                   *dst = nullptr;

        /**
         * Items per team: on GPUs 128 threads, the eight lanes of four cells
         * per warp; with atomics each warp evaluates eight items (two
         * rounds of four), so that the two halves of a 2x2x2 block of
         * cells in Morton order meet in one warp (combine_rounds()).
         */
        static constexpr int items_per_team = atomic ? 2 * lane_cells_per_team : lane_cells_per_team;

        /** Gather and evaluate item @p i on @p lanes: the lanes' nodes, constraint mask and results. */
        template <typename Lanes>
        KOKKOS_INLINE_FUNCTION void
        evaluate(const Lanes                                &lanes,
                 const Index64                               i,
                 typename Lanes::template value<LocalIndex> &node,
                 std::uint32_t                              &mask,
                 typename Lanes::template value<Number>      f[3]) const
        {
          using Value       = typename Lanes::template value<Number>;
          const Index64 cell = cell_list != nullptr ? cell_list[i] : i;
          mask               = masked ? masks[cell] : 0u;
          node = lanes.template per_lane<LocalIndex>([&](const int l) { return cell_nodes(cell, l); });
          Value u[3];
          PLASTIX_UNROLL
          for (int c = 0; c < 3; ++c)
            u[c] = lanes.template per_lane<Number>([&](const int l) {
              return masked && ((mask >> (3 * l + c)) & 1u) ? Number(0) :
                                                              src[3 * static_cast<Index64>(Lanes::at(node, l)) + c];
            });
          lane_cell_apply<Lanes, Geometry, Law, mean_dilatation>(lanes, cell_operator.geometry, cell_operator.law,
                                                                 cell, node, u, f);
        }

        /** Add (atomically or plainly) the lanes' results to their nodes' unconstrained DoFs. */
        template <typename Lanes>
        KOKKOS_INLINE_FUNCTION void
        store(const Lanes                                      &lanes,
              const typename Lanes::template value<LocalIndex> &node,
              const std::uint32_t                               mask,
              const typename Lanes::template value<Number>      f[3]) const
        {
          lanes.for_each_lane([&](const int l) {
            const Index64 n = Lanes::at(node, l);
            PLASTIX_UNROLL
            for (int c = 0; c < 3; ++c)
              {
                if (masked && ((mask >> (3 * l + c)) & 1u))
                  continue;
                Number &target = dst[3 * n + c];
                if (atomic)
                  Kokkos::atomic_add(&target, Lanes::at(f[c], l));
                else
                  target += Lanes::at(f[c], l);
              }
          });
        }

        KOKKOS_INLINE_FUNCTION void
        operator()(const TeamMember &team) const
        {
#if defined(__CUDA_ARCH__)
          // Every thread of a warp takes part in the shuffles: the threads
          // past the end evaluate the first item again and store nothing.
          const Index64 t = static_cast<Index64>(team.league_rank()) * team.team_size() + team.team_rank();
          const DeviceLanes lanes{static_cast<int>(t % 32)};
          const int         slot = lanes.warp_lane / 8;
          if constexpr (atomic)
            {
              // Round r evaluates item 8 w + 4 r + slot of warp w.
              const Index64 first = begin + (t / 32) * 8;
              LocalIndex    key[2];
              std::uint32_t mask[2];
              Number        f[2][3];
              PLASTIX_UNROLL
              for (int r = 0; r < 2; ++r)
                {
                  const Index64 item   = first + 4 * r + slot;
                  const bool    active = item < end;
                  evaluate(lanes, active ? item : begin, key[r], mask[r], f[r]);
                  if (!active)
                    key[r] = -1 - lanes.warp_lane - 32 * r;
                  combine_shared_nodes(lanes.warp_lane, 32 * r, key[r], f[r]);
                }
              combine_rounds(lanes.warp_lane, key, f);
              PLASTIX_UNROLL
              for (int r = 0; r < 2; ++r)
                if (key[r] >= 0)
                  store(lanes, key[r], mask[r], f[r]);
            }
          else
            {
              const Index64 item   = begin + t / 8;
              const bool    active = item < end;
              LocalIndex    node;
              std::uint32_t mask;
              Number        f[3];
              evaluate(lanes, active ? item : begin, node, mask, f);
              if (active)
                store(lanes, node, mask, f);
            }
#else
          const Index64 first = begin + static_cast<Index64>(team.league_rank()) * items_per_team;
          for (Index64 i = first; i < first + items_per_team && i < end; ++i)
            {
              const HostLanes                  lanes{};
              LaneArray<LocalIndex>            node;
              std::uint32_t                    mask;
              LaneArray<Number>                f[3];
              evaluate(lanes, i, node, mask, f);
              store(lanes, node, mask, f);
            }
#endif
        }
      };

      /** Launch LaneElementByElementApply over items [begin, end) of the cell range or list. */
      template <typename Functor>
      void
      launch_lanes(const char *label, Functor functor, const Index64 begin, const Index64 end)
      {
        static_assert(launches_light_weight<Functor>, "a lane kernel's functor must fit a kernel argument");
        if (end <= begin)
          return;
        functor.begin         = begin;
        functor.end           = end;
        const Index64 n_teams = (end - begin + Functor::items_per_team - 1) / Functor::items_per_team;
        Kokkos::parallel_for(label,
                             TeamPolicy(static_cast<int>(n_teams), on_device ? 128 : 1),
                             functor);
      }
    } // namespace internal
  }   // namespace backend
} // namespace plastix

#endif
