"""torch.nn.functional.pad (the registry op of ``_ops/nn_vision.py``)."""

from __future__ import annotations

from jtorch.eager.bind import bound

__all__ = ["pad"]

pad = bound("pad")
