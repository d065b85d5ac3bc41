"""Op database entries: loss functions (reached through torch.nn.functional)."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary


def _F(name):
    return lambda t, *a, **k: getattr(t.nn.functional, name)(*a, **k)


def _nograd(x: T) -> T:
    return T(x.data, x.dtype, grad=False)


def _prob(shape, dtype="float64"):
    return T(np.random.default_rng(sum(shape)).uniform(0.05, 0.95, shape), dtype)


def _labels(shape, lo=-1.0):
    data = np.where(np.random.default_rng(len(shape)).random(shape) > 0.5, 1.0, lo)
    return T(data, "float64", grad=False)


TGT = idx([0, 2, 3])
W4 = _nograd(_prob((4,)))
_RED = ("mean", "sum", "none")


def _pointwise(name, *extra, reductions=_RED):
    """Samples for an (input, target) loss: each reduction, float32, promotion."""

    def samples():
        x = tensor((3, 4), "float64")
        out = [S(x, _prob((3, 4)), reduction=r) for r in reductions]
        out += [S(tensor((3, 4)), _nograd(_prob((3, 4), "float32")))]
        return out + [s() for s in extra]

    return samples


def _class_errors():
    return [S(tensor((3, 4)), idx([0, 5, 1])), S(tensor((3, 4)), idx([0, 1])),
            S(tensor((3, 4)), tensor((3,))), S(tensor((3, 4)), T(np.array([0, 1, 1]), "int32")),
            S(tensor((3, 4)), TGT, weight=tensor((3,))), S(tensor((3, 4)), TGT, reduction="x"),
            S(tensor((3, 4, 2)), TGT)]


OPS: list[OpInfo] = [
    OpInfo("cross_entropy", lambda: [
        S(tensor((3, 4), "float64"), TGT),
        S(tensor((3, 4), "float64"), idx([0, -100, 3]), weight=W4, reduction="sum"),
        S(tensor((3, 4), "float64"), TGT, weight=W4, label_smoothing=0.2),
        S(tensor((3, 4), "float64"), idx([1, 2, -1]), ignore_index=-1, label_smoothing=0.1),
        S(tensor((3, 4), "float64"), _nograd(_prob((3, 4))), weight=W4, label_smoothing=0.1),
        S(tensor((3, 4), "float64"), _nograd(_prob((3, 4))), reduction="none"),
        S(tensor((3, 2, 2), "float64"), idx([[0, 1], [1, -100], [0, 0]]), reduction="none"),
        S(tensor((3, 2, 2), "float64"), idx([[0, 1], [1, -100], [0, 0]]),
          weight=_nograd(_prob((2,)))),
        S(tensor((4,), "float64"), idx(2)),
        S(tensor((3, 4)), TGT, reduction="none"),
        S(tensor((3, 4)), idx([-100, -100, -100])),
    ], lambda: _class_errors() + [S(tensor((3, 4)), TGT, label_smoothing=1.5)],
        call=_F("cross_entropy"), grad_samples=3),
    OpInfo("nll_loss", lambda: [
        S(tensor((3, 4), "float64"), TGT, weight=W4),
        S(tensor((3, 4), "float64"), idx([0, -100, 3]), reduction="none"),
        S(tensor((3, 2, 2), "float64"), idx([[0, 1], [1, 0], [0, 0]]), reduction="sum"),
        S(tensor((3, 4)), T(np.array([0, 1, 3]), "uint8")),
    ], _class_errors, call=_F("nll_loss")),
    OpInfo("binary_cross_entropy", lambda: [
        S(_prob((3, 4)), _prob((3, 4), "float64"), weight=W4),
        S(_prob((3, 4)), _prob((3, 4), "float64"), reduction="sum"),
        S(T(np.array([0.0, 1.0, 0.5, 1e-50]), "float64"), _nograd(_prob((4,))),
          reduction="none"),
        S(_prob((3, 4), "float32"), _prob((3, 4), "float32")),
    ], lambda: [S(_prob((3,)), _prob((2,))), S(T(np.array([1.5]), "float32"),
                                                _prob((1,), "float32"))],
        call=_F("binary_cross_entropy")),
    OpInfo("binary_cross_entropy_with_logits", _pointwise(
        "bcel", lambda: S(tensor((3, 4), "float64"), _prob((3, 4)), weight=W4, pos_weight=W4)),
        lambda: [S(tensor((3,)), tensor((2,)))], call=_F("binary_cross_entropy_with_logits")),
    OpInfo("mse_loss", _pointwise("mse", lambda: S(tensor((3, 4), "float64"), _prob((3, 4)),
                                                   weight=_nograd(_prob((3, 4)))),
                                  lambda: S(tensor((3, 4), "float64"), _prob((4,)))),
           lambda: [S(tensor((3,)), tensor((2,))), S(tensor((3,)), tensor((3,)),
                                                     weight=tensor((2,)))],
           call=_F("mse_loss")),
    OpInfo("l1_loss", _pointwise("l1", lambda: S(tensor((3, 4), "float64", "ties"),
                                                 tensor((3, 4), "float64", "ties")),
                                 lambda: S(tensor((3, 4), "float64"), _prob((3, 4)),
                                           weight=_nograd(_prob((3, 4))), reduction="sum")),
           call=_F("l1_loss"), grad_samples=3),
    OpInfo("smooth_l1_loss", _pointwise("sl1", lambda: S(tensor((3, 4), "float64"),
                                                         _prob((3, 4)), beta=0.3),
                                        lambda: S(tensor((3, 4), "float64"), _prob((3, 4)),
                                                  beta=0.0)),
           lambda: [S(tensor((3,)), tensor((3,)), beta=-1.0)], call=_F("smooth_l1_loss"),
           grad_samples=3),
    OpInfo("huber_loss", _pointwise("hub", lambda: S(tensor((3, 4), "float64"), _prob((3, 4)),
                                                     delta=0.3, weight=_nograd(_prob((3, 4))))),
           call=_F("huber_loss"), grad_samples=3),
    OpInfo("kl_div", lambda: _pointwise("kl")() + [
        S(tensor((3, 4), "float64"), _prob((3, 4)), reduction="batchmean"),
        S(tensor((3, 4), "float64"), tensor((3, 4), "float64"), reduction="sum",
          log_target=True),
        S(tensor((2,), "float64"), T(np.array([0.0, 0.5]), "float64"), reduction="none"),
    ], call=_F("kl_div"), grad_samples=3),
    OpInfo("poisson_nll_loss", lambda: [
        S(tensor((3, 4), "float64"), _nograd(_prob((3, 4)))),
        S(_prob((3, 4)), T(np.array([[0.0, 1.0, 2.0, 5.0]] * 3), "float64", grad=False),
          log_input=False, full=True, reduction="none"),
        S(tensor((3, 4)), _nograd(_prob((3, 4), "float32")), reduction="sum"),
    ], call=_F("poisson_nll_loss")),
    OpInfo("gaussian_nll_loss", lambda: [
        S(tensor((3, 4), "float64"), _prob((3, 4)), _prob((3, 4))),
        S(tensor((3, 4), "float64"), _prob((3, 4)), _prob((3,)), full=True, reduction="sum"),
        S(tensor((3, 4), "float64"), _prob((3, 4)), _prob((3, 1)), reduction="none"),
        S(tensor((3, 4), "float64"), _prob((3, 4)), T(np.full((3, 4), 1e-8), "float64")),
    ], lambda: [S(tensor((3, 4)), tensor((3, 4)), _prob((2,), "float32")),
                S(tensor((3,)), tensor((3,)), T(np.array([1.0, -1.0, 1.0]), "float32"))],
        call=_F("gaussian_nll_loss"), grad_samples=4),
    OpInfo("cosine_embedding_loss", lambda: [
        S(tensor((3, 4), "float64"), tensor((3, 4), "float64"), _labels((3,))),
        S(tensor((3, 4), "float64"), tensor((3, 4), "float64"), _labels((3,)), margin=-0.5,
          reduction="none"),
        S(tensor((4,), "float64"), tensor((4,), "float64"), T(np.array(-1.0), "float64",
                                                               grad=False), margin=-1.0),
    ], lambda: [S(tensor((3, 4)), tensor((3, 4)), tensor((3, 1))),
                S(tensor((3,)), tensor((3,)), tensor((3,)))], call=_F("cosine_embedding_loss")),
    OpInfo("margin_ranking_loss", lambda: [
        S(tensor((3,), "float64"), tensor((3,), "float64"), _labels((3,)), margin=0.1),
        S(tensor((3,), "float64"), tensor((3,), "float64"), _labels((3,)), reduction="none"),
    ], lambda: [S(tensor((3,)), tensor((3, 1)), tensor((3,)))], call=_F("margin_ranking_loss")),
    OpInfo("triplet_margin_loss", lambda: [
        S(tensor((3, 4), "float64"), tensor((3, 4), "float64"), tensor((3, 4), "float64")),
        S(tensor((3, 4), "float64"), tensor((3, 4), "float64"), tensor((3, 4), "float64"),
          swap=True, p=1, margin=3.0, reduction="none"),
        S(tensor((4,), "float64"), tensor((4,), "float64"), tensor((4,), "float64"),
          margin=5.0, p=3),
    ], lambda: [S(tensor((3, 4)), tensor((3, 4)), tensor((4,)))],
        call=_F("triplet_margin_loss"), grad_samples=3, tol=dict(rtol=1e-5)),
    OpInfo("hinge_embedding_loss", lambda: [
        S(tensor((3, 4), "float64"), _labels((3, 4))),
        S(tensor((3, 4), "float64"), _labels((3, 4)), margin=0.5, reduction="none"),
    ], call=_F("hinge_embedding_loss")),
    OpInfo("soft_margin_loss", lambda: [
        S(tensor((3, 4), "float64"), _labels((3, 4))),
        S(tensor((3, 4), "float64"), _labels((3, 4)), reduction="sum"),
    ], call=_F("soft_margin_loss")),
    OpInfo("multilabel_soft_margin_loss", lambda: [
        S(tensor((3, 4), "float64"), _labels((3, 4), 0.0)),
        S(tensor((3, 4), "float64"), _labels((3, 4), 0.0), weight=W4, reduction="none"),
    ], call=_F("multilabel_soft_margin_loss")),
    OpInfo("multi_margin_loss", lambda: [
        S(tensor((3, 4), "float64"), TGT),
        S(tensor((3, 4), "float64"), TGT, p=2, margin=0.5, weight=W4, reduction="none"),
        S(tensor((4,), "float64"), idx([1]), reduction="sum"),
    ], lambda: [S(tensor((3, 4)), TGT, p=3), S(tensor((3, 4)), idx([0, 1]))],
        call=_F("multi_margin_loss"), grad_samples=3),
    OpInfo("multilabel_margin_loss", lambda: [
        S(tensor((3, 4), "float64"), idx([[0, 2, -1, 1], [3, -1, 0, 0], [1, 2, 3, 0]])),
        S(tensor((3, 4), "float64"), idx([[0, 2, -1, 1], [3, -1, 0, 0], [1, 2, 3, 0]]),
          reduction="none"),
        S(tensor((4,), "float64"), idx([2, 0, -1, 3])),
    ], lambda: [S(tensor((3, 4)), idx([0, 1, 2]))], call=_F("multilabel_margin_loss"),
        grad_samples=3),
    OpInfo("ctc_loss", lambda: [
        S(tensor((5, 2, 4), "float64"), idx([[1, 2], [3, 0]]), idx([5, 4]), idx([2, 1])),
        S(tensor((5, 2, 4), "float64"), idx([1, 1, 3]), idx([2, 5]), idx([2, 1]),
          reduction="none", zero_infinity=True),
        S(tensor((5, 4), "float32"), idx([1, 2]), idx(5), idx(2), blank=3, reduction="sum"),
    ], call=lambda t, x, *a, **k: t.nn.functional.ctc_loss(x.log_softmax(-1), *a, **k),
        tol=dict(rtol=1e-5)),
]
