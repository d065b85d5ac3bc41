"""Conversions and the Tensor protocol against PyTorch: .to/.type and dtype shorthands,
numpy/tolist/item, number protocols, float -> integer wrapping, from_numpy copying."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check

# ------------------------------------------------------------------ conversions, Tensor protocol

_CONVERSIONS = {
    "to": lambda t: (t.tensor([1.5, 2.5]).to(t.int32), t.tensor([1.5]).to("cpu", t.float64),
                     t.tensor([1.5]).to(t.tensor([1], dtype=t.int16)),
                     t.tensor([1.5]).to(dtype=t.float16, device="cpu")),
    "to_identity": lambda t: (lambda x: (x.to(t.float32) is x, x.to(t.float32, copy=True) is x,
                                         x.double().grad_fn.name()))(
        t.tensor([1.0], requires_grad=True)),
    "type": lambda t: (t.tensor([1.5]).type(), t.tensor([1.5]).type("torch.IntTensor"),
                       t.tensor([1.5]).type(t.float64), t.tensor([1.5]).type(t.DoubleTensor)),
    "type_bad": lambda t: t.tensor([1.5]).type("torch.Foo"),
    "shorthands": lambda t: [getattr(t.tensor([1.7, 2.2]), m)() for m in (
        "float", "double", "half", "bfloat16", "long", "int", "short", "char", "bool", "byte")],
    "python": lambda t: (t.tensor([[1.5, 2.0]]).tolist(), t.tensor(3).tolist(),
                         t.tensor([1.5], dtype=t.bfloat16).tolist(),
                         t.tensor([1, 2], dtype=t.int16).numpy().tolist(),
                         str(t.tensor([1, 2], dtype=t.int16).numpy().dtype)),
    "item": lambda t: [t.tensor(1.5).item(), t.tensor(2).item(), t.tensor(True).item(),
                       t.tensor(1 + 2j).item(), t.tensor(1.5, dtype=t.float16).item(),
                       t.tensor(3, dtype=t.uint8).item(), t.tensor([[4]]).item()],
    "item_many": lambda t: t.tensor([1, 2]).item(),
    "scalars": lambda t: [float(t.tensor(2)), float(t.tensor([2.5])), int(t.tensor(2.7)),
                          int(t.tensor(-2.7)), bool(t.tensor([0])), complex(t.tensor(2.0)),
                          [1, 2, 3][t.tensor(1)]],
    "float_many": lambda t: float(t.tensor([1.0, 2.0])),
    "bool_many": lambda t: bool(t.tensor([1, 2])),
    "bool_empty": lambda t: bool(t.tensor([])),
    "index_float": lambda t: [1, 2, 3][t.tensor(1.0)],
    "len_iter": lambda t: (len(t.zeros(3, 2)), list(t.arange(3.0))),
    "len0": lambda t: len(t.tensor(1.0)),
    "iter0": lambda t: list(t.tensor(1.0)),
    "contains": lambda t: [2 in t.arange(3), 5 in t.arange(3), 2.0 in t.arange(3.0),
                           t.tensor(1) in t.arange(3), t.tensor([1, 9]) in t.arange(3)],
    "contains_bad": lambda t: "a" in t.arange(3),
    "array": lambda t: (np.asarray(t.tensor([1.5])).tolist(),
                        np.asarray(t.tensor([1.5]), dtype=np.int64).tolist()),
    "format": lambda t: [f"{t.tensor(1.2345):.2f}", f"{t.tensor(3)}", format(t.tensor([1.5]))],
    "format_spec_1d": lambda t: f"{t.tensor([1.5]):.2f}",
    "reversed": lambda t: (list(reversed(t.arange(3.0))), reversed(t.arange(6.0).reshape(2, 3)),
                           reversed(t.tensor(2.0))),
    "hash": lambda t: (lambda x: hash(x) == id(x) and {x: 1}[x] == 1)(t.tensor([1.0])),
    "grad_guards": lambda t: (t.tensor(1.5, requires_grad=True).item(),
                              t.tensor([1.5], requires_grad=True).tolist(),
                              t.tensor([1.5], requires_grad=True).numpy(force=True).tolist()),
    "numpy_requires_grad": lambda t: t.tensor([1.5], requires_grad=True).numpy(),
    "to_bad_device": lambda t: t.tensor([1.0]).to("foo"),
}


# The samples both libraries reject, by test id, and the exception class.
_CONVERSION_ERRORS = {
    'bool_empty': RuntimeError, 'bool_many': RuntimeError, 'contains': RuntimeError,
    'contains_bad': RuntimeError, 'float_many': ValueError, 'format_spec_1d': TypeError,
    'index_float': TypeError, 'item_many': RuntimeError, 'iter0': TypeError, 'len0': TypeError,
    'numpy_requires_grad': RuntimeError, 'to_bad_device': RuntimeError, 'type_bad': ValueError,
}


@pytest.mark.parametrize("name", list(_CONVERSIONS))
def test_conversions(name, request):
    check(_CONVERSIONS[name], raises=_CONVERSION_ERRORS.get(request.node.callspec.id))


def test_float_to_narrow_int_wraps():
    check(lambda t: (t.tensor([1.7, -2.7, 300.0]).to(t.uint8),
                     t.tensor([300.0, -200.0]).to(t.int8)))


def test_from_numpy_is_a_copy_and_says_so():
    """PyTorch's from_numpy shares memory; JAX arrays are immutable, so jtorch copies."""
    import jtorch

    a = np.arange(3.0)
    t = jtorch.from_numpy(a)
    a[0] = 10.0
    assert t.tolist() == [0.0, 1.0, 2.0]
    assert "copy" in jtorch.from_numpy.__doc__
