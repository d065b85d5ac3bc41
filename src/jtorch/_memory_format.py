"""``torch.layout`` and ``torch.memory_format`` objects, and the memory-format rules.

Layouts (``torch.strided``, ``torch.sparse_coo``) name how a tensor is stored;
memory formats (``torch.contiguous_format``, ``torch.channels_last``,
``torch.channels_last_3d``, ``torch.preserve_format``) name the dense stride order a
copy or a factory should use. Strides are metadata here (the values are logical JAX
arrays), so a memory format only decides the strides a tensor reports, exactly as
PyTorch would.

The rules (used by ``Tensor.contiguous``/``clone``/``to``/``is_contiguous``, ``empty`` and
the ``*_like`` factories, and declared on convolution/pooling/normalization ops as
``extra={"layout": keep_channels_last(...)}``): ``strides_for`` (a format's strides),
``is_contiguous_as`` and ``suggest_memory_format`` (PyTorch's stride heuristics).
``attach`` gives Tensor its ``layout`` property.
"""

from __future__ import annotations

__all__ = [
    "channels_last",
    "channels_last_3d",
    "contiguous_format",
    "layout",
    "memory_format",
    "preserve_format",
    "sparse_bsc",
    "sparse_bsr",
    "sparse_coo",
    "sparse_csc",
    "sparse_csr",
    "strided",
]


class layout:
    """A tensor storage layout; prints as ``torch.strided``."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


class memory_format:
    """A dense stride order; prints as ``torch.channels_last``."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")

# Factories that make an empty sparse COO tensor for layout=torch.sparse_coo, as PyTorch.
_SPARSE_FACTORIES = {"zeros", "empty", "zeros_like", "new_zeros", "new_empty"}


def sparse_requested(name: str, requested, out=None) -> bool:
    """PyTorch's reading of a factory's ``layout=``: False for the default (strided), True
    where it makes an empty sparse COO tensor, and its errors everywhere else."""
    if requested is None or requested is strided:
        return False
    if not isinstance(requested, layout):
        raise TypeError(f"{name}(): argument 'layout' must be torch.layout, not "
                        f"{type(requested).__name__}")
    if requested is not sparse_coo:
        raise NotImplementedError(f"{name}(layout={requested}): jtorch implements only "
                                  "torch.strided and torch.sparse_coo tensors")
    if out is not None:
        raise RuntimeError("layout Sparse does not match layout of out parameter (Strided)")
    if name in ("ones", "full"):
        raise RuntimeError("full(...) is not implemented for sparse layout")
    if name not in _SPARSE_FACTORIES:
        raise NotImplementedError(f"Could not run '{name}' with arguments from the "
                                  "'SparseCPU' backend: it makes no sparse tensors")
    return True


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")


def attach() -> None:
    """Give Tensor its ``layout`` property (sparse tensors override it)."""
    from .eager.tensor import Tensor

    Tensor.layout = property(lambda self: strided)


# ---------------------------------------------------------------- stride rules

_ORDER = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}  # innermost first: C, then W, H, (D,) N


def _rank(fmt) -> int:
    return 4 if fmt is channels_last else 5


def strides_for(shape, fmt) -> tuple | None:
    """The strides ``torch.empty(shape, memory_format=fmt)`` has; None means contiguous."""
    from ._strides import contiguous_strides

    if fmt is None or fmt is contiguous_format:
        return None
    if fmt is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    if len(shape) != _rank(fmt):
        raise RuntimeError(f"required rank {_rank(fmt)} tensor to use {fmt._name} format")
    out, acc = [0] * len(shape), 1
    for d in _ORDER[len(shape)]:  # PyTorch multiplies raw sizes here (no max(size, 1))
        out[d] = acc
        acc *= shape[d]
    out = tuple(out)
    return None if out == contiguous_strides(shape) else out


def is_contiguous_as(shape, stride, fmt) -> bool:
    """``is_contiguous(memory_format=fmt)`` for channels_last(_3d): size-1 dims are ignored."""
    if len(shape) != _rank(fmt):
        return False
    expected = 1
    for d in _ORDER[len(shape)]:
        if shape[d] != 1:
            if stride[d] != expected:
                return False
            expected *= shape[d]
    return True


def suggest_memory_format(shape, stride):
    """PyTorch's ``suggest_memory_format``: channels_last(_3d) when the strides look like it.

    Ambiguous layouts (an N111 tensor, a trivial channel stride) count as contiguous.
    """
    order = _ORDER.get(len(shape))
    if order is None or stride[1] == 0:
        return contiguous_format
    low = 0
    for d in order:
        if shape[d] == 0 or stride[d] < low or (d == 0 and low == stride[1]):
            return contiguous_format
        low = stride[d] * (shape[d] if shape[d] > 1 else 1)
    return channels_last if len(shape) == 4 else channels_last_3d


def keep_channels_last(*names):
    """An OpSpec ``extra["layout"]`` rule: the result is channels_last(_3d) when one of the
    named operands suggests it, as PyTorch's CPU convolution, pooling and batch-norm kernels
    allocate their outputs."""

    def rule(result, operands) -> None:
        for name in names:
            t = operands.get(name)
            st = getattr(t, "_stride", None)
            if st is None:
                continue
            fmt = suggest_memory_format(t._shape, st)
            if fmt is not contiguous_format:
                for r in result if isinstance(result, tuple) else (result,):
                    if len(r._shape) == len(t._shape):
                        r._stride = strides_for(r._shape, fmt)
                return

    return rule
