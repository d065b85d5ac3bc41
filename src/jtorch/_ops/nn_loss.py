"""Loss functions: one kernel each, the reduction a static argument. They live in
``torch.nn.functional`` only (``nn/functional/_loss.py`` gives them F's signatures)."""

from __future__ import annotations

import numpy as np

from .. import _hostcheck
from .._registry import op
from ..functional import loss as L
from ..functional import loss_ctc

_F = dict(function=False, method=False)


def _by_reduction(none_name: str, mean="MeanBackward0", sum_="SumBackward0"):
    """PyTorch's composite losses end in a mean, a sum or an elementwise op."""
    return lambda s, o: {"mean": mean, "sum": sum_}.get(s.get("reduction"), none_name)


def _check_class_targets(operands, statics) -> None:
    """IndexError for class indices outside [0, C), as torch's CPU kernels raise."""
    input, target = operands["input"], operands["target"]
    if target.dtype._kind != 1 or not target.numel() or input.shape == target.shape:
        return
    if input.dim() < 1:
        return
    classes = input.shape[1] if input.dim() > 1 else input.shape[0]
    ignore = statics.get("ignore_index", -100)
    value, key = target._value, ("class_targets", classes, ignore)
    if _hostcheck.passed(value, key):
        return
    host = _hostcheck.host(value)
    if not (host.min() >= 0 and host.max() < classes):  # else every target is a class
        host = host[host != ignore]
        bad = host[(host < 0) | (host >= classes)]
        if bad.size:
            raise IndexError(f"Target {int(bad.flat[0])} is out of bounds.")
    _hostcheck.remember(value, key)


def _check_probabilities(operands, statics) -> None:
    x = np.asarray(operands["input"]._value)
    if x.size and ((x < 0) | (x > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")


def _ce_name(statics, operands) -> str:
    if operands["input"].shape == operands["target"].shape:  # class probabilities
        return {"mean": "DivBackward1", "sum": "NegBackward0"}.get(statics["reduction"],
                                                                   "NegBackward0")
    return "AddBackward0" if statics["label_smoothing"] else "NllLossBackward0"


_CLS = dict(extra={"check": _check_class_targets}, **_F)
op("nll_loss", L.nll_loss, static=("reduction", "ignore_index"), **_CLS)
op("cross_entropy", L.cross_entropy, static=("reduction", "ignore_index", "label_smoothing"),
   grad_name=_ce_name, **_CLS)
op("binary_cross_entropy", L.binary_cross_entropy, static=("reduction",),
   extra={"check": _check_probabilities}, **_F)
op("binary_cross_entropy_with_logits", L.binary_cross_entropy_with_logits,
   static=("reduction",), **_F)
op("mse_loss", L.mse_loss, static=("reduction",), **_F)
op("l1_loss", L.l1_loss, static=("reduction",), grad_name=_by_reduction("AbsBackward0"), **_F)
op("smooth_l1_loss", L.smooth_l1_loss, static=("reduction", "beta"),
   grad_name="SmoothL1LossBackward0", **_F)
op("huber_loss", L.huber_loss, static=("reduction", "delta"), **_F)
op("kl_div", L.kl_div, static=("reduction", "log_target"),
   grad_name=_by_reduction("SubBackward0"), **_F)
op("poisson_nll_loss", L.poisson_nll_loss, static=("log_input", "full", "reduction"),
   grad_name=_by_reduction("SubBackward0"), **_F)
op("gaussian_nll_loss", L.gaussian_nll_loss, static=("full", "reduction"),
   grad_name=_by_reduction("MulBackward0"), **_F)
op("cosine_embedding_loss", L.cosine_embedding_loss, static=("reduction",),
   grad_name=_by_reduction("AddBackward0"), **_F)
op("margin_ranking_loss", L.margin_ranking_loss, static=("reduction",),
   grad_name=_by_reduction("ClampMinBackward0"), **_F)
op("triplet_margin_loss", L.triplet_margin_loss, static=("p", "swap", "reduction"),
   grad_name=_by_reduction("ClampMinBackward0"), **_F)
op("hinge_embedding_loss", L.hinge_embedding_loss, static=("reduction",),
   grad_name=_by_reduction("AddBackward0"), **_F)
op("soft_margin_loss", L.soft_margin_loss, static=("reduction",), **_F)
op("multilabel_soft_margin_loss", L.multilabel_soft_margin_loss, static=("reduction",),
   grad_name=_by_reduction("DivBackward0"), **_F)
op("multi_margin_loss", L.multi_margin_loss, static=("p", "reduction"), **_F)
op("multilabel_margin_loss", L.multilabel_margin_loss, static=("reduction",), **_F)
op("ctc_loss", loss_ctc.ctc_loss, static=("blank", "reduction", "zero_infinity"),
   grad_name=_by_reduction("CtcLossBackward0", "MeanBackward0", "SumBackward0"),
   residuals=True, **_F)  # the gradient reads the forward's alignment scan: kept
