"""torch.distributions.Distribution: shapes, validation, and the generic calls into the math.

A built-in distribution names its family (``_family``) and the attributes that are its
parameters (``_params``); ``log_prob``, ``cdf``, ``icdf``, ``entropy``, the moments,
``rsample`` and ``sample`` then call ``jtorch.functional.distributions``'s
``<family>_<what>`` on them, one dispatched kernel per call. A subclass without a family
(a user's own distribution) gets PyTorch's ``NotImplementedError`` from each.
"""

from __future__ import annotations

import warnings

import jtorch

from ..eager.tensor import Size, Tensor
from ..functional.distributions import MATH
from . import constraints
from ._kernel import call, draw
from .utils import _size, lazy_property

__all__ = ["Distribution"]


class Distribution:
    """The abstract base class for probability distributions."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__
    _family: str | None = None
    _params: tuple = ()

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for every distribution (PyTorch: on)."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = _size(batch_shape)
        self._event_shape = _size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._validate_params()
        super().__init__()

    def _validate_params(self):
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                          "`arg_constraints = {}` or initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=3)
        checks = []  # every check first, then the reads: one host round trip for all
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue  # skip constraints that cannot be checked
            if param not in self.__dict__ and isinstance(getattr(type(self), param),
                                                         lazy_property):
                continue  # skip checking lazily-constructed args
            value = getattr(self, param)
            checks.append((param, constraint, value, constraint.check(value).all()))
        for param, constraint, value, ok in checks:
            if not bool(ok):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                    f"constraint {constraint!r}, but found invalid values:\n{value}")

    # ------------------------------------------------------------------ shapes

    def expand(self, batch_shape, _instance=None):
        """A new distribution with the batch dimensions expanded to ``batch_shape``."""
        raise NotImplementedError

    def _expand_params(self, cls, batch_shape, _instance, names):
        """``expand`` for a distribution whose ``names`` are tensors of shape
        ``batch_shape + param_event_shape``."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = _size(batch_shape)
        n = len(self._batch_shape)
        for name in names:
            if name in self.__dict__:
                v = self.__dict__[name]
                setattr(new, name, v.expand(batch_shape + v.shape[n:]))
        if "_param" in self.__dict__:
            new._param = new.probs if "probs" in new.__dict__ else new.logits
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    def _extended_shape(self, sample_shape=()) -> Size:
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(sample_shape + self._batch_shape + self._event_shape)

    # ------------------------------------------------------------------ the math

    def _math(self, what: str):
        fn = MATH.get(f"{self._family}_{what}") if self._family else None
        if fn is None:
            raise NotImplementedError
        return fn

    def _param_values(self) -> list:
        return [getattr(self, p) for p in self._params]

    def _statics(self) -> dict:
        return {}

    def _apply(self, what: str, *args):
        return call(self._math(what), *args, *self._param_values(), **self._statics())

    @property
    def mean(self) -> Tensor:
        return self._apply("mean")

    @property
    def mode(self) -> Tensor:
        if self._family is None or f"{self._family}_mode" not in MATH:
            raise NotImplementedError(f"{self.__class__} does not implement mode")
        return self._apply("mode")

    @property
    def variance(self) -> Tensor:
        return self._apply("variance")

    @property
    def stddev(self) -> Tensor:
        if self._family is not None and f"{self._family}_stddev" in MATH:
            return self._apply("stddev")
        return self.variance.sqrt()

    def sample(self, sample_shape=()) -> Tensor:
        """A sample (or ``sample_shape`` samples) without a gradient."""
        with jtorch.no_grad():
            if self._family is not None and f"{self._family}_sample" in MATH:
                return draw(self._math("sample"), self._extended_shape(sample_shape),
                            *self._param_values(), **self._statics())
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()) -> Tensor:
        """A reparameterised sample: differentiable with respect to the parameters."""
        return draw(self._math("rsample"), self._extended_shape(sample_shape),
                    *self._param_values(), **self._statics())

    def sample_n(self, n: int) -> Tensor:
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value) -> Tensor:
        """The log density (or mass) at ``value``, over the batch shape."""
        self._math("log_prob")
        if self._validate_args:
            self._validate_sample(value)
        return self._apply("log_prob", value)

    def cdf(self, value) -> Tensor:
        """The cumulative distribution function at ``value``."""
        self._math("cdf")
        if self._validate_args:
            self._validate_sample(value)
        return self._apply("cdf", value)

    def icdf(self, value) -> Tensor:
        """The inverse cdf (quantile function) at probability ``value``."""
        return self._apply("icdf", value)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError

    def _enumerate(self, values, expand: bool) -> Tensor:
        """``values`` (cardinality first, then the event) viewed or expanded over the batch."""
        event = tuple(values.shape[1:])
        values = values.view((-1,) + (1,) * len(self._batch_shape) + event)
        return values.expand((-1,) + tuple(self._batch_shape) + event) if expand else values

    def entropy(self) -> Tensor:
        """The entropy, over the batch shape."""
        return self._apply("entropy")

    def perplexity(self) -> Tensor:
        """``exp(entropy())``."""
        return jtorch.exp(self.entropy())

    # ------------------------------------------------------------------ validation, repr

    def _validate_sample(self, value) -> None:
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape), strict=False):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual_shape} vs {expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in names)
        return self.__class__.__name__ + "(" + args + ")"
