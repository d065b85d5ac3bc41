"""torch.nn.functional losses: F's signatures (legacy ``size_average``/``reduce`` mapped to
``reduction``, as torch does) over the loss kernels of ``_ops/nn_loss.py``."""

from __future__ import annotations

import warnings

import numpy as np

import jtorch
from jtorch.eager.bind import bound

__all__ = [
    "cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "cosine_embedding_loss",
    "margin_ranking_loss", "triplet_margin_loss", "poisson_nll_loss", "gaussian_nll_loss",
    "multilabel_soft_margin_loss", "hinge_embedding_loss", "soft_margin_loss",
    "multi_margin_loss", "multilabel_margin_loss", "ctc_loss",
    "triplet_margin_with_distance_loss",
]


def legacy_reduction(size_average, reduce, reduction: str) -> str:
    """torch's ``_Reduction.legacy_get_string`` when either legacy flag is given."""
    if size_average is None and reduce is None:
        return _valid(reduction)
    warnings.warn("size_average and reduce args will be deprecated, please use "
                  "reduction='{}' instead.", UserWarning, stacklevel=3)
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


def _valid(reduction: str) -> str:
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _size_warning(input, target) -> None:
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input "
                      f"size ({input.size()}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=3)


def _weight_size(weight, input) -> None:
    if weight is not None and weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100,
                  reduce=None, reduction: str = "mean", label_smoothing: float = 0.0):
    """log_softmax over the class dim (1, or 0 for unbatched input) followed by nll_loss;
    ``target`` holds class indices or, shaped like ``input``, class probabilities."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    return bound("cross_entropy")(input, target, weight, reduction, ignore_index,
                                  float(label_smoothing))


def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    return bound("nll_loss")(input, target, weight, reduction, ignore_index)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction: str = "mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the "
                         f"input size ({input.size()}) is deprecated. Please ensure they have "
                         "the same size.")
    if weight is not None:
        weight = weight.expand(jtorch.broadcast_shapes(target.shape, weight.shape))
    return bound("binary_cross_entropy")(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction: str = "mean", pos_weight=None):
    reduction = legacy_reduction(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    return bound("binary_cross_entropy_with_logits")(input, target, weight, pos_weight,
                                                     reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
             weight=None):
    _size_warning(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _weight_size(weight, input)
    return bound("mse_loss")(input, target, reduction, weight)


def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
            weight=None):
    _size_warning(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _weight_size(weight, input)
    return bound("l1_loss")(input, target, reduction, weight)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0):
    _size_warning(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    return bound("smooth_l1_loss")(input, target, reduction, float(beta))


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight=None):
    _size_warning(input, target)
    _weight_size(weight, input)
    return bound("huber_loss")(input, target, _valid(reduction), float(delta), weight)


def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False):
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns "
                      "with the KL div math definition.'mean' will be changed to behave the "
                      "same as 'batchmean' in the next major release.", UserWarning,
                      stacklevel=2)
    elif reduction != "batchmean":
        _valid(reduction)
    return bound("kl_div")(input, target, reduction, log_target)


def cosine_embedding_loss(input1, input2, target, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    return bound("cosine_embedding_loss")(input1, input2, target, margin, reduction)


def margin_ranking_loss(input1, input2, target, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    return bound("margin_ranking_loss")(input1, input2, target, margin, reduction)


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    return bound("triplet_margin_loss")(anchor, positive, negative, margin, float(p), eps,
                                        swap, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean"):
    """A composition, as in torch: any distance function of two tensors."""
    _valid(reduction)
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater "
                         f"than 0, got {margin} instead")
    dist = distance_function if distance_function is not None else jtorch.pairwise_distance
    d_pos, d_neg = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_neg = jtorch.minimum(d_neg, dist(positive, negative))
    loss = jtorch.nn.functional.relu(d_pos - d_neg + margin)
    return {"mean": loss.mean, "sum": loss.sum}.get(reduction, lambda: loss)()


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None,
                     reduction: str = "mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    return bound("poisson_nll_loss")(input, target, log_input, full, eps, reduction)


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean"):
    if isinstance(var, float | int):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = jtorch.full(tuple(input.shape), float(var), dtype=input.dtype)
    elif (np.asarray(var._value) < 0).any():
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim() and sum(
                y for x, y in zip(input.size(), var.size()) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return bound("gaussian_nll_loss")(input, target, var, full, eps, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction: str = "mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    return bound("multilabel_soft_margin_loss")(input, target, weight, reduction)


def hinge_embedding_loss(input, target, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    return bound("hinge_embedding_loss")(input, target, margin, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    return bound("soft_margin_loss")(input, target, reduction)


def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight=None,
                      size_average=None, reduce=None, reduction: str = "mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return bound("multi_margin_loss")(input, target, int(p), margin, weight, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None,
                           reduction: str = "mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    return bound("multilabel_margin_loss")(input, target, reduction)


def _lengths(x):
    if isinstance(x, jtorch.Tensor):
        return x.to(jtorch.int64)
    return jtorch.tensor(list(x) if not isinstance(x, int) else x, dtype=jtorch.int64)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False):
    """Connectionist temporal classification loss of (T, N, C) (or unbatched (T, C))
    ``log_probs``; ``targets`` padded (N, S) or concatenated 1-D."""
    _valid(reduction)
    il, tl = _lengths(input_lengths), _lengths(target_lengths)
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs, il, tl = log_probs.unsqueeze(1), il.reshape(1), tl.reshape(1)
        targets = targets.reshape(1, -1) if targets.dim() <= 1 else targets
    host_tl = np.asarray(tl._value)
    if targets.dim() == 1:  # concatenated: pad on the host (indices are not differentiable)
        flat, width = np.asarray(targets._value), int(host_tl.max(initial=0))
        padded = np.full((len(host_tl), max(width, 1)), blank, dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(host_tl)[:-1]])
        for n, (s, k) in enumerate(zip(starts, host_tl)):
            padded[n, :k] = flat[s:s + k]
        targets = jtorch.tensor(padded)
    if (np.asarray(il._value) > log_probs.shape[0]).any():
        raise RuntimeError(f"Expected input_lengths to have value at most {log_probs.shape[0]}")
    out = bound("ctc_loss")(log_probs, targets, il, tl, blank, reduction, zero_infinity)
    return out.squeeze(0) if unbatched and reduction == "none" else out
