"""Process-wide settings and small utilities of the torch namespace: CPU threads, warning
and anomaly flags, denormals, ``typename``, ``set_default_tensor_type`` and the deprecated
``torch.range``.

Threads: XLA sizes its CPU thread pool once, when JAX starts its CPU backend, and has no
knob for an exact size. ``set_num_threads(1)`` before that point turns off XLA's
multi-threaded Eigen kernels (matrix products, convolutions); other values are recorded
and returned by ``get_num_threads`` but leave XLA's pool as it is. Called after the
backend started, it warns that the running backend keeps its threads.
"""

from __future__ import annotations

import math
import os
import warnings

from .. import _dtypes as D
from .. import cpu  # noqa: F401 - torch.cpu is an attribute of the torch namespace
from ..eager.autograd import grad_mode
from ..eager.tensor import Tensor

__all__ = ["get_device_module", "get_num_interop_threads", "get_num_threads", "init_num_threads",
           "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "is_vulkan_available",
           "is_warn_always_enabled", "range", "set_anomaly_enabled", "set_default_tensor_type",
           "set_flush_denormal", "set_num_interop_threads", "set_num_threads",
           "set_warn_always", "thread_safe_generator", "typename"]

_state = {"threads": None, "interop": None, "warn_always": False}


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _backend_started() -> bool:
    from jax._src import xla_bridge

    return bool(getattr(xla_bridge, "_backends", None))


def _positive(name: str, n) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return n


def set_num_threads(int) -> None:  # noqa: A002 - PyTorch's parameter name
    """Record the intra-op thread count; 1 turns off XLA's multi-threaded Eigen kernels if
    JAX has not started its CPU backend yet (see the module docstring)."""
    n = _positive("set_num_threads", int)
    if _backend_started():
        warnings.warn("torch.set_num_threads: JAX's backend is already running and XLA sizes "
                      "its CPU thread pool once, at start; the value is recorded but the running "
                      "backend keeps its threads", UserWarning, stacklevel=2)
    elif n == 1 and "xla_cpu_multi_thread_eigen" not in os.environ.get("XLA_FLAGS", ""):
        flags = os.environ.get("XLA_FLAGS", "")
        os.environ["XLA_FLAGS"] = f"{flags} --xla_cpu_multi_thread_eigen=false".strip()
    _state["threads"] = n


def get_num_threads() -> int:
    return _state["threads"] or _cpus()


def init_num_threads() -> None:
    """Nothing to initialise: XLA starts its own pool with its backend."""


def set_num_interop_threads(int) -> None:  # noqa: A002
    """Record the inter-op thread count, with a warning that XLA has no inter-op pool to
    size; a second call raises, as in PyTorch."""
    n = _positive("set_num_interop_threads", int)
    if _state["interop"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work "
                           "has started or set_num_interop_threads called")
    warnings.warn("torch.set_num_interop_threads: XLA has no inter-op thread pool; jtorch "
                  "records the value for get_num_interop_threads only", UserWarning, stacklevel=2)
    _state["interop"] = n


def get_num_interop_threads() -> int:
    return _state["interop"] or _cpus()


# ------------------------------------------------------------------ flags


def set_warn_always(b: bool) -> None:
    """Record the flag. jtorch has no warn-once warnings, so every warning already repeats
    as Python's warning filters allow."""
    _state["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    return _state["warn_always"]


def set_flush_denormal(mode: bool) -> bool:
    """False: XLA compiles its own floating-point environment, which jtorch cannot set
    (PyTorch answers False where the CPU lacks the mode)."""
    return False


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    grad_mode.set_detect_anomaly(enabled, check_nan)


def is_anomaly_enabled() -> bool:
    return grad_mode._state.anomaly


def is_anomaly_check_nan_enabled() -> bool:
    return grad_mode._state.anomaly_nan


def is_vulkan_available() -> bool:
    return False


def thread_safe_generator():
    """None: jtorch's DataLoader workers are processes, where PyTorch also answers None."""
    return None


def get_device_module(device=None):
    """The ``torch.<type>`` module of a device (the accelerator's, else ``torch.cpu``)."""
    import importlib

    from .. import _device

    if isinstance(device, _device.device):
        kind = device.type
    elif isinstance(device, str):
        kind = _device.device(device).type
    elif device is None:
        kind = "cuda" if _device.gpu_available() else "cpu"
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or "
                           "None")
    try:
        return importlib.import_module(f"jtorch.{kind}")
    except ModuleNotFoundError:
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered "
                           f"as 'torch.{kind}'.") from None


# ------------------------------------------------------------------ types


def typename(obj) -> str:
    """The type of ``obj`` as PyTorch names it (jtorch's modules under their torch names)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = obj.__class__.__module__, obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    if module == "jtorch" or module.startswith("jtorch."):  # its public path, torch's name
        module = ".".join(p for p in module[1:].split(".") if not p.startswith("_"))
    return f"{module}.{qualname}"


def set_default_tensor_type(t) -> None:
    """Deprecated: the default dtype (and, for ``torch.cuda.*Tensor``, device) of a legacy
    tensor type, given as the type or its name."""
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
                  UserWarning, stacklevel=2)
    name = t if isinstance(t, str) else f"torch.{getattr(t, '__name__', t)}"
    legacy = name.rsplit(".", 1)[-1].removesuffix("Tensor")
    match = [d for d in D.ALL if D.legacy_name(d) == legacy]
    if not match or not name.startswith("torch."):
        raise AttributeError(f"module 'torch' has no attribute '{name.rsplit('.', 1)[-1]}'")
    cuda = name.startswith("torch.cuda.")
    if cuda:
        from .. import _device

        if not _device.gpu_available():
            raise TypeError(f"type {name} not available. Torch not compiled with CUDA enabled.")
    if not match[0].is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    D.set_default_dtype(match[0])
    from .._device import set_default_device

    set_default_device("cuda" if cuda else None)


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,  # noqa: A001
          requires_grad=False) -> Tensor:
    """Deprecated: ``start`` to ``end`` inclusive, ``floor((end - start) / step) + 1`` values
    of the default dtype (unlike ``arange``)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    import jtorch

    n = math.floor((end - start) / step) + 1
    values = jtorch.arange(n, dtype=jtorch.float64) * step + start
    result = values.to(dtype or D.get_default_dtype(), device=device)
    if out is not None:
        return out.resize_(n).copy_(result)
    return result.requires_grad_(requires_grad) if requires_grad else result
