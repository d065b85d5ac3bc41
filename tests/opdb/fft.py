"""Op database entries: torch.fft transforms (values, dtypes, gradients, errors).

Every transform reaches torch and jtorch through ``torch.fft.<name>``; results are
``resolve_conj``-ed because PyTorch returns some (ifft/ihfft of a real input) as lazily
conjugated tensors. Samples share one (4, 6) shape so each transform compiles few kernels;
the 2-d forms and hfftn/ihfftn share the n-d c2c/r2c/c2r paths, which take gradients.
Gradients of complex inputs are compared in test_fft.py (the generic test takes float64).
"""

from __future__ import annotations

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []
TOL = dict(rtol=1e-5, atol=1e-5)
X64, Z128 = tensor((4, 6), "float64"), tensor((4, 6), "complex128")
X32, I64 = tensor((4, 6), "float32"), tensor((4, 6), "int64")
Z64 = tensor((4, 6), "complex64")


def _fft(name):
    return lambda t, *a, **k: getattr(t.fft, name)(*a, **k).resolve_conj()


def _errors(real_only=False, nd=False):
    bad = [S(X32, norm="bad"), S(tensor((4, 6), "float16")), S(2.0)]
    bad += [S(X32, dim=(0, 0)), S(X32, (2, 3), (0,)), S(X32, (0, 3))] if nd else [
        S(X32, 0), S(X32, dim=2), S(tensor((), "float32"))]
    return lambda: bad + ([S(Z64)] if real_only else [])


_ONE_DIM = {
    "fft": [S(X64), S(Z64, 5, 0, "ortho"), S(I64, norm="forward")],
    "ifft": [S(X64, 8, norm="ortho"), S(Z64, dim=0)],
    "rfft": [S(X64, norm="forward"), S(X32, 5, 0)],
    "ihfft": [S(X64, 5, 0), S(I64, norm="ortho")],
    "irfft": [S(X64), S(Z64, 7, 0, "ortho"), S(Z128, n=1, norm="forward")],
    "hfft": [S(X64, 4, norm="ortho"), S(Z64, dim=0)],
}
for _name, _samples in _ONE_DIM.items():
    _real = _name in ("rfft", "ihfft")
    OPS.append(OpInfo(f"fft_{_name}", lambda s=_samples: s, _errors(_real), call=_fft(_name),
                      tol=TOL, grad_samples=1))

_ND = {
    "fftn": [S(X64, (3, -1), (1, 0), "forward"), S(tensor((2, 3, 4), "complex64"), dim=(0, 2))],
    "ifftn": [S(X64, (5,), norm="ortho"), S(I64)],
    "rfftn": [S(X64, (3, 8), norm="ortho"), S(tensor((2, 3, 4), "float32"), dim=(2, 0))],
    "ihfftn": [S(X64, dim=(1, 0)), S(X32, (3, -1))],
    "irfftn": [S(X64, (4, -1), (1, 0), "forward"), S(Z64, (3, 7))],
    "hfftn": [S(X64, norm="ortho"), S(tensor((2, 3, 4), "complex64"), dim=(0, 2))],
    "fft2": [S(I64, norm="ortho")], "ifft2": [S(Z64, (3, 8))], "rfft2": [S(X32, dim=(1, 0))],
    "ihfft2": [S(X32, norm="forward")], "irfft2": [S(Z64, (3, 7))], "hfft2": [S(Z64)],
}
# The 2-d forms and the Hermitian n-d forms share these implementations.
_GRAD = ("fftn", "ifftn", "rfftn", "irfftn")
for _name, _samples in _ND.items():
    _real = _name[0] == "r" or _name.startswith("ih")
    OPS.append(OpInfo(f"fft_{_name}", lambda s=_samples: s, _errors(_real, True),
                      call=_fft(_name), tol=TOL, grad=_name in _GRAD, grad_samples=1))
