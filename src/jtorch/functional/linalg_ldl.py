"""LDL factorization with Bunch-Kaufman pivoting in LAPACK's form (torch.linalg.ldl_factor,
ldl_factor_ex, ldl_solve): PyTorch calls LAPACK's sytrf/hetrf on the lower triangle, and for
the matrix sizes where LAPACK does not block (n < 64) that is sytf2/hetf2, reproduced here
step by step (same pivot choices, same packed LD, same pivots: 1-based, negative for the two
rows of a 2x2 block). The solve follows sytrs/hetrs. PyTorch defines no derivatives for
either: their backward raises PyTorch's error.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jax import lax

from .. import _dtypes as D
from ._util import broadcast_shapes, dtype_of
from .decomposition import _check

__all__ = ["linalg_ldl_factor_ex", "linalg_ldl_solve"]

_ALPHA = (1 + math.sqrt(17)) / 8  # Bunch-Kaufman's growth bound


def _no_derivative(name, flag: int):
    """A custom VJP whose backward raises PyTorch's error; argument ``flag`` is static."""

    def decorate(f):
        fn = jax.custom_vjp(f, nondiff_argnums=(flag,))

        def bwd(*args):
            raise RuntimeError(f"derivative for aten::{name} is not implemented")

        fn.defvjp(lambda *a: (fn(*a), None), bwd)
        return fn

    return decorate


def _abs1(x):
    """LAPACK's magnitude for pivoting: |x| for reals, |Re| + |Im| for complex."""
    return jnp.abs(jnp.real(x)) + jnp.abs(jnp.imag(x)) if jnp.iscomplexobj(x) else jnp.abs(x)


def _first_argmax(v, mask):
    """(index, value) of the first largest masked entry (LAPACK's i?amax)."""
    m = jnp.where(mask, v, -1)
    i = jnp.argmax(m)
    return i, jnp.maximum(m[i], 0)


def _full(A, herm):
    """The matrix whose lower triangle A holds, made whole: LAPACK reads only that triangle,
    and reading it from both sides keeps every pivot test exactly LAPACK's."""
    low = jnp.tril(A, -1)
    diag = jnp.diagonal(A)
    diag = jnp.real(diag).astype(A.dtype) if herm else diag
    return low + (jnp.conj(low.T) if herm else low.T) + jnp.diag(diag)


def _sym_swap(A, a, b, k):
    """Swap rows and columns a and b of the trailing block A[k:, k:]; the factored columns
    are left alone (LAPACK applies those interchanges lazily, through the pivots)."""
    idx = jnp.arange(A.shape[-1])
    p = jnp.where(idx == a, b, jnp.where(idx == b, a, idx))
    trailing = idx >= k
    keep = trailing[:, None] & trailing[None, :]
    return jnp.where(keep, A[p][:, p], A)


def _pivot(A, k, herm):
    """Bunch-Kaufman's choice at step k: (kp, kstep, zero column)."""
    n = A.shape[-1]
    idx = jnp.arange(n)
    diag = jnp.real(A[k, k]) if herm else A[k, k]
    absakk = jnp.abs(diag) if herm else _abs1(diag)
    imax, colmax = _first_argmax(_abs1(A[:, k]), idx > k)
    zero = (jnp.maximum(absakk, colmax) == 0) | jnp.isnan(absakk)
    row = _abs1(A[imax])  # A is full in the trailing block: row imax = column imax
    _, rowmax = _first_argmax(row, (idx >= k) & (idx != imax))
    dmax = jnp.abs(jnp.real(A[imax, imax])) if herm else _abs1(A[imax, imax])
    one_by_one = absakk >= _ALPHA * colmax
    keep_k = one_by_one | (absakk >= _ALPHA * colmax * (colmax / jnp.where(rowmax == 0, 1,
                                                                               rowmax)))
    swap_1 = ~keep_k & (dmax >= _ALPHA * rowmax)
    kp = jnp.where(zero | keep_k, k, imax)
    kstep = jnp.where(zero | keep_k | swap_1, 1, 2)
    return kp, kstep, zero


def _step_1x1(A, k, herm):
    n = A.shape[-1]
    idx = jnp.arange(n)
    d = jnp.real(A[k, k]).astype(A.dtype) if herm else A[k, k]
    x = jnp.where(idx > k, A[:, k], 0)
    xt = jnp.conj(x) if herm else x
    r = 1 / d
    update = (x[:, None] * r) * xt[None, :]
    A = A - update
    return jnp.where((idx > k)[:, None] & (idx == k)[None, :], (x * r)[:, None], A)


def _step_2x2(A, k, herm):
    n = A.shape[-1]
    idx = jnp.arange(n)
    a, b, c = A[k, k], A[k + 1, k], A[k + 1, k + 1]
    if herm:
        dabs = jnp.abs(b)
        d11, d22 = jnp.real(c) / dabs, jnp.real(a) / dabs
        d21 = b / dabs
        dd = (1 / (d11 * d22 - 1)) / dabs
        x1, x2 = A[:, k], A[:, k + 1]
        wk = dd * (d11 * x1 - d21 * x2)
        wkp1 = dd * (d22 * x2 - jnp.conj(d21) * x1)
        update = x1[:, None] * jnp.conj(wk)[None, :] + x2[:, None] * jnp.conj(wkp1)[None, :]
    else:
        d11, d22 = c / b, a / b
        t = 1 / (d11 * d22 - 1)
        d21 = t / b
        x1, x2 = A[:, k], A[:, k + 1]
        wk = d21 * (d11 * x1 - x2)
        wkp1 = d21 * (d22 * x2 - x1)
        update = x1[:, None] * wk[None, :] + x2[:, None] * wkp1[None, :]
    rest = idx > k + 1
    A = A - jnp.where(rest[:, None] & rest[None, :], update, 0)
    A = jnp.where(rest[:, None] & (idx == k)[None, :], wk[:, None], A)
    return jnp.where(rest[:, None] & (idx == k + 1)[None, :], wkp1[:, None], A)


def _sytf2(A, herm):
    """One matrix: (LD, pivots, info)."""
    n = A.shape[-1]

    def body(carry):
        A, piv, info, k = carry
        A = _full(A, herm)
        kp, kstep, zero = _pivot(A, k, herm)
        kk = k + kstep - 1
        A = lax.cond(kp != kk, lambda A: _sym_swap(A, kk, kp, k), lambda A: A, A)
        A = lax.cond(zero, lambda A: A,
                     lambda A: lax.cond(kstep == 1, lambda A: _step_1x1(A, k, herm),
                                        lambda A: _step_2x2(A, k, herm), A), A)
        info = jnp.where((info == 0) & zero, k + 1, info)
        p = jnp.where(kstep == 1, kp + 1, -(kp + 1)).astype(jnp.int32)
        piv = piv.at[k].set(p)
        piv = jnp.where((kstep == 2) & (jnp.arange(n) == k + 1), p, piv)
        return A, piv, info, k + kstep

    init = (A, jnp.zeros(n, jnp.int32), jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32))
    A, piv, info, _ = lax.while_loop(lambda c: c[3] < n, body, init)
    return jnp.tril(A), piv, info


@_no_derivative("linalg_ldl_factor_ex", 1)
def _ldl_factor(A, herm):
    f = lambda M: _sytf2(M, herm)  # noqa: E731
    for _ in range(A.ndim - 2):
        f = jax.vmap(f)
    return f(A)


def linalg_ldl_factor_ex(A, *, hermitian=False):
    """torch.linalg.ldl_factor_ex: (LD, pivots, info) of LAPACK's sytrf (hetrf when
    ``hermitian``) on A's lower triangle; info > 0 names the first zero pivot.

    Differences from PyTorch: for n >= 64 LAPACK's blocked sytrf may choose other pivots
    (the factorization is equally valid)."""
    _check("torch.linalg.ldl_factor_ex", A)
    return _ldl_factor(A, bool(hermitian and jnp.iscomplexobj(A)))


# ------------------------------------------------------------------ solve


def _sytrs(LD, piv, B, herm):
    """sytrs/hetrs for one matrix: forward with P and L D, then backward with L^T (L^H)."""
    n = LD.shape[-1]
    idx = jnp.arange(n)
    cj = jnp.conj if herm else (lambda x: x)

    def swap_rows(B, a, b):
        p = jnp.where(idx == a, b, jnp.where(idx == b, a, idx))
        return B[p]

    def forward(carry):
        B, k = carry
        two = piv[k] < 0
        kp = jnp.abs(piv[k]) - 1
        B = swap_rows(B, jnp.where(two, k + 1, k), kp)
        below = jnp.where(two, idx > k + 1, idx > k)
        k1 = jnp.minimum(k + 1, n - 1)
        B = B - jnp.where(below[:, None], LD[:, k][:, None] * B[k][None, :], 0)
        B = B - jnp.where(two & below[:, None], LD[:, k1][:, None] * B[k1][None, :], 0)
        B = lax.cond(two, lambda B: _solve_block(LD, B, k, herm),
                     lambda B: _solve_1(LD, B, k, herm), B)
        return B, k + jnp.where(two, 2, 1)

    def backward(carry):
        B, k = carry
        two = piv[k] < 0
        kp = jnp.abs(piv[k]) - 1
        below = idx > k
        B = B.at[k].add(-jnp.sum(jnp.where(below[:, None], cj(LD[:, k])[:, None] * B, 0), 0))
        k1 = jnp.maximum(k - 1, 0)
        B = jnp.where(two & (idx == k1)[:, None],
                      B - jnp.sum(jnp.where(below[:, None], cj(LD[:, k1])[:, None] * B, 0),
                                  0)[None, :], B)
        B = swap_rows(B, k, kp)
        return B, k - jnp.where(two, 2, 1)

    B, _ = lax.while_loop(lambda c: c[1] < n, forward, (B, jnp.zeros((), jnp.int32)))
    B, _ = lax.while_loop(lambda c: c[1] >= 0, backward, (B, jnp.full((), n - 1, jnp.int32)))
    return B


def _solve_1(LD, B, k, herm):
    d = jnp.real(LD[k, k]).astype(LD.dtype) if herm else LD[k, k]
    return B.at[k].divide(d)


def _solve_block(LD, B, k, herm):
    k1 = jnp.minimum(k + 1, LD.shape[-1] - 1)
    akm1k = LD[k1, k]
    akm1 = LD[k, k] / (jnp.conj(akm1k) if herm else akm1k)
    ak = LD[k1, k1] / akm1k
    denom = akm1 * ak - 1
    bkm1 = B[k] / (jnp.conj(akm1k) if herm else akm1k)
    bk = B[k1] / akm1k
    B = B.at[k].set((ak * bkm1 - bk) / denom)
    return B.at[k1].set((akm1 * bk - bkm1) / denom)


@_no_derivative("linalg_ldl_solve", 3)
def _ldl_solve(LD, piv, B, herm):
    f = lambda L, p, X: _sytrs(L, p, X, herm)  # noqa: E731
    for _ in range(LD.ndim - 2):
        f = jax.vmap(f)
    return f(LD, piv, B)


def linalg_ldl_solve(LD, pivots, B, *, hermitian=False):
    """torch.linalg.ldl_solve: X with ``A X = B`` from ldl_factor's (LD, pivots)."""
    _check("torch.linalg.ldl_solve", LD, kernel="ldl_solve_cpu", every=True)
    if B.ndim < 2:  # PyTorch reads B.shape[-2] before checking
        n = max(B.ndim, 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         "but got -2)")
    if dtype_of(pivots) is not D.int32:
        raise RuntimeError("torch.linalg.ldl_solve: Expected pivots to be integers. Got "
                           f"{D.legacy_name(dtype_of(pivots))}")
    if dtype_of(B) is not dtype_of(LD):
        raise RuntimeError(
            f"torch.linalg.ldl_solve: Expected LD and B to have the same dtype, but found "
            f"LD of type {D.legacy_name(dtype_of(LD))} and B of type "
            f"{D.legacy_name(dtype_of(B))} instead")
    if B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(f"torch.linalg.ldl_solve: Incompatible shapes of A and B for the "
                           f"equation AX = B ({LD.shape[-2]}x{LD.shape[-1]} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")
    batch = broadcast_shapes(LD.shape[:-2], pivots.shape[:-1], B.shape[:-2])
    LD = jnp.broadcast_to(LD, batch + LD.shape[-2:])
    pivots = jnp.broadcast_to(pivots, batch + pivots.shape[-1:])
    B = jnp.broadcast_to(B, batch + B.shape[-2:])
    return _ldl_solve(LD, pivots, B, bool(hermitian and jnp.iscomplexobj(LD)))
