"""torch.nn.functional.pad (the registry op of ``_ops/nn_vision.py``).

Constant padding of data that needs no gradient (a collate function padding each batch to
its longest sequence, a data set padded once) is built by NumPy and transferred on the
CPU backend: the op's kernel compiles for every new shape, as such batches keep coming.
Everything else, and any argument the host path does not take as it is, is the op's.
"""

from __future__ import annotations

import numpy as np

import jtorch
from jtorch import _kernels
from jtorch._device import PLACEMENT
from jtorch.eager import dispatch, hooks
from jtorch.eager.bind import bound
from jtorch.eager.tensor import Tensor, wrap

__all__ = ["pad"]

_pad = bound("pad")


def pad(input, pad, mode="constant", value=None):
    """Pad ``input``'s last ``len(pad) // 2`` dimensions (``pad`` lists each one's
    (before, after), the last dimension first), by ``value`` or as ``mode`` says."""
    out = _host_pad(input, pad, mode, value)
    return _pad(input, pad, mode, value) if out is None else out


def _host_pad(input, pad, mode, value):
    """The constant padding built on the host, or None where the op's kernel must run."""
    if (mode != "constant" or type(input) is not Tensor or type(pad) not in (tuple, list)
            or len(pad) % 2 or len(pad) // 2 > input.dim()
            or any(type(p) is not int or p < 0 for p in pad)
            or (value is not None and type(value) not in (int, float, bool))
            or (input.requires_grad and jtorch.is_grad_enabled())
            or dispatch.PROFILER is not None or hooks.RECORDER is not None
            or PLACEMENT.active or not input.is_contiguous()):
        return None
    value_array = input._value
    if not _kernels._on_host(value_array):
        return None
    arr = np.asarray(value_array)
    fill = np.asarray(0 if value is None else value)
    if fill.dtype != arr.dtype:
        # the kernel casts the value as XLA converts; take only casts NumPy makes alike
        exact = arr.dtype.kind in "iub" and fill.astype(arr.dtype) == fill
        if not (exact or _kernels.host_converts(fill.dtype, arr.dtype)):
            return None
        fill = fill.astype(arr.dtype)
    shape, where = list(arr.shape), [slice(None)] * arr.ndim
    for i in range(len(pad) // 2):
        d, before, after = arr.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        shape[d] += before + after
        where[d] = slice(before, before + arr.shape[d])
    out = np.full(shape, fill, dtype=arr.dtype)
    out[tuple(where)] = arr
    return wrap(_kernels.device_array(out))
