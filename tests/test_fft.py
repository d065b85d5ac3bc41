"""torch.fft beyond the op database: gradients of complex inputs, ``out=``, the sample
frequency factories, the shifts, grad_fn names and the default dtype's effect."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check

RNG = np.random.default_rng(7)
Z = RNG.standard_normal((4, 6)) + 1j * RNG.standard_normal((4, 6))
X = RNG.standard_normal((4, 6))
W = RNG.standard_normal((4, 8)) + 1j * RNG.standard_normal((4, 8))  # gradient weights


def test_complex_input_gradients():
    """PyTorch's conventions for complex inputs: c2c, Hermitian c2r (irfft/hfft double the
    non-edge bins) and the n-d forms, through one backward."""
    def prog(t):
        z = t.tensor(Z, requires_grad=True)
        outs = [t.fft.fft(z, norm="ortho"), t.fft.irfft(z, 7), t.fft.hfftn(z, (3, 5))]
        w = [W[: o.shape[0], : o.shape[1]] for o in outs]
        t.autograd.backward(outs, [t.tensor(v if o.is_complex() else v.real, dtype=o.dtype)
                                   for o, v in zip(outs, w)])
        return [o.detach() for o in outs], z.grad

    check(prog, rtol=1e-6)


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "fftn", "hfft2"])
def test_out(name):
    def prog(t):
        x = t.tensor(Z if name in ("irfft", "hfft2") else X)
        y = getattr(t.fft, name)(x)
        o = t.empty(0, dtype=y.dtype)
        r = getattr(t.fft, name)(x, out=o)
        return o, r is o

    check(prog)


def test_out_with_grad_raises():
    check(lambda t: t.fft.fft(t.tensor(X, requires_grad=True), out=t.empty(0, dtype=t.complex128)),
          raises=RuntimeError)


def test_grad_fn_names():
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        z = t.tensor(Z, requires_grad=True)
        ys = [t.fft.fft(x), t.fft.fft(z), t.fft.rfft(x), t.fft.irfft(z), t.fft.ihfft(x),
              t.fft.fft2(z), t.fft.hfftn(z)]
        return [y.grad_fn.name() for y in ys]

    check(prog)


def test_integer_input_uses_default_dtype(tt):
    tt.set_default_dtype(tt.float64)
    assert tt.fft.fft(tt.arange(6)).dtype == tt.complex128


@pytest.mark.parametrize("kw", [{}, {"d": 0.3, "dtype": "float64"}, {"dtype": "float16"},
                                {"requires_grad": True}, {"dtype": "int64"},
                                {"dtype": "complex64"}])
@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_sample_frequencies(name, kw):
    def prog(t):
        k = {**kw, "dtype": getattr(t, kw["dtype"])} if "dtype" in kw else kw
        ys = [getattr(t.fft, name)(n, **k) for n in (1, 5, 8)]
        return ys, ys[0].requires_grad

    # an integer dtype is refused; complex fails in arange
    check(prog, raises={"int64": RuntimeError, "complex64": NotImplementedError}.get(
        kw.get("dtype")))


def test_sample_frequencies_out_and_errors():
    def prog(t):
        o = t.zeros(0, dtype=t.float64)
        r = t.fft.fftfreq(6, 2.0, out=o)
        return o, r is o, t.fft.rfftfreq(0)

    check(prog)
    check(lambda t: t.fft.fftfreq(-1), raises=RuntimeError)
    check(lambda t: t.fft.fftfreq(4.0), raises=TypeError)


@pytest.mark.parametrize("dim", [None, 0, -1, (0, 1)])
def test_shifts(dim):
    def prog(t):
        x = t.arange(35.0).reshape(5, 7).requires_grad_()
        y = t.fft.fftshift(x, dim)
        z = t.fft.ifftshift(y, dim=dim)
        (y * t.arange(35.0).reshape(5, 7)).sum().backward()
        return y, z, x.grad, y.grad_fn.name()

    check(prog)
