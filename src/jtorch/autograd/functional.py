"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp and vhp of a function of
tensors, with PyTorch's signatures, tuple conventions and ``strict`` errors.

As in PyTorch, these run the function eagerly and differentiate it with the autograd
engine (forward products by the double-backward trick), so ``create_graph=True`` results
are differentiable again. ``vectorize=True`` and ``strategy="forward-mode"`` compute the
Jacobian with ``torch.func.jacrev``/``jacfwd`` (vmapped VJPs or JVPs over the standard
basis), which is what PyTorch's vectorized paths compute.
"""

from __future__ import annotations

import jax

from ..eager.autograd import grad_mode
from ..eager.autograd.engine import grad as _grad
from ..eager.tensor import Tensor, wrap

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(x, arg_name: str, fn_name: str):
    """``(was_tuple, tuple_of_tensors)``, raising PyTorch's TypeError for other values."""
    is_tuple = isinstance(x, tuple)
    xs = x if is_tuple else (x,)
    for i, el in enumerate(xs):
        if not isinstance(el, Tensor):
            where = (f"the value at index {i} has type {type(el)}" if is_tuple
                     else f"the given {arg_name} has type {type(el)}")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but {where}.")
    return is_tuple, xs


def _unpack(res, is_tuple):
    """Undo ``_as_tuple``: ``is_tuple`` is a flag or (outputs flag, inputs flag)."""
    if isinstance(is_tuple, tuple):
        outer, inner = is_tuple
        if not inner:
            res = tuple(el[0] for el in res)
        return res if outer else res[0]
    return res if is_tuple else res[0]


def _prepare(inputs, create_graph: bool, need_graph: bool):
    """Fresh leaves to differentiate with respect to (kept in the graph under create_graph)."""
    return tuple(x.view_as(x) if create_graph and x.requires_grad else _leaf(x, need_graph)
                 for x in inputs)


def _leaf(x: Tensor, need_graph: bool) -> Tensor:
    if isinstance(x._value, jax.core.Tracer):
        # Inside a torch.func transform (vectorized hessian): a new autograd leaf that keeps
        # the JAX trace, where detach() would stop the transform's gradient.
        return wrap(x._value).requires_grad_(need_graph)
    return x.detach().requires_grad_(need_graph)


def _finish(xs, create_graph: bool):
    if isinstance(xs[0], Tensor):
        return xs if create_graph else tuple(x.detach() for x in xs)
    return tuple(_finish(x, create_graph) for x in xs)


def _check_v(v, other, other_is_tuple: bool) -> None:
    if len(other) != len(v):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other, strict=True)):
        if a.size() != b.size():
            where = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {b.size()} but got "
                               f"{a.size()}.")


_STRICT = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The "
               "outputs must be computed in a differentiable manner from the input when running "
               "in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
                   "user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is "
               "independent of the input. This is not allowed in strict mode. You should ensure "
               "that your function is thrice differentiable and that the hessian depends on the "
               "inputs.",
}


def _check_requires_grad(xs, kind: str, strict: bool) -> None:
    if not strict:
        return
    for i, x in enumerate(xs):
        if x is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not x.requires_grad:
            raise RuntimeError(_STRICT[kind].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that require grad; all None when none does."""
    grad_outputs = (None,) * len(outputs) if grad_outputs is None else grad_outputs
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs, strict=True)
             if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    outs, gs = zip(*pairs, strict=True)
    return _grad(outs, inputs, gs, allow_unused=True, create_graph=create_graph,
                 retain_graph=retain_graph)


_ZERO_FILL = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward mode "
                         "AD.",
}


def _fill_zeros(grads, refs, strict, create_graph, stage: str):
    import jtorch

    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_FILL[stage].format(i=i))
            g = jtorch.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        out.append(g)
    return tuple(out)


def _setup(func, inputs, v, create_graph, strict, name, v_like_outputs):
    """Prepared inputs, v and outputs of one call (run with grad enabled)."""
    in_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _prepare(inputs, create_graph, True)
    if v is not None:
        v = _prepare(_as_tuple(v, "v", name)[1], create_graph, False)
    if not v_like_outputs:
        _check_v_or_scalar(v, inputs, in_tuple, False)
    outputs = func(*inputs)
    out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict)
    if v_like_outputs:
        _check_v_or_scalar(v, outputs, out_tuple, True)
    return in_tuple, inputs, v, out_tuple, outputs


_V_NONE = {True: "user-provided function returns",
           False: "input to the user-provided function is"}


def _check_v_or_scalar(v, ref, ref_tuple, of_outputs: bool) -> None:
    if v is not None:
        _check_v(v, ref, ref_tuple)
    elif len(ref) != 1 or ref[0].nelement() != 1:
        raise RuntimeError(f"The vector v can only be None if the {_V_NONE[of_outputs]} a "
                           "single Tensor with a single element.")


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v @ J)``: the vector-Jacobian product at ``inputs``."""
    with grad_mode.enable_grad():
        in_tuple, inputs, v, out_tuple, outputs = _setup(func, inputs, v, create_graph, strict,
                                                         "vjp", True)
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_zeros(res, inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), out_tuple),
            _unpack(_finish(res, create_graph), in_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J @ v)``, by the double-backward trick as PyTorch computes it."""
    import jtorch

    with grad_mode.enable_grad():
        in_tuple, inputs, v, out_tuple, outputs = _setup(func, inputs, v, create_graph, strict,
                                                         "jvp", False)
        grad_outputs = tuple(jtorch.zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        res = _fill_zeros(res, outputs, strict, create_graph, "back_trick")
    return (_unpack(_finish(outputs, create_graph), out_tuple),
            _unpack(_finish(res, create_graph), out_tuple))


def _single_output(func, strict, name):
    def f(*xs):
        out = func(*xs)
        is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", name)
        _check_requires_grad(outs, "outputs", strict)
        if is_tuple:
            raise RuntimeError(f"The function given to {name} should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                               "contain a single element")
        return out

    return f


def _second_order(func, inputs, v, create_graph, strict, name):
    with grad_mode.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", name)
        inputs = _prepare(inputs, create_graph, True)
        if v is not None:
            v = _prepare(_as_tuple(v, "v", name)[1], create_graph, False)
        _check_v_or_scalar(v, inputs, in_tuple, False)
        outputs = (_single_output(func, strict, name)(*inputs),)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    return in_tuple, inputs, v, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v @ H)`` for scalar ``func``."""
    in_tuple, inputs, v, outputs, jac = _second_order(func, inputs, v, create_graph, strict,
                                                      "vhp")
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_zeros(res, inputs, strict, create_graph, "double_back")
    return _finish(outputs, create_graph)[0], _unpack(_finish(res, create_graph), in_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H @ v)`` for scalar ``func``, by the double-backward trick."""
    import jtorch

    in_tuple, inputs, v, outputs, jac = _second_order(func, inputs, v, create_graph, strict,
                                                      "hvp")
    with grad_mode.enable_grad():
        grad_jac = tuple(jtorch.zeros_like(x, requires_grad=True) for x in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        res = _fill_zeros(res, inputs, strict, create_graph, "double_back_trick")
    return _finish(outputs, create_graph)[0], _unpack(_finish(res, create_graph), in_tuple)


from ._jacobian import hessian, jacobian  # noqa: E402
