"""torch.autograd.functional.jacobian and hessian (see ``functional``)."""

from __future__ import annotations

from ..eager.autograd import grad_mode
from .functional import (
    _as_tuple,
    _autograd_grad,
    _check_requires_grad,
    _finish,
    _prepare,
    _single_output,
    _unpack,
)

_STRATEGIES = ("forward-mode", "reverse-mode")


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: per output, per input, a tensor of shape
    ``output.shape + input.shape`` (unpacked where the outputs or inputs were no tuple)."""
    if strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             "Hint: If your function has more outputs than inputs, "
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`strict=False` or `strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-"
                                      "reverse Hessian isonly implemented for `vectorize=True`.")
        return _vectorized(func, inputs, False, forward=True)
    if vectorize:
        if strict:
            with grad_mode.enable_grad():
                ins = _prepare(_as_tuple(inputs, "inputs", "jacobian")[1], create_graph, True)
                outs = _as_tuple(func(*ins), "outputs of the user-provided function",
                                 "jacobian")[1]
                _check_requires_grad(outs, "outputs", strict)
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either "
                               "set `strict=False` or `vectorize=False`.")
        return _vectorized(func, inputs, create_graph, forward=False)
    return _by_rows(func, inputs, create_graph, strict)


def _by_rows(func, inputs, create_graph, strict):
    """One backward pass per output element, as PyTorch's non-vectorized jacobian."""
    import jtorch

    with grad_mode.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, True)
        out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                       "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                vj = _autograd_grad((flat[j],), inputs, retain_graph=True,
                                    create_graph=create_graph)
                for k, (g, x) in enumerate(zip(vj, inputs, strict=True)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {k}. This is not allowed "
                                               "in strict mode.")
                        g = jtorch.zeros_like(x)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(f"The jacobian of the user-provided function is "
                                           f"independent of input {i}. This is not allowed in "
                                           "strict mode when create_graph=True.")
                    rows[k].append(g)
            jac.append(tuple(_stack(r, out.size() + x.size(), x)
                             for r, x in zip(rows, inputs, strict=True)))
    return _unpack(_finish(tuple(jac), create_graph), (out_tuple, in_tuple))


def _stack(rows, shape, like):
    import jtorch

    if not rows:  # an empty output: PyTorch's stack of nothing has this shape too
        return jtorch.zeros(shape, dtype=like.dtype)
    return jtorch.stack(rows, 0).view(shape)


def _vectorized(func, inputs, create_graph, forward: bool):
    """The Jacobian from ``torch.func.jacrev``/``jacfwd`` (vmapped VJPs or JVPs)."""
    from .. import func as F

    in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    flags = {}

    def f(*xs):
        flags["out"], outs = _as_tuple(func(*xs), "outputs of the user-provided function",
                                       "jacobian")
        return outs

    if create_graph:  # PyTorch differentiates fresh leaves, so the result requires grad
        inputs = tuple(x if x.requires_grad else x.detach().requires_grad_() for x in inputs)
    transform = F.jacfwd if forward else F.jacrev
    with grad_mode.set_grad_enabled(create_graph):
        jac = transform(f, argnums=tuple(range(len(inputs))))(*inputs)
    return _unpack(_finish(jac, create_graph), (flags["out"], in_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of scalar ``func``: the Jacobian of its (create_graph) Jacobian."""
    in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    single = _single_output(func, strict, "hessian")

    def jac_func(*xs):
        if outer_jacobian_strategy == "forward-mode":
            xs = tuple(t.requires_grad_(True) for t in xs)
        jac = jacobian(lambda *a: single(*a).squeeze(), xs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack(res, (in_tuple, in_tuple))
