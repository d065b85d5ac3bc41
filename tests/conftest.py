"""Differential testing against PyTorch: write a program once, run it on torch and jtorch.

``check(program)`` runs ``program(torch)`` and ``program(jtorch)`` and compares what they
return (tensors by values, dtype, shape and optionally strides; nested tuples, lists,
dicts, Python scalars, dtypes and sizes structurally). When one raises, the other must
raise the same exception class.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import jtorch

BACKENDS = {"torch": torch, "jtorch": jtorch}


def to_numpy(t) -> np.ndarray:
    """Values of a torch or jtorch tensor as float64/complex/int/bool NumPy data."""
    if isinstance(t, torch.Tensor):
        t = t.detach()
        if t.dtype == torch.bfloat16:
            t = t.float()
        return t.numpy()
    arr = np.asarray(t._value)
    if arr.dtype.name == "bfloat16":
        arr = arr.astype(np.float32)
    return arr


def _is_tensor(x) -> bool:
    return isinstance(x, torch.Tensor | jtorch.Tensor)


def assert_same(expected, actual, *, rtol=1.3e-6, atol=1e-5, strides=False, path="result"):
    """Compare a torch result (``expected``) with a jtorch result (``actual``), recursively."""
    if isinstance(expected, torch.Tensor):
        assert isinstance(actual, jtorch.Tensor), f"{path}: expected a Tensor, got {actual!r}"
        assert str(actual.dtype) == str(expected.dtype), (
            f"{path}: dtype {actual.dtype} != {expected.dtype}"
        )
        assert tuple(actual.shape) == tuple(expected.shape), (
            f"{path}: shape {tuple(actual.shape)} != {tuple(expected.shape)}"
        )
        if strides:
            assert actual.stride() == expected.stride(), (
                f"{path}: stride {actual.stride()} != {expected.stride()}"
            )
            assert actual.storage_offset() == expected.storage_offset(), (
                f"{path}: storage_offset {actual.storage_offset()} != {expected.storage_offset()}"
            )
        e, a = to_numpy(expected), to_numpy(actual)
        if e.dtype.kind in "fc":
            tol = dict(rtol=rtol, atol=atol)
            if expected.dtype in (torch.float16, torch.bfloat16):
                tol = dict(rtol=1e-2, atol=1e-2)
            np.testing.assert_allclose(a, e, equal_nan=True, err_msg=path, **tol)
        else:
            np.testing.assert_array_equal(a, e, err_msg=path)
        return
    if isinstance(expected, torch.dtype | torch.device):
        assert str(actual) == str(expected), f"{path}: {actual} != {expected}"
        assert type(actual).__name__ == type(expected).__name__, f"{path}: {type(actual)}"
        return
    if isinstance(expected, torch.Size):
        assert tuple(actual) == tuple(expected), f"{path}: {actual} != {expected}"
        assert type(actual).__name__ == "Size", f"{path}: {type(actual)} is not a Size"
        return
    if isinstance(expected, tuple | list):
        assert isinstance(actual, tuple | list), f"{path}: expected a sequence, got {actual!r}"
        assert len(actual) == len(expected), f"{path}: length {len(actual)} != {len(expected)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, rtol=rtol, atol=atol, strides=strides, path=f"{path}[{i}]")
        return
    if isinstance(expected, dict):
        assert set(actual) == set(expected), f"{path}: keys {set(actual)} != {set(expected)}"
        for k in expected:
            assert_same(expected[k], actual[k], rtol=rtol, atol=atol, strides=strides,
                        path=f"{path}[{k!r}]")
        return
    if isinstance(expected, float) and isinstance(actual, float):
        assert math.isclose(actual, expected, rel_tol=rtol, abs_tol=atol) or (
            math.isnan(actual) and math.isnan(expected)
        ), f"{path}: {actual} != {expected}"
        return
    assert actual == expected, f"{path}: {actual!r} != {expected!r}"
    assert type(actual) is type(expected) or {type(actual), type(expected)} <= {int, bool}, (
        f"{path}: type {type(actual).__name__} != {type(expected).__name__}"
    )


def run(program, backend):
    """(result, exception) of ``program(backend)``."""
    try:
        return program(backend), None
    except Exception as exc:  # noqa: BLE001 - the exception class is what we compare
        return None, exc


def check(program, **tol):
    """Run ``program`` on torch and jtorch; compare results or exception classes."""
    expected, e_exc = run(program, torch)
    actual, a_exc = run(program, jtorch)
    if e_exc is not None or a_exc is not None:
        assert e_exc is not None, f"jtorch raised {a_exc!r} but torch returned {expected!r}"
        assert a_exc is not None, f"torch raised {e_exc!r} but jtorch returned {actual!r}"
        assert type(a_exc).__name__ == type(e_exc).__name__, (
            f"exception class: jtorch {type(a_exc).__name__}({a_exc}) != torch "
            f"{type(e_exc).__name__}({e_exc})"
        )
        return e_exc, a_exc
    assert_same(expected, actual, **tol)
    return expected, actual


@pytest.fixture(params=["torch", "jtorch"])
def tt(request):
    """Each backend in turn, for tests that assert on one library's behaviour directly."""
    return BACKENDS[request.param]


@pytest.fixture(autouse=True)
def _restore_defaults():
    yield
    torch.set_default_dtype(torch.float32)
    jtorch.set_default_dtype(jtorch.float32)
