// Symmetric tensors in the backend's 6-entry storage (xx, yy, zz, yz, xz,
// xy; tensor components), written independently of plastix for the
// return-map tests.
#ifndef PLASTIX_TESTS_BACKEND_SYMMETRIC_TENSORS_H
#define PLASTIX_TESTS_BACKEND_SYMMETRIC_TENSORS_H

#include <plastix/backend/material_constants.h>

#include <array>
#include <cmath>

namespace plastix_test
{
  using V6 = std::array<double, 6>;

  /** Full tensor contraction a:b. */
  inline double
  ddot(const V6 &a, const V6 &b)
  {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + 2 * (a[3] * b[3] + a[4] * b[4] + a[5] * b[5]);
  }

  /** Frobenius norm sqrt(a:a). */
  inline double
  norm(const V6 &a)
  {
    return std::sqrt(ddot(a, a));
  }

  /** sigma = lambda tr(e) I + 2 mu e. */
  inline V6
  elastic_stress(const plastix::backend::MaterialConstants &m, const V6 &e)
  {
    V6           s;
    const double tr = e[0] + e[1] + e[2];
    for (int k = 0; k < 6; ++k)
      s[k] = 2 * m.mu * e[k] + (k < 3 ? m.lambda * tr : 0.);
    return s;
  }
} // namespace plastix_test

#endif
