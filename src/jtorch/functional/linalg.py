"""Norms, traces and triangular/diagonal matrix helpers (products live in products.py,
factorizations in decomposition.py)."""

from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp

from .. import _dtypes as D
from ._util import cast, dtype_of, norm_dim, norm_dims, not_implemented
from .products import matmul, mm  # noqa: F401 - their historical home


def _floating(op: str, x) -> None:
    if dtype_of(x)._kind < 2:
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got "
            f"{D.legacy_name(dtype_of(x))}")


# ------------------------------------------------------------------ vector and matrix norms


def _sgn(x):
    if jnp.iscomplexobj(x):
        a = jnp.abs(x)
        return jnp.where(a == 0, 0, x / jnp.where(a == 0, 1, a))
    return jnp.sign(x)


# PyTorch's norm gradient is 0 where the norm is 0 (JAX's is NaN for ord 2), splits evenly
# among ties for ord ±inf and is 0 for ord 0: its norm_backward formulas, written here.
@partial(jax.custom_vjp, nondiff_argnums=(1, 2, 3))
def _vnorm(x, ord, dims, keepdim):
    a = jnp.abs(x)
    if ord == math.inf:
        return jnp.max(a, axis=dims, keepdims=keepdim)
    if ord == -math.inf:
        return jnp.min(a, axis=dims, keepdims=keepdim)
    if ord == 0:
        return jnp.sum(a != 0, axis=dims, keepdims=keepdim).astype(a.dtype)
    if ord == 1:
        return jnp.sum(a, axis=dims, keepdims=keepdim)
    if ord == 2:
        return jnp.sqrt(jnp.sum(a * a, axis=dims, keepdims=keepdim))
    return jnp.sum(a**ord, axis=dims, keepdims=keepdim) ** (1.0 / ord)


def _vnorm_fwd(x, ord, dims, keepdim):
    norm = _vnorm(x, ord, dims, keepdim)
    return norm, (x, norm)


def _vnorm_bwd(ord, dims, keepdim, res, g):
    x, norm = res
    if not keepdim:
        g, norm = jnp.expand_dims(g, dims), jnp.expand_dims(norm, dims)
    a, sgn = jnp.abs(x), _sgn(x)
    safe = jnp.where(norm == 0, 1, norm)
    if ord == 0:
        gx = jnp.zeros_like(x)
    elif ord == 1:
        gx = sgn * g
    elif ord == 2:
        gx = x * jnp.where(norm == 0, 0, g / safe)
    elif math.isinf(ord):
        mask = (a == norm) | jnp.isnan(a)
        gx = sgn * (g / jnp.sum(mask, axis=dims, keepdims=True)) * mask
    elif ord < 1:
        scaled = sgn * jnp.where(a == 0, 0, jnp.where(a == 0, 1, a) ** (ord - 1))
        gx = scaled * g * norm ** (1 - ord)
    elif ord < 2:
        gx = sgn * a ** (ord - 1) * jnp.where(norm == 0, 0, g / safe ** (ord - 1))
    else:
        gx = x * a ** (ord - 2) * jnp.where(norm == 0, 0, g / safe ** (ord - 1))
    # PyTorch's complex gradient is the conjugate of JAX's cotangent convention.
    return (jnp.conj(gx).astype(x.dtype),)


_vnorm.defvjp(_vnorm_fwd, _vnorm_bwd)


def _norm_input(op, x, dtype):
    _floating(op, x)
    if dtype is not None:
        if D.promote_types(dtype_of(x), dtype) is not dtype:
            raise RuntimeError(
                f"{op}: the dtype of the input ({D.legacy_name(dtype_of(x))}) should be "
                f"convertible without narrowing to the specified dtype "
                f"({D.legacy_name(dtype)})")
        x = cast(x, dtype)
    return x


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.vector_norm: the ord-norm over ``dim`` (all elements when None)."""
    x = _norm_input("linalg.vector_norm", x, dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got {ord}")
    ord = float(ord)
    dims = norm_dims(dim if dim != () else None, x.ndim)
    if (ord < 0 or math.isinf(ord)) and x.size == 0 and any(x.shape[d] == 0 for d in dims):
        name = ("inf" if ord > 0 else "-inf") if math.isinf(ord) else f"{ord:g}"
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {name} norm on an empty tensor because "
            "the operation does not have an identity")
    if x.ndim == 0:
        return _vnorm(x.reshape(1), ord, (0,), False).reshape(())
    return _vnorm(x, ord, dims, keepdim)


_MATRIX_ORDS = ("fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """torch.linalg.matrix_norm: 'fro', 'nuc', ±1, ±2, ±inf over the two dims ``dim``."""
    A = _norm_input("linalg.matrix_norm", A, dtype)
    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if ord not in _MATRIX_ORDS:
        raise RuntimeError(
            f"linalg.matrix_norm: Order {ord} not supported.")
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {list(dim)}")
    d0, d1 = (norm_dim(d, A.ndim) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        from .decomposition import _svdvals

        s = _svdvals(jnp.moveaxis(A, (d0, d1), (-2, -1)))
        out = jnp.sum(s, -1) if ord == "nuc" else (jnp.max if ord == 2 else jnp.min)(s, -1)
    else:
        rows, cols = (d0, d1) if abs(ord) == 1 else (d1, d0)
        pick = jnp.max if ord > 0 else jnp.min
        out = pick(jnp.sum(jnp.abs(A), axis=rows, keepdims=True), axis=cols, keepdims=True)
        out = jnp.squeeze(out, (d0, d1))
    return jnp.expand_dims(out, sorted((d0, d1))) if keepdim else out


def norm(input, ord=None, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.norm: a vector norm for an int ``dim`` or flattened input, else a matrix
    norm (2-tuple ``dim``, a string ord, or a 2-D input with an ord)."""
    if isinstance(dim, int):
        dim = (dim,)
    matrix = (dim is not None and len(dim) == 2) or (
        dim is None and ord is not None and input.ndim == 2)
    if dim is None and ord is not None and input.ndim not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
            f"Got {input.ndim}D.")
    if isinstance(ord, str) and not matrix:
        raise RuntimeError(f"linalg.norm: Order {ord} not supported.")
    if matrix:
        return matrix_norm(input, "fro" if ord is None else ord, dim or (-2, -1), keepdim,
                           dtype=dtype)
    if dim is None and ord is None:
        out = vector_norm(input, 2, None, False, dtype=dtype)
        return out.reshape((1,) * input.ndim) if keepdim else out
    return vector_norm(input, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


# ------------------------------------------------------------------ triangles and diagonals


def _at_least_2d(op: str, x) -> None:
    if x.ndim < 2:
        raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions")


def tril(input, diagonal=0):
    """torch.tril: zero above the ``diagonal``-th diagonal of the last two dims."""
    _at_least_2d("tril", input)
    return jnp.tril(input, diagonal)


def triu(input, diagonal=0):
    """torch.triu: zero below the ``diagonal``-th diagonal of the last two dims."""
    _at_least_2d("triu", input)
    return jnp.triu(input, diagonal)


def trace(input):
    """torch.trace: the sum of a matrix's diagonal (integers accumulate in int64)."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    d = dtype_of(input)
    if d is D.bool:
        raise not_implemented("trace", d)
    out = D.int64 if d._kind == 1 else d
    return jnp.trace(input).astype(out.np)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """torch.diag_embed: the last dim of ``input`` on the ``offset`` diagonal of (dim1, dim2)."""
    nd = input.ndim + 1
    d1, d2 = norm_dim(dim1, nd), norm_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(
            f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    k = input.shape[-1] if input.ndim else 1
    n = k + abs(offset)
    rows = jnp.arange(k) + max(-offset, 0)
    cols = jnp.arange(k) + max(offset, 0)
    base = jnp.zeros(input.shape[:-1] + (n, n), input.dtype)
    out = base.at[..., rows, cols].set(input.reshape(input.shape[:-1] + (k,)))
    return jnp.moveaxis(out, (-2, -1), (d1, d2))


def diag(input, diagonal=0):
    """torch.diag: a 1-D input becomes a diagonal matrix; a matrix gives its diagonal."""
    if input.ndim == 1:
        return diag_embed(input, diagonal)
    if input.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    return jnp.diagonal(input, diagonal)


def diagflat(input, offset=0):
    """torch.diagflat: the flattened input on the ``offset`` diagonal of a square matrix."""
    return diag_embed(input.reshape(-1), offset)



def vander(x, *, N=None):
    """torch.linalg.vander: increasing powers x^0 .. x^(N-1) as the last dim (a cumprod,
    as PyTorch computes it)."""
    if x.ndim < 1:
        raise RuntimeError("N must be greater than 1.")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    d = D.int64 if dtype_of(x)._kind <= 1 else dtype_of(x)
    x = cast(x, d)
    ones = jnp.ones(x.shape + (1,), d.np)
    reps = jnp.broadcast_to(x[..., None], x.shape + (n - 1,))
    return jnp.cumprod(jnp.concatenate([ones, reps], -1), -1).astype(d.np)
