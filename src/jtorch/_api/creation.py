"""Creation functions that are compositions: meshgrid (expanded views)."""

from __future__ import annotations

import warnings

from ..eager.tensor import Tensor

__all__ = ["meshgrid"]


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids from 0-D/1-D tensors: views expanded to the common shape.

    ``indexing="ij"`` (the default, with PyTorch's warning when not given) keeps the input
    order as the dims; ``"xy"`` swaps the first two, as NumPy's default.
    """
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"meshgrid(): expected Tensor, got {type(t).__name__}")
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(tensors)
    if swap:
        order[0], order[1] = order[1], order[0]
    shape = tuple(t.numel() for t in order)
    n = len(order)
    grids = [t.reshape(-1).view((1,) * k + (-1,) + (1,) * (n - k - 1)).expand(shape)
             for k, t in enumerate(order)]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)
