"""torch.cuda, torch.accelerator and torch.amp on a machine without a GPU: the same answers
and the same exception classes as PyTorch's CPU build. (The CUDA code paths themselves
run in tests/test_device.py::test_emulated_cuda, on emulated devices.)"""

from __future__ import annotations

import warnings

import pytest
from conftest import check, raising

import jtorch

pytestmark = pytest.mark.skipif(jtorch.cuda.is_available(), reason="CPU-build behaviour")


# The samples both libraries reject, by test id, and the exception class.
_QUERY_ERRORS = {
    'current_device': AssertionError, 'current_stream': AssertionError,
    'default_stream': AssertionError, 'get_device_capability': AssertionError,
    'get_device_name': AssertionError, 'get_device_properties': AssertionError,
    'get_rng_state': AssertionError, 'init': AssertionError, 'mem_get_info': AssertionError,
    'synchronize': AssertionError,
}


@pytest.mark.parametrize("name", [
    "is_available", "device_count", "is_initialized", "memory_allocated",
    "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
    "empty_cache", "is_bf16_supported", "get_arch_list",
    "current_device", "synchronize", "get_device_name", "get_device_properties",
    "get_device_capability", "current_stream", "default_stream", "init", "mem_get_info",
    "get_rng_state",
])
def test_cuda_query_without_gpu(name, request):
    check(lambda t: getattr(t.cuda, name)(), raises=_QUERY_ERRORS.get(request.node.callspec.id))


@pytest.mark.parametrize("program", [
    lambda t: t.cuda.manual_seed(0),
    lambda t: t.cuda.manual_seed_all(0),
    lambda t: t.cuda.seed(),
    raising(RuntimeError, lambda t: t.cuda.Stream()),
    raising(RuntimeError, lambda t: t.cuda.Event(enable_timing=True)),
    raising(RuntimeError, lambda t: t.cuda.device(0).__enter__()),
    lambda t: t.cuda.device(-1).__enter__() and None,
    lambda t: t.cuda.stream(None).__enter__() and None,
    lambda t: t.ones(2).is_pinned(),
    raising(RuntimeError, lambda t: t.ones(2).pin_memory()),
    lambda t: t.ones(2).is_cuda,
])
def test_cuda_calls_without_gpu(program):
    check(program)


# The samples both libraries reject, by test id, and the exception class.
_ACCEL_ERRORS = {
    'current_device_index': RuntimeError, 'current_stream': RuntimeError,
    'empty_cache': RuntimeError, 'memory_allocated': RuntimeError, 'synchronize': RuntimeError,
}


@pytest.mark.parametrize("name", ["is_available", "current_accelerator", "device_count",
                                  "current_device_index", "synchronize", "current_stream",
                                  "memory_allocated", "empty_cache"])
def test_accelerator_without_gpu(name, request):
    check(lambda t: getattr(t.accelerator, name)(),
          raises=_ACCEL_ERRORS.get(request.node.callspec.id))


def test_accelerator_device_index_none():
    def program(t):
        with t.accelerator.device_index(None):
            return t.accelerator.is_available()

    check(program)


def test_autocast_state():
    def program(t):
        with t.autocast("cpu"):
            inner = (t.is_autocast_enabled("cpu"), t.get_autocast_dtype("cpu"),
                     t.is_autocast_enabled())
            with t.autocast("cpu", enabled=False):
                off = t.is_autocast_enabled("cpu")
        return inner, off, t.is_autocast_enabled("cpu")

    check(program)


def test_autocast_bad_device():
    check(lambda t: t.autocast("xyz"), raises=RuntimeError)


def test_autocast_cuda_disabled_without_gpu():
    def program(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with t.autocast("cuda"):
                enabled = t.is_autocast_enabled("cuda")
        return enabled, len(caught) > 0

    check(program)


def test_autocast_casts_matmul_family():
    def program(t):
        a = t.ones(2, 3, requires_grad=True)
        b = t.ones(3, 2) * 0.5
        img = t.ones(1, 1, 3, 3)
        conv = t.nn.Conv2d(1, 1, 2)
        with t.autocast("cpu", dtype=t.float16):
            out = (a @ b, t.mm(a, b), a.matmul(b), t.nn.functional.linear(a, b.T),
                   conv(img).dtype, (a + 1).dtype,
                   t.ones(2, 2, dtype=t.float64) @ t.ones(2, 2, dtype=t.float64))
            out[0].sum().backward()
        return [o if isinstance(o, t.dtype) else o.detach() for o in out], a.grad, (a @ b).dtype

    check(program)


def test_grad_scaler_disabled_without_cuda():
    def program(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            s = t.amp.GradScaler("cuda")
        return s.is_enabled(), s.get_scale(), s.state_dict(), [str(w.message) for w in caught]

    check(program)


def test_grad_scaler_cpu_steps():
    def program(t):
        w = t.nn.Parameter(t.ones(2))
        opt = t.optim.SGD([w], lr=0.1)
        s = t.amp.GradScaler("cpu", growth_interval=2)
        trace = []
        for bad in (False, False, True):
            opt.zero_grad()
            loss = s.scale((w * 2).sum())
            loss.backward()
            if bad:
                w.grad = t.tensor([float("inf"), 1.0])
            s.unscale_(opt)
            trace.append(w.grad.clone())
            s.step(opt)
            s.update()
            trace.append(s.get_scale())
        try:
            s.unscale_(opt)
            s.unscale_(opt)
        except RuntimeError as e:
            trace.append(str(e))
        return w.detach(), trace, s.state_dict()

    check(program)
