"""``torch.testing.assert_close``: PyTorch's comparison rules, default tolerances per dtype
and error messages, over jtorch tensors, NumPy arrays, Python scalars and (nested)
sequences and mappings of them."""

from __future__ import annotations

import collections.abc
import math

import numpy as np

from .. import _dtypes as D
from ..eager.tensor import Tensor

__all__ = ["assert_close", "default_tolerances"]

_DTYPE_PRECISIONS = {D.float16: (0.001, 1e-05), D.bfloat16: (0.016, 1e-05),
                     D.float32: (1.3e-06, 1e-05), D.float64: (1e-07, 1e-07),
                     D.complex64: (1.3e-06, 1e-05), D.complex128: (1e-07, 1e-07)}


class _Mismatch(Exception):
    """A failed comparison: ``cls(msg)`` is raised to the user."""

    def __init__(self, cls, msg: str):
        super().__init__(msg)
        self.cls, self.msg = cls, msg


def default_tolerances(*inputs, dtype_precisions=None) -> tuple[float, float]:
    """The loosest (rtol, atol) of the inputs' dtypes (0 for exact dtypes)."""
    dtypes = []
    for x in inputs:
        if isinstance(x, Tensor):
            dtypes.append(x.dtype)
        elif isinstance(x, D.dtype):
            dtypes.append(x)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(x)} "
                            "instead.")
    precisions = dtype_precisions or _DTYPE_PRECISIONS
    rtols, atols = zip(*[precisions.get(d, (0.0, 0.0)) for d in dtypes], strict=True)
    return max(rtols), max(atols)


def _tolerances(*inputs, rtol, atol) -> tuple[float, float]:
    if (rtol is None) ^ (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _mismatch_msg(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0

    def diff(kind, value, idx, tol):
        out = (f"{kind.title()} difference: {value}" if idx is None
               else f"Greatest {kind} difference: {value} at index {idx}")
        return out + ("" if equality else f" (up to {tol} allowed)") + "\n"

    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff("absolute", abs_diff, abs_idx, atol) + diff("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_msg(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None,
                         atol, rel_diff, None, rtol)


def _unravel(flat: int, shape) -> tuple:
    out = []
    for size in shape[::-1]:
        flat, mod = divmod(flat, size)
        out.append(mod)
    return tuple(out[::-1])


def _tensor_msg(a: np.ndarray, e: np.ndarray, matches: np.ndarray, rtol, atol):
    n = matches.size
    bad = n - int(matches.sum())
    extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
    if a.dtype.kind not in "fc":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e).reshape(-1)
        abs_diff[matches.reshape(-1)] = 0
        rel_diff = abs_diff / np.abs(e).reshape(-1)
        if a.dtype.kind not in "fc":  # integer true division gives the default float dtype
            rel_diff = rel_diff.astype(D.get_default_dtype().np)
        rel_diff[matches.reshape(-1)] = 0
    ia, ir = _torch_argmax(abs_diff), _torch_argmax(rel_diff)
    return _mismatch_msg("Tensor-likes", extra, abs_diff[ia].item(), _unravel(ia, matches.shape),
                         atol, rel_diff[ir].item(), _unravel(ir, matches.shape), rtol)


def _torch_argmax(x: np.ndarray) -> int:
    """torch.max(x, 0)'s index: the first NaN if any (NaN propagates), else the first max."""
    nan = np.isnan(x) if x.dtype.kind in "fc" else np.zeros(x.shape, bool)
    return int(np.flatnonzero(nan)[0]) if nan.any() else int(np.argmax(x))


# ------------------------------------------------------------------ pairs


def _as_tensor(x):
    import jtorch

    return jtorch.as_tensor(x)


def _compare_attrs(a: Tensor, e: Tensor, check_device, check_dtype, check_layout,
                   check_stride) -> None:
    """PyTorch's order: shape, layout, stride, device, dtype."""
    checks = [("shape", a.shape, e.shape, True),
              ("layout", a.layout, e.layout, check_layout),
              ("stride()", None if not check_stride else a.stride(),
               None if not check_stride else e.stride(), check_stride),
              ("device", a.device, e.device, check_device),
              ("dtype", a.dtype, e.dtype, check_dtype)]
    for name, x, y, on in checks:
        if on and x != y:
            raise _Mismatch(AssertionError, f"The values for attribute '{name}' do not match: "
                                            f"{x} != {y}.")


def _compare_tensors(a, e, *, rtol, atol, equal_nan, check_device, check_dtype, check_layout,
                     check_stride, allow_subclasses) -> None:
    if not allow_subclasses and type(a) is not type(e):
        raise _Mismatch(TypeError, f"Expected both inputs to be of the same type, but got "
                                   f"{type(a)} and {type(e)}.")
    a, e = (x if isinstance(x, Tensor) else _as_tensor(x) for x in (a, e))
    rtol, atol = _tolerances(a, e, rtol=rtol, atol=atol)
    _compare_attrs(a, e, check_device, check_dtype, check_layout, check_stride)
    if a.dtype != e.dtype:
        d = D.promote_types(a.dtype, e.dtype)
        a, e = a.to(d), e.to(d)
    if a.is_sparse:
        a, e = a.to_dense(), e.to_dense()
    an, en = np.asarray(a.detach()._value), np.asarray(e.detach()._value)
    if an.dtype.name == "bfloat16":
        an, en = an.astype(np.float32), en.astype(np.float32)
    if an.dtype.kind in "fc" or rtol or atol:
        with np.errstate(all="ignore"):  # |a - e| <= atol + rtol * |e|, as torch.isclose
            matches = np.isclose(an, en, rtol=rtol, atol=atol, equal_nan=equal_nan)
    else:
        matches = an == en
    if matches.all():
        return
    if a.dim() == 0:
        raise _Mismatch(AssertionError, _scalar_msg(an.item(), en.item(), rtol, atol))
    raise _Mismatch(AssertionError, _tensor_msg(an, en, matches, rtol, atol))


def _compare_numbers(a, e, *, rtol, atol, equal_nan, check_dtype) -> None:
    if isinstance(a, bool) or isinstance(e, bool):
        if not (isinstance(a, bool) and isinstance(e, bool)):
            raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type "
                                       f"{type(a)} and {type(e)}.")
        if a is not e:
            raise _Mismatch(AssertionError, f"Booleans mismatch: {a} is not {e}")
        return
    if check_dtype and type(a) is not type(e):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.")
    d = {int: D.int64, float: D.float64, complex: D.complex128}[type(a)]
    rtol, atol = _tolerances(d, rtol=rtol, atol=atol)
    if a == e or (equal_nan and _isnan(a) and _isnan(e)):
        return
    if not (rtol or atol) or math.isinf(abs(a)) or math.isinf(abs(e)) or not abs(a - e) <= (
            atol + rtol * abs(e)):
        raise _Mismatch(AssertionError, _scalar_msg(a, e, rtol, atol))


def _isnan(x) -> bool:
    return isinstance(x, float | complex) and math.isnan(abs(x))


def _compare(a, e, path, **kw) -> None:
    number = (bool, int, float, complex)
    if (isinstance(a, Tensor) and isinstance(e, Tensor)) or (
            isinstance(a, np.ndarray) and isinstance(e, np.ndarray)):
        return _compare_tensors(a, e, **kw)
    if isinstance(a, number) and isinstance(e, number):
        return _compare_numbers(a, e, rtol=kw["rtol"], atol=kw["atol"],
                                equal_nan=kw["equal_nan"], check_dtype=kw["check_dtype"])
    seq = collections.abc.Sequence
    if isinstance(a, seq) and isinstance(e, seq) and not isinstance(a, str) \
            and not isinstance(e, str):
        if len(a) != len(e):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: {len(a)} "
                                            f"!= {len(e)}")
        for i, (x, y) in enumerate(zip(a, e, strict=True)):
            _nested(x, y, [*path, i], **kw)
        return None
    mapping = collections.abc.Mapping
    if isinstance(a, mapping) and isinstance(e, mapping):
        if set(a) != set(e):
            raise _Mismatch(AssertionError, f"The keys of the mappings do not match:\n"
                                            f"Missing keys in the actual mapping: "
                                            f"{sorted(set(e) - set(a))}\nAdditional keys in "
                                            f"the actual mapping: {sorted(set(a) - set(e))}")
        for k in e:
            _nested(a[k], e[k], [*path, k], **kw)
        return None
    raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type "
                               f"{type(a)} and {type(e)}.")


def _nested(a, e, path, **kw) -> None:
    try:
        _compare(a, e, path, **kw)
    except _Mismatch as m:
        if path and "The failure occurred for item" not in m.msg:
            where = "".join(f"[{k!r}]" for k in path)
            m.msg += f"\n\nThe failure occurred for item {where}"
        raise


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise unless ``actual`` and ``expected`` are close: ``|a - e| <= atol + rtol * |e|``
    elementwise, with PyTorch's default tolerances for the dtypes (exact for integers) and
    its checks of shape, device, dtype, layout and (optionally) stride.
    """
    try:
        _nested(actual, expected, [], rtol=rtol, atol=atol, equal_nan=equal_nan,
                check_device=check_device, check_dtype=check_dtype,
                check_layout=check_layout, check_stride=check_stride,
                allow_subclasses=allow_subclasses)
    except _Mismatch as m:
        text = m.msg if msg is None else msg(m.msg) if callable(msg) else msg
        raise m.cls(text) from None
