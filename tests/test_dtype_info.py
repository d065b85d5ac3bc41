"""torch.finfo/iinfo and the dtype and size predicates, against PyTorch."""

from __future__ import annotations

import pytest
from conftest import check

FLOATS = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


def _attrs(info, names):
    return [getattr(info, n) for n in names] + [repr(info), str(info)]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo(name):
    names = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")
    check(lambda t: _attrs(t.finfo(getattr(t, name)), names))


@pytest.mark.parametrize("name", INTS)
def test_iinfo(name):
    check(lambda t: _attrs(t.iinfo(getattr(t, name)), ("bits", "max", "min", "dtype")))


def test_finfo_default_dtype_follows_set_default_dtype():
    def prog(t):
        before = t.finfo().dtype
        t.set_default_dtype(t.float64)
        return before, t.finfo().dtype, t.finfo() == t.finfo(t.float64)

    check(prog)


@pytest.mark.parametrize("call", [
    lambda t: t.finfo(t.int32), lambda t: t.finfo("float32"), lambda t: t.finfo(t.bool),
    lambda t: t.iinfo(t.float32), lambda t: t.iinfo(t.bool), lambda t: t.iinfo(t.complex64),
    lambda t: t.iinfo(3), lambda t: hash(t.finfo(t.float32)),
], ids=["finfo-int", "finfo-str", "finfo-bool", "iinfo-float", "iinfo-bool", "iinfo-complex",
        "iinfo-int", "hash"])
def test_info_errors(call):
    e, a = check(call, raises=TypeError)
    assert isinstance(e, TypeError)
    assert str(a) == str(e) or "hash" in str(e)


def test_info_is_read_only():
    def prog(t):
        info = t.finfo(t.float32)
        info.eps = 1.0

    e, a = check(prog, raises=AttributeError)
    assert str(a) == str(e)


def test_info_equality():
    check(lambda t: [t.finfo(t.float32) == t.finfo(t.float32),
                     t.finfo(t.float32) == t.finfo(t.float64),
                     t.finfo(t.complex64) == t.finfo(t.float32),
                     t.iinfo(t.int8) == t.iinfo(t.int8), t.iinfo(t.int8) == t.finfo()])


@pytest.mark.parametrize("dtype", ["float32", "complex64", "int64", "uint8", "bool"])
def test_dtype_predicates(dtype):
    def prog(t):
        x = t.zeros(2, dtype=getattr(t, dtype))
        return [t.is_complex(x), t.is_signed(x), x.is_signed(), x.is_complex(),
                t.is_floating_point(x)]

    check(prog)


@pytest.mark.parametrize("values", [[0.0], [2.5], [0], [True], [False], [0j], [],
                                    [1.0, 2.0], [[3]]])
def test_is_nonzero(values):
    # no value or more than one value: ambiguous
    check(lambda t: [t.is_nonzero(t.tensor(values)), t.tensor(values).is_nonzero()],
          raises=RuntimeError if values in ([], [1.0, 2.0]) else None)


@pytest.mark.parametrize("call", [
    lambda t: t.is_complex(3), lambda t: t.is_signed([1]), lambda t: t.is_nonzero(1.0),
    lambda t: t.is_same_size(t.zeros(1), 2), lambda t: t.is_same_size(None, t.zeros(1)),
], ids=["is_complex", "is_signed", "is_nonzero", "same_size-other", "same_size-input"])
def test_predicates_take_tensors(call):
    e, a = check(call, raises=TypeError)
    assert isinstance(e, TypeError) and str(a) == str(e)


def test_is_same_size():
    check(lambda t: [t.is_same_size(t.zeros(2, 3), t.ones(2, 3)),
                     t.is_same_size(t.zeros(2, 3), t.zeros(3, 2)),
                     t.zeros(()).is_same_size(t.zeros(1)), t.zeros(0).is_same_size(t.zeros(0))])


@pytest.mark.parametrize("args", [
    (2,), (2.5,), (True,), (2, "int64"), (1, "bool"), (0.5, "float64"), (1j, "complex64"),
    (3, "float16"), ("tensor0d",), ("tensor1d",), ([1],), (1j,),
])
def test_scalar_tensor(args):
    def prog(t):
        s, *dtype = args
        s = {"tensor0d": t.tensor(3), "tensor1d": t.zeros(2)}.get(s, s) if isinstance(
            s, str) else s
        kw = {"dtype": getattr(t, dtype[0])} if dtype else {}
        return t.scalar_tensor(s, **kw)

    # a tensor or a list is no Number; a complex value does not fit the default float dtype
    errors = [(("tensor1d",), TypeError), (([1],), TypeError), ((1j,), RuntimeError)]
    check(prog, raises=next((exc for bad, exc in errors if bad == args), None))


def test_scalar_tensor_requires_grad_and_default_dtype():
    def prog(t):
        t.set_default_dtype(t.float64)
        x = t.scalar_tensor(1.5, requires_grad=True)
        (x * x).backward()
        return x, x.grad, x.is_leaf

    check(prog)
