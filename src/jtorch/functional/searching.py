"""searchsorted and bucketize: insertion points in sorted boundaries, with torch's rules.

NaN sorts last, as in PyTorch: a NaN value lands after every non-NaN boundary.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import _dtypes as D
from ._util import cast, dtype_of, is_scalar, result_type


def _search_1d(boundaries, values, right: bool):
    side = "right" if right else "left"
    out = jnp.searchsorted(boundaries, values, side=side)
    if jnp.issubdtype(values.dtype, jnp.floating):
        ends = boundaries.shape[-1] if right else jnp.sum(~jnp.isnan(boundaries))
        out = jnp.where(jnp.isnan(values), ends, out)
    return out


def _check_side(side, right):
    if side is None:
        return bool(right)
    if side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got "
                           f"{side}")
    if right and side == "left":
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got "
                           "side of left while right was True")
    return side == "right"


def _check_sorter(boundaries, sorter):
    if dtype_of(sorter) is not D.int64:
        raise RuntimeError("torch.searchsorted(): sorter must be a tensor of long dtype but got "
                           f"dtype {D.legacy_name(dtype_of(sorter))}")
    if sorter.shape != boundaries.shape:
        raise RuntimeError(
            "torch.searchsorted(): boundary and sorter must have the same size, but got "
            f"boundary tensor {list(boundaries.shape)}and got sorter tensor "
            f"{list(sorter.shape)}")


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Indices where ``input`` would be inserted into the innermost dim of ``sorted_sequence``.

    ``sorted_sequence`` is 1-D, or has the same leading dims as ``input``.
    """
    right = _check_side(side, right)
    b = sorted_sequence
    if b.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    v_shape = () if is_scalar(input) else input.shape
    if b.ndim > 1 and (len(v_shape) != b.ndim or v_shape[:-1] != b.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(b.shape)} and input value tensor {list(v_shape)}")
    if sorter is not None:
        _check_sorter(b, sorter)
        b = jnp.take_along_axis(b, sorter, axis=-1)
    dtype = result_type(sorted_sequence, input)
    b, v = cast(b, dtype), cast(input, dtype)
    if b.ndim == 1:
        out = _search_1d(b, v, right)
    else:
        lead = b.shape[:-1]
        flat = jax.vmap(lambda bb, vv: _search_1d(bb, vv, right))(
            b.reshape(-1, b.shape[-1]), v.reshape(-1, v.shape[-1]))
        out = flat.reshape(*lead, v.shape[-1])
    return out.astype(jnp.int32 if out_int32 else jnp.int64)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each element of ``input`` among the 1-D sorted ``boundaries``."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)
