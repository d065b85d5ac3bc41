"""A transform's program as one compiled XLA executable, cached by the program's structure.

Run op by op, a JAX transformation of jtorch code compiles every op's kernel again for each
transformation (a batched kernel, its JVP, its transpose), which makes first calls slow.
Instead the outermost transform traces its whole program to a jaxpr (running the user's
code once, as eager mode would) and runs it as one jitted function. The jaxpr is traced
again on every call, so Python values and closures are always current; executables are
cached under a key made of the jaxpr's structure (equations, types, literal values, and
the identity of nested jaxprs, which JAX's own tracing caches keep stable), with the
jaxpr's constants passed as arguments. A program that needs concrete values (``.item()``
under ``grad``, a branch on a value) or writes tensors it captured raises ``NeedsEager``
while being traced, and runs op by op instead.
"""

from __future__ import annotations

import collections
import functools

import jax
import numpy as np
from jax.extend import core as jcore

from .. import _kernels

_PROGRAMS: collections.OrderedDict = collections.OrderedDict()
_MAX_PROGRAMS = 256
TRACING: list = []  # per outermost call: True while its program is traced for compilation


class NeedsEager(BaseException):
    """Tracing met an operation that needs concrete values or has effects: run op by op.
    A BaseException, so user code catching ``Exception`` cannot swallow it."""


def tracing() -> bool:
    return bool(TRACING) and TRACING[-1]


def run(G, vals):
    """``G(*vals)`` through one cached executable."""
    return trace(G, vals)()


def trace(G, vals) -> Program:
    """Trace ``G`` (running the user's code) into a program, run by calling it."""
    TRACING.append(True)
    try:
        closed, shapes = jax.make_jaxpr(G, return_shape=True)(*vals)
    finally:
        TRACING.pop()
    return Program(closed, shapes, vals)


class Program:
    """A traced program and its arguments; ``shapes`` is its output structure."""

    def __init__(self, closed, shapes, vals):
        self.closed, self.shapes, self.vals = closed, shapes, vals

    def __call__(self):
        closed = self.closed
        key = _key(closed.jaxpr)
        fn = _PROGRAMS.get(key)
        if fn is None:
            fn = _PROGRAMS[key] = _kernels.jit(functools.partial(_evaluate, closed.jaxpr),
                                                xla_defaults=True,
                                                conv=bool(_kernels.program_options(closed)))
            if len(_PROGRAMS) > _MAX_PROGRAMS:
                _PROGRAMS.popitem(last=False)
        else:
            _PROGRAMS.move_to_end(key)
        flat = fn(closed.consts, *self.vals)
        return jax.tree.unflatten(jax.tree.structure(self.shapes), flat)


def _evaluate(jaxpr, consts, *args):
    return jax.core.eval_jaxpr(jaxpr, consts, *args)


class _Id:
    """An object compared by identity (and kept alive by the key that holds it)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __hash__(self):
        return id(self.obj)

    def __eq__(self, other):
        return isinstance(other, _Id) and other.obj is self.obj


def _key(jaxpr):
    names: dict = {}

    def var(v):
        if isinstance(v, jcore.Literal):
            return ("lit", _value(v.val), v.aval)
        return names.setdefault(v, len(names))

    parts = [tuple(v.aval for v in jaxpr.constvars), tuple(v.aval for v in jaxpr.invars)]
    for v in (*jaxpr.constvars, *jaxpr.invars):
        var(v)
    for eqn in jaxpr.eqns:
        parts.append((eqn.primitive, tuple(var(v) for v in eqn.invars),
                      tuple((var(v), v.aval) for v in eqn.outvars),
                      tuple((k, _value(p)) for k, p in eqn.params.items())))
    parts.append(tuple(var(v) for v in jaxpr.outvars))
    return tuple(parts)


def _value(p):
    """A hashable stand-in for an equation parameter or literal, equal only for equal ones."""
    if isinstance(p, jcore.ClosedJaxpr | jcore.Jaxpr):
        return _Id(p)
    if isinstance(p, float | complex):  # -0.0 == 0.0 and nan != nan: compare the bits
        return (type(p).__name__, repr(p))
    if isinstance(p, tuple | list):
        return (type(p).__name__, *(_value(x) for x in p))
    if isinstance(p, np.ndarray | jax.Array):
        a = np.asarray(p)
        return ("array", a.dtype.str, a.shape, a.tobytes())
    try:
        hash(p)
    except TypeError:
        return _Id(p)
    return p
