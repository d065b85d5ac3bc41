"""Op database entries: padding, upsampling, shuffles, unfold/fold, grid sampling."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []
TOL = dict(rtol=1e-5, atol=1e-5)


def F(name):
    return lambda t, *a, **k: getattr(t.nn.functional, name)(*a, **k)


_X = tensor((2, 2, 4, 3), "float64")
_X1 = tensor((2, 2, 5), "float64")


def _grid(shape):
    return T(np.random.default_rng(3).uniform(-1.2, 1.2, shape), "float64")


OPS += [
    OpInfo("pad", lambda: [
        S(_X, (1, 2)), S(_X, (1, -1, 2, 0), value=1.5), S(_X, (1, 2, 0, 1), "reflect"),
        S(_X, (2, 1, 1, 3), mode="replicate"), S(_X, (1, 2, 2, 1), mode="circular"),
        S(_X1, (2, 1), "reflect"), S(tensor((2, 3), "int64"), (1, 1, 1, 0), value=7),
    ], lambda: [S(_X, (1,)), S(_X, (3, 3), "reflect"), S(_X, (1, 1) * 4, "reflect"),
                S(_X, (1, 1), "circular", 2.0)], call=F("pad")),
    OpInfo("_upsample", lambda: [
        S(_X, size=(7, 5)), S(_X, scale_factor=1.7, mode="nearest-exact"),
        S(_X, scale_factor=(2, 0.6), mode="bilinear"),
        S(_X, size=(5, 6), mode="bilinear", align_corners=True),
        S(_X, scale_factor=1.5, mode="bicubic"), S(_X1, size=8, mode="linear"),
        S(tensor((1, 2, 2, 3, 2), "float64"), scale_factor=2, mode="trilinear"),
        S(tensor((1, 2, 3, 3), "uint8"), scale_factor=1.5),
    ], lambda: [S(_X, scale_factor=2, mode="linear"), S(_X, size=3, scale_factor=2),
                S(_X, size=3, align_corners=True), S(tensor((1, 2, 3, 3), "int64"), size=4,
                                                     mode="bilinear")],
        call=F("interpolate"), grad_samples=2, tol=TOL),
    OpInfo("pixel_shuffle", lambda: [S(tensor((2, 8, 2, 3), "float64"), 2),
                                     S(tensor((9, 1, 2)), 3)],
           lambda: [S(tensor((2, 3, 2, 2)), 2)]),
    OpInfo("pixel_unshuffle", lambda: [S(tensor((2, 2, 4, 6), "float64"), 2)],
           lambda: [S(tensor((2, 2, 3, 4)), 2)]),
    OpInfo("channel_shuffle", lambda: [S(tensor((2, 6, 2), "float64"), 3)],
           lambda: [S(tensor((2, 5, 2)), 2)]),
    OpInfo("im2col", lambda: [
        S(_X, 2), S(_X, (2, 3), dilation=(1, 1), padding=1, stride=(2, 1)),
        S(tensor((2, 4, 4), "float64"), 2, dilation=2),
    ], lambda: [S(_X, 5), S(tensor((1, 2, 2, 4, 4)), 2)], call=F("unfold")),
    OpInfo("col2im", lambda: [
        S(tensor((2, 8, 6), "float64"), (4, 3), 2),
        S(tensor((2, 12, 9), "float64"), (4, 3), (2, 3), padding=1, stride=(2, 1)),
    ], lambda: [S(tensor((2, 7, 6)), (4, 3), 2), S(tensor((2, 8, 5)), (4, 3), 2)],
        call=F("fold")),
    OpInfo("_grid_sample", lambda: [
        S(_X, _grid((2, 3, 2, 2)), align_corners=False),
        S(_X, _grid((2, 3, 2, 2)), "nearest", "border", True),
        S(_X, _grid((2, 3, 2, 2)), "bicubic", "reflection", False),
        S(_X, _grid((2, 3, 2, 2)), "bilinear", "reflection", True),
        S(tensor((1, 2, 2, 3, 2), "float64"), _grid((1, 2, 2, 2, 3)), align_corners=False),
    ], lambda: [S(_X, _grid((2, 3, 2, 3)), align_corners=False),
                S(_X, _grid((2, 3, 2, 2)), "area", align_corners=False)],
        call=F("grid_sample"), grad_samples=3, tol=TOL),
    OpInfo("affine_grid_generator", lambda: [
        S(tensor((2, 2, 3), "float64"), (2, 3, 4, 3), False),
        S(tensor((2, 2, 3), "float64"), (2, 1, 3, 5), True),
        S(tensor((1, 3, 4), "float64"), (1, 2, 2, 3, 2), False),
    ], tol=TOL),
]
