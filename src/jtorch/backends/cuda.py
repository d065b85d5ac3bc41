"""torch.backends.cuda: ``matmul.allow_tf32`` (tied to the float32 matmul precision, as in
PyTorch) and the reduced-precision-reduction flags."""

from __future__ import annotations

from . import _flags, _sdp
from ._sdp import *  # noqa: F403 - the attention-kernel flags live with the other flags

__all__ = ["matmul", "is_built", *_sdp.__all__]


class cuBLASModule:  # noqa: N801 - PyTorch's class name
    """The ``torch.backends.cuda.matmul`` object; unknown attributes raise AttributeError."""

    _FLAGS = ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction")

    def __init__(self):
        object.__setattr__(self, "_values", dict.fromkeys(self._FLAGS, True))

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _flags.get_float32_matmul_precision() != "highest"
        if name in self._FLAGS:
            return self._values[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            _flags.set_float32_matmul_precision("high" if value else "highest")
        elif name in self._FLAGS:
            self._values[name] = bool(value)
        else:
            raise AttributeError(f"Unknown attribute {name}")


matmul = cuBLASModule()


def is_built() -> bool:
    """Whether JAX has a GPU backend here (PyTorch: whether it was built with CUDA)."""
    return _flags.has_gpu()
