"""torch.func's autodiff transforms: grad, grad_and_value, vjp, jvp and linearize, as JAX
transformations of the user's function (see ``_core``; Jacobians are in ``_jac``).

Gradients follow PyTorch's conventions: a complex input's gradient is the conjugate of
JAX's (``torch_vjp``), and a Jacobian has the output's shape followed by the input's.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax.extend import core as jcore

from ..eager.autograd import grad_mode
from ..eager.autograd.node import torch_vjp
from ..eager.tensor import Tensor
from ._args import Diff, split_aux, tensor_leaves
from ._core import Draws, Level, evaluate, is_float, run_user, tree_flatten, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize"]


def _outputs(out, api: str, float_only: bool):
    """Flat tensor outputs (as arrays) and their structure."""
    leaves, treedef = tensor_leaves(out, lambda x: RuntimeError(
        f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(x)}"))
    if not leaves:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got "
                           f"output = {out})")
    for t in leaves:
        if float_only and not is_float(t.dtype):
            raise RuntimeError(f"{api.split('(')[0]}(f, ...): All outputs of f must be "
                               "floating-point or complex Tensors, got Tensor with dtype "
                               f"{t.dtype}")
    return [t._value for t in leaves], treedef


def _user(func, diff: Diff, kwargs, has_aux, api, kind, meta, extra=()):
    """The user's function as ``arrays -> (flat output arrays, aux)`` (structure in meta)."""

    def f(*dv):
        out = run_user(func, diff.call_args(dv), kwargs, *extra, Level(kind))
        out, aux = split_aux(out, has_aux, api)
        flat, meta["out"] = _outputs(out, api, kind == "grad")
        return flat, aux

    return f


def grad_and_value(func, argnums=0, has_aux: bool = False):
    """``func``'s gradient with respect to the arguments at ``argnums``, and its value."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        diff = Diff(args, argnums)
        api = "grad_and_value(f)(*args)"

        def f(*dv):
            out = run_user(func, diff.call_args(dv), kwargs, Level("grad"))
            out, aux = split_aux(out, has_aux, api)
            _check_scalar(out, api)
            return out._value, aux

        def G(*vals):
            value, pull, aux = jax.vjp(f, *vals, has_aux=True)
            if not jnp.issubdtype(value.dtype, jnp.inexact):  # PyTorch: zero gradients
                return tuple(jnp.zeros_like(v) for v in vals), value, aux
            return torch_vjp(pull, jnp.ones_like(value)), value, aux

        grads, value, aux = evaluate(G, diff.leaves)
        grads = diff.structure(grads)
        return (grads, (value, aux)) if has_aux else (grads, value)

    return wrapper


def _check_scalar(out, api: str) -> None:
    if not isinstance(out, Tensor):
        raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got {type(out)}")
    if out.dim() != 0:
        raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got tensor "
                           f"with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev "
                           "APIs instead?")
    if out.dtype.is_complex:
        raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but "
                           f"got {out.dtype}")


def grad(func, argnums=0, has_aux: bool = False):
    """The gradient of scalar-valued ``func`` with respect to the arguments at ``argnums``."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func, *primals, has_aux: bool = False):
    """``(func(*primals), vjp_fn)``; ``vjp_fn(cotangents)`` gives a gradient per primal."""
    diff = Diff(primals, tuple(range(len(primals))))
    meta = {}
    f = _user(func, diff, {}, has_aux, "vjp(f, *primals)", "grad", meta)

    def G(*vals):
        out, pull, aux = jax.vjp(f, *vals, has_aux=True)
        return (out, aux), pull

    draws = Draws()
    # pull is None when the outputs have autograd history: vjp_fn then differentiates the
    # program again, so that its results have history too.
    (out, aux), pull = evaluate(G, diff.leaves, draws, raw=True)
    fn = functools.partial(_vjp_fn, f, diff, pull, out, meta["out"], draws)
    result = tree_unflatten(meta["out"], out)
    return (result, fn, aux) if has_aux else (result, fn)


def _vjp_fn(f, diff, pull, outs, out_def, draws, cotangents, retain_graph=True,
            create_graph=None):
    """vjp's ``vjp_fn(cotangents, retain_graph=True, create_graph=None)``."""
    cts, ct_def = tree_flatten(cotangents)
    if ct_def != out_def:
        raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree "
                           f"structure of outputs to the function. cotangents: {ct_def}, "
                           f"primal output: {out_def}")
    for i, (c, o) in enumerate(zip(cts, outs, strict=True)):
        if not isinstance(c, Tensor):
            raise RuntimeError(f"vjp_fn: expected a Tensor cotangent, got {type(c)}")
        if c.shape != o.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} "
                               f"and output[{i}] has a shape of {o.shape}.")
    cts = [c if c.dtype is o.dtype else c.to(o.dtype) for c, o in zip(cts, outs, strict=True)]
    if create_graph is None:
        create_graph = grad_mode.is_grad_enabled()
    n = len(diff.leaves)
    with grad_mode.set_grad_enabled(create_graph):
        if pull is not None:
            grads = evaluate(lambda *cs: torch_vjp(pull, list(cs)), cts)
        else:
            grads = evaluate(lambda *xs: torch_vjp(jax.vjp(f, *xs[:n], has_aux=True)[1],
                                                   list(xs[n:])), [*diff.leaves, *cts], draws)
    return diff.structure(grads)


def _check_tangents(primals, tangents, api: str):
    p, p_def = tree_flatten(primals)
    t, t_def = tree_flatten(tangents)
    if not isinstance(tangents, tuple) or p_def != t_def:
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           "tangents also must be. Got primals with structure "
                           f"{p_def} and tangents with structure {t_def}")
    for a, b in zip(p, t, strict=True):
        if not isinstance(b, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(b)}")
        if a.shape != b.shape:
            raise RuntimeError("Trying to set a forward gradient that has a different size than "
                               "that of the original Tensor, this is not supported. Tensor is "
                               f"of size {list(a.shape)} while the given forward gradient is of "
                               f"size {list(b.shape)}.")
    return [b if b.dtype is a.dtype else b.to(a.dtype) for a, b in zip(p, t, strict=True)]


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), J @ tangents)``: a forward-mode Jacobian-vector product."""
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    diff = Diff(primals, tuple(range(len(primals))), not_float=lambda t: ValueError(
        f"Expected primal to be floating point or complex, but got: {t.dtype}"))
    ts = _check_tangents(primals, tangents, api)
    meta = {}
    f = _user(func, diff, {}, has_aux, api, "fwd", meta)
    n = len(diff.leaves)

    def G(*vals):
        out, tout, aux = jax.jvp(f, vals[:n], vals[n:], has_aux=True)
        if strict:
            _check_strict(lambda *t: jax.jvp(f, vals[:n], t, has_aux=True)[1], vals[n:])
        return out, tout, aux

    out, tout, aux = evaluate(G, [*diff.leaves, *ts])
    result = (tree_unflatten(meta["out"], out), tree_unflatten(meta["out"], tout))
    return (*result, aux) if has_aux else result


def _check_strict(tangent_map, tangents) -> None:
    """jvp's strict=True: every output's tangent must depend on the input tangents."""
    jaxpr = jax.make_jaxpr(tangent_map)(*tangents).jaxpr
    live = set(jaxpr.invars)
    for eqn in jaxpr.eqns:
        if any(not isinstance(v, jcore.Literal) and v in live for v in eqn.invars):
            live.update(eqn.outvars)
    if any(isinstance(v, jcore.Literal) or v not in live for v in jaxpr.outvars):
        raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is "
                           "independent of the inputs. This is not allowed with strict=True.")


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is J @ tangents at the primals."""
    diff = Diff(primals, tuple(range(len(primals))))
    meta = {}
    f = _user(func, diff, {}, False, "linearize(f, *primals)", "fwd", meta)
    plain = lambda *v: f(*v)[0]  # noqa: E731
    draws = Draws()
    out, lin = evaluate(lambda *v: jax.linearize(plain, *v), diff.leaves, draws, raw=True)
    n = len(diff.leaves)

    def jvp_fn(*tangents):
        ts = _check_tangents(primals, tangents, "linearize: jvp_fn")
        if lin is not None:
            tout = evaluate(lambda *t: lin(*t), ts)
        else:
            tout = evaluate(lambda *xs: jax.jvp(plain, xs[:n], xs[n:])[1],
                            [*diff.leaves, *ts], draws)
        return tree_unflatten(meta["out"], tout)

    return tree_unflatten(meta["out"], out), jvp_fn
