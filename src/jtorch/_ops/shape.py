"""Views (with the geometry that gives PyTorch's strides) and joining ops."""

from __future__ import annotations

from .. import _strides as G
from .._registry import numbered, op
from ..functional import shape as S

_V = dict(kind="view", saves="none")
op("view", S.view, geometry=G.g_view, varargs="size", function=False, **_V)
op("transpose", S.transpose, geometry=G.g_transpose, aliases=("swapaxes", "swapdims"), **_V)
op("t", S.t, geometry=G.g_t, **_V)
op("permute", S.permute, geometry=G.g_permute, varargs="dims", **_V)
op("expand", S.expand, geometry=G.g_expand, varargs="size", function=False, **_V)
op("squeeze", S.squeeze, geometry=G.g_squeeze, **_V, grad_name=numbered(
    "Squeeze", lambda s, o: 0 if s.get("dim") is None else 1 if isinstance(s["dim"], int) else 2))
op("unsqueeze", S.unsqueeze, geometry=G.g_unsqueeze, **_V)
op("select", S.select, geometry=G.g_select, **_V)
op("narrow", S.narrow, geometry=G.g_narrow, grad_name="SliceBackward0", **_V)  # torch slices
op("diagonal", S.diagonal, geometry=lambda sh, st, o, offset=0, dim1=0, dim2=1: G.g_diagonal(
    sh, st, o, offset, dim1, dim2), **_V)
op("unfold", S.unfold, geometry=G.g_unfold, function=False, **_V)
op("cat", S.cat, static=("dim",), method=False, out=True, saves="none",
   aliases=("concat", "concatenate"), extra={"groups": 16})  # see bind._in_groups
op("stack", S.stack, static=("dim",), method=False, out=True, saves="none")
