"""torch.autograd.Function and gradcheck against PyTorch, using its documented examples."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check
from torch.autograd.gradcheck import GradcheckError

RNG = np.random.default_rng(0)
IN = RNG.standard_normal((4, 3))
W = RNG.standard_normal((2, 3))
BIAS = RNG.standard_normal(2)
A23 = RNG.standard_normal((2, 3)).astype(np.float32)


def _module(torch, name):
    import importlib

    return importlib.import_module(f"{torch.__name__}.{name}")


def _linear_function(torch):
    """PyTorch's "Extending torch.autograd" LinearFunction, verbatim."""

    class LinearFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    return LinearFunction


def _linear_setup_context(torch):
    """The same function in the new style: forward without ctx, plus setup_context."""

    class LinearFunction(torch.autograd.Function):
        @staticmethod
        def forward(input, weight, bias):
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def setup_context(ctx, inputs, output):
            input, weight, bias = inputs
            ctx.save_for_backward(input, weight, bias)

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    return LinearFunction


def _mul_constant(torch):
    """PyTorch's MulConstant example: a non-tensor argument kept on ctx."""

    class MulConstant(torch.autograd.Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    return MulConstant


def _inputs(torch, requires=(True, True, True)):
    return tuple(torch.tensor(a, dtype=torch.float64, requires_grad=r)
                 for a, r in zip((IN, W, BIAS), requires, strict=False))


@pytest.mark.parametrize("make", [_linear_function, _linear_setup_context])
@pytest.mark.parametrize("requires", [(True, True, True), (True, False, True),
                                      (False, True, False)])
def test_linear_function_backward(make, requires):
    def prog(torch):
        x, w, b = _inputs(torch, requires)
        out = make(torch).apply(x, w, b)
        (out * out).sum().backward()
        return (out, out.grad_fn is None, out.requires_grad, x.grad, w.grad, b.grad)

    check(prog)


@pytest.mark.parametrize("make", [_linear_function, _linear_setup_context])
def test_linear_function_gradcheck(make):
    def prog(torch):
        return torch.autograd.gradcheck(make(torch).apply, _inputs(torch), eps=1e-6, atol=1e-4)

    check(prog)


def test_linear_function_without_bias():
    def prog(torch):
        x, w, _ = _inputs(torch)
        out = _linear_function(torch).apply(x, w)
        out.sum().backward()
        return out, x.grad, w.grad

    check(prog)


def test_linear_function_graph():
    def prog(torch):
        x, w, b = _inputs(torch, (False, True, True))
        out = _linear_function(torch).apply(x, w, b)
        fn = out.grad_fn
        return (out.is_leaf, len(fn.next_functions), fn.next_functions[0],
                fn.next_functions[1][0].variable is w)

    check(prog)


def test_mul_constant():
    def prog(torch):
        x = torch.tensor(A23, requires_grad=True)
        y = _mul_constant(torch).apply(x, 5.5)
        y.sum().backward()
        gc = torch.autograd.gradcheck(_mul_constant(torch).apply,
                                      (torch.tensor(IN, requires_grad=True), 2.0))
        return y, x.grad, gc

    check(prog)


def test_apply_without_grad_records_nothing():
    def prog(torch):
        x = torch.tensor(A23)
        y = _mul_constant(torch).apply(x, 2.0)
        with torch.no_grad():
            z = _mul_constant(torch).apply(torch.tensor(A23, requires_grad=True), 2.0)
        return y, y.requires_grad, y.grad_fn is None, z.requires_grad

    check(prog)


def test_forward_runs_without_grad_mode():
    def prog(torch):
        seen = []

        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                seen.append(torch.is_grad_enabled())
                return x * 2

            @staticmethod
            def backward(ctx, g):
                seen.append(torch.is_grad_enabled())
                return g * 2

        x = torch.tensor(A23, requires_grad=True)
        F.apply(x).sum().backward()
        return seen, x.grad

    check(prog)


# ------------------------------------------------------------------ ctx features


def _scale_shift(torch):
    class ScaleShift(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, scale, name="s"):
            ctx.save_for_backward(x, y)
            ctx.scale = scale
            return x * y * scale, x + y

        @staticmethod
        def backward(ctx, g_prod, g_sum):
            x, y = ctx.saved_tensors
            return (g_prod * y * ctx.scale + g_sum, g_prod * x * ctx.scale + g_sum, None,
                    None)

    return ScaleShift


def test_multiple_outputs_tuple():
    def prog(torch):
        x = torch.tensor(A23, requires_grad=True)
        y = torch.tensor(A23 * 2, requires_grad=True)
        prod, total = _scale_shift(torch).apply(x, y, 3.0)
        (prod.sum() + (total * total).sum()).backward()
        return (prod, total, prod.grad_fn is total.grad_fn, prod.output_nr, total.output_nr,
                x.grad, y.grad)

    check(prog)


def test_unused_output_grad_is_zeros():
    def prog(torch):
        x = torch.tensor(A23, requires_grad=True)
        y = torch.tensor(A23 * 2, requires_grad=True)
        prod, _ = _scale_shift(torch).apply(x, y, 3.0)
        prod.sum().backward()
        return x.grad, y.grad

    check(prog)


def test_set_materialize_grads_false():
    def prog(torch):
        seen = []

        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                seen.append((g1 is None, g2 is None))
                return g1 * 2

        x = torch.tensor(A23, requires_grad=True)
        a, _ = F.apply(x)
        a.sum().backward()
        return seen, x.grad

    check(prog)


def test_saved_tensor_modified_in_place():
    def prog(torch):
        x = torch.tensor(A23, requires_grad=True)
        h = x * 1
        y = _linear_function(torch).apply(h, torch.tensor(A23), None)
        h.add_(1)
        y.sum().backward()

    e, a = check(prog, raises=RuntimeError)
    assert "modified by an inplace operation" in str(a)


def test_saved_output_modified_in_place():
    def prog(torch):
        class Exp(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x.exp()
                ctx.save_for_backward(out)
                return out

            @staticmethod
            def backward(ctx, g):
                (out,) = ctx.saved_tensors
                return g * out

        x = torch.tensor(A23, requires_grad=True)
        y = Exp.apply(x)
        y.mul_(2)
        y.sum().backward()

    e, a = check(prog, raises=RuntimeError)
    assert "modified by an inplace operation" in str(a)


def test_saved_tensors_after_backward_freed():
    def prog(torch):
        x = torch.tensor(A23, requires_grad=True)
        y = _linear_function(torch).apply(x, torch.tensor(A23), None)
        y.sum().backward()
        y.sum().backward()

    e, a = check(prog, raises=RuntimeError)
    assert "Trying to backward through the graph a second time" in str(a)


def test_retain_graph_through_function():
    def prog(torch):
        x = torch.tensor(A23, requires_grad=True)
        y = _linear_function(torch).apply(x, torch.tensor(A23), None)
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return x.grad

    check(prog)


def test_needs_input_grad():
    def prog(torch):
        seen = []

        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a, k, b):
                seen.append(ctx.needs_input_grad)
                return a * b * k

            @staticmethod
            def backward(ctx, g):
                seen.append(ctx.needs_input_grad)
                return g, None, g

        a = torch.tensor(A23, requires_grad=True)
        b = torch.tensor(A23)
        F.apply(a, 2, b).sum().backward()
        return seen, a.grad

    check(prog)


def test_mark_dirty_inplace_function():
    def prog(torch):
        class AddOne(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 3

        x = torch.tensor(A23, requires_grad=True)
        h = x * 2
        out = AddOne.apply(h)
        name = out.grad_fn is h.grad_fn
        out.sum().backward()
        return out is h, name, h._version, x.grad, h.is_leaf

    check(prog)


def test_mark_dirty_on_leaf_raises():
    def prog(torch):
        class AddOne(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        AddOne.apply(torch.tensor(A23, requires_grad=True))

    e, a = check(prog, raises=RuntimeError)
    assert "a leaf Variable that requires grad" in str(a)


def test_mark_non_differentiable():
    def prog(torch):
        class SortLike(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                values, idx = x.max(1)
                ctx.mark_non_differentiable(idx)
                ctx.save_for_backward(x, idx)
                return values, idx

            @staticmethod
            def backward(ctx, g, g_idx):
                x, idx = ctx.saved_tensors
                mask = (x == x.max(1, keepdim=True).values).to(g.dtype)
                return mask * g.unsqueeze(1)

        x = torch.tensor(A23, requires_grad=True)
        values, idx = SortLike.apply(x)
        values.sum().backward()
        return values, idx, values.requires_grad, idx.requires_grad, x.grad

    check(prog)


def test_mark_non_differentiable_float_output():
    def prog(torch):
        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x * 2
                ctx.mark_non_differentiable(out)
                return out

            @staticmethod
            def backward(ctx, g):
                return g

        y = F.apply(torch.tensor(A23, requires_grad=True))
        return y.requires_grad, y.grad_fn is None

    check(prog)


def test_returning_input_makes_a_new_tensor():
    def prog(torch):
        class Identity(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = torch.tensor(A23, requires_grad=True)
        y = Identity.apply(x)
        y.sum().backward()
        return y is x, y.is_leaf, y.requires_grad, x.grad

    check(prog)


@pytest.mark.parametrize("grad_on", [False, True])
def test_outputs_wrapped_without_recording(grad_on):
    def prog(torch):
        class Identity(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        class AddOne(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        x = torch.tensor(A23)
        with torch.set_grad_enabled(grad_on):
            y = Identity.apply(x)
            z = AddOne.apply(x)
        return y is x, z is x, x._version, y.requires_grad, y._is_view(), x

    check(prog)


# The samples both libraries reject, by test id, and the exception class.
_GRAD_COUNT_ERRORS = {
    'too_few': RuntimeError, 'too_many': RuntimeError,
}


@pytest.mark.parametrize("returned", ["too_few", "too_many", "too_many_none"])
def test_wrong_number_of_grads(returned, request):
    def prog(torch):
        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                if returned == "too_few":
                    return (g,)
                if returned == "too_many":
                    return g, g, g
                return g, g, None

        x = torch.tensor(A23, requires_grad=True)
        F.apply(x, torch.tensor(A23)).sum().backward()
        return x.grad

    e, a = check(prog, raises=_GRAD_COUNT_ERRORS.get(request.node.callspec.id))
    if returned != "too_many_none":
        assert "returned an incorrect number of gradients (expected 2, got" in str(a)


@pytest.mark.parametrize("case", ["int_grad", "grad_for_constant", "double_grad",
                                  "broadcast_grad", "none_grad"])
def test_backward_result_validation(case):
    def prog(torch):
        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                if case == "int_grad":
                    return 5, None
                if case == "grad_for_constant":
                    return g, g
                if case == "double_grad":
                    return g.double() * 2, None
                if case == "broadcast_grad":
                    return g.expand(4, 2, 3), None
                return None, None

        x = torch.tensor(A23, requires_grad=True)
        F.apply(x, 2.0).sum().backward()
        return x.grad

    e, a = check(prog, may_raise=True)
    if isinstance(e, Exception):
        assert str(a) == str(e)


def test_save_for_backward_non_tensor():
    def prog(torch):
        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, None, 3)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

        F.apply(torch.tensor(A23, requires_grad=True))

    e, a = check(prog, raises=TypeError)
    assert str(a) == str(e)


def test_grad_of_wrong_shape_raises():
    def prog(torch):
        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g.sum(0)

        F.apply(torch.tensor(A23, requires_grad=True)).sum().backward()

    check(prog, raises=RuntimeError)


def test_create_graph_through_function():
    def prog(torch):
        class Cube(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x**2

        x = torch.tensor(A23.astype(np.float64), requires_grad=True)
        (g,) = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
        (gg,) = torch.autograd.grad(g.sum(), x)
        gradgrad = torch.autograd.gradgradcheck(Cube.apply, (x,))
        return g, g.requires_grad, gg, gradgrad

    check(prog)


def test_once_differentiable():
    def prog(torch):
        once_differentiable = _module(torch, "autograd.function").once_differentiable

        class Cube(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            @once_differentiable
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x**2

        x = torch.tensor(A23.astype(np.float64), requires_grad=True)
        y = Cube.apply(x).sum()
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        return g, g.requires_grad

    check(prog)


def test_once_differentiable_double_backward_raises():
    def prog(torch):
        once_differentiable = _module(torch, "autograd.function").once_differentiable

        class Cube(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            @once_differentiable
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x**2

        x = torch.tensor(A23.astype(np.float64), requires_grad=True)
        (g,) = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
        g.sum().backward()

    check(prog, raises=RuntimeError)


def test_function_inside_graph_hooks():
    def prog(torch):
        x = torch.tensor(A23, requires_grad=True)
        h = x.exp()
        y = _mul_constant(torch).apply(h, 3.0)
        seen = []
        y.register_hook(lambda g: seen.append(g.clone()))
        h.register_hook(lambda g: g * 2)
        (y * y).sum().backward()
        return seen, x.grad, y.grad_fn.next_functions[0][0].name()

    check(prog)


def test_function_with_kwargs_style_defaults():
    def prog(torch):
        x = torch.tensor(A23, requires_grad=True)
        y = torch.tensor(A23 * 2, requires_grad=True)
        prod, total = _scale_shift(torch).apply(x, y, 2.0, "name")
        prod.sum().backward()
        return prod, x.grad

    check(prog)


# ------------------------------------------------------------------ gradcheck


def _wrong_backward(torch):
    class Wrong(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x  # should be 2 * g * x

    return Wrong


@pytest.mark.parametrize("name", ["mul_exp", "matmul", "sum_dim", "index", "tanh_div"])
def test_gradcheck_builtin_ops(name):
    fns = {
        "mul_exp": lambda t, a, b: a * b.exp(),
        "matmul": lambda t, a, b: a @ b.t(),
        "sum_dim": lambda t, a, b: (a * b).sum(1),
        "index": lambda t, a, b: a[t.tensor([1, 0, 1])] + b[0],
        "tanh_div": lambda t, a, b: a.tanh() / (b * b + 1),
    }

    def prog(torch):
        a = torch.tensor(IN[:2], requires_grad=True)
        b = torch.tensor(W, requires_grad=True)
        return torch.autograd.gradcheck(lambda x, y: fns[name](torch, x, y), (a, b))

    check(prog)


@pytest.mark.parametrize("name", ["cube", "mul_exp", "matmul"])
def test_gradgradcheck_builtin_ops(name):
    fns = {
        "cube": lambda a, b: (a**3) * b,
        "mul_exp": lambda a, b: a * b.exp(),
        "matmul": lambda a, b: a @ b.t(),
    }

    def prog(torch):
        a = torch.tensor(IN[:2], requires_grad=True)
        b = torch.tensor(W, requires_grad=True)
        return torch.autograd.gradgradcheck(fns[name], (a, b))

    check(prog)


def test_gradcheck_wrong_backward_raises():
    def prog(torch):
        x = torch.tensor(IN[:2], requires_grad=True)
        torch.autograd.gradcheck(_wrong_backward(torch).apply, (x,))

    e, a = check(prog, raises=GradcheckError)
    assert isinstance(a, RuntimeError)
    assert "Jacobian mismatch for output 0 with respect to input 0" in str(a)


def test_gradcheck_wrong_backward_returns_false():
    def prog(torch):
        x = torch.tensor(IN[:2], requires_grad=True)
        return torch.autograd.gradcheck(_wrong_backward(torch).apply, (x,),
                                        raise_exception=False)

    check(prog)


def test_gradcheck_error_class(tt):
    assert issubclass(_module(tt, "autograd.gradcheck").GradcheckError, RuntimeError)


def test_gradgradcheck_wrong_double_backward():
    def prog(torch):
        class BadSecond(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x.detach() ** 2  # first derivative right, second missing

        x = torch.tensor(IN[:2], requires_grad=True)
        return (torch.autograd.gradcheck(BadSecond.apply, (x,)),
                torch.autograd.gradgradcheck(BadSecond.apply, (x,), raise_exception=False))

    check(prog)


def test_gradcheck_single_tensor_input():
    def prog(torch):
        x = torch.tensor(IN[0], requires_grad=True)
        return torch.autograd.gradcheck(lambda t: (t * t).sum(), x)

    check(prog)


def test_gradcheck_float32_warns():
    def prog(torch):
        import warnings

        x = torch.tensor(A23, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            torch.autograd.gradcheck(lambda t: t * 2, (x,), eps=1e-3, atol=1e-2,
                                     raise_exception=False)
        return any(issubclass(i.category, UserWarning) and "double precision" in str(i.message)
                   for i in w)

    check(prog)
