"""``jtorch.func.to_jax``: a module or function as a pure JAX function.

The function runs jtorch's eager code on JAX values inside a sandbox
(``jtorch.compiler._record.sandbox``): parameters and buffers are bound to the arrays
passed in, tensors in the arguments are wrapped, and every effect is undone on exit, so
the result can be used inside ``jax.jit``, ``jax.grad``, ``jax.vmap`` and shardings.
"""

from __future__ import annotations

import jax

from ..compiler._record import sandbox
from ..eager.autograd import grad_mode
from ..eager.tensor import Tensor, wrap

__all__ = ["to_jax", "state_of"]


def state_of(module):
    """``(params, buffers)``: a module's parameters and buffers as dicts of JAX arrays,
    keyed by ``named_parameters()``/``named_buffers()`` names (tied weights once)."""
    params = {n: p._value for n, p in module.named_parameters()}
    buffers = {n: b._value for n, b in module.named_buffers()}
    return params, buffers


def to_jax(obj, *, return_buffers: bool = False):
    """A pure JAX function for ``obj``.

    For an ``nn.Module``: ``f(params, buffers, *args, key=None, **kwargs)`` with
    ``params``/``buffers`` dicts of arrays as ``state_of`` gives (missing names keep the
    module's current values); with ``return_buffers=True`` it returns
    ``(outputs, new_buffers)``, which a module that updates buffers (BatchNorm in training
    mode) requires. For a function: ``f(*args, key=None, **kwargs)``. Arrays in the
    arguments arrive as tensors and tensors in the result leave as arrays. ``key`` (a JAX
    PRNG key) feeds the random ops inside (dropout); without it they draw from jtorch's
    generators at trace time, which ``jax.jit`` then keeps as constants.
    """
    from ..nn.modules.module import Module

    if isinstance(obj, Module):
        return _module_fn(obj, return_buffers)
    if return_buffers:
        raise ValueError("to_jax(return_buffers=True) needs an nn.Module")

    def fn(*args, key=None, **kwargs):
        with sandbox(_draws(key)):
            out = _call(obj, args, kwargs)
        return out

    return fn


def _module_fn(module, return_buffers):
    named_p = dict(module.named_parameters())
    named_b = dict(module.named_buffers())

    def fn(params, buffers, *args, key=None, **kwargs):
        unknown = (set(params) - set(named_p)) | (set(buffers) - set(named_b))
        if unknown:
            raise KeyError(f"to_jax: unexpected state names {sorted(unknown)}")
        with sandbox(_draws(key)) as rec:
            for table, values in ((named_p, params), (named_b, buffers)):
                for n, v in values.items():
                    t = table[n]
                    if t._chain:
                        raise ValueError(f"to_jax: {n} is a view of another tensor; bind its "
                                         "base instead")
                    rec.bind(t._storage, v)
            out = _call(module, args, kwargs)
            written = {n: b._storage.value for n, b in named_b.items()
                       if id(b._storage) in rec.written}
            new_buffers = {n: b._value for n, b in named_b.items()}
        if written and not return_buffers:
            raise RuntimeError(
                f"to_jax: {type(module).__name__} updates its buffers {sorted(written)} "
                "(e.g. BatchNorm running statistics in training mode); use "
                "to_jax(module, return_buffers=True) to receive them, or call module.eval()")
        return (out, new_buffers) if return_buffers else out

    return fn


def _call(fn, args, kwargs):
    def to_tensor(x):
        return wrap(x) if isinstance(x, jax.Array) else x

    targs = jax.tree.map(to_tensor, args)
    tkwargs = jax.tree.map(to_tensor, kwargs)
    with grad_mode.no_grad():
        out = fn(*targs, **tkwargs)
    return jax.tree.map(lambda t: t._value if isinstance(t, Tensor) else t, out,
                        is_leaf=lambda t: isinstance(t, Tensor))


def _draws(key):
    if key is None:
        return None
    data = jax.random.key_data(key) if jax.dtypes.issubdtype(key.dtype,
                                                              jax.dtypes.prng_key) else key
    count = [0]

    def draw(gen):
        count[0] += 1
        return data, count[0] - 1

    return draw
