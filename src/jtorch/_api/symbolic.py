"""The ``torch.sym_*`` helpers and ``torch.cond``.

PyTorch's symbolic helpers work on plain Python numbers and on the symbolic sizes its
compiler traces with. jtorch's shapes are always concrete integers (also inside
``torch.compile``, which specialises on shapes), so each helper is its Python meaning;
``sym_constrain_range*`` check the concrete value as PyTorch does for a plain int.
"""

from __future__ import annotations

import builtins
import math

from ..eager.tensor import Tensor

__all__ = ["cond", "sym_constrain_range", "sym_constrain_range_for_size", "sym_float",
           "sym_fresh_size", "sym_int", "sym_ite", "sym_max", "sym_min", "sym_not", "sym_sqrt",
           "sym_sum"]


def sym_float(a):
    """``float(a)``."""
    return a if isinstance(a, float) else float(a)


def sym_int(a):
    """``int(a)``, truncating a float towards zero."""
    return math.trunc(a) if isinstance(a, float) else int(a)


def sym_max(a, b):
    """``max(a, b)``, a float when either is one."""
    return _promote(builtins.max(a, b), a, b)


def sym_min(a, b):
    """``min(a, b)``, a float when either is one."""
    return _promote(builtins.min(a, b), a, b)


def _promote(r, a, b):
    return float(r) if isinstance(a, float) or isinstance(b, float) else r


def sym_not(a):
    return not a


def sym_sqrt(a):
    return math.sqrt(a)


def sym_ite(b, t, f):
    """``t if b else f``."""
    return t if b else f


def sym_sum(args):
    return builtins.sum(args)


def sym_fresh_size(expr):
    return expr


def sym_constrain_range(size, min=None, max=None) -> None:  # noqa: A002 - PyTorch's names
    """Raise RuntimeError when the concrete ``size`` lies outside ``[min, max]``."""
    lo = -math.inf if min is None else min
    hi = math.inf if max is None else max
    if isinstance(size, int) and not lo <= size <= hi:
        raise RuntimeError(f"Invalid value range for {size} between [{lo}, {hi}].")


def sym_constrain_range_for_size(size, min=None, max=None) -> None:  # noqa: A002
    """As ``sym_constrain_range``, for a value used as a size."""
    sym_constrain_range(size, min=min, max=max)


def cond(pred, true_fn, false_fn, operands=()):
    """torch.cond: ``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``.

    ``pred`` is a bool or a one-element tensor. Differences from PyTorch: inside
    ``torch.compile`` a tensor predicate is read on the host, so the call runs eagerly (a
    graph break) instead of becoming one conditional program.
    """
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got "
                               f"{pred}.")
        pred = builtins.bool(pred)
    elif not isinstance(pred, builtins.bool | int):
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got "
                           f"{pred}.")
    if not isinstance(operands, tuple | list):
        raise RuntimeError(f"Expect operands to be a tuple of possibly nested dict/list/tuple "
                           f"that only consists of tensor leaves, but got {operands}.")
    return (true_fn if pred else false_fn)(*operands)
