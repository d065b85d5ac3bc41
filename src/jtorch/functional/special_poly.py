"""Orthogonal polynomials of torch.special: Chebyshev T/U/V/W (and shifted), Hermite H/He,
Laguerre L and Legendre P, each ``f(input, n)`` elementwise with a per-element degree.

PyTorch's rules: ``n`` (a tensor or a number, promoted with ``input`` and truncated to an
integer) below 0 gives 0; the endpoint values are exact; inside (-1, 1) high degrees use
the trigonometric closed forms; everything else runs the three-term recurrence, here one
``while_loop`` up to the largest degree needed (stopping early once every running value is
NaN, as PyTorch's loop does). PyTorch defines no gradients for these functions.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ._util import cast
from .special import float_dtype, not_both_numbers

__all__ = [
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p",
]


def _recurrence(x, n, first, step, needed):
    """P_n(x) where P_0 = 1, P_1 = first and P_{k+1} = step(k, x, P_k, P_{k-1}), for the
    elements in ``needed`` (others get 0)."""
    one = jnp.ones_like(x)
    out = jnp.where(n == 0, one, jnp.where(n == 1, first, jnp.zeros_like(x)))
    top = jnp.max(jnp.where(needed, n, 0), initial=0)

    def cond(c):
        k, _, q, _ = c
        return (k < top) & jnp.any(needed & (n > k) & ~jnp.isnan(q))

    def body(c):
        k, p, q, out = c
        r = step(k.astype(x.dtype), x, q, p)
        return k + 1, q, r, jnp.where(n == k + 1, r, out)

    init = (jnp.ones((), n.dtype), one, first, out)
    return jax.lax.while_loop(cond, body, init)[3]


def _parity(n, even, odd):
    return jnp.where(n % 2 == 0, even, odd)


def _chebyshev(x, n, kind, shifted=False):
    """Chebyshev polynomials of the first to fourth kind (``kind`` in "tuvw") at x, or at
    2x - 1 when ``shifted`` (PyTorch states the endpoints and the closed-form thresholds of
    the shifted ones for x in [0, 1]: n > 6, n > 4 for W; unshifted: n > 6 for T, else 8)."""
    y = x + x - 1 if shifted else x
    nf = n.astype(x.dtype)
    hi, lo = {  # the values at y = 1 and y = -1
        "t": (1.0, _parity(n, 1.0, -1.0)), "u": (nf + 1, _parity(n, nf + 1, -(nf + 1))),
        "v": (1.0, _parity(n, 2 * nf + 1, -(2 * nf + 1))),
        "w": (2 * nf + 1, _parity(n, 1.0, -1.0)),
    }[kind]
    at_hi, at_lo = (x == 1, x == 0) if shifted else (x == 1, x == -1)
    threshold = {"t": 6, "w": 4}.get(kind, 6) if shifted else (6 if kind == "t" else 8)
    inside = (jnp.abs(y) < 1) & (n > threshold)
    theta = jnp.arccos(jnp.where(inside, y, 0.5))
    closed = _trig(kind, theta, nf, jnp.where(inside, y, 0.5), (hi, lo), n)
    first = {"t": y, "u": 2 * y, "v": 2 * y - 1, "w": 2 * y + 1}[kind]
    needed = (n >= 0) & ~at_hi & ~at_lo & ~inside
    out = _recurrence(y, n, first, lambda k, y, q, p: 2 * y * q - p, needed)
    out = jnp.where(inside, closed, out)
    out = jnp.where(at_hi, hi, jnp.where(at_lo, lo, out))
    return jnp.where(n < 0, 0, out).astype(x.dtype)


def _trig(kind, theta, nf, x, edge, n):
    """The closed forms inside (-1, 1), with PyTorch's fallbacks where they divide by 0."""
    if kind == "t":
        return jnp.cos(nf * theta)
    if kind == "u":
        s = jnp.sin(theta)
        return jnp.where(s != 0, jnp.sin((nf + 1) * theta) / jnp.where(s != 0, s, 1),
                         (nf + 1) * jnp.cos((nf + 1) * theta) / x)
    half = theta / 2
    if kind == "v":
        ok = jnp.sin(half) != 1
        return jnp.where(ok, jnp.cos((nf + 0.5) * theta) / jnp.cos(half), edge[1])
    ok = jnp.cos(half) != 1
    value = jnp.sin((nf + 0.5) * theta) / jnp.where(ok, jnp.sin(half), 1)
    return jnp.where(ok, value, jnp.where(x > 0, edge[0], edge[1]))


def _hermite_h(x, n):
    return _recurrence(x, n, 2 * x, lambda k, x, q, p: 2 * x * q - 2 * k * p, n >= 0)


def _hermite_he(x, n):
    return _recurrence(x, n, x, lambda k, x, q, p: x * q - k * p, n >= 0)


def _laguerre(x, n):
    def step(k, x, q, p):
        return ((2 * k + 1 - x) * q - k * p) / (k + 1)

    return jnp.where(x == 0, 1, _recurrence(x, n, 1 - x, step, (n >= 0) & (x != 0)))


def _legendre(x, n):
    def step(k, x, q, p):
        return ((2 * k + 1) * x * q - k * p) / (k + 1)

    at_edge = jnp.abs(x) == 1
    edge = jnp.where((x > 0) | (n % 2 == 0), 1, -1)
    return jnp.where(at_edge, edge, _recurrence(x, n, x, step, (n >= 0) & ~at_edge))


def _polynomial(name, fn):
    def op(input, n):
        not_both_numbers(f"special_{name}", input, n)
        d = float_dtype(name, input, n, half=False)
        x, degree = jnp.broadcast_arrays(cast(input, d), cast(n, d))
        degree = jnp.trunc(degree).astype(jnp.int64)
        return jnp.where(degree < 0, 0, fn(x, degree)).astype(d.np)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.special.{name}: the degree-``n`` polynomial at ``input``."
    return op


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", lambda x, n: _chebyshev(x, n, "t"))
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", lambda x, n: _chebyshev(x, n, "u"))
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", lambda x, n: _chebyshev(x, n, "v"))
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", lambda x, n: _chebyshev(x, n, "w"))
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t",
                                             lambda x, n: _chebyshev(x, n, "t", True))
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u",
                                             lambda x, n: _chebyshev(x, n, "u", True))
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v",
                                             lambda x, n: _chebyshev(x, n, "v", True))
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w",
                                             lambda x, n: _chebyshev(x, n, "w", True))
hermite_polynomial_h = _polynomial("hermite_polynomial_h", _hermite_h)
hermite_polynomial_he = _polynomial("hermite_polynomial_he", _hermite_he)
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", _laguerre)
legendre_polynomial_p = _polynomial("legendre_polynomial_p", _legendre)
