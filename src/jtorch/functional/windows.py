"""Window functions for spectral analysis (``torch.hann_window`` & co.), computed in the
result dtype with PyTorch's order of operations. ``periodic`` windows are the symmetric
window one sample longer, without its last sample."""

from __future__ import annotations

import math

import jax.numpy as jnp
from jax.scipy.special import i0

from .. import _dtypes as D


def _setup(name, window_length, periodic, dtype):
    d = D.get_default_dtype() if dtype is None else dtype
    if d._kind != 2:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {d}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    return d.np, window_length + int(bool(periodic))


def _finish(window, window_length, periodic):
    return window[:window_length] if periodic else window


def _trivial(window_length, dtype):
    return jnp.ones((window_length,), dtype) if window_length <= 1 else None


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    """``alpha - beta * cos(2 pi n / (N - 1))``."""
    dt, n = _setup("hamming_window", window_length, periodic, dtype)
    if (w := _trivial(window_length, dt)) is not None:
        return w
    w = jnp.cos(jnp.arange(n, dtype=dt) * jnp.asarray(math.pi * 2.0 / (n - 1), dt))
    return _finish(w * jnp.asarray(-beta, dt) + jnp.asarray(alpha, dt), window_length, periodic)


def hann_window(window_length, periodic=True, *, dtype=None):
    """``0.5 - 0.5 * cos(2 pi n / (N - 1))``."""
    _setup("hann_window", window_length, periodic, dtype)
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype)


def blackman_window(window_length, periodic=True, *, dtype=None):
    """``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``."""
    dt, n = _setup("blackman_window", window_length, periodic, dtype)
    if (w := _trivial(window_length, dt)) is not None:
        return w
    x = jnp.arange(n, dtype=dt) * jnp.asarray(math.pi / (n - 1), dt)
    w = jnp.cos(x * 4) * jnp.asarray(0.08, dt) - jnp.cos(x * 2) * jnp.asarray(0.5, dt) + 0.42
    return _finish(w.astype(dt), window_length, periodic)


def bartlett_window(window_length, periodic=True, *, dtype=None):
    """The triangle ``1 - |2n / (N - 1) - 1|``."""
    dt, n = _setup("bartlett_window", window_length, periodic, dtype)
    if (w := _trivial(window_length, dt)) is not None:
        return w
    w = jnp.arange(n, dtype=dt) * jnp.asarray(2.0 / (n - 1), dt)
    half = ((n - 1) >> 1) + 1
    w = jnp.concatenate([w[:half], 2 - w[half:]])
    return _finish(w, window_length, periodic)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """``I0(beta * sqrt(1 - ((n - a) / a)^2)) / I0(beta)`` with ``a = (N - 1) / 2``."""
    dt, n = _setup("kaiser_window", window_length, periodic, dtype)
    if (w := _trivial(window_length, dt)) is not None:
        return w
    a = (n - 1) / 2.0
    ratio = (jnp.arange(n, dtype=dt) - jnp.asarray(a, dt)) / jnp.asarray(a, dt)
    w = i0(jnp.asarray(beta, dt) * jnp.sqrt(1 - ratio * ratio)) / i0(jnp.asarray(beta, dt))
    return _finish(w.astype(dt), window_length, periodic)
