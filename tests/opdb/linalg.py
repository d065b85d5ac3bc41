"""Op database entries: matrix products, norms, triangles and diagonals."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []
F64 = "float64"
TOL = dict(rtol=1e-5, atol=1e-5)


def _mm_samples():
    return [
        S(tensor((2, 3)), tensor((3, 4))),
        S(tensor((2, 3), F64), tensor((3, 4), F64)),
        S(tensor((3,), F64), tensor((3,), F64)),
        S(tensor((3,), F64), tensor((3, 4), F64)),
        S(tensor((2, 3), F64), tensor((3,), F64)),
        S(tensor((2, 2, 3), F64), tensor((3, 4), F64)),
        S(tensor((2, 1, 2, 3), F64), tensor((3, 3, 2), F64)),
        S(tensor((3,), F64), tensor((2, 3, 4), F64)),
        S(tensor((2, 3), "int64"), tensor((3, 4), "int64")),
    ]


OPS.append(OpInfo("matmul", _mm_samples, lambda: [
    S(tensor((2, 3)), tensor((3, 4), F64)), S(tensor((2, 3)), tensor((2, 3))),
    S(tensor((3,)), tensor((4,))), S(tensor(())), S(tensor((2, 2, 3)), tensor((3, 3, 4))),
    S(tensor((2, 2), "bool"), tensor((2, 2), "bool")),
], tol=TOL))

OPS.append(OpInfo("mm", lambda: _mm_samples()[:2] + [_mm_samples()[-1]], lambda: [
    S(tensor((2, 3)), tensor((3, 4), F64)), S(tensor((2, 3)), tensor((3,))),
    S(tensor((3,)), tensor((3, 2))), S(tensor((2, 3)), tensor((2, 3))),
], tol=TOL))

OPS.append(OpInfo("mv", lambda: [
    S(tensor((2, 3)), tensor((3,))), S(tensor((2, 3), F64), tensor((3,), F64)),
    S(tensor((2, 3), "int64"), tensor((3,), "int64")),
], lambda: [S(tensor((2, 3)), tensor((2,))), S(tensor((3,)), tensor((3,))),
            S(tensor((2, 3)), tensor((3,), F64))], tol=TOL))

OPS.append(OpInfo("bmm", lambda: [
    S(tensor((2, 2, 3)), tensor((2, 3, 4))), S(tensor((2, 2, 3), F64), tensor((2, 3, 4), F64)),
], lambda: [S(tensor((2, 3)), tensor((3, 4))), S(tensor((2, 2, 3)), tensor((3, 3, 4))),
            S(tensor((2, 2, 3)), tensor((2, 3, 4), F64))], tol=TOL))

_VEC_ERRORS = lambda: [S(tensor((2, 3)), tensor((2, 3))), S(tensor((3,)), tensor((2,))),  # noqa: E731
                       S(tensor((3,)), tensor((3,), F64))]
OPS.append(OpInfo("dot", lambda: [
    S(tensor((3,)), tensor((3,))), S(tensor((3,), F64), tensor((3,), F64)),
    S(tensor((3,), "int64"), tensor((3,), "int64")),
], _VEC_ERRORS, tol=TOL))
OPS.append(OpInfo("vdot", lambda: [
    S(tensor((3,), F64), tensor((3,), F64)),
    S(tensor((3,), "complex64"), tensor((3,), "complex64")),
], _VEC_ERRORS, tol=TOL))
OPS.append(OpInfo("inner", lambda: [
    S(tensor((2, 3), F64), tensor((4, 3), F64)), S(tensor((3,), F64), tensor((3,), F64)),
    S(tensor((), F64), tensor((2, 3), F64)), S(tensor((2, 3), "int64"), tensor((3,), "int64")),
], lambda: [S(tensor((2, 3)), tensor((3,), F64)), S(tensor((2, 3)), tensor((2,)))], tol=TOL))
OPS.append(OpInfo("outer", lambda: [
    S(tensor((3,), F64), tensor((2,), F64)), S(tensor((3,)), tensor((2,), F64)),
    S(tensor((3,), "int64"), tensor((2,), "bool")),
], lambda: [S(tensor((2, 3)), tensor((2,)))]))
OPS.append(OpInfo("kron", lambda: [
    S(tensor((2, 2), F64), tensor((2, 3), F64)), S(tensor((2,)), tensor((2, 2), F64)),
    S(tensor((2, 1, 2), "int64"), tensor((3,), "int64")),
]))


def _scaled(shapes, broadcast):
    def samples():
        a, b, c = (tensor(s, F64) for s in shapes)
        nan = T(np.full(shapes[0], np.nan), F64)
        return [
            S(a, b, c), S(a, b, c, beta=0.5, alpha=2), S(nan, b, c, beta=0),
            *([S(tensor(broadcast, F64), b, c, alpha=-1.5)] if broadcast else []),
            S(*(tensor(s) for s in shapes)),
            S(*(tensor(s, "int64") for s in shapes), beta=2, alpha=3),
        ]

    return samples


def _scaled_errors(shapes):
    # addr promotes like mul; the others need one dtype.
    bad = (tensor((2, 2)), tensor((3,))) if len(shapes[1]) == 1 and len(shapes[2]) == 1 else (
        tensor(shapes[1]), tensor(shapes[2]))
    return lambda: [S(tensor(shapes[0], F64), *bad),
                    S(tensor((5,)), tensor(shapes[1]), tensor(shapes[2]))]


for _name, _shapes, _bc in (
        ("addmm", ((2, 4), (2, 3), (3, 4)), (4,)),
        ("addmv", ((2,), (2, 3), (3,)), ()),
        ("addr", ((2, 3), (2,), (3,)), (1, 3)),
        ("baddbmm", ((2, 2, 4), (2, 2, 3), (2, 3, 4)), (2, 4)),
        # PyTorch's addbmm_ resizes a broadcast self; tested in test_linalg.py instead.
        ("addbmm", ((2, 4), (2, 2, 3), (2, 3, 4)), None)):
    OPS.append(OpInfo(_name, _scaled(_shapes, _bc), _scaled_errors(_shapes), tol=TOL))

OPS.append(OpInfo("cross", lambda: [
    S(tensor((2, 3), F64), tensor((2, 3), F64), dim=1),
    S(tensor((3, 2), F64), tensor((3, 2), F64), 0), S(tensor((2, 3)), tensor((1, 3)), dim=-1),
], lambda: [S(tensor((2, 4)), tensor((2, 4)), dim=1), S(tensor((3,)), tensor((3,), F64), dim=0)],
    tol=TOL))
OPS.append(OpInfo("linalg_cross", lambda: [
    S(tensor((2, 3), F64), tensor((1, 3), F64)), S(tensor((3, 2), F64), tensor((3, 2), F64), dim=0),
    S(tensor((4, 3)), tensor((4, 3))),
], lambda: [S(tensor((2, 2)), tensor((2, 2)))],
    call=lambda t, *a, **k: t.linalg.cross(*a, **k), tol=TOL))
OPS.append(OpInfo("tensordot", lambda: [
    S(tensor((2, 3, 4), F64), tensor((3, 4, 2), F64)),
    S(tensor((2, 3), F64), tensor((3, 4), F64), dims=([1], [0])),
    S(tensor((2, 3, 4)), tensor((4, 3)), dims=([1, 2], [1, 0])),
    S(tensor((2,), F64), tensor((3,), F64), 0),
], lambda: [S(tensor((2, 3)), tensor((2, 3)), dims=([0], [1])),
            S(tensor((2, 3)), tensor((3, 4), F64), dims=1)], tol=TOL))


def _einsum(t, equation, operands):
    return t.einsum(equation, *operands)


OPS.append(OpInfo("_einsum", lambda: [
    S("ij,jk->ik", [tensor((2, 3), F64), tensor((3, 4), F64)]),
    S("...ij,...jk", [tensor((2, 2, 3), F64), tensor((3, 4), F64)]),
    S("ii->i", [tensor((3, 3), F64)]), S("i,i->", [tensor((3,)), tensor((3,))]),
    S("bij->bji", [tensor((2, 3, 4), "int64")]),
    S("i,j->ij", [tensor((3,), F64), tensor((2,), F64)]),
], lambda: [S("ij,jk", [tensor((2, 3)), tensor((3, 4), F64)]),
            S("ij,jk", [tensor((2, 3))]), S("ij,jk", [tensor((2, 3)), tensor((4, 4))])],
    call=_einsum, tol=TOL))
OPS.append(OpInfo("linalg_multi_dot", lambda: [
    S([tensor((2, 3), F64), tensor((3, 4), F64), tensor((4, 2), F64)]),
    S([tensor((3,), F64), tensor((3, 4), F64), tensor((4,), F64)]),
    S([tensor((3,)), tensor((3, 2))]),
], lambda: [S([tensor((2, 3))]), S([tensor((2, 3)), tensor((2, 3))]),
            S([tensor((2, 3)), tensor((2, 3, 3)), tensor((3, 2))])],
    call=lambda t, *a, **k: t.linalg.multi_dot(*a, **k), tol=TOL))
OPS.append(OpInfo("linalg_vecdot", lambda: [
    S(tensor((2, 3), F64), tensor((3,), F64)), S(tensor((3, 2), F64), tensor((3, 2), F64), dim=0),
    S(tensor((2, 3)), tensor((2, 3))),
], lambda: [S(tensor((2, 3), "int64"), tensor((2, 3), "int64")),
            S(tensor((2, 3)), tensor((2, 3), F64))],
    call=lambda t, *a, **k: t.linalg.vecdot(*a, **k), tol=TOL))


def _well_conditioned(shape, dtype=F64):
    x = tensor(shape, dtype)
    return T(x.data + 3 * np.eye(shape[-1]), dtype)


def _matrix_power():
    a = _well_conditioned((3, 3))
    return [S(a, 3), S(a, 0), S(a, 1), S(a, -2), S(_well_conditioned((2, 3, 3)), 2),
            S(tensor((3, 3), "int64"), 2), S(tensor((3, 3)), 4)]


_MP_ERR = lambda: [S(tensor((2, 3)), 2), S(tensor((3,)), 2),  # noqa: E731
                   S(tensor((3, 3), "int64"), -1)]
OPS.append(OpInfo("matrix_power", _matrix_power, _MP_ERR, tol=TOL))
OPS.append(OpInfo("linalg_matrix_power", lambda: _matrix_power()[3:5], _MP_ERR, tol=TOL,
                  call=lambda t, *a, **k: t.linalg.matrix_power(*a, **k)))


def _cdist():
    x = tensor((3, 2), F64)
    y = tensor((4, 2), F64)
    return [S(x, y), S(x, x), S(x, y, p=1.0), S(x, y, p=0.0), S(x, y, p=float("inf")),
            S(x, y, 3.0), S(tensor((2, 3, 2), F64), tensor((1, 4, 2), F64)),
            S(tensor((3, 2)), tensor((4, 2)))]


OPS.append(OpInfo("cdist", _cdist, lambda: [
    S(tensor((3, 2), "int64"), tensor((3, 2), "int64")), S(tensor((3, 2)), tensor((3, 3))),
    S(tensor((3, 2)), tensor((3, 2)), p=-1.0), S(tensor((3,)), tensor((3,))),
], grad_samples=3, tol=TOL))

# ------------------------------------------------------------------ norms

_INF = float("inf")


def _vector_norm():
    x = tensor((2, 3), F64)
    zero = T(np.zeros((2, 3)), F64)
    ties = tensor((2, 3), F64, "ties")
    y = tensor((2, 3))
    # float64 (gradient-checked): each ord's formula, ties, and zero vectors (gradient 0).
    # ord 0 in float32: PyTorch leaves x.grad None there (jtorch gives zeros).
    return [S(x), S(x, 1), S(ties, _INF, 1), S(x, 0.5), S(x, 1.5), S(x, 3), S(zero), S(zero, 3),
            S(y, -_INF), S(y, 0), S(y, dim=1), S(y, 2, (0, 1), True), S(y, 2, -1, True),
            S(tensor((2, 3)), dtype=getattr_dtype(F64)), S(tensor(())),
            S(tensor((2, 3), "complex64"))]


OPS.append(OpInfo("linalg_vector_norm", _vector_norm, lambda: [
    S(tensor((2, 3), "int64")), S(tensor((2, 3), F64), dtype=getattr_dtype("float32")),
    S(tensor((0,)), _INF), S(tensor((2, 3)), dim=2),
], call=lambda t, *a, **k: t.linalg.vector_norm(*a, **k), grad_samples=8, tol=TOL))


def _matrix_norm():
    x = tensor((3, 3), F64)
    return [S(x), S(x, "nuc"), S(x, 2), S(x, -2), S(x, 1), S(x, -1), S(x, _INF), S(x, -_INF),
            S(tensor((2, 3, 2), F64), "fro", (0, 2), True), S(tensor((2, 3, 2), F64), 1, (2, 0)),
            S(tensor((2, 3, 4)), "nuc", keepdim=True)]


OPS.append(OpInfo("linalg_matrix_norm", _matrix_norm, lambda: [
    S(tensor((3,))), S(tensor((3, 3)), 3), S(tensor((3, 3)), dim=(0, 0)),
    S(tensor((3, 3), "int64")),
], call=lambda t, *a, **k: t.linalg.matrix_norm(*a, **k), grad_samples=4, tol=TOL))

OPS.append(OpInfo("linalg_norm", lambda: [
    S(tensor((2, 3), F64)), S(tensor((2, 3, 2), F64), keepdim=True), S(tensor((2, 3), F64), "fro"),
    S(tensor((2, 3), F64), 2), S(tensor((3,), F64), 1), S(tensor((2, 3), F64), 3, 1),
    S(tensor((2, 3, 2), F64), "nuc", (0, 1)), S(tensor((2, 3), F64), dim=(1, 0)),
], lambda: [S(tensor((2, 3, 2)), 2), S(tensor((3,)), "fro"), S(tensor((3,), "int64"))],
    call=lambda t, *a, **k: t.linalg.norm(*a, **k), grad_samples=4, tol=TOL))

# ------------------------------------------------------------------ triangles and diagonals

OPS.append(OpInfo("trace", lambda: [
    S(tensor((3, 3), F64)), S(tensor((2, 3))), S(tensor((3, 3), "int32")),
], lambda: [S(tensor((2, 2, 2))), S(tensor((2, 2), "bool"))]))


def _tri():
    return [S(tensor((3, 4), F64)), S(tensor((3, 4), F64), 1), S(tensor((4, 3), F64), -1),
            S(tensor((2, 3, 3), F64), diagonal=2), S(tensor((3, 3), "int64")),
            S(tensor((3, 3), "bool"), -5), S(tensor((3, 3)))]


OPS.append(OpInfo("tril", _tri, lambda: [S(tensor((3,)))]))
OPS.append(OpInfo("triu", _tri, lambda: [S(tensor((3,)))]))
OPS.append(OpInfo("diag", lambda: [
    S(tensor((3,), F64)), S(tensor((3,), F64), 1), S(tensor((3,), "int64"), -2),
    S(tensor((3, 4), F64)), S(tensor((3, 4), F64), 1), S(tensor((3, 4), F64), -2),
], lambda: [S(tensor((2, 2, 2)))]))
OPS.append(OpInfo("diag_embed", lambda: [
    S(tensor((2, 3), F64)), S(tensor((2, 3), F64), 1), S(tensor((2, 3), F64), -1, 0, 2),
    S(tensor((3,), F64), dim1=-1, dim2=-2), S(tensor((2, 3), "int64"), offset=2, dim1=1, dim2=0),
], lambda: [S(tensor((2, 3)), 0, 1, 1)]))
OPS.append(OpInfo("diagflat", lambda: [
    S(tensor((2, 2), F64)), S(tensor((3,), F64), -1), S(tensor((3,), "bool"), 2),
]))
OPS.append(OpInfo("linalg_vander", lambda: [
    S(tensor((3,), F64)), S(tensor((2, 3), F64), N=4), S(idx([1, 2]), N=4),
], lambda: [S(tensor(())), S(tensor((3,)), N=1)],
    call=lambda t, *a, **k: t.linalg.vander(*a, **k), tol=TOL))
