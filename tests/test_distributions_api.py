"""The Distribution API against PyTorch: validation (ValueError and its message), default
validation switch, repr, expand, shapes of sample(sample_shape), float32 dtypes, the
exponential-family entropy and KL fallbacks, and the REINFORCE program."""

from __future__ import annotations

import pytest
import torch
from conftest import check

import jtorch

# (constructor, value) programs that PyTorch rejects with ValueError when validating.
BAD_PARAMS = [
    lambda t, D: D.Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, -1.0])),
    lambda t, D: D.Normal(t.tensor([0.0, float("nan")]), 1.0),
    lambda t, D: D.Uniform(t.tensor([1.0]), t.tensor([0.0])),
    lambda t, D: D.Bernoulli(t.tensor([1.5])),
    lambda t, D: D.Bernoulli(probs=0.5, logits=0.0),
    lambda t, D: D.Categorical(t.tensor([[0.5, -0.5]])),
    lambda t, D: D.Categorical(t.tensor(0.5)),
    lambda t, D: D.Dirichlet(t.tensor([0.0, 1.0])),
    lambda t, D: D.Gamma(t.tensor([-1.0]), 1.0),
    lambda t, D: D.Geometric(t.tensor([0.0, 0.5])),
    lambda t, D: D.Binomial(t.tensor([2.5]), t.tensor([0.5])),
    lambda t, D: D.MultivariateNormal(t.zeros(2), t.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda t, D: D.MultivariateNormal(t.zeros(2), t.eye(2), scale_tril=t.eye(2)),
    lambda t, D: D.MultivariateNormal(t.tensor(0.0), t.eye(2)),
    lambda t, D: D.LowRankMultivariateNormal(t.zeros(2), t.ones(3, 1), t.ones(2)),
    lambda t, D: D.LKJCholesky(1),
    lambda t, D: D.Wishart(t.tensor(0.5), t.eye(2)),
    lambda t, D: D.Independent(D.Normal(t.zeros(2), 1.0), 2),
    lambda t, D: D.MixtureSameFamily(D.Categorical(t.ones(2)), D.Normal(t.zeros(3), 1.0)),
    lambda t, D: D.TransformedDistribution(D.Normal(0.0, 1.0), "exp"),
    lambda t, D: D.ContinuousBernoulli(t.tensor([1.5]), validate_args=True),
]


@pytest.mark.parametrize("i", range(len(BAD_PARAMS)))
def test_invalid_parameters_raise(i):
    check(lambda t: BAD_PARAMS[i](t, t.distributions), raises=ValueError)


BAD_VALUES = [
    lambda t, D: D.Normal(0.0, 1.0).log_prob(1.0),
    lambda t, D: D.Normal(t.zeros(3), 1.0).log_prob(t.zeros(2)),
    lambda t, D: D.Exponential(1.0).log_prob(t.tensor([-1.0])),
    lambda t, D: D.Bernoulli(0.5).log_prob(t.tensor([0.5])),
    lambda t, D: D.Categorical(t.ones(3)).log_prob(t.tensor([3])),
    lambda t, D: D.Dirichlet(t.ones(3)).log_prob(t.tensor([0.5, 0.5])),
    lambda t, D: D.Dirichlet(t.ones(3)).log_prob(t.tensor([0.5, 0.2, 0.2])),
    lambda t, D: D.MultivariateNormal(t.zeros(2), t.eye(2)).log_prob(t.zeros(3)),
    lambda t, D: D.Uniform(0.0, 1.0).cdf(t.tensor([2.0])),
    lambda t, D: D.Poisson(2.0).log_prob(t.tensor([1.5])),
]


@pytest.mark.parametrize("i", range(len(BAD_VALUES)))
def test_invalid_values_raise(i):
    check(lambda t: BAD_VALUES[i](t, t.distributions), raises=ValueError)


def test_validation_messages_match():
    def messages(t):
        D, out = t.distributions, []
        for program in (lambda: D.Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, -1.0])),
                        lambda: D.Normal(0.0, 1.0).log_prob(1.0),
                        lambda: D.Exponential(t.tensor([1.0])).log_prob(t.tensor([-1.0])),
                        lambda: D.Bernoulli(probs=0.5, logits=0.0)):
            try:
                program()
            except ValueError as e:
                out.append(str(e))
        return out

    check(messages)


def test_set_default_validate_args():
    def program(t):
        D = t.distributions
        D.Distribution.set_default_validate_args(False)
        try:
            d = D.Normal(t.tensor([0.0]), t.tensor([-1.0]))
            lp = D.Exponential(t.tensor([1.0])).log_prob(t.tensor([-1.0]))
            explicit = D.Normal(0.0, 1.0, validate_args=True)._validate_args
        finally:
            D.Distribution.set_default_validate_args(True)
        return d.scale, lp, explicit, D.Normal(0.0, 1.0)._validate_args

    check(program)
    check(lambda t: t.distributions.Distribution.set_default_validate_args(2),
          raises=ValueError)


def test_repr():
    def program(t):
        D = t.distributions
        return [repr(d).replace("torch.Size", "Size") for d in (
            D.Normal(0.0, 1.0), D.Normal(t.zeros(2), t.ones(2)), D.Bernoulli(logits=t.zeros(3)),
            D.Categorical(t.ones(2, 3)), D.Independent(D.Normal(t.zeros(2), 1.0), 1),
            D.MultivariateNormal(t.zeros(2), t.eye(2)), D.Gamma(2.0, 3.0),
            D.MixtureSameFamily(D.Categorical(t.ones(2)), D.Normal(t.zeros(2), 1.0)))]

    check(program)


def test_expand():
    def program(t):
        D = t.distributions
        out = []
        for d in (D.Normal(t.tensor([0.0, 1.0]), 2.0), D.Bernoulli(logits=t.tensor([0.3, -1.0])),
                  D.Categorical(logits=t.tensor([[0.1, 0.2, 0.7], [1.0, 0.0, 0.0]])),
                  D.Gamma(t.tensor([1.0, 2.0]), 1.0), D.Chi2(t.tensor([1.0, 2.0])),
                  D.LogNormal(t.tensor([0.0, 1.0]), 1.0), D.Beta(t.tensor([1.0, 2.0]), 3.0),
                  D.Independent(D.Normal(t.zeros(2, 3), 1.0), 1)):
            e = d.expand((4, 2))
            # a value in the support: the mean is not one for discrete distributions
            value = (d.mode if d.support.is_discrete else d.mean).expand(
                e.batch_shape + e.event_shape)
            out.append((e.batch_shape, e.event_shape, type(e).__name__, e.log_prob(value)))
        return out

    check(program)


def _sample_meta(t):
    """sample/rsample shapes and dtypes for a sample_shape (values are random)."""
    D = t.distributions
    out = []
    for d in (D.Normal(t.zeros(3), 1.0), D.Categorical(t.ones(2, 3))):
        for shape in ((), (2, 1)):
            x = d.sample(shape)
            out.append((tuple(x.shape), str(x.dtype), x.requires_grad))
    return out


def test_sample_shapes():
    check(_sample_meta)
    check(lambda t: t.distributions.Normal(0.0, 1.0).sample(3), raises=TypeError)
    check(lambda t: t.distributions.Bernoulli(0.5).rsample(), raises=NotImplementedError)


def test_rsample_requires_grad():
    def program(t):
        loc = t.zeros(3, requires_grad=True)
        d = t.distributions.Normal(loc, 1.0)
        return d.rsample().requires_grad, d.sample().requires_grad, d.rsample((2,)).shape

    check(program)


def test_float32_and_default_dtype():
    def program(t):
        D = t.distributions
        d = D.Gamma(t.tensor([1.0, 2.0]), 1.5)
        out = [d.log_prob(t.tensor([0.5, 1.0])), D.Normal(0.0, 1.0).mean,
               D.Poisson(t.tensor([2.0])).log_prob(t.tensor([3]))]
        t.set_default_dtype(t.float64)
        out += [D.Normal(0.0, 1.0).log_prob(t.tensor(0.5)).dtype, D.Normal(0.0, 1.0).sample().dtype]
        return out

    check(program, rtol=1e-5)


class _Custom:
    """A user-defined exponential family (Poisson by its natural parameter), in each library."""

    @staticmethod
    def make(t):
        D = t.distributions

        class MyPoisson(D.ExponentialFamily):
            arg_constraints = {"rate": D.constraints.positive}
            _mean_carrier_measure = 0.0

            def __init__(self, rate):
                self.rate = rate
                super().__init__(rate.shape)

            @property
            def _natural_params(self):
                return (self.rate.log(),)

            def _log_normalizer(self, x):
                return x.exp()

        return MyPoisson


def test_exponential_family_fallbacks():
    """Entropy and KL through the log-normalizer's gradient (autograd, create_graph)."""

    def program(t):
        cls = _Custom.make(t)
        rate = t.tensor([0.5, 2.0], dtype=t.float64, requires_grad=True)
        p, q = cls(rate), cls(t.tensor([1.0, 3.0], dtype=t.float64))
        kl = t.distributions.kl_divergence(q, p)
        return p.entropy(), kl, t.autograd.grad(kl.sum(), rate)

    check(program, rtol=1e-6)


def test_reinforce_program():
    """The policy-gradient pattern: Categorical(probs).sample(), log_prob, loss, backward.

    Sampled actions differ between the libraries, so the differential part scores fixed
    actions; the sampled ones are checked for shape, dtype and range."""

    def program(t):
        t.manual_seed(0)
        w = t.tensor([[0.2, -0.1, 0.4], [0.3, 0.5, -0.2]], requires_grad=True)
        state = t.tensor([[1.0, 0.5], [-0.3, 2.0], [0.7, 0.7], [1.5, -1.0]])
        probs = t.softmax(state @ w, dim=-1)
        dist = t.distributions.Categorical(probs)
        sampled = dist.sample()
        actions = t.tensor([0, 2, 1, 2])
        returns = t.tensor([1.0, -0.5, 2.0, 0.3])
        loss = -(dist.log_prob(actions) * returns).sum() - 0.01 * dist.entropy().sum()
        loss.backward()
        ok = bool(((sampled >= 0) & (sampled < 3)).all())
        return loss, w.grad, tuple(sampled.shape), str(sampled.dtype), ok

    check(program, rtol=1e-5)


def test_reinforce_learns_a_bandit():
    """REINFORCE on a 3-armed bandit moves the policy onto the best arm (jtorch alone)."""
    jtorch.manual_seed(0)
    logits = jtorch.zeros(3, requires_grad=True)
    rewards = jtorch.tensor([0.0, 1.0, 0.2])
    opt = jtorch.optim.SGD([logits], lr=3.0)
    for _ in range(15):
        dist = jtorch.distributions.Categorical(logits=logits)
        a = dist.sample((16,))
        loss = -(dist.log_prob(a) * (rewards[a] - 0.4)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    probs = jtorch.softmax(logits.detach(), -1)
    assert probs.argmax().item() == 1 and probs[1].item() > 0.8


def test_straight_through_gradient():
    """OneHotCategoricalStraightThrough: a one-hot draw whose gradient is that of probs."""

    def program(t):
        logits = t.tensor([[0.2, -0.3, 1.0], [0.0, 2.0, 0.5]], requires_grad=True)
        d = t.distributions.OneHotCategoricalStraightThrough(logits=logits)
        x = d.rsample()
        w = t.tensor([1.0, 2.0, -1.0])
        (g,) = t.autograd.grad((x * w).sum(), logits)
        one_hot = bool(((x == 0) | (x == 1)).all()) and x.sum(-1).tolist() == [1.0, 1.0]
        return g, one_hot, d.has_rsample, tuple(x.shape)

    check(program, rtol=1e-5)


@pytest.mark.parametrize("loc, scale", [(float("nan"), -1.0), (0.0, -1.0), (float("nan"), 1.0)])
def test_the_first_invalid_parameter_is_named(loc, scale):
    """Every parameter is checked before any is read back (one host round trip), and the
    error still names the first invalid one, as PyTorch's does."""
    def first(t):
        try:
            t.distributions.Normal(t.tensor([loc]), t.tensor([scale]))
        except ValueError as e:
            return str(e).split(" (")[0]
        return None

    assert first(jtorch) == first(torch) is not None
