"""Shape and joining functions that are compositions of registry ops and views.

hstack/vstack/dstack/column_stack/row_stack (cat of reshaped inputs), tile (repeat),
broadcast_to/broadcast_tensors/broadcast_shapes (expand), atleast_1d/2d/3d (views),
ravel, unflatten, tensor_split/hsplit/vsplit/dsplit, repeat_interleave.

Tensor methods set here: ``tile``, ``broadcast_to``, ``ravel``, ``hsplit``, ``vsplit``,
``dsplit``, ``repeat_interleave``, ``reshape_as``, ``type_as``.
"""

from __future__ import annotations

import numpy as np

from .. import _strides
from ..eager.bind import bound
from ..eager.tensor import Size, Tensor

__all__ = ["hstack", "vstack", "dstack", "column_stack", "row_stack", "tile", "broadcast_to",
           "broadcast_tensors", "broadcast_shapes", "atleast_1d", "atleast_2d", "atleast_3d",
           "ravel", "unflatten", "tensor_split", "hsplit", "vsplit", "dsplit",
           "repeat_interleave"]


def _cat(tensors, dim, out):
    return bound("cat")(tensors, dim) if out is None else bound("cat")(tensors, dim, out=out)


def _tensor_list(name, tensors):
    if not isinstance(tensors, list | tuple):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors, *, out=None) -> Tensor:
    tensors = _atleast(_tensor_list("hstack", tensors), 1)
    return _cat(tensors, 0 if tensors[0].dim() == 1 else 1, out)


def vstack(tensors, *, out=None) -> Tensor:
    return _cat(_atleast(_tensor_list("vstack", tensors), 2), 0, out)


row_stack = vstack


def dstack(tensors, *, out=None) -> Tensor:
    return _cat(_atleast(_tensor_list("dstack", tensors), 3), 2, out)


def column_stack(tensors, *, out=None) -> Tensor:
    tensors = _tensor_list("column_stack", tensors)
    cols = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors]
    return _cat(cols, 1, out)


def tile(input, dims) -> Tensor:
    """torch.tile: ``repeat`` with ``dims`` left-padded by ones to ``input``'s rank."""
    if isinstance(dims, int):
        raise TypeError("tile(): argument 'dims' (position 2) must be tuple of ints, not int")
    dims = (1,) * (input.dim() - len(dims)) + tuple(dims)
    return input.repeat(dims)


def broadcast_to(input, size) -> Tensor:
    return input.expand(tuple(size))


def broadcast_shapes(*shapes) -> Size:
    """The broadcast of ``shapes`` (ints count as 1-D shapes), without making tensors."""
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    out: list[int] = []
    for i, shape in enumerate(shapes):
        n = max(len(out), len(shape))
        out = [1] * (n - len(out)) + out
        for k in range(1, len(shape) + 1):
            s = shape[-k]
            if s < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                                   f"{list(shape)}")
            if out[-k] == 1 or s == out[-k]:
                out[-k] = s if out[-k] == 1 else out[-k]
            elif s != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {s} at -{k}! Mismatching "
                    f"argument at index {i} had {tuple(shape)}; but expected shape should be "
                    f"broadcastable to {out}")
    return Size(out)


def broadcast_tensors(*tensors) -> tuple:
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element 0 in argument 0, but got "
                            f"{type(t).__name__}")
    shape = Size(())
    for t in tensors:
        shape = _strides_broadcast(shape, t.shape)
    return tuple(t.expand(shape) for t in tensors)


def _strides_broadcast(a, b):
    from ..functional._util import broadcast_shapes as bs

    return Size(bs(a, b))


def _atleast(tensors, n):
    out = []
    for t in tensors:
        if t.dim() == 0:
            t = t.reshape((1,) * n)
        elif n >= 2 and t.dim() == 1:
            t = t.unsqueeze(0)
        if n == 3 and t.dim() == 2:
            t = t.unsqueeze(-1)
        out.append(t)
    return out


def _atleast_fn(n):
    def atleast(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
            return tuple(_atleast(tensors[0], n))
        out = _atleast(tensors, n)
        return out[0] if len(out) == 1 else tuple(out)

    atleast.__name__ = f"atleast_{n}d"
    return atleast


atleast_1d, atleast_2d, atleast_3d = (_atleast_fn(n) for n in (1, 2, 3))


def ravel(input) -> Tensor:
    return input.reshape(-1)


def unflatten(input, dim, sizes) -> Tensor:
    return input.unflatten(dim, sizes)


def tensor_split(input, indices_or_sections, dim=0):
    return input.tensor_split(indices_or_sections, dim)


def _dir_split(name, min_dim, dim):
    def split(input, indices_or_sections):
        if input.dim() < min_dim:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a "
                f"tensor with {input.dim()} dimensions!")
        d = 0 if name == "hsplit" and input.dim() == 1 else dim
        if isinstance(indices_or_sections, int):
            size = input.shape[d]
            if indices_or_sections == 0 or size % indices_or_sections:
                raise RuntimeError(
                    f"torch.{name} attempted to split along dimension {d}, but the size of the "
                    f"dimension {size} is not divisible by the split_size "
                    f"{indices_or_sections}!")
        return input.tensor_split(indices_or_sections, d)

    split.__name__ = name
    return split


hsplit = _dir_split("hsplit", 1, 1)
vsplit = _dir_split("vsplit", 2, 0)
dsplit = _dir_split("dsplit", 3, 2)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Each element (or slice along ``dim``) repeated ``repeats`` times.

    ``torch.repeat_interleave(repeats)`` gives ``arange(len(repeats))`` repeated. Tensor
    repeats are read on the host (the result's size depends on them, as in PyTorch).
    """
    from ..eager.creation import tensor

    if repeats is None:  # the one-argument overload: input holds the repeats
        counts = _counts(input)
        return tensor(np.repeat(np.arange(len(counts)), counts))
    if dim is None:
        input, dim = input.reshape(-1), 0
    d = _strides.wrap_dim(dim, input.dim())
    size = input.shape[d] if input.dim() else 1
    if isinstance(repeats, int) or (isinstance(repeats, Tensor) and repeats.dim() == 0):
        r = int(repeats)
        if r < 0:
            raise RuntimeError("Repeats must be non-negative")
        if input.dim() == 0:
            input = input.reshape(1)
        x = input.unsqueeze(d + 1)
        shape = list(x.shape)
        shape[d + 1] = r
        out_shape = input.shape[:d] + (size * r,) + input.shape[d + 1:]
        return x.expand(shape).contiguous().view(out_shape)
    counts = _counts(repeats)
    if counts.size == 1:
        counts = np.repeat(counts, size)
    if counts.size != size:
        raise RuntimeError(
            "repeats must have the same size as input along dim, but got repeats.size(0) = "
            f"{counts.size} and input.size({d}) = {size}")
    if output_size is not None and output_size != counts.sum():
        raise RuntimeError("allocated size does not match required size")
    index = tensor(np.repeat(np.arange(size), counts))
    return bound("index_select")(input, d, index)


def _counts(repeats) -> np.ndarray:
    counts = np.asarray(repeats).reshape(-1)
    if counts.dtype.kind not in "iu":
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    return counts.astype(np.int64)


def _reshape_as(self, other) -> Tensor:
    return self.reshape(other.shape)


def _type_as(self, other) -> Tensor:
    return self.to(other.dtype)


def _tile_method(self, *dims):
    return tile(self, tuple(dims[0]) if len(dims) == 1 and not isinstance(dims[0], int)
                else dims)


def _broadcast_to_method(self, *size):
    return broadcast_to(self, size[0] if len(size) == 1 and not isinstance(size[0], int)
                        else size)


for _name, _fn in dict(tile=_tile_method, broadcast_to=_broadcast_to_method, ravel=ravel,
                       hsplit=hsplit, vsplit=vsplit, dsplit=dsplit,
                       repeat_interleave=repeat_interleave, reshape_as=_reshape_as,
                       type_as=_type_as).items():
    setattr(Tensor, _name, _fn)
