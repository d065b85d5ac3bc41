"""torch.stft / torch.istft, with PyTorch's host-side warnings and window check."""

from __future__ import annotations

import warnings

import numpy as np

from .._registry import op
from ..functional import spectral as Sp

_RECTANGULAR = {
    "stft": "A window was not provided. A rectangular window will be applied,which is known "
            "to cause spectral leakage. Other windows such as torch.hann_window or "
            "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
            "warning and use a rectangular window, explicitly set "
            "`window=torch.ones(n_fft, device=<device>)`.",
    "istft": "A window was not provided. A rectangular window will be applied.Please provide "
             "the same window used by stft to make the inversion lossless.To suppress this "
             "warning and use a rectangular window, explicitly set "
             "`window=torch.ones(n_fft, device=<device>)`.",
}


def _warn(message: str) -> None:
    warnings.warn(message, UserWarning, stacklevel=5)


def _stft_check(operands, statics) -> None:
    if operands.get("window") is None:
        _warn(_RECTANGULAR["stft"])
    if statics["return_complex"] is False:
        _warn("stft with return_complex=False is deprecated. In a future pytorch release, stft "
              "will return complex tensors for all inputs, and return_complex=False will raise "
              "an error.\nNote: you can still call torch.view_as_real on the complex output to "
              "recover the old return format.")


def _istft_check(operands, statics) -> None:
    """PyTorch's NOLA check: the overlapped squared window must not vanish anywhere."""
    window, x = operands.get("window"), operands["input"]
    if window is None:
        _warn(_RECTANGULAR["istft"])
    if x.dim() < 2:
        return
    host = None if window is None else np.asarray(window._value)
    env = Sp.overlap_envelope(host, statics["n_fft"], statics["hop_length"],
                              statics["win_length"], x.shape[-1], statics["center"],
                              statics["length"])
    if env.size and np.abs(env).min() < 1e-11:
        raise RuntimeError(f"istft: window overlap add min: {np.abs(env).min():g}")


op("stft", Sp.stft, static=("n_fft", "hop_length", "win_length", "center", "pad_mode",
                            "normalized", "onesided", "return_complex"),
   extra={"check": _stft_check})
op("istft", Sp.istft, static=("n_fft", "hop_length", "win_length", "center", "normalized",
                              "onesided", "length", "return_complex"),
   extra={"check": _istft_check})
