"""VonMises, ContinuousBernoulli, GeneralizedPareto and the relaxed (Concrete) families."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from ._common import bce_logits, clamp_probs, floats, lgamma, tabs

# ------------------------------------------------------------------ VonMises

# Abramowitz & Stegun 9.8.1-9.8.4, the polynomials PyTorch evaluates for log I0 and log I1.
_I_SMALL = (
    (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2),
    (0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3),
)
_I_LARGE = (
    (0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1,
     0.2635537e-1, -0.1647633e-1, 0.392377e-2),
    (0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1,
     -0.2895312e-1, 0.1787654e-1, -0.420059e-2),
)


def _poly(y, coef):
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def log_modified_bessel(x, order: int):
    """log I_order(x) for order 0 or 1, x > 0."""
    small = _poly((x / 3.75) ** 2, _I_SMALL[order])
    if order == 1:
        small = tabs(x) * small
    large = x - 0.5 * jnp.log(x) + jnp.log(_poly(3.75 / x, _I_LARGE[order]))
    return jnp.where(x < 3.75, jnp.log(small), large)


def von_mises_log_prob(x, loc, concentration):
    x, loc, c = floats(x, loc, concentration)
    return c * jnp.cos(x - loc) - math.log(2 * math.pi) - log_modified_bessel(c, 0)


def von_mises_variance(loc, concentration):
    return 1 - jnp.exp(log_modified_bessel(concentration, 1)
                       - log_modified_bessel(concentration, 0))


def von_mises_sample(key, shape, loc, concentration):
    """Best & Fisher's rejection sampler, in float64 as PyTorch runs it."""
    kappa = jnp.broadcast_to(concentration.astype(jnp.float64), shape)
    tau = 1 + jnp.sqrt(1 + 4 * kappa**2)
    rho = (tau - jnp.sqrt(2 * tau)) / (2 * kappa)
    r = jnp.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho**2) / (2 * rho))

    def body(state):
        key, x, done = state
        key, sub = jax.random.split(key)
        u1, u2, u3 = jax.random.uniform(sub, (3,) + shape, jnp.float64)
        z = jnp.cos(math.pi * u1)
        f = (1 + r * z) / (r + z)
        c = kappa * (r - f)
        accept = ((c * (2 - c) - u2) > 0) | (jnp.log(c / u2) + 1 - c >= 0)
        x = jnp.where(accept & ~done, jnp.sign(u3 - 0.5) * jnp.arccos(f), x)
        return key, x, done | accept

    init = (key, jnp.zeros(shape, jnp.float64), jnp.zeros(shape, bool))
    _, x, _ = jax.lax.while_loop(lambda s: ~jnp.all(s[2]), body, init)
    out = (x + math.pi + loc.astype(jnp.float64)) % (2 * math.pi) - math.pi
    return out.astype(loc.dtype)


# ------------------------------------------------------------------ ContinuousBernoulli


def _outside(probs, lims):
    return (probs <= lims[0]) | (probs > lims[1])


def _cut(probs, lims):
    return jnp.where(_outside(probs, lims), probs, lims[0] * jnp.ones_like(probs))


def continuous_bernoulli_log_norm(probs, logits, lims):
    cut = _cut(probs, lims)
    below = jnp.where(cut <= 0.5, cut, jnp.zeros_like(cut))
    above = jnp.where(cut >= 0.5, cut, jnp.ones_like(cut))
    log_norm = jnp.log(tabs(jnp.log1p(-cut) - jnp.log(cut))) - jnp.where(
        cut <= 0.5, jnp.log1p(-2.0 * below), jnp.log(2.0 * above - 1.0))
    x = (probs - 0.5) ** 2
    taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
    return jnp.where(_outside(probs, lims), log_norm, taylor)


def continuous_bernoulli_mean(probs, logits, lims):
    cut = _cut(probs, lims)
    mus = cut / (2.0 * cut - 1.0) + 1.0 / (jnp.log1p(-cut) - jnp.log(cut))
    x = probs - 0.5
    taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x**2) * x
    return jnp.where(_outside(probs, lims), mus, taylor)


def continuous_bernoulli_variance(probs, logits, lims):
    cut = _cut(probs, lims)
    v = cut * (cut - 1.0) / (1.0 - 2.0 * cut) ** 2 + 1.0 / (jnp.log1p(-cut) - jnp.log(cut)) ** 2
    x = (probs - 0.5) ** 2
    taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
    return jnp.where(_outside(probs, lims), v, taylor)


def continuous_bernoulli_stddev(probs, logits, lims):
    return jnp.sqrt(continuous_bernoulli_variance(probs, logits, lims))


def continuous_bernoulli_log_prob(x, probs, logits, lims):
    return -bce_logits(logits, x) + continuous_bernoulli_log_norm(probs, logits, lims)


def continuous_bernoulli_cdf(x, probs, logits, lims):
    x, probs = floats(x, probs)
    cut = _cut(probs, lims)
    cdfs = (cut**x * (1.0 - cut) ** (1.0 - x) + cut - 1.0) / (2.0 * cut - 1.0)
    unbounded = jnp.where(_outside(probs, lims), cdfs, x)
    return jnp.where(x <= 0.0, jnp.zeros_like(x),
                     jnp.where(x >= 1.0, jnp.ones_like(x), unbounded))


def continuous_bernoulli_icdf(p, probs, logits, lims):
    p, probs = floats(p, probs)
    cut = _cut(probs, lims)
    inv = ((jnp.log1p(-cut + p * (2.0 * cut - 1.0)) - jnp.log1p(-cut))
           / (jnp.log(cut) - jnp.log1p(-cut)))
    return jnp.where(_outside(probs, lims), inv, p)


def continuous_bernoulli_entropy(probs, logits, lims):
    log_p0, log_p1 = jnp.log1p(-probs), jnp.log(probs)
    return (continuous_bernoulli_mean(probs, logits, lims) * (log_p0 - log_p1)
            - continuous_bernoulli_log_norm(probs, logits, lims) - log_p0)


def continuous_bernoulli_rsample(key, shape, probs, logits, lims):
    u = jax.random.uniform(key, shape, probs.dtype)
    return continuous_bernoulli_icdf(u, probs, logits, lims)


def continuous_bernoulli_log_normalizer(x, lims):
    outside = (x <= lims[0] - 0.5) | (x > lims[1] - 0.5)
    cut = jnp.where(outside, x, (lims[0] - 0.5) * jnp.ones_like(x))
    log_norm = jnp.log(tabs(jnp.expm1(cut))) - jnp.log(tabs(cut))
    taylor = 0.5 * x + x**2 / 24.0 - x**4 / 2880.0
    return jnp.where(outside, log_norm, taylor)


# ------------------------------------------------------------------ GeneralizedPareto


def _gp_safe(concentration):
    eq_zero = jnp.isclose(concentration, 0.0)
    return eq_zero, jnp.where(eq_zero, jnp.ones_like(concentration), concentration)


def generalized_pareto_log_prob(x, loc, scale, concentration):
    x, loc, scale, conc = floats(x, loc, scale, concentration)
    z = (x - loc) / scale
    eq_zero, safe = _gp_safe(conc)
    y = 1 / safe + jnp.ones_like(z)
    nonzero = jnp.where(y == 0, y, y * jnp.log1p(safe * z))
    return -jnp.log(scale) - jnp.where(eq_zero, z, nonzero)


def generalized_pareto_log_survival_function(x, loc, scale, concentration):
    x, loc, scale, conc = floats(x, loc, scale, concentration)
    z = (x - loc) / scale
    eq_zero, safe = _gp_safe(conc)
    return jnp.where(eq_zero, -z, -jnp.log1p(safe * z) / safe)


def generalized_pareto_log_cdf(x, loc, scale, concentration):
    return jnp.log1p(-jnp.exp(generalized_pareto_log_survival_function(x, loc, scale,
                                                                       concentration)))


def generalized_pareto_cdf(x, loc, scale, concentration):
    return jnp.exp(generalized_pareto_log_cdf(x, loc, scale, concentration))


def generalized_pareto_icdf(p, loc, scale, concentration):
    p, loc, scale, conc = floats(p, loc, scale, concentration)
    eq_zero, safe = _gp_safe(conc)
    logu = jnp.log1p(-p)
    return jnp.where(eq_zero, loc - scale * logu, loc + scale / safe * jnp.expm1(-safe * logu))


def generalized_pareto_rsample(key, shape, loc, scale, concentration):
    u = jax.random.uniform(key, shape, loc.dtype)
    return generalized_pareto_icdf(u, loc, scale, concentration)


def generalized_pareto_mean(loc, scale, concentration):
    valid = concentration < 1
    safe = jnp.where(valid, concentration, 0.5)
    return jnp.where(valid, loc + scale / (1 - safe), jnp.nan)


def generalized_pareto_variance(loc, scale, concentration):
    valid = concentration < 0.5
    safe = jnp.where(valid, concentration, 0.25)
    return jnp.where(valid, scale**2 / ((1 - safe) ** 2 * (1 - 2 * safe)), jnp.nan)


def generalized_pareto_entropy(loc, scale, concentration):
    return jnp.broadcast_to(jnp.log(scale) + concentration + 1, jnp.shape(loc))


def generalized_pareto_upper(loc, scale, concentration):
    return jnp.where(concentration < 0, loc - scale / concentration, jnp.inf)


# ------------------------------------------------------------------ relaxed (Concrete) families


def logit_relaxed_bernoulli_rsample(key, shape, temperature, probs, logits):
    p = clamp_probs(jnp.broadcast_to(probs, shape))
    u = clamp_probs(jax.random.uniform(key, shape, p.dtype))
    return (jnp.log(u) - jnp.log1p(-u) + jnp.log(p) - jnp.log1p(-p)) / temperature


def logit_relaxed_bernoulli_log_prob(x, temperature, probs, logits):
    logits, x = jnp.broadcast_arrays(*floats(logits, x))
    diff = logits - x * temperature
    return jnp.log(temperature) + diff - 2 * jnp.log1p(jnp.exp(diff))


def exp_relaxed_categorical_rsample(key, shape, temperature, probs, logits):
    u = clamp_probs(jax.random.uniform(key, shape, logits.dtype))
    scores = (logits - jnp.log(-jnp.log(u))) / temperature
    return scores - jax.scipy.special.logsumexp(scores, -1, keepdims=True)


def exp_relaxed_categorical_log_prob(x, temperature, probs, logits):
    k = logits.shape[-1]
    logits, x = jnp.broadcast_arrays(*floats(logits, x))
    log_scale = lgamma(jnp.full_like(temperature, float(k))) + jnp.log(temperature) * (k - 1)
    score = logits - x * temperature
    score = jnp.sum(score - jax.scipy.special.logsumexp(score, -1, keepdims=True), -1)
    return score + log_scale
