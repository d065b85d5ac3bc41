"""Run the pure distribution math on tensors: one dispatched kernel (and one autograd node)
per call, keyed by the function and its static arguments; samplers draw their key from
jtorch's default generator, so ``manual_seed`` reproduces them."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..eager import dispatch
from ..eager.autograd.grad_mode import _state
from ..eager.random import default_generator
from ..eager.tensor import Tensor

_NAMES: dict = {}
_USED: dict = {}


def _grad_name(fn) -> str:
    name = _NAMES.get(fn)
    if name is None:
        camel = "".join(p.capitalize() for p in fn.__name__.split("_"))
        name = _NAMES[fn] = f"{camel}Backward0"
    return name


def _used_inputs(key, kernel, args) -> frozenset:
    """The positions of ``args`` the kernel's result depends on (traced once per signature)."""
    sig = (key, tuple((a.shape, a.dtype) if isinstance(a, Tensor) else type(a) for a in args))
    used = _USED.get(sig)
    if used is None:
        vals = [a._value if isinstance(a, Tensor) else a for a in args]
        closed = jax.make_jaxpr(kernel)(*vals)
        jaxpr = closed.jaxpr
        needed = {id(v) for eqn in jaxpr.eqns for v in eqn.invars}
        needed |= {id(v) for v in jaxpr.outvars}
        leaves_per_arg = [len(jax.tree_util.tree_leaves(v)) for v in vals]
        used, i = set(), 0
        for pos, n in enumerate(leaves_per_arg):
            if any(id(v) in needed for v in jaxpr.invars[i:i + n]):
                used.add(pos)
            i += n
        used = _USED[sig] = frozenset(used)
    return used


def _apply(key, kernel, args, fn):
    # PyTorch records only the parameters a formula reads: Normal's entropy does not
    # require grad through loc, and an unread parameter's .grad stays None.
    if _state.enabled and any(isinstance(a, Tensor) and a.requires_grad for a in args):
        used = _used_inputs(key, kernel, args)
        args = [a.detach() if isinstance(a, Tensor) and a.requires_grad and i not in used
                else a for i, a in enumerate(args)]
    return dispatch.apply(key, kernel, args, _grad_name(fn))


def call(fn, *args, **statics):
    """``fn(*args, **statics)`` on tensors (and Python numbers), recorded for autograd."""
    key = ("distributions", fn, tuple(sorted(statics.items())))
    kernel = (lambda *xs: fn(*xs, **statics)) if statics else fn
    return _apply(key, kernel, list(args), fn)


def _rbg_key(seed, counter):
    """An RBG key from the generator's seed words and the draw's counter.

    Samplers take keys of JAX's "rbg" implementation (XLA's RngBitGenerator): a sampling
    kernel then compiles in about half the time a threefry one takes, and the (seed,
    counter) pair still fixes the stream, so ``manual_seed`` reproduces it."""
    c = jnp.asarray(counter, jnp.uint64)
    words = jnp.stack([(c & 0xFFFFFFFF).astype(jnp.uint32), (c >> 32).astype(jnp.uint32)])
    return jax.random.wrap_key_data(jnp.concatenate([seed, words]), impl="rbg")


def draw(fn, shape, *args, **statics):
    """``fn(key, shape, *args, **statics)`` with a fresh key from the default generator."""
    shape = tuple(shape)
    seed, counter = default_generator.next()

    def kernel(k, c, *xs):
        return fn(_rbg_key(k, c), shape, *xs, **statics)

    key = ("distributions.draw", fn, shape, tuple(sorted(statics.items())))
    return _apply(key, kernel, [seed, counter, *args], fn)
