"""torch.types: the type aliases of PyTorch's signatures."""

from __future__ import annotations

import os
from builtins import bool as _bool
from builtins import bytes as _bytes
from builtins import complex as _complex
from builtins import float as _float
from builtins import int as _int
from builtins import str as _str
from typing import IO, TypeAlias

from ._device import device as _device
from ._dtypes import dtype as _dtype
from .eager.tensor import Size as _Size
from .eager.tensor import Tensor

__all__ = ["Number", "Device", "FileLike", "Storage"]

_TensorOrTensors: TypeAlias = Tensor | tuple[Tensor, ...]
_TensorOrOptionalTensors: TypeAlias = Tensor | None | tuple[Tensor | None, ...]
_size: TypeAlias = _Size | list[_int] | tuple[_int, ...]
_symsize = _size
_layout: TypeAlias = object
_dispatchkey: TypeAlias = _str
_qscheme: TypeAlias = object
Number: TypeAlias = _int | _float | _bool
_Number = (_int, _float, _bool)
IntLikeType: TypeAlias = _int
FloatLikeType: TypeAlias = _float
BoolLikeType: TypeAlias = _bool
Device: TypeAlias = _device | _str | _int | None
FileLike: TypeAlias = _str | os.PathLike[_str] | IO[_bytes]
Storage: TypeAlias = object
py_sym_types = ()

__all__ += ["_bool", "_bytes", "_complex", "_device", "_dtype", "_float", "_int", "_size",
            "_str"]
