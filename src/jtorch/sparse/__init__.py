"""``torch.sparse``: sparse COO tensors (see ``_coo.py``) and their namespace.

``bind(namespace)`` (called by ``jtorch/__init__``) adds ``torch.sparse_coo_tensor`` and
``torch.spmm``, ``Tensor.to_sparse``/``to_dense``/``sparse_mask``, and routes the few
torch functions PyTorch lets take a sparse operand (``add``, ``sub``, ``mul``, ``div``,
``mm``, ``matmul``, ``t``, ``transpose``, ``sum``, ``neg``) to the sparse implementation
when one of their first two arguments is sparse. Dense calls pay one type check.
"""

from __future__ import annotations

import functools
import warnings

from .. import _dtypes as D
from ..eager import creation
from ..eager.tensor import Tensor
from . import _coo, _ops, _resize
from ._coo import SparseTensor, sparse_coo_tensor
from ._invariants import check_sparse_tensor_invariants
from ._ops import mm as _mm
from ._ops import sparse_mask, to_sparse
from ._ops import sparse_sum as _sparse_sum

__all__ = ["DoubleTensor", "FloatTensor", "LongTensor", "SparseTensor", "addmm", "mm", "sum",
           "check_sparse_tensor_invariants"]


def mm(mat1, mat2) -> Tensor:
    """``torch.sparse.mm``: sparse @ dense (dense result) or sparse @ sparse (sparse)."""
    if not isinstance(mat1, SparseTensor) and not isinstance(mat2, SparseTensor):
        return mat1.mm(mat2)
    return _mm(mat1, mat2)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0) -> Tensor:
    """``torch.sparse.addmm``: ``beta * mat + alpha * (mat1 @ mat2)`` with a sparse ``mat1``."""
    return mat * beta + _mm(mat1, mat2) * alpha


def sum(input, dim=None, dtype=None) -> Tensor:  # noqa: A001 - torch.sparse.sum
    """``torch.sparse.sum``: over all dims a dense scalar; over some, sparse (coalesced)."""
    return _sparse_sum(input, dim, dtype)


def _dense_product(name):
    """``torch.dsmm`` (dense result), ``smm`` (sparse) and ``hspmm``/``hsmm`` (hybrid: sparse
    rows of dense values) of a sparse matrix and a dense one.

    Differences from PyTorch: the sparse results store the nonzero entries of the product,
    where PyTorch also stores the zeros its rows produce (to_dense() agrees)."""
    sparse_dim = {"dsmm": None, "smm": 2, "hspmm": 1, "hsmm": 1}[name]

    def fn(input, mat2) -> Tensor:
        out = _mm(input, mat2) if isinstance(input, SparseTensor) else input.mm(mat2)
        return out if sparse_dim is None else to_sparse(out, sparse_dim)

    fn.__name__ = name
    return fn


def sspaddmm(input, mat1, mat2, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` as a sparse tensor (``saddmm`` too)."""
    if out is not None:
        raise RuntimeError("sspaddmm(): out= is not supported with sparse COO results in jtorch")
    return to_sparse(input.to_dense() * beta + _dense_product("dsmm")(mat1, mat2) * alpha)


def _legacy(dtype):
    """``torch.sparse.FloatTensor(indices, values[, size])`` or ``(*size)`` (deprecated)."""

    def new(*args, device=None):
        if args and isinstance(args[0], Tensor):
            warnings.warn(
                "torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  "
                "Please use torch.sparse_coo_tensor(indices, values, shape, dtype=, device=).",
                UserWarning, stacklevel=2,
            )
            return sparse_coo_tensor(*args)
        warnings.warn(
            "torch.sparse.SparseTensor(shape, *, device=) is deprecated.  Please use "
            "torch.sparse_coo_tensor(shape, dtype=, device=).", UserWarning, stacklevel=2,
        )
        size = args[0] if len(args) == 1 and isinstance(args[0], tuple | list) else args
        return _empty(size, dtype, device)

    new.__name__ = f"{D.legacy_name(dtype)}Tensor"
    return new


def _empty(size, dtype=None, device=None, requires_grad=False) -> SparseTensor:
    """An all-zero sparse COO tensor (no stored elements): ``torch.zeros(..., layout=
    torch.sparse_coo)`` and the deprecated ``torch.sparse.FloatTensor(*size)``."""
    empty = _receiver()
    values = Tensor.new_zeros(empty, (0,), dtype=dtype or D.get_default_dtype(), device=device)
    indices = Tensor.new_zeros(empty, (len(size), 0), dtype=D.int64, device=device)
    return sparse_coo_tensor(indices, values, tuple(size), requires_grad=requires_grad)


def _receiver() -> Tensor:
    """A dense tensor used only as a factory receiver; made on use, since importing jtorch
    must not start JAX's backends (``torch.distributed.init_process_group`` comes after)."""
    import jax.numpy as jnp

    from ..eager.tensor import wrap

    return wrap(jnp.zeros((0,), jnp.float32))

FloatTensor = _legacy(D.float32)
DoubleTensor = _legacy(D.float64)
LongTensor = _legacy(D.int64)


def _route(dense_fn, sparse_fn):
    @functools.wraps(dense_fn)
    def fn(*args, **kwargs):
        if (args and type(args[0]) is SparseTensor) or (
                len(args) > 1 and type(args[1]) is SparseTensor):
            return sparse_fn(*args, **kwargs)
        return dense_fn(*args, **kwargs)

    return fn


_ROUTED = {
    "add": _ops.add, "sub": _ops.sub, "mul": _ops.mul, "div": _ops.div, "mm": _ops.mm,
    "matmul": _ops.matmul, "t": _ops.t, "transpose": _ops.transpose, "neg": SparseTensor.neg,
    "sum": lambda input, dim=None, keepdim=False, *, dtype=None: input.sum(dim, keepdim,
                                                                         dtype=dtype),
}
_ROUTED.update({name: getattr(SparseTensor, name) for name in (*_coo.ZERO_PRESERVING, "pow")})
# Dense receivers PyTorch lets take a sparse argument: dense.add(sparse), dense.mm(sparse)...
_ROUTED_METHODS = ("add", "sub", "mul", "mm", "matmul")


def bind(namespace: dict) -> None:
    """Install the sparse entry points into the torch namespace and onto Tensor."""
    for name, sparse_fn in _ROUTED.items():
        routed = _route(namespace[name], sparse_fn)
        namespace[name] = routed
        if name in _ROUTED_METHODS:
            setattr(Tensor, name, routed)
    _resize.attach(namespace)
    namespace["spmm"] = namespace["mm"]
    for name in ("dsmm", "smm", "hspmm", "hsmm"):
        namespace[name] = _dense_product(name)
    namespace["sspaddmm"] = namespace["saddmm"] = sspaddmm
    Tensor.smm = namespace["smm"]
    Tensor.hspmm = namespace["hspmm"]
    Tensor.sspaddmm = sspaddmm
    namespace["sparse_coo_tensor"] = sparse_coo_tensor
    creation.SPARSE_ZEROS[0] = _empty
    Tensor.to_sparse = to_sparse
    Tensor.to_sparse_coo = lambda self: to_sparse(self)
    Tensor.sparse_mask = sparse_mask
    Tensor.to_dense = lambda self, dtype=None, *, masked_grad=None: (
        self if dtype is None else self.to(dtype))
