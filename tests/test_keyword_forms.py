"""The NumPy-style keyword aliases PyTorch's argument parser accepts (axis=, keepdims=,
x=/a=/x1=, x2=) and out= tuples for the ops with several results, against PyTorch."""

from __future__ import annotations

import pytest
from conftest import check, error_of, raising

CALLS = {
    "sum-axis": lambda t, x: t.sum(x, axis=0),
    "sum-axis-keepdims": lambda t, x: x.sum(axis=1, keepdims=True),
    "mean-axis-tuple": lambda t, x: t.mean(x, axis=(0, 1)),
    "std-axis": lambda t, x: t.std(x, axis=0),
    "argmax-axis": lambda t, x: t.argmax(x, axis=1, keepdims=True),
    "cumsum-axis": lambda t, x: t.cumsum(x, axis=0),
    "softmax-axis": lambda t, x: t.softmax(x, axis=1),
    "cat-axis": lambda t, x: t.cat([x, x], axis=1),
    "stack-axis": lambda t, x: t.stack([x, x], axis=0),
    "squeeze-axis": lambda t, x: x[:1].squeeze(axis=0),
    "unsqueeze-axis": lambda t, x: x.unsqueeze(axis=0),
    "sort-axis": lambda t, x: t.sort(x, axis=0),
    "max-axis": lambda t, x: t.max(x, axis=1),
    "min-axis-keepdims": lambda t, x: x.min(axis=0, keepdims=True),
    "median-axis": lambda t, x: t.median(x, axis=1),
    "sum-x": lambda t, x: t.sum(x=x),
    "sum-a": lambda t, x: t.sum(a=x, axis=0),
    "exp-x": lambda t, x: t.exp(x=x),
    "add-x1-x2": lambda t, x: t.add(x1=x, x2=x),
    "add-x2": lambda t, x: t.add(x, x2=x),
    "mul-x1": lambda t, x: t.mul(x1=x, other=2),
    "dim-and-axis": raising(TypeError, lambda t, x: t.sum(x, dim=0, axis=0)),
    "input-and-x": raising(TypeError, lambda t, x: t.sum(x, x=x)),
    "unknown": raising(TypeError, lambda t, x: t.sum(x, axes=0)),
    "missing-input": raising(TypeError, lambda t, x: t.sum()),
    "missing-other": raising(TypeError, lambda t, x: t.add(x)),
}


@pytest.mark.parametrize("name", CALLS)
def test_aliases(name):
    e, a = check(lambda t: CALLS[name](t, t.arange(6.0).reshape(2, 3)),
                 raises=error_of(CALLS[name]))
    if name == "dim-and-axis":  # PyTorch's own message; the others list its signatures
        assert str(a) == str(e)


def test_alias_through_an_alias_to_a_view_keeps_history():
    def prog(t):
        x = t.arange(6.0, dtype=t.float64).reshape(2, 3).requires_grad_()
        y = (x * 1).unsqueeze(axis=1).sum(axis=(0, 1), keepdims=True)
        y.sum().backward()
        return y, x.grad

    check(prog)


# ------------------------------------------------------------------ out= tuples

OUT_CALLS = {
    "sort": lambda t, x, o: t.sort(x, 1, out=o),
    "topk": lambda t, x, o: t.topk(x, 2, out=o),
    "kthvalue": lambda t, x, o: t.kthvalue(x, 2, 1, out=o),
    "cummax": lambda t, x, o: t.cummax(x, 0, out=o),
    "cummin": lambda t, x, o: t.cummin(x, 1, out=o),
    "mode": lambda t, x, o: t.mode(x, 1, out=o),
    "max-dim": lambda t, x, o: t.max(x, 1, out=o),
    "min-dim": lambda t, x, o: t.min(x, dim=0, keepdim=True, out=o),
    "median-dim": lambda t, x, o: t.median(x, 1, out=o),
    "nanmedian-dim": lambda t, x, o: t.nanmedian(x, 0, out=o),
    "aminmax": lambda t, x, o: t.aminmax(x, dim=1, out=o),
    "histogram": lambda t, x, o: t.histogram(x, 3, out=o),
}
DTYPES = {"aminmax": ("float32", "float32"), "histogram": ("float32", "float32")}


@pytest.mark.parametrize("name", OUT_CALLS)
@pytest.mark.parametrize("sized", [True, False], ids=["sized", "empty"])
def test_out_tuples(name, sized):
    def prog(t):
        x = t.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]])
        kinds = DTYPES.get(name, ("float32", "int64"))
        ref = OUT_CALLS[name](t, x, None)
        outs = tuple(t.zeros(r.shape if sized else (0,), dtype=getattr(t, k))
                     for r, k in zip(ref, kinds, strict=True))
        r = OUT_CALLS[name](t, x, outs)
        return outs, [a is b for a, b in zip(r, outs, strict=True)], type(r).__name__.removesuffix(
            "_out"), r[0] is getattr(r, "hist" if name == "histogram" else "min" if
                                      name == "aminmax" else "values")

    check(prog)


@pytest.mark.parametrize("outs", ["tensor", "short", "index-dtype", "value-dtype", "grad"])
def test_out_tuple_errors(outs):
    def prog(t):
        x = t.tensor([[3.0, 1.0], [0.5, 4.0]])
        o = {"tensor": lambda: t.zeros(0), "short": lambda: (t.zeros(0),),
             "index-dtype": lambda: (t.zeros(0), t.zeros(0)),
             "value-dtype": lambda: (t.zeros(0, dtype=t.float64), t.zeros(0, dtype=t.int64)),
             "grad": lambda: (t.zeros(0, requires_grad=True), t.zeros(0, dtype=t.int64)),
             }[outs]()
        return t.sort(x, out=o)

    e, a = check(prog, raises=TypeError if outs in ("tensor", "short") else RuntimeError)
    assert str(a).split("\n")[0].split(" - ")[0] == str(e).split("\n")[0].split(" - ")[0] or (
        outs == "tensor")


def test_out_tuple_resize_warns():
    def prog(t):
        x = t.tensor([[3.0, 1.0], [0.5, 4.0]])
        with pytest.warns(UserWarning, match="was resized"):
            r = t.sort(x, out=(t.zeros(3), t.zeros(3, dtype=t.int64)))
        return r

    check(prog)
