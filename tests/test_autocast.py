"""torch.autocast against PyTorch: each op's cast policy on CPU (lower precision, float32,
promote, untouched), nesting and disabled regions, the weight cast cache, in-place and
``out=`` calls, custom_fwd/custom_bwd; CUDA's lists on emulated CUDA devices."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from conftest import check

import jtorch

_X = np.linspace(-1.0, 1.0, 24).reshape(2, 3, 4)


def _lower(t, low):
    """Ops PyTorch's CPU autocast runs in the lower precision (composites included)."""
    F = t.nn.functional
    x = t.tensor(_X, dtype=t.float32)
    w = t.tensor(_X[0], dtype=t.float32)
    mha = t.nn.MultiheadAttention(4, 2)
    with t.no_grad():
        for p in mha.parameters():
            p.copy_(t.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
    return [x @ w.T, t.mm(x[0], w.T), t.bmm(x, x.transpose(1, 2)), F.linear(x, w),
            t.einsum("bij,kj->bik", x, w), t.tensordot(x, w, ([2], [1])),
            F.conv1d(x, x[:, :, :2]), mha(x, x, x)[0], t.addmm(w[:, :3], w, w.T)]


def _fp32(t, low):
    """Ops it runs in float32 when given lower-precision inputs."""
    F = t.nn.functional
    h = t.tensor(_X[0], dtype=low)
    target = t.tensor([0, 2, 1])
    return [F.cross_entropy(h, target), F.nll_loss(h, target), F.mse_loss(h, h * 2),
            F.binary_cross_entropy_with_logits(h, h.sigmoid()), h.prod(), t.cdist(h, h),
            F.pad(h[None], (1, 1), mode="reflect")]


def _promote_and_untouched(t, low):
    """cat/stack/index_copy promote; softmax, layer_norm, sum, exp keep their inputs'."""
    F = t.nn.functional
    h = t.tensor(_X[0], dtype=low)
    f = t.tensor(_X[0], dtype=t.float32)
    return [t.cat([h, f]), t.stack([h, f]), h.index_copy(0, t.tensor([1]), f[:1]),
            t.softmax(h, 0), F.layer_norm(h, (4,)), h.sum(), h.exp(), h + f, h.mv(h[0, :4]),
            t.ones(2, 2, dtype=t.float64) @ t.ones(2, 2, dtype=t.float64)]


@pytest.mark.parametrize("group", [_lower, _fp32, _promote_and_untouched])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_cpu_policies(group, dtype):
    def prog(t):
        low = getattr(t, dtype)
        with t.autocast("cpu", dtype=low):
            return [y.detach() for y in group(t, low)]

    check(prog, rtol=2e-2, atol=2e-2)


def test_gradients_flow_back_in_the_inputs_dtype():
    def prog(t):
        x = t.tensor(_X[0], dtype=t.float32, requires_grad=True)
        lin = t.nn.Linear(4, 2)
        with t.no_grad():
            lin.weight.copy_(t.tensor(_X[0, :2]))
            lin.bias.fill_(0.5)
        with t.autocast("cpu"):
            y = lin(x)
            loss = t.nn.functional.cross_entropy(y, t.tensor([0, 1, 1]))
        loss.backward()
        return y.dtype, loss.dtype, loss.detach(), x.grad, lin.weight.grad

    check(prog, rtol=2e-2, atol=2e-2)


def test_nesting_disabled_regions_and_decorator():
    def prog(t):
        a = t.ones(2, 2)
        seen = []

        @t.autocast("cpu", dtype=t.float16)
        def half():
            return (a @ a).dtype, t.get_autocast_dtype("cpu")

        with t.autocast("cpu"):
            seen.append(((a @ a).dtype, t.is_autocast_enabled("cpu")))
            with t.autocast("cpu", enabled=False):
                seen.append(((a @ a).dtype, t.is_autocast_enabled("cpu")))
                seen.append(half())
            seen.append(((a @ a).dtype, t.get_autocast_dtype("cpu")))
        seen.append(((a @ a).dtype, t.is_autocast_enabled("cpu"), t.get_autocast_dtype("cpu")))
        return seen

    check(prog)


def test_inplace_and_out_are_not_autocast():
    def prog(t):
        a = t.ones(2, 2)
        with t.autocast("cpu"):
            b = a.clone().addmm_(a, a)
            c = t.mm(a, a, out=t.empty(2, 2))
            d = a.clone()
            d @= a
        return b, c, d

    check(prog)


def test_weight_cache_reuses_the_cast_until_the_region_exits():
    """PyTorch caches the cast of a float32 leaf requiring grad: an in-place change inside
    the region is not seen by later casts, unless cache_enabled=False."""

    def prog(t, cache):
        x, w = t.ones(2, 3), t.ones(4, 3, requires_grad=True)
        with t.autocast("cpu", cache_enabled=cache):
            y1 = t.nn.functional.linear(x, w)
            with t.no_grad():
                w.mul_(2)
            y2 = t.nn.functional.linear(x, w)
            inner = t.is_autocast_cache_enabled()
        (y1.sum() + y2.sum()).backward()
        return y2, inner, w.grad, t.is_autocast_cache_enabled()

    check(lambda t: (prog(t, True), prog(t, False)))


def test_custom_fwd_and_bwd():
    def prog(t):
        seen = []

        class Square(t.autograd.Function):
            @staticmethod
            @t.amp.custom_fwd(device_type="cpu", cast_inputs=t.float32)
            def forward(ctx, x, w):
                seen.append((x.dtype, w.dtype, t.is_autocast_enabled("cpu"), (x @ w).dtype))
                ctx.save_for_backward(x, w)
                return x @ w

            @staticmethod
            @t.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                x, w = ctx.saved_tensors
                seen.append((g.dtype, t.is_autocast_enabled("cpu")))
                return g @ w.T, x.T @ g

        class Plain(t.autograd.Function):
            @staticmethod
            @t.amp.custom_fwd(device_type="cpu")
            def forward(ctx, x):
                seen.append(((x @ x).dtype, t.is_autocast_enabled("cpu")))
                return x @ x

            @staticmethod
            @t.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                seen.append(t.is_autocast_enabled("cpu"))
                return g

        x = t.ones(2, 2, dtype=t.bfloat16, requires_grad=True)
        w = t.ones(2, 2, requires_grad=True)
        with t.autocast("cpu"):
            y = Square.apply(x, w)
            z = Plain.apply(t.ones(2, 2, requires_grad=True))
        y.sum().backward()
        z.sum().backward()
        outside = Square.apply(x.float(), w)
        return seen, y.dtype, x.grad, w.grad, outside.dtype

    check(prog)


def test_deprecated_cuda_amp_spellings_warn():
    def prog(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fwd = t.cuda.amp.custom_fwd(lambda ctx, x: x, cast_inputs=t.float32)
            t.cuda.amp.custom_bwd(lambda ctx, g: g)
        return [(w.category.__name__, str(w.message)) for w in caught], callable(fwd)

    check(prog)


def test_autocast_off_costs_nothing():
    """Leaving the last region routes every op back to the plain binding."""
    from jtorch.eager import bind

    with jtorch.autocast("cpu"):
        assert bind.bound("mm").__globals__["_call"] is not bind.call
    assert all(g["_call"] is bind.call for gs in bind._ROUTES.values() for g in gs)


_CUDA = textwrap.dedent("""
    import jtorch as torch
    F = torch.nn.functional
    x = torch.ones(2, 3, device="cuda")
    w = torch.ones(4, 3, device="cuda", requires_grad=True)
    h = torch.ones(2, 3, device="cuda", dtype=torch.float16)
    with torch.autocast("cuda"):
        got = {
            "linear": F.linear(x, w), "mm": x @ w.T, "softmax": torch.softmax(h, 0),
            "sum": h.sum(), "sum_dtype": h.sum(dtype=torch.float16), "exp": h.exp(),
            "ce": F.cross_entropy(h, torch.tensor([0, 1], device="cuda")),
            "cat": torch.cat([h, x]), "addcmul": torch.addcmul(h, x, h),
            "layer_norm": F.layer_norm(h, (3,)), "rpow": 2 ** h,
            "cpu_mm": torch.ones(2, 2) @ torch.ones(2, 2),
            "int_sum": torch.ones(2, dtype=torch.int64, device="cuda").sum(),
        }
        try:
            F.binary_cross_entropy(torch.full((2,), 0.5, device="cuda"), x[0, :2])
        except RuntimeError as e:
            got["bce"] = str(e).split(chr(10))[0]
    with torch.autocast("cpu"):
        got["cuda_under_cpu"] = x @ w.T
    print({k: str(getattr(v, "dtype", v)) for k, v in got.items()})
""")


def test_cuda_lists_on_emulated_devices():
    """PyTorch's CUDA lists (its CPU build cannot run them): fp16 products, float32
    softmax/sum/exp/losses/layer_norm/pow, promoted cat/addcmul, banned BCE."""
    env = dict(os.environ, JTORCH_EMULATE_CUDA="1",
               XLA_FLAGS="--xla_force_host_platform_device_count=2")
    out = subprocess.run([sys.executable, "-c", _CUDA], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    f16, f32 = "torch.float16", "torch.float32"
    assert eval(out.stdout) == {  # noqa: S307 - our own subprocess's dict
        "linear": f16, "mm": f16, "softmax": f32, "sum": f32, "sum_dtype": f16, "exp": f32,
        "ce": f32, "cat": f32, "addcmul": f32, "layer_norm": f32, "rpow": f32, "cpu_mm": f32,
        "int_sum": "torch.int64", "cuda_under_cpu": f32,
        "bce": "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to "
               "autocast."}
