"""Loss modules, legacy reduction flags and loss-specific errors against PyTorch (the loss
kernels themselves are covered by tests/opdb/nn_loss.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import check

RNG = np.random.default_rng(2)
X = RNG.standard_normal((3, 4))
P = RNG.uniform(0.1, 0.9, (3, 4))
CLS = np.array([0, 3, 1])
SIGNS = np.array([1.0, -1.0, 1.0])
W = RNG.uniform(0.5, 1.5, 4)


def _t(t, a, grad=False):
    x = t.tensor(a)
    return x.requires_grad_(True) if grad else x


# (module name, constructor kwargs, forward arguments: "x" = the differentiable input)
CASES = [
    ("L1Loss", {}, ("x", P)), ("MSELoss", {"reduction": "sum"}, ("x", P)),
    ("NLLLoss", {"weight": W, "ignore_index": 1}, ("x", CLS)),
    ("CrossEntropyLoss", {"weight": W, "label_smoothing": 0.1}, ("x", CLS)),
    ("CrossEntropyLoss", {"reduction": "none"}, ("x", P)),
    ("BCELoss", {"weight": W}, ("sig", P)),
    ("BCEWithLogitsLoss", {"pos_weight": W}, ("x", P)),
    ("PoissonNLLLoss", {"full": True}, ("x", P * 3)),
    ("GaussianNLLLoss", {"full": True}, ("x", P, P)),
    ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, ("x", X)),
    ("HingeEmbeddingLoss", {"margin": 0.5}, ("x", np.sign(P - 0.5))),
    ("MultiLabelMarginLoss", {}, ("x", np.array([[3, 0, -1, 1], [1, -1, 2, 2], [0, 1, 2, 3]]))),
    ("SmoothL1Loss", {"beta": 0.5}, ("x", P)), ("HuberLoss", {"delta": 0.5}, ("x", P)),
    ("SoftMarginLoss", {}, ("x", np.sign(P - 0.5))),
    ("MultiLabelSoftMarginLoss", {"weight": W}, ("x", (P > 0.5) * 1.0)),
    ("CosineEmbeddingLoss", {"margin": 0.1}, ("x", P, SIGNS)),
    ("MarginRankingLoss", {"margin": 0.2}, ("x0", "x1", SIGNS)),
    ("MultiMarginLoss", {"p": 2, "weight": W}, ("x", CLS)),
    ("TripletMarginLoss", {"swap": True, "p": 1.0}, ("x", P, X * 0.3)),
    ("TripletMarginWithDistanceLoss", {"margin": 2.0}, ("x", P, X * 0.3)),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_loss_module(case):
    name, kwargs, fwd = case

    def prog(t):
        kw = {k: _t(t, v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        m = getattr(t.nn, name)(**kw)
        x = _t(t, X, grad=True)
        args = []
        for a in fwd:
            if isinstance(a, str):
                args.append({"x": x, "sig": x.sigmoid(), "x0": x[:, 0], "x1": x[:, 1]}[a])
            else:
                args.append(_t(t, a))
        out = m(*args)
        (out.sum() if out.dim() else out).backward()
        return out, x.grad, repr(m), m.reduction

    check(prog, rtol=1e-5)


def test_ctc_loss_module_with_lists_and_concatenated_targets():
    lp = RNG.standard_normal((6, 2, 5))

    def prog(t):
        x = t.tensor(lp, requires_grad=True)
        m = t.nn.CTCLoss(blank=4, zero_infinity=True)
        out = m(x.log_softmax(2), t.tensor([1, 2, 2, 0]), [6, 5], [3, 1])
        out.backward()
        return out, x.grad, repr(m)

    check(prog, rtol=1e-5)


def test_legacy_reduction_flags():
    def prog(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            F = t.nn.functional
            x, y = t.tensor(X), t.tensor(P)
            return (F.mse_loss(x, y, size_average=False), F.l1_loss(x, y, reduce=False),
                    F.cross_entropy(x, t.tensor(CLS), size_average=True, reduce=True),
                    t.nn.MSELoss(size_average=False).reduction,
                    t.nn.NLLLoss(reduce=False).reduction,
                    t.nn.KLDivLoss(size_average=False).reduction)

    check(prog)


# The samples both libraries reject, by test id, and the exception class.
_LOSS_ERRORS = {
    'bce-range': RuntimeError, 'bcel-size': ValueError, 'ce': ValueError, 'ce-range': IndexError,
    'gauss-neg': ValueError, 'gauss-size': ValueError, 'huber': ValueError, 'mm-p': ValueError,
    'mse': ValueError, 'nll-range-kdim': IndexError, 'twd-margin': ValueError,
}


@pytest.mark.parametrize("prog", [
    lambda t: t.nn.functional.mse_loss(t.ones(3), t.ones(3), reduction="avg"),
    lambda t: t.nn.functional.cross_entropy(t.ones(2, 3), t.tensor([0, 1]), reduction="x"),
    lambda t: t.nn.functional.huber_loss(t.ones(3), t.ones(3), reduction="x"),
    lambda t: t.nn.functional.gaussian_nll_loss(t.ones(3), t.ones(3), -1.0),
    lambda t: t.nn.functional.gaussian_nll_loss(t.ones(2, 3), t.ones(2, 3), t.ones(3, 2)),
    lambda t: t.nn.MultiMarginLoss(p=3),
    lambda t: t.nn.TripletMarginWithDistanceLoss(margin=0.0),
    lambda t: t.nn.functional.cross_entropy(t.ones(2, 3), t.tensor([0, 3])),
    lambda t: t.nn.functional.nll_loss(t.ones(2, 3, 2), t.tensor([[0, 1], [1, 7]])),
    lambda t: t.nn.functional.binary_cross_entropy(t.ones(3) * 2, t.ones(3)),
    lambda t: t.nn.functional.binary_cross_entropy_with_logits(t.ones(3), t.ones(1)),
], ids=["mse", "ce", "huber", "gauss-neg", "gauss-size", "mm-p", "twd-margin", "ce-range",
        "nll-range-kdim", "bce-range", "bcel-size"])
def test_loss_errors(prog, request):
    check(prog, raises=_LOSS_ERRORS.get(request.node.callspec.id))


def test_kl_div_mean_warns_and_mse_size_warns(tt):
    F = tt.nn.functional
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(tt.zeros(2, 2), tt.ones(2, 2))
    with pytest.warns(UserWarning, match="different to the input size"):
        F.mse_loss(tt.zeros(2, 2), tt.ones(2))


def test_gaussian_nll_float_var_and_clamped_var_gradient():
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        var = t.tensor(np.full((3, 4), 1e-9), requires_grad=True)
        a = t.nn.functional.gaussian_nll_loss(x, t.tensor(P), 0.5)
        b = t.nn.functional.gaussian_nll_loss(x, t.tensor(P), var, eps=1e-3)
        (a + b).backward()
        return a, b, x.grad, var.grad

    check(prog, rtol=1e-5)


def test_cross_entropy_all_ignored_is_nan_and_grad_fn_names():
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        F = t.nn.functional
        return (F.cross_entropy(x, t.tensor([-100, -100, -100])),
                F.cross_entropy(x, t.tensor(CLS)).grad_fn.name(),
                F.cross_entropy(x, t.tensor(CLS), label_smoothing=0.1).grad_fn.name(),
                F.nll_loss(x, t.tensor(CLS)).grad_fn.name(),
                F.mse_loss(x, t.tensor(P)).grad_fn.name(),
                F.binary_cross_entropy_with_logits(x, t.tensor(P)).grad_fn.name())

    check(prog)
