"""Op database entries: normalization (batch/instance norm through torch.nn.functional;
their running-statistics updates are tested in test_nn_norm.py)."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []
TOL = dict(rtol=1e-5, atol=1e-5)


def F(name):
    return lambda t, *a, **k: getattr(t.nn.functional, name)(*a, **k)


_X = tensor((2, 3, 4, 2), "float64")
_C = (tensor((3,), "float64"), tensor((3,), "float64"))


def _stats():
    return (T(np.zeros(3) + 0.2, "float64", grad=False), T(np.ones(3) * 1.5, "float64",
                                                             grad=False))


OPS += [
    OpInfo("_batch_norm", lambda: [
        S(_X, None, None, *_C, True), S(_X, *_stats(), *_C, False),
        S(tensor((4, 3), "float64"), *_stats(), training=True, momentum=0.2),
        S(tensor((2, 3, 4)), None, None, training=True),
    ], lambda: [S(tensor((1, 3)), None, None, training=True),
                S(_X, None, None, tensor((2,), "float64"), None, True),
                S(tensor((2, 3), "int64"), None, None, training=True)],
        call=F("batch_norm"), tol=TOL),
    OpInfo("_instance_norm", lambda: [
        S(_X, weight=_C[0], bias=_C[1]), S(_X, *_stats(), use_input_stats=False),
        S(tensor((2, 3, 5)), *_stats()),
    ], lambda: [S(tensor((2, 3, 1)))], call=F("instance_norm"), tol=TOL),
    OpInfo("layer_norm", lambda: [
        S(_X, (4, 2), tensor((4, 2), "float64"), tensor((4, 2), "float64")),
        S(_X, [2]), S(tensor((2, 3, 4)), (4,), eps=1e-3),
    ], lambda: [S(_X, (3,)), S(_X, (2,), tensor((3,))), S(tensor((2, 3), "int64"), (3,))],
        call=F("layer_norm"), tol=TOL),
    OpInfo("group_norm", lambda: [
        S(tensor((2, 4, 3), "float64"), 2, tensor((4,), "float64"), tensor((4,), "float64")),
        S(_X, 1), S(tensor((2, 4, 3)), 4, eps=1e-3),
    ], lambda: [S(_X, 2), S(_X, 3, tensor((2,)))], call=F("group_norm"), tol=TOL),
    OpInfo("rms_norm", lambda: [
        S(_X, (2,), tensor((2,), "float64")), S(_X, [4, 2], eps=1e-3), S(tensor((2, 3)), (3,)),
    ], lambda: [S(_X, (3,))], call=F("rms_norm"), tol=TOL),
]
