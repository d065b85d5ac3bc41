"""Op database entries: pooling kernels (reached through torch.nn.functional)."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []


def F(name):
    return lambda t, *a, **k: getattr(t.nn.functional, name)(*a, **k)


_X = tensor((2, 2, 5, 4), "float64")
_X3 = tensor((1, 2, 3, 4, 3), "float64")
_TIES = tensor((2, 2, 4, 4), "float64", kind="ties")
_X7 = tensor((2, 2, 7, 6), "float64")


def _samples(shape, dtype="float64"):
    """Fractional pooling's ``_random_samples``: uniform in [0, 1), passed to both sides."""
    return T(np.random.default_rng(len(shape) + sum(shape)).random(shape), dtype, grad=False)


def _unpool_indices():
    """Flat indices into a 4x4 plane, one per 2x2 window (as max_pool2d(2) returns)."""
    rng = np.random.default_rng(7)
    dh, dw = rng.integers(0, 2, (2, 2, 2, 2)), rng.integers(0, 2, (2, 2, 2, 2))
    oh, ow = np.meshgrid(np.arange(2), np.arange(2), indexing="ij")
    return idx((2 * oh + dh) * 4 + 2 * ow + dw)


def _unpool3d_indices():
    """Flat indices into a 4x4x4 volume, one per 2x2x2 window."""
    rng = np.random.default_rng(8)
    d = rng.integers(0, 2, (3, 1, 2, 2, 2, 2))
    o = np.meshgrid(np.arange(2), np.arange(2), np.arange(2), indexing="ij")
    return idx(((2 * o[0] + d[0]) * 4 + 2 * o[1] + d[1]) * 4 + 2 * o[2] + d[2])


OPS += [
    OpInfo("max_pool2d_with_indices", lambda: [
        S(_X, 2), S(_X, 3, 2, 1, ceil_mode=True), S(_TIES, 2, 1, dilation=(1, 2)),
        S(tensor((2, 4, 4), "int64"), 2),
    ], lambda: [S(_X, 2, 2, 2), S(tensor((2, 2, 4, 4), "bool"), 2), S(_X, 6)],
        call=F("max_pool2d_with_indices")),
    OpInfo("max_pool3d_with_indices", lambda: [S(_X3, 2, padding=1), S(_X3, (1, 2, 2))],
           lambda: [S(_X3, 2, 2, 2)], call=F("max_pool3d_with_indices"), grad_samples=1),
    OpInfo("max_pool2d", lambda: [
        S(_X, 2), S(_X, 3, 2, 1, ceil_mode=True), S(_TIES, 2, 1, dilation=(1, 2)),
        S(_TIES, 2), S(_X7, 3, 3, ceil_mode=True), S(_X7, 2, 2, 1, ceil_mode=True),
        S(tensor((2, 4, 4), "int64"), 2), S(tensor((2, 2, 6, 5), "float32"), 2, 1, 1),
    ], lambda: [S(_X, 2, 2, 2), S(tensor((2, 2, 4, 4), "bool"), 2), S(_X, 6)],
        call=F("max_pool2d")),
    OpInfo("max_pool3d", lambda: [S(_X3, 2, padding=1), S(_X3, (1, 2, 2)),
                                  S(_X3, 2, 2, ceil_mode=True)],
           lambda: [S(_X3, 2, 2, 2)], call=F("max_pool3d"), grad_samples=2),
    OpInfo("avg_pool2d", lambda: [
        S(_X, 2), S(_X, 3, 2, 1, ceil_mode=True), S(_X, 3, 2, 1, True, False),
        S(_X, (2, 3), 1, divisor_override=4), S(tensor((2, 4, 4), "int64"), 3, 2, 1),
    ], lambda: [S(_X, 2, 2, 2), S(tensor((2, 2, 4, 4), "int32"), 2)], call=F("avg_pool2d")),
    OpInfo("avg_pool3d", lambda: [S(_X3, 2, padding=1, count_include_pad=False)],
           call=F("avg_pool3d"), grad_samples=1),
    OpInfo("adaptive_avg_pool2d", lambda: [S(_X, (3, 3)), S(_X, (None, 3)), S(_X, 2)],
           lambda: [S(tensor((2, 2, 4, 4), "int64"), 2)], call=F("adaptive_avg_pool2d")),
    OpInfo("adaptive_avg_pool3d", lambda: [S(_X3, (2, 3, 2))], call=F("adaptive_avg_pool3d"),
           grad_samples=1),
    OpInfo("adaptive_max_pool2d_with_indices", lambda: [S(_X, (3, 3)), S(_TIES, (3, 2))],
           call=F("adaptive_max_pool2d_with_indices")),
    OpInfo("adaptive_max_pool3d_with_indices", lambda: [S(_X3, (2, 3, 2)), S(_X3, 1)],
           lambda: [S(tensor((2, 3), "float64"), 2), S(tensor((1, 2, 3, 4, 3), "int64"), 2)],
           call=F("adaptive_max_pool3d_with_indices"), grad_samples=1),
    OpInfo("fractional_max_pool2d", lambda: [
        S(_X7, 2, (4, 3), _random_samples=_samples((2, 2, 2))),
        S(tensor((2, 7, 6), "float32"), (3, 2), output_ratio=(0.5, 0.6),
          _random_samples=_samples((1, 2, 2), "float32")),
        S(_TIES, 2, 3, _random_samples=_samples((3, 2, 2))),
    ], lambda: [
        S(_X7, 2, _random_samples=_samples((2, 2, 2))),  # neither output_size nor ratio
        S(_X7, 3, 6, _random_samples=_samples((2, 2, 2))),  # pool too large
        S(_X7, 2, 3, _random_samples=_samples((1, 2, 2))),  # too few samples
        S(_X7, 2, 3, _random_samples=_samples((2, 2, 3))),
        S(_X7, 2, 3, _random_samples=_samples((2, 2, 2), "float32")),
        S(tensor((2, 2, 7, 6), "int64"), 2, 3),
    ], call=F("fractional_max_pool2d_with_indices")),
    OpInfo("fractional_max_pool3d", lambda: [
        S(_X3, (1, 2, 1), (2, 2, 2), _random_samples=_samples((1, 2, 3))),
        S(tensor((2, 3, 4, 3), "float32"), (1, 2, 1), (2, 2, 2),
          _random_samples=_samples((1, 2, 3), "float32")),
    ], lambda: [S(_X3, 2, (2, 2, 2), _random_samples=_samples((1, 2, 3)))],
        call=F("fractional_max_pool3d_with_indices"), grad_samples=1),
    OpInfo("_max_unpool3d", lambda: [
        S(tensor((1, 2, 2, 2, 2), "float64"), _unpool3d_indices(), 2),
    ], lambda: [S(tensor((1, 2, 2, 2, 2)), idx(np.full((1, 2, 2, 2, 2), 64)), 2)],
        call=F("max_unpool3d"), grad_samples=1),
    OpInfo("_max_unpool2d", lambda: [
        S(tensor((2, 2, 2, 2), "float64"), _unpool_indices(), 2),
        S(tensor((2, 2, 2, 2), "float64"), _unpool_indices(), 2, output_size=(5, 5)),
    ], lambda: [S(tensor((2, 2, 2, 2)), idx(np.full((2, 2, 2, 2), 16)), 2)],
        call=F("max_unpool2d")),
]
