"""torch.device, placement of tensors and modules, and cross-device rules.

On this CPU machine the CPU-build behaviour is compared with PyTorch directly; the CUDA
paths run in a subprocess with ``JTORCH_EMULATE_CUDA=1`` and four XLA host devices
(``cuda:i`` is host device ``i + 1``), where the same scripts must work as on a GPU.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from conftest import check, raising

import jtorch


@pytest.mark.parametrize("program", [
    lambda t: t.device("cuda:1"),
    lambda t: t.device("cuda", 1),
    lambda t: t.device("cpu", 0),
    lambda t: (t.device("cuda:0").type, t.device("cuda:0").index, t.device("cpu").index),
    raising(RuntimeError, lambda t: t.device("cuda:-1")),
    raising(RuntimeError, lambda t: t.device("cuda", -1)),
    raising(RuntimeError, lambda t: t.device("foo")),
    raising(RuntimeError, lambda t: t.device("cuda:1", 1)),
    raising(TypeError, lambda t: t.device(None)),
    raising(TypeError, lambda t: t.device("cuda", "1")),
    raising(RuntimeError, lambda t: t.device(0)),
    lambda t: (t.device("cuda") == t.device("cuda:0"), t.device("cuda") == "cuda",
               hash(t.device("cuda:1")) == hash(t.device("cuda", 1))),
    lambda t: (repr(t.device("cuda", 1)), str(t.device("cuda:1")), repr(t.device("cpu"))),
])
def test_device_object(program):
    check(program)


@pytest.mark.parametrize("program", [
    raising(AssertionError, lambda t: t.ones(2).to("cuda")),
    raising(AssertionError, lambda t: t.ones(2).to("cuda:1")),
    raising(AssertionError, lambda t: t.ones(2).to(device="cuda")),
    raising(RuntimeError, lambda t: t.ones(2).to(0)),
    raising(AssertionError, lambda t: t.ones(2).cuda()),
    raising(RuntimeError, lambda t: t.ones(2).cuda(1)),
    raising(RuntimeError, lambda t: t.ones(2).cuda(t.device("cpu"))),
    raising(AssertionError, lambda t: t.zeros(2, device="cuda")),
    raising(AssertionError, lambda t: t.randn(2, device="cuda")),
    raising(AssertionError, lambda t: t.arange(3, device="cuda")),
    raising(AssertionError, lambda t: t.tensor([1], device="cuda")),
    raising(AssertionError, lambda t: t.zeros_like(t.ones(2), device="cuda")),
    raising(AssertionError, lambda t: t.ones(2).new_ones(2, device="cuda")),
    raising(AssertionError, lambda t: t.nn.Linear(2, 2).cuda()),
    raising(AssertionError, lambda t: t.nn.Linear(2, 2).to("cuda")),
])
def test_cuda_placement_without_gpu(program):
    check(program)


@pytest.mark.parametrize("program", [
    lambda t: t.ones(2).to("cpu", t.float64),
    lambda t: (t.ones(2).to(t.device("cpu"), non_blocking=True).device, t.ones(2).device),
    lambda t: t.ones(2).new_zeros(3).device,
    lambda t: t.nn.Linear(2, 2).cpu().weight.device,
    lambda t: t.empty(2, device=t.device("cpu")).device,
    lambda t: t.ones(2, requires_grad=True).to("cpu", copy=True).grad_fn.name(),
    lambda t: t.ones(2, requires_grad=True).to("cpu").grad_fn,
    lambda t: (t.ones(2).get_device(), t.ones(2).is_cuda),
    lambda t: t.get_default_device(),
])
def test_cpu_placement(program):
    check(program)


def test_identity_moves():
    x = jtorch.ones(2)
    assert x.to("cpu") is x and x.cpu() is x and x.to("cpu", copy=True) is not x


def test_default_device_is_lazy(tt):
    tt.set_default_device("cuda")
    try:
        with pytest.raises(AssertionError):
            tt.zeros(1)
        with pytest.raises(AssertionError):
            tt.get_default_device()
    finally:
        tt.set_default_device(None)
    assert tt.zeros(1).device == tt.device("cpu")


def test_device_context_manager(tt):
    with tt.device("cpu"):
        assert tt.zeros(1).device == tt.device("cpu")
    with tt.device("cuda"):
        with pytest.raises(AssertionError):
            tt.zeros(1)
    assert tt.zeros(1).device.type == "cpu"


def test_import_leaves_jax_backends_alone():
    """``init_process_group`` (jax.distributed.initialize) must be able to follow
    ``import jtorch``, which therefore must not start JAX's backends."""
    code = ("import jtorch; from jax._src import xla_bridge as xb; "
            "assert not xb.backends_are_initialized()")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


EMULATED = textwrap.dedent("""
    import time
    import numpy as np
    import jax
    import jtorch as torch

    cpu0, *accel = jax.local_devices(backend="cpu")
    assert torch.cuda.is_available() and torch.cuda.device_count() == 3
    assert torch.accelerator.current_accelerator() == torch.device("cuda")
    assert torch.cuda.current_device() == 0 and torch.cuda.get_device_name() == "cpu"
    props = torch.cuda.get_device_properties(0)
    assert props.name == "cpu" and "cpu" in repr(props)

    # placement: data really lives on the device, kernels run there
    x = torch.ones(2, device="cuda")
    assert x.device == torch.device("cuda", 0) and x.is_cuda and x._value.devices() == {accel[0]}
    y = x * 2 + 1
    assert y.device == torch.device("cuda:0") and y._value.devices() == {accel[0]}
    assert "device='cuda:0'" in repr(y) and y.get_device() == 0
    assert (x + torch.tensor(3.0)).device.type == "cuda"  # a 0-dim CPU tensor is a scalar
    for other in (torch.ones(2), torch.ones(2, device="cuda:1")):
        try:
            x + other
        except RuntimeError as e:
            msg = str(e)
        else:
            raise AssertionError("mixed devices must raise")
        assert msg == ("Expected all tensors to be on the same device, but found at least two "
                       f"devices, cuda:0 and {other.device}!"), msg
    c = y.cpu()
    assert c.device == torch.device("cpu") and c._value.devices() == {cpu0}
    assert c.tolist() == [3.0, 3.0] and y.item if y.numel() == 2 else True
    try:
        torch.ones(1, device="cuda:5")
    except RuntimeError as e:
        assert "invalid device ordinal" in str(e)
    else:
        raise AssertionError("cuda:5 must not exist")

    # autograd through moves: the gradient comes back to the CPU leaf
    w = torch.ones(2, requires_grad=True)
    wc = w.cuda()
    assert wc.grad_fn.name() == "ToCopyBackward0"
    (wc * 3).sum().backward()
    assert w.grad.device.type == "cpu" and w.grad.tolist() == [3.0, 3.0]

    # current device, contexts, default device, factories, *_like / new_*
    torch.cuda.set_device(1)
    assert torch.zeros(1, device="cuda").device == torch.device("cuda:1")
    assert torch.ones(1).cuda().device == torch.device("cuda:1")
    with torch.cuda.device(2):
        assert torch.cuda.current_device() == 2
        assert torch.randn(2, device="cuda").device == torch.device("cuda:2")
    assert torch.cuda.current_device() == 1
    torch.cuda.set_device(0)
    with torch.device("cuda:1"):
        z = torch.zeros(2)
        assert z.device == torch.device("cuda:1") and z._value.devices() == {accel[1]}
    assert torch.zeros(2).device.type == "cpu"
    torch.set_default_device("cuda")
    assert torch.arange(3).device == torch.device("cuda:0")
    assert torch.get_default_device() == torch.device("cuda:0")
    torch.set_default_device(None)
    assert torch.zeros_like(x).device == x.device and x.new_zeros(3).device == x.device
    assert torch.tensor([1, 2], device="cuda:2").device == torch.device("cuda:2")
    with torch.cuda.device_of(torch.ones(1, device="cuda:2")):
        assert torch.cuda.current_device() == 2

    # modules move in place; training runs on the device
    torch.manual_seed(0)
    m = torch.nn.Linear(3, 2)
    weight = m.weight
    assert m.to("cuda") is m and m.weight is weight and m.weight.device.type == "cuda"
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    loss = m(torch.ones(4, 3, device="cuda")).sum()
    loss.backward()
    opt.step()
    assert m.weight.grad.device == torch.device("cuda:0")
    assert m.weight._value.devices() == {accel[0]}
    m.cpu()
    assert m.weight is weight and m.weight.device.type == "cpu" and m.bias.grad.device.type == "cpu"

    # DataParallel over the three emulated GPUs: each device's chunk is a separate call
    # (BatchNorm statistics per chunk), running statistics from the first chunk, as PyTorch
    import copy
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4),
                              torch.nn.Linear(4, 1)).cuda()
    ref, first = copy.deepcopy(net), copy.deepcopy(net)
    assert all(p.device.type == "cuda" for p in ref.parameters())
    x6 = torch.randn(6, 3, device="cuda")
    w6 = torch.arange(6.0, device="cuda").reshape(6, 1)
    two = torch.tensor(2.0).cuda().cpu()  # a committed 0-dim CPU tensor: still a scalar
    out = torch.nn.DataParallel(net, device_ids=[0, 1, 2])(x6)
    assert out.device == torch.device("cuda:0") and out._value.devices() == {accel[0]}
    (out * w6 * two).sum().backward()
    expected = torch.cat([ref(c) for c in x6.chunk(3)])
    (expected * w6 * two).sum().backward()
    np.testing.assert_allclose(out.detach().cpu().numpy(), expected.detach().cpu().numpy(),
                               rtol=1e-5, atol=1e-6)
    for a, b in zip(net.parameters(), ref.parameters()):
        assert a.grad.device == torch.device("cuda:0")
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-5)
    first(x6.chunk(3)[0])
    np.testing.assert_allclose(net[1].running_mean.numpy(), first[1].running_mean.numpy(),
                               rtol=1e-6)
    np.testing.assert_allclose(net[1].running_var.numpy(), first[1].running_var.numpy(),
                               rtol=1e-6)
    assert int(net[1].num_batches_tracked) == 1
    try:
        torch.nn.DataParallel(torch.nn.Linear(2, 2))
    except RuntimeError as e:
        assert "module must have its parameters and buffers on device cuda:0" in str(e)
    else:
        raise AssertionError("DataParallel needs the module on device_ids[0]")

    # synchronize, events, streams
    big = torch.randn(256, 256, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(3):
        big = big @ big / 256
    end.record()
    end.synchronize()
    assert big._value.is_ready() and start.elapsed_time(end) > 0 and end.query()
    try:
        torch.cuda.Event().elapsed_time(end)
    except RuntimeError:
        pass
    else:
        raise AssertionError("timing needs enable_timing")
    s = torch.cuda.Stream()
    assert torch.cuda.current_stream() == torch.cuda.default_stream() != s
    with torch.cuda.stream(s):
        assert torch.cuda.current_stream() == s
        big = big + 1
    assert torch.cuda.current_stream() == torch.cuda.default_stream()
    s.wait_stream(torch.cuda.current_stream())
    torch.cuda.synchronize()
    assert s.query() and big._value.is_ready()

    # memory statistics from the device's live buffers
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    held = torch.zeros(1024, 1024, device="cuda")
    assert torch.cuda.memory_allocated() >= before + 4 * 2**20
    assert torch.cuda.max_memory_allocated() >= torch.cuda.memory_allocated()
    stats = torch.cuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == torch.cuda.memory_allocated()
    assert "Allocated memory" in torch.cuda.memory_summary()
    del held
    torch.cuda.empty_cache()
    assert torch.cuda.memory_allocated() < before + 4 * 2**20

    # one generator per GPU: torch.manual_seed seeds all, cuda.manual_seed only the current
    torch.manual_seed(0)
    a, b = torch.randn(3, device="cuda"), torch.randn(3)
    torch.cuda.manual_seed(5)
    c, d = torch.randn(3, device="cuda"), torch.randn(3)
    assert not torch.equal(b, d) and torch.cuda.initial_seed() == 5 and torch.initial_seed() == 0
    torch.manual_seed(0)
    assert torch.equal(a.cpu(), torch.randn(3, device="cuda").cpu())
    assert torch.equal(b, torch.randn(3))
    torch.cuda.manual_seed(5)
    assert torch.equal(c.cpu(), torch.randn(3, device="cuda").cpu())
    state = torch.cuda.get_rng_state()
    e = torch.randn(2, device="cuda")
    torch.cuda.set_rng_state(state)
    assert torch.equal(e.cpu(), torch.randn(2, device="cuda").cpu())
    torch.cuda.manual_seed_all(1)
    x, y = torch.ones(3, device="cuda:0").normal_(), torch.ones(3, device="cuda:1").normal_()
    assert torch.equal(x.cpu(), y.cpu())
    torch.cuda.seed_all()
    assert torch.cuda.initial_seed() != 1
    print("OK")
""")

BLOCKING = textwrap.dedent("""
    import jtorch as torch
    from jtorch._device import PLACEMENT
    assert PLACEMENT.blocking
    x = torch.randn(300, 300, requires_grad=True)
    y = x @ x
    assert y._value.is_ready()
    y.sum().backward()
    assert x.grad._value.is_ready()
    z = x.detach()
    for _ in range(2):  # the second call takes the bindings' inline lane
        s = z @ z
        assert s._value.is_ready()
    print("OK")
""")


def _run(code: str, **env) -> str:
    full = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4", **env)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_emulated_cuda():
    assert _run(EMULATED, JTORCH_EMULATE_CUDA="1").strip().endswith("OK")


def test_cuda_launch_blocking():
    assert _run(BLOCKING, CUDA_LAUNCH_BLOCKING="1").strip().endswith("OK")
