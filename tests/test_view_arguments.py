"""View arguments against PyTorch: the remembered stride arithmetic of views (keyed by
shape, strides, offset and arguments) and bools where a dimension or size is expected."""

from __future__ import annotations

import pytest
import torch
from conftest import assert_same

import jtorch


def test_remembered_geometries_key_strides_and_offsets():
    """Views remember their stride arithmetic per (shape, strides, offset, arguments):
    tensors of one shape but other strides or offsets must not share an entry."""

    def run(t):
        out = []
        for _ in range(2):  # the second round reads the remembered geometries
            z = t.arange(24.0).reshape(6, 4)  # contiguous
            y = t.arange(24.0).reshape(4, 6).t()  # shape (6, 4), strides (1, 6)
            s = t.arange(30.0).reshape(5, 6)[1:].t()  # shape (6, 4) again, offset 6
            out += [z.view(24), z.view(2, 12).stride(), y.unsqueeze(0).stride(),
                    s.unsqueeze(0).storage_offset(), s.transpose(0, 1).contiguous()]
            with pytest.raises(RuntimeError, match="view size is not compatible"):
                y.view(24)
        return out

    assert_same(run(torch), run(jtorch))


@pytest.mark.parametrize("call", [
    "x.unsqueeze(True)", "x.transpose(True, 0)", "x.view(True, 6)",
    "x.select(True, 0)", "x.unbind(True)", "x.movedim(True, 0)", "x.flatten(True)",
    "x.squeeze(True)", "x.size(True)", "x.sum(True)", "x.cumsum(True)", "x.max(True)",
    "t.softmax(x, True)", "t.cat([x, x], True)",
])
def test_a_bool_dim_is_a_type_error(call):
    """PyTorch's argument parser takes no bool for a dim or a size, though True == 1; the
    same view or reduction with an int first must not let the bool through either."""
    for t in (torch, jtorch):
        x = t.ones(2, 3)
        eval(call.replace("True", "1"), {"x": x, "t": t})  # the int form works, and is remembered
        with pytest.raises(TypeError):
            eval(call, {"x": x, "t": t})


def test_bools_inside_a_size_sequence_are_ints():
    # ... while PyTorch's parser reads a bool inside a sequence of sizes, or after the first
    # size, as an int
    for t in (torch, jtorch):
        x = t.ones(2, 3)
        assert x.view((6, True)).shape == x.view(6, True).shape == (6, 1)


@pytest.mark.parametrize("call", [
    "x.view(6, 0.5)", "x.view((6, 2.0))", "x.view(-1, 2.5)", "x.reshape(6, 2.0)",
    "x.reshape([6.0, 2])", "x.reshape(True, 12)", "x.reshape((True, 12))", "x.view('6', 2)",
    "x.view(None, 2)", "x.expand((2.0, 12))", "x.expand((True, 12))", "x.unflatten(0, (6, 2.0))",
    "x.unflatten(0, (True, 12))", "x.view(t.tensor(6.0), 2)",
])
def test_a_size_that_is_no_int_is_a_type_error(call):
    """A float, a string, None, a float tensor, or a bool first, where a size is expected:
    PyTorch's parser raises TypeError (jtorch truncated floats: view(6, 0.5) was a
    RuntimeError about shape [6, 0], reshape(6, 2.0) worked)."""
    for t in (torch, jtorch):
        x = t.arange(12.0)
        with pytest.raises(TypeError):
            eval(call, {"x": x, "t": t})


def test_sizes_with_an_index_are_ints():
    # NumPy integers, integer 0-dim tensors and bools after the first size read as ints
    import numpy as np

    def run(t):
        x = t.arange(12.0)
        return [x.view(np.int64(6), 2), x.reshape(t.tensor(6), -1), x.expand(2, 12)[:, :1],
                x.unflatten(0, (12, True)), x.reshape(12, True), x.view([np.int32(3), 4])]

    assert_same(run(torch), run(jtorch))


def test_remembered_reshapes_key_strides_and_sizes():
    """``reshape`` remembers its sizes and its view-or-copy decision per (shape, strides,
    requested sizes): a transposed tensor of the same shape copies, and a float or a bool
    never reuses the entry of the int it equals."""

    def run(t):
        out = []
        for _ in range(2):  # the second round reads the remembered decisions
            z = t.arange(12.0).reshape(3, 4)
            y = t.arange(12.0).reshape(4, 3).t()  # shape (3, 4), not viewable as (12,)
            a, b = z.reshape(12), y.reshape(12)
            out += [a, a._base is z, b, b._base is None,
                    z.reshape(-1, 6).stride(), y.reshape(3, 2, 2).stride()]
            z.reshape(12, 1)
            for bad in ((12.0,), (True, 12), (12, 1.0)):
                with pytest.raises(TypeError):
                    z.reshape(*bad)
        return out

    assert_same(run(torch), run(jtorch))


def test_a_float_size_after_its_int_form_is_still_a_type_error():
    """The remembered view geometries must not let 2.0 find the entry 2 made (equal and
    hashing alike): the int form runs first, then the float form raises."""
    for t in (torch, jtorch):
        x = t.arange(12.0)
        for good, bad in (("x.view(6, 2)", "x.view(6, 2.0)"),
                          ("x.view((6, 2))", "x.view((6, 2.0))"),
                          ("x.expand(2, 12)", "x.expand((2.0, 12))"),
                          ("x.unflatten(0, (6, 2))", "x.unflatten(0, (6, 2.0))")):
            eval(good, {"x": x})
            with pytest.raises(TypeError):
                eval(bad, {"x": x})
