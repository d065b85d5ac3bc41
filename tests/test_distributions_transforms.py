"""Transforms, constraints and the constraint registry (biject_to, transform_to) against PyTorch:
forward, inverse, log|det J| and its gradient, sign, domain/codomain, shapes, caching,
equality, and constraint checks with their event dims and reprs."""

from __future__ import annotations

import pytest
from conftest import check

X = [[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]]
POS = [[0.3, 1.2, 0.8], [1.5, 0.1, 2.4]]
UNIT = [[0.3, 0.2, 0.8], [0.5, 0.1, 0.9]]
MAT = [[[0.3, -1.2], [0.8, 0.2]], [[1.5, 0.1], [-0.4, 0.7]]]

# name -> (transform(t, T), input(t)); T is torch.distributions.transforms.
TRANSFORMS = {
    "Exp": (lambda t, T: T.ExpTransform(), X),
    "Sigmoid": (lambda t, T: T.SigmoidTransform(), X),
    "Softplus": (lambda t, T: T.SoftplusTransform(), X),
    "Tanh": (lambda t, T: T.TanhTransform(), X),
    "Abs": (lambda t, T: T.AbsTransform(), X),
    "Power": (lambda t, T: T.PowerTransform(t.tensor([2.0, 0.5, -1.5], dtype=t.float64)), POS),
    "Affine": (lambda t, T: T.AffineTransform(1.0, t.tensor([2.0, -0.5, 3.0],
                                                             dtype=t.float64)), X),
    "Affine-scalar": (lambda t, T: T.AffineTransform(0.5, -2.0), X),
    "Affine-event": (lambda t, T: T.AffineTransform(t.zeros(3, dtype=t.float64),
                                                    t.tensor([2.0, -0.5, 3.0], dtype=t.float64),
                                                    event_dim=1), X),
    "Softmax": (lambda t, T: T.SoftmaxTransform(), X),
    "StickBreaking": (lambda t, T: T.StickBreakingTransform(), X),
    "LowerCholesky": (lambda t, T: T.LowerCholeskyTransform(), MAT),
    "PositiveDefinite": (lambda t, T: T.PositiveDefiniteTransform(), MAT),
    "CorrCholesky": (lambda t, T: T.CorrCholeskyTransform(), X),
    "Compose": (lambda t, T: T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.ExpTransform(),
                                                 T.PowerTransform(t.tensor(0.5))]), X),
    "Inverse": (lambda t, T: T.ExpTransform().inv, POS),
    "Independent": (lambda t, T: T.IndependentTransform(T.SigmoidTransform(), 1), X),
    "Reshape": (lambda t, T: T.ReshapeTransform((3,), (3, 1)), X),
    "Cat": (lambda t, T: T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], dim=1,
                                        lengths=[2, 1]), X),
    "Stack": (lambda t, T: T.StackTransform([T.ExpTransform(), T.TanhTransform()], dim=0), X),
    "CumulativeDistribution": (lambda t, T: T.CumulativeDistributionTransform(
        t.distributions.Normal(0.0, 2.0)), X),
}


def _apply(t, name):
    make, x = TRANSFORMS[name]
    tr = make(t, t.distributions.transforms)
    x = t.tensor(x, dtype=t.float64, requires_grad=True)
    y = tr(x)
    out = {"y": y, "bijective": tr.bijective, "repr": repr(tr).split("(")[0],
           "domain": repr(tr.domain), "codomain": repr(tr.codomain),
           "event_dims": (tr.domain.event_dim, tr.codomain.event_dim),
           "forward_shape": tr.forward_shape(x.shape), "inverse_shape": tr.inverse_shape(y.shape)}
    try:
        out["sign"] = tr.sign
    except NotImplementedError:
        out["sign"] = "NotImplementedError"
    out["inv"] = tr.inv(y.detach())
    try:
        ladj = tr.log_abs_det_jacobian(x, y)
    except NotImplementedError:
        out["ladj"] = "NotImplementedError"
    else:
        out["ladj"] = ladj
        out["ladj_grad"] = t.autograd.grad(ladj.sum() + y.sum(), x)
    return out


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_matches_torch(name):
    check(lambda t: _apply(t, name), rtol=1e-6, atol=1e-9)


def test_transform_cache_equality_and_errors():
    def program(t):
        T = t.distributions.transforms
        x = t.tensor([0.5, -0.3])
        cached = T.ExpTransform(cache_size=1)
        y = cached(x)
        inv_is_x = cached.inv(y) is x
        uncached = T.ExpTransform()
        eq = (T.ExpTransform() == T.ExpTransform(), T.ExpTransform() == T.SigmoidTransform(),
              T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0),
              T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 3.0),
              T.ExpTransform().inv == T.ExpTransform().inv,
              T.PowerTransform(t.tensor(2.0)) == T.PowerTransform(t.tensor(2.0)),
              T.ComposeTransform([T.ExpTransform()]) == T.ComposeTransform([T.ExpTransform()]))
        composed = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)])
        inv = composed.inv
        return (inv_is_x, uncached.inv(uncached(x)) is x, eq, inv.inv is composed,
                type(cached.with_cache(0)).__name__, type(T.identity_transform).__name__,
                T.identity_transform(x), composed.with_cache(1)._cache_size)

    check(program)
    for bad in (lambda t: t.distributions.transforms.ExpTransform(cache_size=2),
                lambda t: t.distributions.transforms.AffineTransform(0.0, 1.0).with_cache(3),
                lambda t: t.distributions.transforms.ReshapeTransform((2,), (3,)),
                lambda t: t.distributions.transforms.ReshapeTransform((3,), (3, 1))
                .forward_shape((2, 2)),
                lambda t: t.distributions.transforms.StickBreakingTransform().forward_shape(()),
                lambda t: t.distributions.transforms.CorrCholeskyTransform().forward_shape((4,))):
        check(bad, raises=ValueError)
    check(lambda t: t.distributions.transforms.ExpTransform().event_dim)
    check(lambda t: t.distributions.transforms.StickBreakingTransform().event_dim)


# (constraint(t, C), values(t)) for check(); C is torch.distributions.constraints.
CONSTRAINTS = {
    "real": (lambda t, C: C.real, [0.0, float("nan"), float("inf")]),
    "positive": (lambda t, C: C.positive, [0.0, 1.0, -1.0]),
    "nonnegative": (lambda t, C: C.nonnegative, [0.0, 1.0, -1.0]),
    "greater_than": (lambda t, C: C.greater_than(1.0), [0.5, 1.0, 2.0]),
    "greater_than_eq": (lambda t, C: C.greater_than_eq(1.0), [0.5, 1.0, 2.0]),
    "less_than": (lambda t, C: C.less_than(1.0), [0.5, 1.0, 2.0]),
    "interval": (lambda t, C: C.interval(0.0, 1.0), [0.0, 1.0, 1.5]),
    "half_open_interval": (lambda t, C: C.half_open_interval(0.0, 1.0), [0.0, 1.0, 0.5]),
    "unit_interval": (lambda t, C: C.unit_interval, [0.0, 1.0, -0.1]),
    "boolean": (lambda t, C: C.boolean, [0.0, 1.0, 0.5]),
    "integer_interval": (lambda t, C: C.integer_interval(0, 3), [0.0, 3.0, 1.5]),
    "nonnegative_integer": (lambda t, C: C.nonnegative_integer, [0.0, -1.0, 2.5]),
    "positive_integer": (lambda t, C: C.positive_integer, [0.0, 1.0, 2.0]),
    "real_vector": (lambda t, C: C.real_vector, [[0.0, 1.0], [float("nan"), 1.0]]),
    "independent": (lambda t, C: C.independent(C.positive, 1), [[1.0, 2.0], [1.0, -2.0]]),
    "simplex": (lambda t, C: C.simplex, [[0.2, 0.8], [0.5, 0.6]]),
    "one_hot": (lambda t, C: C.one_hot, [[0.0, 1.0], [1.0, 1.0]]),
    "multinomial": (lambda t, C: C.multinomial(3), [[1.0, 2.0], [2.0, 2.0]]),
    "lower_triangular": (lambda t, C: C.lower_triangular, MAT),
    "lower_cholesky": (lambda t, C: C.lower_cholesky, [[[1.0, 0.0], [0.5, 2.0]],
                                                      [[1.0, 0.0], [0.5, -2.0]]]),
    "corr_cholesky": (lambda t, C: C.corr_cholesky, [[[1.0, 0.0], [0.6, 0.8]],
                                                    [[1.0, 0.0], [0.5, 0.5]]]),
    "square": (lambda t, C: C.square, MAT),
    "symmetric": (lambda t, C: C.symmetric, [[[1.0, 0.5], [0.5, 2.0]], [[1.0, 0.5], [0.4, 2.0]]]),
    "positive_definite": (lambda t, C: C.positive_definite,
                          [[[2.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]),
    "positive_semidefinite": (lambda t, C: C.positive_semidefinite,
                              [[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]),
    "cat": (lambda t, C: C.cat([C.positive, C.real], dim=1, lengths=[1, 1]),
            [[1.0, -1.0], [-1.0, 1.0]]),
    "stack": (lambda t, C: C.stack([C.positive, C.unit_interval], dim=1),
              [[1.0, 0.5], [-1.0, 1.5]]),
}


# Inputs for the transforms whose domain is not X's shape (nor MAT's for event_dim 2):
# CorrCholeskyTransform takes a vector of n(n-1)/2 entries (3 -> a 3x3 factor), the cat and
# stack transforms along dim 1 take two columns.
TRANSFORM_INPUTS = {"corr_cholesky": X, "cat": [r[:2] for r in X], "stack": [r[:2] for r in X]}


def _constraint(t, name):
    make, values = CONSTRAINTS[name]
    c = make(t, t.distributions.constraints)
    out = {"check": c.check(t.tensor(values)), "event_dim": c.event_dim,
           "is_discrete": c.is_discrete, "repr": repr(c)}
    for registry in ("biject_to", "transform_to"):
        try:
            tr = getattr(t.distributions, registry)(c)
        except NotImplementedError as e:
            out[registry] = type(e).__name__
            continue
        x = t.tensor(TRANSFORM_INPUTS.get(name, MAT if c.event_dim == 2 else X),
                     dtype=t.float64)
        y = tr(x)
        out[registry] = (type(tr).__name__, y, bool(c.check(y).all()))
    return out


@pytest.mark.parametrize("name", list(CONSTRAINTS))
def test_constraint_matches_torch(name):
    check(lambda t: _constraint(t, name), rtol=1e-6, atol=1e-9)


def test_dependent_constraints():
    def program(t):
        C, D = t.distributions.constraints, t.distributions
        u = D.Uniform(t.tensor([0.0, 1.0]), t.tensor([1.0, 3.0]))
        support = u.support
        return (C.is_dependent(C.dependent), C.is_dependent(C.real),
                C.is_dependent(D.Uniform.support), repr(support),
                support.check(t.tensor([0.5, 3.5])), D.Uniform.support.event_dim)

    check(program)
    check(lambda t: t.distributions.constraints.dependent.check(t.zeros(1)), raises=ValueError)
    check(lambda t: t.distributions.constraints.dependent.event_dim, raises=NotImplementedError)
    check(lambda t: t.distributions.biject_to(t.distributions.constraints.boolean),
          raises=NotImplementedError)
    check(lambda t: t.distributions.biject_to.register(3, lambda c: c), raises=TypeError)


def test_register_constraint_factory():
    def program(t):
        C, T = t.distributions.constraints, t.distributions.transforms
        registry = type(t.distributions.biject_to)()

        @registry.register(C.positive)
        def _to_positive(constraint):
            return T.SoftplusTransform()

        return type(registry(C.positive)).__name__, type(registry(C.greater_than(2.0))).__name__

    check(program)
