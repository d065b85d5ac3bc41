"""Linear maps, embeddings, one-hot, normalization, distances and dropout masks.

Norms here give a zero gradient at a zero vector, as PyTorch's norm backward masks it;
``cosine_similarity`` clamps the norms by ``eps`` without differentiating the clamp (torch
2.x clamps them in place under ``no_grad``).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from ._util import broadcast_shapes, dtype_of, norm_dim, not_implemented, result_type
from .products import precision
from .random import keep_mask

__all__ = [
    "linear", "bilinear", "embedding", "embedding_renorm", "embedding_bag", "one_hot",
    "vector_norm", "normalize", "cosine_similarity", "pairwise_distance", "dropout",
]

def _same_dtype(a, b, what="mat1 and mat2") -> None:
    da, db = dtype_of(a), dtype_of(b)
    if da is not db:
        raise RuntimeError(f"{what} must have the same dtype, but got {D.legacy_name(da)} and "
                           f"{D.legacy_name(db)}")


def linear(input, weight, bias=None):
    _same_dtype(input, weight)
    if weight.ndim not in (1, 2) or input.ndim == 0:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{weight.ndim}D")
    k = input.shape[-1]
    if weight.shape[-1] != k:
        rows = math.prod(input.shape[:-1])
        wt = weight.shape[::-1] if weight.ndim == 2 else (weight.shape[0], 1)
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and "
                           f"{wt[0]}x{wt[1]})")
    out = jnp.matmul(input, weight.T, precision=precision())
    if bias is not None:
        _same_dtype(out, bias, "self and mat2")
        broadcast_shapes(out.shape, bias.shape)
        out = out + bias
    return out


def bilinear(input1, input2, weight, bias=None):
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and "
                           f"{input2.ndim}")
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError("bilinear(): input batch dimensions do not match")
    if weight.ndim != 3 or input1.shape[-1] != weight.shape[1] \
            or input2.shape[-1] != weight.shape[2]:
        raise RuntimeError("bilinear(): input size does not match weight size")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError("bilinear(): bias size does not match weight size")
    out = jnp.einsum("...i,oij,...j->...o", input1, weight, input2, precision=precision())
    return out if bias is None else out + bias


def _check_indices(indices, op="embedding", arg="indices") -> None:
    d = dtype_of(indices)
    if d not in (D.int64, D.int32):
        kind = {D.float32: "Float", D.float64: "Double"}.get(d, D.legacy_name(d))
        raise RuntimeError(f"Expected tensor for argument #1 '{arg}' to have one of the "
                           f"following scalar types: Long, Int; but got torch.{kind}Tensor "
                           f"instead (while checking arguments for {op})")


def embedding(weight, input, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """torch.embedding: rows of ``weight``. The padding row gets no gradient; with
    ``scale_grad_by_freq`` each row's gradient is divided by its count in ``input``.

    ``sparse=True`` never reaches here: nn.functional.embedding refuses it where a
    gradient would be recorded, and without one the lookup is the same."""
    _check_indices(input)
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    idx = input.astype(jnp.int64)
    rows = weight.shape[0]
    if padding_idx is not None and padding_idx >= 0:
        frozen = jnp.arange(rows)[:, None] == padding_idx
        weight = jnp.where(frozen, jax.lax.stop_gradient(weight), weight)
    out = weight[idx]
    if scale_grad_by_freq:
        count = jnp.bincount(idx.ravel(), length=rows).astype(weight.dtype)[idx][..., None]
        out = jax.lax.stop_gradient(out) + (out - jax.lax.stop_gradient(out)) / count
    return out


def embedding_renorm(weight, input, max_norm, norm_type=2.0):
    """The new ``weight`` after torch.embedding_renorm_: the rows that ``input`` uses and
    whose norm exceeds ``max_norm`` are scaled to ``max_norm / (norm + 1e-7)``."""
    _check_indices(input, "embedding_renorm_", "indices")
    used = jnp.zeros(weight.shape[0], bool).at[input.ravel()].set(True)
    norms = vector_norm(weight, norm_type, 1, True)
    scale = jnp.asarray(max_norm, weight.dtype) / (norms + jnp.asarray(1e-7, weight.dtype))
    return jnp.where(used[:, None] & (norms > max_norm), weight * scale, weight)


def embedding_bag(weight, input, offsets, per_sample_weights=None, mode="mean",
                  padding_idx=-1, include_last_offset=False, scale_grad_by_freq=False):
    """One bag per ``offsets`` entry (a 1-D ``input``); padding entries do not count."""
    _check_indices(input, "embedding_bag")
    n = input.shape[0]
    bags = offsets.shape[0] - (1 if include_last_offset else 0)
    pos = jnp.arange(n)
    seg = jnp.searchsorted(offsets, pos, side="right") - 1
    keep = seg < bags
    if include_last_offset:
        keep = keep & (pos < offsets[-1])
    if padding_idx is not None and padding_idx >= 0:
        keep = keep & (input != padding_idx)
    seg = jnp.where(keep, seg, bags)  # an extra segment collects what is dropped
    rows = embedding(weight, input, -1, scale_grad_by_freq)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[:, None]
    if mode == "max":
        big = jnp.where(keep[:, None], rows, -jnp.inf)
        out = jax.ops.segment_max(big, seg, num_segments=bags + 1)[:bags]
        return jnp.where(jnp.isneginf(out), jnp.zeros((), out.dtype), out)
    total = jax.ops.segment_sum(jnp.where(keep[:, None], rows, 0), seg,
                                num_segments=bags + 1)[:bags]
    if mode == "sum":
        return total
    count = jax.ops.segment_sum(keep.astype(weight.dtype), seg, num_segments=bags + 1)[:bags]
    return total / jnp.maximum(count, 1)[:, None]


def one_hot(tensor, num_classes):
    return (tensor[..., None] == jnp.arange(num_classes)).astype(jnp.int64)


def _abs(x):
    # sign(0) = 0 is torch's subgradient of |x| at 0; jnp.abs's would be 1.
    return x * jax.lax.stop_gradient(jnp.sign(x))


def vector_norm(x, p=2.0, dim=None, keepdim=False):
    """The p-norm over ``dim`` with PyTorch's gradient: zero at a zero vector."""
    if p == float("inf"):
        return jnp.max(_abs(x), axis=dim, keepdims=keepdim)
    if p == float("-inf"):
        return jnp.min(_abs(x), axis=dim, keepdims=keepdim)
    if p == 0:
        return jnp.sum((x != 0).astype(x.dtype), axis=dim, keepdims=keepdim)
    if p == 1:
        return jnp.sum(_abs(x), axis=dim, keepdims=keepdim)
    if p == 2:
        sq = jnp.sum(x * x, axis=dim, keepdims=keepdim)
    else:
        sq = jnp.sum(jnp.abs(x) ** p, axis=dim, keepdims=keepdim)
    zero = sq == 0
    root = jnp.sqrt if p == 2 else (lambda s: s ** (1.0 / p))
    return jnp.where(zero, jnp.zeros((), sq.dtype), root(jnp.where(zero, 1, sq)))


def _float_input(x, op):
    d = dtype_of(x)
    if d._kind < 2:
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. "
                           f"Got {D.legacy_name(d)}")
    return x


def normalize(input, p=2.0, dim=1, eps=1e-12):
    _float_input(input, "linalg.vector_norm")
    dim = norm_dim(dim, input.ndim)
    n = vector_norm(input, p, dim if input.ndim else None, True)
    return input / jnp.maximum(n, jnp.asarray(eps, n.dtype))


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    d = result_type(x1, x2)
    if d._kind != 2:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{D.legacy_name(d)}")
    shape = broadcast_shapes(x1.shape, x2.shape)
    a = jnp.broadcast_to(x1.astype(d.np), shape)
    b = jnp.broadcast_to(x2.astype(d.np), shape)
    dim = norm_dim(dim, len(shape))

    def unit(v):
        n = vector_norm(v, 2.0, dim if v.ndim else None, True)
        # The clamp is applied without autograd in torch: straight through.
        n = n + jax.lax.stop_gradient(jnp.maximum(n, jnp.asarray(eps, n.dtype)) - n)
        return v / n

    return jnp.sum(unit(a) * unit(b), axis=dim if a.ndim else None)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    d = result_type(x1, x2)
    broadcast_shapes(x1.shape, x2.shape)
    diff = x1 - x2 + jnp.asarray(eps, d.np if d._kind >= 2 else jnp.float32)
    if d._kind < 2:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {D.legacy_name(d)}")
    diff = diff.astype(d.np)
    ndim = max(x1.ndim, x2.ndim)
    return vector_norm(diff, p, ndim - 1 if ndim else None, keepdim and ndim > 0)


def pdist(input, p=2.0):
    """p-norm distances between all pairs of rows i < j, in row-major order."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    d = dtype_of(input)
    if d._kind != 2:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if d.itemsize < 4:
        raise not_implemented("pdist", d)
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    i, j = np.triu_indices(input.shape[0], 1)
    diff = input[i] - input[j]
    if p == float("inf"):
        # Every element at the maximum gets the whole gradient, as PyTorch's pdist backward
        # (a plain max would share it among ties).
        a = _abs(diff)
        top = jax.lax.stop_gradient(jnp.max(a, axis=-1, keepdims=True, initial=0))
        live = jnp.where(a == top, a - jax.lax.stop_gradient(a), 0)
        return top[..., 0] + jnp.sum(live, axis=-1)
    if p in (0, 1, 2):
        return vector_norm(diff, p, -1)
    # A zero difference gets a zero gradient (|x|^p's is infinite there for p < 1).
    nz = diff != 0
    powed = jnp.where(nz, jnp.abs(jnp.where(nz, diff, 1)) ** p, 0)
    total = jnp.sum(powed, axis=-1)
    zero = total == 0
    return jnp.where(zero, 0, jnp.where(zero, 1, total) ** (1.0 / p))


def dropout(input, key, p, feature=False, alpha=False):
    """``input`` times a Bernoulli(1 - p) mask scaled by 1 / (1 - p) (per channel when
    ``feature``); ``alpha`` keeps the mean and variance of SELU activations instead."""
    if p == 1:
        return input * jnp.zeros((), input.dtype)
    shape = input.shape[:2] + (1,) * (input.ndim - 2) if feature else input.shape
    keep = keep_mask(key, shape, 1 - p)
    if not alpha:
        noise = jnp.where(keep, jnp.asarray(1 / (1 - p), input.dtype),
                          jnp.zeros((), input.dtype))
        return input * noise
    a_ = 1.7580993408473766
    a = 1.0 / ((a_ * a_ * p + 1) * (1 - p)) ** 0.5
    k = keep.astype(input.dtype)
    b = (k - 1) * (a_ * a) + a_ * a * p
    return input * (k * a) + b
