"""torch.distributions.utils: parameter broadcasting, probs/logits conversion, lazy properties."""

from __future__ import annotations

from functools import update_wrapper

import jax.numpy as jnp

import jtorch

from ..eager.tensor import Size, Tensor
from ..functional.distributions import _common as FC
from ._kernel import call

euler_constant = FC.EULER

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]

_NUMBER = (int, float, bool)


def broadcast_all(*values):
    """Broadcast tensors and Python numbers together; numbers become tensors of the first
    tensor's dtype and device (the default dtype when there is no tensor)."""
    if not all(isinstance(v, (Tensor, *_NUMBER)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or "
                         "objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        options = dict(dtype=jtorch.get_default_dtype())
        for v in values:
            if isinstance(v, Tensor):
                options = dict(dtype=v.dtype, device=v.device)
                break
        values = [v if isinstance(v, Tensor) else jtorch.tensor(v, **options) for v in values]
    return jtorch.broadcast_tensors(*values)


def _sum_rightmost(value, dim: int):
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def _standard_normal(shape, dtype, device):
    return jtorch.randn(shape, dtype=dtype, device=device)


def logits_to_probs(logits, is_binary: bool = False):
    return call(FC.logits_to_probs, logits, is_binary=is_binary)


def clamp_probs(probs):
    return call(FC.clamp_probs, probs)


def probs_to_logits(probs, is_binary: bool = False):
    return call(FC.probs_to_logits, probs, is_binary=is_binary)


class lazy_property:
    """A property computed once per instance, with grad enabled, then cached on it."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with jtorch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag: int = 0):
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return call(FC.tril_to_vec, mat, diag=diag)


def vec_to_tril_matrix(vec, diag: int = 0):
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1]
                            + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = jnp.finfo(vec.dtype.np).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    return call(FC.vec_to_tril, vec, n=round(n), diag=diag)


def _size(shape) -> Size:
    return shape if isinstance(shape, Size) else Size(shape)



def _all_numbers(*values) -> bool:
    return all(isinstance(v, _NUMBER) for v in values)
