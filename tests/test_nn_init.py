"""nn.init: exact values for deterministic initializers, statistics for random ones."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from conftest import check, to_numpy

import jtorch


def same(prog, **tol):
    check(prog, **tol)


def test_calculate_gain_and_fans():
    def prog(t):
        init = t.nn.init
        out = [init.calculate_gain(n) for n in (
            "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
            "conv_transpose3d", "sigmoid", "tanh", "relu", "leaky_relu", "selu")]
        out += [init.calculate_gain("leaky_relu", 0.2), init.calculate_gain("leaky_relu", 1)]
        for bad in (("gelu", None), ("leaky_relu", True), ("leaky_relu", "x")):
            try:
                init.calculate_gain(*bad)
            except ValueError as e:
                out.append(str(e))
        out += [init._calculate_fan_in_and_fan_out(t.empty(s)) for s in
                ((3, 4), (5, 2, 3, 3), (2, 3, 4))]
        try:
            init._calculate_fan_in_and_fan_out(t.empty(3))
        except ValueError as e:
            out.append(str(e))
        return out

    same(prog)


def test_deterministic_initializers():
    def prog(t):
        init = t.nn.init
        p = t.nn.Parameter(t.empty(3, 4))
        out = [init.constant_(p, 0.5) is p, p.clone(), p.is_leaf, p.requires_grad]
        out += [init.ones_(t.empty(2, 2)), init.zeros_(t.empty(2, 3, dtype=t.float64)),
                init.eye_(t.empty(2, 3)), init.eye_(t.empty(3, 2)),
                init.dirac_(t.empty(4, 2, 3)), init.dirac_(t.empty(4, 2, 3, 3), groups=2),
                init.dirac_(t.empty(2, 3, 1, 3, 3))]
        for bad in (lambda: init.eye_(t.empty(2)), lambda: init.dirac_(t.empty(2, 2)),
                    lambda: init.dirac_(t.empty(3, 2, 2), groups=2),
                    lambda: init.orthogonal_(t.empty(3)), lambda: init.sparse_(t.empty(3), 0.1),
                    lambda: init.kaiming_uniform_(t.empty(3, 3), mode="fan_avg")):
            try:
                bad()
                out.append(None)
            except ValueError as e:
                out.append(str(e))
        return out

    same(prog)


def _stats(t):
    a = to_numpy(t).astype(np.float64)
    return a.mean(), a.std(), a.min(), a.max()


_RANDOM = {
    "uniform": lambda init, x: init.uniform_(x, -2.0, 3.0),
    "normal": lambda init, x: init.normal_(x, 1.0, 0.5),
    "xavier_uniform": lambda init, x: init.xavier_uniform_(x, gain=2.0),
    "xavier_normal": lambda init, x: init.xavier_normal_(x),
    "kaiming_uniform": lambda init, x: init.kaiming_uniform_(x, a=math.sqrt(5)),
    "kaiming_normal": lambda init, x: init.kaiming_normal_(x, mode="fan_out",
                                                           nonlinearity="relu"),
    "trunc_normal": lambda init, x: init.trunc_normal_(x, 0.5, 1.0, -1.0, 1.5),
    "trunc_normal_narrow": lambda init, x: init.trunc_normal_(x, std=0.02),
    "sparse": lambda init, x: init.sparse_(x, 0.3, std=0.5),
}


@pytest.mark.parametrize("name", list(_RANDOM))
def test_random_statistics(name):
    """~10^4 samples: mean/std close to torch's, bounds inside torch's support."""
    shape = (50, 200)
    ref = _RANDOM[name](torch.nn.init, torch.empty(shape))
    got = _RANDOM[name](jtorch.nn.init, jtorch.empty(shape))
    assert got.dtype == jtorch.float32 and tuple(got.shape) == shape
    (rm, rs, rlo, rhi), (gm, gs, glo, ghi) = _stats(ref), _stats(got)
    assert abs(gm - rm) < 0.05 * rs + 1e-6, (gm, rm)
    assert abs(gs - rs) < 0.05 * rs, (gs, rs)
    if name in ("uniform", "xavier_uniform", "kaiming_uniform", "trunc_normal"):
        lo, hi = {"uniform": (-2, 3), "trunc_normal": (-1, 1.5)}.get(name, (-3 * rs, 3 * rs))
        assert lo <= glo and ghi <= hi
        assert abs(glo - rlo) < 0.05 * rs and abs(ghi - rhi) < 0.05 * rs
    if name == "trunc_normal_narrow":
        assert -2 <= glo and ghi <= 2
    if name == "sparse":
        zeros = (to_numpy(got) == 0).sum(0)
        assert (zeros == math.ceil(0.3 * shape[0])).all()


@pytest.mark.parametrize("shape,gain", [((4, 6), 1.0), ((6, 2, 2), 2.0)])
def test_orthogonal(tt, shape, gain):
    x = tt.nn.Parameter(tt.empty(shape, dtype=tt.float64))
    assert tt.nn.init.orthogonal_(x, gain=gain) is x
    m = to_numpy(x).reshape(shape[0], -1)
    small = m @ m.T if m.shape[0] < m.shape[1] else m.T @ m
    np.testing.assert_allclose(small, gain**2 * np.eye(small.shape[0]), atol=1e-10)
    assert x.grad_fn is None and x.requires_grad


def test_generator_reproducible_and_default_stream(tt):
    init = tt.nn.init
    outs = []
    for _ in range(2):
        g = tt.Generator().manual_seed(7)
        outs.append([init.kaiming_normal_(tt.empty(50, 200), generator=g),
                     init.trunc_normal_(tt.empty(50, 200), generator=g),
                     init.orthogonal_(tt.empty(4, 6), generator=g)])
    for a, b in zip(*outs):
        assert (a == b).all()
    assert not (outs[0][0] == init.kaiming_normal_(tt.empty(50, 200))).all()


def test_zero_element_and_deprecated(tt):
    init = tt.nn.init
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        x = tt.empty(0, 3)
        assert init.kaiming_uniform_(x) is x
        init.normal(tt.empty(2))
    assert [c.category for c in w] == [UserWarning, FutureWarning]


def test_half_dtype(tt):
    x = tt.empty(8, 8, dtype=tt.float16)
    tt.nn.init.trunc_normal_(x)
    tt.nn.init.xavier_uniform_(x)
    assert x.dtype == tt.float16 and bool((x != 0).any())
