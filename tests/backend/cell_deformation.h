// The deformation gradients at the Gauss points of a cell of a MeshData,
// computed on the host from the vertex coordinates and displacements (an
// independent reference for the device's), for the finite-strain backend
// tests.
#ifndef PLASTIX_TESTS_BACKEND_CELL_DEFORMATION_H
#define PLASTIX_TESTS_BACKEND_CELL_DEFORMATION_H

#include <plastix/backend/mesh_data.h>

#include <array>
#include <cmath>
#include <vector>

namespace plastix_test
{
  /**
   * The deformation gradients I + Grad u at the 2 x 2 x 2 Gauss points of
   * cell @p c (trilinear map; point q = 4 k + 2 j + i at the Gauss
   * coordinates of deal.II's QGauss(2) order), computed here; the
   * determinants of the reference map at the points into @p jacobians if
   * given (the weights JxW up to the common factor 1/8).
   */
  inline std::vector<std::array<double, 9>>
  cell_deformation_gradients(const plastix::backend::MeshData  &mesh,
                             const plastix::backend::LocalIndex c,
                             const std::vector<double>         &u,
                             std::vector<double>               *jacobians = nullptr)
  {
    const double g[2] = {0.5 - 0.5 / std::sqrt(3.), 0.5 + 0.5 / std::sqrt(3.)};
    std::vector<std::array<double, 9>> result;
    for (int q = 0; q < 8; ++q)
      {
        const double xi[3] = {g[q % 2], g[(q / 2) % 2], g[q / 4]};
        double       dX[3][3] = {}, du[3][3] = {};
        for (int a = 0; a < 8; ++a)
          {
            const int    ia[3] = {a % 2, (a / 2) % 2, a / 4};
            double       dN[3];
            for (int d = 0; d < 3; ++d)
              {
                dN[d] = 1;
                for (int e = 0; e < 3; ++e)
                  dN[d] *= e == d ? (ia[e] ? 1. : -1.) : (ia[e] ? xi[e] : 1 - xi[e]);
              }
            const plastix::backend::LocalIndex node = mesh.cell_nodes[8 * c + a];
            for (int i = 0; i < 3; ++i)
              for (int d = 0; d < 3; ++d)
                {
                  dX[i][d] += mesh.node_coordinates[3 * node + i] * dN[d];
                  du[i][d] += u[3 * node + i] * dN[d];
                }
          }
        // Grad u = du/dxi (dX/dxi)^-1.
        double inv[3][3];
        const double det = dX[0][0] * (dX[1][1] * dX[2][2] - dX[1][2] * dX[2][1]) -
                           dX[0][1] * (dX[1][0] * dX[2][2] - dX[1][2] * dX[2][0]) +
                           dX[0][2] * (dX[1][0] * dX[2][1] - dX[1][1] * dX[2][0]);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            {
              const int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
              inv[i][j]    = (dX[i1][j1] * dX[i2][j2] - dX[i1][j2] * dX[i2][j1]) / det;
            }
        if (jacobians != nullptr)
          jacobians->push_back(det);
        std::array<double, 9> F;
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            {
              double s = i == j ? 1. : 0.;
              for (int d = 0; d < 3; ++d)
                s += du[i][d] * inv[d][j];
              F[3 * i + j] = s;
            }
        result.push_back(F);
      }
    return result;
  }
} // namespace plastix_test

#endif
