"""Autograd through in-place ops, views and common ops against PyTorch; version checks."""

from __future__ import annotations

import numpy as np
import pytest
from autograd_inputs import A3, A23, A33, B23, _x  # noqa: F401
from conftest import check

# ------------------------------------------------------------------ in-place errors


def test_inplace_on_leaf_requiring_grad():
    def prog(torch):
        x = _x(torch)
        x.add_(1)

    e, a = check(prog, raises=RuntimeError)
    assert "a leaf Variable that requires grad is being used in an in-place operation." in str(a)


def test_inplace_on_leaf_under_no_grad_is_fine():
    def prog(torch):
        x = _x(torch)
        with torch.no_grad():
            x.mul_(2)
        return x.detach(), x._version, x.requires_grad, x.is_leaf

    check(prog)


def test_inplace_on_view_of_leaf():
    def prog(torch):
        x = _x(torch)
        x[0].mul_(2)

    e, a = check(prog, raises=RuntimeError)
    assert "a view of a leaf Variable that requires grad is being used in an in-place" in str(a)


def test_setitem_on_leaf_requiring_grad():
    def prog(torch):
        x = _x(torch)
        x[0] = 1.0

    check(prog, raises=RuntimeError)


@pytest.mark.parametrize("case", ["saved_input", "saved_output_exp", "unsaved_input",
                                  "unsaved_add", "bumped_twice", "const_factor",
                                  "index_select_input"])
def test_saved_tensor_modified_inplace(case):
    def prog(torch):
        x = _x(torch)
        a = x * 1
        if case == "saved_input":  # mul saves both operands
            y = a * x
            a.add_(1)
        elif case == "saved_output_exp":  # exp saves its result
            y = a.exp()
            y.add_(1)
        elif case == "unsaved_input":  # exp saves its result, not its input
            y = a.exp()
            a.add_(1)
        elif case == "unsaved_add":
            y = a + x
            a.add_(1)
        elif case == "bumped_twice":  # a Python scalar factor: mul saves nothing
            y = a * 2
            a.mul_(2)
            a.mul_(2)
        elif case == "index_select_input":  # its gradient needs the index, not the input
            y = a.index_select(0, torch.tensor([1, 0, 1]))
            a.add_(1)
        else:  # mul saves an operand only for the other operand's gradient
            y = a * torch.tensor(B23)
            a.add_(1)
        y.sum().backward()
        return x.grad, a._version

    e, a = check(prog, may_raise=True)
    if isinstance(e, Exception):
        assert str(a) == str(e)


@pytest.mark.parametrize("case", ["saved_output", "leaf_under_no_grad", "constant",
                                  "detached_alias", "view_of_saved"])
def test_saved_tensor_version_message(case):
    def prog(torch):
        x = _x(torch)
        a = x * 1
        if case == "saved_output":  # names the node that produced the saved output
            y = a.sigmoid()
            y.mul_(2)
        elif case == "leaf_under_no_grad":  # a leaf has no producing node to name
            y = x * x
            with torch.no_grad():
                x.add_(1)
        elif case == "constant":
            c = torch.tensor(B23)
            y = c * x
            c.add_(1)
        elif case == "detached_alias":  # the alias shares the version counter
            h = x.exp()
            y = h * x
            h.detach().mul_(2)
        else:
            y = a * x
            a[0].add_(1)
        y.sum().backward()

    e, a = check(prog, raises=RuntimeError)
    assert str(a) == str(e)


def test_saved_output_of_inplace_op_message():
    def prog(torch):
        x = _x(torch)
        y = x * 1
        y.exp_()
        y.add_(1)
        y.sum().backward()

    e, a = check(prog, raises=RuntimeError)
    assert str(a) == str(e)


# ------------------------------------------------------------------ in-place through views


def test_inplace_mul_on_non_leaf():
    def prog(torch):
        x, w = _x(torch), _x(torch, B23)
        y = x * 1
        y.mul_(w)
        y.sum().backward()
        return y, x.grad, w.grad, y._version

    check(prog)



def test_setitem_into_clone_with_grad():
    def prog(torch):
        x, w = _x(torch, A3), _x(torch, B23[0])
        y = x.clone()
        y[0] = w[1] * 2
        y.sum().backward()
        return y, y.grad_fn.name(), x.grad, w.grad

    check(prog)


def test_inplace_add_through_transposed_view():
    def prog(torch):
        x, w = _x(torch), _x(torch, A3[:2])
        y = x * 1
        y.t()[1] += w
        (y * y).sum().backward()
        return y, y.grad_fn.name(), x.grad, w.grad

    check(prog)


def test_inplace_mul_through_view_copyslices():
    def prog(torch):
        x, w = _x(torch), _x(torch, A3[:2])
        y = x * 1
        v = y[:, 1]
        v.mul_(w)
        name = y.grad_fn.name()
        (y * torch.tensor(B23)).sum().backward()
        return y, name, v.grad_fn.name(), v._version, y._version, x.grad, w.grad

    check(prog)


def test_view_grad_fn_regenerated_after_base_changes():
    def prog(torch):
        x, w = _x(torch), _x(torch, B23)
        y = x * 1
        v = y[0]
        before = v.grad_fn.name()
        y.mul_(w)
        after = v.grad_fn.name()
        v.sum().backward()
        return before, after, v, x.grad, w.grad

    check(prog)


def test_inplace_on_non_leaf_then_backward():
    def prog(torch):
        x = _x(torch)
        y = x * 2
        y.add_(1)
        y.mul_(y)
        y.sum().backward()
        return y.grad_fn.name(), y._version, x.grad

    check(prog, raises=RuntimeError)


def test_inplace_exp_on_non_leaf():
    def prog(torch):
        x = _x(torch)
        y = x * 1
        y.exp_()
        y.sum().backward()
        return y.grad_fn.name(), x.grad

    check(prog)


def test_inplace_on_view_of_non_requiring_base():
    def prog(torch):
        w = _x(torch, A3)
        y = torch.zeros(2, 3)
        y[1] = w * 3
        y.sum().backward()
        return y.requires_grad, y.is_leaf, y.grad_fn.name(), w.grad

    check(prog)


def test_copy_into_view_with_grad():
    def prog(torch):
        x, w = _x(torch), _x(torch, A3[:2])
        y = x * 1
        y[:, 0].copy_(w)
        (y * y).sum().backward()
        return x.grad, w.grad

    check(prog)


# ------------------------------------------------------------------ gradients of ops


def _grads(torch, fn, *arrs, seed=None):
    xs = [_x(torch, a) for a in arrs]
    out = fn(torch, *xs)
    go = torch.tensor(np.linspace(-1, 1, out.numel(), dtype=np.float32).reshape(out.shape))
    out.backward(go)
    return out, [x.grad for x in xs]


_OP_GRADS = {
    "max_dim": (lambda t, x: x.max(1).values, A23),
    "max_dim_keepdim": (lambda t, x: x.max(0, keepdim=True)[0], A23),
    "max_all": (lambda t, x: x.max(), A23),
    "where": (lambda t, x, y: t.where(x > y, x, y * 2), A23, B23),
    "cat": (lambda t, x, y: t.cat([x, y, x], 1), A23, B23),
    "stack": (lambda t, x, y: t.stack([x, y], 1), A23, B23),
    "bcast_mul": (lambda t, x, y: x * y, A23, A3),
    "bcast_add_keepdim": (lambda t, x, y: x + y, A23, A23[:, :1]),
    "bcast_sub_scalar_tensor": (lambda t, x, y: x - y, A23, A3[0]),
    "sum_dim": (lambda t, x: x.sum(1), A23),
    "sum_dim_keepdim": (lambda t, x: x.sum(0, keepdim=True), A23),
    "sum_dims": (lambda t, x: x.sum((0, 1)), A23),
    "mean": (lambda t, x: x.mean(), A23),
    "mean_dim": (lambda t, x: x.mean(1, keepdim=True), A23),
    "expand": (lambda t, x: x.expand(2, 2, 3), A3),
    "expand_new_dim": (lambda t, x: x.unsqueeze(1).expand(2, 4, 3), A23),
    "index_int": (lambda t, x: x[t.tensor([1, 0, 1, 1])], A23),
    "index_2d": (lambda t, x: x[t.tensor([1, 0, 1]), t.tensor([2, 2, 0])], A23),
    "index_mask": (lambda t, x: x[x > 0], A23),
    "index_mixed": (lambda t, x: x[:, t.tensor([0, 0, 2])], A23),
    "div_pow": (lambda t, x, y: (x / (y * y + 1)) ** 2, A23, B23),
    "chain_views": (lambda t, x: x.t().unsqueeze(0).permute(2, 0, 1)[1:].reshape(-1), A23),
}


@pytest.mark.parametrize("name", list(_OP_GRADS))
def test_op_gradients(name):
    fn, *arrs = _OP_GRADS[name]
    check(lambda torch: _grads(torch, fn, *arrs))


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)),
                                    ((2, 3), (3, 2)), ((2, 2, 3), (3, 2)), ((3,), (2, 3, 2)),
                                    ((2, 2, 3), (2, 3, 2)), ((1, 2, 3), (2, 3, 2))])
def test_matmul_gradients(shapes):
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in shapes)

    def prog(torch):
        out, grads = _grads(torch, lambda t, x, y: x @ y, a, b)
        return out, grads

    check(prog, rtol=1e-5)


def test_max_dim_indices_have_no_grad():
    def prog(torch):
        x = _x(torch)
        values, indices = torch.max(x, 1)
        values.sum().backward()
        return indices, indices.requires_grad, indices.grad_fn is None, x.grad

    check(prog)


def test_max_ties_gradient():
    def prog(torch):
        x = torch.tensor([1.0, 3.0, 3.0, 2.0], requires_grad=True)
        x.max().backward()
        g_all = x.grad.clone()
        x.grad = None
        x.max(0).values.backward()
        return g_all, x.grad

    check(prog)


def test_index_put_accumulate_gradient():
    def prog(torch):
        x, v = _x(torch), _x(torch, A3[:2])
        y = x * 1
        idx = torch.tensor([1, 1])
        y.index_put_((idx, torch.tensor([0, 0])), v, accumulate=True)
        (y * torch.tensor(B23)).sum().backward()
        return y, x.grad, v.grad

    check(prog)


def test_index_put_overwrite_gradient():
    def prog(torch):
        x, v = _x(torch), _x(torch, A3[:2])
        y = x * 1
        y[torch.tensor([0, 1]), torch.tensor([2, 0])] = v
        (y * torch.tensor(B23)).sum().backward()
        return y, x.grad, v.grad

    check(prog)


def test_mask_setitem_gradient():
    def prog(torch):
        x = _x(torch)
        y = x * 2
        y[x > 0] = 0.0
        y.sum().backward()
        return y, x.grad

    check(prog)


def test_double_and_mixed_dtype_gradients():
    def prog(torch):
        x = _x(torch, A23.astype(np.float64))
        w = _x(torch, B23)
        y = (x * w).sum()
        y.backward()
        return y, x.grad, w.grad

    check(prog)


def test_int_tensor_in_graph():
    def prog(torch):
        x = _x(torch)
        n = torch.tensor([[1, 2, 3], [4, 5, 6]])
        y = (x * n).sum()
        y.backward()
        return y, x.grad, (x * n).dtype

    check(prog)


def test_shared_subexpression_diamond():
    def prog(torch):
        x = _x(torch)
        h = x.exp()
        a, b = h * 2, h.tanh()
        (a * b + h).sum().backward()
        return x.grad

    check(prog)


def test_deep_chain():
    def prog(torch):
        x = _x(torch, A3)
        y = x
        for _ in range(1200):  # deeper than Python's recursion limit
            y = y * 1.0001
        (g,) = torch.autograd.grad(y.sum(), x, retain_graph=True)
        y.sum().backward()
        return g, x.grad

    check(prog)


def test_grad_fn_none_for_requires_grad_false_root_parts():
    def prog(torch):
        x = _x(torch)
        c = torch.tensor(B23)
        y = (c * 2).sum() + (x * 0).sum()
        y.backward()
        return x.grad, c.grad is None

    check(prog)
