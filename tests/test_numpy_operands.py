"""NumPy operands against PyTorch: ndarrays (0-d included) and NumPy scalars of every kind
mixed with tensors through operators, functions, methods and factories."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from conftest import check

# NumPy 2 warns about PyTorch's one-argument ``__array_wrap__``.
pytestmark = pytest.mark.filterwarnings("ignore:__array_wrap__ must accept:DeprecationWarning")

_OPS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor",
        "lshift", "rshift", "eq", "ne", "lt", "ge")
_ARRAYS = {"f64_0d": np.array(2.0), "i64_0d": np.array(3), "f64_1d": np.array([2.0, 3.0]),
           "i16_1d": np.array([1, 2], dtype=np.int16), "bool_0d": np.array(True)}


def _outcome(fn):
    """The result, or the exception's class name: one program compares many calls."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
@pytest.mark.parametrize("array", list(_ARRAYS))
def test_operators_with_ndarray(dtype, array):
    """PyTorch's dunders leave an ndarray to NumPy (its promotion, a tensor back through
    ``__array_wrap__``); ``==`` reads it as a tensor; reflected ones mostly raise."""
    a = _ARRAYS[array]

    def prog(t):
        x = t.ones(2, dtype=getattr(t, dtype))
        out = {}
        for name in _OPS:
            op = getattr(operator, name)
            out[name] = (_outcome(lambda op=op: op(x, a)), _outcome(lambda op=op: op(a, x)))
        y = x
        y += a  # not in place: Python falls back to y = y + a
        out["iadd"] = (y is x, y, x)
        out["matmul"] = _outcome(lambda: t.ones(2, 2, dtype=getattr(t, dtype)) @ a)
        return out

    check(prog)


def test_ndarray_operand_needs_grad_free_tensor():
    check(lambda t: t.ones(2, requires_grad=True) * np.array(2.0), raises=RuntimeError)


@pytest.mark.parametrize("call", [
    lambda t: t.add(t.ones(2), np.array(2.0)),
    lambda t: t.ones(2).add_(np.array(2.0)),
    lambda t: t.ones(2).clamp(min=np.array(0.5)),
    lambda t: t.cat([t.ones(2), np.ones(2)]),
    lambda t: t.full((2,), np.array(1.0)),
    lambda t: t.arange(np.array(5)),
], ids=["add", "add_", "clamp", "cat", "full", "arange"])
def test_functions_reject_ndarray(call):
    check(call, raises=TypeError)


_SCALARS = [np.bool_(True), np.int8(3), np.uint8(3), np.int64(3), np.float16(2.5),
            np.float32(2.5), np.float64(2.5), np.complex64(1 + 2j), np.complex128(1 + 2j)]


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "complex64"])
def test_numpy_scalars_read_as_pytorch_reads_them(dtype):
    """NumPy integers are ints, np.complex128 is complex; the rest (np.bool_, np.complex64)
    are read as floats."""

    def prog(t):
        x = t.ones(2, dtype=getattr(t, dtype))
        real = dtype != "complex64"
        return [(x * s, s * x, t.add(x, s), t.full((1,), s),
                 x.clamp(max=s) if real and not isinstance(s, np.complexfloating) else None)
                for s in _SCALARS]

    check(prog)
