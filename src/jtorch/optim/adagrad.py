"""torch.optim.Adagrad."""

from __future__ import annotations

from ..functional import optim as F
from .optimizer import _check_lr, _FunctionalOptimizer, _state_tensor, scalar_dtype

__all__ = ["Adagrad"]


class Adagrad(_FunctionalOptimizer):
    """Adagrad; like PyTorch, its state exists from construction (``step`` 0, ``sum``
    filled with ``initial_accumulator_value``).

    Differences from PyTorch: ``foreach``/``fused`` have no effect; ``differentiable=True``
    is not supported.
    """

    _update = staticmethod(F.adagrad)

    def _dense_grad(self, grad, group):
        """Sparse gradients update densely: rows without a gradient keep their sum and
        parameter, as in PyTorch's sparse update."""
        if group["weight_decay"] != 0:
            raise RuntimeError("weight_decay option is not compatible with sparse gradients")
        return grad.to_dense()._value

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for p in group["params"]:
                init = self._init_state(p, group)
                self.state[p] = {k: _state_tensor(v, p) for k, v in init.items()}

    def _init_state(self, p, group):
        # PyTorch fills from the optimizer's defaults, not the group's option.
        return F.adagrad_init(p._value, scalar_dtype=scalar_dtype(),
                              initial_accumulator_value=self.defaults["initial_accumulator_value"])

    def share_memory(self) -> None:
        """Move every accumulator (``state["sum"]``) to shared memory, as PyTorch's."""
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    def _statics(self, group):
        return {"maximize": bool(group["maximize"])}

    def _hyper(self, group):
        return {k: group[k] for k in ("lr", "lr_decay", "weight_decay", "eps")}
