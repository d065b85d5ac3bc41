from __future__ import annotations

import warnings

import jtorch

from ..eager.tensor import Size
from ..functional.distributions import multivariate as FM
from . import constraints
from ._kernel import call, draw
from .exp_family import ExponentialFamily
from .utils import _NUMBER, _size, lazy_property

__all__ = ["Wishart"]


class Wishart(ExponentialFamily):
    """The Wishart distribution over positive-definite matrices, with ``df`` degrees of
    freedom and one of ``covariance_matrix``, ``precision_matrix`` or ``scale_tril``.

    Differences from PyTorch: ``rsample`` warns "Singular sample detected." only when a
    sample is singular (PyTorch 2.13 warns on every call) and redraws only those."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0
    _family, _params = "wishart", ("df", "_unbroadcasted_scale_tril")

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = [(n, m) for n, m in (("covariance_matrix", covariance_matrix),
                                      ("precision_matrix", precision_matrix),
                                      ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        name, param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, _NUMBER):
            batch_shape = Size(param.shape[:-2])
            self.df = jtorch.tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = jtorch.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = "
                             f"{event_shape[-1] - 1}.")
        setattr(self, name, param.expand(batch_shape + (-1, -1)))
        if self.df.lt(event_shape[-1]).any():
            warnings.warn("Low df values detected. Singular samples are highly likely to occur "
                          "for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = param
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = jtorch.linalg.cholesky(param)
        else:
            self._unbroadcasted_scale_tril = call(FM.precision_to_scale_tril, param)

    def expand(self, batch_shape, _instance=None):
        batch_shape = _size(batch_shape)
        new = self._expand_params(Wishart, batch_shape, _instance,
                                  ("df", "covariance_matrix", "scale_tril", "precision_matrix"))
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(
            batch_shape + self.event_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        return self._apply("covariance")

    @lazy_property
    def precision_matrix(self):
        return self._apply("precision")

    def _bartlett_sampling(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return draw(FM.wishart_rsample, shape, *self._param_values())

    def _singular(self, sample):
        bad = ~self.support.check(sample)
        return bad.amax(self._batch_dims) if self._batch_shape else bad

    def rsample(self, sample_shape=(), max_try_correction=None):
        """Bartlett-decomposition draws; singular ones are redrawn up to
        ``max_try_correction`` (default 10) times."""
        max_try_correction = 10 if max_try_correction is None else max_try_correction
        sample_shape = _size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        is_singular = self._singular(sample)
        if is_singular.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                redraw = self._bartlett_sampling(sample_shape)
                sample = jtorch.where(self._pad(is_singular), redraw, sample)
                is_singular = self._singular(sample)
                if not is_singular.any():
                    break
        return sample

    def _pad(self, mask):
        return mask.reshape(mask.shape + (1,) * (len(self._batch_shape) + 2))

    @property
    def _natural_params(self):
        return call(FM.wishart_natural_params, self.df, self.precision_matrix,
                    p=self._event_shape[-1])
