"""torch.optim.Rprop."""

from __future__ import annotations

from ..functional import optim as F
from .optimizer import _check_lr, _FunctionalOptimizer, _operand, scalar_dtype

__all__ = ["Rprop"]


class Rprop(_FunctionalOptimizer):
    """Rprop: resilient backpropagation (``lr`` is the initial per-element step size).

    Differences from PyTorch: ``foreach``/``capturable`` have no effect;
    ``differentiable=True`` is not supported.
    """

    _update = staticmethod(F.rprop)

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        return F.rprop_init(p._value, scalar_dtype=scalar_dtype(), lr=float(_operand(group["lr"])))

    def _statics(self, group):
        return {"maximize": bool(group["maximize"])}

    def _hyper(self, group):
        (etaminus, etaplus), (lo, hi) = group["etas"], group["step_sizes"]
        return {"etaminus": etaminus, "etaplus": etaplus, "step_size_min": lo,
                "step_size_max": hi}
