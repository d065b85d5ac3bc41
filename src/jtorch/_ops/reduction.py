"""Reductions and the max/min overloads."""

from __future__ import annotations

from .. import return_types
from .._registry import numbered, op
from ..functional import reduction as R

_BY_DIM = lambda s, o: int(s.get("dim") is not None)  # noqa: E731
op("sum", R.sum, static=("dim", "keepdim", "dtype"), saves="none", out=True,
   grad_name=numbered("Sum", _BY_DIM))
op("mean", R.mean, static=("dim", "keepdim", "dtype"), saves="none", out=True,
   grad_name=numbered("Mean", _BY_DIM))
op("max_all", R.max, function=False, method=False, grad_name="MaxBackward1")
op("min_all", R.min, function=False, method=False, grad_name="MinBackward1")
op("max_dim", R.max_dim, static=("dim", "keepdim"), function=False, method=False,
   grad_name="MaxBackward0", returns=return_types.max)
op("min_dim", R.min_dim, static=("dim", "keepdim"), function=False, method=False,
   grad_name="MinBackward0", returns=return_types.min)


def _has_other(args, kwargs) -> bool:
    return "other" in kwargs or (len(args) > 1 and not isinstance(args[1], int))


def _has_dim(args, kwargs) -> bool:
    return "dim" in kwargs or len(args) > 1


for _name in ("max", "min"):
    op(_name, None, kind="overload", overloads=(
        (_has_other, "maximum" if _name == "max" else "minimum"),
        (_has_dim, f"{_name}_dim"),
        (lambda a, k: True, f"{_name}_all"),
    ))
