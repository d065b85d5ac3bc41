"""torch.optim.Muon."""

from __future__ import annotations

from ..eager.tensor import Tensor
from ..functional import optim as F
from .optimizer import _FunctionalOptimizer

__all__ = ["Muon"]

_ADJUST = (None, "original", "match_rms_adamw")


class Muon(_FunctionalOptimizer):
    """Muon (momentum orthogonalised by Newton-Schulz iterations) for 2-d parameters, as
    PyTorch 2.13's, with its ``momentum_buffer`` state.

    Differences from PyTorch: the bfloat16 Newton-Schulz products round like PyTorch's CPU
    kernels (float32 accumulation) but XLA may order the sums differently, so updates agree
    to bfloat16 precision rather than bit for bit.
    """

    _update = staticmethod(F.muon)

    def __init__(self, params, lr=1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True, ns_coefficients=(3.4445, -4.7750, 2.0315),
                 eps: float = 1e-7, ns_steps: int = 5, adjust_lr_fn: str | None = None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in _ADJUST:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                    "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
                    "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _init_state(self, p, group):
        if p.is_complex():
            raise RuntimeError("Muon does not support complex parameters")
        if p.grad.is_sparse:
            raise RuntimeError("Muon does not support sparse gradients")
        return {"momentum_buffer": F._zeros(p.grad._value)}

    def _statics(self, group):
        coefficients = group["ns_coefficients"]
        if len(coefficients) != 3:
            raise ValueError("Coefficients must be a tuple of exactly 3 values")
        if group["ns_steps"] >= 100:
            raise ValueError("Number of steps must be less than 100 for computational "
                             "efficiency")
        return {"nesterov": bool(group["nesterov"]), "ns_steps": int(group["ns_steps"]),
                "adjust_lr_fn": group["adjust_lr_fn"]}

    def _hyper(self, group):
        a, b, c = group["ns_coefficients"]
        return {"lr": group["lr"], "weight_decay": group["weight_decay"],
                "momentum": group["momentum"], "a": a, "b": b, "c": c, "eps": group["eps"]}
