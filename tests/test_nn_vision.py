"""Padding, upsampling, shuffle, fold and grid-sampling layers and F functions against
PyTorch (values, gradients, errors, reprs)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import check


def ok(prog, **tol):
    """``check`` for a program that must succeed (not merely fail alike)."""
    check(prog, **tol)


def raises(prog):
    """``check`` for a program that must raise (the same class in both libraries)."""
    check(prog, raises=Exception)

_DATA = np.random.default_rng(0).standard_normal((2, 2, 3, 4))


def _fwd_bwd(build, data=_DATA):
    def prog(t):
        x = t.tensor(data, requires_grad=True)
        y = build(t)(x)
        w = t.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape)))
        (y * w).sum().backward()
        return y, x.grad

    return prog


PADS = [("ZeroPad2d", 1), ("ConstantPad2d", ((1, 0, 2, -1), -1.0)), ("ReflectionPad1d", (2,)),
        ("ReflectionPad2d", ((1, 2, 0, 2),)), ("ReplicationPad1d", ((3, 0),)),
        ("CircularPad2d", ((1, 2, 2, 0),))]


@pytest.mark.parametrize("name,args", PADS, ids=[p[0] for p in PADS])
def test_padding_layer(name, args):
    args = args if isinstance(args, tuple) else (args,)
    data = _DATA[0] if name.endswith("1d") else _DATA
    ok(_fwd_bwd(lambda t: getattr(t.nn, name)(*args), data))
    ok(lambda t: repr(getattr(t.nn, name)(*args)))


def test_padding_3d_layers():
    data = np.random.default_rng(1).standard_normal((1, 2, 2, 3, 2))
    for name in ("ReflectionPad3d", "CircularPad3d"):
        ok(_fwd_bwd(lambda t, n=name: getattr(t.nn, n)(1), data))
    ok(lambda t: [repr(getattr(t.nn, f"{k}Pad{n}d")(1)) for k in ("Zero", "Reflection",
                     "Replication", "Circular") for n in (1, 2, 3)])


@pytest.mark.parametrize("case", ["odd", "reflect_big", "circular_dim", "mode"])
def test_pad_errors(case):
    def prog(t):
        x = t.ones(2, 3)
        if case == "odd":
            return t.nn.functional.pad(x, (1, 2, 3))
        if case == "reflect_big":
            return t.nn.functional.pad(x, (3, 0), mode="reflect")
        if case == "circular_dim":
            return t.nn.CircularPad2d(1)(x)
        return t.nn.functional.pad(x, (1, 1), mode="wrap")

    raises(prog)


def test_constant_pad_of_data_needing_no_gradient():
    """Constant padding of data that needs no gradient (built on the host on the CPU
    backend): values, dtypes, strides and the value's cast as PyTorch's, for every kind of
    argument the host path takes or leaves to the op (negative pads, casts it does not
    make, non-contiguous inputs, tensors needing a gradient under no_grad)."""
    def prog(t):
        F = t.nn.functional
        ints, floats = t.arange(24).reshape(2, 3, 4), t.arange(24.0).reshape(2, 3, 4)
        out = [F.pad(ints, (1, 2)), F.pad(ints, (0, 1, 2, 0), value=-1),
               F.pad(ints, (1, 1, 0, 0, 2, 1), value=3.0), F.pad(ints, (1, 1), value=2.7),
               F.pad(floats, (2, 0, 1, 1), value=-0.5), F.pad(floats, (1, -1), value=7.0),
               F.pad(floats.to(t.float16), (1, 1), value=1 / 3),
               F.pad(ints.to(t.bool), (1, 0), value=1), F.pad(ints.to(t.int8), (0, 2), value=5),
               F.pad(t.zeros(0, 3), (1, 1), value=4.0), F.pad(floats.transpose(1, 2), (1, 1)),
               F.pad(floats, (0, 0, 0, 0, 0, 0))]
        with t.no_grad():
            out.append(F.pad(floats.clone().requires_grad_(), (1, 1), value=2.0))
        return out + [o.stride() for o in out]

    ok(prog)


def test_constant_pad_of_new_shapes_compiles_nothing():
    """A collate function padding batches to ever new lengths compiles no program."""
    from conftest import counting_compiles

    import jtorch

    jtorch.nn.functional.pad(jtorch.tensor([1, 2]), (0, 1), value=0)
    with counting_compiles() as compiles:
        for n in range(9, 14):
            batch = jtorch.tensor([list(range(n)), list(range(n, 2 * n))])
            out = jtorch.nn.functional.pad(batch, (0, 20 - n), value=-1).numpy()
            assert out.shape == (2, 20) and out[1, n - 1] == 2 * n - 1 and out[1, n] == -1
    assert compiles == []


UPSAMPLES = [
    ("Upsample", dict(scale_factor=2)),
    ("Upsample", dict(scale_factor=(1.5, 0.5), mode="bilinear", align_corners=True)),
    ("Upsample", dict(scale_factor=1.3, mode="bicubic")),
    ("Upsample", dict(scale_factor=2.5, mode="bilinear", recompute_scale_factor=True)),
    ("UpsamplingNearest2d", dict(scale_factor=3)),
    ("UpsamplingBilinear2d", dict(size=(4, 6))),
]


@pytest.mark.parametrize("name,kwargs", UPSAMPLES, ids=[f"{u[0]}-{i}" for i, u in
                                                       enumerate(UPSAMPLES)])
def test_upsample_layer(name, kwargs):
    ok(_fwd_bwd(lambda t: getattr(t.nn, name)(**kwargs)))
    ok(lambda t: repr(getattr(t.nn, name)(**kwargs)))


def test_interpolate_index_math():
    """Nearest uses floor(dst * in/out), or 1/scale_factor when one is given."""
    x = np.arange(10, dtype=np.float32).reshape(1, 1, 10)

    def prog(t):
        F = t.nn.functional
        v = t.tensor(x)
        return [F.interpolate(v, size=7), F.interpolate(v, scale_factor=0.7),
                F.interpolate(v, scale_factor=1.1), F.interpolate(v, size=13),
                F.interpolate(v, scale_factor=0.35, mode="nearest-exact"),
                F.interpolate(v, scale_factor=1.6, mode="linear"),
                F.interpolate(v, size=4, mode="area"),
                F.interpolate(t.tensor(x).reshape(1, 1, 1, 1, 10), scale_factor=(1, 2, 0.4),
                              mode="trilinear", align_corners=True)]

    ok(prog)


@pytest.mark.parametrize("kwargs", [dict(size=3, scale_factor=2), dict(),
                                    dict(size=3, align_corners=True),
                                    dict(size=(3, 3)), dict(size=3, mode="bilinear"),
                                    dict(size=3, recompute_scale_factor=True),
                                    dict(scale_factor=2, mode="bicubic", antialias=True)])
def test_interpolate_errors(kwargs):
    raises(lambda t: t.nn.functional.interpolate(t.ones(1, 2, 4), **kwargs))


def test_shuffles_and_fold_layers():
    data = np.random.default_rng(2).standard_normal((2, 8, 2, 3))
    ok(_fwd_bwd(lambda t: t.nn.PixelShuffle(2), data))
    ok(_fwd_bwd(lambda t: t.nn.ChannelShuffle(4), data))
    ok(_fwd_bwd(lambda t: t.nn.PixelUnshuffle(2), data[:, :, :2, :2]))
    ok(_fwd_bwd(lambda t: t.nn.Unfold((2, 2), padding=1, stride=2), data))
    cols = np.random.default_rng(3).standard_normal((2, 12, 4))
    ok(_fwd_bwd(lambda t: t.nn.Fold((3, 4), (2, 3), padding=(1, 0), stride=(1, 2)), cols))
    ok(lambda t: [repr(t.nn.Fold(3, 2)), repr(t.nn.Unfold(2, stride=2)),
                     repr(t.nn.PixelShuffle(3)), repr(t.nn.ChannelShuffle(2))])


def test_fold_unfold_roundtrip_counts_overlaps():
    def prog(t):
        x = t.ones(1, 2, 4, 4)
        F = t.nn.functional
        return F.fold(F.unfold(x, 3, padding=1), (4, 4), 3, padding=1)

    ok(prog)


def test_affine_grid_then_grid_sample():
    theta = np.array([[[0.8, -0.3, 0.1], [0.2, 1.1, -0.2]], [[1.2, 0.0, 0.3], [0.1, 0.9, 0.0]]])

    def prog(t):
        F = t.nn.functional
        x = t.tensor(_DATA, requires_grad=True)
        th = t.tensor(theta, requires_grad=True)
        outs = []
        for mode, pad, ac in (("bilinear", "zeros", False), ("bicubic", "border", True)):
            g = F.affine_grid(th, (2, 2, 3, 5), align_corners=ac)
            y = F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=ac)
            outs.append(y)
        sum(o.sum() for o in outs).backward()
        return outs, x.grad, th.grad

    ok(prog, rtol=1e-6, atol=1e-8)


def test_grid_sample_warns_without_align_corners(tt):
    x, g = tt.ones(1, 1, 2, 2), tt.zeros(1, 1, 1, 2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tt.nn.functional.grid_sample(x, g)
    assert any("align_corners" in str(i.message) for i in w)


@pytest.mark.parametrize("case", ["mode", "padding", "theta"])
def test_grid_errors(case):
    def prog(t):
        F = t.nn.functional
        if case == "theta":
            return F.affine_grid(t.ones(1, 3, 3), (1, 1, 2, 2), align_corners=False)
        g = t.zeros(1, 1, 1, 2)
        if case == "mode":
            return F.grid_sample(t.ones(1, 1, 2, 2), g, mode="area", align_corners=False)
        return F.grid_sample(t.ones(1, 1, 2, 2), g, padding_mode="wrap", align_corners=False)

    raises(prog)


def test_channels_last_input_values():
    """Convolution and pooling of a channels_last input give torch's values.

    jtorch has no memory-format machinery yet, so only values are compared here."""
    data = np.random.default_rng(4).standard_normal((1, 2, 3, 3)).astype(np.float32)

    def prog(t):
        x = t.tensor(data).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
        w = t.ones(2, 2, 2, 2)
        return t.conv2d(x, w), t.nn.functional.max_pool2d(x, 2, 1)

    ok(prog)
