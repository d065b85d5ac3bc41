"""Modules PyTorch keeps for old code: ``Container`` and ``NLLLoss2d`` (deprecated) and
``CrossMapLRN2d`` (Lua Torch's cross-channel LRN, with its own window and gradient)."""

from __future__ import annotations

import warnings

import numpy as np

import jtorch

from ...autograd import Function
from .loss import NLLLoss
from .module import Module

__all__ = ["Container", "CrossMapLRN2d", "NLLLoss2d"]


class Container(Module):
    """Deprecated: a Module holding the given submodules."""

    def __init__(self, **kwargs) -> None:
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now "
                      "implemented in `nn.Module`. Subclass that instead.", FutureWarning,
                      stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


class NLLLoss2d(NLLLoss):
    """Deprecated alias of NLLLoss."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement and see https://pytorch.org/docs/main/nn.html"
                      "#torch.nn.NLLLoss for more details.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


def _windows(channels: int, size: int):
    """0/1 matrices of PyTorch's legacy CrossMapLRN2d: the channels each scale sums in the
    forward (its running sum never drops channel 0) and each gradient gathers."""
    pre_pad = int((size - 1) / 2 + 1)
    c = np.arange(channels)[:, None]
    j = np.arange(channels)[None, :]
    fwd = (j <= np.minimum(c + pre_pad - 1, channels - 1)) & (
        (j == 0) | (j >= np.maximum(1, c - pre_pad + 1)))
    inverse_pre_pad = int(size - (size - 1) / 2)
    bwd = (j >= c - inverse_pre_pad) & (j <= c + size - 1 - inverse_pre_pad)
    return fwd.astype(np.float64), bwd.astype(np.float64)


class _CrossMapLRN2d(Function):
    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        fwd, bwd = (jtorch.tensor(m, dtype=input.dtype) for m in _windows(input.size(1), size))
        scale = jtorch.einsum("cj,njhw->nchw", fwd, input * input) * (alpha / size) + k
        output = scale.pow(-beta) * input
        ctx.save_for_backward(input, output)
        ctx.scale, ctx.bwd, ctx.ratio, ctx.beta = scale, bwd, 2 * alpha * beta / size, beta
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output = ctx.saved_tensors
        accum = jtorch.einsum("cj,njhw->nchw", ctx.bwd, grad_output * output / ctx.scale)
        grad = ctx.scale.pow(-ctx.beta) * grad_output - ctx.ratio * input * accum
        return grad, None, None, None, None


_CrossMapLRN2d.__name__ = "CrossMapLRN2d"  # its grad_fn is CrossMapLRN2dBackward, as torch's


class CrossMapLRN2d(Module):
    """Local response normalization across channels, as Lua Torch computed it."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return _CrossMapLRN2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
