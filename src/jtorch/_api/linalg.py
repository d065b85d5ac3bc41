"""Linear-algebra compositions over registry ops: the raising inverse / Cholesky / solve
(the ``*_ex`` op plus a host check of LAPACK's ``info``, as PyTorch does synchronously on
CPU), einsum and chain_matmul. ``jtorch.linalg`` builds its raising forms from these too.

Tensor methods set here: ``inverse``.
"""

from __future__ import annotations

import warnings

import jax
import numpy as np

from ..eager import views
from ..eager.autograd import grad_mode
from ..eager.bind import bound
from ..eager.tensor import Tensor
from ..functional.decomposition import LinAlgError

__all__ = ["inverse", "einsum", "chain_matmul"]

_MESSAGES = {
    "linalg.inv": "The diagonal element {} is zero, the inversion could not be completed "
                  "because the input matrix is singular.",
    "linalg.cholesky": "The factorization could not be completed because the input is not "
                       "positive-definite (the leading minor of order {} is not "
                       "positive-definite).",
    "linalg.solve": "The solver failed because the input matrix is singular.",
    "linalg.lu_factor": "U[{0},{0}] is zero and using it on lu_solve would result in a "
                        "division by zero. If you still want to perform the factorization, "
                        "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)",
    # PyTorch fails an internal assert here; jtorch says what happened.
    "linalg.ldl_factor": "The factorization could not be completed because the input is "
                         "singular: D[{0},{0}] is zero.",
}


def check_info(op: str, info: Tensor, name: str | None = None, error=LinAlgError) -> None:
    """Raise torch.linalg.LinAlgError (or ``error``) when any ``info`` is non-zero (skipped
    under tracing); ``name`` is the function the message names (``op``'s by default)."""
    value = info._value
    if isinstance(value, jax.core.Tracer):
        return
    host = np.asarray(value)
    if not host.any():
        return
    i = int(np.flatnonzero(host)[0])
    batch = f"(Batch element {i}): " if host.ndim else ""
    raise error(f"{name or op}: {batch}{_MESSAGES[op].format(int(host.flat[i]))}")


def write_out(op: str, out, result):
    """Write ``result`` (a tensor or a tuple of them) into ``out`` as ``out=`` bindings do."""
    if out is None:
        return result
    pairs = list(zip(out, result)) if isinstance(result, tuple) else [(out, result)]
    if grad_mode._state.enabled and any(
            o.requires_grad or r.requires_grad for o, r in pairs):
        raise RuntimeError(
            f"{op}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad.")
    with grad_mode.no_grad():
        for o, r in pairs:
            if o.shape != r.shape:
                views.resize_(o, r.shape)
            views.commit(o, r.detach())
    return out


def linalg_inv(A, out=None):
    inverse, info = bound("linalg_inv_ex")(A)
    check_info("linalg.inv", info)
    return write_out("linalg_inv", out, inverse)


def inverse(input, *, out=None) -> Tensor:
    """torch.inverse: linalg.inv; raises torch.linalg.LinAlgError on singular input."""
    return linalg_inv(input, out)


def einsum(equation, *operands) -> Tensor:
    """torch.einsum(equation, *operands) or einsum(equation, [operands]).

    Differences from PyTorch: the sublist form ``einsum(a, [0, 1], b, [1, 2])`` is not
    supported."""
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = operands[0]
    if not isinstance(equation, str):
        raise TypeError("einsum(): the sublist format is not supported; pass an equation")
    return bound("_einsum")(equation, list(operands))


def chain_matmul(*matrices, out=None) -> Tensor:
    """torch.chain_matmul (deprecated): linalg.multi_dot of 2-D matrices."""
    warnings.warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
        "Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors "
        "rather than multiple parameters.", UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(
                f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        return write_out("chain_matmul", out, matrices[0].clone())
    return write_out("chain_matmul", out, bound("linalg_multi_dot")(list(matrices)))


Tensor.inverse = lambda self: inverse(self)
