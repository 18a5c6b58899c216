"""``torch._dirichlet_grad``: the reparameterised gradient of a Dirichlet draw with respect to its
concentration, through the beta marginal ``x ~ Beta(alpha, total - alpha)``:
``-(d cdf / d alpha) / pdf / (1 - x)``. PyTorch's four regimes: Taylor series near x = 0 and
x = 1, Rice's saddle-point expansion when both parameters are large, and a fitted rational
correction of an analytic approximation otherwise (evaluated here in double precision)."""
from __future__ import annotations

import numpy as np

__all__ = ["dirichlet_grad"]


def _digamma(x: np.ndarray) -> np.ndarray:
    """Cephes' digamma for positive x (recurrence up to 10, then the asymptotic series)."""
    x = x.astype(np.float64).copy()
    result = np.zeros_like(x)
    small = x < 10
    while small.any():
        result[small] -= 1 / x[small]
        x[small] += 1
        small = x < 10
    z = 1.0 / (x * x)
    coef = [8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
            -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
            8.33333333333333333333E-2]
    poly = np.zeros_like(z)
    for c in coef:
        poly = poly * z + c
    y = np.where(x < 1.0e17, z * poly, 0.0)
    psi10 = 2.25175258906672110764
    return np.where(x == 10, result + psi10, result + np.log(x) - 0.5 / x - y)


def _alpha_small(x, alpha, beta):
    factor = _digamma(alpha) - _digamma(alpha + beta) - np.log(x)
    numer = np.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * (i - beta) * x / i
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    result = x * np.power(1 - x, -beta) * series
    return np.where(np.isnan(result), 0.0, result)


def _beta_small(x, alpha, beta):
    factor = _digamma(alpha + beta) - _digamma(beta)
    numer, betas, dbetas = np.ones_like(x), np.ones_like(x), np.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    result = -np.power(1 - x, 1 - beta) * series
    return np.where(np.isnan(result), 0.0, result)


def _alpha_mid(x, alpha, beta):
    total = alpha + beta
    mean = alpha / total
    std = np.sqrt(alpha * beta / (total + 1)) / total
    # near the mean: a polynomial that avoids the singularity at x = mean
    b2 = beta * beta
    poly = 47 * x * b2 * b2 + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * b2 * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * b2 + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (8 * (1 - x) * (135 * beta - 11)))))
    prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    near = prefactor_num / (1 - x) * poly / prefactor_den
    # elsewhere
    prefactor = -x / np.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * b2
    axbx = alpha * (x - 1) + beta * x
    term1 = term1_num / (np.sqrt(2 * alpha / beta) * np.power(total, 1.5) * axbx * axbx)
    term2 = 0.5 * np.log(alpha / (total * x))
    term3 = np.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = np.power(beta * np.log(beta / (total * (1 - x))) + alpha * np.log(alpha / (total * x)), -1.5)
    far = stirling * prefactor * (term1 + term2 * (term3 + np.where(x < mean, term4, -term4)))
    return np.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)


# p (index 0) and q (index 1) coefficients in (log x)^i (log(alpha / x))^j, cubic in b (PyTorch's fit)
_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]])


def _rational(x, alpha, total):
    beta = total - alpha
    u = np.log(x)
    a = np.log(alpha) - u
    b = np.log(total) - a
    pq = []
    for c in _C:
        acc = np.zeros_like(x)
        for i, pu in enumerate((1.0, u, u * u)):
            for j, pa in enumerate((1.0, a, a * a)):
                k = c[i, j]
                acc = acc + pu * pa * (k[0] + b * (k[1] + b * (k[2] + b * k[3])))
        pq.append(acc)
    approx = x * (_digamma(total) - _digamma(alpha)) / beta
    return pq[0] / pq[1] * approx


def dirichlet_grad(x: np.ndarray, alpha: np.ndarray, total: np.ndarray) -> np.ndarray:
    out_dtype = x.dtype
    x, alpha, total = (np.asarray(v, np.float64) for v in np.broadcast_arrays(x, alpha, total))
    beta = total - alpha
    boundary = total * x * (1 - x)
    with np.errstate(all="ignore"):
        regimes = [
            (x <= 0.5) & (boundary < 2.5), (x >= 0.5) & (boundary < 0.75), (alpha > 6) & (beta > 6)]
        values = [lambda: _alpha_small(x, alpha, beta), lambda: -_beta_small(1 - x, beta, alpha),
                  lambda: _alpha_mid(x, alpha, beta)]
        out = _rational(x, alpha, total)
        taken = np.zeros(x.shape, bool)
        for mask, value in zip(regimes, values):
            use = mask & ~taken
            if use.any():
                out = np.where(use, value(), out)
            taken |= mask
    return out.astype(out_dtype)
