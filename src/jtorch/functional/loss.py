"""Loss functions with torch's reductions, weights, ignore_index and gradient conventions.

``reduction`` is "none", "mean" or "sum" (the F wrappers map the legacy ``size_average`` /
``reduce`` flags and reject other strings). Clamps written with ``jnp.where(v >= 0, ...)``
pass the gradient at the boundary, as torch's ``clamp_min`` backward does; hinge terms
written ``z > 0`` give none there, as the native margin losses do.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from .. import _dtypes as D
from ._util import broadcast_shapes, dtype_of, not_implemented, result_type
from .activation import log_softmax
from .nn_basic import pairwise_distance

__all__ = [
    "nll_loss", "cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "cosine_embedding_loss",
    "margin_ranking_loss", "triplet_margin_loss", "poisson_nll_loss", "gaussian_nll_loss",
    "multilabel_soft_margin_loss", "hinge_embedding_loss", "soft_margin_loss",
    "multi_margin_loss", "multilabel_margin_loss",
]


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    return jnp.sum(loss) if reduction == "sum" else jnp.mean(loss)


def _weighted_mean(loss, weight, reduction):
    """The weighted form of mse/l1 in torch 2.13: mean divides by the sum of the weights."""
    loss = loss * weight
    if reduction == "mean":
        return jnp.sum(loss) / jnp.sum(weight)
    return _reduce(loss, reduction)


def _clamp0(v):
    return jnp.where(v >= 0, v, jnp.zeros((), v.dtype))


def _abs(x):
    # sign(0) = 0: torch's gradient of |x| (and of l1_loss) at 0.
    return x * jax.lax.stop_gradient(jnp.sign(x))


def _promoted(input, target):
    d = result_type(input, target)
    shape = broadcast_shapes(input.shape, target.shape)
    return (jnp.broadcast_to(input.astype(d.np), shape),
            jnp.broadcast_to(target.astype(d.np), shape))


# ------------------------------------------------------------------ classification


def _check_class_target(input, target, op="nll_loss"):
    d = dtype_of(target)
    if d not in (D.int64, D.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{D.legacy_name(d)}")
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and target.ndim >= 1 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")
    if input.ndim <= 2:
        if target.ndim > 1 or (input.ndim == 1 and target.ndim != 0):
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif target.shape != input.shape[:1] + input.shape[2:]:
        want = list(input.shape[:1] + input.shape[2:])
        raise RuntimeError(f"Expected target size {want}, got {list(target.shape)}")


def _check_weight(weight, classes):
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != classes):
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes "
                           f"or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")


def _nll(logp, target, weight, ignore_index, reduction):
    axis = 1 if logp.ndim > 1 else 0
    valid = target != ignore_index
    safe = jnp.where(valid, target, 0).astype(jnp.int64)
    picked = jnp.squeeze(jnp.take_along_axis(logp, jnp.expand_dims(safe, axis), axis), axis)
    w = jnp.ones((), logp.dtype) if weight is None else weight.astype(logp.dtype)[safe]
    w = jnp.where(valid, w, jnp.zeros((), logp.dtype))
    loss = -(w * picked)
    if reduction == "mean":
        return jnp.sum(loss) / jnp.sum(jnp.broadcast_to(w, loss.shape))
    return _reduce(loss, reduction)


def nll_loss(input, target, weight=None, reduction="mean", ignore_index=-100):
    _check_class_target(input, target)
    _check_weight(weight, input.shape[1] if input.ndim > 1 else input.shape[0])
    return _nll(input, target, weight, ignore_index, reduction)


def cross_entropy(input, target, weight=None, reduction="mean", ignore_index=-100,
                  label_smoothing=0.0):
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing}")
    if dtype_of(input)._kind != 2:
        raise not_implemented("log_softmax_lastdim_kernel_impl", dtype_of(input))
    axis = 1 if input.ndim > 1 else 0
    classes = input.shape[axis] if input.ndim else 1
    _check_weight(weight, classes)
    logp = log_softmax(input, axis)
    if input.shape == target.shape:
        return _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, axis)
    _check_class_target(input, target)
    loss = _nll(logp, target, weight, ignore_index, reduction)
    if label_smoothing == 0:
        return loss
    wshape = (1, -1) + (1,) * (input.ndim - 2) if axis else (-1,)
    wl = logp if weight is None else logp * weight.astype(logp.dtype).reshape(wshape)
    valid = target != ignore_index
    smooth = jnp.where(valid, -jnp.sum(wl, axis=axis), jnp.zeros((), logp.dtype))
    if reduction == "mean":
        if weight is None:
            denom = jnp.sum(valid).astype(logp.dtype)
        else:
            safe = jnp.where(valid, target, 0).astype(jnp.int64)
            denom = jnp.sum(jnp.where(valid, weight.astype(logp.dtype)[safe], 0))
        smooth = jnp.sum(smooth) / denom
    else:
        smooth = _reduce(smooth, reduction)
    return (1 - label_smoothing) * loss + smooth * (label_smoothing / classes)


def _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, axis):
    if dtype_of(target)._kind != 2:
        raise RuntimeError(f"Expected floating point type for target with class "
                           f"probabilities, got {D.legacy_name(dtype_of(target))}")
    classes = logp.shape[axis]
    target = target.astype(logp.dtype)
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    prod = logp * target
    if weight is not None:
        wshape = (1, -1) + (1,) * (logp.ndim - 2) if axis else (-1,)
        prod = prod * weight.astype(logp.dtype).reshape(wshape)
    if reduction == "mean":
        return -jnp.sum(prod) / (logp.size // classes)
    return _reduce(-jnp.sum(prod, axis=axis), reduction)


@jax.custom_vjp
def _bce(x, t):
    log_x = jnp.maximum(jnp.log(x), -100)
    log_1mx = jnp.maximum(jnp.log1p(-x), -100)
    return -(t * log_x + (1 - t) * log_1mx)


def _bce_fwd(x, t):
    return _bce(x, t), (x, t)


def _bce_bwd(res, g):
    # torch's binary_cross_entropy_backward: (x - t) / max(x (1 - x), 1e-12), which stays
    # finite at x = 0 and x = 1 where the clamped logs' own derivative would not.
    x, t = res
    eps = jnp.asarray(1e-12, x.dtype)
    gx = g * (x - t) / jnp.maximum((1 - x) * x, eps)
    gt = -g * (jnp.log(x) - jnp.log1p(-x))
    return gx, gt


_bce.defvjp(_bce_fwd, _bce_bwd)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """Differences from PyTorch: ``weight`` gets no gradient (torch raises for one)."""
    if target.shape != input.shape:
        raise ValueError(f"Using a target size (torch.Size({list(target.shape)})) that is "
                         f"different to the input size (torch.Size({list(input.shape)})) is "
                         "deprecated. Please ensure they have the same size.")
    x, t = _promoted(input, target)
    loss = _bce(x, t)
    if weight is not None:
        loss = loss * jax.lax.stop_gradient(weight.astype(loss.dtype))
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction="mean"):
    if target.shape != input.shape:
        raise ValueError(f"Target size (torch.Size({list(target.shape)})) must be the same as "
                         f"input size (torch.Size({list(input.shape)}))")
    x, t = _promoted(input, target)
    log_sig = jax.nn.log_sigmoid(x)
    if pos_weight is not None:
        log_weight = (pos_weight.astype(x.dtype) - 1) * t + 1
        loss = (1 - t) * x - log_weight * log_sig
    else:
        loss = (1 - t) * x - log_sig
    if weight is not None:
        loss = loss * weight.astype(x.dtype)
    return _reduce(loss, reduction)


# ------------------------------------------------------------------ regression


def mse_loss(input, target, reduction="mean", weight=None):
    x, t = _promoted(input, target)
    loss = (x - t) ** 2
    return _reduce(loss, reduction) if weight is None else _weighted_mean(loss, weight,
                                                                          reduction)


def l1_loss(input, target, reduction="mean", weight=None):
    x, t = _promoted(input, target)
    loss = _abs(x - t)
    return _reduce(loss, reduction) if weight is None else _weighted_mean(loss, weight,
                                                                          reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    x, t = _promoted(input, target)
    d = _abs(x - t)
    if beta == 0:
        return _reduce(d, reduction)
    loss = jnp.where(d < beta, 0.5 * (x - t) ** 2 / beta, d - 0.5 * beta)
    return _reduce(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    x, t = _promoted(input, target)
    d = _abs(x - t)
    loss = jnp.where(d < delta, 0.5 * (x - t) ** 2, delta * (d - 0.5 * delta))
    if weight is None:
        return _reduce(loss, reduction)
    loss = loss * weight
    return jnp.mean(loss) if reduction == "mean" else _reduce(loss, reduction)


def kl_div(input, target, reduction="mean", log_target=False):
    """``reduction="batchmean"`` divides the sum by the batch size."""
    x, t = _promoted(input, target)
    if log_target:
        loss = jnp.exp(t) * (t - x)
    else:
        loss = jax.scipy.special.xlogy(t, t) - t * x
    if reduction == "batchmean":
        return jnp.sum(loss) / (input.shape[0] if input.ndim else 1)
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-8, reduction="mean"):
    x, t = _promoted(input, target)
    if log_input:
        loss = jnp.exp(x) - t * x
    else:
        loss = x - t * jnp.log(x + eps)
    if full:
        safe = jnp.where(t > 1, t, 1)
        stirling = safe * jnp.log(safe) - safe + 0.5 * jnp.log(2 * math.pi * safe)
        loss = loss + jnp.where(t > 1, stirling, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """``var`` arrives shaped to broadcast (see F.gaussian_nll_loss); its clamp by ``eps``
    is not differentiated, as torch clamps it in place under no_grad."""
    var = var + jax.lax.stop_gradient(jnp.maximum(var, eps) - var)
    loss = 0.5 * (jnp.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# ------------------------------------------------------------------ margins and embeddings


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    tdim = target.ndim
    if tdim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if (input1.ndim, input2.ndim) != ((2, 2) if tdim == 1 else (1, 1)):
        raise RuntimeError(f"{tdim}D target tensor expects {tdim + 1}D input tensors, but "
                           f"found inputs with sizes {list(input1.shape)} and "
                           f"{list(input2.shape)}.")
    prod = jnp.sum(input1 * input2, axis=tdim)
    mag1 = jnp.sum(input1 * input1, axis=tdim) + 1e-12
    mag2 = jnp.sum(input2 * input2, axis=tdim) + 1e-12
    cos = prod / jnp.sqrt(mag1 * mag2)
    zeros = jnp.zeros_like(cos)
    out = jnp.where(target == 1, 1 - cos, zeros) + jnp.where(target == -1,
                                                             _clamp0(cos - margin), zeros)
    return _reduce(out, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same "
                           f"dimension but got sizes: input1: {list(input1.shape)}, input2: "
                           f"{list(input2.shape)}, target: {list(target.shape)} ")
    return _reduce(_clamp0(-target * (input1 - input2) + margin), reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                        reduction="mean"):
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {anchor.ndim}D, "
                           f"positive {positive.ndim}D, and negative {negative.ndim}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = jnp.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(_clamp0(margin + d_pos - d_neg), reduction)


def hinge_embedding_loss(input, target, margin=1.0, reduction="mean"):
    zeros = jnp.zeros((), result_type(input, target).np)
    out = jnp.where(target != 1, _clamp0(margin - input), zeros) + jnp.where(
        target != -1, input, zeros)
    return _reduce(out, reduction)


def soft_margin_loss(input, target, reduction="mean"):
    x, t = _promoted(input, target)
    return _reduce(jnp.log1p(jnp.exp(-t * x)), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    x, t = _promoted(input, target)
    loss = -(t * jax.nn.log_sigmoid(x) + (1 - t) * jax.nn.log_sigmoid(-x))
    if weight is not None:
        loss = loss * weight
    loss = jnp.sum(loss, axis=-1) / x.shape[-1]
    return _reduce(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, reduction="mean"):
    if input.ndim > 2 or (input.ndim == 2 and target.shape != input.shape[:1]) or (
            input.ndim < 2 and target.size != 1):
        n = input.shape[0] if input.ndim == 2 else 1
        raise RuntimeError(f"inconsistent target size, expected {n} but got "
                           f"{list(target.shape)}")
    x = input.reshape(-1, input.shape[-1] if input.ndim else 1)
    y = target.reshape(-1).astype(jnp.int64)
    classes = x.shape[1]
    x_y = jnp.take_along_axis(x, y[:, None], 1)
    z = margin - x_y + x
    h = jnp.where(z > 0, z if p == 1 else z * z, jnp.zeros((), x.dtype))
    if weight is not None:
        h = h * weight.astype(x.dtype)[y][:, None]
    h = jnp.where(jnp.arange(classes)[None, :] == y[:, None], jnp.zeros((), x.dtype), h)
    loss = jnp.sum(h, axis=1) / classes
    if input.ndim < 2 and reduction == "none":
        loss = loss.reshape(target.shape if input.ndim == 1 else ())
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, reduction="mean"):
    if target.shape != input.shape:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of "
                           f"size: {list(input.shape)}")
    x = input.reshape(-1, input.shape[-1] if input.ndim else 1)
    t = target.reshape(x.shape).astype(jnp.int64)
    classes = x.shape[1]
    slot_ok = jnp.cumprod(t >= 0, axis=1).astype(bool)  # targets end at the first -1
    safe = jnp.where(slot_ok, t, 0)
    is_target = jnp.any(slot_ok[:, :, None] & (safe[:, :, None] == jnp.arange(classes)),
                        axis=1)
    x_t = jnp.take_along_axis(x, safe, 1)  # (N, slots)
    z = 1 - x_t[:, :, None] + x[:, None, :]  # (N, slots, classes)
    keep = slot_ok[:, :, None] & ~is_target[:, None, :] & (z > 0)
    loss = jnp.sum(jnp.where(keep, z, jnp.zeros((), x.dtype)), axis=(1, 2)) / classes
    if reduction == "none" and input.ndim < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)
