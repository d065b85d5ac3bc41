"""The short-time Fourier transform and its inverse (``torch.stft``/``torch.istft``):
framing, windowing and overlap-add around ``jnp.fft``, with PyTorch's defaults, layouts
(frequency before time) and checks."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from ._util import dtype_of

_PAD = {"reflect": "reflect", "constant": "constant", "replicate": "edge", "circular": "wrap"}


def _window(window, n_fft, win_length, dtype, what):
    """The window of ``win_length`` (ones by default) centred in ``n_fft`` samples."""
    win_length = n_fft if win_length is None else win_length
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{what}: expected 0 < win_length <= n_fft, but got "
                           f"win_length={win_length}")
    if window is None:
        window = jnp.ones((win_length,), dtype)
    elif window.ndim != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{what}: expected a 1D window tensor of size equal to win_length="
                           f"{win_length}, but got window with size {list(window.shape)}")
    left = (n_fft - win_length) // 2
    return jnp.pad(window, (left, n_fft - win_length - left))


def _frames_index(n_frames, hop, n_fft):
    return np.arange(n_frames)[:, None] * hop + np.arange(n_fft)[None, :]


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None):
    """Spectra of windowed frames: (freq, frames) per signal, complex (or its real pairs)."""
    d = dtype_of(input)
    what = "stft"
    if return_complex is None and d._kind != 3 and (window is None or
                                                    dtype_of(window)._kind != 3):
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, "
                           "and will further require that return_complex=True in a future "
                           "PyTorch release.")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"{what}: expected a 1D or 2D tensor")
    x = input[None] if input.ndim == 1 else input
    if d._kind < 2:
        x = x.astype(D.get_default_dtype().np)
    if center:
        x = jnp.pad(x, ((0, 0), (n_fft // 2, n_fft // 2)), mode=_PAD[pad_mode])
    hop = n_fft // 4 if hop_length is None else hop_length
    if not 0 < n_fft <= x.shape[-1]:
        raise RuntimeError(f"{what}: expected 0 < n_fft < {x.shape[-1]}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"{what}: expected hop_length > 0, but got hop_length={hop}")
    complex_in = jnp.iscomplexobj(x) or (window is not None and jnp.iscomplexobj(window))
    if onesided and complex_in:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    w = _window(window, n_fft, win_length, x.real.dtype, what)
    n_frames = 1 + (x.shape[-1] - n_fft) // hop
    frames = x[:, _frames_index(n_frames, hop, n_fft)] * w  # (batch, frames, n_fft)
    one = (not complex_in) if onesided is None else onesided
    spec = jnp.fft.rfft(frames, axis=-1) if one else jnp.fft.fft(frames, axis=-1)
    if normalized:
        spec = spec * (n_fft ** -0.5)
    spec = jnp.swapaxes(spec, -1, -2).astype(_complex_of(x.dtype))
    spec = spec[0] if input.ndim == 1 else spec
    return spec if return_complex or return_complex is None else jnp.stack(
        [spec.real, spec.imag], axis=-1)


def _complex_of(dtype):
    return np.complex128 if np.dtype(dtype) in (np.float64, np.complex128) else np.complex64


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The signal whose ``stft`` is ``input``: inverse FFTs of the frames, overlap-added and
    divided by the summed squared window."""
    what = "istft"
    if not jnp.iscomplexobj(input):
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    spec = input[None] if input.ndim == 2 else input
    hop = n_fft // 4 if hop_length is None else hop_length
    one = (spec.shape[-2] != n_fft) if onesided is None else onesided
    if one and return_complex:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    real_dtype = np.float64 if spec.dtype == np.complex128 else np.float32
    w = _window(window, n_fft, win_length, real_dtype, what)
    frames_f = jnp.swapaxes(spec, -1, -2)  # (batch, frames, freq)
    if normalized:
        frames_f = frames_f * (n_fft ** 0.5)
    frames = (jnp.fft.irfft(frames_f, n=n_fft, axis=-1) if one
              else jnp.fft.ifft(frames_f, n=n_fft, axis=-1))
    if not return_complex and not one:
        frames = frames.real
    frames = frames * w
    n_frames = frames.shape[1]
    total = n_fft + hop * (n_frames - 1)
    idx = _frames_index(n_frames, hop, n_fft).reshape(-1)
    signal = jnp.zeros((frames.shape[0], total), frames.dtype).at[:, idx].add(
        frames.reshape(frames.shape[0], -1))
    envelope = jnp.zeros((total,), w.dtype).at[idx].add(jnp.tile(w * w, n_frames))
    start = n_fft // 2 if center else 0
    end = total - n_fft // 2 if center else total
    if length is not None:
        end = start + length
    signal, envelope = signal[:, start:end], envelope[start:end]
    signal = signal / jnp.where(jnp.abs(envelope) < 1e-11, 1, envelope)
    if length is not None and signal.shape[-1] < length:
        signal = jnp.pad(signal, ((0, 0), (0, length - signal.shape[-1])))
    return signal[0] if input.ndim == 2 else signal


def overlap_envelope(window, n_fft, hop_length, win_length, n_frames, center, length):
    """The summed squared window istft divides by, on the host (for its NOLA check)."""
    hop = n_fft // 4 if hop_length is None else hop_length
    w = np.asarray(_window(window, n_fft, win_length, np.float64, "istft"))
    total = n_fft + hop * (n_frames - 1)
    env = np.zeros(total)
    np.add.at(env, _frames_index(n_frames, hop, n_fft).reshape(-1), np.tile(w * w, n_frames))
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else total - n_fft // 2 if center else total
    return env[start:end]
