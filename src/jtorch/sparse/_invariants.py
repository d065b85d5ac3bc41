"""torch.sparse.check_sparse_tensor_invariants and the index checks it switches on."""

from __future__ import annotations

import numpy as np

_state = {"enabled": False}


class check_sparse_tensor_invariants:  # noqa: N801 - PyTorch's name
    """Check the indices of every sparse tensor made inside the block (or everywhere,
    after ``enable()``), as PyTorch; off by default."""

    @staticmethod
    def is_enabled() -> bool:
        return _state["enabled"]

    @staticmethod
    def enable() -> None:
        _state["enabled"] = True

    @staticmethod
    def disable() -> None:
        _state["enabled"] = False

    def __init__(self, enable=True):
        self.state = enable
        self.saved_state = None

    def __enter__(self):
        if self.saved_state is not None:
            raise RuntimeError("This context manager instance is already activated. Use a "
                               "different context manager instance for context nesting.")
        self.saved_state = _state["enabled"]
        _state["enabled"] = self.state
        return self

    def __exit__(self, *exc):
        _state["enabled"] = self.saved_state
        self.saved_state = None

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


def wanted(check_invariants) -> bool:
    """Whether to check: ``check_invariants=`` if given, else the global switch."""
    return _state["enabled"] if check_invariants is None else bool(check_invariants)


def check_indices(indices: np.ndarray, size) -> None:
    """PyTorch's _validate_sparse_coo_tensor_args: every index lies in [0, size) of its
    dim."""
    for d, row in enumerate(indices):
        lo, hi = int(row.min()), int(row.max())
        if lo < 0:
            raise RuntimeError(f"found negative index {lo} for dim {d}")
        if hi >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                               f"{size[d]} but found index {hi}")
