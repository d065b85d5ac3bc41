"""torch.optim.Adadelta."""

from __future__ import annotations

from ..functional import optim as F
from .optimizer import _check_lr, _FunctionalOptimizer, scalar_dtype

__all__ = ["Adadelta"]


class Adadelta(_FunctionalOptimizer):
    """Adadelta.

    Differences from PyTorch: ``foreach``/``capturable`` have no effect;
    ``differentiable=True`` is not supported.
    """

    _update = staticmethod(F.adadelta)

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        return F.adadelta_init(p._value, scalar_dtype=scalar_dtype())

    def _statics(self, group):
        return {"maximize": bool(group["maximize"])}

    def _hyper(self, group):
        return {k: group[k] for k in ("lr", "rho", "eps", "weight_decay")}
