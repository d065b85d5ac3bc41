"""Memory formats and layouts: the strides PyTorch reports, differential against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check

A = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5) / 10


def x4(torch):
    return torch.tensor(A)


def cl(torch):
    return torch.tensor(A).contiguous(memory_format=torch.channels_last)


def meta(t, torch):
    return (t.stride(), t.is_contiguous(), t.is_contiguous(memory_format=torch.channels_last),
            t.is_contiguous(memory_format=torch.channels_last_3d), t.shape, t.dtype)


def test_format_and_layout_objects(tt):
    names = ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format")
    for name in names:
        fmt = getattr(tt, name)
        assert repr(fmt) == str(fmt) == f"torch.{name}"
        assert type(fmt).__name__ == "memory_format" and isinstance(fmt, tt.memory_format)
    for name in ("strided", "sparse_coo"):
        assert repr(getattr(tt, name)) == f"torch.{name}"
        assert isinstance(getattr(tt, name), tt.layout)
    assert tt.ones(2).layout is tt.strided
    assert tt.channels_last is not tt.contiguous_format


CASES = {
    "empty_cl": lambda torch: torch.empty(2, 3, 4, 5, memory_format=torch.channels_last),
    "empty_cl_size1": lambda torch: torch.empty(2, 3, 1, 1, memory_format=torch.channels_last),
    "empty_cl_c1": lambda torch: torch.empty((2, 1, 4, 5), memory_format=torch.channels_last),
    "empty_cl_empty": lambda torch: torch.empty(0, 3, 4, 5, memory_format=torch.channels_last),
    "empty_cl3d": lambda torch: torch.empty(2, 3, 2, 2, 3, memory_format=torch.channels_last_3d),
    "empty_contiguous": lambda torch: torch.empty(2, 3, 4, 5,
                                                  memory_format=torch.contiguous_format),
    "contiguous_cl": cl,
    "cl_to_contiguous": lambda torch: cl(torch).contiguous(),
    "cl_contiguous_fmt": lambda torch: cl(torch).contiguous(memory_format=torch.contiguous_format),
    "cl3d": lambda torch: torch.arange(72.0).reshape(2, 3, 2, 2, 3).contiguous(
        memory_format=torch.channels_last_3d),
    "to_cl": lambda torch: x4(torch).to(memory_format=torch.channels_last),
    "to_dtype_keeps_cl": lambda torch: cl(torch).to(torch.float64),
    "to_dtype_and_format": lambda torch: cl(torch).to(torch.float64,
                                                       memory_format=torch.contiguous_format),
    "to_contiguous": lambda torch: cl(torch).to(memory_format=torch.contiguous_format),
    "clone_cl": lambda torch: x4(torch).clone(memory_format=torch.channels_last),
    "clone_preserves": lambda torch: cl(torch).clone(),
    "torch_clone_cl": lambda torch: torch.clone(x4(torch), memory_format=torch.channels_last),
    "clone_contiguous": lambda torch: cl(torch).clone(memory_format=torch.contiguous_format),
    "clone_strided_slice": lambda torch: cl(torch)[:, :, ::2].clone(),
    "zeros_like": lambda torch: torch.zeros_like(cl(torch)),
    "ones_like_contig": lambda torch: torch.ones_like(cl(torch),
                                                      memory_format=torch.contiguous_format),
    "empty_like_cl": lambda torch: torch.empty_like(x4(torch), memory_format=torch.channels_last),
    "full_like": lambda torch: torch.full_like(cl(torch), 2.0),
    "pointwise_keeps_cl": lambda torch: cl(torch) * 2 + 1,
    "permuted_is_cl": lambda torch: x4(torch).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),
    "n111": lambda torch: torch.ones(2, 1, 1, 1).contiguous(memory_format=torch.channels_last),
    "cl_size1_channels": lambda torch: torch.ones(2, 3, 1, 1).contiguous(
        memory_format=torch.channels_last),
}


@pytest.mark.parametrize("case", CASES)
def test_strides(case):
    check(lambda torch: (lambda t: (meta(t, torch), t if t.numel() and case.find("empty") < 0
                                    else None))(CASES[case](torch)), strides=True)


def test_like_strides_of_random_draws():
    def prog(torch):
        return torch.rand_like(cl(torch)).stride()

    check(prog)


def test_contiguous_returns_self_when_already_in_format():
    def prog(torch):
        x = cl(torch)
        return (x.contiguous(memory_format=torch.channels_last) is x, x.contiguous() is x,
                x.clone(memory_format=torch.channels_last) is x,
                x.to(memory_format=torch.channels_last) is x)

    check(prog)


ERRORS = {
    "empty_rank3": lambda torch: torch.empty(2, 3, 4, memory_format=torch.channels_last),
    "contiguous_rank3": lambda torch: torch.ones(2, 3, 4).contiguous(
        memory_format=torch.channels_last),
    "cl3d_rank4": lambda torch: x4(torch).contiguous(memory_format=torch.channels_last_3d),
    "contiguous_preserve": lambda torch: x4(torch).contiguous(memory_format=torch.preserve_format),
    "empty_preserve": lambda torch: torch.empty(2, 3, memory_format=torch.preserve_format),
    "zeros_memory_format": lambda torch: torch.zeros(2, 3, memory_format=torch.channels_last),
}


# The samples both libraries reject, by test id, and the exception class.
_FORMAT_ERRORS = {
    'cl3d_rank4': RuntimeError, 'contiguous_rank3': RuntimeError, 'empty_preserve': RuntimeError,
    'empty_rank3': RuntimeError, 'zeros_memory_format': TypeError,
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors(case, request):
    check(ERRORS[case], raises=_FORMAT_ERRORS.get(request.node.callspec.id))


def test_is_contiguous_rank_mismatch(tt):
    assert not tt.ones(2, 3, 4).is_contiguous(memory_format=tt.channels_last)
    assert tt.ones(2, 3, 4).is_contiguous(memory_format=tt.contiguous_format)


W = np.cos(np.arange(54, dtype=np.float32)).reshape(6, 3, 3, 1) * np.ones(3, np.float32)

LAYERS = {
    "conv_cl_input": lambda torch, F, x: F.conv2d(x, torch.tensor(W), padding=1),
    "conv_cl_weight": lambda torch, F, x: F.conv2d(
        x.contiguous(), torch.tensor(W).contiguous(memory_format=torch.channels_last)),
    "conv_transpose": lambda torch, F, x: F.conv_transpose2d(x, torch.tensor(W[:3])),
    "max_pool": lambda torch, F, x: F.max_pool2d(x, 2),
    "max_pool_indices": lambda torch, F, x: F.max_pool2d(x, 2, return_indices=True),
    "avg_pool": lambda torch, F, x: F.avg_pool2d(x, 2),
    "adaptive_avg": lambda torch, F, x: F.adaptive_avg_pool2d(x, (2, 2)),
    "adaptive_max": lambda torch, F, x: F.adaptive_max_pool2d(x, (2, 2)),
    "batch_norm": lambda torch, F, x: F.batch_norm(x, torch.zeros(3), torch.ones(3)),
    "group_norm": lambda torch, F, x: F.group_norm(x, 3),
    "relu": lambda torch, F, x: F.relu(x),
    "contiguous_input_stays": lambda torch, F, x: F.conv2d(x.contiguous(), torch.tensor(W)),
}


@pytest.mark.parametrize("layer", LAYERS)
def test_layers_keep_channels_last(layer):
    def prog(torch):
        import importlib

        F = importlib.import_module(f"{torch.__name__}.nn.functional")
        out = LAYERS[layer](torch, F, cl(torch))
        outs = out if isinstance(out, tuple) else (out,)
        return [(o, o.stride()) for o in outs]

    check(prog, strides=True, rtol=1e-5, atol=1e-4)


def test_conv3d_channels_last_3d_and_grads():
    def prog(torch):
        x = torch.arange(48.0).reshape(1, 3, 2, 2, 4).div(10).contiguous(
            memory_format=torch.channels_last_3d).requires_grad_()
        w = torch.ones(2, 3, 1, 1, 2, requires_grad=True)
        out = torch.nn.functional.conv3d(x, w)
        out.sum().backward()
        return out, out.stride(), x.grad, x.grad.stride(), w.grad.stride()

    check(prog, strides=True)


def test_module_to_channels_last():
    def prog(torch):
        conv = torch.nn.Conv2d(3, 4, 3).to(memory_format=torch.channels_last)
        return conv.weight.stride(), conv.bias.stride()

    check(prog)
