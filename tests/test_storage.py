"""Storages seen from tensors (untyped_storage, storage, storage_type, is_storage) and
Tensor.set_, against PyTorch."""

from __future__ import annotations

import pytest
from conftest import check, error_of, raising

pytestmark = pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")

MAKE = {
    "contiguous": lambda t: t.arange(6.0).reshape(2, 3),
    "slice": lambda t: t.arange(6.0)[2:],
    "transposed-copy": lambda t: t.arange(6.0).reshape(2, 3).t().contiguous().t(),
    "int64": lambda t: t.arange(4),
    "bool": lambda t: t.tensor([True, False, True]),
    "empty": lambda t: t.zeros(0),
}


@pytest.mark.parametrize("name", MAKE)
def test_storage_queries(name):
    def prog(t):
        x = MAKE[name](t)
        u, s = x.untyped_storage(), x.storage()
        return [u.nbytes(), u.size(), len(u), u.element_size(), u.tolist(),
                u.data_ptr() == (x.data_ptr() - x.storage_offset() * x.element_size()
                                 if x.numel() else 0),
                s.size(), len(s), s.dtype, s.element_size(), s.nbytes(), s.tolist(),
                s.data_ptr() == u.data_ptr(), s.untyped().nbytes(), str(u.device),
                t.is_storage(u), t.is_storage(s), t.is_storage(x), x.storage_type().__name__,
                type(u).__name__, type(s).__name__, s.is_cuda, s.type()]

    check(prog)


def test_storage_indexing_and_sharing():
    def prog(t):
        x = t.arange(6.0).reshape(2, 3)
        v = x[1]
        return [x.untyped_storage()[4], x.untyped_storage()[0:4].tolist(), x.storage()[4],
                v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(),
                x.clone().untyped_storage().data_ptr() == x.untyped_storage().data_ptr(),
                isinstance(x.storage(), t.FloatStorage), isinstance(x.storage(), t.LongStorage)]

    check(prog)


def test_storage_warns_deprecation():
    """PyTorch warns once per process, so only jtorch's warning is checked here."""
    import warnings

    import jtorch

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jtorch.zeros(2).storage()
    assert any("TypedStorage is deprecated" in str(w.message) for w in caught)


SETS = {
    "tensor": lambda t, y, x: y.set_(x),
    "nothing": lambda t, y, x: y.set_(),
    "untyped-window": lambda t, y, x: y.set_(x.untyped_storage(), 2, (2,), (1,)),
    "typed-window": lambda t, y, x: y.set_(x.storage(), 1, (2, 2)),
    "whole-storage": lambda t, y, x: y.set_(x.untyped_storage()),
    "strided": lambda t, y, x: y.set_(x.untyped_storage(), 0, (2, 2), (1, 3)),
    "other-dtype": raising(RuntimeError, lambda t, y, x: y.set_(x.long())),
}


@pytest.mark.parametrize("name", SETS)
def test_set_(name):
    def prog(t):
        x = t.arange(6.0).reshape(2, 3)
        y = t.zeros(1)
        r = SETS[name](t, y, x)
        meta = [r is y, y.shape, y.stride(), y.storage_offset(), y._version, y._is_view()]
        y.add_(10)  # writes reach x's storage; x's version does not move
        return meta, y, x, x._version

    e, a = check(prog, raises=error_of(SETS[name]))
    if isinstance(e, Exception):
        assert str(a) == str(e)


def test_set_on_a_leaf_that_requires_grad():
    e, a = check(lambda t: t.zeros(1, requires_grad=True).set_(t.ones(2)), raises=RuntimeError)
    assert str(a) == str(e)
