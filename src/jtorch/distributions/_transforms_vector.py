"""The transforms acting on whole vectors or matrices, and the ones combining transforms."""

from __future__ import annotations

import jtorch

from ..functional.distributions import transforms as FT
from . import constraints
from ._kernel import call
from .transforms import Transform
from .utils import _sum_rightmost, lazy_property


class _Vector(Transform):
    """A parameterless transform whose equality is its type."""

    def __eq__(self, other):
        return isinstance(other, type(self))

    __hash__ = Transform.__hash__


def _check_last_dim(shape, n=1):
    if len(shape) < n:
        raise ValueError("Too few dimensions on input")


class SoftmaxTransform(_Vector):
    """``y = softmax(x)`` over the last dim (not bijective: the inverse is ``log``)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        return call(FT.softmax, x)

    def _inverse(self, y):
        return call(FT.log, y)

    def forward_shape(self, shape):
        _check_last_dim(shape)
        return shape

    inverse_shape = forward_shape


class StickBreakingTransform(_Vector):
    """Maps ``R^(n)`` onto the ``n``-simplex in ``R^(n+1)`` by stick breaking."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        return call(FT.stick_breaking, x)

    def _inverse(self, y):
        return call(FT.stick_breaking_inv, y)

    def log_abs_det_jacobian(self, x, y):
        return call(FT.stick_breaking_log_abs_det_jacobian, x, y)

    def forward_shape(self, shape):
        _check_last_dim(shape)
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        _check_last_dim(shape)
        return shape[:-1] + (shape[-1] - 1,)


class LowerCholeskyTransform(_Vector):
    """Unconstrained matrices to lower-triangular ones with a positive diagonal."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return call(FT.lower_cholesky, x)

    def _inverse(self, y):
        return call(FT.lower_cholesky_inv, y)


class PositiveDefiniteTransform(_Vector):
    """Unconstrained matrices to positive-definite ones, ``L L^T``."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        return call(FT.positive_definite, x)

    def _inverse(self, y):
        return call(FT.lower_cholesky_inv, jtorch.linalg.cholesky(y))


class CorrCholeskyTransform(Transform):
    """A vector of ``D (D - 1) / 2`` reals to the Cholesky factor of a ``D x D`` correlation
    matrix."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        return call(FT.corr_cholesky, x)

    def _inverse(self, y):
        return call(FT.corr_cholesky_inv, y)

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        return call(FT.corr_cholesky_log_abs_det_jacobian, x, y)

    def forward_shape(self, shape):
        _check_last_dim(shape)
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape):
        _check_last_dim(shape, 2)
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return shape[:-2] + (d * (d - 1) // 2,)


def _check_dim(dim, t, what="tensor"):
    if not -t.dim() <= dim < t.dim():
        raise AssertionError(f"dim {dim} out of range for {what} with {t.dim()} dimensions")


class CatTransform(Transform):
    """Applies a sequence of transforms to consecutive slices of ``dim``."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    @lazy_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _slices(self, t, name, what="tensor"):
        _check_dim(self.dim, t, what)
        if t.size(self.dim) != self.length:
            raise AssertionError(f"{name}.size({self.dim}) = {t.size(self.dim)} must equal "
                                 f"length {self.length}")
        start = 0
        for length in self.lengths:
            yield t.narrow(self.dim, start, length)
            start = start + length

    def _call(self, x):
        parts = [t(s) for t, s in zip(self.transforms, self._slices(x, "x"), strict=True)]
        return jtorch.cat(parts, dim=self.dim)

    def _inverse(self, y):
        parts = [t.inv(s) for t, s in zip(self.transforms, self._slices(y, "y"), strict=True)]
        return jtorch.cat(parts, dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        logdetjacs = []
        pairs = zip(self.transforms, self._slices(x, "x", "x"), self._slices(y, "y", "y"),
                    strict=True)
        for trans, xs, ys in pairs:
            ldj = trans.log_abs_det_jacobian(xs, ys)
            if trans.event_dim < self.event_dim:
                ldj = _sum_rightmost(ldj, self.event_dim - trans.event_dim)
            logdetjacs.append(ldj)
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim = dim + self.event_dim
        if dim < 0:
            return jtorch.cat(logdetjacs, dim=dim)
        return sum(logdetjacs)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies a sequence of transforms to the slices along ``dim``."""

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z, name, what="tensor"):
        _check_dim(self.dim, z, what)
        if z.size(self.dim) != len(self.transforms):
            raise AssertionError(f"{name}.size({self.dim}) = {z.size(self.dim)} must equal "
                                 f"len(transforms) {len(self.transforms)}")
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        parts = [t(s) for s, t in zip(self._slice(x, "x"), self.transforms, strict=True)]
        return jtorch.stack(parts, dim=self.dim)

    def _inverse(self, y):
        parts = [t.inv(s) for s, t in zip(self._slice(y, "y"), self.transforms, strict=True)]
        return jtorch.stack(parts, dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        xs, ys = self._slice(x, "x", "x"), self._slice(y, "y", "y")
        parts = [t.log_abs_det_jacobian(a, b)
                 for a, b, t in zip(xs, ys, self.transforms, strict=True)]
        return jtorch.stack(parts, dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: a distribution's cdf as a transform onto [0, 1]."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
