"""``nn.functional.pad``: constant, reflect, replicate and circular padding.

``pad`` lists (left, right) pairs starting from the LAST dim; negative amounts crop.
"""

from __future__ import annotations

import jax.numpy as jnp

from ._util import dtype_of

_JNP_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _pairs(input, pad):
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the "
                           "input dimension but got padding length "
                           f"{len(pad)} and input of dimension {input.ndim}")
    pairs = [(0, 0)] * input.ndim
    for i in range(len(pad) // 2):
        pairs[input.ndim - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    return pairs


def _crop(input, pairs):
    index = tuple(slice(max(-lo, 0), size - max(-hi, 0))
                  for size, (lo, hi) in zip(input.shape, pairs, strict=True))
    return input[index], [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]


def _check_mode(input, pairs, k, mode):
    if input.ndim not in (k + 1, k + 2) or k > 3:
        raise NotImplementedError("Only 2D, 3D, 4D, 5D padding with non-constant padding are "
                                  "supported for now")
    for dim in range(input.ndim - k, input.ndim):
        lo, hi = pairs[dim]
        size = input.shape[dim]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding ({lo}, {hi}) "
                               f"at dimension {dim} of input {list(input.shape)}")
        if mode == "circular" and (lo > size or hi > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if size == 0 and (lo > 0 or hi > 0):
            raise RuntimeError(f"{mode} padding: input dimension {dim} of size 0 can't be "
                               "padded")


def pad(input, pad, mode="constant", value=None):
    """torch.nn.functional.pad on a JAX array."""
    pairs = _pairs(input, pad)
    if mode == "constant":
        x, pos = _crop(input, pairs)
        fill = jnp.asarray(0 if value is None else value).astype(input.dtype)
        return jnp.pad(x, pos, constant_values=fill)
    if mode not in _JNP_MODE:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    k = len(pad) // 2
    _check_mode(input, pairs, k, mode)
    if dtype_of(input)._kind == 0:
        raise RuntimeError(f"\"{mode}_pad\" not implemented for 'Bool'")
    x, pos = _crop(input, pairs)
    return jnp.pad(x, pos, mode=_JNP_MODE[mode])
