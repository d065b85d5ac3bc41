"""torch._dynamo.exc: the exceptions torch.compile raises."""

from __future__ import annotations

from ..compiler._function import TorchDynamoException, Unsupported

__all__ = ["TorchDynamoException", "Unsupported"]
