"""torch.linalg completion (eig/eigvals, the LU and LDL families, householder_product) and
the torch.X linear-algebra leftovers (lu_unpack, ormqr/orgqr, geqrf, triangular_solve,
cholesky_inverse, cov, corrcoef).

The ops with tuple results and ``out=`` (or a raising form, or a deprecation warning) are
reached through compositions in jtorch/linalg.py and _api/linalg_more.py. The "check"s read
values on the host, where PyTorch raises on them (skipped while tracing).
"""

from __future__ import annotations

from functools import partial

import jax
import numpy as np

from .. import _registry
from .. import return_types as R
from ..functional import covariance as C
from ..functional import linalg_eig as E
from ..functional import linalg_ldl as LDL
from ..functional import linalg_lu as LU
from ..functional.decomposition import LinAlgError

# A factorization's gradient reads its outputs: the backward keeps them (OpSpec.residuals)
# rather than factorizing again.
op = partial(_registry.op, residuals=True)


def _host(t):
    """A tensor's values as NumPy, or None while tracing."""
    value = t._value
    return None if isinstance(value, jax.core.Tracer) else np.asarray(value)


def _finite(operands, statics) -> None:
    A = _host(operands["A"])
    if A is not None and A.dtype.kind in "fc" and not np.isfinite(A).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")


def _pivots_in_range(operands, statics) -> None:
    LU_data, piv = operands["LU_data"], _host(operands["LU_pivots"])
    if piv is not None and piv.size and ((piv < 1) | (piv > LU_data.shape[-2])).any():
        raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                           "inclusive.Did you properly pass the result of lu_factor?")


def _nonsingular_factor(operands, statics) -> None:
    L = _host(operands["input"])
    if L is None or L.dtype.kind not in "fc" or L.ndim < 2 or L.shape[-1] != L.shape[-2]:
        return  # the kernel raises PyTorch's dtype and shape errors first
    zero = np.diagonal(L, axis1=-2, axis2=-1) == 0
    if zero.any():
        flat = zero.reshape(-1, zero.shape[-1])
        b = int(np.flatnonzero(flat.any(-1))[0])
        batch = f"(Batch element {b}): " if L.ndim > 2 else ""
        raise LinAlgError(f"cholesky_inverse: {batch}The diagonal element "
                          f"{int(np.argmax(flat[b])) + 1} is zero, the inversion could not "
                          "be completed because the input matrix is singular.")


def _cov_weights(operands, statics) -> None:
    import warnings

    x = operands["input"]
    fw, aw = operands.get("fweights"), operands.get("aweights")
    observations = x.shape[-1] if x.dim() else 1
    w = None
    for t, name in ((fw, "fweights"), (aw, "aweights")):
        host = None if t is None else _host(t)
        if host is not None and observations and host.size and host.min() < 0:
            raise RuntimeError(f"cov(): {name} cannot be negative")
        if host is not None:
            w = host if w is None else w * host
    if (fw is not None or aw is not None) and w is None:
        return  # traced weights: no host checks
    w_sum = observations if w is None else w.sum()
    if w is not None and w_sum == 0:
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    correction = statics["correction"]
    host_aw = None if aw is None else _host(aw)
    factor = w_sum - correction * (w * host_aw).sum() / w_sum if (
        w is not None and host_aw is not None and correction != 0) else w_sum - correction
    if factor <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=4)


_HIDDEN = dict(function=False, method=False)
_LIN = dict(function=False, method=False, modules=("linalg",))

op("linalg_eig", E.linalg_eig, returns=R.linalg_eig, saves="out", extra={"check": _finite},
   **_HIDDEN)
op("linalg_eigvals", E.linalg_eigvals, out=True, saves="all", grad_name="LinalgEigBackward0",
   **_LIN)
op("linalg_lu_factor_ex", LU.linalg_lu_factor_ex, static=("pivot",),
   returns=R.linalg_lu_factor_ex, saves="out", **_HIDDEN)
op("linalg_lu", LU.linalg_lu, static=("pivot",), returns=R.linalg_lu, saves="out", **_HIDDEN)
op("lu_unpack", LU.lu_unpack, static=("unpack_data", "unpack_pivots"), returns=R.lu_unpack,
   saves="none", extra={"check": _pivots_in_range}, **_HIDDEN)
op("linalg_lu_solve", LU.linalg_lu_solve, static=("left", "adjoint"), out=True, saves="all",
   **_LIN)
op("linalg_householder_product", LU.linalg_householder_product, out=True, **_LIN)
op("orgqr", LU.linalg_householder_product, grad_name="LinalgHouseholderProductBackward0")
op("geqrf", LU.geqrf, returns=R.geqrf, saves="none", **_HIDDEN)
op("ormqr", LU.ormqr, static=("left", "transpose"), out=True)
op("triangular_solve", LU.triangular_solve, static=("upper", "transpose", "unitriangular"),
   returns=R.triangular_solve, saves="all", **_HIDDEN)
op("cholesky_inverse", LU.cholesky_inverse, static=("upper",), out=True, saves="all",
   extra={"check": _nonsingular_factor})
op("linalg_ldl_factor_ex", LDL.linalg_ldl_factor_ex, static=("hermitian",),
   returns=R.linalg_ldl_factor_ex, saves="none", grad_name="NotImplemented", **_HIDDEN)
op("linalg_ldl_solve", LDL.linalg_ldl_solve, static=("hermitian",), out=True, saves="none",
   grad_name="NotImplemented", **_LIN)
op("cov", C.cov, static=("correction",), grad_name="SqueezeBackward0",
   extra={"check": _cov_weights})
op("corrcoef", C.corrcoef, grad_name="ClampBackward1")
