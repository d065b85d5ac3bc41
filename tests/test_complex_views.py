"""conj, real, imag, view_as_real/complex, adjoint/mH/H and view(dtype) as true views:
values, strides, writes reaching the base, gradients and errors against PyTorch."""

from __future__ import annotations

import pytest
from conftest import check, error_of, raising


def _z(t, dtype="complex64"):
    return t.tensor([[1 + 2j, -3 - 1j, 0.5j], [2.0, -1 + 1j, 4 - 4j]], dtype=getattr(t, dtype))


def _meta(x):
    """PyTorch's numpy() refuses conjugated views: compare their resolved values."""
    return [x.resolve_conj(), x.stride(), x.storage_offset(), x._is_view(), x.is_conj()]


VIEWS = {
    "real": lambda t, z: z.real, "imag": lambda t, z: z.imag,
    "t.real": lambda t, z: t.real(z), "t.imag": lambda t, z: t.imag(z),
    "conj": lambda t, z: z.conj(), "t.conj": lambda t, z: t.conj(z),
    "view_as_real": lambda t, z: t.view_as_real(z), "mH": lambda t, z: z.mH,
    "H": lambda t, z: z.H, "adjoint": lambda t, z: z.adjoint(),
    "t.adjoint": lambda t, z: t.adjoint(z), "imag-of-slice": lambda t, z: z[1:, ::2].imag,
    "real-of-t": lambda t, z: z.t().real, "conj-of-conj": lambda t, z: z.conj().conj(),
    "view_as_complex": lambda t, z: t.view_as_complex(t.view_as_real(z)),
}


@pytest.mark.parametrize("name", VIEWS)
def test_views_share_memory(name):
    """The view's values and strides, and a write through it reaching the base."""

    def prog(t):
        z = _z(t)
        v = VIEWS[name](t, z)
        meta = _meta(v)
        v.mul_(2)
        v.add_(1)
        return meta, z, z._version

    check(prog, strides=True)


@pytest.mark.parametrize("name", VIEWS)
def test_views_see_later_writes(name):
    def prog(t):
        z = _z(t)
        v = VIEWS[name](t, z)
        z.mul_(1j)
        return v.resolve_conj()

    check(prog)


@pytest.mark.parametrize("name", VIEWS)
def test_view_gradients(name):
    def prog(t):
        a = _z(t, "complex128").requires_grad_()
        v = VIEWS[name](t, a * 1)
        w = t.arange(1.0, v.numel() + 1, dtype=t.float64).reshape(v.shape)
        (v * w).abs().sum().backward()
        return v.grad_fn.name(), a.grad

    check(prog)


def test_conj_of_real_tensor_and_resolve_conj():
    def prog(t):
        x = t.tensor([1.0, -2.0])
        z = _z(t)
        c = z.conj()
        r = c.resolve_conj()
        return [t.conj(x) is x, x.conj() is x, x.is_conj(), t.is_conj(c), r.is_conj(),
                r._is_view(), r, c.clone().is_conj(), (c + 1).is_conj(), c[0].is_conj(),
                z.resolve_conj() is z, x.real is x, t.real(x) is x]

    check(prog)


def test_numpy_of_a_conjugated_view():
    e, a = check(lambda t: _z(t).conj().numpy(), raises=RuntimeError)
    assert str(a) == str(e)
    check(lambda t: t.tensor(_z(t).conj().numpy(force=True)))


def test_setting_real_and_imag():
    def prog(t):
        z = _z(t)
        z.real = t.ones(2, 3)
        z.imag = t.tensor([5.0, 6.0, 7.0])
        return z

    check(prog)


@pytest.mark.parametrize("prog", [
    lambda t: t.zeros(3).imag, lambda t: t.imag(t.zeros(3, dtype=t.int64)),
    lambda t: t.zeros(3).mH, lambda t: t.zeros(3).H, lambda t: t.zeros(2, 2, 2).H,
    lambda t: t.zeros(3).adjoint(), lambda t: t.view_as_real(t.zeros(2)),
    lambda t: t.view_as_complex(t.zeros(())), lambda t: t.view_as_complex(t.zeros(2, 3).t()),
    lambda t: t.view_as_complex(t.zeros(3, 2, 2)[:, :, :1].expand(3, 2, 2)),
    lambda t: t.view_as_complex(t.zeros(7)[1:].view(3, 2)),
    lambda t: t.view_as_complex(t.zeros(3, 2, dtype=t.int64)),
    raising(TypeError, lambda t: t.conj(3)),
], ids=["imag-real", "imag-int", "mH-1d", "H-1d", "H-3d", "adjoint-1d", "view_as_real-real",
        "view_as_complex-0d", "view_as_complex-stride", "view_as_complex-stride2",
        "view_as_complex-offset", "view_as_complex-int", "conj-int"])
def test_errors(prog):
    e, a = check(prog, raises=error_of(prog) or RuntimeError)
    assert str(a) == str(e)


@pytest.mark.parametrize("attr", ["H", "mH", "adjoint"])
def test_zero_dim_conjugate_transposes_warn(attr):
    def prog(t):
        z = t.tensor(1 + 2j)
        with pytest.warns(UserWarning, match="deprecated on 0-D tensors"):
            v = z.adjoint() if attr == "adjoint" else getattr(z, attr)
        return v.resolve_conj(), v.is_conj()

    check(prog)


def test_real_matrix_conjugate_transposes_are_transposes():
    check(lambda t: [_meta(getattr(t.arange(6.0).view(2, 3), a)) for a in ("mH", "H", "mT")]
          + [_meta(t.arange(6.0).view(2, 3).adjoint())], strides=True)


# ------------------------------------------------------------------ view(dtype)


@pytest.mark.parametrize("src,dst", [
    ("float32", "int32"), ("float32", "float16"), ("float32", "int8"), ("float32", "float64"),
    ("float32", "complex64"), ("int64", "float64"), ("uint8", "bool"), ("bool", "uint8"),
    ("float64", "bfloat16"), ("int16", "int64"), ("float32", "float32"),
])
def test_view_dtype(src, dst):
    def prog(t):
        base = t.arange(-8, 8).to(getattr(t, src)).reshape(2, 8)
        v = base.view(getattr(t, dst))
        meta = [v, v.stride(), v.storage_offset(), v._is_view(), v.data_ptr() == base.data_ptr()]
        if src == "bool":
            base.logical_not_()  # the view sees the new bits
        else:
            base.add_(1)
        after = v.clone()
        return meta, after

    check(prog, strides=True)


def test_view_dtype_writes_reach_the_base_and_carry_no_history():
    def prog(t):
        x = t.tensor([1.0, -2.0, 0.5, 8.0], requires_grad=True)
        y = x * 1
        v = y.view(t.int32)
        meta = [v.requires_grad, v.grad_fn, v._is_view()]
        with t.no_grad():
            v.add_(1 << 23)  # +1 on each exponent: doubles every value
        return meta, y, y._version

    check(prog)


@pytest.mark.parametrize("prog", [
    raising(RuntimeError, lambda t: t.zeros(2, 4).t().view(t.float64)),
    raising(RuntimeError, lambda t: t.zeros(2, 3).view(t.float64)),
    raising(RuntimeError, lambda t: t.zeros(()).view(t.int8)),
    raising(RuntimeError, lambda t: t.zeros(9)[1:].view(t.float64)),
    raising(RuntimeError, lambda t: t.zeros(9)[2:].view(t.float64)),
    lambda t: t.zeros(3, 4)[:, :2].view(t.float64).stride(),
    lambda t: t.zeros(3, 6)[:, :2].view(t.float64).stride(),
], ids=["stride", "size", "0d", "offset", "size-after-offset", "row-stride", "ok-row-stride"])
def test_view_dtype_size_rules(prog):
    e, a = check(prog)
    if isinstance(e, Exception):
        assert str(a) == str(e)


def test_as_strided_of_a_reinterpreting_view_is_refused():
    """jtorch limitation: as_strided addresses the storage, which such a view reads
    through a conversion; the error names the way out."""
    import jtorch

    z = jtorch.zeros(2, 3, dtype=jtorch.complex64)
    for v in (z.real, z.conj(), jtorch.zeros(4).view(jtorch.int32)):
        with pytest.raises(RuntimeError, match="does not support as_strided"):
            v.as_strided((2,), (1,))
    assert v.clone().as_strided((2,), (1,)).tolist() == [0, 0]
