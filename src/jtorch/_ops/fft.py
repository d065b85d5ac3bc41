"""torch.fft declarations: every transform is ``torch.fft.<name>`` with ``out=``
(fftfreq/rfftfreq and the shifts are compositions in ``jtorch/fft``)."""

from __future__ import annotations

from .._registry import op
from ..functional import fft as F


def _grad_name(complex_input: str, real_input: str):
    return lambda s, o: complex_input if o["input"].dtype.is_complex else real_input


_C2C, _R2C, _C2R = "FftC2CBackward0", "FftR2CBackward0", "FftC2RBackward0"
# PyTorch's graph: a real input to fft is one r2c node, to ifft/ihfft a conjugated r2c.
_NAMES = {
    "fft": _grad_name(_C2C, _R2C), "ifft": _grad_name(_C2C, "ConjBackward0"),
    "rfft": _R2C, "irfft": _C2R, "hfft": _C2R, "ihfft": "ConjBackward0",
    "fft2": _C2C, "ifft2": _C2C, "fftn": _C2C, "ifftn": _C2C, "rfft2": _R2C, "rfftn": _R2C,
    "irfft2": _C2R, "irfftn": _C2R, "hfft2": _C2R, "hfftn": _C2R, "ihfft2": _C2C,
    "ihfftn": _C2C,
}
for _name, _grad in _NAMES.items():
    _static = ("n", "dim", "norm") if _name in ("fft", "ifft", "rfft", "irfft", "hfft",
                                                "ihfft") else ("s", "dim", "norm")
    op(f"fft_{_name}", getattr(F, _name), static=_static, out=True, function=False,
       method=False, modules=("fft",), grad_name=_grad, saves="none")
