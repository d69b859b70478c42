// 3x3 tensors as row-major arrays (entry 3 i + j is the component ij) for
// the finite-strain backend tests, written independently of plastix.
#ifndef PLASTIX_TESTS_BACKEND_TENSORS3_H
#define PLASTIX_TESTS_BACKEND_TENSORS3_H

#include <array>
#include <cmath>
#include <cstddef>

namespace plastix_test
{
  using M3 = std::array<double, 9>;

  inline M3
  product(const M3 &A, const M3 &B)
  {
    M3 C{};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k)
          C[3 * i + j] += A[3 * i + k] * B[3 * k + j];
    return C;
  }

  inline M3
  transpose(const M3 &A)
  {
    M3 T;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        T[3 * i + j] = A[3 * j + i];
    return T;
  }

  /** The Euclidean inner product of two tensors or cell vectors. */
  template <std::size_t n>
  double
  dot(const std::array<double, n> &a, const std::array<double, n> &b)
  {
    double s = 0;
    for (std::size_t k = 0; k < n; ++k)
      s += a[k] * b[k];
    return s;
  }

  template <std::size_t n>
  double
  norm(const std::array<double, n> &a)
  {
    return std::sqrt(dot(a, a));
  }

  /** |A - B| (Frobenius). */
  inline double
  difference(const M3 &A, const M3 &B)
  {
    M3 D;
    for (int k = 0; k < 9; ++k)
      D[k] = A[k] - B[k];
    return norm(D);
  }

  /** The rotation by @p angle about the unit axis @p n (Rodrigues). */
  inline M3
  rotation(const double angle, const std::array<double, 3> &n)
  {
    const double c = std::cos(angle), s = std::sin(angle);
    return {c + n[0] * n[0] * (1 - c),        n[0] * n[1] * (1 - c) - n[2] * s, n[0] * n[2] * (1 - c) + n[1] * s,
            n[1] * n[0] * (1 - c) + n[2] * s, c + n[1] * n[1] * (1 - c),        n[1] * n[2] * (1 - c) - n[0] * s,
            n[2] * n[0] * (1 - c) - n[1] * s, n[2] * n[1] * (1 - c) + n[0] * s, c + n[2] * n[2] * (1 - c)};
  }
} // namespace plastix_test

#endif
