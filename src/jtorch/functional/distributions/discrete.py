"""Discrete families: Bernoulli, Categorical, OneHotCategorical, Binomial, Multinomial, Poisson,
Geometric, NegativeBinomial. Families parameterised by probs or logits take both (the
Distribution derives the missing one lazily, as PyTorch does) and use the one PyTorch uses.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ._common import bce_logits, clamp, finfo, floats, lgamma, probs_to_logits, tabs, xlogy
from .gamma import standard_gamma


def _int64(x):
    return x.astype(jnp.int64)


# ------------------------------------------------------------------ Bernoulli


def bernoulli_log_prob(x, probs, logits):
    return -bce_logits(logits, x)


def bernoulli_entropy(probs, logits):
    return bce_logits(logits, probs)


def bernoulli_mode(probs, logits):
    mode = (probs >= 0.5).astype(probs.dtype)
    return jnp.where(probs == 0.5, jnp.nan, mode)


def bernoulli_variance(probs, logits):
    return probs * (1 - probs)


def bernoulli_sample(key, shape, probs, logits):
    return jax.random.bernoulli(key, jnp.broadcast_to(probs, shape)).astype(probs.dtype)


def bernoulli_natural_params(probs, logits):
    return (jnp.log(probs / (1 - probs)),)


def bernoulli_log_normalizer(x):
    return jnp.log1p(jnp.exp(x))


# ------------------------------------------------------------------ Categorical, OneHotCategorical


def categorical_normalize_probs(probs):
    return probs / jnp.sum(probs, -1, keepdims=True)


def categorical_normalize_logits(logits):
    return logits - jax.scipy.special.logsumexp(logits, -1, keepdims=True)


def categorical_log_prob(x, probs, logits):
    x, lp = jnp.broadcast_arrays(_int64(x)[..., None], logits)
    return jnp.take_along_axis(lp, x[..., :1], -1)[..., 0]


def categorical_entropy(probs, logits):
    logits = clamp(logits, finfo(logits).min)
    return -jnp.sum(logits * probs, -1)


def categorical_mean(probs, logits):
    return jnp.full(probs.shape[:-1], jnp.nan, probs.dtype)


categorical_variance = categorical_mean


def categorical_mode(probs, logits):
    return jnp.argmax(probs, -1)


def categorical_sample(key, shape, probs, logits):
    # log(probs), not the clamped logits: a zero-probability class is never drawn.
    return _int64(jax.random.categorical(key, jnp.log(probs), -1, shape))


def one_hot_categorical_log_prob(x, probs, logits):
    return categorical_log_prob(jnp.argmax(x, -1), probs, logits)


one_hot_categorical_entropy = categorical_entropy


def one_hot_categorical_mode(probs, logits):
    return jax.nn.one_hot(jnp.argmax(probs, -1), probs.shape[-1], dtype=probs.dtype)


def one_hot_categorical_variance(probs, logits):
    return probs * (1 - probs)


def one_hot_categorical_sample(key, shape, probs, logits):
    idx = categorical_sample(key, shape[:-1], probs, logits)
    return jax.nn.one_hot(idx, shape[-1], dtype=probs.dtype)


# ------------------------------------------------------------------ Binomial, Multinomial


def _clamp_by_zero(x):
    return (clamp(x, 0) + x - clamp(x, None, 0)) / 2


def binomial_log_prob(x, total_count, probs, logits):
    x, n, logits = floats(x, total_count, logits)
    normalize = (n * _clamp_by_zero(logits) + n * jnp.log1p(jnp.exp(-tabs(logits)))
                 - lgamma(n + 1))
    return x * logits - lgamma(x + 1) - lgamma(n - x + 1) - normalize


def binomial_support(total_count, probs, logits, n: int):
    """``enumerate_support(expand=False)`` for a homogeneous total count ``n``."""
    return jnp.arange(n + 1, dtype=probs.dtype).reshape((-1,) + (1,) * probs.ndim)


def binomial_entropy(total_count, probs, logits, n: int):
    lp = binomial_log_prob(binomial_support(total_count, probs, logits, n), total_count,
                           probs, logits)
    return -jnp.sum(jnp.exp(lp) * lp, 0)


def binomial_mean(total_count, probs, logits):
    return total_count * probs


def binomial_mode(total_count, probs, logits):
    return clamp(jnp.floor((total_count + 1) * probs), None, total_count)


def binomial_variance(total_count, probs, logits):
    return total_count * probs * (1 - probs)


def binomial_sample(key, shape, total_count, probs, logits):
    n, p = jnp.broadcast_to(total_count, shape), jnp.broadcast_to(probs, shape)
    return jax.random.binomial(key, n, p, shape, probs.dtype)


def multinomial_log_prob(x, probs, logits, total_count: int):
    logits, x = jnp.broadcast_arrays(*floats(logits, x))
    logits = jnp.where((x == 0) & (logits == -jnp.inf), 0, logits)
    return (lgamma(jnp.sum(x, -1) + 1) - jnp.sum(lgamma(x + 1), -1)
            + jnp.sum(logits * x, -1))


def multinomial_mean(probs, logits, total_count: int):
    return probs * total_count


def multinomial_variance(probs, logits, total_count: int):
    return total_count * probs * (1 - probs)


def multinomial_entropy(probs, logits, total_count: int):
    n = total_count
    term1 = n * categorical_entropy(probs, logits) - lgamma(jnp.asarray(n + 1.0, probs.dtype))
    support = jnp.arange(1, n + 1, dtype=probs.dtype).reshape((-1,) + (1,) * probs.ndim)
    count = jnp.full_like(probs, n)
    binomial_logits = probs_to_logits(probs, is_binary=True)
    binomial_probs = jnp.exp(binomial_log_prob(support, count, probs, binomial_logits))
    return term1 + jnp.sum(binomial_probs * lgamma(support + 1), (0, -1))


def multinomial_sample(key, shape, probs, logits, total_count: int):
    draws = categorical_sample(key, (total_count,) + shape[:-1], probs, logits)
    return jnp.sum(jax.nn.one_hot(draws, shape[-1], dtype=probs.dtype), 0)


# ------------------------------------------------------------------ Poisson


def poisson_log_prob(x, rate):
    rate, x = jnp.broadcast_arrays(*floats(rate, x))
    return xlogy(x, rate) - rate - lgamma(x + 1)


def poisson_mode(rate):
    return jnp.floor(rate)


def _threefry(key):
    # jax.random.poisson takes only threefry keys; derive one from the sampler's key.
    return jax.random.wrap_key_data(jax.random.bits(key, (2,), jnp.uint32), impl="threefry2x32")


def poisson_sample(key, shape, rate):
    rate = jnp.broadcast_to(rate, shape)
    return jax.random.poisson(_threefry(key), rate, shape).astype(rate.dtype)


def poisson_natural_params(rate):
    return (jnp.log(rate),)


def poisson_log_normalizer(x):
    return jnp.exp(x)


# ------------------------------------------------------------------ Geometric


def geometric_log_prob(x, probs, logits):
    x, p = jnp.broadcast_arrays(*floats(x, probs))
    p = jnp.where((p == 1) & (x == 0), 0, p)
    return x * jnp.log1p(-p) + jnp.log(floats(probs, x)[0])


def geometric_entropy(probs, logits):
    return bce_logits(logits, probs) / probs


def geometric_mean(probs, logits):
    return 1.0 / probs - 1.0


def geometric_mode(probs, logits):
    return jnp.zeros_like(probs)


def geometric_variance(probs, logits):
    return (1.0 / probs - 1.0) / probs


def geometric_sample(key, shape, probs, logits):
    u = jax.random.uniform(key, shape, probs.dtype, minval=finfo(probs).tiny, maxval=1)
    return jnp.floor(jnp.log(u) / jnp.log1p(-probs))


# ------------------------------------------------------------------ NegativeBinomial


def negative_binomial_log_prob(x, total_count, probs, logits):
    x, n, logits = floats(x, total_count, logits)
    log_unnormalized = n * jax.nn.log_sigmoid(-logits) + x * jax.nn.log_sigmoid(logits)
    log_normalization = -lgamma(n + x) + lgamma(1.0 + x) + lgamma(n)
    return log_unnormalized - jnp.where(n + x == 0.0, 0.0, log_normalization)


def negative_binomial_mean(total_count, probs, logits):
    return total_count * jnp.exp(logits)


def negative_binomial_mode(total_count, probs, logits):
    return clamp(jnp.floor((total_count - 1) * jnp.exp(logits)), 0.0)


def negative_binomial_variance(total_count, probs, logits):
    return negative_binomial_mean(total_count, probs, logits) / jax.nn.sigmoid(-logits)


def negative_binomial_sample(key, shape, total_count, probs, logits):
    k1, k2 = jax.random.split(key)
    n = jnp.broadcast_to(total_count, shape)
    rate = standard_gamma(k1, shape, n) / jnp.broadcast_to(jnp.exp(-logits), shape)
    rate = jnp.maximum(rate, finfo(rate).tiny)
    return jax.random.poisson(_threefry(k2), rate, shape).astype(rate.dtype)


