"""Factorizations, inverses, determinants and solvers (torch.linalg), batched over leading
dims. Ops that can fail on singular input return LAPACK's ``info`` (as PyTorch's ``*_ex``
variants); the raising forms check it on the host (``jtorch.linalg``)."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
from jax import lax

from .. import _dtypes as D
from ._util import broadcast_shapes, dtype_of, result_type
from .products import precision


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a factorization or inversion failed on singular input
    (PyTorch names the class _LinAlgError too)."""


LinAlgError = _LinAlgError


_LAPACK = (D.float32, D.float64, D.complex64, D.complex128)


def _check(op: str, A, square: bool = True, kernel: str = "", every: bool = False) -> None:
    """PyTorch's dtype and shape checks; ``kernel``: the CPU kernel whose missing low-precision
    (``every``: any non-LAPACK dtype) implementation PyTorch reports as a NotImplementedError
    before its own dtype check."""
    d = dtype_of(A)
    if kernel and (d in (D.float16, D.bfloat16) or every and d not in _LAPACK):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{D.legacy_name(d)}\'')
    if d._kind < 2:
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got "
            f"{D.legacy_name(d)}")
    if d not in _LAPACK:
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {D.legacy_name(d)}")
    if A.ndim < 2:
        raise RuntimeError(
            f"{op}: The input tensor A must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices")


def _same_dtype(op: str, A, B) -> None:
    if dtype_of(A) is not dtype_of(B):
        raise RuntimeError(
            f"{op}: Expected A and B to have the same dtype, but found A of type "
            f"{D.legacy_name(dtype_of(A))} and B of type {D.legacy_name(dtype_of(B))} instead")


def _mT(x):
    return jnp.swapaxes(x, -1, -2)


def _mH(x):
    return jnp.conj(_mT(x))


# PyTorch reads one triangle of a Hermitian input (LAPACK's uplo) but reports the gradient
# of the Hermitian matrix itself, the symmetric gradient JAX's symmetrized eigh/cholesky give
# back; so the triangle is taken in the forward pass and the gradient passed straight through.
@partial(jax.custom_vjp, nondiff_argnums=(1,))
def _hermitian(A, lower: bool):
    tri = jnp.tril(A, -1) if lower else jnp.triu(A, 1)
    diag = jnp.real(jnp.diagonal(A, axis1=-2, axis2=-1)).astype(A.dtype)
    return tri + _mH(tri) + diag[..., None] * jnp.eye(A.shape[-1], dtype=A.dtype)


_hermitian.defvjp(lambda A, lower: (_hermitian(A, lower), None), lambda lower, _, g: (g,))


# ------------------------------------------------------------------ LU: inverse, solve, det


def _lu(A):
    lu, _, perm = lax.linalg.lu(A)
    zero = jnp.diagonal(lu, axis1=-2, axis2=-1) == 0
    info = jnp.where(zero.any(-1), jnp.argmax(zero, -1) + 1, 0).astype(jnp.int32)
    return lu, perm, info


def _lu_solve(lu, perm, b):
    """Solve ``A x = b`` from A's LU factors; b has A's batch shape."""
    x = jnp.take_along_axis(b, jnp.broadcast_to(perm[..., None], perm.shape + b.shape[-1:]),
                            axis=-2)
    x = lax.linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    return lax.linalg.triangular_solve(lu, x, left_side=True, lower=False)


def linalg_inv_ex(A):
    """torch.linalg.inv_ex: (inverse, info); info > 0 names the first zero pivot."""
    _check("linalg.inv", A)
    lu, perm, info = _lu(A)
    eye = jnp.broadcast_to(jnp.eye(A.shape[-1], dtype=A.dtype), A.shape)
    return _lu_solve(lu, perm, eye), info


def _is_vector_rhs(A, B) -> bool:
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


def linalg_solve_ex(A, B, *, left=True):
    """torch.linalg.solve_ex: (X, info) with ``A X = B`` (``X A = B`` when not left)."""
    _check("linalg.solve", A, kernel="lu_cpu")
    _same_dtype("linalg.solve", A, B)
    vector = _is_vector_rhs(A, B)
    if vector:
        B = B[..., None]
        if not left:
            raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not "
                               "supported for left=False. In this case linalg.solve is "
                               "equivalent to B / A.squeeze(-1)")
    if not left:
        A, B = _mT(A), _mT(B)
    n = A.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{n} and {B.shape[-2]}x"
            f"{B.shape[-1]})")
    batch = broadcast_shapes(A.shape[:-2], B.shape[:-2])
    A = jnp.broadcast_to(A, batch + A.shape[-2:])
    lu, perm, info = _lu(A)
    X = _lu_solve(lu, perm, jnp.broadcast_to(B, batch + B.shape[-2:]))
    if not left:
        X = _mT(X)
    return (X[..., 0] if vector else X), info


def linalg_det(A):
    """torch.linalg.det."""
    _check("linalg.det", A, kernel="lu_cpu")
    return jnp.linalg.det(A)


def linalg_slogdet(A):
    """torch.linalg.slogdet: (sign, log|det|); sign is 0 and log|det| -inf when singular."""
    _check("linalg.slogdet", A)
    sign, logabs = jnp.linalg.slogdet(A)
    return sign, logabs


def det(input):
    """torch.det: linalg.det under torch's argument name."""
    return linalg_det(input)


def slogdet(input):
    """torch.slogdet: linalg.slogdet under torch's argument name."""
    return linalg_slogdet(input)


def logdet(input):
    """torch.logdet: log(det); NaN for a negative determinant, -inf for a singular matrix."""
    _check("logdet", input)
    sign, logabs = jnp.linalg.slogdet(input)
    if jnp.iscomplexobj(input):
        return jnp.log(sign) + logabs
    return jnp.where(sign < 0, jnp.nan, logabs)


# ------------------------------------------------------------------ Cholesky


def _cholesky_info(A):
    """LAPACK potrf's info: the order of the first leading minor that is not positive
    definite, from Gaussian elimination without pivoting (run only when the factor failed)."""
    n = A.shape[-1]
    later = jnp.arange(n)

    def step(k, carry):
        M, info = carry
        p = jnp.real(M[..., k, k])
        info = jnp.where((info == 0) & ~(p > 0), k + 1, info)
        col = M[..., :, k] / jnp.where(p > 0, p, 1)[..., None]
        mask = (later > k)[:, None] & (later > k)[None, :]
        M = M - jnp.where(mask, col[..., :, None] * jnp.conj(M[..., k, :])[..., None, :], 0)
        return M, info

    zeros = jnp.zeros(A.shape[:-2], jnp.int32)
    return lax.fori_loop(0, n, step, (A, zeros))[1]


def linalg_cholesky_ex(A, *, upper=False):
    """torch.linalg.cholesky_ex: (L, info) from A's lower triangle (L^H when ``upper``)."""
    _check("linalg.cholesky", A, kernel="cholesky_cpu")
    H = _hermitian(A, True)
    L = lax.linalg.cholesky(H, symmetrize_input=True)
    failed = jnp.isnan(jnp.real(jnp.diagonal(L, axis1=-2, axis2=-1))).any(-1)
    Hc = lax.stop_gradient(H)
    info = lax.cond(failed.any(), _cholesky_info, lambda M: jnp.zeros(M.shape[:-2], jnp.int32),
                    Hc)
    info = jnp.where(failed, info, 0)
    return (_mH(L) if upper else L), info


def _tri_solve_chol(L, B, upper):
    """X with ``(L L^H) X = B`` from the triangle of L (of U for ``U^H U`` when ``upper``)."""
    if upper:
        y = lax.linalg.triangular_solve(L, B, left_side=True, lower=False, transpose_a=True,
                                        conjugate_a=True)
        return lax.linalg.triangular_solve(L, y, left_side=True, lower=False)
    y = lax.linalg.triangular_solve(L, B, left_side=True, lower=True)
    return lax.linalg.triangular_solve(L, y, left_side=True, lower=True, transpose_a=True,
                                       conjugate_a=True)


# PyTorch differentiates cholesky_solve as a function of the whole factor (A = L L^H), so
# L's gradient is a full matrix; JAX's triangular solves give only its triangle.
@partial(jax.custom_vjp, nondiff_argnums=(2,))
def _cholesky_solve(B, L, upper):
    return _tri_solve_chol(L, B, upper)


def _cholesky_solve_fwd(B, L, upper):
    X = _tri_solve_chol(L, B, upper)
    return X, (L, X)


def _cholesky_solve_bwd(upper, res, g):
    L, X = res
    Y = _tri_solve_chol(L, jnp.conj(g), upper)  # PyTorch's formula, in its conjugate convention
    gA = -jnp.matmul(Y, _mH(X), precision=precision())
    sym = gA + _mH(gA)
    gL = jnp.matmul(L, sym, precision=precision()) if upper else jnp.matmul(
        sym, L, precision=precision())
    return jnp.conj(Y), jnp.conj(gL)


_cholesky_solve.defvjp(_cholesky_solve_fwd, _cholesky_solve_bwd)


def cholesky_solve(B, L, upper=False):
    """torch.cholesky_solve: X with ``(L L^H) X = B`` (``U^H U`` when ``upper``)."""
    if dtype_of(B) is not dtype_of(L):
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{D.legacy_name(dtype_of(B))} and A of type {D.legacy_name(dtype_of(L))} instead.")
    _check("cholesky_solve", L)
    if B.ndim < 2:
        raise RuntimeError(
            f"b should have at least 2 dimensions, but has {B.ndim} dimensions instead")
    batch = broadcast_shapes(B.shape[:-2], L.shape[:-2])
    L = jnp.broadcast_to(L, batch + L.shape[-2:])
    B = jnp.broadcast_to(B, batch + B.shape[-2:])
    return _cholesky_solve(B, L, upper)


def linalg_solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """torch.linalg.solve_triangular: ``A X = B`` (``X A = B`` when not left), A triangular."""
    _check("linalg.solve_triangular", A, kernel="triangular_solve_cpu", every=True)
    d = result_type(A, B)
    A, B = A.astype(d.np), B.astype(d.np)
    batch = broadcast_shapes(A.shape[:-2], B.shape[:-2])
    A = jnp.broadcast_to(A, batch + A.shape[-2:])
    B = jnp.broadcast_to(B, batch + B.shape[-2:])
    return lax.linalg.triangular_solve(A, B, left_side=left, lower=not upper,
                                       unit_diagonal=unitriangular)


# ------------------------------------------------------------------ QR, eigh, SVD


def linalg_qr(A, mode="reduced"):
    """torch.linalg.qr: mode 'reduced', 'complete' or 'r' (Q is then an empty tensor)."""
    _check("linalg.qr", A, square=False, kernel="geqrf_cpu")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' "
            "(default), 'r', or 'complete'")
    if mode == "r":
        return jnp.zeros((0,), A.dtype), jnp.linalg.qr(A, mode="r")
    return tuple(jnp.linalg.qr(A, mode=mode))


def qr(input, some=True):
    """torch.qr (deprecated form): reduced when ``some``, else complete."""
    return linalg_qr(input, "reduced" if some else "complete")


def linalg_eigh(A, UPLO="L"):
    """torch.linalg.eigh: ascending eigenvalues and eigenvectors of a Hermitian matrix,
    read from its ``UPLO`` triangle."""
    _check("linalg.eigh", A, kernel="linalg_eigh_cpu", every=True)
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    w, V = jnp.linalg.eigh(_hermitian(A, UPLO in ("L", "l")), symmetrize_input=True)
    return w, V


def linalg_eigvalsh(A, UPLO="L"):
    """torch.linalg.eigvalsh: the eigenvalues of linalg.eigh."""
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _check("linalg.eigvalsh", A, kernel="linalg_eigh_cpu", every=True)
    return jnp.linalg.eigh(_hermitian(A, UPLO in ("L", "l")), symmetrize_input=True)[0]


def linalg_svd(A, full_matrices=True, *, driver=None):
    """torch.linalg.svd: (U, S, Vh).

    Differences from PyTorch: with ``full_matrices=True`` on a non-square input there is no
    gradient (JAX has none)."""
    _check("linalg.svd", A, square=False, kernel="linalg_svd_cpu")
    full = full_matrices and A.shape[-1] != A.shape[-2]
    U, S, Vh = jnp.linalg.svd(A, full_matrices=full)
    return U, S, Vh


def svd(input, some=True, compute_uv=True):
    """torch.svd (deprecated form): (U, S, V) with V, not V^H; zeros when not compute_uv."""
    _check("svd", input, square=False)
    U, S, Vh = jnp.linalg.svd(input, full_matrices=not some and input.shape[-1] !=
                              input.shape[-2])
    V = _mH(Vh)
    if not compute_uv:
        m, n = input.shape[-2:]
        U = jnp.zeros(input.shape[:-2] + (m, m), input.dtype)
        V = jnp.zeros(input.shape[:-2] + (n, n), input.dtype)
    return U, S, V


def _svdvals(A):
    return jnp.linalg.svd(A, compute_uv=False)


def linalg_svdvals(A, *, driver=None):
    """torch.linalg.svdvals: the singular values, descending."""
    _check("linalg.svd", A, square=False, kernel="linalg_svd_cpu")
    return _svdvals(A)


# ------------------------------------------------------------------ pseudo-inverse, rank, lstsq


def _tolerance(s, A, atol, rtol):
    """PyTorch's cutoff max(atol, rtol * s_max); rtol defaults to eps * max(m, n) when neither
    is given, and to 0 when only atol is."""
    real = jnp.finfo(s.dtype)
    if rtol is None:
        rtol = real.eps * max(A.shape[-2:]) if atol is None else 0.0
    atol = 0.0 if atol is None else atol
    smax = jnp.max(s, axis=-1, initial=0.0) if s.shape[-1] else jnp.zeros(s.shape[:-1], s.dtype)
    tol = jnp.maximum(jnp.asarray(atol, s.dtype), jnp.asarray(rtol, s.dtype) * smax)
    return tol[..., None]


# PyTorch differentiates pinv by the pseudo-inverse's own formula (Golub & Pereyra), not
# through the SVD/eigh it computes with; for hermitian input the two differ (the
# decomposition's gradient would be symmetrized), so the formula is attached here.
@jax.custom_vjp
def _pinv_grad(A, P):
    return P


def _pinv_grad_fwd(A, P):
    return P, (A, P)


def _pinv_grad_bwd(res, g):
    A, P = res
    mm = partial(jnp.matmul, precision=precision())
    Ph, gh = _mH(P), jnp.conj(_mT(g))  # PyTorch's gradient is the conjugate of JAX's
    if A.shape[-2] <= A.shape[-1]:
        K = mm(gh, P)
        KPh = mm(K, Ph)
        gA = -_mH(mm(P, K)) + KPh - mm(mm(A, P), KPh) + mm(mm(Ph, P), gh - mm(K, A))
    else:
        K = mm(P, gh)
        PhK = mm(Ph, K)
        gA = -_mH(mm(K, P)) + mm(mm(gh - mm(A, K), P), Ph) + PhK - mm(mm(PhK, P), A)
    return jnp.conj(gA), jnp.zeros_like(P)


_pinv_grad.defvjp(_pinv_grad_fwd, _pinv_grad_bwd)


def _pinv(A, atol, rtol, hermitian):
    if hermitian:
        w, V = jnp.linalg.eigh(_hermitian(A, True), symmetrize_input=True)
        keep = jnp.abs(w) > _tolerance(jnp.abs(w), A, atol, rtol)
        winv = jnp.where(keep, 1 / jnp.where(keep, w, 1), 0).astype(A.dtype)
        return jnp.matmul(V * winv[..., None, :], _mH(V), precision=precision())
    U, s, Vh = jnp.linalg.svd(A, full_matrices=False)
    keep = s > _tolerance(s, A, atol, rtol)
    sinv = jnp.where(keep, 1 / jnp.where(keep, s, 1), 0).astype(A.dtype)
    return jnp.matmul(_mH(Vh) * sinv[..., None, :], _mH(U), precision=precision())


def linalg_pinv(A, *, atol=None, rtol=None, hermitian=False):
    """torch.linalg.pinv: the Moore-Penrose pseudo-inverse through the SVD (eigh if
    ``hermitian``), singular values at or below the tolerance dropped."""
    _check("linalg.pinv", A, square=hermitian)
    return _pinv_grad(A, lax.stop_gradient(_pinv(A, atol, rtol, hermitian)))


def pinverse(input, rcond=1e-15):
    """torch.pinverse: linalg.pinv with ``rtol=rcond``."""
    return linalg_pinv(input, rtol=rcond)


def linalg_matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    """torch.linalg.matrix_rank: the number of singular values above the tolerance."""
    _check("linalg.matrix_rank", A, square=hermitian)
    if hermitian:
        s = jnp.abs(jnp.linalg.eigh(_hermitian(A, True), symmetrize_input=True)[0])
    else:
        s = _svdvals(A)
    return jnp.sum(s > _tolerance(s, A, atol, rtol), axis=-1).astype(jnp.int64)


def linalg_lstsq(A, B, rcond=None, *, driver=None):
    """torch.linalg.lstsq: (solution, residuals, rank, singular_values), the minimum-norm
    least-squares solution through the SVD.

    Differences from PyTorch: residuals (drivers other than the default 'gelsy') are returned
    whenever m > n, without PyTorch's check that every matrix has full rank."""
    _check("torch.linalg.lstsq", A, square=False)
    _same_dtype("torch.linalg.lstsq", A, B)
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(
            f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, "
            f"gelss), but got {driver}")
    driver = driver or "gelsy"
    vector = B.ndim == A.ndim - 1
    if vector:
        B = B[..., None]
    m, n = A.shape[-2:]
    if B.shape[-2] != m:
        raise RuntimeError(
            f"torch.linalg.lstsq: input.size(-2) should match other.size(-2). Got "
            f"{m} and {B.shape[-2]}")
    batch = broadcast_shapes(A.shape[:-2], B.shape[:-2])
    A = jnp.broadcast_to(A, batch + (m, n))
    B = jnp.broadcast_to(B, batch + B.shape[-2:])
    U, s, Vh = jnp.linalg.svd(A, full_matrices=False)
    real = s.dtype
    rtol = jnp.finfo(real).eps * max(m, n) if rcond is None or rcond < 0 else rcond
    keep = s > _tolerance(s, A, None, rtol)
    sinv = jnp.where(keep, 1 / jnp.where(keep, s, 1), 0).astype(A.dtype)
    X = jnp.matmul(_mH(Vh) * sinv[..., None, :], jnp.matmul(_mH(U), B, precision=precision()),
                   precision=precision())
    empty = jnp.zeros((0,), real)
    # PyTorch differentiates only the solution.
    s = lax.stop_gradient(s)
    rank = jnp.sum(keep, -1).astype(jnp.int64) if driver != "gels" else jnp.zeros((0,), int)
    residuals = empty
    if driver != "gelsy" and m > n:
        r = jnp.matmul(A, X, precision=precision()) - B
        residuals = jnp.sum(jnp.abs(r) ** 2, axis=-2)
    sv = s if driver in ("gelsd", "gelss") else empty
    return (X[..., 0] if vector else X), residuals, rank.astype(jnp.int64), sv


def matrix_exp(input):
    """torch.matrix_exp: the matrix exponential (Pade approximation with scaling and
    squaring, jax.scipy.linalg.expm)."""
    _check("linalg.matrix_exp", input)
    return jax.scipy.linalg.expm(input)
