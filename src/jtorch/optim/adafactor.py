"""torch.optim.Adafactor."""

from __future__ import annotations

from ..eager.tensor import Tensor
from ..functional import optim as F
from .optimizer import _FunctionalOptimizer, scalar_dtype

__all__ = ["Adafactor"]


class Adafactor(_FunctionalOptimizer):
    """Adafactor (Shazeer & Stern, 2018) as PyTorch 2.13's, with the same state layout
    (``step``; ``row_var``/``col_var`` for matrices, ``variance`` for vectors).

    Differences from PyTorch: ``foreach`` is accepted and has no effect on the arithmetic
    (PyTorch's CPU default is the single-tensor path, which this follows).
    """

    _update = staticmethod(F.adafactor)

    def __init__(self, params, lr=1e-2, beta2_decay: float = -0.8, eps=(None, 1e-3),
                 d: float = 1.0, weight_decay: float = 0.0, *, foreach=None,
                 maximize: bool = False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        if p.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        if p.grad.is_sparse:
            raise RuntimeError("Adafactor does not support sparse gradients")
        return F.adafactor_init(p._value, scalar_dtype=scalar_dtype())

    def _statics(self, group):
        return {"maximize": bool(group["maximize"]), "eps1_default": group["eps"][0] is None}

    def _hyper(self, group):
        eps1, eps2 = group["eps"]
        return {"lr": group["lr"], "beta2_decay": group["beta2_decay"],
                "eps1": 0.0 if eps1 is None else eps1, "eps2": eps2, "d": group["d"],
                "weight_decay": group["weight_decay"]}
