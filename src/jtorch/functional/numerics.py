"""Numerical calculus and binning: ``vander``, ``trapezoid``/``cumulative_trapezoid``,
``gradient`` (NumPy's second-order accurate differences) and ``histogramdd``/``histogram``.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from .. import _dtypes as D
from ._util import dtype_of, norm_dim, result_type


def _float_of(*xs) -> D.dtype:
    """The result dtype of xs, integers and bool becoming the default float."""
    d = result_type(*xs)
    return d if d._kind >= 2 else D.get_default_dtype()


def vander(x, N=None, increasing=False):
    """Columns ``x**(N-1) ... x**0`` (reversed with ``increasing``), as a running product."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    d = D.promote_types(dtype_of(x), D.int64)
    cols = jnp.concatenate([jnp.ones((x.shape[0], min(n, 1)), d.np),
                            jnp.broadcast_to(x.astype(d.np)[:, None], (x.shape[0], max(n - 1, 0)))],
                           axis=1)
    out = jnp.cumprod(cols, axis=1) if n > 1 else cols
    return out if increasing else out[:, ::-1]


# ------------------------------------------------------------------ integration


def _spacings(y, x, dx, d):
    """Per-interval widths along dim ``d``: from sample points ``x`` (1-D, or shaped like
    ``y``), or the constant ``dx``."""
    if x is None:
        return 1 if dx is None else dx
    if dx is not None or jnp.ndim(x) == 0:
        raise TypeError("trapezoid() received an invalid combination of arguments: give the "
                        "sample points x (a tensor) or the spacing dx (a number), not both")
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"trapezoid: There must be one `x` value for each sample point, "
                               f"but got {x.shape[0]} x values and {y.shape[d]} sample points")
        widths = jnp.diff(x)
        return widths.reshape((-1,) + (1,) * (y.ndim - d - 1))
    return jnp.diff(x, axis=norm_dim(-1 if x.ndim < y.ndim else d, x.ndim))


def _edges(y, d):
    """``y`` without its first, and without its last, sample along ``d``."""
    lead = (slice(None),) * d
    return y[(*lead, slice(1, None))], y[(*lead, slice(0, max(y.shape[d] - 1, 0)))]


def _areas(y, x, dx, dim):
    """The area of each trapezoid along ``dim`` (in the result dtype), and the dim."""
    d = norm_dim(dim, y.ndim)
    out = _float_of(y, *(() if x is None or jnp.ndim(x) == 0 else (x,)))
    y = y.astype(out.np)
    widths = _spacings(y, None if x is None else x.astype(out.np), dx, d)
    hi, lo = _edges(y, d)
    return (hi + lo) * widths / 2, d


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along ``dim``."""
    areas, d = _areas(y, x, dx, dim)
    return jnp.sum(areas, axis=d)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral along ``dim`` (one value fewer than ``y``)."""
    areas, d = _areas(y, x, dx, dim)
    return jnp.cumsum(areas, axis=d)


# ------------------------------------------------------------------ gradient


def _uniform(f, h, d, edge_order):
    n = f.shape[d]

    def at(a, b):
        return lax.slice_in_dim(f, a % n if a < 0 else a, (b % n if b <= 0 else b) or n, axis=d)

    inner = (at(2, n) - at(0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (at(1, 2) - at(0, 1)) / h
        last = (at(n - 1, n) - at(n - 2, n - 1)) / h
    else:
        first = (-3 * at(0, 1) + 4 * at(1, 2) - at(2, 3)) / (2 * h)
        last = (3 * at(n - 1, n) - 4 * at(n - 2, n - 1) + at(n - 3, n - 2)) / (2 * h)
    return jnp.concatenate([first, inner, last], axis=d)


def _coordinates(f, x, d, edge_order):
    """NumPy's non-uniform formulas: second order inside, edge_order at the ends."""
    n, shape = f.shape[d], (-1,) + (1,) * (f.ndim - d - 1)
    step = jnp.diff(x).astype(f.dtype)

    def at(a, b):
        return lax.slice_in_dim(f, a, b, axis=d)

    h1, h2 = step[:-1].reshape(shape), step[1:].reshape(shape)
    inner = (-h2 / (h1 * (h1 + h2)) * at(0, n - 2) + (h2 - h1) / (h1 * h2) * at(1, n - 1)
             + h1 / (h2 * (h1 + h2)) * at(2, n))
    if edge_order == 1:
        first = (at(1, 2) - at(0, 1)) / step[0]
        last = (at(n - 1, n) - at(n - 2, n - 1)) / step[-1]
    else:
        a1, a2 = step[0], step[1]
        first = (-(2 * a1 + a2) / (a1 * (a1 + a2)) * at(0, 1) + (a1 + a2) / (a1 * a2) * at(1, 2)
                 - a1 / (a2 * (a1 + a2)) * at(2, 3))
        b1, b2 = step[-2], step[-1]
        last = (b2 / (b1 * (b1 + b2)) * at(n - 3, n - 2) - (b1 + b2) / (b1 * b2) * at(n - 2, n - 1)
                + (2 * b2 + b1) / (b2 * (b1 + b2)) * at(n - 1, n))
    return jnp.concatenate([first, inner, last], axis=d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Central differences along each of ``dim`` (all dims by default); ``spacing`` is one
    number, one number per dim, or one 1-D tensor of coordinates per dim."""
    if dim is None:
        dims = tuple(range(input.ndim))
    else:
        dims = tuple(norm_dim(x, input.ndim) for x in ((dim,) if isinstance(dim, int) else dim))
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    spacings = tuple(spacing) if isinstance(spacing, list | tuple) else (spacing,) * len(dims)
    if len(spacings) != len(dims):
        what = (f"'self.dim() = {input.ndim}', since dim argument was not given" if dim is None
                else f"'len(dim) = {len(dims)}'")
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or a "
                           f"list of length equal to {what}, but got a list of length "
                           f"{len(spacings)}")
    if any(input.shape[d] < edge_order + 1 for d in dims):
        raise RuntimeError("torch.gradient expected each dimension size to be at least "
                           "edge_order+1")
    f = input.astype(_float_of(input).np)
    return tuple(_uniform(f, h, d, edge_order) if jnp.ndim(h) == 0
                 else _coordinates(f, h, d, edge_order)
                 for h, d in zip(spacings, dims, strict=True))


# ------------------------------------------------------------------ histograms


def _bin_edges(x, bins, lo_hi, dtype):
    """Edges for ``bins`` equal bins over ``lo_hi`` or the data's range (widened by 0.5 on
    each side when the range is one point, as NumPy)."""
    if lo_hi is not None:
        lo, hi = lo_hi
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                               f"{lo:g} max {hi:g} for dimension 0")
    elif x.shape[0]:
        lo, hi = jnp.min(x), jnp.max(x)
    else:
        lo, hi = 0.0, 0.0
    lo, hi = jnp.asarray(lo, dtype), jnp.asarray(hi, dtype)
    same = lo == hi
    lo, hi = jnp.where(same, lo - 0.5, lo), jnp.where(same, hi + 0.5, hi)
    return jnp.linspace(lo, hi, bins + 1).astype(dtype)


def histogramdd(input, bins, range=None, weight=None, density=False):  # noqa: A002
    """Counts (or summed weights) of the rows of ``input`` (N, D) in a D-dimensional grid
    of bins: per dim a bin count or an increasing tensor of edges. Returns the flat tuple
    (hist, *edges)."""
    d = dtype_of(input)
    if d._kind != 2:
        raise NotImplementedError(f'"histogramdd" not implemented for \'{D.legacy_name(d)}\'')
    pts = input.reshape(-1, input.shape[-1]) if input.ndim else input.reshape(1, 1)
    ndim = pts.shape[1]
    bins = tuple(bins) if isinstance(bins, list | tuple) else (bins,) * ndim
    edges, index, inside = [], jnp.zeros(pts.shape[0], jnp.int32), jnp.ones(pts.shape[0], bool)
    for k, b in enumerate(bins):
        if isinstance(b, int):
            if b <= 0:
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for "
                                   f"dimension {k}")
            lo_hi = None if range is None else (range[2 * k], range[2 * k + 1])
            e = _bin_edges(pts[:, k], b, lo_hi, d.np)
        else:
            e = b.astype(d.np)
        n = e.shape[0] - 1
        x = pts[:, k]
        pos = jnp.searchsorted(e, x, side="right") - 1
        pos = jnp.where(x == e[-1], n - 1, pos)  # the last edge closes the last bin
        inside = inside & (x >= e[0]) & (x <= e[-1])
        index = index * n + jnp.clip(pos, 0, n - 1)
        edges.append(e)
    shape = tuple(e.shape[0] - 1 for e in edges)
    w = jnp.ones(pts.shape[0], d.np) if weight is None else weight.reshape(-1).astype(d.np)
    hist = jnp.zeros(max(1, _prod(shape)), d.np).at[index].add(jnp.where(inside, w, 0))
    hist = hist[:_prod(shape)].reshape(shape)
    if density:
        widths = [jnp.diff(e) for e in edges]
        volume = widths[0]
        for w_k in widths[1:]:
            volume = volume[..., None] * w_k
        hist = hist / (jnp.sum(hist) * volume)
    return (hist, *edges)


def _prod(shape) -> int:
    out = 1
    for s in shape:
        out *= s
    return out


def histogram(input, bins, range=None, weight=None, density=False):  # noqa: A002
    """The one-dimensional ``histogramdd`` of all of ``input``'s elements."""
    d = dtype_of(input)
    if d._kind != 2:
        raise NotImplementedError(f'"histogramdd" not implemented for \'{D.legacy_name(d)}\'')
    return histogramdd(input.reshape(-1, 1), (bins,), range, weight, density)
