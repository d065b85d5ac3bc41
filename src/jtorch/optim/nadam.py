"""torch.optim.NAdam."""

from __future__ import annotations

from ..functional import optim as F
from .adam import beta_hyper, check_betas
from .optimizer import _check_lr, _FunctionalOptimizer, scalar_dtype

__all__ = ["NAdam"]


class NAdam(_FunctionalOptimizer):
    """NAdam: Adam with Nesterov momentum, optionally with decoupled weight decay.

    Differences from PyTorch: ``foreach``/``capturable`` have no effect;
    ``differentiable=True`` is not supported.
    """

    _update = staticmethod(F.nadam)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_lr(lr)
        check_betas(betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        return F.nadam_init(p._value, scalar_dtype=scalar_dtype())

    def _statics(self, group):
        return {"maximize": bool(group["maximize"]),
                "decoupled_weight_decay": bool(group["decoupled_weight_decay"])}

    def _hyper(self, group):
        return beta_hyper(group, "lr", "eps", "weight_decay", "momentum_decay")
