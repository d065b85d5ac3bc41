"""Differential testing against PyTorch: write a program once, run it on torch and jtorch.

``check(program)`` runs ``program(torch)`` and ``program(jtorch)`` and compares what they
return (tensors by values, dtype, shape and optionally strides; nested tuples, lists,
dicts, Python scalars, dtypes and sizes structurally). A program that raises counts only
when the test says an error is expected (``raises=``, or ``may_raise=`` for samples that
are bad on purpose only sometimes); then the other library must raise the same class.
"""

from __future__ import annotations

import contextlib
import math
import os

# One pytest worker per core already keeps every core compiling: a background compile
# thread per worker would only compete with the other workers (and compile the backward
# of every forward a test records, used or not). test_background_compile.py turns it on;
# JTORCH_BACKGROUND_COMPILE=1 runs the whole suite with it.
os.environ.setdefault("JTORCH_BACKGROUND_COMPILE", "0")
# Likewise, writing every kernel's executable to disk (jtorch/_executables.py) costs a cold
# suite's cores more than the rare reuse saves; test_executables.py and test_cache.py run
# it in fresh processes. JTORCH_EXECUTABLE_CACHE=1 runs the whole suite with it.
os.environ.setdefault("JTORCH_EXECUTABLE_CACHE", "0")

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


def check(program, *, raises=None, may_raise=False, **tol):
    """Run ``program`` on torch and jtorch; compare results or exception classes.

    By default both must return, and their results are compared. A test about an error
    says so: ``raises=RuntimeError`` (a class or tuple; ``Exception`` for "any class"), or
    a program marked with ``raising(RuntimeError, program)``, requires torch to raise one
    and jtorch to raise the same class. ``may_raise=True`` is for programs whose inputs
    are bad on purpose only sometimes (a cross product of parametrized samples): either
    both return equal results or both raise the same class. Returns
    ``(expected, actual)``: the two results, or the two exceptions.
    """
    if raises is None:
        raises = getattr(program, "expected_error", None)
    expected, e_exc = run(program, torch)
    actual, a_exc = run(program, jtorch)
    if raises is not None:
        assert e_exc is not None, f"torch did not raise {_names(raises)}; returned {expected!r}"
        assert isinstance(e_exc, raises), (
            f"torch raised {type(e_exc).__name__}({e_exc}), not {_names(raises)}")
    elif e_exc is not None and not may_raise:
        detail = f"jtorch raised {type(a_exc).__name__}({a_exc})" if a_exc else "jtorch returned"
        raise AssertionError(f"the program raised on torch: {type(e_exc).__name__}({e_exc}); "
                             f"{detail} (pass raises= if the error is the point)") from e_exc
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


def raising(exc, program):
    """Mark ``program`` (say, an entry of a table of programs) as one that must raise
    ``exc`` (a class or tuple) on both sides: ``check`` then expects it."""
    program.expected_error = exc
    return program


def error_of(program):
    """The exception class ``raising`` marked ``program`` with, or None."""
    return getattr(program, "expected_error", None)


def _names(classes) -> str:
    classes = classes if isinstance(classes, tuple) else (classes,)
    return " or ".join(c.__name__ for c in classes)


@pytest.fixture(params=["torch", "jtorch"])
def tt(request):
    """Each backend in turn, for tests that assert on one library's behaviour directly."""
    return BACKENDS[request.param]


@pytest.fixture(autouse=True)
def _restore_defaults():
    yield
    torch.set_default_dtype(torch.float32)
    jtorch.set_default_dtype(jtorch.float32)


@pytest.fixture
def background(monkeypatch):
    """Background compiling on (conftest turns it off for the suite; see above)."""
    from jtorch import _kernels

    monkeypatch.setattr(_kernels, "BACKGROUND", True)
    _kernels.wait_ahead()
    yield
    _kernels.wait_ahead()


@contextlib.contextmanager
def counting_compiles():
    """The XLA compiles that happen inside the block, as a list that fills while it runs
    (on the CPU every new kernel signature is one: what a first run pays). Compiles on
    jtorch's background thread count too: those queued before the block are waited for
    before it, those queued inside it at its end."""
    from jax import monitoring

    from jtorch import _kernels

    compiles: list = []

    def listen(event, secs, **_):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(secs)

    _kernels.wait_ahead()
    monitoring.register_event_duration_secs_listener(listen)
    try:
        yield compiles
        _kernels.wait_ahead()
    finally:
        monitoring.unregister_event_duration_listener(listen)
