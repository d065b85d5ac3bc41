"""torch.optim.Adam and torch.optim.AdamW."""

from __future__ import annotations

from ..eager.tensor import Tensor
from ..functional import optim as F
from .optimizer import _check_lr, _FunctionalOptimizer, scalar_dtype

__all__ = ["Adam", "AdamW"]


def check_betas(betas, eps, weight_decay) -> None:
    """The hyperparameter errors the Adam family raises."""
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def beta_hyper(group, *names) -> dict:
    beta1, beta2 = group["betas"]
    return {"beta1": beta1, "beta2": beta2, **{k: group[k] for k in names}}


class Adam(_FunctionalOptimizer):
    """Adam (Kingma & Ba), with AMSGrad, maximize and L2 or decoupled weight decay.

    Differences from PyTorch: ``foreach``/``fused``/``capturable`` are accepted and have
    no effect on the arithmetic (``step`` stays a CPU scalar tensor); ``differentiable=True``
    is not supported.
    """

    _update = staticmethod(F.adam)

    def _dense_grad(self, grad, group):
        raise RuntimeError("Adam does not support sparse gradients, please consider SparseAdam "
                           "instead")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_lr(lr)
        check_betas(betas, eps, weight_decay)
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        betas = tuple(b.squeeze() if isinstance(b, Tensor) and b.dim() else b for b in betas)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def _init_state(self, p, group):
        return F.adam_init(p._value, scalar_dtype=scalar_dtype(), amsgrad=group["amsgrad"])

    def _statics(self, group):
        return {"amsgrad": bool(group["amsgrad"]), "maximize": bool(group["maximize"]),
                "decoupled_weight_decay": bool(group["decoupled_weight_decay"])}

    def _hyper(self, group):
        return beta_hyper(group, "lr", "eps", "weight_decay")


class AdamW(Adam):
    """AdamW: Adam with decoupled weight decay (default 1e-2)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
