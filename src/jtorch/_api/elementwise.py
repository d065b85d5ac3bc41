"""Pointwise functions that are not registry ops: ``positive`` (returns its input itself),
``allclose`` and ``equal`` (Python bools), ``resolve_neg`` and ``is_neg`` (jtorch has no
negative views).

Tensor methods set here: ``positive``, ``__pos__``, ``allclose``, ``equal``,
``resolve_neg``, ``is_neg``, and ``float_power_`` (the generated in-place op behind
PyTorch's dtype check).
"""

from __future__ import annotations

import jax.numpy as jnp

from .. import _dtypes as D
from ..eager.bind import bound
from ..eager.tensor import Tensor

__all__ = ["positive", "allclose", "equal", "resolve_neg", "is_neg"]


def _require_tensor(name: str, arg: str, pos: int, x) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def positive(input) -> Tensor:
    """torch.positive: ``input`` itself (no copy, no graph node); bool tensors raise."""
    _require_tensor("positive", "input", 1, input)
    if input.dtype is D.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """torch.allclose: ``isclose(...).all()`` as a Python bool."""
    close = bound("isclose")(input, other, rtol, atol, equal_nan)
    return bool(jnp.all(close._value))


def equal(input, other) -> bool:
    """torch.equal: same shape and equal elements (in the promoted dtype; NaN != NaN)."""
    _require_tensor("equal", "input", 1, input)
    _require_tensor("equal", "other", 2, other)
    if input.shape != other.shape:
        return False
    return bool(jnp.all(bound("eq")(input, other)._value))


# ------------------------------------------------------------------ complex basics
# conj, real, imag, is_conj and resolve_conj are views: jtorch/_api/complex_views.py.


def resolve_neg(input) -> Tensor:
    return input


def is_conj(input) -> bool:
    return False


def is_neg(input) -> bool:
    return False


_float_power_inplace = Tensor.float_power_


def float_power_(self, exponent) -> Tensor:
    """``x.float_power_(e)``: PyTorch requires x to have the result's dtype (float64 or
    complex128), where other in-place ops accept any dtype the result casts to."""
    needs = D.complex128 if self.is_complex() or (
        isinstance(exponent, complex) or (isinstance(exponent, Tensor) and exponent.is_complex())
    ) else D.float64
    if self.dtype is not needs:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {D.legacy_name(self.dtype)} but the "
            f"operation's result requires dtype {D.legacy_name(needs)}"
        )
    return _float_power_inplace(self, exponent)


Tensor.positive = positive
Tensor.__pos__ = positive
Tensor.allclose = allclose
Tensor.equal = equal
Tensor.float_power_ = float_power_
Tensor.resolve_neg = resolve_neg
Tensor.is_neg = is_neg
