"""Derived names against PyTorch: torch-level in-place functions, the *_copy variants,
split_with_sizes / unsafe_* splits and torch.fill."""

from __future__ import annotations

import pytest
from conftest import check, raising

UNARY_INPLACE = ("abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ "
                 "asinh_ atan_ atanh_ ceil_ cos_ cosh_ deg2rad_ erf_ erfc_ exp2_ exp_ expm1_ "
                 "fix_ floor_ frac_ log10_ log1p_ log2_ log_ nan_to_num_ neg_ negative_ rad2deg_ "
                 "reciprocal_ round_ rsqrt_ sigmoid_ sin_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ "
                 "zero_ conj_physical_").split()


@pytest.mark.parametrize("name", UNARY_INPLACE)
def test_torch_level_inplace(name):
    def prog(t):
        x = t.tensor([0.25, 0.5, 1.5, 3.0])
        r = getattr(t, name)(x)
        return x, r is x, x._version

    check(prog)


@pytest.mark.parametrize("name,args", [
    ("clamp_", (0.3, 1.0)), ("clamp_min_", (0.6,)), ("clamp_max_", (0.6,)), ("clip_", (0.3, 1.0)),
    ("fill_", (7.0,)), ("xlogy_", (2.0,)), ("addmv_", ("mat", "vec")),
    ("index_put_", ("idx", "val")),
])
def test_torch_level_inplace_with_arguments(name, args):
    def prog(t):
        x = t.tensor([0.25, 0.5, 1.5])
        extra = {"mat": t.ones(3, 2), "vec": t.tensor([1.0, 2.0]), "idx": (t.tensor([0, 2]),),
                 "val": t.tensor([9.0, 8.0])}
        r = getattr(t, name)(x, *[extra.get(a, a) if isinstance(a, str) else a for a in args])
        return x, r is x

    check(prog)


def test_torch_level_inplace_takes_a_tensor():
    e, a = check(lambda t: t.abs_(3), raises=TypeError)
    assert str(a) == str(e)


COPIES = {
    "alias_copy": (lambda t, x: t.alias_copy(x)),
    "as_strided_copy": (lambda t, x: t.as_strided_copy(x, (2, 2), (1, 3), 1)),
    "detach_copy": (lambda t, x: t.detach_copy(x)),
    "diagonal_copy": (lambda t, x: t.diagonal_copy(x, 1)),
    "expand_copy": (lambda t, x: t.expand_copy(x[:1], (3, 3))),
    "permute_copy": (lambda t, x: t.permute_copy(x, (1, 0))),
    "select_copy": (lambda t, x: t.select_copy(x, 1, -1)),
    "slice_copy": (lambda t, x: t.slice_copy(x, 1, 0, 3, 2)),
    "squeeze_copy": (lambda t, x: t.squeeze_copy(x[:1])),
    "t_copy": (lambda t, x: t.t_copy(x)),
    "transpose_copy": (lambda t, x: t.transpose_copy(x, 0, 1)),
    "unfold_copy": (lambda t, x: t.unfold_copy(x, 1, 2, 1)),
    "unsqueeze_copy": (lambda t, x: t.unsqueeze_copy(x, 0)),
    "view_copy": (lambda t, x: t.view_copy(x, (9,))),
    "view_copy-dtype": (lambda t, x: t.view_copy(x, t.int64)),
    "view_as_real_copy": (lambda t, x: t.view_as_real_copy(x + 1j)),
    # no gradient: PyTorch has no complex derivative for it (test below)
    "view_as_complex_copy": (
        lambda t, x: t.view_as_complex_copy(x.detach().reshape(9)[:6].view(3, 2))),
    "split_copy": (lambda t, x: t.split_copy(x, 2, 1)),
    "split_with_sizes_copy": (lambda t, x: t.split_with_sizes_copy(x, [1, 2])),
    "unbind_copy": (lambda t, x: t.unbind_copy(x, 1)),
}


@pytest.mark.parametrize("name", COPIES)
def test_copy_variants(name):
    def prog(t):
        a = t.arange(9.0, dtype=t.float64).reshape(3, 3).t().requires_grad_()
        y = COPIES[name](t, a * 1)
        flat = list(y) if isinstance(y, tuple) else [y]
        if flat[0].is_floating_point() and name != "detach_copy":
            sum(f.sum() for f in flat).backward()
        return (y, [f.stride() for f in flat], [f._is_view() for f in flat],
                [f.requires_grad for f in flat], a.grad)

    check(prog)


def test_detach_copy_has_no_derivative():
    """PyTorch's detach_copy output requires grad, but its grad_fn is NotImplemented."""
    check(lambda t: [(y := t.detach_copy(t.ones(2, requires_grad=True) * 1)),
                     y.requires_grad, y.grad_fn.name()])
    e, a = check(lambda t: t.detach_copy(t.ones(2, requires_grad=True) * 1).sum().backward(),
                 raises=RuntimeError)
    assert str(a) == str(e)


@pytest.mark.parametrize("name", ["select_copy", "slice_copy", "view_as_complex_copy"])
def test_copies_without_a_complex_gradient(name):
    """PyTorch has no complex derivative for these copies; real ones have."""
    def prog(t, requires_grad):
        x = t.arange(8.0).reshape(2, 2, 2)
        if name != "view_as_complex_copy":
            x = x * (1 + 1j)
        x.requires_grad_(requires_grad)
        if name == "view_as_complex_copy":
            return t.view_as_complex_copy(x * 1)
        return getattr(t, name)(x * 1, 1, 0)

    check(lambda t: prog(t, False))
    e, a = check(lambda t: prog(t, True), raises=RuntimeError)
    assert str(a) == str(e)


def test_copy_variant_out():
    def prog(t):
        x = t.arange(6.0).reshape(2, 3)
        o = t.zeros(0)
        r = t.t_copy(x, out=o)
        outs = [t.zeros(1, 3), t.zeros(1, 3, dtype=t.float64)]
        none = t.split_copy(x, 1, out=outs)
        return o, r is o, outs, none

    check(prog)


@pytest.mark.parametrize("outs", [[(1,)], [(0,), (0,), (0,)]], ids=["count", "not-resized"])
def test_copy_variant_multi_out_errors(outs):
    e, a = check(lambda t: t.split_copy(t.arange(5.0), 2, out=[t.zeros(s) for s in outs]),
                 raises=RuntimeError)
    assert str(a).split("(")[0] == str(e).split("(")[0]


@pytest.mark.parametrize("prog", [
    lambda t: t.split_with_sizes(t.arange(6), [2, 4]),
    lambda t: t.arange(6).reshape(2, 3).split_with_sizes((1, 2), 1),
    lambda t: t.unsafe_split(t.arange(5), 2), lambda t: t.arange(5).unsafe_split(3),
    lambda t: t.unsafe_split_with_sizes(t.arange(5), [2, 3]),
    lambda t: t.arange(5).unsafe_split_with_sizes([4, 1]),
    lambda t: t.unsafe_chunk(t.arange(5), 2), lambda t: t.arange(6).unsafe_chunk(4),
    raising(RuntimeError, lambda t: t.split_with_sizes(t.arange(6), [2, 3])),
])
def test_split_variants(prog):
    check(prog)


def test_fill():
    def prog(t):
        x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        y = t.fill(x, 3)
        (y * 2).sum().backward()
        return y, x.grad, t.fill(t.tensor([1, 2]), 2.7), x

    check(prog)
