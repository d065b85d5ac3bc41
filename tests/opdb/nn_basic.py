"""Op database entries: linear maps, embeddings, one_hot, normalize and distances."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary


def _F(name):
    return lambda t, *a, **k: getattr(t.nn.functional, name)(*a, **k)


W43 = tensor((4, 3), "float64")
IDX = idx([[0, 2], [3, 2]])
ZERO_ROW = T(np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]]), "float64")
# Repeated rows and equal coordinates: zero distances, zero differences and ties for the
# max, where PyTorch's pdist gradient has its own conventions.
_PD = tensor((5, 2), "float64", kind="ties")

OPS: list[OpInfo] = [
    OpInfo("linear", lambda: [
        S(tensor((2, 3), "float64"), W43, tensor((4,), "float64")),
        S(tensor((2, 2, 3), "float64"), W43),
        S(tensor((3,), "float64"), W43, tensor((4,), "float64")),
        S(tensor((2, 3)), tensor((4, 3))),
        S(tensor((2, 3), "int64"), tensor((4, 3), "int64"), tensor((4,), "int64")),
    ], lambda: [S(tensor((2, 3)), tensor((4, 2))), S(tensor((2, 3)), tensor((4, 3), "float64"))],
        call=_F("linear")),
    OpInfo("bilinear", lambda: [
        S(tensor((2, 3), "float64"), tensor((2, 2), "float64"), tensor((4, 3, 2), "float64"),
          tensor((4,), "float64")),
        S(tensor((2, 3)), tensor((2, 2)), tensor((4, 3, 2))),
    ], lambda: [S(tensor((2, 3)), tensor((2, 2)), tensor((4, 2, 2))),
                S(tensor((2, 3)), tensor((1, 2)), tensor((4, 3, 2)))], tol=dict(rtol=1e-5)),
    OpInfo("embedding", lambda: [
        S(W43, IDX), S(W43, idx([1, 1, 3]), 1), S(W43, idx([0, 0, 3, 0]), -1, True),
        S(tensor((4, 3)), T(np.array([2, 3]), "int32")), S(W43, idx(2)),
    ], lambda: [S(W43, idx([0, 4])), S(W43, tensor((2,)))], grad_samples=3),
    OpInfo("_embedding_renorm", lambda: [
        S(tensor((4, 3), "float64"), idx([0, 2, 2]), 1.0, 2.0),
        S(tensor((4, 3)), idx([[1, 3]]), 0.5, 1.0),
    ], lambda: [S(tensor((4, 3)), idx([5]), 1.0, 2.0)], grad=False,
        call=lambda t, w, i, mn, nt: t.embedding_renorm_(w.clone(), i, mn, nt)),
    OpInfo("embedding_bag", lambda: [
        S(idx([0, 2, 1, 3, 3]), W43, idx([0, 2, 2])),
        S(idx([0, 2, 1, 3, 3]), W43, idx([0, 2, 2]), mode="sum",
          per_sample_weights=tensor((5,), "float64")),
        S(idx([0, 2, 1, 3, 3]), W43, idx([0, 1, 3, 5]), mode="max", include_last_offset=True),
        S(idx([[0, 2, 1], [3, 1, 1]]), W43, padding_idx=1),
        S(idx([[0, 2, 1], [3, 1, 1]]), W43, mode="sum", padding_idx=1),
        S(idx([0, 2, 1, 3]), tensor((4, 3)), idx([0, 3]), mode="max"),
    ], lambda: [
        S(idx([0, 1]), W43, idx([1])), S(idx([[0, 1]]), W43, idx([0])), S(idx([0, 1]), W43),
        S(idx([0, 1]), W43, idx([0]), per_sample_weights=tensor((2,), "float64")),
        S(idx([0, 7]), W43, idx([0])),
    ], call=_F("embedding_bag"), grad_samples=3),
    OpInfo("one_hot", lambda: [S(idx([0, 2, 1])), S(idx([[0, 3], [1, 1]]), 5), S(idx(2), 3)],
           lambda: [S(idx([0, -1])), S(idx([0, 3]), 2), S(tensor((2,))),
                    S(T(np.zeros((0,), np.int64), "int64"))], grad=False,
           call=_F("one_hot")),
    OpInfo("normalize", lambda: [
        S(tensor((2, 3), "float64")), S(ZERO_ROW, dim=1), S(ZERO_ROW, 1.0, 0),
        S(tensor((2, 3), "float64"), float("inf"), -1), S(tensor((2, 3)), 3.0),
        S(tensor((3,), "float64"), dim=0),
    ], lambda: [S(tensor((2, 3), "int64"))], call=_F("normalize"), grad_samples=4),
    OpInfo("cosine_similarity", lambda: [
        S(tensor((2, 3), "float64"), tensor((2, 3), "float64")),
        S(ZERO_ROW, tensor((3,), "float64"), -1),
        S(tensor((2, 3)), tensor((2, 1)), 0, 1e-3),
        S(tensor((2, 3), "int64"), tensor((2, 3)), 1),
    ], lambda: [S(tensor((2, 3), "int64"), tensor((2, 3), "int64"))], grad_samples=3),
    OpInfo("pdist", lambda: [
        S(_PD, p) for p in (2.0, 1.0, 0.0, float("inf"), 0.5, 3.0)
    ] + [S(tensor((5, 3), "float32")), S(tensor((1, 3), "float64")), S(tensor((3, 0), "float64"))],
        lambda: [S(tensor((3,))), S(tensor((2, 3, 4))), S(tensor((3, 2), "int64")),
                 S(tensor((3, 2)), -1.0), S(tensor((3, 2), "float16"))], grad_samples=6),
    OpInfo("pairwise_distance", lambda: [
        S(tensor((2, 3), "float64"), tensor((2, 3), "float64")),
        S(tensor((2, 3), "float64"), tensor((3,), "float64"), 1.0, 1e-6, True),
        S(ZERO_ROW, T(np.array([[-1e-6] * 3, [0.0] * 3]), "float64"), 2.0, 1e-6),
        S(tensor((2, 3), "float64"), tensor((2, 3), "float64"), float("inf")),
        S(tensor((3,)), tensor((3,)), 3.0),
    ], lambda: [S(tensor((2, 3)), tensor((4,)))], grad_samples=4),
]
