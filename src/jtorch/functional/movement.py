"""Ops that move or repeat elements without arithmetic: flip, roll, rot90, repeat, narrow_copy.

Each returns a fresh array (PyTorch copies here too); the view ops live in ``shape.py``.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from ._util import norm_dim, norm_dims


def _dims(dims) -> tuple:
    return (dims,) if isinstance(dims, int) else tuple(dims)


def flip(input, dims):
    """torch.flip: reverse the order of elements along each of ``dims``."""
    if isinstance(dims, int):
        raise TypeError("flip(): argument 'dims' (position 2) must be tuple of ints, not int")
    axes = norm_dims(_dims(dims), input.ndim)
    return jnp.flip(input, axes) if input.ndim and axes else input


def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return jnp.flip(input, 1)


def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return jnp.flip(input, 0)


def roll(input, shifts, dims=()):
    """torch.roll: with no ``dims`` the flattened tensor rolls and keeps its shape."""
    shifts, dims = _dims(shifts), _dims(() if dims is None else dims)
    if not dims:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               "dims:0")
        return jnp.roll(input.reshape(-1), shifts[0]).reshape(input.shape)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    axes = tuple(norm_dim(d, input.ndim) for d in dims)
    if input.ndim == 0:
        return input
    return jnp.roll(input, shifts, axes)


def rot90(input, k=1, dims=(0, 1)):
    """torch.rot90: rotate by ``k`` quarter turns from ``dims[0]`` towards ``dims[1]``.

    Differences from PyTorch: for odd ``k`` PyTorch returns a transposed (non-contiguous)
    tensor; here the result is contiguous (values and shape agree).
    """
    dims = _dims(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = norm_dim(dims[0], input.ndim), norm_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    return jnp.rot90(input, k % 4, axes=(d0, d1))


def repeat(input, repeats):
    """``Tensor.repeat``: tile ``input`` (left-padded with size-1 dims) ``repeats`` times."""
    repeats = _dims(repeats)
    if len(repeats) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    shape = (1,) * (len(repeats) - input.ndim) + input.shape
    out = tuple(s * r for s, r in zip(shape, repeats, strict=True))
    if any(r < 0 for r in repeats):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: "
                           f"{list(out)}")
    return jnp.tile(input.reshape(shape), repeats)


def narrow_copy(input, dim, start, length):
    """A copy of ``input.narrow(dim, start, length)``."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = norm_dim(dim, input.ndim)
    size = input.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-size}, "
                         f"{size}], but got {start})")
    start = start + size if start < 0 else start
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return lax.slice_in_dim(input, start, start + length, axis=d)
