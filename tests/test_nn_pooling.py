"""Pooling modules (fractional, adaptive 3-d, LP 3-d, unpool 3-d) against PyTorch; the
kernels themselves are in the op database (opdb/nn_pool.py)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check

import jtorch

RNG = np.random.default_rng(3)
X5 = RNG.standard_normal((2, 2, 4, 5, 4))
X4 = RNG.standard_normal((2, 3, 8, 7))
SAMPLES = RNG.random((2, 3, 2))


@pytest.mark.parametrize("case", [
    ("adaptive_max3d", lambda t: t.nn.AdaptiveMaxPool3d((2, 3, 1), return_indices=True), X5),
    ("lp3d", lambda t: t.nn.LPPool3d(2, (2, 2, 1), stride=1), X5),
    ("lp3d_inf", lambda t: t.nn.LPPool3d(float("inf"), 2), X5),
    ("fractional2d", lambda t: t.nn.FractionalMaxPool2d(
        3, output_size=(4, 3), return_indices=True,
        _random_samples=t.tensor(SAMPLES, dtype=t.float64)), X4),
    ("fractional2d_ratio", lambda t: t.nn.FractionalMaxPool2d(
        2, output_ratio=0.5, _random_samples=t.tensor(SAMPLES, dtype=t.float64)), X4),
], ids=lambda c: c[0])
def test_module_matches_torch(case):
    _, make, x = case

    def prog(t):
        m = make(t)
        xt = t.tensor(x, requires_grad=True)
        out = m(xt)
        y = out[0] if isinstance(out, tuple) else out
        y.pow(2).sum().backward()
        return out, xt.grad, repr(m), list(m.state_dict())

    check(prog)


def test_fractional_draws_from_jtorch_generator():
    """Without ``_random_samples`` the offsets come from torch.rand(N, C, n): seeding the
    global generator reproduces them."""
    x = jtorch.tensor(X4)
    m = jtorch.nn.FractionalMaxPool2d(3, output_size=(4, 3))
    jtorch.manual_seed(11)
    out = m(x)
    jtorch.manual_seed(11)
    samples = jtorch.rand(2, 3, 2, dtype=jtorch.float64)
    expected = jtorch.nn.functional.fractional_max_pool2d(x, 3, (4, 3), _random_samples=samples)
    np.testing.assert_array_equal(out.numpy(), expected.numpy())
    assert not np.array_equal(m(x).numpy(), out.numpy())  # the next call draws new offsets


@pytest.mark.parametrize("kwargs", [dict(), dict(output_size=2, output_ratio=0.5),
                                    dict(output_ratio=1.5), dict(kernel_size=0, output_size=2)])
def test_fractional_module_errors(kwargs):
    kwargs = {"kernel_size": 2, **kwargs}
    check(lambda t: t.nn.FractionalMaxPool3d(**kwargs), raises=ValueError)


def test_max_unpool3d_module_roundtrip():
    def prog(t):
        x = t.tensor(X5[:, :, :4, :4, :4])
        y, i = t.nn.MaxPool3d(2, return_indices=True)(x)
        return t.nn.MaxUnpool3d(2)(y, i), repr(t.nn.MaxUnpool3d(2))

    check(prog)


def _nan_ties():
    x = np.random.default_rng(5).integers(-2, 3, (2, 3, 7, 6)).astype(np.float64)
    x[0, 0, 0, 1] = x[0, 1, 2, 2] = x[1, 2, 5, 5] = x[1, 2, 5, 4] = np.nan
    x[1, 0, :2, :2] = [[-0.0, 0.0], [0.0, -0.0]]
    return x


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1,
                                ceil_mode=True), dict(kernel_size=2, stride=1, dilation=2)],
                         ids=["tiled", "padded_ceil", "dilated"])
@pytest.mark.parametrize("dims", [1, 2])
def test_max_pool_values_alone_pick_as_pytorch(kw, dims):
    """Without return_indices max pooling computes its values alone (reduce_window): the
    values, NaNs included, and the gradient, all of it to the first maximum or last NaN
    of each window (ties everywhere here), are PyTorch's, as is the grad_fn."""
    x = _nan_ties() if dims == 2 else _nan_ties().reshape(2, 3, 42)

    def prog(t):
        xt = t.tensor(x, requires_grad=True)
        out = getattr(t.nn.functional, f"max_pool{dims}d")(xt, **kw)
        out.backward(t.ones_like(out))
        return out, xt.grad, out.grad_fn.name()

    check(prog)
