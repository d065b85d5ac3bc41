"""default_collate / default_convert: turning samples into batches of tensors."""

from __future__ import annotations

import collections
import re

import numpy as np

__all__ = ["default_collate", "default_convert"]

_NP_STRING = re.compile(r"[SaUO]")
_ELEM_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
               "lists; found {}")


def _tensor_type():
    from ....eager.tensor import Tensor

    return Tensor


def default_convert(data):
    """NumPy arrays and scalars become tensors; containers are converted element-wise;
    anything else is returned unchanged (no batching)."""
    from .... import as_tensor

    Tensor = _tensor_type()
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray | np.generic) and not isinstance(data, np.str_ | np.bytes_):
        if data.dtype.kind in "SaUO":
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            return type(data)({k: default_convert(v) for k, v in data.items()})
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, str | bytes):
        try:
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    """Stack a list of samples into a batch, recursing into their structure:
    tensors and NumPy arrays are stacked, Python floats become float64 tensors, ints
    int64, bools bool; strings stay; mappings, named tuples and sequences are collated per
    field (a sequence sample gives a list of batches)."""
    from .... import as_tensor, float64, int64, stack, tensor

    Tensor = _tensor_type()
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if isinstance(elem, np.ndarray | np.generic) and not isinstance(elem, np.str_ | np.bytes_):
        if elem.dtype.kind in "SaUO":
            raise TypeError(_ELEM_ERROR.format(elem.dtype))
        if isinstance(elem, np.ndarray):
            return default_collate([as_tensor(b) for b in batch])
        return as_tensor(np.asarray(batch))
    if isinstance(elem, bool):
        return tensor(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):
        return tensor(batch, dtype=int64)
    if isinstance(elem, str | bytes):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        try:
            return type(elem)({k: default_collate([d[k] for d in batch]) for k in elem})
        except TypeError:
            return {k: default_collate([d[k] for d in batch]) for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        size = len(next(it))
        if not all(len(e) == size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(s) for s in columns]
        try:
            return type(elem)([default_collate(s) for s in columns])
        except TypeError:
            return [default_collate(s) for s in columns]
    raise TypeError(_ELEM_ERROR.format(type(elem)))
