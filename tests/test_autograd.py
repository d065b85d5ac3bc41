"""Autograd against PyTorch: graph structure, backward/grad, create_graph, hooks, detach."""

from __future__ import annotations

import pytest
from autograd_inputs import A3, A23, A33, B23, _x  # noqa: F401
from conftest import check


def _graph(fn):
    """A graph as nested (name, [children]) tuples, AccumulateGrad/None leaves marked."""
    if fn is None:
        return None
    return (fn.name(), tuple((_graph(f), nr) for f, nr in fn.next_functions))


# ------------------------------------------------------------------ requires_grad, is_leaf

_PROPAGATION = {
    "add_scalar": lambda x, c: x + 1,
    "mul_const": lambda x, c: x * c,
    "const_only": lambda x, c: c * 2,
    "gt": lambda x, c: x > 0,
    "eq": lambda x, c: x == c,
    "max_dim_indices": lambda x, c: x.max(1).indices,
    "max_dim_values": lambda x, c: x.max(1).values,
    "to_long": lambda x, c: x.long(),
    "to_double": lambda x, c: x.double(),
    "detach": lambda x, c: x.detach(),
    "clone": lambda x, c: x.clone(),
    "view": lambda x, c: x.view(6),
    "data": lambda x, c: x.data,
    "sum": lambda x, c: x.sum(),
    "index_int": lambda x, c: x[x.new_tensor([1, 0]).long()],
}


@pytest.mark.parametrize("name", list(_PROPAGATION))
def test_requires_grad_propagation(name):
    def prog(torch):
        x, c = _x(torch), torch.tensor(B23)
        y = _PROPAGATION[name](x, c)
        return y.requires_grad, y.is_leaf, y.grad_fn is None, y.dtype

    check(prog)


def test_requires_grad_propagation_under_no_grad():
    def prog(torch):
        x = _x(torch)
        with torch.no_grad():
            y = x * 2
            d = x.detach()
        return y.requires_grad, y.is_leaf, d.requires_grad, x.is_leaf

    check(prog)


def test_view_made_under_no_grad_requires_grad():
    def prog(torch):
        x = _x(torch)
        with torch.no_grad():
            v = x[0]
        return v.requires_grad, v.is_leaf, v.grad_fn is None

    check(prog)


def test_factory_requires_grad():
    def prog(torch):
        a = torch.zeros(2, requires_grad=True)
        b = torch.ones(2)
        return a.requires_grad, a.is_leaf, b.requires_grad, b.is_leaf, (a + b).is_leaf

    check(prog)


_NAMES = {
    "add": lambda x: x + x,
    "add_scalar": lambda x: x + 1,
    "sub": lambda x: x - x,
    "mul": lambda x: x * x,
    "mul_scalar": lambda x: x * 2,
    "div": lambda x: x / 2,
    "neg": lambda x: -x,
    "pow": lambda x: x**2,
    "exp": lambda x: x.exp(),
    "log": lambda x: x.abs().log(),
    "abs": lambda x: x.abs(),
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "sum": lambda x: x.sum(),
    "mean": lambda x: x.mean(),
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.permute(1, 0),
    "view": lambda x: x.view(6),
    "reshape": lambda x: x.reshape(3, 2),
    "select": lambda x: x[0],
    "select_col": lambda x: x[:, 1],
    "slice": lambda x: x[:, 1:],
    "narrow": lambda x: x.narrow(1, 0, 2),
    "squeeze_all": lambda x: x.unsqueeze(0).squeeze(),
    "unsqueeze_view": lambda x: x.view_as(x),
    "expand_as": lambda x: x.expand_as(x.new_ones(2, 2, 3)),
    "flatten": lambda x: x.flatten(),
    "contiguous_copy": lambda x: x.t().contiguous(),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "expand": lambda x: x.expand(4, 2, 3),
    "clone": lambda x: x.clone(),
    "mm": lambda x: x @ x.t(),
    "max_all": lambda x: x.max(),
    "max_dim": lambda x: x.max(1).values,
    "index": lambda x: x[x.new_tensor([1, 0]).long()],
    "to": lambda x: x.double(),
}


@pytest.mark.parametrize("name", list(_NAMES))
def test_grad_fn_name(name):
    check(lambda torch: _NAMES[name](_x(torch)).grad_fn.name())


_OVERLOAD_NAMES = {
    "sum_dim": lambda x: x.sum(1),
    "mean_dim": lambda x: x.mean(1),
    "squeeze_dim": lambda x: x.unsqueeze(0).squeeze(0),
    "rsub_scalar": lambda x: 1 - x,
    "pow_tensor": lambda x: x.pow(x),
    "pow_scalar_base": lambda x: 2**x,
    "dot": lambda x: x[0] @ x[1],
    "mv": lambda x: x @ x[0],
}


@pytest.mark.parametrize("name", list(_OVERLOAD_NAMES))
def test_overload_numbered_grad_fn_name(name):
    check(lambda torch: _OVERLOAD_NAMES[name](_x(torch)).grad_fn.name())


def test_function_form_names():
    def prog(torch):
        x = _x(torch)
        return (torch.cat([x, x]).grad_fn.name(), torch.stack([x, x]).grad_fn.name(),
                torch.where(x > 0, x, x * 0).grad_fn.name())

    check(prog)


def test_where_method_argument_order():
    def prog(torch):
        x = _x(torch)
        y = x.where(x > 0, x * 0)
        y.sum().backward()
        return y, x.grad

    check(prog)


def test_next_functions_structure():
    def prog(torch):
        x, c = _x(torch), torch.tensor(B23)
        y = (x * c).exp().sum()
        acc = y.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
        return _graph(y.grad_fn), acc.variable is x, len(y.grad_fn.next_functions)

    check(prog)


def test_next_functions_shared_leaf():
    def prog(torch):
        x, w = _x(torch), _x(torch, B23)
        y = x * w + x
        add = y.grad_fn
        (mul, _), (acc_x, _) = add.next_functions
        return (_graph(add), mul.next_functions[0][0] is acc_x,
                mul.next_functions[1][0].variable is w)

    check(prog)


def test_next_functions_wrapped_scalar():
    def prog(torch):
        x = _x(torch)
        return [len(y.grad_fn.next_functions) for y in (x + 1, x * 2, x - 1, x / 2)]

    check(prog)


def test_next_functions_of_integer_and_number_operands():
    # add/sub/mul/div list an integer tensor operand as (None, 0); ``number - x`` is
    # rsub's Scalar overload (one edge), ``rsub(x, int_tensor)`` its Tensor one (two).
    def prog(torch):
        x = _x(torch)
        i = torch.arange(x.numel()).reshape(x.shape).clone()
        b = i % 2 == 0
        ys = (x + i, i * x, x * b, x - i, i - x, x / (i + 1), 3.0 - x, torch.rsub(x, i),
              x.gather(0, torch.zeros_like(i)))
        for _ in range(2):  # the second time through the binding's lane
            graphs = [_graph(y.grad_fn) for y in ys]
            ys = (x + i, i * x, x * b, x - i, i - x, x / (i + 1), 3.0 - x, torch.rsub(x, i),
                  x.gather(0, torch.zeros_like(i)))
        return graphs

    check(prog)


def test_next_functions_multi_output_nr():
    def prog(torch):
        x = _x(torch)
        a, b = x.unbind(0)
        y = a * b
        return [(f.name(), nr) for f, nr in y.grad_fn.next_functions]

    check(prog)


# ------------------------------------------------------------------ backward


def test_grad_accumulates_over_two_backwards():
    def prog(torch):
        x = _x(torch)
        (x * x).sum().backward()
        first = x.grad.clone()
        (x * 3).sum().backward()
        return first, x.grad

    check(prog)


def test_grad_accumulates_in_place():
    def prog(torch):
        x = _x(torch)
        (x * 2).sum().backward()
        g = x.grad
        (x * 3).sum().backward()
        return g is x.grad, g, g._version

    check(prog)


def test_backward_on_leaf_and_function_form():
    def prog(torch):
        x = _x(torch)
        x.backward(torch.tensor(B23))
        first = x.grad.clone()
        torch.autograd.backward([(x * 2).sum(), x * 3], [None, torch.tensor(A23)])
        return first, x.grad

    check(prog)


def test_backward_inputs_not_in_graph():
    def prog(torch):
        x, u = _x(torch), _x(torch, B23)
        (x * 2).sum().backward(inputs=[u])
        return x.grad, u.grad

    check(prog)


def test_backward_with_gradient():
    def prog(torch):
        x = _x(torch)
        y = x * torch.tensor(B23)
        y.backward(torch.tensor(A23 * 2))
        return x.grad

    check(prog)


def test_backward_gradient_shape_mismatch():
    def prog(torch):
        x = _x(torch)
        (x * 2).backward(torch.ones(3))

    check(prog, raises=RuntimeError)


def test_non_scalar_root_without_gradient():
    def prog(torch):
        (_x(torch) * 2).backward()

    e, a = check(prog, raises=RuntimeError)
    assert "grad can be implicitly created only for scalar outputs" in str(a)


def test_root_not_requiring_grad():
    def prog(torch):
        torch.tensor(A23).sum().backward()

    e, a = check(prog, raises=RuntimeError)
    assert str(a) == str(e)


def test_retain_graph_second_backward():
    def prog(torch):
        x = _x(torch)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad

    check(prog)


def test_second_backward_through_freed_graph():
    def prog(torch):
        x = _x(torch)
        y = (x * x).sum()
        y.backward()
        y.backward()

    e, a = check(prog, raises=RuntimeError)
    assert "Trying to backward through the graph a second time" in str(a)


@pytest.mark.parametrize("name", ["add", "sum_view", "neg"])
def test_graph_that_saved_nothing_backprops_twice(name):
    fns = {
        "add": lambda x: (x + 1).sum(),
        "sum_view": lambda x: x.t()[0].sum(),
        "neg": lambda x: (-x).sum(),
    }

    def prog(torch):
        x = _x(torch)
        y = fns[name](x)
        y.backward()
        y.backward()
        return x.grad

    check(prog)


def test_backward_inputs_argument():
    def prog(torch):
        x, w = _x(torch), _x(torch, B23)
        y = (x * w).sum()
        y.backward(inputs=[w], retain_graph=True)
        first = (x.grad, w.grad.clone())
        y.backward(inputs=x)
        return first, x.grad, w.grad

    check(prog)


def test_backward_inputs_non_leaf():
    def prog(torch):
        x = _x(torch)
        h = x * 2
        (h * h).sum().backward(inputs=[h])
        return h.grad, x.grad

    check(prog)


# ------------------------------------------------------------------ create_graph


def test_second_derivative_cube():
    def prog(torch):
        x = _x(torch, A3)
        (g,) = torch.autograd.grad((x**3).sum(), x, create_graph=True)
        (gg,) = torch.autograd.grad(g.sum(), x)
        return g, gg, g.requires_grad, gg.requires_grad

    check(prog, rtol=1e-5)


@pytest.mark.parametrize("name", ["mul_exp", "matmul", "tanh", "div", "broadcast"])
def test_second_derivative(name):
    fns = {
        "mul_exp": lambda x, w: (x * x.exp() * w).sum(),
        "matmul": lambda x, w: ((x @ w.t()) ** 2).sum(),
        "tanh": lambda x, w: (x.tanh() * w).sum(),
        "div": lambda x, w: (w / (x * x + 1)).sum(),
        "broadcast": lambda x, w: ((x * w[0]) ** 2).mean(),
    }

    def prog(torch):
        x, w = _x(torch), _x(torch, B23)
        gx, gw = torch.autograd.grad(fns[name](x, w), (x, w), create_graph=True)
        hx, hw = torch.autograd.grad((gx * gx).sum() + gw.sum(), (x, w))
        return gx, gw, hx, hw

    check(prog, rtol=1e-4)


@pytest.mark.parametrize("name", ["mul_scalar", "mul_const", "square", "exp", "add", "view",
                                  "matmul_const", "sum_mean"])
def test_create_graph_grad_requires_grad(name):
    """A first derivative requires grad only if the backward read a tensor that does."""
    fns = {
        "mul_scalar": lambda x, c: x * 2,
        "mul_const": lambda x, c: x * c,
        "square": lambda x, c: x * x,
        "exp": lambda x, c: x.exp(),
        "add": lambda x, c: x + c,
        "view": lambda x, c: x.t()[1:].reshape(4),
        "matmul_const": lambda x, c: x @ c.t(),
        "sum_mean": lambda x, c: x.sum(0) + x.mean(),
    }

    def prog(torch):
        x, c = _x(torch), torch.tensor(B23)
        (g,) = torch.autograd.grad(fns[name](x, c).sum(), x, create_graph=True)
        return g, g.requires_grad, g.is_leaf

    check(prog)


def test_create_graph_constant_derivative_second_grad_raises():
    def prog(torch):
        x = _x(torch)
        (g,) = torch.autograd.grad((x * 2).sum(), x, create_graph=True)
        torch.autograd.grad(g.sum(), x)

    e, a = check(prog, raises=RuntimeError)
    assert str(a) == str(e)


@pytest.mark.filterwarnings(r"ignore:Using backward\(\) with create_graph=True")
def test_create_graph_backward_accumulates_differentiable_grad():
    def prog(torch):
        x = _x(torch, A3)
        (x**3).sum().backward(create_graph=True)
        g = x.grad
        g.sum().backward()
        return g.requires_grad, x.grad

    check(prog, rtol=1e-5)


# ------------------------------------------------------------------ autograd.grad


def test_grad_multiple_outputs_and_inputs():
    def prog(torch):
        x, w = _x(torch), _x(torch, B23)
        a, b = (x * w).sum(), (x.exp()).sum()
        gx, gw = torch.autograd.grad([a, b], [x, w])
        return gx, gw, x.grad, w.grad

    check(prog)


def test_grad_outputs():
    def prog(torch):
        x = _x(torch)
        y = x * x
        return torch.autograd.grad(y, x, grad_outputs=torch.tensor(B23))

    check(prog)


def test_grad_allow_unused():
    def prog(torch):
        x, w = _x(torch), _x(torch, B23)
        return torch.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)

    check(prog)


def test_grad_unused_input_raises():
    def prog(torch):
        x, w = _x(torch), _x(torch, B23)
        torch.autograd.grad((x * 2).sum(), [x, w])

    e, a = check(prog, raises=RuntimeError)
    assert str(a) == str(e)


_GRAD_ERRORS = {
    "count_mismatch": lambda t, x: t.autograd.grad([(x * 2).sum(), (x * 3).sum()], x,
                                                   grad_outputs=[t.tensor(3.0)]),
    "empty_inputs": lambda t, x: t.autograd.grad((x * 2).sum(), []),
    "empty_outputs": lambda t, x: t.autograd.grad([], x),
    "non_tensor_gradient": lambda t, x: t.autograd.backward([(x * 2).sum()], [2.0]),
    "second_output_no_grad": lambda t, x: t.autograd.grad([(x * 2).sum(), t.ones(2).sum()], x),
    "materialize_not_unused": lambda t, x: t.autograd.grad((x * 2).sum(), x, allow_unused=False,
                                                           materialize_grads=True),
}


# The samples both libraries reject, by test id, and the exception class.
_GRAD_ARG_ERRORS = {
    'count_mismatch': RuntimeError, 'empty_inputs': RuntimeError, 'empty_outputs': RuntimeError,
    'materialize_not_unused': ValueError, 'non_tensor_gradient': TypeError,
    'second_output_no_grad': RuntimeError,
}


@pytest.mark.parametrize("name", list(_GRAD_ERRORS))
def test_grad_argument_errors(name, request):
    e, a = check(lambda torch: _GRAD_ERRORS[name](torch, _x(torch)),
                 raises=_GRAD_ARG_ERRORS.get(request.node.callspec.id))
    assert str(a) == str(e)


def test_gradient_dtype_is_cast_to_output():
    def prog(torch):
        x = _x(torch)
        (x * 2).backward(torch.tensor(B23, dtype=torch.float64))
        first = x.grad.clone()
        (g,) = torch.autograd.grad(x * 3, x, torch.ones(2, 3, dtype=torch.int64))
        return first, g

    check(prog)


def test_grad_materialize_grads():
    def prog(torch):
        x, w = _x(torch), _x(torch, B23)
        return torch.autograd.grad((x * 2).sum(), [x, w], materialize_grads=True)

    check(prog)


def test_grad_input_not_requiring_grad():
    def prog(torch):
        x = _x(torch)
        torch.autograd.grad((x * 2).sum(), torch.tensor(A23))

    check(prog, raises=RuntimeError)


def test_grad_wrt_intermediate():
    def prog(torch):
        x = _x(torch)
        h = x.exp()
        y = (h * 3).sum()
        (gh,) = torch.autograd.grad(y, h, retain_graph=True)
        (gx,) = torch.autograd.grad(y, x)
        return gh, gx, x.grad

    check(prog)


# ------------------------------------------------------------------ retain_grad and hooks


def test_retain_grad_non_leaf():
    def prog(torch):
        x = _x(torch)
        h = x * 2
        h.retain_grad()
        y = (h * h).sum()
        y.backward(retain_graph=True)
        first = h.grad.clone()
        y.backward()
        return first, h.grad, h.retains_grad, x.grad, h.is_leaf

    check(prog)


@pytest.mark.parametrize("order", ["retain_first", "hook_first"])
def test_retain_grad_sees_hooked_grad(order):
    def prog(torch):
        x = _x(torch)
        h = x * 2
        if order == "retain_first":
            h.retain_grad()
            h.register_hook(lambda g: g * 10)
        else:
            h.register_hook(lambda g: g * 10)
            h.retain_grad()
        (h * h).sum().backward()
        return h.grad, x.grad

    check(prog)


def test_retain_grad_with_autograd_grad():
    def prog(torch):
        x = _x(torch)
        h = x.view(6)
        h.retain_grad()
        g = torch.autograd.grad((h * h).sum(), x)
        return h.grad, g, x.grad

    check(prog)


def test_retain_grad_on_leaf_is_noop():
    def prog(torch):
        x = _x(torch)
        x.retain_grad()
        (x * 2).sum().backward()
        return x.retains_grad, x.grad

    check(prog)


def test_non_leaf_grad_is_none_without_retain():
    def prog(torch):
        x = _x(torch)
        h = x * 2
        h.sum().backward()
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return h.grad is None

    check(prog)


def test_hook_on_leaf_modifies_grad():
    def prog(torch):
        x = _x(torch)
        seen = []
        x.register_hook(lambda g: seen.append(g.clone()))
        x.register_hook(lambda g: g * 10)
        (x * x).sum().backward()
        return seen, x.grad

    check(prog)


def test_hook_on_non_leaf():
    def prog(torch):
        x = _x(torch)
        h = x.exp()
        seen = []
        h.register_hook(lambda g: seen.append(g.clone()))
        h.register_hook(lambda g: g + 1)
        (h * 3).sum().backward()
        return seen, x.grad

    check(prog)


def test_hook_handle_remove():
    def prog(torch):
        x = _x(torch)
        h = x * 1
        handle = h.register_hook(lambda g: g * 0)
        handle.remove()
        leaf = x.register_hook(lambda g: g * 2)
        (h * h).sum().backward(retain_graph=True)
        first = x.grad.clone()
        leaf.remove()
        x.grad = None
        (h * h).sum().backward()
        return first, x.grad

    check(prog)


def test_node_hooks():
    def prog(torch):
        x, w = _x(torch), _x(torch, B23)
        y = x * w
        seen = []
        y.grad_fn.register_prehook(lambda go: seen.append(("pre", go[0])))
        y.grad_fn.register_hook(lambda gi, go: seen.append(("post", gi[0], gi[1], go[0])))
        y.grad_fn.register_hook(lambda gi, go: (gi[0] * 2, gi[1]))
        y.sum().backward()
        return seen, x.grad, w.grad

    check(prog)


def test_node_prehook_replaces_grad():
    def prog(torch):
        x = _x(torch)
        y = x.exp()
        handle = y.grad_fn.register_prehook(lambda go: (go[0] * 3,))
        y.sum().backward(retain_graph=True)
        first = x.grad.clone()
        handle.remove()
        y.sum().backward()
        return first, x.grad

    check(prog)


def test_hook_requires_grad_error():
    check(lambda torch: torch.tensor(A23).register_hook(lambda g: g), raises=RuntimeError)


# ------------------------------------------------------------------ requires_grad_, detach, data


def test_requires_grad_setter_errors():
    def non_leaf(torch):
        (_x(torch) * 2).requires_grad_(False)

    def int_dtype(torch):
        torch.tensor([1, 2]).requires_grad_()

    def non_leaf_true(torch):
        y = _x(torch) * 2
        return y.requires_grad_(True) is y

    e, a = check(non_leaf, raises=RuntimeError)
    assert "you can only change requires_grad flags of leaf variables" in str(a)
    e, a = check(int_dtype, raises=RuntimeError)
    assert "only Tensors of floating point and complex dtype can require gradients" in str(a)
    check(non_leaf_true)


def test_requires_grad_toggle_leaf():
    def prog(torch):
        x = torch.tensor(A23)
        r = x.requires_grad_()
        first = (r is x, x.requires_grad, x.is_leaf)
        x.requires_grad = False
        return first, x.requires_grad, (x * 2).requires_grad

    check(prog)


def test_detach_shares_storage_and_version():
    def prog(torch):
        x = _x(torch)
        y = x * 2
        d = y.detach()
        d.add_(1)
        return (d.requires_grad, d.is_leaf, d.grad_fn is None, y._version, d._version, y,
                d.data_ptr() == y.data_ptr())

    check(prog)


def test_detach_then_backward_sees_modification():
    def prog(torch):
        x = _x(torch)
        y = x.exp()
        y.detach().zero_()
        y.sum().backward()

    e, a = check(prog, raises=RuntimeError)
    assert "modified by an inplace operation" in str(a)


def test_detach_inplace():
    def prog(torch):
        x = _x(torch)
        y = x * 2
        r = y.detach_()
        return r is y, y.requires_grad, y.is_leaf, y.grad_fn is None

    check(prog)


def test_detach_inplace_on_view_raises():
    def prog(torch):
        y = _x(torch) * 2
        y[0].detach_()

    e, a = check(prog, raises=RuntimeError)
    assert "Can't detach views in-place" in str(a)


def test_data_has_fresh_version_counter():
    def prog(torch):
        x = _x(torch)
        d = x.data
        d.mul_(2)
        return d.requires_grad, d.is_leaf, x._version, d._version, x.detach()

    check(prog)


def test_data_setter():
    def prog(torch):
        x = _x(torch)
        x.data = torch.tensor(B23)
        (x * 2).sum().backward()
        return x, x.grad, x.requires_grad

    check(prog)


def test_clone_is_differentiable():
    def prog(torch):
        x = _x(torch)
        c = x.clone()
        (c * c).sum().backward()
        return c.grad_fn.name(), c.is_leaf, x.grad

    check(prog)
