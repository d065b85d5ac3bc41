"""SplitMix64 counter streams: the bits behind jtorch's common random draws.

A draw's kernel turns the generator's key and the draw's counter into a fresh key with
``fold`` and reads value i of a tensor from SplitMix64 (Java's SplittableRandom: a 64-bit
counter times an odd constant, then two multiply-xorshift rounds) at counter i + 1 under
the key's 64-bit seed. JAX's threefry (20 rounds of 32-bit mixing per pair of values)
costs XLA:CPU 0.25-0.35 s to compile per sampling kernel and shape (a uniform fill, a
normal fill, ``randperm``, a scalar ``randint``) against 0.05-0.09 s for these, and runs
2-3x slower on a CPU; a cold start draws from a handful of such kernels before its first
step. SplitMix64's output function passes BigCrush; two streams under different seeds are
the same sequence at an offset set by the seeds, so two draws overlap only when their
seeds land within a draw's length of each other (odds ~ n / 2**64).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # SplitMix64's increment
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_U32 = np.uint64(0xFFFFFFFF)


def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _raw(key):
    return jax.random.key_data(key) if jax.dtypes.issubdtype(key.dtype,
                                                             jax.dtypes.prng_key) else key


def seed(key):
    """The 64-bit seed of a raw key (its 32-bit words, two by two, mixed in)."""
    words = _raw(key).reshape(-1).astype(jnp.uint64)
    s = (words[0] << np.uint64(32)) | words[1 % words.shape[0]]
    for i in range(2, words.shape[0], 2):  # keys of more than two words (rbg's four)
        s = _mix(s + GOLDEN) ^ ((words[i] << np.uint64(32)) | words[(i + 1) % words.shape[0]])
    return s


def fold(key, data):
    """A new raw key, of ``key``'s shape and dtype, for the integer ``data`` (a draw's
    counter, a chunk's index): SplitMix64's values 1, 2, ... under the seed mixed with it."""
    raw = _raw(key)
    s = _mix(seed(raw) + (jnp.asarray(data).astype(jnp.uint64) + np.uint64(1)) * GOLDEN)
    n = raw.size
    z = _mix(s + (jax.lax.iota(jnp.uint64, (n + 1) // 2) + np.uint64(1)) * GOLDEN)
    words = jnp.stack([z >> np.uint64(32), z & _U32], axis=-1).reshape(-1)[:n]
    return words.astype(raw.dtype).reshape(raw.shape)


def bits(key, shape):
    """uint64 values, one per element of ``shape``, from ``key``'s stream."""
    n = int(np.prod(shape, dtype=np.int64))
    z = seed(key) + (jax.lax.iota(jnp.uint64, n) + np.uint64(1)) * GOLDEN
    return _mix(z).reshape(shape)


def uniform(key, shape, dtype):
    """U[0, 1) in float32 (24 random bits) or float64 (53)."""
    b = bits(key, shape)
    if np.dtype(dtype) == np.float64:
        return (b >> np.uint64(11)).astype(jnp.float64) * (2.0**-53)
    return (b >> np.uint64(40)).astype(jnp.float32) * np.float32(2.0**-24)


def normal(key, shape, dtype):
    """N(0, 1) in float32 or float64 by Box-Muller, one cosine branch per value: float32
    from the two 32-bit halves of one draw (|z| up to 6.7), float64 from two draws of 53
    bits each (|z| up to 8.6)."""
    if np.dtype(dtype) == np.float64:
        b = bits(key, (2, *shape))
        u1 = ((b[0] >> np.uint64(11)) + np.uint64(1)).astype(jnp.float64) * (2.0**-53)
        u2 = (b[1] >> np.uint64(11)).astype(jnp.float64) * (2.0**-53)
    else:
        b = bits(key, shape)
        u1 = ((b >> np.uint64(32)) + np.uint64(1)).astype(jnp.float32) * np.float32(2.0**-32)
        u2 = (b & _U32).astype(jnp.float32) * np.float32(2.0**-32)
    two_pi = u2.dtype.type(2 * np.pi)
    return jnp.sqrt(-2 * jnp.log(u1)) * jnp.cos(two_pi * u2)


def below(key, shape, low, high):
    """int64 integers uniform on ``[low, high)`` (traced or Python ints, ``low < high``,
    ``high - low`` up to 2**64): a 64-bit draw modulo the range, as PyTorch's random64()
    % range, biased by at most range / 2**64."""
    b = bits(key, shape)
    if isinstance(low, int) and isinstance(high, int):  # high may be 2**63
        lo, span = np.uint64(low % 2**64), (high - low) % 2**64
        return ((b % np.uint64(span) if span else b) + lo).astype(jnp.int64)
    lo = jnp.asarray(low).astype(jnp.int64).astype(jnp.uint64)
    span = jnp.asarray(high).astype(jnp.int64).astype(jnp.uint64) - lo  # modulo 2**64
    return (b % span + lo).astype(jnp.int64)


def permutation(key, n: int):
    """A random permutation of ``0 .. n-1`` (int64): a sort by 64-bit random keys."""
    return jnp.argsort(bits(key, (n,))).astype(jnp.int64)
