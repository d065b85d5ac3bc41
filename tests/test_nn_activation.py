"""Activation modules and the in-place / implicit-dim forms of the F activations against
PyTorch (the ops themselves are covered by tests/opdb/nn_activation.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import check

import jtorch

KINKS = np.array([[-3.0, -1.0, -0.5, 0.0], [0.5, 1.0, 3.0, 6.0]])
X = np.random.default_rng(1).standard_normal((2, 4))

MODULES = [
    ("ReLU", ()), ("ReLU6", ()), ("LeakyReLU", (0.2,)), ("ELU", (0.5,)), ("SELU", ()),
    ("CELU", (0.7,)), ("GELU", ("tanh",)), ("SiLU", ()), ("Mish", ()), ("Hardtanh", (-0.5, 1.0)),
    ("Hardswish", ()), ("Hardsigmoid", ()), ("Hardshrink", (1.0,)), ("Softshrink", (0.5,)),
    ("Softplus", (2.0, 1.0)), ("Softsign", ()), ("Tanh", ()), ("Sigmoid", ()),
    ("LogSigmoid", ()), ("Tanhshrink", ()), ("Threshold", (0.5, -1.0)), ("Softmax", (1,)),
    ("LogSoftmax", (0,)), ("Softmin", (-1,)), ("GLU", ()), ("RReLU", ()),
]


@pytest.mark.parametrize("name,args", MODULES, ids=[m[0] for m in MODULES])
def test_module_forward_backward_repr(name, args):
    def prog(t):
        m = getattr(t.nn, name)(*args).eval()
        x = t.tensor(np.concatenate([KINKS, X]), requires_grad=True)
        y = m(x)
        y.backward(t.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape))))
        return y, x.grad, repr(m)

    check(prog, rtol=1e-5)


def test_prelu_module_learns_its_weight():
    def prog(t):
        m = t.nn.PReLU(2, init=0.1)
        x = t.tensor(KINKS.reshape(2, 2, 2), dtype=t.float32, requires_grad=True)
        y = m(x)
        (y * t.arange(8.0).reshape(2, 2, 2)).sum().backward()
        return y, x.grad, m.weight.grad, repr(m), m.weight

    check(prog)


@pytest.mark.parametrize("form", [
    lambda t, x: t.nn.functional.relu(x, inplace=True),
    lambda t, x: t.nn.functional.relu_(x),
    lambda t, x: t.relu_(x),
    lambda t, x: x.relu_(),
    lambda t, x: t.nn.functional.elu_(x, 0.5),
    lambda t, x: t.nn.functional.leaky_relu(x, 0.2, True),
    lambda t, x: t.nn.functional.hardtanh_(x, -0.5, 0.5),
    lambda t, x: t.nn.functional.relu6(x, inplace=True),
    lambda t, x: t.nn.functional.threshold_(x, 0.5, 9.0),
    lambda t, x: t.threshold_(x, 0.5, 9.0),
    lambda t, x: t.selu_(x),
    lambda t, x: t.celu_(x, 2.0),
    lambda t, x: t.nn.functional.silu(x, inplace=True),
    lambda t, x: t.nn.functional.hardswish(x, inplace=True),
    lambda t, x: t.nn.functional.rrelu_(x),
    lambda t, x: t.nn.ReLU(inplace=True)(x),
    lambda t, x: t.nn.ELU(inplace=True)(x),
])
def test_inplace_forms(form):
    """The result is written into x (same object, version bumped) and autograd goes through
    the in-place op on a non-leaf."""

    def prog(t):
        leaf = t.tensor(KINKS, requires_grad=True)
        x = leaf * 1.0
        v0 = x._version
        r = form(t, x)
        (r * t.tensor(np.linspace(0.5, 1.5, 8).reshape(2, 4))).sum().backward()
        return r, r is x, x._version > v0, leaf.grad

    check(prog, rtol=1e-5)


def test_inplace_on_leaf_requiring_grad_raises():
    check(lambda t: t.nn.functional.relu(t.ones(2, requires_grad=True), inplace=True),
          raises=RuntimeError)
    check(lambda t: t.nn.functional.elu_(t.ones(2, requires_grad=True)), raises=RuntimeError)


def test_softmax_implicit_dim_warns(tt):
    for ndim, dim in ((1, 0), (2, 1), (3, 0), (4, 1)):
        x = tt.arange(2.0 ** ndim).reshape((2,) * ndim)
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            y = tt.nn.functional.softmax(x)
        np.testing.assert_allclose(np.asarray(y.tolist()),
                                   np.asarray(tt.softmax(x, dim).tolist()), rtol=1e-6)
    with pytest.warns(UserWarning, match="log_softmax"):
        tt.nn.LogSoftmax()(tt.ones(2, 3))


def test_softmax_forms():
    def prog(t):
        x = t.tensor(X, dtype=t.float32)
        return (t.softmax(x, 0), x.softmax(1), x.softmax(dim=-1, dtype=t.float64),
                t.log_softmax(x, 1, t.float64), x.log_softmax(0),
                t.nn.functional.softmin(x, 1, dtype=t.float64),
                t.nn.Softmax2d()(x.reshape(2, 2, 2)), t.nn.Softmax2d()(x.reshape(1, 2, 2, 2)))

    check(prog)
    check(lambda t: t.nn.Softmax2d()(t.ones(2, 3)), raises=ValueError)


def test_rrelu_training_draws_slopes_in_range():
    jtorch.manual_seed(0)
    x = jtorch.full((2000,), -1.0, dtype=jtorch.float64, requires_grad=True)
    y = jtorch.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    slopes = -y.detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.04
    assert abs(slopes.mean() - 0.2) < 0.01
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes)
    assert y.grad_fn.name() == "RreluWithNoiseBackward0"
    pos = jtorch.nn.RReLU().train()(jtorch.ones(5))
    assert (pos.numpy() == 1).all()
    np.testing.assert_allclose(jtorch.rrelu(-jtorch.ones(3)).numpy(), -(1 / 8 + 1 / 3) / 2)


def test_grad_fn_names():
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        F = t.nn.functional
        outs = [t.relu(x), F.relu6(x), F.leaky_relu(x), F.elu(x), t.selu(x), F.gelu(x),
                F.hardswish(x), F.softplus(x), F.logsigmoid(x), t.threshold(x, 0.1, 2.0),
                t.softmax(x, 1), F.log_softmax(x, 1), F.softmin(x, 1), F.glu(x),
                t.prelu(x, t.ones(1, dtype=t.float64)), F.rrelu(x)]
        return [o.grad_fn.name() for o in outs]

    check(prog)


def test_activation_module_constructor_errors():
    check(lambda t: t.nn.ReLU(True, 3), raises=TypeError)
    check(lambda t: t.nn.ELU(alpha=1.0, beta=2.0), raises=TypeError)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda t: t.nn.Hardtanh(1.0, -1.0), raises=AssertionError)
