"""``LinearCrossEntropyOptions``: PyTorch's settings for the chunked linear_cross_entropy."""

from __future__ import annotations

import dataclasses

__all__ = ["LinearCrossEntropyOptions"]


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Configuration of PyTorch's chunked ``linear_cross_entropy``.

    Differences from PyTorch: jtorch computes the reference path (the logits are
    materialized; XLA fuses what it can), so these settings change no value and save no
    memory; ``allow_retain_graph=False`` does not make a second backward raise.
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None
