"""The elementwise transforms: exp, sigmoid, softplus, tanh, abs, power and affine maps."""

from __future__ import annotations

import jtorch

from ..functional.distributions import transforms as FT
from . import constraints
from ._kernel import call
from .transforms import Transform
from .utils import _NUMBER, broadcast_all, lazy_property


class _Elementwise(Transform):
    """A parameterless bijection given by pure functions (forward, inverse, log|det J|)."""

    bijective = True
    sign = +1
    _fns: tuple = ()

    def __eq__(self, other):
        return isinstance(other, type(self))

    __hash__ = Transform.__hash__

    def _call(self, x):
        return call(self._fns[0], x)

    def _inverse(self, y):
        return call(self._fns[1], y)

    def log_abs_det_jacobian(self, x, y):
        return call(self._fns[2], x, y)


class ExpTransform(_Elementwise):
    """``y = exp(x)``."""

    domain = constraints.real
    codomain = constraints.positive
    _fns = (FT.exp, FT.log)

    def log_abs_det_jacobian(self, x, y):
        return x


class SigmoidTransform(_Elementwise):
    """``y = 1 / (1 + exp(-x))``, clipped away from 0 and 1."""

    domain = constraints.real
    codomain = constraints.unit_interval
    _fns = (FT.clipped_sigmoid, FT.sigmoid_inv, FT.sigmoid_log_abs_det_jacobian)


class SoftplusTransform(_Elementwise):
    """``y = log(1 + exp(x))``."""

    domain = constraints.real
    codomain = constraints.positive
    _fns = (FT.softplus_fwd, FT.softplus_inv, FT.softplus_log_abs_det_jacobian)


class TanhTransform(_Elementwise):
    """``y = tanh(x)``."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    _fns = (FT.tanh, FT.atanh, FT.tanh_log_abs_det_jacobian)


class AbsTransform(Transform):
    """``y = |x|`` (not injective: the inverse picks ``x >= 0``)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class PowerTransform(Transform):
    """``y = x ** exponent``."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return self.exponent.eq(other.exponent).all().item()

    __hash__ = Transform.__hash__

    def _call(self, x):
        return call(FT.power, x, self.exponent)

    def _inverse(self, y):
        return call(FT.power_inv, y, self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return call(FT.power_log_abs_det_jacobian, x, y, self.exponent)

    def forward_shape(self, shape):
        return jtorch.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    inverse_shape = forward_shape


class AffineTransform(Transform):
    """``y = loc + scale * x``, over ``event_dim`` rightmost dims."""

    bijective = True

    def __init__(self, loc, scale, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, _NUMBER) and isinstance(b, _NUMBER):
                if a != b:
                    return False
            elif not (a == b).all().item():
                return False
        return True

    __hash__ = Transform.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, _NUMBER):
            s = float(self.scale)
            return 1 if s > 0 else -1 if s < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return call(FT.affine, x, self.loc, self.scale)

    def _inverse(self, y):
        return call(FT.affine_inv, y, self.loc, self.scale)

    def log_abs_det_jacobian(self, x, y):
        if isinstance(self.scale, _NUMBER):
            return call(FT.affine_log_abs_det_jacobian, x, scale=float(self.scale),
                        event_dim=self.event_dim)
        return call(FT.affine_log_abs_det_jacobian, x, self.scale, event_dim=self.event_dim)

    def forward_shape(self, shape):
        return jtorch.broadcast_shapes(shape, getattr(self.loc, "shape", ()),
                                       getattr(self.scale, "shape", ()))

    inverse_shape = forward_shape
