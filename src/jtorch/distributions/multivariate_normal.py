from __future__ import annotations

import jtorch

from ..functional.distributions import multivariate as FM
from . import constraints
from ._kernel import call
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["MultivariateNormal"]


def _batch_shape(matrix, loc, name):
    if matrix.dim() < 2:
        raise ValueError(f"{name} must be at least two-dimensional, "
                         "with optional leading batch dimensions")
    return jtorch.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])


class MultivariateNormal(Distribution):
    """The multivariate normal distribution, given one of ``covariance_matrix``,
    ``precision_matrix`` or ``scale_tril`` (its lower Cholesky factor)."""

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True
    _family, _params = "multivariate_normal", ("loc", "_unbroadcasted_scale_tril")

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [(n, m) for n, m in (("scale_tril", scale_tril),
                                      ("covariance_matrix", covariance_matrix),
                                      ("precision_matrix", precision_matrix)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name, matrix = given[0]
        label = "scale_tril matrix" if name == "scale_tril" else name
        batch_shape = _batch_shape(matrix, loc, label)
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = jtorch.linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = call(FM.precision_to_scale_tril, matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(MultivariateNormal, batch_shape, _instance,
                                  ("loc", "covariance_matrix", "scale_tril", "precision_matrix"))
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    @lazy_property
    def scale_tril(self):
        return self._apply("scale_tril")

    @lazy_property
    def covariance_matrix(self):
        return self._apply("covariance")

    @lazy_property
    def precision_matrix(self):
        return self._apply("precision")

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc


