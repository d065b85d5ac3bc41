"""Tensor metadata queries (device/layout predicates, dim_order, is_set_to, sum_to_size,
grad_dtype, sparse queries on dense tensors, apply_/map_/map2_), against PyTorch."""

from __future__ import annotations

import pytest
from conftest import check, error_of, raising

PREDICATES = ("is_cpu", "is_cuda", "is_xpu", "is_mps", "is_meta", "is_quantized", "is_nested",
              "is_mkldnn", "is_vulkan", "is_ipu", "is_xla", "is_maia", "is_mtia",
              "is_sparse", "is_sparse_csr")


def test_device_and_layout_predicates():
    check(lambda t: [getattr(t.zeros(2), p) for p in PREDICATES]
          + [t.zeros(2).is_distributed(), t.is_distributed(t.zeros(2))])


def test_torch_level_method_forms():
    def prog(t):
        x = t.ones(2, requires_grad=True)
        y = x * 2
        d = t.detach(y)
        with t.inference_mode():
            z = t.ones(1)
        return [d, d.requires_grad, t.get_device(x), t.is_inference(x), t.is_inference(z)]

    check(prog)


@pytest.mark.parametrize("fn", ["detach", "get_device", "is_inference", "is_distributed"])
def test_torch_level_forms_take_tensors(fn):
    e, a = check(lambda t: getattr(t, fn)(3), raises=TypeError)
    assert str(a) == str(e)


def test_detach_():
    check(lambda t: [(y := t.ones(2, requires_grad=True) * 2), t.detach_(y) is y,
                     y.requires_grad, y.grad_fn])


@pytest.mark.parametrize("make", [
    lambda t: t.zeros(2, 3, 4, 5), lambda t: t.zeros(2, 3, 4, 5).transpose(1, 2),
    lambda t: t.zeros(2, 3, 4, 5).contiguous(memory_format=t.channels_last),
    lambda t: t.zeros(3, 2).t(),
    lambda t: t.zeros(1, 2, 3, 4), lambda t: t.zeros(()),
], ids=["contiguous", "transposed", "channels_last", "t", "size-one", "0d"])
@pytest.mark.parametrize("amb", ["no", "yes", "formats"])
def test_dim_order(make, amb, request):
    def prog(t):
        kw = {"no": {}, "yes": {"ambiguity_check": True},
              "formats": {"ambiguity_check": [t.contiguous_format, t.channels_last]}}[amb]
        return make(t).dim_order(**kw)

    # a size-one dim makes the order ambiguous: ambiguity_check=True refuses it
    check(prog, raises=RuntimeError if request.node.callspec.id == "yes-size-one" else None)


def test_dim_order_bad_check():
    e, a = check(lambda t: t.zeros(2, 3).dim_order(ambiguity_check=3), raises=TypeError)
    assert str(a) == str(e)


def test_is_set_to():
    def prog(t):
        x = t.zeros(2, 3)
        return [x.is_set_to(x), x.is_set_to(x[:]), x.is_set_to(x.detach()),
                x.is_set_to(x.view(3, 2)), x.is_set_to(x.clone()), x[1:].is_set_to(x[1:]),
                x.t().is_set_to(x)]

    check(prog)


@pytest.mark.parametrize("size", [(3,), (2, 1), (1, 3), (1, 1), (2, 3), ((1, 3),), ((4,),),
                                  ((1, 2, 3),), ((2, 2),)])
def test_sum_to_size(size):
    def prog(t):
        x = t.arange(6.0, dtype=t.float64).reshape(2, 3).requires_grad_()
        y = x.sum_to_size(*size)
        y.backward(t.ones_like(y))
        return y, x.grad

    check(prog, raises=RuntimeError if size in (((4,),), ((1, 2, 3),), ((2, 2),)) else None)


def test_module_load():
    def prog(t):
        x, y = t.zeros(2), t.ones(2, requires_grad=True)
        a = x.module_load(y)
        b = t.zeros(2).module_load(y, assign=True)
        return a, a is x, a.requires_grad, b, b is y, b.requires_grad, x

    check(prog)


def test_grad_dtype():
    def prog(t):
        x = t.ones(2, requires_grad=True)
        x.grad_dtype = t.float32
        return x.grad_dtype, t.zeros(2, dtype=t.int64).grad_dtype

    check(prog)


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
@pytest.mark.parametrize("prog", [
    lambda t: (t.ones(2, requires_grad=True) * 2).grad_dtype,
    lambda t: setattr(t.ones(2, requires_grad=True) * 2, "grad_dtype", None),
], ids=["get", "set"])
def test_grad_dtype_of_non_leaf_raises(prog):
    e, a = check(prog, raises=RuntimeError)
    assert str(a) == str(e)


def test_volatile_warns():
    def prog(t):
        with pytest.warns(UserWarning, match="volatile was removed"):
            return t.zeros(1).volatile

    check(prog)


@pytest.mark.parametrize("name", ["coalesce", "indices", "values", "is_coalesced"])
def test_sparse_queries_on_dense_raise(name):
    e, a = check(lambda t: getattr(t.zeros(2), name)(), raises=RuntimeError)
    assert str(a) == str(e)


def test_dense_and_sparse_dims():
    check(lambda t: [t.zeros(2, 3).dense_dim(), t.zeros(2, 3).sparse_dim(),
                     t.zeros(()).dense_dim()])


@pytest.mark.parametrize("dtype,fn", [
    ("float32", lambda v: v * 2 + 1), ("int64", lambda v: v * 1.5), ("bool", lambda v: 2),
    ("complex64", lambda v: v + 1j), ("float64", raising(TypeError, lambda v: "a")),
    ("float64", raising(TypeError, lambda v: None)),
])
def test_apply_(dtype, fn):
    def prog(t):
        x = t.arange(6).to(getattr(t, dtype)).reshape(2, 3)
        v = x[:, 1:]
        v0 = x._version
        r = v.apply_(fn)
        return x, r is v, x._version - v0

    check(prog, raises=error_of(fn))


def test_map_and_map2_broadcast_the_others():
    def prog(t):
        x = t.zeros(2, 3)
        x.map_(t.arange(3.0), lambda a, b: a + b + 1)
        y = t.ones(2, 3, dtype=t.int64)
        y.map2_(t.arange(3), t.tensor([[10], [20]]), lambda a, b, c: a * b + c)
        return x, y

    check(prog)


@pytest.mark.parametrize("call", [
    raising(RuntimeError, lambda t, x: x.apply_(lambda v: v)),
    raising(RuntimeError, lambda t, x: x.map_(t.ones(2), lambda a, b: a)),
    raising(RuntimeError, lambda t, x: x.map2_(t.ones(2), t.ones(2), lambda a, b, c: a)),
    raising(RuntimeError, lambda t, x: x.apply_(3)),
    raising(TypeError, lambda t, x: t.zeros(2).is_set_to(3)),
], ids=["apply_", "map_", "map2_", "not-callable", "is_set_to"])
def test_callback_errors(call):
    e, a = check(lambda t: call(t, t.ones(2, requires_grad=True)), raises=error_of(call))
    assert str(a) == str(e)
