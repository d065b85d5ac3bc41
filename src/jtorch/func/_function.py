"""``autograd.Function`` inside torch.func transforms, with PyTorch's functorch rules.

A Function must override ``setup_context`` to be used in a transform. Under reverse-mode
transforms its ``backward`` becomes a ``jax.custom_vjp``; under forward-mode ones its
``jvp`` staticmethod a ``jax.custom_jvp``; under ``vmap`` its forward is batched as JAX
batches any code, which needs ``generate_vmap_rule=True`` or a ``vmap`` staticmethod.

Differences from PyTorch: a user ``vmap`` staticmethod is not called (the forward is
batched directly, which gives the same values for a correct rule); a Function under both
forward- and reverse-mode transforms at once (``hessian``) raises JAX's error for
forward-mode differentiation of a custom VJP.
"""

from __future__ import annotations

import jax
import numpy as np

from ..eager.autograd import grad_mode
from ..eager.autograd.function import Function, FunctionCtx
from ..eager.autograd.node import torch_vjp
from ..eager.tensor import Tensor, wrap

SETUP_ERROR = ("In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
               "jacrev, ...), it must override the setup_context staticmethod. For more "
               "details, please see https://pytorch.org/docs/main/notes/extending.func.html")
VMAP_ERROR = ("You tried to vmap over {}, but it does not have vmap support. Please override "
              "and implement the vmap staticmethod or set generate_vmap_rule=True. For more "
              "details, please see https://pytorch.org/docs/main/notes/extending.func.html")
JVP_ERROR = ("You must implement the jvp function for custom autograd.Function to use it with "
             "forward mode AD.")


def apply_in_transform(cls, orig, args, kwargs):
    """``cls.apply(*args, **kwargs)`` while a transform may be running."""
    from ._core import LEVELS

    if not LEVELS:
        return orig(cls, *args, **kwargs)
    if cls.setup_context is Function.setup_context:
        raise RuntimeError(SETUP_ERROR)
    kinds = {lv.kind for lv in LEVELS}
    if "vmap" in kinds and not (getattr(cls, "generate_vmap_rule", False)
                                or "vmap" in _own_attrs(cls)):
        raise RuntimeError(VMAP_ERROR.format(cls.__name__))
    call = _Call(cls, args, kwargs)
    if "grad" in kinds:
        return call.with_vjp()
    if "fwd" in kinds:
        if "jvp" not in _own_attrs(cls):
            raise NotImplementedError(JVP_ERROR)
        return call.with_jvp()
    return call.plain()


def _own_attrs(cls):
    names = set()
    for c in cls.__mro__:
        if c is Function:
            break
        names.update(c.__dict__)
    return names


class _Call:
    """One ``apply``: the forward on wrapped arrays, and its context for the rules."""

    def __init__(self, cls, args, kwargs):
        self.cls, self.args, self.kwargs = cls, args, kwargs
        self.pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.structure = None

    def forward(self, vals):
        targs = list(self.args)
        for i, v in zip(self.pos, vals, strict=True):
            targs[i] = wrap(v)
        with grad_mode.no_grad():
            out = self.cls.forward(*targs, **self.kwargs)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        self.structure = (single, [o if not isinstance(o, Tensor) else None for o in outs])
        return tuple(targs), out, tuple(o._value for o in outs if isinstance(o, Tensor))

    def result(self, arrays):
        single, statics = self.structure
        it = iter(arrays)
        outs = [wrap(next(it)) if s is None else s for s in statics]
        return outs[0] if single else tuple(outs)

    def context(self, targs, out):
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) for a in targs)
        self.cls.setup_context(ctx, targs, out)
        return ctx

    def vals(self):
        return [self.args[i]._value for i in self.pos]

    def plain(self):
        return self.result(self.forward(self.vals())[2])

    def with_vjp(self):
        holder = {}

        @jax.custom_vjp
        def prim(*vals):
            return self.forward(vals)[2]

        def fwd(*vals):
            targs, out, arrays = self.forward(vals)
            ctx = self.context(targs, out)
            names = [k for k, v in vars(ctx).items() if isinstance(v, Tensor)]
            saved = [i for i, t in enumerate(ctx._to_save) if isinstance(t, Tensor)]
            holder.update(ctx=ctx, names=names, saved=saved, shapes=vals)
            res = [getattr(ctx, k)._value for k in names] + [ctx._to_save[i]._value for i in saved]
            return arrays, res

        def bwd(res, cts):
            return self._backward(holder, res, cts)

        prim.defvjp(fwd, bwd)
        return self.result(prim(*self.vals()))

    def _backward(self, holder, res, cts):
        ctx, names, saved = holder["ctx"], holder["names"], holder["saved"]
        for k, r in zip(names, res, strict=False):
            setattr(ctx, k, wrap(r))
        to_save = list(ctx._to_save)
        for i, r in zip(saved, res[len(names):], strict=True):
            to_save[i] = wrap(r)
        ctx._to_save = tuple(to_save)
        ctx._freeze_saved()

        def vjp(cts):
            with grad_mode.no_grad():
                grads = self.cls.backward(ctx, *[wrap(c) for c in cts])
            grads = grads if isinstance(grads, tuple) else (grads,)
            return tuple(grads[i]._value if grads[i] is not None else None for i in self.pos)

        grads = torch_vjp(vjp, tuple(cts))
        return tuple(_zero_for(v) if g is None else g.astype(v.dtype)
                     for g, v in zip(grads, holder["shapes"], strict=True))

    def with_jvp(self):
        @jax.custom_jvp
        def prim(*vals):
            return self.forward(vals)[2]

        @prim.defjvp
        def rule(primals, tangents):
            targs, out, arrays = self.forward(primals)
            ctx = self.context(targs, out)
            ts = [None] * len(self.args)
            for i, t in zip(self.pos, tangents, strict=True):
                if t.dtype != jax.dtypes.float0:
                    ts[i] = wrap(t)
            with grad_mode.no_grad():
                tout = self.cls.jvp(ctx, *ts)
            touts = tout if isinstance(tout, tuple) else (tout,)
            return arrays, tuple(t._value for t in touts if isinstance(t, Tensor))

        return self.result(prim(*self.vals()))


def _zero_for(v):
    if jax.numpy.issubdtype(v.dtype, jax.numpy.inexact):
        return jax.numpy.zeros(v.shape, v.dtype)
    return np.zeros(v.shape, jax.dtypes.float0)
