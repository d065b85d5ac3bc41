"""A transform's result as ONE autograd node (see ``_core``): its inputs are the tensors
the program differentiates and the captured tensors that require grad (module
parameters); its backward is the VJP of the whole program, recorded again as a program of
(inputs, cotangents) under ``create_graph=True``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..compiler._record import _VALUE
from ..eager.autograd import grad_mode
from ..eager.autograd.function import Function
from ..eager.autograd.node import torch_vjp
from ..eager.tensor import Tensor, wrap
from ..functional.shape import scatter_chain
from . import _program as P
from ._core import evaluate, is_float, run_compiled_or_eager, tree_unflatten


def record(G, tensors, inputs, captured, draws, treedef, compiled: bool):
    """One autograd node for ``G``: its inputs are ``tensors[i]`` for ``i`` in ``inputs``
    (arguments of ``G``) and the ``captured`` tensors (bound to values for each run)."""
    fixed = [t._value for t in tensors]
    n = len(inputs)

    def F(*xs):
        vals, bound = list(fixed), []
        try:
            for i, x in zip(inputs, xs[:n], strict=True):
                vals[i] = x
            for t, x in zip(captured, xs[n:], strict=True):
                bound.append(_bind(t, x))
            return tuple(jax.tree.leaves(G(*vals)))
        finally:
            for st, v in reversed(bound):
                _VALUE.__set__(st, v)

    outs = _Lifted.apply(F, draws, compiled, *[tensors[i] for i in inputs], *captured)
    return tree_unflatten(treedef, list(outs))


def _bind(t: Tensor, value):
    """Give the captured tensor ``t`` the traced ``value`` for one run (views included);
    returns what to restore. The raw slot is used: a binding is not a write."""
    st = t._storage
    old = _VALUE.__get__(st)
    _VALUE.__set__(st, scatter_chain(old, t._chain, value) if t._chain else value)
    return st, old


def _float0(shape):
    return np.zeros(shape, jax.dtypes.float0)


class _Lifted(Function):
    """A transform's result as one node: backward is the VJP of the whole program."""

    @staticmethod
    def forward(ctx, F, draws, compiled, *tensors):
        vals = [t._value for t in tensors]
        out, vjp = run_compiled_or_eager(
            lambda run: run(lambda *xs: jax.vjp(F, *xs), *vals), draws, compiled)
        ctx.F, ctx.vjp, ctx.draws = F, vjp, draws
        ctx.save_for_backward(*tensors)
        outs = tuple(wrap(o) for o in out)
        ctx.mark_non_differentiable(*[o for o in outs if not is_float(o.dtype)])
        ctx.out_meta = [(o.shape, o.dtype, is_float(t.dtype)) for o, t in zip(out, outs)]
        return outs

    @staticmethod
    def backward(ctx, *grads):
        saved = ctx.saved_tensors
        cts = [None if not diff else (g if g is not None else wrap(jnp.zeros(s, d)))
               for g, (s, d, diff) in zip(grads, ctx.out_meta, strict=True)]
        live = [c for c in cts if c is not None]
        if grad_mode.is_grad_enabled() and any(t.requires_grad for t in (*saved, *live)):
            return (None, None, None, *_double(ctx, saved, cts))
        def pull(*live_vals):
            it = iter(live_vals)
            full = tuple(_float0(s) if c is None else next(it)
                         for c, (s, _, _) in zip(cts, ctx.out_meta, strict=True))
            return tuple(torch_vjp(ctx.vjp, full))

        grads = P.run(pull, [c._value for c in live])
        return (None, None, None, *(wrap(g) for g in grads))


def _double(ctx, saved, cts):
    """The VJP re-run as a recorded program of (inputs, cotangents): ``create_graph=True``."""
    n, F, meta = len(saved), ctx.F, ctx.out_meta
    live = [c for c in cts if c is not None]

    def H(*xs):
        _, vjp = jax.vjp(F, *xs[:n])
        it = iter(xs[n:])
        full = tuple(_float0(s) if c is None else next(it)
                     for c, (s, _, _) in zip(cts, meta, strict=True))
        return tuple(torch_vjp(vjp, full))

    return evaluate(H, [*saved, *live], ctx.draws)
