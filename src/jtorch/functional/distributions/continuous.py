"""Location-scale and simple continuous families: densities, cdfs, moments and samplers.

Every function takes the value first (where there is one) and the distribution's
parameters after it, in the order the Distribution class lists them; samplers take
``(key, shape, *params)`` and draw with the parameters' dtype.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from ._common import EULER, LOG_2PI, clamp, erf, erfinv, finfo, floats, full_like, tabs

_SQRT2 = math.sqrt(2)


def _uniform(key, shape, like, low=0.0):
    return jax.random.uniform(key, shape, jnp.result_type(like), minval=low, maxval=1)


# ------------------------------------------------------------------ Normal


def normal_log_prob(x, loc, scale):
    x, loc, scale = floats(x, loc, scale)
    return -((x - loc) ** 2) / (2 * scale**2) - jnp.log(scale) - math.log(math.sqrt(2 * math.pi))


def normal_cdf(x, loc, scale):
    x, loc, scale = floats(x, loc, scale)
    return 0.5 * (1 + erf((x - loc) * (1 / scale) / _SQRT2))


def normal_icdf(p, loc, scale):
    p, loc, scale = floats(p, loc, scale)
    return loc + scale * erfinv(2 * p - 1) * _SQRT2


def normal_entropy(loc, scale):
    return 0.5 + 0.5 * LOG_2PI + jnp.log(scale)


def normal_rsample(key, shape, loc, scale):
    return loc + jax.random.normal(key, shape, jnp.result_type(loc)) * scale


def normal_natural_params(loc, scale):
    return loc / scale**2, -0.5 / scale**2


def normal_log_normalizer(x, y):
    return -0.25 * x**2 / y + 0.5 * jnp.log(-math.pi / y)


# ------------------------------------------------------------------ Uniform


def uniform_log_prob(x, low, high):
    x, low, high = floats(x, low, high)
    inside = ((low <= x) & (high > x)).astype(low.dtype)
    return jnp.log(inside) - jnp.log(high - low)


def uniform_cdf(x, low, high):
    x, low, high = floats(x, low, high)
    return clamp((x - low) / (high - low), 0, 1)


def uniform_icdf(p, low, high):
    p, low, high = floats(p, low, high)
    return p * (high - low) + low


def uniform_entropy(low, high):
    return jnp.log(high - low)


def uniform_rsample(key, shape, low, high):
    return low + _uniform(key, shape, low) * (high - low)


def uniform_mean(low, high):
    return (high + low) / 2


def uniform_mode(low, high):
    return jnp.nan * high


def uniform_stddev(low, high):
    return (high - low) / 12**0.5


def uniform_variance(low, high):
    return (high - low) ** 2 / 12


# ------------------------------------------------------------------ Laplace


def laplace_log_prob(x, loc, scale):
    x, loc, scale = floats(x, loc, scale)
    return -jnp.log(2 * scale) - tabs(x - loc) / scale


def laplace_cdf(x, loc, scale):
    x, loc, scale = floats(x, loc, scale)
    return 0.5 - 0.5 * jnp.sign(x - loc) * jnp.expm1(-tabs(x - loc) / scale)


def laplace_icdf(p, loc, scale):
    p, loc, scale = floats(p, loc, scale)
    t = p - 0.5
    return loc - scale * jnp.sign(t) * jnp.log1p(-2 * tabs(t))


def laplace_entropy(loc, scale):
    return 1 + jnp.log(2 * scale)


def laplace_rsample(key, shape, loc, scale):
    u = _uniform(key, shape, loc, finfo(loc).eps - 1)
    return loc - scale * jnp.sign(u) * jnp.log1p(-tabs(u))


def laplace_variance(loc, scale):
    return 2 * scale**2


def laplace_stddev(loc, scale):
    return 2**0.5 * scale


# ------------------------------------------------------------------ Cauchy


def cauchy_log_prob(x, loc, scale):
    x, loc, scale = floats(x, loc, scale)
    return -math.log(math.pi) - jnp.log(scale) - jnp.log1p(((x - loc) / scale) ** 2)


def cauchy_cdf(x, loc, scale):
    x, loc, scale = floats(x, loc, scale)
    return jnp.arctan((x - loc) / scale) / math.pi + 0.5


def cauchy_icdf(p, loc, scale):
    p, loc, scale = floats(p, loc, scale)
    return jnp.tan(math.pi * (p - 0.5)) * scale + loc


def cauchy_entropy(loc, scale):
    return math.log(4 * math.pi) + jnp.log(scale)


def cauchy_rsample(key, shape, loc, scale):
    return loc + jax.random.cauchy(key, shape, jnp.result_type(loc)) * scale


def cauchy_mean(loc, scale):
    return full_like(loc, jnp.nan)


def cauchy_variance(loc, scale):
    return full_like(loc, jnp.inf)


# ------------------------------------------------------------------ Exponential


def exponential_log_prob(x, rate):
    x, rate = floats(x, rate)
    return jnp.log(rate) - rate * x


def exponential_cdf(x, rate):
    x, rate = floats(x, rate)
    return 1 - jnp.exp(-rate * x)


def exponential_icdf(p, rate):
    p, rate = floats(p, rate)
    return -jnp.log1p(-p) / rate


def exponential_entropy(rate):
    return 1.0 - jnp.log(rate)


def exponential_rsample(key, shape, rate):
    return jax.random.exponential(key, shape, jnp.result_type(rate)) / rate


def exponential_mean(rate):
    return 1 / rate


def exponential_variance(rate):
    return rate**-2


def exponential_natural_params(rate):
    return (-rate,)


def exponential_log_normalizer(x):
    return -jnp.log(-x)


# ------------------------------------------------------------------ Gumbel


def gumbel_log_prob(x, loc, scale):
    x, loc, scale = floats(x, loc, scale)
    y = (loc - x) / scale
    return (y - jnp.exp(y)) - jnp.log(scale)


def gumbel_mean(loc, scale):
    return loc + scale * EULER


def gumbel_stddev(loc, scale):
    return (math.pi / math.sqrt(6)) * scale


def gumbel_variance(loc, scale):
    return gumbel_stddev(loc, scale) ** 2


def gumbel_entropy(loc, scale):
    return jnp.log(scale) + (1 + EULER)


# ------------------------------------------------------------------ HalfNormal, HalfCauchy


def _half(log_prob):
    def half_log_prob(x, scale):
        x, scale = floats(x, scale)
        lp = log_prob(x, jnp.zeros_like(scale), scale) + math.log(2)
        return jnp.where(x >= 0, lp, -jnp.inf)

    return half_log_prob


half_normal_log_prob = _half(normal_log_prob)
half_cauchy_log_prob = _half(cauchy_log_prob)


def half_normal_cdf(x, scale):
    return 2 * normal_cdf(x, jnp.zeros_like(scale), scale) - 1


def half_normal_icdf(p, scale):
    return normal_icdf((p + 1) / 2, jnp.zeros_like(scale), scale)


def half_normal_entropy(scale):
    return normal_entropy(scale, scale) - math.log(2)


def half_normal_mean(scale):
    return scale * math.sqrt(2 / math.pi)


def half_normal_mode(scale):
    return jnp.zeros_like(scale)


def half_normal_variance(scale):
    return scale**2 * (1 - 2 / math.pi)


def half_cauchy_cdf(x, scale):
    return 2 * cauchy_cdf(x, jnp.zeros_like(scale), scale) - 1


def half_cauchy_icdf(p, scale):
    return cauchy_icdf((p + 1) / 2, jnp.zeros_like(scale), scale)


def half_cauchy_entropy(scale):
    return cauchy_entropy(scale, scale) - math.log(2)


def half_cauchy_mean(scale):
    return full_like(scale, jnp.inf)


half_cauchy_mode = half_normal_mode


def half_cauchy_variance(scale):
    return full_like(scale, jnp.inf)


# ------------------------------------------------------------------ LogNormal


def log_normal_mean(loc, scale):
    return jnp.exp(loc + scale**2 / 2)


def log_normal_mode(loc, scale):
    return jnp.exp(loc - scale**2)


def log_normal_variance(loc, scale):
    s2 = scale**2
    return jnp.expm1(s2) * jnp.exp(2 * loc + s2)


def log_normal_entropy(loc, scale):
    return normal_entropy(loc, scale) + loc
