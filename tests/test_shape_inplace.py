"""In-place geometry (t_, transpose_, squeeze_, unsqueeze_, as_strided_, resize_, ...)
against PyTorch: the tensor keeps its identity and storage, takes the view's sizes,
strides and history, and its version moves on once."""

from __future__ import annotations

import pytest
from conftest import check, error_of, raising

OPS = {
    "t_": lambda x: x.t_(),
    "transpose_": lambda x: x.transpose_(0, -1),
    "swapaxes_": lambda x: x.swapaxes_(0, 1),
    "swapdims_": lambda x: x.swapdims_(1, 0),
    "squeeze_": lambda x: x.unsqueeze(1).squeeze_(),
    "squeeze_dim": lambda x: x.unsqueeze(0).squeeze_(0),
    "squeeze_dims": lambda x: x.unsqueeze(0).unsqueeze(2).squeeze_((0, 2)),
    "unsqueeze_": lambda x: x.unsqueeze_(1),
    "as_strided_": lambda x: x.as_strided_((2, 2), (1, 2), 1),
}


def _meta(x):
    return [x, x.stride(), x.storage_offset(), x._version, x._is_view()]


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("kind", ["base", "view"])
def test_geometry_in_place(name, kind):
    def prog(t):
        root = t.arange(6.0)
        x = root if kind == "base" and name == "as_strided_" else root.view(2, 3)
        if kind == "base":
            x = x.clone()
        v0, ptr = x._version, x.data_ptr()
        y = OPS[name](x)
        y.mul_(10)  # writes through the new geometry reach the storage
        return _meta(y), x._version - v0, x.data_ptr() == ptr, root

    check(prog, strides=True)


@pytest.mark.parametrize("name", OPS)
def test_geometry_in_place_records_history(name):
    def prog(t):
        a = t.arange(6.0, dtype=t.float64).reshape(2, 3).requires_grad_()
        x = a * 1
        y = OPS[name](x)
        w = t.arange(y.numel(), dtype=t.float64).reshape(y.shape)
        (y * w).sum().backward()
        return y, y.grad_fn.name(), a.grad

    check(prog, strides=True)


def test_views_made_before_keep_working():
    """A view of x taken before x.t_() still reads, writes and differentiates x's storage."""

    def prog(t):
        a = t.arange(6.0, dtype=t.float64).reshape(2, 3).requires_grad_()
        x = a * 1
        v = x[0]
        x.t_()
        v.mul_(2)  # through the old geometry, with autograd
        (x * t.arange(6.0, dtype=t.float64).reshape(3, 2)).sum().backward()
        return x, v, a.grad, v.grad_fn.name()

    check(prog, strides=True)


def test_view_of_in_place_transposed_base():
    def prog(t):
        x = t.arange(6.0).reshape(2, 3).clone()
        before = x[1]
        x.t_()
        after = x[1]
        after.fill_(-1)
        s = x.as_strided((2,), (1,), 4)
        return x, before, after, s

    check(prog, strides=True)


@pytest.mark.parametrize("prog", [
    raising(RuntimeError, lambda t: t.ones(2, 3, requires_grad=True).t_()),
    raising(RuntimeError, lambda t: t.ones(2, 3, requires_grad=True)[0].unsqueeze_(0)),
    raising(RuntimeError, lambda t: t.zeros(2, 2, 2).t_()),
    raising(IndexError, lambda t: t.zeros(2, 2).transpose_(0, 2)),
    raising(IndexError, lambda t: t.zeros(2, 2).squeeze_(3)),
    raising(RuntimeError, lambda t: t.zeros(2, 2).as_strided_((3, 3), (3, 1))),
], ids=["leaf", "view-of-leaf", "t_-3d", "transpose-dim", "squeeze-dim", "as_strided-oob"])
def test_geometry_in_place_errors(prog):
    e, a = check(prog)
    assert str(a).split("(")[0] == str(e).split("(")[0]


def test_leaf_under_no_grad():
    def prog(t):
        x = t.ones(2, 3, requires_grad=True)
        with t.no_grad():
            x.t_()
        return x, x.requires_grad, x.is_leaf, x.grad_fn

    check(prog, strides=True)


# ------------------------------------------------------------------ resize


@pytest.mark.parametrize("make,size", [
    (lambda t: t.arange(6.0), (2, 2)), (lambda t: t.arange(6.0).view(2, 3).t(), (4,)),
    (lambda t: t.arange(6.0)[1:], (2, 2)), (lambda t: t.arange(6.0), (6,)),
    (lambda t: t.arange(6.0).view(2, 3), (3, 2)), (lambda t: t.zeros(1).expand(3), (3,)),
    (lambda t: t.arange(6.0), (0,)),
], ids=["shrink", "transposed", "offset", "same", "reshape", "expanded", "empty"])
def test_resize_within_storage(make, size, request):
    overlapping = request.node.callspec.id == "expanded"

    def prog(t, write=True):
        root = make(t)
        x = root.view_as(root)
        v0 = x._version
        y = x.resize_(*size)
        if write:
            y.add_(100)
        return _meta(y), y is x, x._version - v0

    # resizing an expanded tensor to its size keeps the overlap, so the write is refused
    check(prog, strides=True, raises=RuntimeError if overlapping else None)
    if overlapping:
        check(lambda t: prog(t, write=False), strides=True)


def test_resize_grows_the_storage():
    """The first elements keep their values (PyTorch leaves the added ones uninitialised)."""

    def prog(t):
        x = t.arange(6.0)
        x.resize_(3, 4)
        return x.shape, x.stride(), x.reshape(-1)[:6]

    check(prog)


def test_resize_memory_format_and_resize_as_():
    def prog(t):
        x = t.arange(24.0).resize_(1, 2, 3, 4, memory_format=t.channels_last)
        y = t.arange(6.0).resize_as_(t.zeros(3, 2))
        z = t.resize_as_(t.arange(6.0), t.zeros(2, 2))
        return _meta(x), _meta(y), _meta(z)

    check(prog, strides=True)


@pytest.mark.parametrize("prog", [
    lambda t: t.zeros(2, requires_grad=True).resize_(2),
    lambda t: t.zeros(2, requires_grad=True).resize_as_(t.zeros(1)),
    lambda t: t.zeros(2).resize_(-1),
], ids=["requires-grad", "resize_as_-requires-grad", "negative"])
def test_resize_errors(prog):
    e, a = check(prog, raises=RuntimeError)
    assert str(a) == str(e)


def test_resize_under_no_grad_still_refuses():
    def prog(t):
        with t.no_grad():
            t.zeros(2, requires_grad=True).resize_(1)

    e, a = check(prog, raises=RuntimeError)
    assert str(a) == str(e)


@pytest.mark.filterwarnings("ignore:non-inplace resize")
@pytest.mark.parametrize("prog", [
    lambda t: t.arange(6.0).resize(2, 3),
    # PyTorch's autograd Resize takes the tuple itself for a size: the numel check fails
    raising(RuntimeError, lambda t: t.arange(6.0).resize((3, 2))),
    lambda t: t.arange(6.0).resize_as(t.zeros(3, 2)),
    raising(RuntimeError, lambda t: t.arange(6.0).resize(2, 2)),
], ids=["resize", "resize-tuple", "resize_as", "numel-mismatch"])
def test_deprecated_out_of_place_resize(prog):
    e, a = check(prog)
    if error_of(prog):
        assert str(a) == str(e)


def test_out_of_place_resize_warns():
    def prog(t):
        with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
            return t.arange(4.0).resize(2, 2)

    check(prog)


# ------------------------------------------------------------------ fill_diagonal_ and scatter


def test_fill_diagonal_writes_through_a_view():
    def prog(t):
        base = t.zeros(3, 6)
        v = base[:, ::2]
        v0 = base._version
        r = v.fill_diagonal_(5)
        return base, r is v, base._version - v0

    check(prog)


def test_fill_diagonal_history():
    def prog(t):
        a = t.ones(3, 3, dtype=t.float64, requires_grad=True)
        y = a * 2
        y.fill_diagonal_(0)
        y.sum().backward()
        return y, a.grad, y.grad_fn.name()

    check(prog)


def test_as_strided_scatter_gradient_is_the_derivative():
    """PyTorch's own formula for input's gradient is wrong (see opdb/scatter_views.py), so
    jtorch's is checked numerically instead."""
    import jtorch

    x = jtorch.randn(3, 4, dtype=jtorch.float64, requires_grad=True)
    src = jtorch.randn(2, 2, dtype=jtorch.float64, requires_grad=True)
    assert jtorch.autograd.gradcheck(
        lambda a, b: jtorch.as_strided_scatter(a, b, (2, 2), (1, 4), 1), (x, src))


def test_many_views_from_one_split_read_and_differentiate_as_pytorch():
    """A split or unbind into more than ``views._GROUP`` parts (a sequence split by time
    step) reads its views in groups, one program each: values, gradients through some of
    the parts, a write through a view reaching the base, and the trailing short group."""
    from jtorch.eager import views

    def prog(t):
        x = t.arange(5 * 43, dtype=t.float64).reshape(5, 43).requires_grad_()
        parts = x.split(1, dim=1)
        cols = x.unbind(1)
        w = t.arange(43, dtype=t.float64)
        loss = sum((p * w[i]).sum() * (i % 3) for i, p in enumerate(parts))
        loss = loss + (cols[42] * cols[0]).sum() + t.stack(cols[17:20]).pow(2).sum()
        loss.backward()
        base = t.zeros(4, 40)
        pieces = base.chunk(40, 1)
        pieces[33].add_(7.0)
        pieces[2].fill_(-1.0)
        return ([p.detach() for p in parts[::7]], [c.detach() for c in cols[::9]],
                [p.grad_fn.name() for p in parts[15:18]], loss.detach(), x.grad, base,
                pieces[33], [p.shape for p in x.detach().tensor_split(37, 1)[-3:]])

    check(prog)
    assert views._GROUP < 40  # the program above crosses groups
