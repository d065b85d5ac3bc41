"""torch.optim.RAdam."""

from __future__ import annotations

from ..functional import optim as F
from .adam import beta_hyper, check_betas
from .optimizer import _check_lr, _FunctionalOptimizer, scalar_dtype

__all__ = ["RAdam"]


class RAdam(_FunctionalOptimizer):
    """RAdam: rectified Adam, optionally with decoupled weight decay.

    Differences from PyTorch: ``foreach``/``capturable`` have no effect;
    ``differentiable=True`` is not supported.
    """

    _update = staticmethod(F.radam)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_lr(lr)
        check_betas(betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        return F.radam_init(p._value, scalar_dtype=scalar_dtype())

    def _statics(self, group):
        return {"maximize": bool(group["maximize"]),
                "decoupled_weight_decay": bool(group["decoupled_weight_decay"])}

    def _hyper(self, group):
        return beta_hyper(group, "lr", "eps", "weight_decay")
