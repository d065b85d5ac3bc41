"""The gamma family and what is built on it: Gamma, Beta, Dirichlet, StudentT, FisherSnedecor,
Pareto, Weibull, InverseGamma, Kumaraswamy.

Gamma draws use Marsaglia & Tsang's method, as PyTorch does; their pathwise gradient with
respect to the concentration is PyTorch's (``torch._standard_gamma_grad``, implicit
reparameterisation), so ``rsample`` of every gamma-based family differentiates as in PyTorch.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np

from ._common import EULER, clamp, clamp_tiny_keep_grad, digamma, finfo, floats, lgamma, xlogy

_RATIONAL = np.array([  # PyTorch's bivariate rational fit of the reparameterised gradient
    [0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089,
     0.0014179084],
    [0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113,
     -0.0035938915, -0.00058392623],
    [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326,
     0.00085092367, -1.5247877e-07],
])


def _gamma_grad_small_x(alpha, x):
    """Taylor series of the gamma cdf in x (PyTorch's branch for x < 0.8)."""
    numer, denom = jnp.ones_like(x), alpha
    s1, s2 = numer / denom, numer / (denom * denom)
    for i in range(1, 6):
        numer = numer * (-x / i)
        denom = denom + 1
        s1, s2 = s1 + numer / denom, s2 + numer / (denom * denom)
    pow_xa = x**alpha
    pdf = x ** (alpha - 1) * jnp.exp(-x)
    cdf_alpha = (jnp.log(x) - digamma(alpha)) * pow_xa * s1 - pow_xa * s2
    result = -cdf_alpha / pdf
    return jnp.where(jnp.isnan(result), 0.0, result)


def _gamma_grad_large_alpha(alpha, x):
    """Rice's saddle-point expansion (PyTorch's branch for alpha > 8)."""
    numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
    numer_2 = (1440 * alpha**2 + 6 * x * (53 - 120 * x) - 65 * x * x / alpha
               + alpha * (107 + 3600 * x))
    near = numer_1 * numer_2 / (1244160 * alpha**4)
    den = jnp.sqrt(8 * alpha)
    term2 = den / (alpha - x)
    term3 = (x - alpha - alpha * jnp.log(x / alpha)) ** -1.5
    term23 = jnp.where(x < alpha, term2 - term3, term2 + term3)
    term1 = jnp.log(x / alpha) * term23 - jnp.sqrt(2 / alpha) * (alpha + x) / (alpha - x) ** 2
    stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
    far = -stirling * x * term1 / den
    return jnp.where((0.9 * alpha <= x) & (x <= 1.1 * alpha), near, far)


def standard_gamma_grad(alpha, x):
    """d x / d alpha of a Gamma(alpha, 1) draw x at fixed cdf: ``torch._standard_gamma_grad``."""
    u, v = jnp.log(x / alpha), jnp.log(alpha)
    c = [_RATIONAL[0, i] + u * (_RATIONAL[1, i] + u * _RATIONAL[2, i]) for i in range(8)]
    p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
    q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
    mid = jnp.exp(p / q)
    return jnp.where(x < 0.8, _gamma_grad_small_x(alpha, x),
                     jnp.where(alpha > 8.0, _gamma_grad_large_alpha(alpha, x), mid))


@jax.custom_jvp
def _with_gamma_grad(alpha, x):
    return x


@_with_gamma_grad.defjvp
def _with_gamma_grad_jvp(primals, tangents):
    # Implicit reparameterisation with PyTorch's approximation of dx/dalpha, so rsample
    # gradients are PyTorch's (and compile far faster than lax.random_gamma_grad).
    # PyTorch evaluates it in double precision (its CPU accumulate type for float).
    alpha, x = primals
    grad = standard_gamma_grad(alpha.astype(jnp.float64), x.astype(jnp.float64))
    return x, grad.astype(x.dtype) * tangents[0]


def _marsaglia_tsang(key, alpha):
    """Gamma(alpha, 1) draws by Marsaglia & Tsang's method, as PyTorch's sampler: alpha < 1 is
    boosted to alpha + 1 and scaled by U ** (1 / alpha). The rejection loop runs on the whole
    array at once (one pair of draws per round), which compiles far faster than
    ``jax.random.gamma``'s per-element loop."""
    shape, dtype = alpha.shape, alpha.dtype
    boost = alpha < 1
    d = jnp.where(boost, alpha + 1, alpha) - 1 / 3
    c = 1 / jnp.sqrt(9 * d)
    key, k_boost = jax.random.split(key)

    def body(state):
        key, x, done = state
        key, k1, k2 = jax.random.split(key, 3)
        z = jax.random.normal(k1, shape, dtype)
        u = jax.random.uniform(k2, shape, dtype)
        v = (1 + c * z) ** 3
        log_v = jnp.log(jnp.where(v > 0, v, 1))
        ok = (v > 0) & (jnp.log(u) < 0.5 * z**2 + d - d * v + d * log_v)
        return key, jnp.where(ok & ~done, d * v, x), done | ok

    init = (key, jnp.zeros(shape, dtype), jnp.zeros(shape, bool))
    _, x, _ = jax.lax.while_loop(lambda s: ~jnp.all(s[2]), body, init)
    u = jax.random.uniform(k_boost, shape, dtype)
    return jnp.where(boost, x * u ** (1 / jnp.where(boost, alpha, 1)), x)


def standard_gamma(key, shape, concentration):
    """Gamma(concentration, 1) draws of ``shape``, differentiable in the concentration."""
    alpha = jnp.broadcast_to(concentration, shape)
    x = _marsaglia_tsang(key, jax.lax.stop_gradient(alpha))
    x = jnp.maximum(x, finfo(x).tiny)  # PyTorch's sampler never returns 0
    return _with_gamma_grad(alpha, jax.lax.stop_gradient(x))


# ------------------------------------------------------------------ Gamma


def gamma_log_prob(x, concentration, rate):
    x, concentration, rate = floats(x, concentration, rate)
    return (xlogy(concentration, rate) + xlogy(concentration - 1, x) - rate * x
            - lgamma(concentration))


def gamma_cdf(x, concentration, rate):
    x, concentration, rate = floats(x, concentration, rate)
    return jss.gammainc(concentration, rate * x)


def gamma_entropy(concentration, rate):
    return (concentration - jnp.log(rate) + lgamma(concentration)
            + (1.0 - concentration) * digamma(concentration))


def gamma_rsample(key, shape, concentration, rate):
    value = standard_gamma(key, shape, concentration) / jnp.broadcast_to(rate, shape)
    return clamp_tiny_keep_grad(value)


def gamma_mean(concentration, rate):
    return concentration / rate


def gamma_mode(concentration, rate):
    return clamp((concentration - 1) / rate, 0)


def gamma_variance(concentration, rate):
    return concentration / rate**2


def gamma_natural_params(concentration, rate):
    return concentration - 1, -rate


def gamma_log_normalizer(x, y):
    return lgamma(x + 1) + (x + 1) * jnp.log(-1 / y)


# ------------------------------------------------------------------ Dirichlet and Beta


def dirichlet_log_prob(x, concentration):
    x, concentration = floats(x, concentration)
    return (jnp.sum(xlogy(concentration - 1.0, x), -1) + lgamma(jnp.sum(concentration, -1))
            - jnp.sum(lgamma(concentration), -1))


def dirichlet_entropy(concentration):
    k = concentration.shape[-1]
    a0 = jnp.sum(concentration, -1)
    return (jnp.sum(lgamma(concentration), -1) - lgamma(a0) - (k - a0) * digamma(a0)
            - jnp.sum((concentration - 1.0) * digamma(concentration), -1))


def dirichlet_rsample(key, shape, concentration):
    g = standard_gamma(key, shape, concentration)
    return g / jnp.sum(g, -1, keepdims=True)


def dirichlet_mean(concentration):
    return concentration / jnp.sum(concentration, -1, keepdims=True)


def dirichlet_mode(concentration):
    cm1 = clamp(concentration - 1, 0.0)
    mode = cm1 / jnp.sum(cm1, -1, keepdims=True)
    # torch's argmax of an all-NaN row picks index 0, and so does jnp.argmax.
    one_hot = jax.nn.one_hot(jnp.argmax(mode, -1), mode.shape[-1], dtype=mode.dtype)
    return jnp.where(jnp.all(concentration < 1, -1)[..., None], one_hot, mode)


def dirichlet_variance(concentration):
    c0 = jnp.sum(concentration, -1, keepdims=True)
    return concentration * (c0 - concentration) / (c0**2 * (c0 + 1))


def dirichlet_natural_params(concentration):
    return (concentration,)


def dirichlet_log_normalizer(x):
    return jnp.sum(lgamma(x), -1) - lgamma(jnp.sum(x, -1))


def beta_log_prob(x, concentration1, concentration0):
    x, c1, c0 = floats(x, concentration1, concentration0)
    return dirichlet_log_prob(jnp.stack([x, 1.0 - x], -1), jnp.stack([c1, c0], -1))


def beta_mean(concentration1, concentration0):
    return concentration1 / (concentration1 + concentration0)


def beta_variance(concentration1, concentration0):
    total = concentration1 + concentration0
    return concentration1 * concentration0 / (total**2 * (total + 1))


def beta_log_normalizer(x, y):
    return lgamma(x) + lgamma(y) - lgamma(x + y)


# ------------------------------------------------------------------ StudentT


def student_t_log_prob(x, df, loc, scale):
    x, df, loc, scale = floats(x, df, loc, scale)
    y = (x - loc) / scale
    z = (jnp.log(scale) + 0.5 * jnp.log(df) + 0.5 * math.log(math.pi) + lgamma(0.5 * df)
         - lgamma(0.5 * (df + 1.0)))
    return -0.5 * (df + 1.0) * jnp.log1p(y**2.0 / df) - z


def student_t_entropy(df, loc, scale):
    lbeta = lgamma(0.5 * df) + math.lgamma(0.5) - lgamma(0.5 * (df + 1))
    return (jnp.log(scale) + 0.5 * (df + 1) * (digamma(0.5 * (df + 1)) - digamma(0.5 * df))
            + 0.5 * jnp.log(df) + lbeta)


def student_t_rsample(key, shape, df, loc, scale):
    k1, k2 = jax.random.split(key)
    x = jax.random.normal(k1, shape, jnp.result_type(df))
    z = gamma_rsample(k2, shape, 0.5 * df, jnp.full_like(df, 0.5))
    return loc + scale * (x * jax.lax.rsqrt(z / df))


def student_t_mean(df, loc, scale):
    return jnp.where(df <= 1, jnp.nan, loc)


def student_t_variance(df, loc, scale):
    safe = jnp.where(df > 2, df, 3.0)
    return jnp.where(df > 2, scale**2 * safe / (safe - 2), jnp.where(df > 1, jnp.inf, jnp.nan))


# ------------------------------------------------------------------ FisherSnedecor


def fisher_snedecor_log_prob(x, df1, df2):
    x, df1, df2 = floats(x, df1, df2)
    ct1, ct2, ct3 = df1 * 0.5, df2 * 0.5, df1 / df2
    t1 = lgamma(ct1 + ct2) - lgamma(ct1) - lgamma(ct2)
    t2 = ct1 * jnp.log(ct3) + (ct1 - 1) * jnp.log(x)
    t3 = (ct1 + ct2) * jnp.log1p(ct3 * x)
    return t1 + t2 - t3


def fisher_snedecor_rsample(key, shape, df1, df2):
    k1, k2 = jax.random.split(key)
    x1 = gamma_rsample(k1, shape, df1 * 0.5, df1)
    x2 = gamma_rsample(k2, shape, df2 * 0.5, df2)
    tiny = finfo(x2).tiny
    return clamp(x1 / clamp(x2, tiny), tiny)


def fisher_snedecor_mean(df1, df2):
    df2 = jnp.where(df2 <= 2, jnp.nan, df2)
    return df2 / (df2 - 2)


def fisher_snedecor_mode(df1, df2):
    mode = (df1 - 2) / df1 * df2 / (df2 + 2)
    return jnp.where(df1 <= 2, jnp.nan, mode)


def fisher_snedecor_variance(df1, df2):
    df2 = jnp.where(df2 <= 4, jnp.nan, df2)
    return 2 * df2**2 * (df1 + df2 - 2) / (df1 * (df2 - 2) ** 2 * (df2 - 4))


# ------------------------------------------------------------------ Pareto, Weibull


def pareto_mean(scale, alpha):
    a = clamp(alpha, 1)
    return a * scale / (a - 1)


def pareto_variance(scale, alpha):
    a = clamp(alpha, 2)
    return scale**2 * a / ((a - 1) ** 2 * (a - 2))


def pareto_entropy(scale, alpha):
    return jnp.log(scale / alpha) + (1 + 1 / alpha)


def weibull_mean(scale, concentration):
    return scale * jnp.exp(lgamma(1 + 1 / concentration))


def weibull_mode(scale, concentration):
    return scale * ((concentration - 1) / concentration) ** (1 / concentration)


def weibull_variance(scale, concentration):
    r = 1 / concentration
    return scale**2 * (jnp.exp(lgamma(1 + 2 * r)) - jnp.exp(2 * lgamma(1 + r)))


def weibull_entropy(scale, concentration):
    r = 1 / concentration
    return EULER * (1 - r) + jnp.log(scale * r) + 1


# ------------------------------------------------------------------ InverseGamma, Kumaraswamy


def inverse_gamma_mean(concentration, rate):
    return jnp.where(concentration > 1, rate / (concentration - 1), jnp.inf)


def inverse_gamma_mode(concentration, rate):
    return rate / (concentration + 1)


def inverse_gamma_variance(concentration, rate):
    v = rate**2 / ((concentration - 1) ** 2 * (concentration - 2))
    return jnp.where(concentration > 2, v, jnp.inf)


def inverse_gamma_entropy(concentration, rate):
    return (concentration + jnp.log(rate) + lgamma(concentration)
            - (1 + concentration) * digamma(concentration))


def _kumaraswamy_moment(a, b, n):
    arg1 = 1 + n / a
    return b * jnp.exp(lgamma(arg1) + lgamma(b) - lgamma(arg1 + b))


def kumaraswamy_mean(concentration1, concentration0):
    return _kumaraswamy_moment(concentration1, concentration0, 1)


def kumaraswamy_mode(concentration1, concentration0):
    log_mode = (1 / concentration0 * jnp.log1p(-concentration0)
                - jnp.log1p(-concentration0 * concentration1))
    bad = (concentration0 < 1) | (concentration1 < 1)
    return jnp.exp(jnp.where(bad, jnp.nan, log_mode))


def kumaraswamy_variance(concentration1, concentration0):
    return (_kumaraswamy_moment(concentration1, concentration0, 2)
            - kumaraswamy_mean(concentration1, concentration0) ** 2)


def kumaraswamy_entropy(concentration1, concentration0):
    t1 = 1 - 1 / concentration1
    t0 = 1 - 1 / concentration0
    h0 = digamma(concentration0 + 1) + EULER
    return t0 + t1 * h0 - jnp.log(concentration1) - jnp.log(concentration0)
