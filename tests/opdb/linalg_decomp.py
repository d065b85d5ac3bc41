"""Op database entries: torch.linalg factorizations, inverses, determinants and solvers.

Eigenvectors and singular vectors are unique only up to sign, and LAPACK builds may pick
different signs: those entries compare sign-normalized vectors (each column scaled by the
sign of its first entry), and the gradients of those normalized outputs.
"""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []
F64 = "float64"
TOL = dict(rtol=1e-5, atol=1e-5)


def wc(shape, dtype=F64) -> T:
    """A well-conditioned square (batch of) matrix: random plus 3 * I."""
    x = tensor(shape, dtype)
    return T(x.data + 3 * np.eye(shape[-1]), dtype)


def spd(shape, dtype=F64) -> T:
    """A symmetric positive-definite (batch of) matrix: X X^T + n I."""
    x = tensor(shape, dtype).data
    return T(x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1]), dtype)


def lower(shape, dtype=F64) -> T:
    """A lower-triangular matrix with a diagonal well away from 0."""
    x = tensor(shape, dtype).data
    return T(np.tril(x, -1) + np.eye(shape[-1]) * (2 + np.abs(x)), dtype)


def _linalg(name):
    return lambda t, *a, **k: getattr(t.linalg, name)(*a, **k)


def _square_errors(shape=(3, 3)):
    return lambda: [S(tensor(shape, "int64")), S(tensor((2, 3))), S(tensor((3,))),
                    S(tensor(shape, "float16"))]


A3, B3 = wc((3, 3)), wc((2, 3, 3))
OPS.append(OpInfo("linalg_inv_ex", lambda: [S(A3), S(B3), S(wc((3, 3), "float32"))],
                  _square_errors(), call=_linalg("inv_ex"), tol=TOL, grad_samples=1))
OPS.append(OpInfo("linalg_solve_ex", lambda: [
    S(B3, tensor((3, 1), F64)), S(A3, tensor((3,), F64)), S(B3, tensor((2, 3), F64)),
    S(A3, tensor((2, 3), F64), left=False),
], lambda: [S(A3, tensor((2, 2), F64)), S(A3, tensor((3, 2))), S(tensor((3, 3), "int64"),
                                                                  tensor((3,), "int64"))],
    call=_linalg("solve_ex"), tol=TOL, grad_samples=1))

# torch.det / torch.slogdet share linalg's implementation: one sample each for the binding.
_DET = lambda: [S(B3), S(tensor((3, 3), F64)), S(tensor((3, 3)))]  # noqa: E731
_ONE = dict(tol=TOL, grad_samples=1)
OPS.append(OpInfo("linalg_det", _DET, _square_errors(), call=_linalg("det"), **_ONE))
OPS.append(OpInfo("det", lambda: [S(A3)], _square_errors(), **_ONE))
OPS.append(OpInfo("linalg_slogdet", _DET, _square_errors(), call=_linalg("slogdet"), **_ONE))
OPS.append(OpInfo("slogdet", lambda: [S(A3)], _square_errors(), **_ONE))
_NEG = T(np.diag([-2.0, 1.0, 3.0]) + 0.1, F64)
OPS.append(OpInfo("logdet", lambda: [S(B3), S(_NEG)], _square_errors(), tol=TOL))

_SPD = spd((3, 3))
OPS.append(OpInfo("linalg_cholesky_ex", lambda: [
    S(_SPD, upper=True), S(spd((2, 3, 3))), S(spd((3, 3), "float32")),
    S(T(np.tril(_SPD.data) + np.triu(np.ones((3, 3)), 1), F64)),  # reads the lower triangle
], _square_errors(), call=_linalg("cholesky_ex"), tol=TOL, grad_samples=1))
OPS.append(OpInfo("cholesky_solve", lambda: [
    S(tensor((3, 2), F64), lower((3, 3))), S(tensor((2, 3, 1), F64), lower((3, 3))),
    S(tensor((3, 2), F64), T(lower((3, 3)).data.T.copy(), F64), upper=True),
    S(tensor((3, 2)), lower((3, 3), "float32")),
], lambda: [S(tensor((3, 2)), lower((3, 3))), S(tensor((3,)), lower((3, 3), "float32"))],
    tol=TOL))
OPS.append(OpInfo("linalg_solve_triangular", lambda: [
    S(lower((3, 3)), tensor((3, 2), F64), upper=False),
    S(T(lower((3, 3)).data.T.copy(), F64), tensor((2, 3), F64), upper=True, left=False),
    S(lower((2, 3, 3)), tensor((3, 1), F64), upper=False, unitriangular=True),
], lambda: [S(tensor((3, 3), "int64"), tensor((3, 2), "int64"), upper=False)],
    call=_linalg("solve_triangular"), tol=TOL))

OPS.append(OpInfo("linalg_qr", lambda: [
    S(tensor((3, 2), F64)), S(tensor((3, 3), F64)), S(tensor((2, 3, 2), F64)),
    # complete with m > n: PyTorch has no gradient (float32, so no gradient test).
    S(tensor((3, 2)), "complete"), S(tensor((2, 3), F64), mode="complete"),
    S(tensor((3, 2), F64), "r"), S(tensor((3, 2)))],
    lambda: [S(tensor((3, 2), "int64")), S(tensor((3,))), S(tensor((3, 2)), "full")],
    call=_linalg("qr"), tol=TOL, grad_samples=1))
OPS.append(OpInfo("qr", lambda: [S(tensor((3, 2), F64)), S(tensor((3, 2)), False)],
                  lambda: [S(tensor((3, 2), "int64"))], tol=TOL))


def _sign_fix(t, vecs, rows=True):
    """Scale each column (rows=False: each row) of ``vecs`` by the sign of its first entry."""
    first = vecs[..., :1, :] if rows else vecs[..., :, :1]
    return vecs * (first / first.abs())


def _eigh(t, A, *a, **k):
    w, V = t.linalg.eigh(A, *a, **k)
    return w, _sign_fix(t, V)


OPS.append(OpInfo("linalg_eigh", lambda: [
    S(_SPD, "U"), S(spd((2, 3, 3))), S(tensor((3, 3)), UPLO="L"),
], _square_errors(), call=_eigh, tol=TOL, grad_samples=1))
OPS.append(OpInfo("linalg_eigvalsh", lambda: [
    S(_SPD), S(tensor((3, 3), F64), "U"), S(spd((2, 3, 3)))],
    _square_errors(), call=_linalg("eigvalsh"), tol=TOL, grad_samples=1))


def _svd(t, A, *a, **k):
    U, S_, Vh = t.linalg.svd(A, *a, **k)
    k_ = S_.shape[-1]
    sign = U[..., :1, :k_] / U[..., :1, :k_].abs()
    return U[..., :k_] * sign, S_, Vh[..., :k_, :] * sign.transpose(-1, -2)


def _torch_svd(t, A, *a, **k):
    U, S_, V = t.svd(A, *a, **k)
    k_ = S_.shape[-1]
    sign = U[..., :1, :k_] / U[..., :1, :k_].abs()
    return U[..., :k_] * sign, S_, V[..., :k_] * sign


OPS.append(OpInfo("linalg_svd", lambda: [
    S(tensor((2, 2, 3), F64), False), S(tensor((3, 3), F64)), S(tensor((3, 2))),
], lambda: [S(tensor((3, 2), "int64"))], call=_svd, tol=TOL, grad_samples=1))
OPS.append(OpInfo("svd", lambda: [S(tensor((3, 2), F64)), S(tensor((2, 3), F64))],
                  lambda: [S(tensor((3, 2), "int64"))], call=_torch_svd, tol=TOL, grad_samples=1))
OPS.append(OpInfo("linalg_svdvals", lambda: [
    S(tensor((3, 2), F64)), S(tensor((2, 2, 3), F64)), S(tensor((3, 3)))],
    lambda: [S(tensor((3, 2), "int64"))], call=_linalg("svdvals"), tol=TOL))

_RANK2 = T(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]), F64)
OPS.append(OpInfo("linalg_pinv", lambda: [
    S(tensor((3, 2), F64)), S(A3), S(_SPD, hermitian=True), S(tensor((2, 2, 3), F64)),
    S(tensor((3, 2)), rtol=1e-3), S(_RANK2, atol=1e-8),
    S(tensor((3, 2), F64), atol=0.5, rtol=0.1),
], lambda: [S(tensor((3, 2), "int64")), S(tensor((3, 2)), hermitian=True)],
    call=_linalg("pinv"), tol=TOL, grad_samples=2))
OPS.append(OpInfo("pinverse", lambda: [S(tensor((3, 2), F64)), S(_RANK2, 1e-10)],
                  lambda: [S(tensor((3, 2), "int64"))], tol=TOL, grad_samples=1))
OPS.append(OpInfo("linalg_matrix_rank", lambda: [
    S(_RANK2), S(A3), S(tensor((2, 3, 2))), S(_RANK2, atol=1.0), S(_RANK2, rtol=0.5),
    S(_SPD, hermitian=True), S(tensor((3, 3)), atol=0.5, rtol=0.1),
], lambda: [S(tensor((3, 3), "int64"))], call=_linalg("matrix_rank"), grad=False))
OPS.append(OpInfo("linalg_lstsq", lambda: [
    S(tensor((4, 3), F64), tensor((4, 2), F64)), S(tensor((4, 3), F64), tensor((4,), F64)),
    S(tensor((2, 4, 3), F64), tensor((1, 4, 2), F64), driver="gelsd"),
    S(tensor((4, 3)), tensor((4, 2)), driver="gelss"),
    S(tensor((3, 4), F64), tensor((3, 1), F64)),
], lambda: [S(tensor((4, 3)), tensor((3, 2))), S(tensor((4, 3)), tensor((4, 2)), driver="x")],
    call=_linalg("lstsq"), tol=TOL, grad_samples=1))
OPS.append(OpInfo("matrix_exp", lambda: [S(tensor((2, 2, 2), F64))],
                  lambda: [S(tensor((2, 2), "int64")), S(tensor((2, 3)))], **_ONE))
OPS.append(OpInfo("linalg_matrix_exp", lambda: [S(tensor((2, 2, 2), F64)), S(tensor((3, 3)))],
                  lambda: [S(tensor((2, 2), "int64"))],
                  call=_linalg("matrix_exp"), tol=TOL, grad_samples=1))
