"""torch.fft: the transforms are registry ops (``_ops/fft.py``); the sample-frequency
factories and the shifts are compositions here."""

from __future__ import annotations

from .._dtypes import to_dtype as _to_dtype
from ..eager import creation as _creation
from ..eager.bind import bound as _bound
from ..eager.bind import export as _export
from ..eager.tensor import Tensor  # noqa: F401 - torch.fft.Tensor
from ..functional import fft as _F

_export(globals(), "fft")


def _freq(name, values, n, d, out, dtype, layout, device, requires_grad):
    if layout is not None and str(layout) != "torch.strided":  # as PyTorch's arange refuses
        raise NotImplementedError(f"fft_{name}(): only the torch.strided layout is supported, "
                                  f"not {layout}")
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"fft_{name}(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if dtype is None and out is not None:
        dtype = out.dtype
    value = values(n, float(d), dtype=None if dtype is None else _to_dtype(dtype))
    return _creation._emit(f"fft_{name}", value, out, requires_grad, _creation._target(device))


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of a length-``n`` signal with sample spacing ``d``."""
    return _freq("fftfreq", _F.fftfreq, n, d, out, dtype, layout, device,
                 requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """The sample frequencies of rfft's one-sided output for a length-``n`` signal."""
    return _freq("rfftfreq", _F.rfftfreq, n, d, out, dtype, layout, device,
                 requires_grad)


def _shift(input, dim, half):
    dims = tuple(range(input.dim())) if dim is None else (dim,) if isinstance(dim, int) \
        else tuple(dim)
    shifts = tuple(half(input.shape[d]) for d in dims)
    return _bound("roll")(input, shifts, dims)


def fftshift(input, dim=None):
    """Move the zero-frequency term to the centre (a roll by half of each dim in ``dim``,
    every dim by default)."""
    return _shift(input, dim, lambda n: n // 2)


def ifftshift(input, dim=None):
    """The inverse of fftshift."""
    return _shift(input, dim, lambda n: (n + 1) // 2)
