"""Index-builder factories and the gradients the op database cannot compare (complex
outputs; vander, whose PyTorch backward fails), against PyTorch or numerically."""

from __future__ import annotations

import pytest
from conftest import check


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("args,kw,raises", [
    ((3, 4), {}, None), ((3, 4, -1), {}, None), ((4, 3, 1), {}, None), ((0, 3), {}, None),
    ((3, 3, 5), {}, None), ((3, 3), {"dtype": "int32"}, None),
    ((3, 3), {"dtype": "float32"}, NotImplementedError), ((-1, 3), {}, RuntimeError),
    ((2, 5, -7), {}, None),
])
def test_tri_indices(name, args, kw, raises):
    e, a = check(lambda t: getattr(t, name)(*args, **{k: getattr(t, v) for k, v in kw.items()}),
                 raises=raises)
    if raises:
        assert str(a) == str(e)


@pytest.mark.parametrize("name", ["complex", "polar"])
def test_complex_from_parts_gradients(name):
    def prog(t):
        a = t.tensor([1.5, 2.0, 0.5], dtype=t.float64, requires_grad=True)
        b = t.tensor([0.3, -1.0, 2.0], dtype=t.float64, requires_grad=True)
        z = getattr(t, name)(a, b)
        w = t.tensor([1 + 2j, -1j, 0.5], dtype=t.complex128)
        t.view_as_real(z * w).sum().backward()
        return z, a.grad, b.grad

    check(prog)


def test_vander_gradient_is_the_derivative():
    """PyTorch's own vander backward fails (opdb/numerics.py), so jtorch's is checked
    numerically."""
    import jtorch

    x = jtorch.tensor([0.5, -1.5, 2.0], dtype=jtorch.float64, requires_grad=True)
    assert jtorch.autograd.gradcheck(lambda v: jtorch.vander(v, 4), (x,))
    assert jtorch.autograd.gradcheck(lambda v: jtorch.vander(v, 3, increasing=True), (x,))


@pytest.mark.parametrize("case", ["stft-no-window", "stft-real-pairs", "istft-no-window"])
def test_spectral_warnings(case):
    def prog(t):
        x = t.arange(16.0)
        match = "stft with return_complex=False" if case == "stft-real-pairs" else "rectangular"
        with pytest.warns(UserWarning, match=match):
            if case == "istft-no-window":
                return t.istft(t.stft(x, 8, window=t.ones(8), return_complex=True), 8)
            window = t.ones(8) if case == "stft-real-pairs" else None
            return t.stft(x, 8, window=window, return_complex=case != "stft-real-pairs")

    check(prog, rtol=1e-5, atol=1e-5)
