"""torch.nn.functional's random functions: ``dropout``, ``dropout1d/2d/3d``,
``alpha_dropout`` and ``feature_alpha_dropout`` over the torch-level kernels of
``_api/nn_random.py``, and ``gumbel_softmax``.

Differences from PyTorch: the random streams differ (same distributions and scaling).
"""

from __future__ import annotations

import warnings

import jtorch

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout", "gumbel_softmax"]


def _check_p(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero each element with probability ``p``; scale the rest by 1 / (1 - p)."""
    _check_p(p)
    return (jtorch.dropout_ if inplace else jtorch.dropout)(input, p, training)


def alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    """Dropout that keeps the self-normalizing mean and variance of SELU activations."""
    _check_p(p)
    return (jtorch.alpha_dropout_ if inplace else jtorch.alpha_dropout)(input, p, training)


def feature_alpha_dropout(input, p: float = 0.5, training: bool = False,
                          inplace: bool = False):
    _check_p(p)
    fn = jtorch.feature_alpha_dropout_ if inplace else jtorch.feature_alpha_dropout
    return fn(input, p, training)


def _feature(input, p, training, inplace, batched: int):
    """Channel-wise dropout of a (N, C, ...) input of ``batched`` dims, or an unbatched one."""
    unbatched = input.dim() == batched - 1
    if unbatched:
        input = input.unsqueeze(0)
    fn = jtorch.feature_dropout_ if inplace else jtorch.feature_dropout
    out = fn(input, p, training)
    return out.squeeze(0) if unbatched else out


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout "
                           "on inputs with 1 spatial dimension, a channel dimension, and an "
                           "optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature(input, p, training, inplace, 3)


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    _check_p(p)
    nd = input.dim()
    if nd not in (3, 4):
        warnings.warn(f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated "
                      "and will result in an error in a future release. To retain the "
                      "behavior and silence this warning, please use dropout instead. Note "
                      "that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch "
                      "dimension (i.e. 3D or 4D inputs).", UserWarning, stacklevel=2)
    if nd == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. This behavior will change "
                      "in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.",
                      UserWarning, stacklevel=2)
    fn = jtorch.feature_dropout_ if inplace else jtorch.feature_dropout
    return fn(input, p, training)


def dropout3d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    _check_p(p)
    nd = input.dim()
    if nd not in (4, 5):
        warnings.warn(f"dropout3d: Received a {nd}-D input to dropout3d, which is deprecated "
                      "and will result in an error in a future release. To retain the "
                      "behavior and silence this warning, please use dropout instead. Note "
                      "that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch "
                      "dimension (i.e. 4D or 5D inputs).", UserWarning, stacklevel=2)
    if nd != 5:
        return _feature(input, p, training, inplace, nd + 1)
    fn = jtorch.feature_dropout_ if inplace else jtorch.feature_dropout
    return fn(input, p, training)


def gumbel_softmax(logits, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1):
    """Softmax of (logits + Gumbel noise) / tau; ``hard`` returns one-hot samples whose
    gradient is the soft sample's (straight-through), as PyTorch's composition."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -jtorch.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = jtorch.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
