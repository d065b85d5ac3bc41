"""``torch.as_strided_scatter`` (the registry kernel given the input's memory layout) and
``torch.slice_inverse``."""

from __future__ import annotations

from ..eager.bind import bound
from ..eager.tensor import Tensor

__all__ = ["as_strided_scatter", "slice_inverse"]


def as_strided_scatter(input, src, size, stride, storage_offset=None, *, out=None) -> Tensor:
    """``input`` with the elements of its ``as_strided(size, stride, storage_offset)`` view
    replaced by ``src``, addressing ``input``'s memory through its strides."""
    kw = {} if out is None else {"out": out}
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    return bound("_as_strided_scatter")(input, src, size, stride, storage_offset,
                                        input.stride(), **kw)


def slice_inverse(input, src, dim=0, start=None, end=None, step=1) -> Tensor:
    """The inverse of slicing for functionalization: a view of ``input``'s storage with the
    geometry of ``src`` (the tensor ``input`` was sliced from)."""
    return input.as_strided(src.shape, src.stride(), src.storage_offset())


Tensor.as_strided_scatter = as_strided_scatter
Tensor.slice_inverse = slice_inverse
