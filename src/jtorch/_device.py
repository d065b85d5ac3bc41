"""torch.device: a (type, index) pair; the CUDA semantics on JAX devices build on it."""

from __future__ import annotations


class device:
    """``torch.device('cpu')``, ``torch.device('cuda:1')``, ``torch.device('cuda', 0)``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int):
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments: {type!r}")
        if ":" in type:
            if index is not None:
                raise ValueError(
                    "type (string) must not include an index because index was passed explicitly: "
                    + type
                )
            type, _, idx = type.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in ("cpu", "cuda", "meta", "mps", "xla"):
            raise RuntimeError(
                "Expected one of cpu, cuda, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
                f"maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at "
                f"start of device string: {type}"
            )
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
        self.type, self.index = type, index

    def __repr__(self) -> str:
        idx = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{idx})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


CPU = device("cpu")
