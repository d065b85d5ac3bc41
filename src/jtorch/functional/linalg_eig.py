"""Eigen-decomposition of general square matrices (torch.linalg.eig, eigvals): complex
eigenvalues and unit-norm eigenvectors as LAPACK's geev gives them, with PyTorch's backward
formula (``linalg_eig_backward``) as a custom VJP.

Differences from PyTorch: PyTorch checks in backward that a loss over complex eigenvectors
does not depend on their arbitrary phase (raising if it does); jtorch does not check.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .decomposition import _check, _mH
from .products import precision

__all__ = ["linalg_eig", "linalg_eigvals"]


def _mm(a, b):
    return jnp.matmul(a, b, precision=precision())


@jax.custom_vjp
def _eig(A):
    return tuple(jnp.linalg.eig(A))


def _eig_fwd(A):
    L, V = _eig(A)
    return (L, V), (L, V, jnp.zeros((0,), A.dtype))  # an empty array carries A's dtype


def _eig_bwd(res, g):
    # PyTorch's formula takes and gives gradients in its conjugate convention: conjugate
    # JAX's cotangents in and the result out (real inputs get its real part).
    L, V, like = res
    gL, gV = jnp.conj(g[0]), jnp.conj(g[1])
    Vh = _mH(V)
    VhgV = _mm(Vh, gV)
    re_diag = jnp.real(jnp.diagonal(VhgV, axis1=-2, axis2=-1))
    VhgV = VhgV - _mm(Vh, V * re_diag[..., None, :].astype(V.dtype))
    Lc = jnp.conj(L)
    n = L.shape[-1]
    eye = jnp.eye(n, dtype=bool)
    gaps = jnp.where(eye, 1, Lc[..., None, :] - Lc[..., :, None])
    inner = jnp.where(eye, gL[..., None, :] * jnp.ones_like(VhgV), VhgV / gaps)
    gA = jnp.linalg.solve(Vh, _mm(inner, Vh))
    return (jnp.conj(gA) if jnp.iscomplexobj(like) else jnp.real(gA),)


_eig.defvjp(_eig_fwd, _eig_bwd)


def linalg_eig(A):
    """torch.linalg.eig: (eigenvalues, eigenvectors), complex, ``A V = V diag(L)``."""
    _check("linalg.eig", A, kernel="linalg_eig_cpu")
    return _eig(A)


def linalg_eigvals(A):
    """torch.linalg.eigvals: the eigenvalues of linalg.eig."""
    _check("linalg.eigvals", A, kernel="linalg_eig_cpu")
    return _eig(A)[0]
