"""torch.autocast: run matrix products and convolutions in a lower precision.

Inside ``with torch.autocast(device_type, dtype):`` the ops PyTorch lists as
"lower_precision_fp" (matmul, mm, bmm, addmm, baddbmm, addbmm, linear, conv*d,
conv_transpose*d, prelu, scaled_dot_product_attention) cast their floating-point
arguments (float64 excepted) on that device type to ``dtype`` first, differentiably, so
their results come out in ``dtype``; every other op runs in its inputs' precision.

Differences from PyTorch: only that list is autocast. PyTorch's "fp32" list (softmax,
losses, norms: run in float32 when given lower-precision inputs) and its "promote" list
(cat, stack, addcmul...) are not applied, and no cast cache is kept (casts are
recomputed per call; ``cache_enabled`` is accepted).
"""

from __future__ import annotations

import functools
import warnings

from .. import _device as _dev
from .. import _dtypes as D

__all__ = ["autocast", "is_autocast_available", "is_autocast_enabled", "get_autocast_dtype",
           "set_autocast_enabled", "set_autocast_dtype"]

_DEFAULT_DTYPE = {"cpu": D.bfloat16, "cuda": D.float16}
_enabled: dict = {}  # device type -> bool
_dtype: dict = {}  # device type -> dtype


def state_key() -> tuple:
    """The autocast state as a hashable value (part of torch.compile's guard key)."""
    if not _enabled:
        return ()
    return tuple(_enabled.items()) + tuple(_dtype.items())


def is_autocast_available(device_type: str) -> bool:
    return device_type in _DEFAULT_DTYPE


def is_autocast_enabled(device_type: str | None = None) -> bool:
    return _enabled.get(device_type or "cuda", False)


def get_autocast_dtype(device_type: str):
    return _dtype.get(device_type, _DEFAULT_DTYPE.get(device_type, D.float16))


def set_autocast_enabled(device_type, enabled=None) -> None:
    if enabled is None:  # the old one-argument form is CUDA's
        device_type, enabled = "cuda", device_type
    _enabled[device_type] = bool(enabled)


def set_autocast_dtype(device_type: str, dtype) -> None:
    _dtype[device_type] = dtype


class autocast:  # noqa: N801 - PyTorch's name
    """Context manager and decorator; see the module docstring for what it casts."""

    def __init__(self, device_type: str, dtype=None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        _dev.device(device_type)  # RuntimeError for an unknown device type, as PyTorch
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = True if cache_enabled is None else cache_enabled
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type "
                               f"'{device_type}'")
        if enabled and device_type == "cuda" and not _dev.gpu_available():
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. "
                          "Disabling", UserWarning, stacklevel=2)
            enabled = False
        if enabled and device_type == "cpu" and self.fast_dtype not in (D.bfloat16, D.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling "
                          "autocast.\nCPU Autocast only supports dtype of torch.bfloat16, "
                          "torch.float16 currently.", UserWarning, stacklevel=2)
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        self._prev = (_enabled.get(self.device, False), get_autocast_dtype(self.device))
        _enabled[self.device] = self._enabled
        _dtype[self.device] = self.fast_dtype
        _refresh()
        return self

    def __exit__(self, *exc):
        _enabled[self.device], _dtype[self.device] = self._prev
        _refresh()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return fn(*args, **kwargs)

        return wrapper


_active = [False]  # any device type enabled: the only check the wrapped ops make


def _refresh() -> None:
    _active[0] = any(_enabled.values())


def _cast_args(args, kwargs):
    from ..eager.tensor import Tensor

    first = next((a for a in args if isinstance(a, Tensor)), None)
    if first is None:
        return args, kwargs
    device_type = first.device.type
    if not _enabled.get(device_type, False):
        return args, kwargs
    dtype = get_autocast_dtype(device_type)

    def cast(a):
        if (isinstance(a, Tensor) and a.dtype.is_floating_point and a.dtype is not D.float64
                and a.dtype is not dtype and a.device.type == device_type):
            return a.to(dtype)
        return a

    return tuple(cast(a) for a in args), {k: cast(v) for k, v in kwargs.items()}


def _autocasting(fn):
    @functools.wraps(fn)
    def op(*args, **kwargs):
        if _active[0]:
            args, kwargs = _cast_args(args, kwargs)
        return fn(*args, **kwargs)

    op._autocast_wrapped = True
    return op


_TORCH_OPS = ("matmul", "mm", "bmm", "addmm", "addbmm", "baddbmm", "conv1d", "conv2d",
              "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu")
_F_OPS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
          "conv_transpose3d", "prelu", "scaled_dot_product_attention")
_METHODS = ("matmul", "mm", "bmm", "addmm", "addbmm", "baddbmm", "prelu", "__matmul__",
            "__rmatmul__")


def install(torch_namespace: dict, functional, tensor_cls) -> None:
    """Wrap the lower-precision ops where users reach them (torch.X, F.X, Tensor.X)."""
    for owner, names in ((torch_namespace, _TORCH_OPS), (vars(functional), _F_OPS)):
        for name in names:
            fn = owner.get(name)
            if fn is not None and not getattr(fn, "_autocast_wrapped", False):
                wrapped = _autocasting(fn)
                if owner is torch_namespace:
                    torch_namespace[name] = wrapped
                else:
                    setattr(functional, name, wrapped)
    for name in _METHODS:
        fn = getattr(tensor_cls, name, None)
        if fn is not None and not getattr(fn, "_autocast_wrapped", False):
            setattr(tensor_cls, name, _autocasting(fn))
