"""torch.optim.RMSprop."""

from __future__ import annotations

from ..functional import optim as F
from .optimizer import _check_lr, _FunctionalOptimizer, scalar_dtype

__all__ = ["RMSprop"]


class RMSprop(_FunctionalOptimizer):
    """RMSprop, optionally centered and with momentum.

    Differences from PyTorch: ``foreach``/``capturable`` have no effect;
    ``differentiable=True`` is not supported.
    """

    _update = staticmethod(F.rmsprop)

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        return F.rmsprop_init(p._value, scalar_dtype=scalar_dtype(),
                              momentum=group["momentum"], centered=group["centered"])

    def _statics(self, group):
        return {"centered": bool(group["centered"]), "maximize": bool(group["maximize"]),
                "use_momentum": group["momentum"] > 0}

    def _hyper(self, group):
        return {k: group[k] for k in ("lr", "alpha", "eps", "weight_decay", "momentum")}
