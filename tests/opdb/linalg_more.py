"""Op database entries: the torch.linalg completion (eig, LU and LDL families, Householder
products) and torch.geqrf/ormqr/orgqr/triangular_solve/cholesky_inverse/cov/corrcoef.

Eigenvectors are unique only up to a phase: the eig entry compares their magnitudes (a
phase-free function, so its gradient is well defined too). Factorizations used as inputs
(LU, LD and their pivots) are computed with PyTorch when the samples are built.
"""

from __future__ import annotations

import numpy as np
import torch

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []
F64 = "float64"
TOL = dict(rtol=1e-5, atol=1e-6)
_RNG = np.random.default_rng(11)
A3 = T(_RNG.standard_normal((3, 3)) + 2 * np.eye(3), F64)
B32 = T(_RNG.standard_normal((3, 2)), F64)
Z3 = T(_RNG.standard_normal((3, 3)) + 1j * _RNG.standard_normal((3, 3)), "complex128")
TALL = T(_RNG.standard_normal((4, 3)), F64)
TAU = T(_RNG.uniform(0.5, 1.5, 3), F64)


def _linalg(name):
    return lambda t, *a, **k: getattr(t.linalg, name)(*a, **k)


def _torch(name):
    return lambda t, *a, **k: getattr(t, name)(*a, **k)


def _eig(t, A):
    L, V = t.linalg.eig(A)
    return L, V.abs()


_SQUARE_ERR = lambda: [S(tensor((3, 3), "int64")), S(tensor((2, 3))),  # noqa: E731
                       S(T(np.array([[1.0, np.nan], [0.0, 1.0]]), "float32"))]
OPS.append(OpInfo("linalg_eig", lambda: [S(A3), S(Z3), S(tensor((2, 3, 3)))], _SQUARE_ERR,
                  call=_eig, tol=TOL, grad_samples=1))
OPS.append(OpInfo("linalg_eigvals", lambda: [S(A3), S(Z3)], lambda: _SQUARE_ERR()[:2],
                  call=_linalg("eigvals"), tol=TOL, grad_samples=1))

_SINGULAR = T(np.array([[1.0, 2.0], [2.0, 4.0]]), F64)
OPS.append(OpInfo("linalg_lu_factor_ex", lambda: [
    S(A3), S(tensor((2, 3, 4), "float32")), S(_SINGULAR), S(T(TALL.data, "complex128"))],
    lambda: [S(tensor((3, 3), "int64")), S(tensor((3,))), S(A3, pivot=False)],
    call=_linalg("lu_factor_ex"), tol=TOL, grad_samples=1))
OPS.append(OpInfo("linalg_lu", lambda: [S(TALL), S(tensor((3, 4), F64)), S(A3)],
                  lambda: [S(tensor((3, 3), "int64"))], call=_linalg("lu"), tol=TOL,
                  grad_samples=1))


def _lu_of(x: T):
    LU, piv = torch.linalg.lu_factor(torch.tensor(x.data))
    return T(LU.numpy(), x.dtype), T(piv.numpy(), "int32")


OPS.append(OpInfo("lu_unpack", lambda: [
    S(*_lu_of(A3)), S(*_lu_of(TALL)), S(*_lu_of(A3), unpack_data=False),
    S(*_lu_of(A3), unpack_pivots=False)],
    lambda: [S(_lu_of(A3)[0], T(np.array([1, 2, 3]), "int64")),
             S(_lu_of(A3)[0], T(np.array([4, 1, 3]), "int32"))],
    call=_torch("lu_unpack"), tol=TOL, grad_samples=1))
OPS.append(OpInfo("linalg_lu_solve", lambda: [
    S(*_lu_of(A3), B32), S(*_lu_of(A3), T(B32.data.T.copy(), F64), left=False, adjoint=True),
    S(*_lu_of(A3), B32, adjoint=True)],
    lambda: [S(*_lu_of(A3), tensor((2, 2), F64)), S(*_lu_of(A3), tensor((3, 2)))],
    call=_linalg("lu_solve"), tol=TOL, grad_samples=2))

_HH_ERR = lambda: [S(tensor((2, 3), F64), tensor((2,), F64)),  # noqa: E731
                   S(tensor((4, 2), F64), tensor((3,), F64)), S(TALL, tensor((3,)))]
OPS.append(OpInfo("linalg_householder_product", lambda: [
    S(TALL, TAU), S(TALL, T(TAU.data[:2], F64)),
    S(T(TALL.data + 0.5j, "complex128"), T(TAU.data + 0.2j, "complex128"))],
    _HH_ERR, call=_linalg("householder_product"), tol=TOL, grad_samples=1))
OPS.append(OpInfo("orgqr", lambda: [S(TALL, TAU)], _HH_ERR, tol=TOL, grad_samples=1))
OPS.append(OpInfo("geqrf", lambda: [S(TALL), S(tensor((2, 3), "complex64")), S(tensor((3, 3)))],
                  lambda: [S(tensor((3, 3), "int64"))], call=_torch("geqrf"), tol=TOL,
                  grad=False, notes="no derivative in PyTorch: test_linalg_more"))
OPS.append(OpInfo("ormqr", lambda: [
    S(TALL, TAU, tensor((4, 2), F64)),
    S(TALL, TAU, tensor((2, 4), F64), left=False, transpose=True)],
    lambda: [S(TALL, TAU, tensor((3, 2), F64))], tol=TOL, grad_samples=1))

_UPPER = T(np.triu(_RNG.standard_normal((3, 3))) + 3 * np.eye(3), F64)
OPS.append(OpInfo("triangular_solve", lambda: [
    S(B32, _UPPER), S(B32, T(_UPPER.data.T.copy(), F64), upper=False, transpose=True),
    S(tensor((2, 3, 1), F64), _UPPER, unitriangular=True)],
    lambda: [S(tensor((3,), F64), _UPPER), S(B32, tensor((3, 3)))],
    call=_torch("triangular_solve"), tol=TOL, grad_samples=2))
# The float32 batch: a fixed factor with a diagonal away from zero (a random one, drawn in
# test order, was sometimes so ill-conditioned that float32 rounding exceeded TOL).
_L32 = T(np.tril(np.random.default_rng(12).standard_normal((2, 3, 3))) + 2 * np.eye(3),
         "float32")
OPS.append(OpInfo("cholesky_inverse", lambda: [
    S(T(_UPPER.data.T.copy(), F64)), S(_UPPER, upper=True), S(_L32)],
    lambda: [S(T(np.diag([2.0, 0.0]), F64)), S(tensor((3, 3), "int64"))], tol=TOL,
    grad_samples=1))

_SYM = T(A3.data + A3.data.T, F64)
_HERM = T(Z3.data + Z3.data.conj().T, "complex128")


def _ld_of(x: T, hermitian=False):
    LD, piv = torch.linalg.ldl_factor(torch.tensor(x.data), hermitian=hermitian)
    return T(LD.numpy(), x.dtype), T(piv.numpy(), "int32")


# One kernel per dtype: a 2x2 pivot block and a zero (singular) column in the same shape.
_SWAPPED = T(np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 2.0], [0.5, 2.0, 0.0]]), F64)
OPS.append(OpInfo("linalg_ldl_factor_ex", lambda: [
    S(_SYM), S(_SWAPPED), S(T(np.zeros((3, 3)), F64)), S(_HERM, hermitian=True)],
    lambda: [S(tensor((3, 3), "int64")), S(tensor((2, 3)))], call=_linalg("ldl_factor_ex"),
    tol=TOL, grad=False, notes="no derivative in PyTorch: test_linalg_more"))
OPS.append(OpInfo("linalg_ldl_solve", lambda: [
    S(*_ld_of(_SYM), B32), S(*_ld_of(_HERM, True), T(B32.data + 1j, "complex128"),
                             hermitian=True)],
    lambda: [S(*_ld_of(_SYM), tensor((3,), F64)), S(_ld_of(_SYM)[0], TAU, B32)],
    call=_linalg("ldl_solve"), tol=TOL, grad=False))

_OBS = T(_RNG.standard_normal((3, 5)), F64)
OPS.append(OpInfo("cov", lambda: [
    S(_OBS), S(_OBS, correction=0, fweights=T(np.array([1, 2, 1, 3, 1]), "int64"),
               aweights=T(_RNG.uniform(0.5, 2, 5), F64)),
    S(T(np.array([1, 2, 4]), "int64")), S(T(_OBS.data[:, :1], "float32"))],
    lambda: [S(tensor((2, 3, 4))), S(_OBS, fweights=tensor((5,))),
             S(_OBS, fweights=T(np.array([1, -2, 1, 3, 1]), "int64")),
             S(tensor((3,), "bool"))], tol=TOL, grad_samples=1))
OPS.append(OpInfo("corrcoef", lambda: [
    S(_OBS), S(T(np.array([[1, 2, 4], [3, 4, 1]]), "int64")),
    S(T(np.array([[1.0, 1.0, 1.0], [3.0, 4.0, 1.0]]), "float32"))],
    lambda: [S(tensor((2, 3, 4)))], tol=TOL, grad_samples=1))
