"""Discrete Fourier transforms (torch.fft): torch's argument checks, ``n``/``s`` padding and
trimming, normalization modes and result dtypes, on ``jax.numpy.fft``.

Integer and bool inputs compute in the default float's complex type; float16 and bfloat16
raise as PyTorch's CPU kernels do. Gradients are JAX's: its FFT transposes use the same
real-to-complex and complex-to-real (Hermitian doubling) conventions as PyTorch's backward
formulas, and the one VJP site applies PyTorch's complex conjugation.
"""

from __future__ import annotations

import math
import operator

import jax.numpy as jnp

from .. import _dtypes as D
from ._util import cast, dtype_of

__all__ = [
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
    "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq",
    "rfftfreq",
]

_NORMS = ("backward", "ortho", "forward")
# hfft is irfft of the conjugate, and ihfft the conjugate of rfft, with the scaling moved
# to the other direction: "backward" (no scaling forward) becomes irfft's "forward".
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


# ------------------------------------------------------------------ argument checks


def _norm(norm) -> str:
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm


def _int(op: str, name: str, pos: int, v) -> None:
    if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
        where = f" (position {pos})" if pos else ""
        raise TypeError(f"fft_{op}(): argument '{name}'{where} must be int, not "
                        f"{type(v).__name__}")


def _points(n: int) -> int:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _axis(dim: int, ndim: int) -> int:
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-ndim}, {ndim - 1}], but got {dim})")
    return dim % ndim


def _resize(x, n: int, axis: int):
    """Zero-pad or trim ``x`` to length ``n`` along ``axis``."""
    size = x.shape[axis]
    if n < size:
        return jnp.take(x, jnp.arange(n), axis=axis)
    if n > size:
        pad = [(0, 0)] * x.ndim
        pad[axis] = (0, n - size)
        return jnp.pad(x, pad)
    return x


def _float_input(op, x):
    """The input in the dtype the transform computes in: ints and bool become the default
    float; half precision is refused as on PyTorch's CPU."""
    if not hasattr(x, "dtype") or getattr(x, "weak_type", False):  # a number or a sequence
        kind = type(x).__name__ if not hasattr(x, "dtype") else "float"
        raise TypeError(f"fft_{op}(): argument 'input' (position 1) must be Tensor, not {kind}")
    d = dtype_of(x)
    if d in (D.float16, D.bfloat16):
        raise RuntimeError(f"Unsupported dtype {D.legacy_name(d)}")
    return cast(x, D.get_default_dtype()) if d._kind < 2 else x


def _complex_input(op, x):
    x = _float_input(op, x)
    return cast(x, dtype_of(x).to_complex())


def _real_input(op, x, message: str):
    x = _float_input(op, x)
    d = dtype_of(x)
    if d._kind == 3:
        raise RuntimeError(message.format(D.legacy_name(d)))
    return x


# ------------------------------------------------------------------ one dimension


def _one_dim(op, x, n, dim, norm):
    """(x, n, axis, norm) checked, with ``x`` resized to ``n`` along the axis."""
    _int(op, "n", 2, n)
    _int(op, "dim", 3, dim)
    norm = _norm(norm)
    axis = _axis(dim, x.ndim)
    n = _points(x.shape[axis] if n is None else n)
    return _resize(x, n, axis), n, axis, norm


def fft(input, n=None, dim=-1, norm=None):
    """torch.fft.fft: the 1-D discrete Fourier transform over ``dim``."""
    x, _, axis, norm = _one_dim("fft", _complex_input("fft", input), n, dim, norm)
    return jnp.fft.fft(x, axis=axis, norm=norm)


def ifft(input, n=None, dim=-1, norm=None):
    """torch.fft.ifft: the 1-D inverse discrete Fourier transform over ``dim``."""
    x, _, axis, norm = _one_dim("ifft", _complex_input("ifft", input), n, dim, norm)
    return jnp.fft.ifft(x, axis=axis, norm=norm)


def rfft(input, n=None, dim=-1, norm=None):
    """torch.fft.rfft: the one-sided transform of a real signal (n // 2 + 1 outputs)."""
    x = _real_input("rfft", input, "rfft expects a real input tensor, but got {}")
    x, _, axis, norm = _one_dim("rfft", x, n, dim, norm)
    return jnp.fft.rfft(x, axis=axis, norm=norm)


def _c2r(op, input, n, dim, norm, inverse):
    _int(op, "n", 2, n)
    _int(op, "dim", 3, dim)
    norm = _norm(norm)
    x = _complex_input(op, input)
    axis = _axis(dim, x.ndim)
    n = _points(2 * (x.shape[axis] - 1) if n is None else n)
    x = _resize(x, n // 2 + 1, axis)
    if not inverse:
        x, norm = jnp.conj(x), _SWAP[norm]
    return jnp.fft.irfft(x, n, axis=axis, norm=norm)


def irfft(input, n=None, dim=-1, norm=None):
    """torch.fft.irfft: the inverse of rfft, a real signal of length ``n`` (by default
    ``2 * (m - 1)``); the imaginary parts of the zero (and Nyquist) terms are ignored."""
    return _c2r("irfft", input, n, dim, norm, True)


def hfft(input, n=None, dim=-1, norm=None):
    """torch.fft.hfft: the transform of a Hermitian-symmetric signal given by its first
    half: a real result of length ``n`` (by default ``2 * (m - 1)``)."""
    return _c2r("hfft", input, n, dim, norm, False)


def ihfft(input, n=None, dim=-1, norm=None):
    """torch.fft.ihfft: the inverse of hfft, the one-sided inverse transform of a real
    signal."""
    x = _real_input("ihfft", input, "ihfft expects a real input tensor, but got {}")
    x, _, axis, norm = _one_dim("ihfft", x, n, dim, norm)
    return jnp.conj(jnp.fft.rfft(x, axis=axis, norm=_SWAP[norm]))


# ------------------------------------------------------------------ n dimensions


def _as_list(op: str, name: str, v):
    if v is None:
        return None
    if isinstance(v, int) and not isinstance(v, bool):
        return [v]
    try:
        out = [operator.index(i) for i in v]
    except TypeError:
        raise TypeError(f"fft_{op}(): argument '{name}' must be tuple of ints, not "
                        f"{type(v).__name__}") from None
    return out


def _nd_dims(op, x, s, dim):
    """(sizes, axes) from torch's ``s``/``dim`` rules: ``s`` alone transforms the last
    len(s) dims; neither transforms every dim; -1 in ``s`` keeps that dim's size."""
    s, dim = _as_list(op, "s", s), _as_list(op, "dim", dim)
    if dim is not None:
        axes = [_axis(d, x.ndim) for d in dim]
        if len(set(axes)) != len(axes):
            raise RuntimeError("FFT dims must be unique")
        if s is not None and len(s) != len(axes):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > x.ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{x.ndim} dimensions.")
        axes = list(range(x.ndim - len(s), x.ndim))
    else:
        axes = list(range(x.ndim))
    if s is None:
        s = [-1] * len(axes)
    return s, axes


def _c2c_nd(op, input, s, dim, norm, inverse):
    x = _complex_input(op, input)
    norm = _norm(norm)
    s, axes = _nd_dims(op, x, s, dim)
    for n, a in zip(s, axes):
        x = _resize(x, _points(x.shape[a] if n == -1 else n), a)
    if not axes:
        return x
    return (jnp.fft.ifftn if inverse else jnp.fft.fftn)(x, axes=axes, norm=norm)


def _r2c_nd(op, input, s, dim, norm, inverse, message):
    x = _real_input(op, input, message)
    norm = _norm(norm)
    s, axes = _nd_dims(op, x, s, dim)
    if not axes:
        raise RuntimeError(f"{op} must transform at least one axis")
    for n, a in zip(s, axes):
        x = _resize(x, _points(x.shape[a] if n == -1 else n), a)
    if inverse:
        return jnp.conj(jnp.fft.rfftn(x, axes=axes, norm=_SWAP[norm]))
    return jnp.fft.rfftn(x, axes=axes, norm=norm)


def _c2r_nd(op, input, s, dim, norm, inverse):
    x = _complex_input(op, input)
    norm = _norm(norm)
    s, axes = _nd_dims(op, x, s, dim)
    if not axes:
        raise RuntimeError(f"{op} must transform at least one axis")
    sizes = [x.shape[a] if n == -1 else n for n, a in zip(s[:-1], axes[:-1])]
    last = axes[-1]
    sizes.append(2 * (x.shape[last] - 1) if s[-1] == -1 else s[-1])
    for n, a in zip(sizes, axes):
        x = _resize(x, _points(n) // 2 + 1 if a == last else _points(n), a)
    if not inverse:
        x, norm = jnp.conj(x), _SWAP[norm]
    return jnp.fft.irfftn(x, s=sizes, axes=axes, norm=norm)


_R2C_MSG = "rfftn expects a real-valued input tensor, but got {}"
_IH_MSG = "Only supports floating-point dtypes, but found: {}"


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """torch.fft.fft2: the 2-D discrete Fourier transform (by default of the last 2 dims)."""
    return _c2c_nd("fft2", input, s, dim, norm, False)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """torch.fft.ifft2: the 2-D inverse discrete Fourier transform."""
    return _c2c_nd("ifft2", input, s, dim, norm, True)


def fftn(input, s=None, dim=None, norm=None):
    """torch.fft.fftn: the N-D discrete Fourier transform (by default of every dim)."""
    return _c2c_nd("fftn", input, s, dim, norm, False)


def ifftn(input, s=None, dim=None, norm=None):
    """torch.fft.ifftn: the N-D inverse discrete Fourier transform."""
    return _c2c_nd("ifftn", input, s, dim, norm, True)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """torch.fft.rfft2: the 2-D transform of a real signal, one-sided in the last dim."""
    return _r2c_nd("rfftn", input, s, dim, norm, False, _R2C_MSG)


def rfftn(input, s=None, dim=None, norm=None):
    """torch.fft.rfftn: the N-D transform of a real signal, one-sided in the last dim."""
    return _r2c_nd("rfftn", input, s, dim, norm, False, _R2C_MSG)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """torch.fft.ihfft2: the 2-D inverse of hfft2."""
    return _r2c_nd("ihfftn", input, s, dim, norm, True, _IH_MSG)


def ihfftn(input, s=None, dim=None, norm=None):
    """torch.fft.ihfftn: the N-D inverse of hfftn."""
    return _r2c_nd("ihfftn", input, s, dim, norm, True, _IH_MSG)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """torch.fft.irfft2: the 2-D inverse of rfft2, a real result."""
    return _c2r_nd("irfftn", input, s, dim, norm, True)


def irfftn(input, s=None, dim=None, norm=None):
    """torch.fft.irfftn: the N-D inverse of rfftn, a real result."""
    return _c2r_nd("irfftn", input, s, dim, norm, True)


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """torch.fft.hfft2: the 2-D transform of a Hermitian-symmetric signal, a real result."""
    return _c2r_nd("hfftn", input, s, dim, norm, False)


def hfftn(input, s=None, dim=None, norm=None):
    """torch.fft.hfftn: the N-D transform of a Hermitian-symmetric signal, a real result."""
    return _c2r_nd("hfftn", input, s, dim, norm, False)


# ------------------------------------------------------------------ sample frequencies


def fftfreq(n: int, d: float = 1.0, *, dtype=None):
    """torch.fft.fftfreq's values: ``[0, 1, ..., -(n // 2), ..., -1] / (n * d)``, computed
    in ``dtype`` as PyTorch does (an arange scaled by ``1 / (n * d)``)."""
    steps = jnp.concatenate([jnp.arange((n + 1) // 2), jnp.arange(-(n // 2), 0)])
    return _scaled_steps("fftfreq", steps, n, d, dtype)


def rfftfreq(n: int, d: float = 1.0, *, dtype=None):
    """torch.fft.rfftfreq's values: ``[0, 1, ..., n // 2] / (n * d)``."""
    return _scaled_steps("rfftfreq", jnp.arange(n // 2 + 1), n, d, dtype)


def _scaled_steps(op, steps, n, d, dtype):
    dtype = D.get_default_dtype() if dtype is None else dtype
    if dtype._kind == 3:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{D.legacy_name(dtype)}'")
    if dtype._kind != 2:
        raise RuntimeError(f"{op} requires a floating point or complex dtype")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    scale = 1.0 / (n * d) if n * d else math.inf  # rfftfreq(0) is [nan], as 0 * inf
    return steps.astype(dtype.np) * jnp.asarray(scale, dtype.np)
