"""Creation: torch.tensor and dtype inference, NumPy interop, factories, *_like, new_*,
and legacy constructors (random sampling: test_creation_random.py)."""

from __future__ import annotations

import warnings

import jax
import numpy as np
import pytest
from conftest import check, counting_compiles, raising

import jtorch

# ------------------------------------------------------------------ torch.tensor


# The samples both libraries reject, by test id, and the exception class.
_INFER_ERRORS = {
    "'a'": TypeError, 'None': RuntimeError, "['a', 'b']": ValueError,
    '[-9223372036854775809]': ValueError, '[1, [2]]': TypeError,
    '[9223372036854775808]': ValueError, '[None]': RuntimeError, "[[1, 2], 'ab']": TypeError,
    '[[1, 2], [3, 4, 5]]': ValueError, '[[1, 2], [3]]': ValueError, '[[1], 2]': TypeError,
    '[[[1, 2]], [[3]]]': ValueError, '[array(1.5)]': TypeError, 'list_iterator': RuntimeError,
    'object': RuntimeError, "{'a': 1}": RuntimeError, '{1, 2}': RuntimeError,
}


@pytest.mark.parametrize(
    "data",
    [True, 3, 2.5, 1 + 2j, -7, [True, False], [1, 2, 3], [1.0, 2.5], [1, 2.5], [True, 2],
     [True, 2.0], [1, 2j], [[1, 2], [3, 4]], [[True], [False]], [[1, 2.0], [3, 4]], (1, 2),
     [(1, 2), (3, 4)], [], [[]], [[], []], [[[1]], [[2]]], [2**40, -(2**40)], range(3),
     [np.float32(1), np.float64(2)], [np.uint8(3), np.int8(-1)], [np.bool_(True), 2.5],
     [np.int32(1), np.int16(2)], [np.float32(1), 2], [np.int32(1), 2],
     # errors: overflow, ragged nesting, things that are not numbers or sequences
     [2**63], [-(2**63) - 1], [2**63 - 1], "a", None, [None], {1, 2}, {"a": 1}, ["a", "b"],
     object(), [np.array(1.5)], [[1, 2], "ab"], iter([1, 2]), [[1, 2], [3]], [[1], 2],
     [1, [2]], [[1, 2], [3, 4, 5]], [[[1, 2]], [[3]]]],
    ids=lambda d: type(d).__name__ if " at 0x" in repr(d) else repr(d),  # stable for xdist
)
def test_tensor_infers_dtype(data, request):
    check(lambda torch: torch.tensor(data), raises=_INFER_ERRORS.get(request.node.callspec.id))


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_tensor_float_follows_default_dtype(default):
    def prog(torch):
        torch.set_default_dtype(getattr(torch, default))
        return torch.tensor([1.5, 2]), torch.tensor(1j), torch.tensor([1, 2]), torch.zeros(2)

    check(prog)


@pytest.mark.parametrize(
    "np_dtype",
    ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
     "complex64", "complex128"],
)
def test_tensor_from_ndarray_keeps_dtype(np_dtype):
    arr = (np.arange(6).reshape(2, 3) % 3).astype(np_dtype)

    def prog(torch):
        return (torch.tensor(arr), torch.as_tensor(arr), torch.from_numpy(arr),
                torch.tensor(arr[0, 1]), torch.tensor(arr.T))

    check(prog)


@pytest.mark.parametrize(
    "scalar",
    [np.float32(1.5), np.float64(2.5), np.int32(3), np.int64(-4), np.int16(5), np.uint8(200),
     np.bool_(True), np.float16(0.5), np.complex64(1 + 1j)],
    ids=repr,
)
def test_tensor_from_numpy_scalar(scalar):
    check(lambda torch: (torch.tensor(scalar), torch.tensor([scalar, scalar])))


# The samples both libraries reject, by test id, and the exception class.
_WITH_DTYPE_ERRORS = {
    "[(1+1j)]-'int64'": TypeError, "[(1+2j)]-'float32'": TypeError, "[-129]-'int8'": RuntimeError,
    "[-256]-'uint8'": RuntimeError, "[10000000000.0]-'int32'": RuntimeError,
    "[2700000000.0]-'int32'": RuntimeError, "[300, -1]-'uint8'": RuntimeError,
    "[inf]-'int64'": RuntimeError, "[nan]-'int32'": RuntimeError,
}


@pytest.mark.parametrize(
    "data, dtype",
    [([1.7, -2.7], "int64"), ([1, 0, 2], "bool"), ([1, 2], "float64"), ([True, False], "float32"),
     (3.5, "int32"), ([1.5, 2.5], "float16"), ([1.5, 2.5], "bfloat16"), ([1, 2], "complex64"),
     ([0.5, -0.5], "bool"), ([[1, 2], [3, 4]], "int8"), ([300, -1], "uint8"),
     # torch's checked conversion: integers may wrap into unsigned types, nothing overflows
     ([-1], "uint8"), ([-255, 255], "uint8"), ([-256], "uint8"), ([1e10], "int32"),
     ([2.7e9], "int32"), ([float("nan")], "int32"), ([float("inf")], "int64"), ([-129], "int8"),
     ([1e10], "float16"), ([1e300], "float32"), ([1 + 2j], "float32"), ([1 + 1j], "int64"),
     ([1.5, 0.0, float("inf")], "bool"), ([1 + 0j], "bool"), ([2**64], "float32"),
     ([True, 2], "uint8"), ([float("nan")], "float16")],
    ids=repr,
)
def test_tensor_with_dtype(data, dtype, request):
    check(lambda torch: torch.tensor(data, dtype=getattr(torch, dtype)),
          raises=_WITH_DTYPE_ERRORS.get(request.node.callspec.id))


def test_tensor_dtype_python_type():
    check(lambda torch: (torch.tensor([1, 2], dtype=float), torch.tensor([1.5], dtype=int),
                         torch.tensor([1], dtype=bool)))


def test_tensor_requires_grad():
    def prog(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        return x.requires_grad, x.is_leaf, x.grad_fn is None

    check(prog)


def test_tensor_from_tensors_in_lists():
    def prog(torch):
        i32, f16 = torch.tensor(1, dtype=torch.int32), torch.tensor(1, dtype=torch.float16)
        return (torch.tensor([i32, torch.tensor(2, dtype=torch.int16)]), torch.tensor([f16, 2.5]),
                torch.tensor([torch.ones(1), torch.ones(1)]), torch.tensor([i32, 2]),
                torch.tensor([[1, 2], torch.tensor([3, 4])]), torch.tensor([torch.tensor(1.5), 2]),
                torch.tensor([[torch.tensor(True)], [torch.tensor(False)]]))

    check(prog)


@pytest.mark.parametrize(
    "make",
    [raising(RuntimeError, lambda t: t.tensor([1, 2], requires_grad=True)),
     raising(ValueError, lambda t: t.tensor([t.ones(2), t.ones(2)])),
     raising(TypeError, lambda t: t.tensor([t.tensor(1.5)], dtype=t.int64))],
)
def test_tensor_errors(make):
    check(make)


def test_tensor_from_tensor_copies_and_detaches():
    def prog(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = torch.tensor(x)
            z = torch.tensor(x, dtype=torch.float64)
        y.add_(1)
        return x, y, y.requires_grad, z, y.data_ptr() != x.data_ptr()

    check(prog)


def test_tensor_copies_ndarray():
    def prog(torch):
        arr = np.array([1.0, 2.0])
        t = torch.tensor(arr)
        arr[0] = 9
        return t

    check(prog)


# ------------------------------------------------------------------ as_tensor, from_numpy


def test_as_tensor_returns_same_object():
    def prog(torch):
        x = torch.tensor([1.0, 2.0])
        return (torch.as_tensor(x) is x, torch.as_tensor(x, dtype=torch.float32) is x,
                torch.as_tensor(x, dtype=torch.float64) is x)

    check(prog)


def test_as_tensor_converts():
    def prog(torch):
        x = torch.tensor([1.5, -2.5])
        return (torch.as_tensor(x, dtype=torch.int64), torch.as_tensor([1, 2]),
                torch.as_tensor([1, 2], dtype=torch.float16), torch.as_tensor(3.0),
                torch.as_tensor(np.array([1, 2], np.int32), dtype=torch.float64))

    check(prog)


def test_as_tensor_preserves_graph():
    def prog(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = torch.as_tensor(x, dtype=torch.float64)
        y.sum().backward()
        return y.requires_grad, x.grad

    check(prog)


def test_from_numpy_roundtrip_and_numpy():
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)

    def prog(torch):
        t = torch.from_numpy(arr)
        back = t.numpy()
        return t, back.dtype.name, back.shape, back.tolist(), type(back).__name__

    check(prog)


def test_from_numpy_copies_in_jtorch():
    """Difference from PyTorch: jtorch copies (JAX arrays are immutable), see creation.py."""
    arr = np.array([1.0, 2.0])
    t = jtorch.from_numpy(arr)
    arr[0] = 9.0
    assert t.tolist() == [1.0, 2.0]
    t.add_(1)
    assert arr.tolist() == [9.0, 2.0]


@pytest.mark.parametrize("np_dtype", ["longdouble", "clongdouble", "datetime64[s]", "<U1",
                                      "object"])
def test_from_numpy_unsupported_dtype_raises(np_dtype):
    arr = np.zeros(2, dtype=np_dtype)
    check(lambda torch: torch.from_numpy(arr), raises=TypeError)
    check(lambda torch: torch.tensor(arr), raises=TypeError)
    check(lambda torch: torch.as_tensor(arr), raises=TypeError)


@pytest.mark.parametrize(
    "make",
    [raising(ValueError, lambda t: t.from_numpy(np.zeros(3)[::-1])),
     raising(ValueError, lambda t: t.tensor(np.zeros(3)[::-1])),
     raising(ValueError, lambda t: t.from_numpy(np.zeros(2, ">f4"))),
     raising(ValueError, lambda t: t.tensor(np.zeros(2, ">f4"))),
     raising(TypeError, lambda t: t.from_numpy([1, 2])),
     raising(TypeError, lambda t: t.from_numpy(np.float64(2))),
     raising(RuntimeError, lambda t: t.ones(2, requires_grad=True).numpy())],
)
def test_numpy_interop_errors(make):
    check(make)


def test_from_numpy_keeps_dense_strides():
    arr = np.arange(6.0).reshape(2, 3)
    check(lambda torch: (torch.from_numpy(arr.T), torch.tensor(arr.T), torch.as_tensor(arr.T),
                         torch.from_numpy(np.ascontiguousarray(arr.T))), strides=True)


def test_numpy_of_view():
    def prog(torch):
        x = torch.tensor(np.arange(6.0).reshape(2, 3))
        return x.t().numpy().tolist(), x[:, 1].numpy().tolist(), np.asarray(x).dtype.name

    check(prog)


# ------------------------------------------------------------------ zeros/ones/empty/full


# The samples both libraries reject, by test id, and the exception class.
_SIZE_ERRORS = {
    '()-empty': TypeError, '()-ones': TypeError, '()-zeros': TypeError,
}


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
@pytest.mark.parametrize(
    "size",
    [(2, 3), ((2, 3),), ([2, 3],), (), ((),), (0,), (3,), ("Size",)],
    ids=repr,
)
def test_zeros_ones_empty_sizes(name, size, request):
    def prog(torch):
        args = (torch.Size([2, 3]),) if size == ("Size",) else size
        t = getattr(torch, name)(*args)
        # empty's values are undefined: compare only its metadata
        return (t.shape, t.dtype) if name == "empty" else t

    check(prog, raises=_SIZE_ERRORS.get(request.node.callspec.id))


@pytest.mark.parametrize("name", ["zeros", "ones"])
@pytest.mark.parametrize("dtype", ["int64", "bool", "float64", "float16", "bfloat16", "uint8",
                                   "complex64"])
def test_zeros_ones_dtype(name, dtype):
    check(lambda torch: getattr(torch, name)(2, 2, dtype=getattr(torch, dtype)))


def test_factory_size_keyword_and_out():
    def prog(torch):
        out = torch.empty(0)
        r = torch.ones(2, 3, out=out)
        return (torch.zeros(size=(2,)), r is out, out, torch.empty(size=[3]).shape,
                torch.zeros(np.int64(2)), torch.ones(torch.tensor(2), 1),
                torch.zeros((np.int32(1), 2)))

    check(prog)


def test_factory_requires_grad():
    def prog(torch):
        a = torch.zeros(2, requires_grad=True)
        b = torch.full((2,), 3.0, requires_grad=True)
        return a.requires_grad, a.is_leaf, b.requires_grad

    check(prog)


# The samples both libraries reject, by test id, and the exception class.
_FULL_ERRORS = {
    "'tensor1d'-None": TypeError, "(1+1j)-'float32'": RuntimeError, "-1.5-'uint8'": RuntimeError,
    "-300-'uint8'": RuntimeError, "10000000000.0-'float16'": RuntimeError,
    "10000000000.0-'int32'": RuntimeError, "300-'uint8'": RuntimeError,
    '9223372036854775808-None': RuntimeError, "nan-'int32'": RuntimeError,
}


@pytest.mark.parametrize(
    "fill, dtype",
    [(3, None), (True, None), (2.5, None), (1 + 1j, None), (7, "float32"), (2.7, "int32"),
     (-1, "uint8"), (0, "bool"), (1e10, "float16"), (np.float32(2.5), None), (np.int32(2), None),
     # the fill value is converted with torch's overflow checks
     (300, "uint8"), (-300, "uint8"), (-1.5, "uint8"), (float("nan"), "int32"), (2**63, None),
     (1 + 1j, "float32"), (float("inf"), "float16"), (1e10, "int32"), (2.5, "bool"),
     ("tensor", None), ("tensor1d", None)],
    ids=repr,
)
def test_full(fill, dtype, request):
    def prog(torch):
        kw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
        f = {"tensor": torch.tensor(3.5), "tensor1d": torch.tensor([2])}.get(fill, fill)
        return torch.full((2, 3), f, **kw), torch.full([2], f, **kw)

    check(prog, raises=_FULL_ERRORS.get(request.node.callspec.id))


def test_full_default_dtype_float64():
    def prog(torch):
        torch.set_default_dtype(torch.float64)
        return torch.full((2,), 1.5), torch.ones(1), torch.full((1,), 2)

    check(prog)


# The samples both libraries reject, by test id, and the exception class.
_BAD_SIZES = {
    "('a',)": TypeError, '((2, -3),)': RuntimeError, '((2, 3.0),)': TypeError,
    '(-1,)': RuntimeError, '(2, -3)': RuntimeError, '(2, 3.0)': TypeError, '(2.0,)': TypeError,
    '(True,)': TypeError, '([2], [3])': TypeError,
}


@pytest.mark.parametrize(
    "args",
    [(2, 3.0), (2.0,), (True,), ([2], [3]), ((2, 3.0),), ("a",), (-1,), (2, -3), ((2, -3),)],
    ids=repr,
)
def test_factory_bad_size_raises(args, request):
    check(lambda torch: torch.zeros(*args), raises=_BAD_SIZES.get(request.node.callspec.id))
    check(lambda torch: torch.rand(*args), raises=_BAD_SIZES.get(request.node.callspec.id))


def test_factory_out_keeps_alias_and_dtype():
    def prog(torch):
        out = torch.zeros(2, 3, dtype=torch.int64)
        view = out[0]
        r = torch.ones(2, 3, out=out)
        a = torch.arange(6, out=torch.empty(0))
        f = torch.full((2,), 7, out=torch.empty(2, dtype=torch.float64))
        return r is out, view, out._version > 0, out, a, f

    check(prog)


def test_factory_out_requiring_grad_raises():
    check(lambda torch: torch.zeros(2, out=torch.ones(2, requires_grad=True)), raises=RuntimeError)


# ------------------------------------------------------------------ arange, linspace, eye


# The samples both libraries reject, by test id, and the exception class.
_ARANGE_ERRORS = {
    '(0, 5, -1)': RuntimeError, '(0, 5, 0)': RuntimeError, '(0, inf)': RuntimeError,
    '(0, nan)': RuntimeError, '(5, 0)': RuntimeError,
}


@pytest.mark.parametrize(
    "args",
    [(5,), (0,), (2, 7), (1, 10, 3), (10, 1, -3), (5, 0, -1), (0.5,), (0, 1, 0.25),
     (1.0, 2.0, 0.3), (-2.5, 2.5), (0, -1, -0.1), (3, 3), (1, 5, 2.0), (10, 0, -2.5),
     (1, 1.3, 0.1), (-1, 1, 0.3), (True,), (0, 5, 0), (5, 0), (0, 5, -1), (0, float("inf")),
     (0, float("nan"))],
    ids=repr,
)
def test_arange(args, request):
    check(lambda torch: torch.arange(*args), raises=_ARANGE_ERRORS.get(request.node.callspec.id))


# The samples both libraries reject, by test id, and the exception class.
_ARANGE_DTYPE_ERRORS = {
    "(0, 3)-'bool'": NotImplementedError, "(0, 3)-'complex64'": NotImplementedError,
}


@pytest.mark.parametrize(
    "args, dtype",
    [((5,), "float32"), ((0, 5, 1.5), "int64"), ((1, 4), "float64"), ((0, 3), "int32"),
     ((0.0, 1.0, 0.1), "float64"), ((0, 10, 3), "uint8"), ((0, 2), "bfloat16"),
     # integer kernels truncate the arguments; only int64 also sizes the result from them
     ((0, 5, 1.5), "int32"), ((0.5, 5, 1.5), "int64"), ((-0.5, 3, 1), "int64"),
     ((0, 2.5, 0.5), "int32"), ((1, 2.5, 0.5), "int16"), ((-2.5, 2.5), "int64"),
     ((-2.5, 2.5), "int32"), ((-3, 5, 2.5), "int64"), ((-3, 5, 2.5), "int32"),
     ((10, 0, -3), "uint8"), ((0, 1, 0.1), "float16"), ((0, 1, 0.1), "bfloat16"),
     ((2**53, 2**53 + 3), "int64"), ((0, 3), "bool"), ((0, 3), "complex64")],
    ids=repr,
)
def test_arange_dtype(args, dtype, request):
    check(lambda torch: torch.arange(*args, dtype=getattr(torch, dtype)),
          raises=_ARANGE_DTYPE_ERRORS.get(request.node.callspec.id))


def test_arange_keywords_and_tensor_args():
    check(lambda torch: (torch.arange(start=1, end=4), torch.arange(end=3),
                         torch.arange(torch.tensor(3)), torch.arange(torch.tensor(1.5), 4),
                         torch.arange(np.int32(3)), torch.arange(np.float64(2.0))))


# The samples both libraries reject, by test id, and the exception class.
_LINSPACE_ERRORS = {
    '(0, 1, -1)': RuntimeError,
}


@pytest.mark.parametrize(
    "args",
    [(0, 1, 5), (-1, 1, 4), (0, 10, 11), (2, 2, 3), (1, 0, 5), (0, 1, 1), (0, 1, 0),
     (3, 7, 2), (0.1, 0.9, 7), (0, 1, -1)],
    ids=repr,
)
def test_linspace(args, request):
    check(lambda torch: torch.linspace(*args),
          raises=_LINSPACE_ERRORS.get(request.node.callspec.id))


@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2), (0,), (1, 0)], ids=repr)
def test_eye(args):
    check(lambda torch: (torch.eye(*args), torch.eye(*args, dtype=torch.int64),
                         torch.eye(*args, dtype=torch.bool)))


def test_arange_float_sizes():
    check(lambda torch: (torch.arange(0, 1.0, 0.1, dtype=torch.float64),
                         torch.arange(-1, 1, 0.3, dtype=torch.float64)))


# The samples both libraries reject, by test id, and the exception class.
_LINSPACE_DTYPE_ERRORS = {
    "(0, 1, 3)-'bool'": NotImplementedError,
}


@pytest.mark.parametrize(
    "args, dtype",
    [((0, 10, 7), "int64"), ((-5, 5, 4), "int64"), ((0, 10, 7), "float64"), ((-5, 5, 4), "int32"),
     ((0.5, 2.5, 5), "int64"), ((0, 10, 5), "uint8"), ((3, -3, 5), "int32"), ((0, 1, 5), "int64"),
     ((2.7, 5, 1), "int64"), ((0, 1, 3), "bool"), ((0, 1, 4), "complex64"), ((0, 1, 6), "float16"),
     ((-1, 1, 7), "bfloat16"), ((0.3, 9.1, 3), "int16")],
    ids=repr,
)
def test_linspace_dtype(args, dtype, request):
    check(lambda torch: torch.linspace(*args, dtype=getattr(torch, dtype)),
          raises=_LINSPACE_DTYPE_ERRORS.get(request.node.callspec.id))


def test_linspace_complex_and_tensor_bounds():
    check(lambda torch: (torch.linspace(0, 1j, 3), torch.linspace(1 + 1j, -1, 4),
                         torch.linspace(torch.tensor(0.0), torch.tensor(1.0), 3)))


def test_eye_bad_arguments_raise():
    for bad, exc in (((2.5,), TypeError), ((2, 3.0), TypeError), ((-1,), RuntimeError),
                     ((2, -1), RuntimeError)):
        check(lambda torch, bad=bad: torch.eye(*bad), raises=exc)
    check(lambda torch: (torch.eye(2, m=3), torch.eye(n=2)))


# ------------------------------------------------------------------ *_like and new_*


@pytest.mark.parametrize("dtype", [None, "int32", "float64", "bool"])
def test_like_dtype(dtype):
    def prog(torch):
        x = torch.tensor(np.arange(6, dtype=np.int16).reshape(2, 3))
        kw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
        return (torch.zeros_like(x, **kw), torch.ones_like(x, **kw),
                torch.full_like(x, 7, **kw), torch.empty_like(x, **kw).dtype,
                torch.empty_like(x, **kw).shape, torch.full_like(x, 2.7, **kw))

    check(prog)


def test_like_preserves_strides():
    def prog(torch):
        x = torch.tensor(np.arange(6.0).reshape(2, 3)).t()
        p = torch.tensor(np.zeros((2, 3, 4))).permute(2, 0, 1)
        return (torch.zeros_like(x), torch.ones_like(x), torch.empty_like(x).stride(),
                torch.full_like(x, 2.0), torch.zeros_like(p), torch.rand_like(x).stride(),
                torch.zeros_like(x[:, :1]))

    check(prog, strides=True)


def test_rand_like_dtype_shape():
    def prog(torch):
        x = torch.zeros(3, 2, dtype=torch.float64)
        r, n = torch.rand_like(x), torch.randn_like(x, dtype=torch.float32)
        v = np.asarray(r.tolist())
        return r.shape, r.dtype, n.dtype, n.shape, bool((v >= 0).all() and (v < 1).all())

    check(prog)


def test_like_requires_grad():
    def prog(torch):
        x = torch.ones(2, requires_grad=True)
        z = torch.zeros_like(x)
        o = torch.ones_like(x, requires_grad=True)
        return z.requires_grad, o.requires_grad, o.is_leaf

    check(prog)


@pytest.mark.parametrize("src_dtype", ["float64", "int32", "bool"])
def test_new_methods_default_to_self_dtype(src_dtype):
    def prog(torch):
        x = torch.zeros(1, dtype=getattr(torch, src_dtype))
        return (x.new_tensor([1, 2]), x.new_tensor([1.5]), x.new_zeros(2, 3),
                x.new_zeros((2,)), x.new_ones([3]), x.new_ones(2, 1), x.new_full((2,), 3),
                x.new_empty(2).shape, x.new_empty((1, 2)).dtype, x.new_zeros(torch.Size([2])))

    check(prog)


def test_new_methods_dtype_override_and_grad():
    def prog(torch):
        x = torch.zeros(1)
        a = x.new_tensor([1, 2], dtype=torch.int64)
        b = x.new_ones(2, dtype=torch.float64, requires_grad=True)
        c = x.new_full((2, 2), 1.5, dtype=torch.float16)
        d = x.new_zeros(size=(3,))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "To copy construct from a tensor ..."
            e = b.new_tensor(b * 2)
        return a, b, b.requires_grad, c, d, x.new_empty(size=(2,)).shape, e, e.requires_grad

    check(prog)


# ------------------------------------------------------------------ legacy constructors


def test_legacy_tensor_constructor():
    def prog(torch):
        a = torch.Tensor(2, 3)
        b = torch.Tensor([1, 2])
        c = torch.Tensor()
        d = torch.Tensor(torch.Size([2]))
        e = torch.Tensor([[True, False]])
        return (a.shape, a.dtype, b, c, c.shape, d.shape, e, type(b).__name__,
                isinstance(b, torch.Tensor))

    check(prog)


def test_legacy_tensor_float64_default():
    def prog(torch):
        torch.set_default_dtype(torch.float64)
        return torch.Tensor([1, 2]), torch.Tensor(3).dtype

    check(prog)


@pytest.mark.parametrize(
    "name",
    ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
     "ByteTensor", "BoolTensor", "HalfTensor", "BFloat16Tensor"],
)
def test_legacy_typed_constructors(name):
    def prog(torch):
        cls = getattr(torch, name)
        t = cls([1, 0, 2])
        s = cls(2, 3)
        others = [getattr(torch, n) for n in ("FloatTensor", "LongTensor", "BoolTensor")]
        return (t, s.shape, s.dtype, isinstance(t, cls), isinstance(t, torch.Tensor),
                [isinstance(t, o) for o in others], t.type())

    check(prog)


def test_legacy_typed_isinstance_on_plain_tensor():
    def prog(torch):
        return (isinstance(torch.zeros(1), torch.FloatTensor),
                isinstance(torch.zeros(1, dtype=torch.int64), torch.LongTensor),
                isinstance(torch.zeros(1, dtype=torch.int64), torch.FloatTensor),
                isinstance(3, torch.FloatTensor), isinstance(torch.zeros(1), torch.Tensor),
                isinstance(np.zeros(1), torch.Tensor))

    check(prog)


def test_legacy_constructor_data_rules():
    def prog(torch):
        i64 = torch.ones(2, dtype=torch.int64)
        return (torch.Tensor(np.array([1.5, 2.0])), torch.Tensor(i64), torch.Tensor((2, 3)),
                torch.Tensor(3).shape, torch.LongTensor([2**40 + 1]), torch.DoubleTensor(2).dtype,
                torch.LongTensor([1.7, -1.7]), torch.FloatTensor([[1, 2]]))

    check(prog)


@pytest.mark.parametrize(
    "make",
    [lambda t: t.FloatTensor(t.ones(2, dtype=t.int64)), lambda t: t.LongTensor(t.ones(2)),
     lambda t: t.Tensor([1, 2], dtype=t.int64), lambda t: t.LongTensor(2.5),
     lambda t: t.Tensor(2, "a"), lambda t: t.Tensor(2.5)],
)
def test_legacy_constructor_errors(make):
    check(make, raises=TypeError)


@pytest.mark.parametrize("case", [
    (np.array([1e300, -1e300, np.nan, 1e-320]), "float32"),
    (np.array([70000, -3, 2**60 + 1], np.int64), "float16"),
    (np.array([2**60 + 1, -7], np.int64), "float32"),
    (np.array([True, False]), "float64"),
    (np.array([0.1, 3.3e38], np.float32), "bfloat16"),
    (np.array([1.5, -2.5, 7.9], np.float64), "int32"),
    (np.array([[1, 2], [3, 4]], np.int16), None),
    (np.array([1 + 2j], np.complex128), "complex64"),
])
def test_host_arrays_convert_as_torch(case):
    """NumPy arrays and lists become tensors through a host conversion (no XLA program per
    shape): the values, overflow to inf included, and dtypes are PyTorch's, silently."""
    arr, name = case

    def prog(t):
        dtype = None if name is None else getattr(t, name)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return t.tensor(arr, dtype=dtype), t.tensor(arr.tolist(), dtype=dtype)

    check(prog)


def test_new_shapes_from_the_host_compile_nothing():
    """Host data and fills reach the device without an XLA program per shape (on the CPU
    backend, where the fills are built by NumPy)."""
    jtorch.nn.Linear(3, 2)  # compiles the initialisation draws of the smallest bucket
    with counting_compiles() as compiles:
        for n in range(101, 106):
            jtorch.tensor(np.ones(n, np.int64))
            jtorch.tensor([0.5] * n)
            jtorch.from_numpy(np.ones((n, 2), np.float32))
            jtorch.tensor(np.ones(n), dtype=jtorch.float32)
            x = jtorch.zeros(n, 3)
            jtorch.ones(n, dtype=jtorch.int32), jtorch.empty(2, n), jtorch.full((n,), 2.5)
            x.new_zeros(n), jtorch.zeros_like(x), jtorch.full_like(x, 7)
            jtorch.eye(n), jtorch.eye(n, 3, dtype=jtorch.int64), jtorch.eye(m=2, n=n)
            jtorch.nn.Linear(n, 2)  # parameter initialisation: one draw kernel per bucket
    assert compiles == []


def test_parameter_fills_of_any_size_share_one_program():
    """normal_/uniform_ on parameters draw in chunks of one size on the CPU backend: once
    the first model compiled its draws, models with bigger parameters compile nothing, and
    every chunk is a fresh draw (no repeated values), reproducible under manual_seed."""
    if jax.default_backend() != "cpu":
        pytest.skip("the chunked fills are the CPU backend's")
    from jtorch.eager import random_ops

    jtorch.nn.Linear(3, 2)
    jtorch.nn.init.normal_(jtorch.empty(3))
    kernels = len(random_ops._FILLS)
    with counting_compiles() as compiles:
        # 16k+ to 65k+ values (three power-of-two buckets before), and 1.2M (the bigger
        # chunk's program before it waited for tensors of 4M values)
        for n in (130, 385, 513, 9216):
            layer = jtorch.nn.Linear(n, 128)
            jtorch.nn.init.normal_(layer.weight, std=0.02)
    assert compiles == [] and len(random_ops._FILLS) == kernels
    big = jtorch.empty(1 << 22).uniform_(-1, 1).numpy()  # chunks of 1M values
    assert np.count_nonzero(big[:1 << 20] == big[1 << 20:2 << 20]) < 5
    assert big.min() >= -1 and big.max() < 1 and abs(big.mean()) < 0.002
    jtorch.manual_seed(3)
    w = jtorch.empty(5, 10000).normal_()
    jtorch.manual_seed(3)
    again = jtorch.empty(5, 10000).normal_()
    values = w.numpy().ravel()
    np.testing.assert_array_equal(values, again.numpy().ravel())
    first, second = values[:1 << 14], values[1 << 14:2 << 14]
    assert np.count_nonzero(first == second) < 5  # each chunk of 16k values a fresh draw
    assert abs(values.mean()) < 0.02 and abs(values.std() - 1) < 0.02
    u = jtorch.empty(70000).uniform_(-2, 3).numpy()
    assert u.min() >= -2 and u.max() < 3 and abs(u.mean() - 0.5) < 0.03


@pytest.mark.parametrize("make", [
    lambda t: t.zeros(2, 3),
    lambda t: t.ones(4, dtype=t.int8),
    lambda t: t.empty(0, 2).shape,
    lambda t: t.full((2, 2), 3),
    lambda t: t.full((3,), True),
    lambda t: t.full((2,), 1.5, dtype=t.float16),
    lambda t: t.full((2,), 1 + 2j),
    lambda t: t.full((2,), fill_value=-2.0, dtype=t.bfloat16),
    lambda t: t.full((2,), 300, dtype=t.uint8),
    lambda t: t.full((2,), float("inf"), dtype=t.int32),
    lambda t: t.zeros(2, 3, out=t.ones(1)),
    lambda t: t.zeros_like(t.ones(2, 3).t()).stride(),
    lambda t: t.full_like(t.ones(2, dtype=t.int64), 4.7),
    lambda t: t.ones(2, 3, dtype=t.float64).new_full((2,), 5),
    lambda t: t.ones(2).new_ones(3, dtype=t.bool),
    lambda t: t.zeros(2, 3, requires_grad=True).requires_grad,
    lambda t: t.zeros(-1),
])
def test_fills_match_torch(make):
    """zeros/ones/empty/full and their like/new forms (built on the host on the CPU
    backend): values, dtypes, strides, out= and errors as PyTorch's."""
    check(make, may_raise=True)
