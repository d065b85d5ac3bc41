"""torch.optim.SparseAdam: Adam for sparse gradients (e.g. ``Embedding(sparse=True)``)."""

from __future__ import annotations

from .. import _kernels
from ..eager.tensor import Tensor
from ..eager.views import write
from ..functional import optim as F
from .optimizer import _FunctionalOptimizer, _operand

__all__ = ["SparseAdam"]

_KERNEL = _kernels.jit(F.sparse_adam, full_opt=True)


class SparseAdam(_FunctionalOptimizer):
    """Lazy Adam: only the moments and parameter rows a sparse gradient touches move.

    The state layout is PyTorch's: ``step`` (a Python int), ``exp_avg``, ``exp_avg_sq``.
    ``step()`` is the functional optimizers' (closure, no_grad); the group update is this
    class's own, as its gradients are sparse.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        for kind, bad in (("Sparse", lambda p: p.is_sparse), ("Complex", Tensor.is_complex)):
            where = [[i, j] for i, g in enumerate(self.param_groups)
                     for j, p in enumerate(g["params"]) if bad(p)]
            if where:
                need = ("SparseAdam requires dense parameter tensors" if kind == "Sparse"
                        else "SparseAdam does not support complex parameters")
                raise ValueError(f"{kind} params at indices {where}: {need}")

    def _step_group(self, group) -> None:
        beta1, beta2 = group["betas"]
        for p in group["params"]:
            if p.grad is None:
                continue
            if not p.grad.is_sparse:
                raise RuntimeError("SparseAdam does not support dense gradients, please "
                                   "consider Adam instead")
            state = self.state[p]
            if not state:
                state["step"] = 0
                state["exp_avg"] = p.detach().new_zeros(p.shape)
                state["exp_avg_sq"] = p.detach().new_zeros(p.shape)
            state["step"] += 1
            grad = (-p.grad if group["maximize"] else p.grad).coalesce()
            values = grad._values()
            if values.numel() == 0:
                continue
            new = _KERNEL(p._value, grad._indices()._value, values._value,
                          state["exp_avg"]._value, state["exp_avg_sq"]._value,
                          float(state["step"]), lr=_operand(group["lr"]), beta1=float(beta1),
                          beta2=float(beta2), eps=float(group["eps"]))
            for t, v in zip((p, state["exp_avg"], state["exp_avg_sq"]), new, strict=True):
                write(t, v)
