"""Op database entries: the short-time Fourier transform and its inverse."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

_X = lambda d="float64": tensor((2, 24), d)  # noqa: E731
_HANN = T(0.5 - 0.5 * np.cos(2 * np.pi * np.arange(8) / 8), "float64")
_HANN32 = T(_HANN.data, "float32")


def _spec(window=_HANN, onesided=True, center=True, n=24):
    """A spectrum istft can invert: the stft of a signal, computed with NumPy."""
    x = np.random.default_rng(0).standard_normal((2, n))
    if center:
        x = np.pad(x, ((0, 0), (4, 4)), mode="reflect")
    frames = x[:, np.arange(1 + (x.shape[1] - 8) // 2)[:, None] * 2 + np.arange(8)]
    frames = frames * window.data
    spec = np.fft.rfft(frames, axis=-1) if onesided else np.fft.fft(frames, axis=-1)
    return T(np.swapaxes(spec, 1, 2), "complex128")


OPS: list[OpInfo] = [
    OpInfo("stft", lambda: [
        S(_X(), 8, 2, window=_HANN, return_complex=True),
        S(_X("float32"), 8, return_complex=True, window=_HANN32),
        S(_X(), 8, 2, 6, T(np.hanning(6), "float64"), return_complex=True),
        S(_X(), 8, 2, window=_HANN, center=False, return_complex=True),
        S(_X(), 8, 3, window=_HANN, pad_mode="constant", normalized=True, return_complex=True),
        S(_X(), 8, 2, window=_HANN, onesided=False, return_complex=True),
        S(tensor((24,), "float64"), 8, 2, window=_HANN, return_complex=False),
        S(tensor((24,), "complex128"), 8, 2, window=_HANN),
    ], lambda: [
        S(_X(), 8), S(tensor((1, 2, 24)), 8, return_complex=True),
        S(_X(), 100, center=False, return_complex=True),
        S(_X(), 8, window=tensor((5,)), return_complex=True),
        S(_X(), 8, win_length=10, return_complex=True), S(_X(), 8, 0, return_complex=True),
        S(tensor((24,), "complex64"), 8, onesided=True, return_complex=True),
    ], tol=dict(rtol=1e-5, atol=1e-5)),
    OpInfo("istft", lambda: [
        S(_spec(), 8, 2, window=_HANN), S(_spec(), 8, 2, window=_HANN, length=20),
        S(_spec(), 8, 2, window=_HANN, length=30),
        S(_spec(onesided=False), 8, 2, window=_HANN, onesided=False, return_complex=True),
        S(_spec(), 8, 2, window=_HANN, normalized=True),
    ], lambda: [
        S(tensor((2, 5, 9)), 8, 2), S(_spec(center=False), 8, 2, window=_HANN, center=False),
        S(_spec(), 8, 2, window=_HANN, return_complex=True),
    ], tol=dict(rtol=1e-5, atol=1e-5)),
]
