"""View steps that reinterpret elements: ``view_as_real``/``view_as_complex``, the lazy
conjugate and ``view(dtype)``, each with its inverse scatter (so writes through the view
reach the base) and the geometry giving PyTorch's sizes, strides and offset, which count
elements of the view's own dtype."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _dtypes as D


def _with_scatter(scatter):
    """The step's inverse; ``reinterprets`` marks steps that change what an element of the
    storage means (eager ``as_strided``, which addresses the storage, refuses them)."""

    def deco(fn):
        fn.scatter = scatter
        fn.reinterprets = True
        return fn

    return deco


# ------------------------------------------------------------------ complex <-> real pairs


def _pairs_to_complex(x, dtype):
    return lax.complex(x[..., 0], x[..., 1]).astype(dtype)


@_with_scatter(lambda base, src: _pairs_to_complex(src, base.dtype))
def view_as_real(input):
    if not jnp.iscomplexobj(input):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return jnp.stack([jnp.real(input), jnp.imag(input)], axis=-1)


@_with_scatter(lambda base, src: jnp.stack([src.real, src.imag], -1).astype(base.dtype))
def view_as_complex(input):
    """Differences from PyTorch: float16 pairs (complex32 in PyTorch) raise."""
    d = D.from_numpy_dtype(input.dtype)
    if d is D.float16:
        raise RuntimeError("jtorch does not support complex32 (view_as_complex of a Half "
                           "tensor)")
    if d not in (D.float32, D.float64):
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {D.legacy_name(d)}")
    return _pairs_to_complex(input, d.to_complex().np)


def g_view_as_real(shape, stride, offset):
    return (*shape, 2), (*(2 * s for s in stride), 1), 2 * offset, {}


def g_view_as_complex(shape, stride, offset):
    if not shape:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return shape[:-1], tuple(s // 2 for s in stride[:-1]), offset // 2, {}


# ------------------------------------------------------------------ the lazy conjugate


@_with_scatter(lambda base, src: jnp.conj(src).astype(base.dtype))
def conj(input):
    """A conjugated view: reads see the conjugate, writes store the conjugate back."""
    return jnp.conj(input)


def g_same(shape, stride, offset):
    return shape, stride, offset, {}


# ------------------------------------------------------------------ view(dtype)


def _bitcast(x, to: np.dtype):
    """The bits of ``x`` as ``to``; a size change folds or unfolds the last dim."""
    src = x.dtype
    if src == to:
        return x
    if src.kind == "c":  # XLA bitcasts no complex: go through the (real, imag) pairs
        pairs = jnp.stack([jnp.real(x), jnp.imag(x)], -1)
        return _bitcast(pairs.reshape(*x.shape[:-1], 2 * x.shape[-1]), to)
    if to.kind == "c":
        part = np.dtype(f"f{to.itemsize // 2}")
        flat = _bitcast(x, part)
        pairs = flat.reshape(*flat.shape[:-1], flat.shape[-1] // 2, 2)
        return lax.complex(pairs[..., 0], pairs[..., 1]).astype(to)
    if to == np.bool_:  # one byte like uint8/int8, but XLA bitcasts no bool
        return x != 0
    if src == np.bool_:
        return x.astype(to)
    ratio_in, ratio_out = src.itemsize, to.itemsize
    if ratio_in == ratio_out:
        return lax.bitcast_convert_type(x, to)
    if ratio_in > ratio_out:  # one element becomes several: unfold them into the last dim
        out = lax.bitcast_convert_type(x, to)  # shape (..., n, k)
        return out.reshape(*x.shape[:-1], x.shape[-1] * (ratio_in // ratio_out))
    k = ratio_out // ratio_in
    return lax.bitcast_convert_type(x.reshape(*x.shape[:-1], x.shape[-1] // k, k), to)


@_with_scatter(lambda base, src, dtype: _bitcast(src, base.dtype))
def view_dtype(input, dtype):
    return _bitcast(input, np.dtype(dtype))


def g_view_dtype(shape, stride, offset, dtype, from_dtype):
    """PyTorch's size rules for viewing ``from_dtype`` elements as ``dtype``."""
    a, b = from_dtype.itemsize, dtype.itemsize
    if a == b:
        return shape, stride, offset, {"dtype": dtype.np}
    what = (f"to view {D.legacy_name(from_dtype)} as {D.legacy_name(dtype)} (different "
            "element sizes)")
    if not shape:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    if stride[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
    if a > b:
        k = a // b
        return ((*shape[:-1], shape[-1] * k), (*(s * k for s in stride[:-1]), 1), offset * k,
                {"dtype": dtype.np})
    k = b // a
    for name, v in (("size(-1)", shape[-1]), ("storage_offset()", offset)):
        if v % k:
            raise RuntimeError(f"self.{name} must be divisible by {k} {what}, but got {v}")
    for d, s in enumerate(stride[:-1]):
        if s % k:
            raise RuntimeError(f"self.stride({d}) must be divisible by {k} {what}, but got {s}")
    return ((*shape[:-1], shape[-1] // k), (*(s // k for s in stride[:-1]), 1), offset // k,
            {"dtype": dtype.np})
