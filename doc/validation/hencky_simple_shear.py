#!/usr/bin/env python3
"""Simple shear F = I + gamma e_x (x) e_y of J2 elastoplasticity in the
Lagrangian logarithmic strain space (Miehe, Apel and Lambrecht, CMAME 191,
2002), integrated independently of plastix: the Hencky strain E = 1/2 ln C by
inverse scaling and squaring (Denman-Beavers square roots, then the series
of ln(I + X)) instead of an eigensystem, the stress S = T : 2 dE/dC by
complex-step differentiation of T : E(C) instead of divided differences, and
the J2 radial return with linear isotropic and kinematic hardening in E.

Prints the first Piola-Kirchhoff stress P = F S (row-major) at gamma = 0.5,
1, 1.5 and 2 of a path of 40 equal steps from a virgin point, each step's
return committed; tests/backend/logarithmic_strain_return.cc compares
plastix's device code with these numbers. Pure Python (no NumPy).

    python3 doc/validation/hencky_simple_shear.py
"""
import math

E_MODULUS, NU = 200e3, 0.3           # MPa
SIGMA_Y, H_ISO, H_KIN = 250., 1000., 5000.
MU = E_MODULUS / (2 * (1 + NU))
LAMBDA = E_MODULUS * NU / ((1 + NU) * (1 - 2 * NU))
KAPPA = LAMBDA + 2 * MU / 3
STEPS, GAMMA_END = 40, 2.0


def mat_mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def mat_add(a, b, s=1.0):
    return [[a[i][j] + s * b[i][j] for j in range(3)] for i in range(3)]


def mat_scale(a, s):
    return [[s * a[i][j] for j in range(3)] for i in range(3)]


def transpose(a):
    return [[a[j][i] for j in range(3)] for i in range(3)]


def identity():
    return [[1.0 if i == j else 0.0 for j in range(3)] for i in range(3)]


def inverse(a):
    """Inverse by the adjugate (complex entries allowed)."""
    det = (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    cof = [[(a[(i + 1) % 3][(j + 1) % 3] * a[(i + 2) % 3][(j + 2) % 3] -
             a[(i + 1) % 3][(j + 2) % 3] * a[(i + 2) % 3][(j + 1) % 3]) for j in range(3)] for i in range(3)]
    return [[cof[j][i] / det for j in range(3)] for i in range(3)]


def norm(a):
    return math.sqrt(sum(abs(a[i][j]) ** 2 for i in range(3) for j in range(3)))


def log_spd(c):
    """ln C: square roots (Denman-Beavers) until C is near I, then the series of ln(I + X)."""
    a, k = c, 0
    while norm(mat_add(a, identity(), -1.0)) > 0.1:
        y, z = a, identity()
        for _ in range(60):
            y, z = mat_scale(mat_add(y, inverse(z)), 0.5), mat_scale(mat_add(z, inverse(y)), 0.5)
        a, k = y, k + 1
    x = mat_add(a, identity(), -1.0)
    result, power = [[0.0] * 3 for _ in range(3)], identity()
    for m in range(1, 40):
        power = mat_mul(power, x)
        result = mat_add(result, power, (-1.0) ** (m + 1) / m)
    return mat_scale(result, 2.0 ** k)


def hencky_strain(c):
    return mat_scale(log_spd(c), 0.5)


def deviator(a):
    tr = (a[0][0] + a[1][1] + a[2][2]) / 3
    return mat_add(a, identity(), -tr)


def ddot(a, b):
    return sum(a[i][j] * b[i][j] for i in range(3) for j in range(3))


def j2_return(strain, plastic_n, alpha_n, back_n):
    """Radial return of J2 with linear isotropic (H_ISO) and kinematic (H_KIN) hardening at the strain."""
    trial = mat_scale(mat_add(deviator(strain), plastic_n, -1.0), 2 * MU)
    eta = mat_add(trial, back_n, -1.0)
    eta_norm = math.sqrt(ddot(eta, eta))
    q_trial = math.sqrt(1.5) * eta_norm
    f = q_trial - (SIGMA_Y + H_ISO * alpha_n)
    pressure = KAPPA * (strain[0][0] + strain[1][1] + strain[2][2])
    if f <= 0:
        return mat_add(trial, identity(), pressure), plastic_n, alpha_n, back_n
    dgamma = f / (3 * MU + H_ISO + H_KIN)
    n = mat_scale(eta, 1 / eta_norm)
    plastic = mat_add(plastic_n, n, math.sqrt(1.5) * dgamma)
    back = mat_add(back_n, n, math.sqrt(2 / 3) * H_KIN * dgamma)
    stress = mat_add(trial, n, -2 * MU * math.sqrt(1.5) * dgamma)
    return mat_add(stress, identity(), pressure), plastic, alpha_n + dgamma, back


def second_piola(c, t):
    """S = 2 d(T : E(C))/dC with T fixed, by complex steps on the symmetric pairs of C."""
    h = 1e-30
    s = [[0.0] * 3 for _ in range(3)]
    for i in range(3):
        for j in range(i, 3):
            perturbed = [[complex(c[p][q]) for q in range(3)] for p in range(3)]
            perturbed[i][j] += 1j * h
            if i != j:
                perturbed[j][i] += 1j * h
            value = ddot(t, hencky_strain(perturbed)).imag / h
            # d/dC_ij of a symmetric pair perturbs both entries: split it.
            s[i][j] = s[j][i] = 2 * value if i == j else value
    return s


def main():
    plastic, alpha, back = [[0.0] * 3 for _ in range(3)], 0.0, [[0.0] * 3 for _ in range(3)]
    report = {10, 20, 30, 40}
    for step in range(1, STEPS + 1):
        gamma = GAMMA_END * step / STEPS
        f = identity()
        f[0][1] = gamma
        c = mat_mul(transpose(f), f)
        t, plastic, alpha, back = j2_return(hencky_strain(c), plastic, alpha, back)
        if step in report:
            p = mat_mul(f, second_piola(c, t))
            print("gamma %.2f alpha %.15e P %s" % (gamma, alpha, " ".join("%.15e" % p[i][j] for i in range(3)
                                                                       for j in range(3))))


if __name__ == "__main__":
    main()
