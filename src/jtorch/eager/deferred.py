"""Deferred ops: a result whose value is computed only when something reads it.

``pack_padded_sequence`` gathers a packed sequence's data from the padded batch, in a
kernel of the packed size: one compile per total length (a text model's every batch),
its gradient's queued too, while the RNN reading the sequence uses the padded batch it
was packed from (``nn/utils/rnn.py``), as ``pad_packed_sequence`` does: most programs
never read the data. ``deferred`` gives such an op's result as a tensor of a shape known
on the host, with the op's autograd node as an eager call makes it (``dispatch``'s
``_apply_with_grad``), whose storage (``DeferredStorage``) runs the op when its value is
first read (``lazy.array``: alone, from its operands as they were at the call). A
backward through it recomputes the op from those operands, as every recomputing node
does. Nothing is deferred under a trace, a profiler, device placement or
``JTORCH_LAZY=0``: the caller then calls the op.
"""

from __future__ import annotations

import jax
from jax._src import core as _core
from jax._src.array import ArrayImpl

from .._device import PLACEMENT
from .._registry import REGISTRY
from . import dispatch, hooks, lazy
from .autograd import grad_mode
from .fast_paths import _fast_entry
from .storage import LazyStorage
from .tensor import Tensor, wrap


class DeferredStorage(LazyStorage):
    """A ``LazyStorage`` whose ``lazy.Pending`` is a deferred op's, in no segment: reading
    ``value`` computes it (``lazy.array``) and makes this a plain ``Storage``. The fast
    paths, which record further ops on a ``LazyStorage``'s Pending (as a result of the
    current segment), see another class and read ``value``; ``pending`` reads it too."""

    __slots__ = ()

    @property
    def pending(self):
        return self.value


def deferred(name: str, operands: dict, statics: tuple, shape: tuple) -> Tensor | None:
    """Registered op ``name`` on ``operands`` (its dynamic operands by name, all tensors,
    in the order its binding takes them) and the values of its static parameters
    ``statics`` (in the op's order), deferred: its one result, of ``shape`` and the first
    operand's dtype, computed when read. The op's host check does not run: the caller
    vouches for the operands. None where it cannot be deferred (see the module's
    docstring; an op keeping its VJP's residuals; an operand that is a view or a traced
    value): the caller calls the op."""
    spec = REGISTRY[name]
    if (spec.residuals or not lazy.ON or lazy._ident() != lazy._MAIN
            or dispatch.PROFILER is not None or hooks.RECORDER is not None
            or PLACEMENT.active or PLACEMENT.blocking
            or type(_core.trace_ctx.trace) is not lazy._EVAL):
        return None
    args = tuple(operands.values())
    vals, lz, diff_idx = [], False, ()
    grad = grad_mode._state.enabled
    for i, a in enumerate(args):
        if not isinstance(a, Tensor) or a._chain or a._base is not None:
            return None
        st = a._storage
        v = st.pending if type(st) is LazyStorage else st.value
        if type(v) is lazy.Pending:
            if v.array is not None:
                v = v.array
            else:
                lz = True
        elif type(v) is not ArrayImpl:  # a tracer, a host array
            return None
        vals.append(v)
        if grad and (a._grad_fn is not None or a._requires_grad):
            diff_idx += (i,)
    e = _fast_entry(spec, tuple(operands), statics)  # the very kernel an eager call runs
    aval = jax.core.ShapedArray(shape, args[0].dtype.np)
    p = lazy.pending(lazy._result(aval, lazy._number(aval)), -1, e, vals, lz)
    if diff_idx and args[0].dtype._kind >= 2:
        t = dispatch._apply_with_grad(e[0], e[1], args, vals, diff_idx, spec.grad_name,
                                      spec.saves, spec.scalar_edges, lz, p)
    else:
        t = wrap(p)
    t._storage.__class__ = DeferredStorage
    return t
