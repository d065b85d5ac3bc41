"""torch.func.jacrev, jacfwd and hessian: Jacobians from vmapped VJPs or JVPs over the
standard basis, as PyTorch builds them (so complex values follow its conventions).

Each Jacobian block has the output's shape followed by the input's; the result is nested
as the outputs, then as ``argnums`` (a tuple of argument structures when it is a tuple).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from ..eager.autograd.node import torch_vjp
from ._args import Diff
from ._core import Level, evaluate, tree_unflatten
from ._grad import _user

__all__ = ["jacrev", "jacfwd", "hessian"]
RANDOMNESS = ("error", "different", "same")


def _check_randomness(randomness) -> None:
    if randomness not in RANDOMNESS:
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


def _check_real(arrays, api: str, what: str) -> None:
    for i, a in enumerate(arrays):
        if jnp.iscomplexobj(a):
            raise RuntimeError(f"{api}: Expected all {what} to be real but received complex "
                               f"tensor at flattened input idx: {i}")


def _offsets(arrays):
    out, n = [], 0
    for a in arrays:
        out.append(n)
        n += a.size
    return out, n


def _one_hot(k, arrays):
    """The ``k``-th standard basis vector of the concatenated ``arrays``, split per array."""
    offs, _ = _offsets(arrays)
    return [((jnp.arange(a.size) + o) == k).astype(a.dtype).reshape(a.shape)
            for a, o in zip(arrays, offs, strict=True)]


def _over_basis(fn, n: int, chunk_size):
    """``fn`` vmapped over ``arange(n)``, in chunks of ``chunk_size`` (1: a Python loop)."""
    ks = jnp.arange(n)
    if chunk_size is None or chunk_size >= n:
        return jax.vmap(fn)(ks)
    if chunk_size == 1:
        parts = [jax.tree.map(lambda x: x[None], fn(ks[i])) for i in range(n)]
    else:
        parts = [jax.vmap(fn)(ks[s:s + chunk_size]) for s in range(0, n, chunk_size)]
    return jax.tree.map(lambda *xs: jnp.concatenate(xs), *parts)


def jacrev(func, argnums=0, *, has_aux: bool = False, chunk_size=None,
           _preallocate_and_copy: bool = False):
    """The Jacobian of ``func`` by reverse mode: one VJP per output element, vmapped
    (``chunk_size`` of them at a time)."""
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        diff, meta = Diff(args, argnums), {}
        f = _user(func, diff, kwargs, has_aux, "jacrev(f, ...)(*args)", "grad", meta)

        def G(*vals):
            _check_real(vals, "jacrev", "inputs")
            outs, pull, aux = jax.vjp(f, *vals, has_aux=True)
            _check_real(outs, "jacrev", "outputs")
            offs, n = _offsets(outs)
            rows = _over_basis(lambda k: torch_vjp(pull, _one_hot(k, outs)), n, chunk_size)
            jac = [[r[o:o + out.size].reshape(out.shape + v.shape) for r, v in zip(rows, vals)]
                   for out, o in zip(outs, offs, strict=True)]
            return jac, aux

        jac, aux = evaluate(G, diff.leaves)
        result = tree_unflatten(meta["out"], [diff.structure(row) for row in jac])
        return (result, aux) if has_aux else result

    return wrapper


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """The Jacobian of ``func`` by forward mode: one JVP per input element, vmapped (random
    ops inside follow ``randomness`` as in ``vmap``)."""
    _check_randomness(randomness)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        diff, meta = Diff(args, argnums), {}

        def G(*vals):
            _check_real(vals, "jacfwd", "inputs")
            offs, n = _offsets(vals)

            def column(k):
                f = _user(func, diff, kwargs, has_aux, "jacfwd(f, ...)(*args)", "fwd", meta,
                          (Level("vmap", randomness, k),))
                return jax.jvp(f, vals, tuple(_one_hot(k, vals)), has_aux=True)

            outs, touts, aux = jax.vmap(column)(jnp.arange(n))
            _check_real(outs, "jacfwd", "outputs")
            jac = [[_column_block(t, v, o) for v, o in zip(vals, offs, strict=True)]
                   for t in touts]
            return jac, jax.tree.map(lambda a: a[0], aux)

        jac, aux = evaluate(G, diff.leaves)
        result = tree_unflatten(meta["out"], [diff.structure(row) for row in jac])
        return (result, aux) if has_aux else result

    return wrapper


def _column_block(t, v, offset):
    """Rows ``offset:offset+v.size`` of the JVPs ``t`` as a block of shape out + in."""
    block = t[offset:offset + v.size]
    out_shape = t.shape[1:]
    return jnp.moveaxis(block.reshape(v.size, -1), 0, -1).reshape(out_shape + v.shape)


def hessian(func, argnums=0):
    """The Hessian of scalar ``func``: ``jacfwd(jacrev(func, argnums), argnums)``."""
    return jacfwd(jacrev(func, argnums), argnums)
