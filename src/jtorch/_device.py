"""torch.device: a (type, index) pair, and its mapping onto JAX devices.

'cuda' means JAX's GPU backend. Where JAX has no GPU, asking for a CUDA tensor raises
what PyTorch's CPU build raises, so scripts fail (or branch on
``torch.cuda.is_available()``) exactly as they would there.
"""

from __future__ import annotations

import functools
import re

_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)
_PATTERN = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?")


class device:
    """``torch.device('cpu')``, ``torch.device('cuda:1')``, ``torch.device('cuda', 0)``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            # A bare ordinal names the current accelerator, which must exist.
            if not gpu_available():
                raise RuntimeError("Cannot access accelerator device when none is available.")
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(
                f"device() received an invalid combination of arguments - got "
                f"({_type_name(type)}), but expected one of: (torch.device device), "
                f"(str type, int index = -1)"
            )
        if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
            raise TypeError(
                f"device(): argument 'index' (position 2) must be int, not {_type_name(index)}"
            )
        match = _PATTERN.fullmatch(type)
        if match is None:
            raise RuntimeError(f"Invalid device string: '{type}'")
        name, idx = match.groups()
        if name not in _TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(_TYPES)} device type at start of device string: "
                f"{type}"
            )
        if idx is not None:
            if index is not None:
                raise RuntimeError(
                    "type (string) must not include an index because index was passed "
                    f"explicitly: {type}"
                )
            index = int(idx)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type, self.index = name, index

    def __repr__(self) -> str:
        idx = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{idx})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        # Like torch, a device never equals a string: compare ``str(d)`` for that.
        if not isinstance(other, device):
            return NotImplemented
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


def _type_name(x) -> str:
    return "NoneType" if x is None else type(x).__name__


@functools.cache
def gpu_available() -> bool:
    import jax

    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:
        return False


def jax_device(dev: device):
    """The JAX device a torch device lives on; torch's CPU-build errors where it has none."""
    import jax

    if dev.type == "cpu":
        return jax.devices("cpu")[0]
    if dev.type == "cuda":
        if not gpu_available():
            raise AssertionError("Torch not compiled with CUDA enabled")
        gpus = jax.devices("gpu")
        index = dev.index or 0
        if index >= len(gpus):
            raise RuntimeError(
                "CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously "
                "reported at some other API call, so the stacktrace below might be incorrect."
            )
        return gpus[index]
    if dev.type == "meta":
        raise NotImplementedError("jtorch has no meta tensors: JAX arrays always hold data")
    raise RuntimeError(f"PyTorch is not linked with support for {dev.type} devices")


CPU = device("cpu")
