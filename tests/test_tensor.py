"""Tensor basics: metadata, conversion to Python, repr, dtype/device conversion, torch.device,
torch.Size, and interplay with NumPy scalars and arrays."""

from __future__ import annotations

import operator

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import check, error_of, raising

import jtorch

ARR = np.arange(6, dtype=np.float32).reshape(2, 3)

# ------------------------------------------------------------------ metadata


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "float16", "bfloat16",
                                   "complex64", "uint8", "int32"])
def test_metadata(dtype):
    def prog(torch):
        x = torch.tensor(ARR).to(getattr(torch, dtype))
        return (x.size(), x.size(0), x.size(-1), x.size(-2), x.shape, x.stride(), x.stride(-1),
                x.dim(), x.ndim, x.ndimension(), x.numel(), x.nelement(), x.element_size(),
                x.itemsize, x.nbytes, x.is_floating_point(), x.is_complex(), x.dtype,
                str(x.device), x.is_cuda, len(x), x.is_contiguous(), x.storage_offset(),
                torch.numel(x), torch.is_tensor(x), torch.is_floating_point(x))

    check(prog)


def test_metadata_of_views_and_0dim():
    def prog(torch):
        x = torch.tensor(ARR)
        t, s = x.t(), torch.tensor(2.5)
        return (t.shape, t.stride(), t.is_contiguous(), x[:, 1].stride(), x[1].storage_offset(),
                s.shape, s.stride(), s.dim(), s.numel(), x[:, 1:].shape, x.new_zeros(0, 3).shape)

    check(prog)


def test_shape_is_size():
    def prog(torch):
        s = torch.zeros(2, 3).shape
        return (type(s).__name__, repr(s), str(s), s == (2, 3), isinstance(s, tuple), s[1:],
                type(s[1:]).__name__, s[0], s + (4,), (4,) + s, type((4,) + s).__name__,
                s * 2, type(s * 2).__name__, s.numel(), torch.Size([2, 3]) == s,
                torch.Size([torch.tensor(2)]), torch.Size(), list(s))

    check(prog)


def test_size_rejects_floats():
    check(lambda torch: torch.Size([2.0]), raises=TypeError)


def test_namespace_helpers_need_tensors():
    check(lambda torch: torch.numel([1]), raises=TypeError)
    check(lambda torch: torch.is_floating_point(1.0), raises=TypeError)
    check(lambda torch: (torch.is_tensor(np.zeros(1)), torch.is_tensor([1]), torch.numel(
        torch.zeros(2, 0)), torch.is_floating_point(torch.zeros(1, dtype=torch.float16))))


@pytest.mark.parametrize("dim", [2, -3])
def test_size_and_stride_bad_dim_raise(dim):
    check(lambda torch: torch.ones(2, 3).size(dim), raises=IndexError)
    check(lambda torch: torch.ones(2, 3).stride(dim), raises=IndexError)


def test_size_of_0dim_raises():
    check(lambda torch: torch.tensor(1.0).size(0), raises=IndexError)


def test_len_of_0dim_raises():
    check(lambda torch: len(torch.tensor(1.0)), raises=TypeError)
    check(lambda torch: iter(torch.tensor(1.0)), raises=TypeError)


def test_iteration_yields_views():
    def prog(torch):
        x = torch.tensor(ARR)
        rows = list(x)
        for r in x:
            r.mul_(2)
        return (rows, len(rows), rows[1].data_ptr() - x.data_ptr(), x, x._version,
                [r.shape for r in x[0]], rows[0]._version)

    check(prog)


# ------------------------------------------------------------------ to Python


@pytest.mark.parametrize(
    "make",
    [lambda t: t.tensor(2.5), lambda t: t.tensor([[7]]), lambda t: t.tensor(True),
     lambda t: t.tensor(3, dtype=t.uint8), lambda t: t.tensor(1.5, dtype=t.float16),
     lambda t: t.tensor(1j), lambda t: t.tensor([2.5], dtype=t.bfloat16),
     lambda t: t.tensor(-3, dtype=t.int8), lambda t: t.tensor(0.1, dtype=t.float64)],
)
def test_item(make):
    def prog(torch):
        v = make(torch).item()
        return v, type(v).__name__

    check(prog)


@pytest.mark.parametrize("make", [lambda t: t.ones(2), lambda t: t.zeros(0)])
def test_item_many_elements_raises(make):
    check(lambda torch: make(torch).item(), raises=RuntimeError)


@pytest.mark.parametrize(
    "make",
    [lambda t: t.tensor(3), lambda t: t.tensor([[1.5]]), lambda t: t.zeros(2, 0),
     lambda t: t.tensor(ARR), lambda t: t.tensor([True, False]),
     lambda t: t.tensor([1, 2], dtype=t.bfloat16), lambda t: t.tensor([1 + 2j]),
     lambda t: t.tensor(ARR).t()],
)
def test_tolist(make):
    def prog(torch):
        v = make(torch).tolist()
        return v, type(v).__name__, repr(v)

    check(prog)


# The samples both libraries reject, by test id, and the exception class.
_PY_ERRORS = {
    'bool-<lambda>10': RuntimeError, 'bool-<lambda>9': RuntimeError,
    'complex-<lambda>10': ValueError, 'complex-<lambda>9': ValueError,
    'float-<lambda>10': ValueError, 'float-<lambda>8': RuntimeError, 'float-<lambda>9': ValueError,
    'index-<lambda>0': TypeError, 'index-<lambda>1': TypeError, 'index-<lambda>10': TypeError,
    'index-<lambda>11': TypeError, 'index-<lambda>4': TypeError, 'index-<lambda>5': TypeError,
    'index-<lambda>6': TypeError, 'index-<lambda>8': TypeError, 'index-<lambda>9': TypeError,
    'int-<lambda>10': ValueError, 'int-<lambda>5': ValueError, 'int-<lambda>6': OverflowError,
    'int-<lambda>8': RuntimeError, 'int-<lambda>9': ValueError,
}


@pytest.mark.parametrize(
    "make",
    [lambda t: t.tensor(2.7), lambda t: t.tensor(-2.7), lambda t: t.tensor([[3]]),
     lambda t: t.tensor(False), lambda t: t.tensor(0.0), lambda t: t.tensor(float("nan")),
     lambda t: t.tensor(float("inf")), lambda t: t.tensor(5, dtype=t.uint8),
     lambda t: t.tensor(1 + 2j), lambda t: t.ones(2), lambda t: t.zeros(0),
     lambda t: t.tensor([2.0]), lambda t: t.tensor(True)],
)
@pytest.mark.parametrize("conv", [bool, float, int, complex, operator.index],
                         ids=lambda f: f.__name__)
def test_python_conversions(make, conv, request):
    def prog(torch):
        v = conv(make(torch))
        return repr(v), type(v).__name__

    check(prog, raises=_PY_ERRORS.get(request.node.callspec.id))


def test_tensor_as_sequence_index():
    check(lambda torch: ([1, 2, 3][torch.tensor(1)], range(5)[torch.tensor([2])],
                         "abc"[torch.tensor(True)]))


def test_format():
    check(lambda torch: (f"{torch.tensor(2.5):.3f}", f"{torch.tensor(3):>4}",
                         f"{torch.tensor([1.0])}", format(torch.tensor(1.5))))


# ------------------------------------------------------------------ repr


@pytest.mark.parametrize(
    "make",
    [lambda t: t.tensor(ARR), lambda t: t.tensor([1, 2]), lambda t: t.tensor(3.5),
     lambda t: t.tensor([True, False]), lambda t: t.tensor(ARR, dtype=t.float64),
     lambda t: t.tensor([1, 2], dtype=t.int32), lambda t: t.tensor([1.5], dtype=t.float16),
     lambda t: t.tensor([1.5], dtype=t.bfloat16), lambda t: t.tensor([1 + 2j]),
     lambda t: t.tensor([1, 2], dtype=t.uint8), lambda t: t.zeros(0), lambda t: t.zeros(2, 0),
     lambda t: t.zeros(2, 0, dtype=t.int64), lambda t: t.tensor(ARR * 1e6),
     lambda t: t.ones(2, requires_grad=True),
     lambda t: t.ones(2, dtype=t.float64, requires_grad=True),
     lambda t: t.ones(2, requires_grad=True) * 2, lambda t: t.ones(2, requires_grad=True) + 1,
     lambda t: t.ones(2, 3, requires_grad=True).sum(),
     lambda t: t.ones(2, 3, requires_grad=True).t(),
     lambda t: t.ones(2, 3, requires_grad=True)[0],
     lambda t: t.ones(2, requires_grad=True).double(),
     lambda t: t.ones(2, requires_grad=True).detach(),
     lambda t: t.tensor([float("nan"), float("inf"), -1.0])],
)
def test_repr_and_str(make):
    def prog(torch):
        x = make(torch)
        return repr(x), str(x)

    check(prog)


def test_repr_follows_default_dtype():
    def prog(torch):
        torch.set_default_dtype(torch.float64)
        return repr(torch.ones(2)), repr(torch.ones(2, dtype=torch.float32)), repr(torch.tensor(1j))

    check(prog)


# ------------------------------------------------------------------ dtype and device conversion


def test_no_op_conversions_return_self():
    def prog(torch):
        x = torch.tensor(ARR)
        return (x.to("cpu") is x, x.cpu() is x, x.float() is x, x.contiguous() is x,
                x.to(torch.float32) is x, x.type(torch.float32) is x,
                x.type("torch.FloatTensor") is x, x.to(x) is x, torch.as_tensor(x) is x,
                x.to(device="cpu", dtype=torch.float32) is x, x.to(torch.device("cpu")) is x,
                x.detach() is x, x.to() is x, x.to(copy=True) is x, x.to(torch.float64) is x)

    check(prog)


@pytest.mark.parametrize(
    "conv",
    [lambda x, t: x.to(t.float64), lambda x, t: x.double(), lambda x, t: x.long(),
     lambda x, t: x.bool(), lambda x, t: x.int(), lambda x, t: x.half(),
     lambda x, t: x.bfloat16(), lambda x, t: x.abs().byte(), lambda x, t: x.char(),
     lambda x, t: x.short(), lambda x, t: x.type(t.float64), lambda x, t: x.type(t.int32),
     lambda x, t: x.type("torch.LongTensor"), lambda x, t: x.to("cpu", t.float64),
     lambda x, t: x.to(dtype=t.int32, device="cpu"), lambda x, t: x.to(t.ones(1, dtype=t.int8)),
     lambda x, t: x.to(t.float32, copy=True), lambda x, t: x.cfloat(),
     lambda x, t: x.type(t.DoubleTensor), raising(ValueError, lambda x, t: x.type("foo"))],
)
def test_dtype_conversions(conv):
    data = np.array([[0.5, -1.5, 0.0], [2.7, -0.2, 100.0]], dtype=np.float32)
    check(lambda torch: conv(torch.tensor(data), torch),
          raises=error_of(conv))


@pytest.mark.parametrize("dtype", ["float32", "int64", "int8", "uint8", "bool", "float64",
                                   "float16", "bfloat16", "complex64", "int16", "int32"])
def test_type_string(dtype):
    check(lambda torch: torch.zeros(1, dtype=getattr(torch, dtype)).type())


def test_conversion_keeps_graph():
    def prog(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x.double()
        (y * y).sum().backward()
        return y.grad_fn is not None, x.float().grad_fn is None, x.grad, x.to("cpu") is x

    check(prog)


@pytest.mark.parametrize(
    "make",
    [raising(AssertionError, lambda t: t.ones(2).to("cuda")),
     raising(AssertionError, lambda t: t.ones(2).cuda()),
     raising(AssertionError, lambda t: t.ones(2).to("cuda:0")),
     raising(AssertionError, lambda t: t.ones(2).to(t.device("cuda"))),
     raising(AssertionError, lambda t: t.ones(2, device="cuda")),
     raising(AssertionError, lambda t: t.zeros(2, device=t.device("cuda", 0))),
     raising(RuntimeError, lambda t: t.ones(2).to("foo")),
     raising(AssertionError, lambda t: t.tensor([1.0], device="cuda")),
     raising(AssertionError, lambda t: t.ones(2).to(torch_dtype_pair(t))),
     raising(AssertionError, lambda t: t.randn(2, device="cuda")),
     raising(AssertionError, lambda t: t.zeros_like(t.ones(1), device="cuda")),
     raising(AssertionError, lambda t: t.ones(1).new_ones(2, device="cuda")),
     raising(RuntimeError, lambda t: t.ones(2).cuda(0)),
     raising(AssertionError, lambda t: t.as_tensor([1.0], device="cuda")),
     raising(RuntimeError, lambda t: t.Tensor([1.0], device="cuda")),
     raising(TypeError, lambda t: t.ones(2).to(t.float64, t.int32))],
)
def test_cuda_on_cpu_only_machine_raises(make):
    if jax.default_backend() == "gpu":
        pytest.skip("a GPU is present")
    check(make)


def torch_dtype_pair(t):
    return t.device("cuda:1")


def test_device_keyword_cpu_accepted():
    check(lambda torch: (torch.ones(2, device="cpu"), str(torch.tensor([1], device="cpu").device),
                         str(torch.zeros(1, device=torch.device("cpu")).device),
                         torch.arange(3, device="cpu"), torch.rand(2, device="cpu").shape,
                         str(torch.ones(1).new_zeros(2).device),
                         str(torch.zeros_like(torch.ones(1), device="cpu").device)))


# ------------------------------------------------------------------ torch.device


@pytest.mark.parametrize(
    "make",
    [lambda t: t.device("cpu"), lambda t: t.device("cuda:1"), lambda t: t.device("cuda", 1),
     lambda t: t.device("cpu", 0), lambda t: t.device(type="cuda", index=3),
     lambda t: t.device(t.device("cuda:2")), lambda t: t.device("cuda"),
     lambda t: t.device("meta"), lambda t: t.device("mps")],
)
def test_device(make):
    def prog(torch):
        d = make(torch)
        return repr(d), str(d), d.type, d.index, d == make(torch), hash(d) == hash(make(torch))

    check(prog)


def test_device_equality():
    def prog(torch):
        d = torch.device
        return (d("cpu") == d("cpu"), d("cpu") != d("cpu", 0), d("cuda:0") == d("cuda", 0),
                d("cuda:0") == d("cuda"), d("cpu") == "cpu", d("cuda:1") == "cuda:1",
                d("cpu") == 1, {d("cpu"): 1}[d("cpu")], torch.ones(1).device == d("cpu"))

    check(prog)


# The samples both libraries reject, by test id, and the exception class.
_DEVICE_ERRORS = {
    "(' cpu',)": RuntimeError, "('CPU',)": RuntimeError, "('cpu', -1)": RuntimeError,
    "('cuda:',)": RuntimeError, "('cuda:-1',)": RuntimeError, "('cuda:01',)": RuntimeError,
    "('cuda:1', 1)": RuntimeError, "('cuda:x',)": RuntimeError, "('foo',)": RuntimeError,
    '(1.5,)': TypeError, '(None,)': TypeError,
}


@pytest.mark.parametrize(
    "args",
    [("cuda:-1",), ("cuda:x",), ("foo",), ("cuda:1", 1), (1.5,), ("CPU",), (" cpu",),
     ("cuda:01",), ("cpu", -1), ("cuda:",), (None,)],
    ids=repr,
)
def test_device_errors(args, request):
    check(lambda torch: torch.device(*args), raises=_DEVICE_ERRORS.get(request.node.callspec.id))


def test_device_from_int_on_cpu_only_machine():
    if jax.default_backend() == "gpu":
        pytest.skip("a GPU is present")
    check(lambda torch: torch.device(1), raises=RuntimeError)
    check(lambda torch: torch.ones(2).to(0), raises=RuntimeError)


def test_device_pickles():
    import pickle

    check(lambda torch: pickle.loads(pickle.dumps(torch.device("cuda:1"))) == torch.device(
        "cuda:1"))


# ------------------------------------------------------------------ JAX interop


def test_jax_roundtrip():
    a = jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)
    t = jtorch.from_jax(a)
    assert isinstance(t, jtorch.Tensor) and t.dtype is jtorch.float32 and t.shape == (2, 3)
    assert t.jax() is a  # zero copy both ways
    assert t.tolist() == a.tolist()
    t.add_(1)
    assert t.jax().tolist() == (a + 1).tolist() and a.tolist()[0] == [0.0, 1.0, 2.0]
    v = jtorch.tensor(ARR).t()
    assert v.jax().shape == (3, 2) and v.jax().tolist() == ARR.T.tolist()
    assert jtorch.from_jax(jnp.array(True)).dtype is jtorch.bool


def test_from_jax_unsupported_dtype_raises():
    with pytest.raises(TypeError):
        jtorch.from_jax(jnp.zeros(2, jnp.uint32))
    with pytest.raises(TypeError):
        jtorch.from_jax(np.zeros(2))


def test_numpy_is_a_read_only_snapshot():
    """Difference from PyTorch (see Tensor.numpy): no shared memory, and writes are refused."""
    t = jtorch.tensor([1.0, 2.0])
    a = t.numpy()
    t.add_(1)
    assert a.tolist() == [1.0, 2.0] and t.numpy().tolist() == [2.0, 3.0]
    with pytest.raises(ValueError):
        a[0] = 5.0


def test_tensor_from_jax_array_copies_values():
    a = jnp.arange(3, dtype=jnp.int32)
    t = jtorch.tensor(a)
    assert t.dtype is jtorch.int32 and t.tolist() == [0, 1, 2]
    assert jtorch.as_tensor(a, dtype=jtorch.float64).dtype is jtorch.float64


# ------------------------------------------------------------------ NumPy operands


@pytest.mark.parametrize(
    "scalar, dtype",
    [(s, d) for s in (np.float64(1.5), np.float32(2.0), np.int64(3), np.int32(2), np.float16(0.5))
     for d in ("float32", "float16")]
    + [(s, d) for s in (np.int64(3), np.int32(2)) for d in ("int32", "int8")]
    + [(s, d) for s in (np.float64(1.5), np.float16(0.5))
       for d in ("int32", "int8")],
    ids=repr,
)
def test_numpy_scalar_operands(scalar, dtype):
    def prog(torch):
        x = torch.tensor([[1, 2, 3]], dtype=getattr(torch, dtype))
        return (x + scalar, scalar + x, x * scalar, scalar * x, x - scalar, scalar - x,
                x < scalar, scalar < x, x == scalar, scalar >= x, type(scalar + x).__name__)

    check(prog)


def test_numpy_scalar_division_and_pow():
    def prog(torch):
        x = torch.tensor([1.0, 2.0, 4.0])
        return (np.float64(3) / x, x / np.float64(2), np.float64(3) ** x, x ** np.float64(2),
                x // np.int64(2), np.int64(2) * torch.tensor([1, 2], dtype=torch.int8))

    check(prog)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch's __array_wrap__
@pytest.mark.parametrize(
    "arr, op",
    [(a, op) for a in (np.array([1.0, 2.0, 3.0]), np.array([[1.0], [2.0]], np.float32))
     for op in ("add", "mul", "sub", "eq", "req")]
    + [(np.array(2.0), "eq"), (np.array(2.0), "req"), (np.array([True, False, True]), "eq")]
    + [(np.array(2.0), op) for op in ("add", "mul")],
    ids=lambda a: f"{a.dtype}{a.shape}" if isinstance(a, np.ndarray) else a,
)
def test_ndarray_operands(arr, op):
    """Only the forms torch supports: arithmetic with the tensor on the left, == either side
    (torch raises TypeError for ``ndarray + tensor`` and for ``tensor < ndarray``)."""
    fn = {"add": operator.add, "mul": operator.mul, "sub": operator.sub, "eq": operator.eq,
          "req": lambda x, a: a == x}[op]
    check(lambda torch: fn(torch.tensor([1.0, 2.0, 3.0]), arr))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch's __array__ lacks copy=
def test_ndarray_of_tensor():
    def prog(torch):
        x = torch.tensor(ARR)
        a, b = np.asarray(x), np.array(x, dtype=np.float64)
        return a.dtype.name, a.tolist(), b.dtype.name, np.add(x.numpy(), 1).tolist()

    check(prog)


def test_scalar_promotion_follows_default_dtype_change():
    """Kernels are cached, but promotion reads the default dtype: it must key the cache."""
    def prog(torch):
        x = torch.tensor([1, 2])
        before = x * 1.5
        torch.set_default_dtype(torch.float64)
        return before, x * 1.5, torch.tensor([1.0, 2.0]) + 1

    check(prog)
