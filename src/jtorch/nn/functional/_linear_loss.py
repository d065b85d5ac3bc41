"""torch.nn.functional.linear_cross_entropy: cross-entropy of a linear layer's logits."""

from __future__ import annotations

import math
import warnings

import jtorch

__all__ = ["linear_cross_entropy"]


def _check(input, linear_weight, linear_bias, target, ignore_index):
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and "
                           f"{linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and input.dim() == 1:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, (N, "
                           f"{in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*input.shape[:-1], num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    return logits_shape, out_features


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...).

    Differences from PyTorch: ``options`` (the chunked path) computes the same values by the
    reference path: the full logits are materialized.
    """
    logits_shape, out_features = _check(input, linear_weight, linear_bias, target,
                                        ignore_index)
    if options is not None and (out_features or reduction not in {"mean", "sum", "none"}
                                or label_smoothing != 0.0 or target.dtype != jtorch.int64):
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
            "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
            f"out_features == (). Got reduction={reduction!r}, label_smoothing="
            f"{label_smoothing}, target.dtype={target.dtype}, out_features={out_features}, "
            "tracing=False, linear_bias.shape="
            f"{tuple(linear_bias.shape) if linear_bias is not None else None}.", stacklevel=2)
    if out_features:
        rows = math.prod(out_features, start=linear_weight.shape[0])
        linear_weight = linear_weight.reshape((rows, input.shape[-1]))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(rows)
    logits = jtorch.nn.functional.linear(input, linear_weight, linear_bias).reshape(
        logits_shape)
    return jtorch.nn.functional.cross_entropy(
        logits, target, weight=weight, reduction=reduction,
        ignore_index=-100 if ignore_index is None else ignore_index,
        label_smoothing=label_smoothing)
