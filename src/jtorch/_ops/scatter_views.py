"""The ``*_scatter`` ops and ``fill_diagonal_``'s kernel: writing through a view, out of
place. Their results keep the input's memory layout (PyTorch clones it preserving strides).
"""

from __future__ import annotations

from .. import _strides
from .._registry import op
from ..functional import scatter_views as SV


def _input_layout(result, operands) -> None:
    x = operands["input"]
    st = x._stride
    if st is not None and not _strides.is_contiguous(x._shape, st):
        if not _strides.is_non_overlapping_and_dense(x._shape, st):
            st = _strides.infer_dense_strides(x._shape, st)
        result._stride = st


_KEEP = dict(saves="none", extra={"layout": _input_layout})
# PyTorch's Python bindings take out= for slice_scatter only.
op("select_scatter", SV.select_scatter, static=("dim", "index"), **_KEEP)
op("slice_scatter", SV.slice_scatter, static=("dim", "start", "end", "step"), out=True, **_KEEP)
op("diagonal_scatter", SV.diagonal_scatter, static=("offset", "dim1", "dim2"), **_KEEP)
# Reached through jtorch/_api/scatter_views.py, which passes the input's strides.
op("_as_strided_scatter", SV.as_strided_scatter, function=False, method=False,
   static=("size", "stride", "storage_offset", "input_stride"), **_KEEP)
# Tensor.fill_diagonal_ (jtorch/_api/shape_inplace.py) commits this into the tensor.
op("_fill_diagonal", SV.fill_diagonal, static=("wrap",), function=False, method=False,
   saves="none", grad_name="CopySlices")
