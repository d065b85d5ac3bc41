"""torch.autocast: run each listed op in the precision PyTorch's autocast gives it.

Inside ``with torch.autocast(device_type, dtype):`` an op on tensors of that device type
follows its cast policy (``_policy.py``: lower precision, float32, promote), as PyTorch's
dispatcher does. In-place ops and calls with ``out=`` are not autocast, as in PyTorch.
Lower-precision casts of float32 leaves that require grad (weights) are cached until the
outermost region exits (``cache_enabled``).

Autocast costs nothing while it is off: entering a region routes only the listed ops'
bindings through ``_autocast_call`` (``eager.bind.route``), and leaving the last one
routes them back.
"""

from __future__ import annotations

import collections.abc
import functools
import warnings

import numpy as np

from .. import _device as _dev
from .. import _dtypes as D
from ..eager import bind
from . import _policy as P

__all__ = ["autocast", "is_autocast_available", "is_autocast_enabled", "get_autocast_dtype",
           "set_autocast_enabled", "set_autocast_dtype", "custom_fwd", "custom_bwd"]

_DEFAULT_DTYPE = {"cpu": D.bfloat16, "cuda": D.float16}
_enabled: dict = {}  # device type -> bool
_dtype: dict = dict(_DEFAULT_DTYPE)  # device type -> dtype
_state = {"cache": True, "nesting": 0}


def state_key() -> tuple:
    """The autocast state as a hashable value (part of torch.compile's guard key)."""
    if not _enabled:
        return ()
    return tuple(_enabled.items()) + tuple(_dtype.items())


def is_autocast_available(device_type: str) -> bool:
    return device_type in _DEFAULT_DTYPE


def is_autocast_enabled(device_type: str | None = None) -> bool:
    return _enabled.get(device_type or "cuda", False)


def is_any_autocast_enabled() -> bool:
    return any(_enabled.values())


def get_autocast_dtype(device_type: str):
    if device_type not in _DEFAULT_DTYPE:
        raise RuntimeError(f"unknown device type for autocast in get_autocast_dtype: "
                           f"{device_type}")
    return _dtype[device_type]


def set_autocast_enabled(device_type, enabled=None) -> None:
    if enabled is None:  # the old one-argument form is CUDA's
        device_type, enabled = "cuda", device_type
    _enabled[device_type] = bool(enabled)
    _route()


def set_autocast_dtype(device_type: str, dtype) -> None:
    _dtype[device_type] = dtype


def is_autocast_cache_enabled() -> bool:
    return _state["cache"]


def set_autocast_cache_enabled(enabled: bool) -> None:
    _state["cache"] = bool(enabled)


def clear_autocast_cache() -> None:
    P.CACHE.clear()


def autocast_increment_nesting() -> int:
    _state["nesting"] += 1
    return _state["nesting"]


def autocast_decrement_nesting() -> int:
    _state["nesting"] -= 1
    return _state["nesting"]


class autocast:  # noqa: N801 - PyTorch's name
    """Context manager and decorator; see the module docstring for what it casts."""

    def __init__(self, device_type: str, dtype=None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        _dev.device(device_type)  # RuntimeError for an unknown device type, as PyTorch
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type "
                               f"'{device_type}'")
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = _state["cache"] if cache_enabled is None else cache_enabled
        if enabled and device_type == "cuda" and not _dev.gpu_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=2)
            enabled = False
        elif enabled and device_type == "cpu" and self.fast_dtype not in (D.bfloat16,
                                                                          D.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling "
                          "autocast.\nCPU Autocast only supports dtypes of torch.bfloat16, "
                          "torch.float16 currently.", UserWarning, stacklevel=2)
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = _state["cache"]
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        _enabled[self.device] = self._enabled
        _dtype[self.device] = self.fast_dtype
        autocast_increment_nesting()
        _state["cache"] = self._cache_enabled
        _route()
        return self

    def __exit__(self, *exc):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        _enabled[self.device] = self.prev
        _dtype[self.device] = self.prev_fastdtype
        _state["cache"] = self.prev_cache_enabled
        _route()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return fn(*args, **kwargs)

        return wrapper


# ------------------------------------------------------------------ routing the listed ops

_routed: set = set()


def _route() -> None:
    """Route exactly the ops listed for the enabled device types through autocast."""
    want = set()
    for device_type, on in _enabled.items():
        if on:
            want.update(P.POLICIES[device_type])
    if want != _routed:
        bind.route(_routed - want, None)
        bind.route(want - _routed, _autocast_call)
        _routed.clear()
        _routed.update(want)


def _autocast_call(spec, names, vals, statics, out=None):
    """``bind.call`` for a listed op: apply the op's policy on the inputs' device type."""
    device_type = P.device_type_of(vals) if out is None else None
    policy = P.POLICIES[device_type].get(spec.name) if _enabled.get(device_type) else None
    if callable(policy):
        policy = policy(statics)
    if policy is None:
        return bind.call(spec, names, vals, statics, out)
    lower = _dtype[device_type]
    if policy == "banned":
        raise RuntimeError(P.BANNED_MSG)
    if policy == "fp32_opt":
        return bind.call(spec, names, vals, _with_fp32_dtype(spec, vals, statics, device_type))
    if policy in ("lower", "lower_mha"):
        vals = [P.cast(v, lower, device_type, _state["cache"]) for v in vals]
    elif policy in ("fp32", "promote", "lower_out"):
        to = P.promote_type(vals, lower, device_type) if policy == "promote" else D.float32
        vals = [P.cast(v, to, device_type) for v in vals]
    result = bind.call(spec, names, vals, statics)
    if policy == "lower_out":
        return P.cast(result, lower, device_type)
    if policy == "lower_mha":  # its attention weights come from a float32 softmax on CUDA
        return (result[0], P.cast(result[1], D.float32, device_type))
    return result


def _with_fp32_dtype(spec, vals, statics, device_type):
    """fp32_set_opt_dtype: ``dtype=float32`` unless given, when the first input is eligible."""
    i = spec.static.index("dtype")
    first = next(P._leaves(vals), None)
    if statics[i] is None and P._eligible(first, device_type):
        statics = (*statics[:i], D.float32, *statics[i + 1:])
    return statics


# ------------------------------------------------------------------ custom autograd Functions


def _cast(value, device_type: str, dtype):
    """PyTorch's ``_cast`` for ``custom_fwd(cast_inputs=)``: floating tensors of the device
    type (float64 excepted) to ``dtype``, through containers."""
    from ..eager.tensor import Tensor

    if isinstance(value, Tensor):
        eligible = (value.is_floating_point() and value.device.type == device_type
                    and value.dtype is not D.float64)
        return value.to(dtype) if eligible else value
    if isinstance(value, str | bytes | np.ndarray):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        items = (_cast(v, device_type, dtype) for v in value)
        return type(value)(items) if isinstance(value, list | tuple) else items
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorate ``Function.forward``: with ``cast_inputs``, inside an autocast region of
    ``device_type`` the floating inputs are cast and ``forward`` runs with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        if not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast(args, device_type, cast_inputs),
                       **_cast(kwargs, device_type, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorate ``Function.backward`` to run under the autocast state of its forward."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
