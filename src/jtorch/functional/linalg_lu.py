"""LU and Householder factorizations in LAPACK's packed forms (torch.linalg.lu_factor(_ex),
lu, lu_solve, torch.lu_unpack, householder_product/orgqr, geqrf, ormqr), the deprecated
triangular_solve and cholesky_inverse.

Pivots are LAPACK's: int32, 1-based, row ``i`` swapped with row ``pivots[i]`` in turn.
Gradients are JAX's derivatives of the packed maps, which are PyTorch's formulas (the
packed LU's gradient is that of ``L - I + U``); geqrf has none in PyTorch.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from .. import _dtypes as D
from ._util import broadcast_shapes, dtype_of
from .decomposition import _check, _cholesky_solve, _mH, _mT
from .products import precision

__all__ = [
    "linalg_lu_factor_ex", "linalg_lu", "lu_unpack", "linalg_lu_solve",
    "linalg_householder_product", "geqrf", "ormqr", "triangular_solve", "cholesky_inverse",
]


def _mm(a, b):
    return jnp.matmul(a, b, precision=precision())


# ------------------------------------------------------------------ LU


def _lu_checks(op, A, pivot):
    d = dtype_of(A)
    if d in (D.float16, D.bfloat16) or d._kind < 2:
        raise NotImplementedError(f'"lu_cpu" not implemented for \'{D.legacy_name(d)}\'')
    if A.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(A.shape)} instead")
    if not pivot:
        raise RuntimeError(f"{op}: LU without pivoting is not implemented on the CPU")


def linalg_lu_factor_ex(A, *, pivot=True):
    """torch.linalg.lu_factor_ex: (LU, pivots, info); info > 0 names the first zero on U's
    diagonal (1-based).

    Differences from PyTorch: ``pivot=False`` raises on every device (PyTorch supports it
    on CUDA)."""
    _lu_checks("linalg.lu_factor", A, pivot)
    lu, piv, _ = lax.linalg.lu(A)
    zero = jnp.diagonal(lu, axis1=-2, axis2=-1) == 0
    info = jnp.where(zero.any(-1), jnp.argmax(zero, -1) + 1, 0).astype(jnp.int32)
    return lu, (piv + 1).astype(jnp.int32), info


def _unpack_lu(LU):
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = jnp.tril(LU[..., :, :k], -1) + jnp.eye(m, k, dtype=LU.dtype)
    U = jnp.triu(LU[..., :k, :])
    return L, U


def _permutation(pivots, m, dtype):
    """P with ``A = P L U`` from 1-based LAPACK pivots."""
    perm = lax.linalg.lu_pivots_to_permutation(pivots - 1, m)
    return jnp.swapaxes(jax.nn.one_hot(perm, m, dtype=dtype), -1, -2)


def linalg_lu(A, *, pivot=True):
    """torch.linalg.lu: (P, L, U) with ``A = P L U``; L is m x k unit lower, U is k x n."""
    _lu_checks("linalg.lu", A, pivot)
    lu, piv, _ = lax.linalg.lu(A)
    L, U = _unpack_lu(lu)
    return _permutation(piv + 1, A.shape[-2], A.dtype), L, U


def check_lu_pivots(LU, pivots) -> None:
    if dtype_of(pivots) is not D.int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
            "dtype.\nNote: this function is intended to be used with the output produced by "
            "torch.linalg.lu_factor")


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """torch.lu_unpack: (P, L, U) from lu_factor's result; the parts not unpacked are empty
    tensors."""
    check_lu_pivots(LU_data, LU_pivots)
    empty = jnp.zeros((0,), LU_data.dtype)
    L, U = _unpack_lu(LU_data) if unpack_data else (empty, empty)
    if not unpack_pivots:
        return empty, L, U
    m = LU_data.shape[-2]
    batch = LU_pivots.shape[:-1]
    return _permutation(jnp.broadcast_to(LU_pivots, batch + LU_pivots.shape[-1:]), m,
                        LU_data.dtype), L, U


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """torch.linalg.lu_solve: X with ``A X = B`` from A's packed LU (``X A = B`` when not
    ``left``; A^H when ``adjoint``)."""
    _check("linalg.lu_solve", LU, kernel="lu_solve_cpu")
    if dtype_of(LU) is not dtype_of(B):
        raise RuntimeError(
            f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
            f"{D.legacy_name(dtype_of(LU))} and B of type {D.legacy_name(dtype_of(B))} instead")
    n = LU.shape[-1]
    if B.ndim < 2 or (B.shape[-2] if left else B.shape[-1]) != n:
        rows, cols = (B.shape[-2], B.shape[-1]) if B.ndim >= 2 else (B.shape[-1], 1)
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{eq} ({n}x{n} and {rows}x{cols})")
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return _mH(linalg_lu_solve(LU, pivots, _mH(B), left=True, adjoint=not adjoint))
    batch = broadcast_shapes(LU.shape[:-2], pivots.shape[:-1], B.shape[:-2])
    LU = jnp.broadcast_to(LU, batch + LU.shape[-2:])
    B = jnp.broadcast_to(B, batch + B.shape[-2:])
    P = _permutation(jnp.broadcast_to(pivots, batch + pivots.shape[-1:]), n, LU.dtype)
    tri = lax.linalg.triangular_solve
    if adjoint:  # A^H = U^H L^H P^T
        y = tri(LU, B, left_side=True, lower=False, transpose_a=True, conjugate_a=True)
        y = tri(LU, y, left_side=True, lower=True, unit_diagonal=True, transpose_a=True,
                conjugate_a=True)
        return _mm(P, y)
    y = tri(LU, _mm(_mT(P), B), left_side=True, lower=True, unit_diagonal=True)
    return tri(LU, y, left_side=True, lower=False)


# ------------------------------------------------------------------ Householder


def _reflectors(A, tau, Q):
    """H_1 ... H_k Q, H_i = I - tau_i v_i v_i^H with v_i = [0.., 1, A[i+1:, i]]."""
    m = A.shape[-2]
    rows = jnp.arange(m)

    def step(j, Q):
        i = tau.shape[-1] - 1 - j
        col = jnp.take(A, i, axis=-1)
        v = jnp.where(rows > i, col, jnp.where(rows == i, 1, 0).astype(A.dtype))
        t = jnp.take(tau, i, axis=-1)[..., None, None]
        w = _mm(jnp.conj(v)[..., None, :], Q)
        return Q - t * v[..., :, None] * w

    return lax.fori_loop(0, tau.shape[-1], step, Q)


def _householder_checks(op, A, tau):
    _check(op, A, square=False, kernel="orgqr_cpu")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if A.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if tau.ndim != A.ndim - 1 or tau.shape[:-1] != A.shape[:-2]:
        raise RuntimeError(f"{op}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")
    if dtype_of(tau) is not dtype_of(A):
        raise RuntimeError(f"{op}: tau dtype {D.legacy_name(dtype_of(tau))} does not match "
                           f"input dtype {D.legacy_name(dtype_of(A))}")


def linalg_householder_product(A, tau):
    """torch.linalg.householder_product: the first n columns of H_1 ... H_k."""
    _householder_checks("torch.linalg.householder_product", A, tau)
    m, n = A.shape[-2:]
    eye = jnp.broadcast_to(jnp.eye(m, n, dtype=A.dtype), A.shape)
    return _reflectors(A, tau, eye)


def _householder_qr(A):
    """LAPACK's geqr2: for each column, the reflector (larfg's conventions: beta =
    -sign(Re alpha) |(alpha, x)|, tau = (beta - alpha) / beta, v = x / (alpha - beta)) and
    H^H applied to the columns right of it."""
    m, n = A.shape[-2:]
    rows, cols = jnp.arange(m), jnp.arange(n)
    real = A.real.dtype

    def step(j, carry):
        A, tau = carry
        col = jnp.take(A, j, axis=-1)
        alpha = jnp.take(col, j, axis=-1)
        x = jnp.where(rows > j, col, 0)
        xnorm = jnp.sqrt(jnp.sum(jnp.abs(x) ** 2, axis=-1))
        trivial = (xnorm == 0) & (jnp.imag(alpha) == 0)
        norm = jnp.sqrt(jnp.abs(alpha) ** 2 + xnorm**2)
        beta = -jnp.where(jnp.real(alpha) >= 0, 1, -1).astype(real) * norm
        safe_beta = jnp.where(trivial, 1, beta)
        t = jnp.where(trivial, 0, (safe_beta - alpha) / safe_beta).astype(A.dtype)
        scale = jnp.where(trivial, 0, 1 / jnp.where(trivial, 1, alpha - beta))
        v = jnp.where(rows == j, 1, x * scale[..., None]).astype(A.dtype)
        v = jnp.where(rows >= j, v, 0)
        w = _mm(jnp.conj(v)[..., None, :], A)  # H^H A = A - conj(tau) v (v^H A)
        right = cols > j
        A = A - jnp.where(right, jnp.conj(t)[..., None, None] * v[..., :, None] * w, 0)
        new_col = jnp.where(rows == j, jnp.where(trivial, alpha, beta).astype(A.dtype)[..., None],
                            jnp.where(rows > j, v, col))
        A = jnp.where(cols == j, new_col[..., :, None], A)
        return A, jnp.where(jnp.arange(tau.shape[-1]) == j, t[..., None], tau)

    tau = jnp.zeros(A.shape[:-2] + (min(m, n),), A.dtype)
    return lax.fori_loop(0, min(m, n), step, (A, tau))


@jax.custom_vjp
def _geqrf(A):
    return _householder_qr(A)


def _geqrf_bwd(res, g):
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


_geqrf.defvjp(lambda A: (_geqrf(A), None), _geqrf_bwd)


def geqrf(input):
    """torch.geqrf: LAPACK's QR in packed form (R above the diagonal, reflectors below, and
    their scales tau)."""
    _check("geqrf", input, square=False, kernel="geqrf_cpu", every=True)
    return _geqrf(input)


def ormqr(input, tau, other, left=True, transpose=False):
    """torch.ormqr: ``op(Q) other`` (``other op(Q)`` when not ``left``) for the Q of
    geqrf's reflectors; op is the conjugate transpose when ``transpose``."""
    _check("torch.ormqr", input, square=False, kernel="ormqr_cpu")
    if other.ndim < 2:
        raise RuntimeError("torch.ormqr: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other.shape[side] < tau.shape[-1]:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be greater than or equal to "
                           "tau.shape[-1]")
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be equal to "
                           "input.shape[-2]")
    if tau.shape[-1] > input.shape[-1]:
        raise RuntimeError("torch.ormqr: tau.shape[-1] must be less than or equal to "
                           "input.shape[-1]")
    if tau.shape[-1] != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be equal to "
                           f"min(other.shape[{side}], input.shape[-1])")
    for x, name in ((tau, "tau"), (other, "other")):
        if dtype_of(x) is not dtype_of(input):
            raise RuntimeError(f"torch.ormqr: Expected input and {name} to have the same "
                               f"dtype, but input has dtype {D.legacy_name(dtype_of(input))} "
                               f"and {name} has dtype {D.legacy_name(dtype_of(x))}")
    m = input.shape[-2]
    Q = _reflectors(input, tau, jnp.broadcast_to(jnp.eye(m, dtype=input.dtype),
                                                 input.shape[:-2] + (m, m)))
    Q = _mH(Q) if transpose else Q
    return _mm(Q, other) if left else _mm(other, Q)


# ------------------------------------------------------------------ deprecated solvers


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    """torch.triangular_solve: (X, a copy of A) with ``op(A) X = input``, A triangular; op
    is the transpose when ``transpose``."""
    for x, name in ((input, "b"), (A, "A")):
        if x.ndim < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {name} to have at least 2 "
                               f"dimensions, but it has {x.ndim} dimensions instead")
    if dtype_of(input) is not dtype_of(A):
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{D.legacy_name(dtype_of(input))} and A of type {D.legacy_name(dtype_of(A))} "
            "instead.")
    _check("torch.triangular_solve", A, kernel="triangular_solve_cpu", every=True)
    batch = broadcast_shapes(input.shape[:-2], A.shape[:-2])
    A = jnp.broadcast_to(A, batch + A.shape[-2:])
    B = jnp.broadcast_to(input, batch + input.shape[-2:])
    X = lax.linalg.triangular_solve(A, B, left_side=True, lower=not upper,
                                    transpose_a=transpose, unit_diagonal=unitriangular)
    return X, A


def cholesky_inverse(input, upper=False):
    """torch.cholesky_inverse: the inverse of ``L L^H`` (``U^H U`` when ``upper``) from its
    Cholesky factor."""
    _check("cholesky_inverse", input, kernel="cholesky_inverse_out_cpu", every=True)
    eye = jnp.broadcast_to(jnp.eye(input.shape[-1], dtype=input.dtype), input.shape)
    return _cholesky_solve(eye, input, upper)
