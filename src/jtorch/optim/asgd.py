"""torch.optim.ASGD."""

from __future__ import annotations

from ..functional import optim as F
from .optimizer import _check_lr, _FunctionalOptimizer, _operand, scalar_dtype

__all__ = ["ASGD"]


class ASGD(_FunctionalOptimizer):
    """Averaged stochastic gradient descent (the average is ``state[p]["ax"]``).

    Differences from PyTorch: ``foreach``/``capturable`` have no effect;
    ``differentiable=True`` is not supported.
    """

    _update = staticmethod(F.asgd)

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        return F.asgd_init(p._value, scalar_dtype=scalar_dtype(), lr=float(_operand(group["lr"])))

    def _statics(self, group):
        return {"maximize": bool(group["maximize"])}

    def _hyper(self, group):
        return {k: group[k] for k in ("lr", "lambd", "alpha", "t0", "weight_decay")}
