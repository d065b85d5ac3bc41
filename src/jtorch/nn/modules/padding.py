"""Padding modules: Zero/Constant/Reflection/Replication/Circular Pad 1d/2d/3d."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = [f"{kind}Pad{n}d" for kind in ("Zero", "Constant", "Reflection", "Replication",
                                         "Circular") for n in (1, 2, 3)]


def _ntuple(x, n):
    return tuple(x) if isinstance(x, list | tuple) else (x,) * n


class _PadNd(Module):
    __constants__ = ["padding"]
    _mode = "constant"
    _n = 0

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._n)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        n = self._n
        if input.dim() not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


_BASES = {"Zero": _ZeroPadNd, "Constant": _ConstantPadNd, "Reflection": _ReflectionPadNd,
          "Replication": _ReplicationPadNd, "Circular": _CircularPadNd}
for _kind, _base in _BASES.items():
    for _n in (1, 2, 3):
        _name = f"{_kind}Pad{_n}d"
        globals()[_name] = type(_name, (_base,), {"_n": _n, "__module__": __name__,
                                                  "__qualname__": _name})
