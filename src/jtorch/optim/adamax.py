"""torch.optim.Adamax."""

from __future__ import annotations

from ..functional import optim as F
from .adam import beta_hyper, check_betas
from .optimizer import _check_lr, _FunctionalOptimizer, scalar_dtype

__all__ = ["Adamax"]


class Adamax(_FunctionalOptimizer):
    """Adamax, the infinity-norm variant of Adam.

    Differences from PyTorch: ``foreach``/``capturable`` have no effect;
    ``differentiable=True`` is not supported.
    """

    _update = staticmethod(F.adamax)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        check_betas(betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        return F.adamax_init(p._value, scalar_dtype=scalar_dtype())

    def _statics(self, group):
        return {"maximize": bool(group["maximize"])}

    def _hyper(self, group):
        return beta_hyper(group, "lr", "eps", "weight_decay")
