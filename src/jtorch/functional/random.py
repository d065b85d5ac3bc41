"""Random sampling with explicit JAX keys (the eager layer owns generators and their state).

Differences from PyTorch: the streams are SplitMix64 counter streams (``splitmix``) for
uniform, normal, integer, permutation, Bernoulli and dropout draws, and JAX's threefry
under a SplitMix64-folded key for the rarer distributions, so a seed gives different
numbers than torch's Mersenne Twister / Philox; reproducibility for a given seed holds.
"""

from __future__ import annotations

import operator

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from . import splitmix as SM
from ._util import broadcast_shapes, cast, dtype_of, is_scalar
from .creation import _size

_BOUNDS_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
                 "int16": "short", "int32": "int", "int64": "long"}


def _sample_dtype(dtype):
    # Sample half-precision types in float32 so their distribution is not coarsened twice.
    return jnp.float32 if dtype.itemsize < 4 else dtype.np


def _not_implemented(kernel: str, dtype: D.dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{D.legacy_name(dtype)}\'')


def _uniform01(key, shape, dtype: D.dtype):
    """U[0, 1) in ``dtype``; a complex dtype gets independent real and imaginary parts."""
    if dtype._kind == 3:
        parts = SM.uniform(key, (*shape, 2), dtype.to_real().np)
        return jax.lax.complex(parts[..., 0], parts[..., 1])
    return SM.uniform(key, shape, _sample_dtype(dtype)).astype(dtype.np)


def _normal01(key, shape, dtype: D.dtype):
    """N(0, 1) in ``dtype``; complex samples have variance 1/2 per part, as torch's."""
    if dtype._kind == 3:
        parts = SM.normal(key, (*shape, 2), dtype.to_real().np) * 0.5**0.5  # weak: keeps f32
        return jax.lax.complex(parts[..., 0], parts[..., 1])
    return SM.normal(key, shape, _sample_dtype(dtype)).astype(dtype.np)


def rand(key, size, *, dtype=None):
    dtype = dtype or D.get_default_dtype()
    if dtype._kind < 2:
        raise _not_implemented("check_uniform_bounds", dtype)
    return _uniform01(key, _size(size), dtype)


def randn(key, size, *, dtype=None):
    dtype = dtype or D.get_default_dtype()
    if dtype._kind < 2:
        raise _not_implemented("normal_kernel_cpu", dtype)
    return _normal01(key, _size(size), dtype)


def check_randint(low, high, dtype: D.dtype) -> None:
    """torch's errors for ``randint``: non-int bounds, an empty range, bounds the dtype lacks."""
    for name, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not hasattr(type(v), "__index__"):
            raise TypeError(f"randint(): argument '{name}' must be int, not {type(v).__name__}")
    low, high = operator.index(low), operator.index(high)
    if high <= low:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    if dtype._kind == 3:
        raise RuntimeError(
            "check_random_bounds handles only integral, floating-point and boolean types"
        )
    if dtype._kind == 2:
        digits = int(jnp.finfo(dtype.np).nmant) + 1
        lo, hi = -(2**digits), 2**digits
    else:
        info = np.iinfo(dtype.np) if dtype._kind == 1 else np.iinfo(np.uint8)
        lo, hi = (0, 1) if dtype._kind == 0 else (int(info.min), int(info.max))
    name = _BOUNDS_NAMES.get(dtype.name, D.legacy_name(dtype))
    if not lo <= low <= hi:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not lo <= high - 1 <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {name}")


def randint(key, low, high, size, *, dtype=None):
    """Integers uniform on ``[low, high)``, in ``dtype`` (int64 by default)."""
    dtype = dtype or D.int64
    if is_scalar(low) and is_scalar(high):  # traced bounds were checked by the caller
        check_randint(low, high, dtype)
    return SM.below(key, _size(size), low, high).astype(dtype.np)


def check_uniform(dtype: D.dtype, a, b) -> None:
    if dtype._kind < 2:
        raise _not_implemented("check_uniform_bounds", dtype)
    if is_scalar(a) and is_scalar(b) and a > b:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}"
        )


def check_normal(dtype: D.dtype, std) -> None:
    if dtype._kind < 2:
        raise _not_implemented("normal_kernel_cpu", dtype)
    if is_scalar(std) and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")


def uniform(key, input, low=0.0, high=1.0):
    """The values ``input.uniform_(from, to)`` writes (complex: each part on ``[from, to)``)."""
    a, b = low, high
    d = dtype_of(input)
    check_uniform(d, a, b)
    if d._kind == 3:
        real = d.to_real()
        u = _uniform01(key, input.shape, d)
        return jax.lax.complex(cast(a + (b - a) * u.real, real), cast(a + (b - a) * u.imag, real))
    u = SM.uniform(key, input.shape, _sample_dtype(d))
    return cast(a + (b - a) * u, d)


def normal(key, input, mean=0.0, std=1.0):
    """The values ``input.normal_(mean, std)`` writes (complex: ``std/sqrt(2)`` per part)."""
    d = dtype_of(input)
    check_normal(d, std)
    if d._kind == 3:
        z = _normal01(key, input.shape, d)
        real = d.to_real()
        return jax.lax.complex(cast(mean + std * z.real, real), cast(mean + std * z.imag, real))
    z = SM.normal(key, input.shape, _sample_dtype(d))
    return cast(mean + std * z, d)


# ------------------------------------------------------------------ more distributions
# In PyTorch these samples are constants to autograd: the gradient of normal(mean, std)
# with respect to mean and std is zero (not 1 and eps), so every result is stop_gradient.


def _floating(kernel: str, d: D.dtype):
    if d._kind < 2:
        raise _not_implemented(kernel, d)


def randperm(key, n, *, dtype=None):
    """A random permutation of ``0 .. n-1``."""
    dtype = dtype or D.int64
    if dtype._kind in (0, 3):
        raise _not_implemented("randperm", dtype)
    return SM.permutation(key, _size((n,))[0]).astype(dtype.np)


def normal_tensor(key, mean, std=1.0):
    """torch.normal with a tensor mean and/or std: one draw per broadcast element."""
    strong = [x for x in (mean, std) if not is_scalar(x) and not getattr(x, "weak_type", False)]
    dtype = dtype_of(strong[0])
    _floating("normal_kernel_cpu", dtype)
    if is_scalar(std) and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    shape = broadcast_shapes(jnp.shape(mean), jnp.shape(std))
    z = _normal01(key, shape, dtype)
    return jax.lax.stop_gradient(cast(mean, dtype) + cast(std, dtype) * z)


def normal_size(key, mean, std, size, *, dtype=None):
    """torch.normal(mean: float, std: float, size)."""
    dtype = dtype or D.get_default_dtype()
    check_normal(dtype, std)
    return cast(mean + std * _normal01(key, _size(size), dtype), dtype)


def bernoulli(key, input, p=None):
    """1 with probability ``p`` (or each element of ``input``), else 0, in input's dtype."""
    d = dtype_of(input)
    if p is None:
        _floating("bernoulli_tensor_cpu_p_", d)
        p = input
    elif is_scalar(p) and not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    shape = input.shape
    if not is_scalar(p):  # p broadcasts into self, never the other way
        try:
            p = jnp.broadcast_to(p, shape)
        except ValueError:
            raise RuntimeError(f"The expanded size of the tensor ({list(shape)}) must match the "
                               f"existing size ({list(p.shape)})") from None
    u = SM.uniform(key, shape, jnp.float64 if d is D.float64 else jnp.float32)
    return jax.lax.stop_gradient((u < p).astype(d.np))


def bernoulli_(key, input, p=0.5):
    """The values ``input.bernoulli_(p)`` writes."""
    return bernoulli(key, input, p)


def poisson(key, input):
    """Poisson counts with rates ``input``, in input's (floating) dtype."""
    d = dtype_of(input)
    _floating("poisson_cpu", d)
    lam = jax.lax.stop_gradient(input).astype(jnp.float64 if d is D.float64 else jnp.float32)
    out = jax.random.poisson(key, lam, input.shape, dtype=jnp.int64)
    return out.astype(d.np)


def binomial(key, count, prob):
    """Successes in ``count`` trials of probability ``prob`` (broadcast), in count's dtype;
    a probability above 1 always succeeds and a negative count gives 0, as PyTorch's."""
    d = dtype_of(count)
    if d._kind != 2:
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{D.legacy_name(d)}")
    if dtype_of(prob) is not d:
        raise RuntimeError(f"Found dtype {D.legacy_name(dtype_of(prob))} but expected "
                           f"{D.legacy_name(d)}")
    shape = broadcast_shapes(count.shape, prob.shape)
    n = jnp.maximum(jax.lax.stop_gradient(count), 0).astype(jnp.float64)
    p = jnp.clip(jax.lax.stop_gradient(prob), 0, 1).astype(jnp.float64)
    out = jax.random.binomial(key, jnp.floor(n), p, shape, dtype=jnp.float64)
    return out.astype(d.np)


def multinomial(key, input, num_samples, replacement=False):
    """Category indices drawn with probabilities proportional to each row of ``input``.

    Without replacement this is the Gumbel top-k trick: zero-probability categories come
    only after every positive one, as PyTorch draws them.
    """
    d = dtype_of(input)
    if d._kind != 2:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{D.legacy_name(d)}")
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n = input.shape[-1]
    if not replacement and num_samples > n:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    rows = input.reshape(-1, n).astype(jnp.float64 if d is D.float64 else jnp.float32)
    logits = jnp.log(rows)
    if replacement:
        out = jax.random.categorical(key, logits[:, None, :], axis=-1,
                                     shape=(rows.shape[0], num_samples))
    else:
        g = jax.random.gumbel(key, rows.shape, rows.dtype)
        # Ties among zero-probability categories are broken by the noise as well.
        keys = jnp.where(rows > 0, logits + g, -1e30 + g)
        out = jax.lax.top_k(keys, num_samples)[1]
    out = out.astype(jnp.int64)
    return out.reshape(num_samples) if input.ndim == 1 else out


def _check_param(ok: bool, msg: str):
    if not ok:
        raise RuntimeError(msg)


def exponential(key, input, lambd=1.0):
    d = dtype_of(input)
    if d._kind < 2:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {D.legacy_name(d)}")
    return cast(jax.random.exponential(key, input.shape, _sample_dtype(d)) / lambd, d)


def geometric(key, input, p):
    d = dtype_of(input)
    if d is D.bool:
        raise _not_implemented("geometric_cpu", d)
    u = jax.random.uniform(key, input.shape, jnp.float64, minval=jnp.finfo(jnp.float64).tiny)
    return cast(jnp.ceil(jnp.log(u) / jnp.log1p(-p)), d)


def log_normal(key, input, mean=1.0, std=2.0):
    d = dtype_of(input)
    _floating("log_normal_cpu", d)
    return cast(jnp.exp(mean + std * SM.normal(key, input.shape, _sample_dtype(d))), d)


def cauchy(key, input, median=0.0, sigma=1.0):
    d = dtype_of(input)
    if d._kind < 2:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {D.legacy_name(d)}")
    return cast(median + sigma * jax.random.cauchy(key, input.shape, _sample_dtype(d)), d)


def random_range(dtype: D.dtype, low, high):
    """``random_``'s range: ``[low, high)``, or ``[0, high)``, or the whole of the dtype's
    exactly representable integers when both are None."""
    if high is None and low is not None:
        low, high = 0, low
    if high is None:
        if dtype._kind == 0:
            return 0, 2
        if dtype._kind == 2:
            return 0, 2 ** (int(jnp.finfo(dtype.np).nmant) + 1) + 1
        return 0, int(np.iinfo(dtype.np).max) + 1
    check_randint(low if low is not None else 0, high, dtype)
    return low or 0, high


def random_(key, input, low=None, high=None):
    """Integers uniform on ``[low, high)`` in input's dtype (``high`` may exceed int64)."""
    return SM.below(key, input.shape, low, high).astype(dtype_of(input).np)


def keep_mask(key, shape, keep: float):
    """A Bernoulli(``keep``) mask for dropout: element i keeps when its 64-bit draw
    (``splitmix.bits``) is below ``keep`` times 2**64 (resolution 2**-64)."""
    if keep >= 1.0:
        return jnp.ones(shape, bool)
    threshold = min(int(round(keep * 2.0**64)), (1 << 64) - 1)
    return SM.bits(key, shape) < np.uint64(threshold)
