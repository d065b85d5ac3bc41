"""Reductions, statistics and the max/min/median overloads."""

from __future__ import annotations

import numpy as np

from .. import return_types
from .._registry import numbered, op
from ..functional import reduction as R
from ..functional import statistics as St

_BY_DIM = lambda s, o: int(s.get("dim") is not None)  # noqa: E731
_DIMS = ("dim", "keepdim", "dtype")
op("sum", R.sum, static=_DIMS, saves="none", out=True,
   grad_name=numbered("Sum", _BY_DIM, by_statics=True))
op("nansum", R.nansum, static=_DIMS, out=True)
op("mean", R.mean, static=_DIMS, saves="none", out=True,
   grad_name=numbered("Mean", _BY_DIM, by_statics=True))
op("nanmean", R.nanmean, static=_DIMS, out=True, grad_name="DivBackward0")
op("prod", R.prod, static=_DIMS, out=True, grad_name=numbered("Prod", _BY_DIM, by_statics=True))
op("max_all", R.max, function=False, method=False, grad_name="MaxBackward1", out=True)
op("min_all", R.min, function=False, method=False, grad_name="MinBackward1", out=True)
op("max_dim", R.max_dim, static=("dim", "keepdim"), function=False, method=False,
   grad_name="MaxBackward0", returns=return_types.max, out=True)
op("min_dim", R.min_dim, static=("dim", "keepdim"), function=False, method=False,
   grad_name="MinBackward0", returns=return_types.min, out=True)
for _name in ("amax", "amin", "argmax", "argmin", "all", "any"):
    op(_name, getattr(R, _name), static=("dim", "keepdim"), out=True)
op("aminmax", R.aminmax, static=("dim", "keepdim"), returns=return_types.aminmax, out=True)
op("count_nonzero", R.count_nonzero, static=("dim",))
op("logsumexp", R.logsumexp, static=("dim", "keepdim"), out=True)

_VAR = ("dim", "unbiased", "keepdim", "correction")
for _name in ("var", "std"):
    op(_name, getattr(St, _name), static=_VAR, out=True)
    op(f"{_name}_mean", getattr(St, f"{_name}_mean"), static=_VAR, method=False)
op("norm", St.norm, static=("p", "dim", "keepdim", "dtype"), out=True,
   grad_name=lambda s, o: "SumBackward1" if s["p"] == "nuc" else "LinalgVectorNormBackward0")
op("dist", St.dist, static=("p",))
# Sort-based: the gradient keeps the forward's indices (OpSpec.residuals).
op("mode", St.mode, static=("dim", "keepdim"), returns=return_types.mode, out=True,
   residuals=True)


def _check_q(operands, statics) -> None:
    """torch reads q on the host to check its range before computing."""
    q = operands["q"]
    values = np.asarray(q._value) if hasattr(q, "_value") else np.asarray(q)
    if values.size and not ((values >= 0) & (values <= 1)).all():
        if values.ndim == 0:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {float(q)}")
        raise RuntimeError("quantile() q values must be in the range [0, 1]")


for _name in ("quantile", "nanquantile"):
    op(_name, getattr(St, _name), static=("dim", "keepdim", "interpolation"), out=True,
       grad_name="SqueezeBackward4", extra={"check": _check_q}, residuals=True)


def _check_histc_range(operands, statics) -> None:
    x = operands["input"]
    if statics["min"] == statics["max"] and x.numel() and x.dtype.is_floating_point:
        values = np.asarray(x._value)
        if not np.isfinite(values).all():
            lo, hi = np.min(values), np.max(values)
            raise RuntimeError(f"torch.histc: range of [{lo}, {hi}] is not finite")


# torch.histc / Tensor.histc (jtorch/_api/reduction.py) call this on a detached input:
# PyTorch's histc result has no autograd history.
op("_histc", St.histc, static=("bins", "min", "max"), function=False, method=False, out=True,
   extra={"check": _check_histc_range})

# median/nanmedian: the full reduction returns a tensor, the dim form (values, indices).
# Sort-based: their gradients keep the forward's indices (OpSpec.residuals).
for _name in ("median", "nanmedian"):
    _camel = _name.capitalize()
    op(f"_{_name}_all", getattr(St, _name), function=False, method=False,
       grad_name=f"{_camel}Backward0", residuals=True)
    op(f"_{_name}_dim", getattr(St, f"{_name}_dim"), static=("dim", "keepdim"), function=False,
       method=False, grad_name=f"{_camel}Backward1", returns=getattr(return_types, _name),
       out=True, residuals=True)


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
for _name in ("median", "nanmedian"):
    op(_name, None, kind="overload", overloads=(
        (_has_dim, f"_{_name}_dim"),
        (lambda a, k: True, f"_{_name}_all"),
    ))
