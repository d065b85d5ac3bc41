"""Factories: arrays from static sizes and Python numbers, with torch's dtype rules.

Sizes and numbers are static (Python values), so these functions work inside ``jax.jit``
when called with concrete arguments. The values follow torch's CPU kernels: ``arange`` and
``linspace`` compute in the same precision torch does, so endpoints and integer results
match exactly.
"""

from __future__ import annotations

import math
import operator

import jax.numpy as jnp
import numpy as np
from jax.export import is_symbolic_dim

from .. import _dtypes as D
from ._util import cast, dtype_of, is_scalar

_C_NAMES = {"int8": "signed char", "uint8": "uint8_t", "int16": "short", "int32": "int",
            "int64": "int64_t", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "float32": "float", "float64": "double", "bool": "bool"}


def _size(size) -> tuple[int, ...]:
    """A shape from ints (or anything with ``__index__`` that is not a bool)."""
    out = []
    for s in size:
        if is_symbolic_dim(s):  # torch.export's dynamic shapes (jax.export symbolic sizes)
            out.append(s)
            continue
        if isinstance(s, bool) or not hasattr(type(s), "__index__"):
            raise TypeError(f"argument 'size' must be tuple of ints, but got {type(s).__name__}")
        out.append(operator.index(s))
    if any(s < 0 for s in out):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: {out}")
    return tuple(out)


def _number(x):
    """NumPy scalars act as the Python numbers they hold (torch's ``Scalar``)."""
    return D.numpy_scalar(x) if isinstance(x, np.generic) else x


_FLOAT_MAX: dict = {}  # dtype name -> its largest finite value (jnp.finfo costs us)


def checked_scalar(value, dtype: D.dtype):
    """``value`` converted to ``dtype`` as torch's ``Scalar.to<T>()``: overflow raises.

    Integers may wrap into unsigned types down to ``-max`` (two's complement), finite
    values beyond a float type's range raise (infinities pass), and NaN/inf never fit an
    integer.
    """
    value = _number(value)
    if dtype._kind == 0:
        return bool(value)
    if isinstance(value, complex) and dtype._kind != 3:
        if value.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {_C_NAMES[dtype.name]} "
                               "without overflow")
        value = value.real
    if dtype._kind == 1:
        ok = math.isfinite(value) if isinstance(value, float) else True
        info = np.iinfo(dtype.np)
        # Integers may wrap into unsigned types (two's complement); floats may not.
        lo = -info.max if info.min == 0 and not isinstance(value, float) else info.min
        if not ok or not lo <= value <= info.max:
            raise RuntimeError(f"value cannot be converted to type {_C_NAMES[dtype.name]} "
                               "without overflow")
        return int(value) % (info.max + 1) if info.min == 0 else int(value)
    if dtype._kind == 2 and math.isfinite(value):
        top = _FLOAT_MAX.get(dtype.name)
        if top is None:
            top = _FLOAT_MAX[dtype.name] = float(jnp.finfo(dtype.np).max)
        if abs(value) > top:
            raise RuntimeError(f"value cannot be converted to type {_C_NAMES[dtype.name]} "
                               "without overflow")
    return value


def zeros(size, *, dtype=None):
    return jnp.zeros(_size(size), (dtype or D.get_default_dtype()).np)


def ones(size, *, dtype=None):
    return jnp.ones(_size(size), (dtype or D.get_default_dtype()).np)


def empty(size, *, dtype=None):
    """Uninitialised memory in torch; zeros here (reading it is undefined either way)."""
    return zeros(size, dtype=dtype)


def full_fill(fill_value, dtype=None) -> tuple:
    """torch.full's (fill value, dtype): the dtype comes from ``fill_value`` (bool, int64,
    default float/complex); a number is checked against it (overflow raises)."""
    fill_value = _number(fill_value)
    if dtype is None:
        dtype = D._scalar_dtype(fill_value) if is_scalar(fill_value) else dtype_of(fill_value)
    if is_scalar(fill_value):
        fill_value = checked_scalar(fill_value, dtype)
    return fill_value, dtype


def full(size, fill_value, *, dtype=None):
    """torch.full: see ``full_fill``."""
    fill_value, dtype = full_fill(fill_value, dtype)
    return jnp.full(_size(size), cast(fill_value, dtype))


def _on_device(vals: np.ndarray, d: D.dtype):
    """``jnp.asarray(vals, d)`` for values computed on the host: outside a trace a plain
    transfer (``_kernels.device_array``: ~10 us where jnp.asarray spends ~100 in Python,
    ``torch.arange(10)`` 105 -> 25 us), inside one jnp.asarray's staging."""
    from .. import _kernels  # at call time: loading functional/ alone stays pure

    if not _kernels.untraced():
        return jnp.asarray(vals, d.np)
    return _kernels.device_array(vals, d.np)


def _not_implemented(kernel: str, dtype: D.dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{D.legacy_name(dtype)}\'')


def arange(start=0, end=None, step=1, *, dtype=None):
    """torch.arange: the size from doubles (exact integers for int64), values start + i*step."""
    start, end, step = _number(start), _number(end), _number(step)
    if end is None:
        start, end = 0, start
    if dtype is None:
        is_float = any(isinstance(v, float) for v in (start, end, step))
        dtype = D.get_default_dtype() if is_float else D.int64
    if dtype._kind in (0, 3):
        raise _not_implemented("arange_cpu", dtype)
    fs, fe, fd = float(start), float(end), float(step)
    if not (fd > 0 or fd < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(fs) and math.isfinite(fe)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if not ((fd > 0 and fe >= fs) or (fd < 0 and fe <= fs)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype._kind == 1:
        # Integer kernels accumulate in int64, so the arguments are truncated first.
        s, e, d = int(start), int(end), int(step)
        if dtype is D.int64:
            if d == 0:
                raise ValueError("step must be nonzero")
            n = -(-(e - s) // d)
        else:
            n = math.ceil((fe - fs) / fd)
        return _on_device(s + np.arange(max(n, 0), dtype=np.int64) * d, dtype)
    n = math.ceil((fe - fs) / fd)
    acc = np.float32 if dtype.itemsize < 4 else np.float64  # torch's CPU accumulate type
    vals = acc(start) + acc(step) * np.arange(n, dtype=acc)
    return _on_device(vals, dtype)


def linspace(start, end, steps, *, dtype=None):
    """torch.linspace: filled from both ends (so both endpoints are exact) in the result type."""
    start, end = _number(start), _number(end)
    if isinstance(steps, bool) or not hasattr(type(steps), "__index__"):
        raise TypeError(f"linspace(): argument 'steps' must be int, not {type(steps).__name__}")
    steps = operator.index(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is None:
        is_complex = isinstance(start, complex) or isinstance(end, complex)
        dtype = D.default_complex() if is_complex else D.get_default_dtype()
    if dtype._kind == 0:
        raise _not_implemented("linspace_cpu", dtype)
    if dtype._kind == 1:
        # start/end take the integer type; the step stays a double.
        s, e = np.int64(int(start)), np.int64(int(end))
        step = (float(e) - float(s)) / (steps - 1) if steps > 1 else 0.0
        lo = s + step * np.arange(steps)
        hi = e - step * (steps - 1 - np.arange(steps))
    else:
        t = dtype.np.type
        s, e = t(start), t(end)
        step = (e - s) / t(steps - 1) if steps > 1 else t(0)
        idx = np.arange(steps)
        lo = s + step * idx.astype(dtype.np)
        hi = e - step * (steps - 1 - idx).astype(dtype.np)
    vals = np.where(np.arange(steps) < steps // 2, lo, hi) if steps != 1 else lo
    return _on_device(vals.astype(dtype.np), dtype)


def logspace(start, end, steps, base=10.0, *, dtype=None):
    """torch.logspace: ``base ** linspace(start, end, steps)``, the power taken in double."""
    start, end, base = _number(start), _number(end), _number(base)
    if isinstance(steps, bool) or not hasattr(type(steps), "__index__"):
        raise TypeError(f"logspace(): argument 'steps' must be int, not {type(steps).__name__}")
    steps = operator.index(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is None:
        is_complex = isinstance(start, complex) or isinstance(end, complex)
        dtype = D.default_complex() if is_complex else D.get_default_dtype()
    if dtype._kind == 0:
        raise _not_implemented("logspace_cpu", dtype)
    if dtype._kind == 1:
        s, e = float(int(start)), float(int(end))
        t = np.float64
    else:
        t = dtype.np.type if dtype._kind == 2 and dtype.itemsize >= 4 else np.float64
        if dtype._kind == 3:
            t = np.complex128
        s, e = t(start), t(end)
    step = (e - s) / t(steps - 1) if steps > 1 else t(0)
    idx = np.arange(steps)
    lo = s + step * idx.astype(t)
    hi = e - step * (steps - 1 - idx).astype(t)
    exps = np.where(idx < steps // 2, lo, hi) if steps != 1 else lo
    with np.errstate(over="ignore", invalid="ignore"):
        vals = np.power(np.complex128(base) if dtype._kind == 3 else np.float64(base),
                        exps.astype(np.complex128 if dtype._kind == 3 else np.float64))
    return _on_device(vals.astype(dtype.np), dtype)


def eye_size(n, m=None) -> tuple:
    """torch.eye's (rows, columns), with PyTorch's errors for bad sizes."""
    for name, v in (("n", n), ("m", m)):
        if v is not None and (isinstance(v, bool) or not hasattr(type(v), "__index__")):
            raise TypeError(f"eye(): argument '{name}' must be int, not {type(v).__name__}")
        if v is not None and v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    return n, n if m is None else m


def eye(n, m=None, *, dtype=None):
    return jnp.eye(*eye_size(n, m), dtype=(dtype or D.get_default_dtype()).np)
