"""Gradient clipping: clip_grad_norm_, clip_grad_value_, get_total_norm."""

from __future__ import annotations

import functools
import types
import warnings

import jax.numpy as jnp

from ... import _kernels
from ..._device import PLACEMENT
from ...eager import hooks
from ...eager.autograd.grad_mode import no_grad
from ...eager.tensor import Tensor, wrap
from ...eager.views import write
from ...functional import linalg as L

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]


def _no_grad(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)

    return wrapper


@_no_grad
def _get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """The ``norm_type`` norm of the norms of ``tensors`` (one vector of all their values).

    ``foreach`` is accepted for compatibility; every path runs the same kernels here.
    """
    import jtorch

    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return jtorch.tensor(0.0)
    norms = [jtorch.linalg.vector_norm(g, norm_type) for g in tensors]
    total_norm = jtorch.linalg.vector_norm(jtorch.stack(norms), norm_type)
    if error_if_nonfinite and bool(total_norm.isnan() | total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def _clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor,
                           foreach=None) -> None:
    """Scale the gradients by ``min(1, max_norm / (total_norm + 1e-6))``."""
    import jtorch

    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return
    coef = jtorch.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
    for g in grads:
        g.mul_(coef)


@_no_grad
def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Clip the gradients' total norm to ``max_norm`` in place; returns the total norm."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    if _fusable(grads):
        return _clip_fused(grads, float(max_norm), float(norm_type), error_if_nonfinite)
    total_norm = _get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Deprecated alias of ``clip_grad_norm_``."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def _fusable(grads) -> bool:
    """Plain gradients of one floating dtype: clipped by one kernel (``_clip_fused``)."""
    if not grads or hooks.RECORDER is not None or PLACEMENT.active:
        return False
    dtype = grads[0].dtype
    return all(type(g) is Tensor and g.dtype is dtype and not g._chain and not g.is_sparse
               and g._grad_fn is None and not g._requires_grad for g in grads) and (
        dtype.is_floating_point)


def _clip_kernel(gs, max_norm, norm_type):
    """``clip_grad_norm_``'s arithmetic over every gradient at once: the total norm,
    ``min(1, max_norm / (total + 1e-6))`` and the scaled gradients.

    PyTorch takes the norm of the per-tensor norms; that equals the norm of all elements
    together, which is one reduction instead of one per gradient (a GPT's 52 gradients:
    the kernel compiled in 0.67-0.75 s that way, 0.23-0.26 s this way, on the first step's
    critical path); the two agree within float rounding. Not for the 0 "norm", where the
    norm of the norms counts the nonzero gradients, not the nonzero elements, nor with an
    empty gradient, whose errors (no identity for the inf norm) stay PyTorch's."""
    if norm_type != 0 and all(g.size for g in gs):
        total = L.vector_norm(jnp.concatenate([g.reshape(-1) for g in gs]), norm_type)
    else:
        total = L.vector_norm(jnp.stack([L.vector_norm(g, norm_type) for g in gs]), norm_type)
    coef = jnp.minimum(max_norm / (total + 1e-6), 1.0)
    return total, [g * coef for g in gs]


_CLIP: dict = {}


def _clip_fused(grads, max_norm: float, norm_type: float, error_if_nonfinite: bool):
    """One kernel per gradient list's shapes instead of a norm per gradient, a stack, the
    coefficient and a multiplication per gradient: fewer programs to compile (one per
    model, not one per parameter shape) and one dispatch a step. Many gradients compile
    faster with XLA's fusion emitters (a GPT's 52: 0.34 -> 0.21 s of CPU time; see
    ``_kernels.MANY``)."""
    many = len(grads) >= _kernels.MANY
    kernel = _CLIP.get((norm_type, many))
    if kernel is None:
        kernel = _CLIP[(norm_type, many)] = _kernels.jit(
            functools.partial(_clip_kernel, norm_type=norm_type), xla_defaults=many,
            name=("clip_grad_norm", norm_type, many))
    total, scaled = kernel([g._value for g in grads], max_norm)
    total = wrap(total)
    if error_if_nonfinite and not bool(jnp.isfinite(total._value)):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`")
    for g, v in zip(grads, scaled, strict=True):
        write(g, v)
    return total


@_no_grad
def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient to ``[-clip_value, clip_value]`` in place."""

    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    for p in parameters:
        g = p.grad
        if g is not None:
            g.clamp_(min=-clip_value, max=clip_value)
