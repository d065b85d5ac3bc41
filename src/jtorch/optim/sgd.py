"""torch.optim.SGD."""

from __future__ import annotations

from ..functional import optim as F
from .optimizer import _check_lr, _FunctionalOptimizer

__all__ = ["SGD"]


class SGD(_FunctionalOptimizer):
    """Stochastic gradient descent, optionally with (Nesterov) momentum and weight decay.

    Differences from PyTorch: ``foreach``/``fused`` are accepted and have no effect (every
    group is updated by one compiled kernel); ``differentiable=True`` is not supported; a
    sparse gradient updates with the same values, but the momentum buffer it makes is dense.
    """

    _update = staticmethod(F.sgd)

    def _dense_grad(self, grad, group):
        """Sparse gradients update densely (same values as PyTorch's sparse update)."""
        if group["weight_decay"] != 0:
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) "
                               "instead.")
        return grad.to_dense()._value

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        _check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def _statics(self, group):
        return {"nesterov": bool(group["nesterov"]), "maximize": bool(group["maximize"]),
                "use_momentum": group["momentum"] != 0}

    def _hyper(self, group):
        return {k: group[k] for k in ("lr", "momentum", "dampening", "weight_decay")}
