"""Factories that are compositions: ``asarray``, ``frombuffer``, ``from_file``,
``empty_strided`` and ``empty_permuted``.

Differences from PyTorch: ``asarray`` of a NumPy array, ``frombuffer`` and ``from_file``
copy the data (JAX arrays are immutable, as with ``from_numpy``), so later writes to the
source do not reach the tensor nor the reverse; ``empty_*`` tensors hold zeros.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtypes as D
from .. import _strides
from ..eager import creation
from ..eager.tensor import Tensor

__all__ = ["asarray", "empty_permuted", "empty_strided", "from_file", "frombuffer"]


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False) -> Tensor:
    """``obj`` as a tensor: a tensor itself when no conversion is asked for (``copy=True``
    always copies; ``copy=False`` refuses a conversion), anything else converted."""
    dtype = None if dtype is None else D.to_dtype(dtype)
    if isinstance(obj, Tensor):
        if copy is False and dtype is not None and dtype is not obj.dtype:
            raise ValueError(f"can't alias tensor with dtype '{D.legacy_name(obj.dtype)}' into "
                             f"dtype '{D.legacy_name(dtype)}'.")
        out = obj.to(dtype=dtype, device=device)
        if copy and out is obj:
            out = obj.clone()
    elif isinstance(obj, np.ndarray | np.generic) or hasattr(obj, "__array__"):
        arr = np.asarray(obj)
        if copy is False and dtype is not None and D.from_numpy_dtype(arr.dtype) is not dtype:
            raise ValueError(f"can't alias tensor with dtype "
                             f"'{D.legacy_name(D.from_numpy_dtype(arr.dtype))}' into dtype "
                             f"'{D.legacy_name(dtype)}'.")
        out = creation.as_tensor(arr, dtype=dtype, device=device)
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        out = creation.tensor(obj, dtype=dtype, device=device)
    return out.requires_grad_(True) if requires_grad else out


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False) -> Tensor:
    """The bytes of a buffer-protocol object read as ``dtype`` (a copy, see above)."""
    d = D.to_dtype(dtype)
    size = memoryview(buffer).nbytes
    if offset < 0 or offset > size:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({size} bytes) minus 1")
    if count == -1 and (size - offset) % d.itemsize:
        raise ValueError(f"buffer length ({size - offset} bytes) after offset ({offset} bytes) "
                         f"must be a multiple of element size ({d.itemsize})")
    if count == 0 or (count == -1 and size == offset):
        raise ValueError("both buffer length (0) and count (-1) must not be 0")
    arr = np.frombuffer(buffer, dtype=d.np, count=count, offset=offset).copy()
    return creation.tensor(arr, dtype=d, requires_grad=requires_grad)


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False) -> Tensor:
    """The first ``size`` elements of a file read as ``dtype``. ``shared=True`` (writes
    reaching the file) is not supported: jtorch's tensors cannot map memory."""
    if shared:
        raise RuntimeError("jtorch does not support torch.from_file(shared=True): its tensors "
                           "cannot map a file's memory; read it with shared=False")
    d = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
    arr = np.fromfile(filename, dtype=d.np, count=size)
    if arr.size < size:
        raise RuntimeError(f"unexpected EOF, expected {size - arr.size} more bytes. The file "
                           "might be corrupted.")
    return creation.tensor(arr, dtype=d, device=device)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False) -> Tensor:
    """A tensor with the given sizes and strides (zeros)."""
    import jtorch

    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} vs "
                           f"{len(size)}")
    if _strides.is_non_overlapping_and_dense(size, stride):
        out = jtorch.zeros(size, dtype=dtype, device=device)
        out._stride = stride
    else:  # gaps or overlap: a view of storage big enough for every address
        n = 1 + sum((s - 1) * st for s, st in zip(size, stride, strict=True)) if math.prod(
            size) else 0
        out = jtorch.zeros(n, dtype=dtype, device=device).as_strided(size, stride).detach()
    return out.requires_grad_(True) if requires_grad else out


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False) -> Tensor:
    """A tensor whose memory holds its dims in ``physical_layout`` order (zeros)."""
    size, order = tuple(size), tuple(physical_layout)
    if len(order) != len(size):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    stride, acc = [0] * len(size), 1
    for d in reversed(order):
        stride[d] = acc
        acc *= max(size[d], 1)
    return empty_strided(size, stride, dtype=dtype, device=device, requires_grad=requires_grad)
