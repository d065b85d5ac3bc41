"""torch.distributed, DistributedDataParallel and DataParallel.

In-process: a world of one rank, compared with PyTorch's gloo world of one. In
subprocesses: data parallelism over four XLA host devices
(``--xla_force_host_platform_device_count=4``) and a two-process run over loopback
(``jax.distributed`` with two local processes), each checked against single-device
training on the same global batch and against the collectives' known results.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from conftest import assert_same

import jtorch

BACKENDS = {"torch": torch, "jtorch": jtorch}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def world(monkeypatch):
    """A default process group of one rank in both libraries; destroyed afterwards."""
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", str(_free_port()))
    for t in BACKENDS.values():
        t.distributed.init_process_group("gloo", rank=0, world_size=1)
    yield
    for t in BACKENDS.values():
        t.distributed.destroy_process_group()


def both(program):
    """Run on torch and jtorch; compare results or exception classes."""
    out = {}
    for name, t in BACKENDS.items():
        try:
            out[name] = ("ok", program(t))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out[name] = ("raised", type(e).__name__)
    assert out["jtorch"][0] == out["torch"][0], out
    if out["torch"][0] == "raised":
        assert out["jtorch"][1] == out["torch"][1], out
    else:
        assert_same(out["torch"][1], out["jtorch"][1])


@pytest.mark.parametrize("program", [
    lambda t: t.distributed.is_available(),
    lambda t: t.distributed.is_initialized(),
    lambda t: t.distributed.get_rank(),
    lambda t: t.distributed.get_world_size(),
    lambda t: t.distributed.all_reduce(t.ones(2)),
    lambda t: t.distributed.barrier(),
    lambda t: t.distributed.destroy_process_group(),
    lambda t: (str(t.distributed.ReduceOp.SUM), repr(t.distributed.ReduceOp.MAX)),
    lambda t: (t.distributed.Backend("GLOO"), t.distributed.Backend.NCCL),
    lambda t: t.distributed.is_gloo_available(),
])
def test_without_process_group(program):
    both(program)


def _reduce(t, op_name, dtype):
    x = t.tensor([1, 2, 3], dtype=dtype)
    t.distributed.all_reduce(x, op=getattr(t.distributed.ReduceOp, op_name))
    return x


@pytest.mark.parametrize("op", ["SUM", "AVG", "PRODUCT", "MIN", "MAX"])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_all_reduce_world_of_one(world, op, dtype):
    both(lambda t: _reduce(t, op, getattr(t, dtype)))


@pytest.mark.parametrize("program", [
    lambda t: (t.distributed.get_rank(), t.distributed.get_world_size(),
               t.distributed.get_backend(), t.distributed.is_initialized()),
    lambda t: t.distributed.init_process_group("gloo", rank=0, world_size=1),
    lambda t: (lambda lst: (t.distributed.all_gather(lst, t.tensor([1.0, 2.0])), lst))(
        [t.zeros(2)]),
    lambda t: t.distributed.all_gather([t.zeros(2), t.zeros(2)], t.ones(2)),
    lambda t: (lambda o: (t.distributed.all_gather_into_tensor(o, t.tensor([4.0, 5.0])), o))(
        t.zeros(2)),
    lambda t: (lambda o: (t.distributed.reduce_scatter_tensor(o, t.tensor([4.0, 5.0])), o))(
        t.zeros(2)),
    lambda t: (lambda x: (t.distributed.broadcast(x, 0), x))(t.tensor([7.0])),
    lambda t: t.distributed.broadcast(t.tensor([7.0]), 1),
    lambda t: (lambda x: (t.distributed.reduce(x, 0), x))(t.tensor([7.0])),
    lambda t: (lambda g: (t.distributed.gather(t.tensor([3.0]), g, dst=0), g))([t.zeros(1)]),
    lambda t: (lambda o: (t.distributed.scatter(o, [t.tensor([3.0])], src=0), o))(t.zeros(1)),
    lambda t: t.distributed.barrier(),
    lambda t: (lambda g: (t.distributed.get_rank(g), t.distributed.get_world_size(g)))(
        t.distributed.new_group([0])),
    lambda t: t.distributed.new_group([0, 1]),
    lambda t: (lambda o: (t.distributed.all_gather_object(o, {"a": 1}), o))([None]),
    lambda t: (lambda o: (t.distributed.broadcast_object_list(o, 0), o))([{"b": (2, 3)}]),
    lambda t: t.distributed.all_reduce(t.ones(2), async_op=True).wait(),
    lambda t: t.nn.parallel.DistributedDataParallel(t.nn.Linear(2, 2), device_ids=[0, 1]),
    lambda t: t.nn.parallel.DistributedDataParallel(t.nn.ReLU()),
    lambda t: list(t.nn.parallel.DistributedDataParallel(t.nn.Linear(2, 2)).state_dict()),
])
def test_world_of_one(world, program):
    both(program)


def test_ddp_world_of_one_trains_like_the_module(world):
    def program(t):
        model = t.nn.Linear(3, 2)
        with t.no_grad():
            model.weight.copy_(t.arange(6.0).reshape(2, 3) / 7 - 0.3)
            model.bias.fill_(0.1)
        ddp = t.nn.parallel.DistributedDataParallel(model)
        opt = t.optim.SGD(ddp.parameters(), lr=0.1)
        x, y = t.arange(12.0).reshape(4, 3) / 10, t.ones(4, 2)
        for step in range(3):
            opt.zero_grad()
            if step == 1:
                with ddp.no_sync():
                    t.nn.functional.mse_loss(ddp(x[:2]), y[:2]).backward()
            t.nn.functional.mse_loss(ddp(x), y).backward()
            opt.step()
        return [p.detach() for p in model.parameters()], ddp.module is model

    both(program)


DATA_PARALLEL = textwrap.dedent("""
    import jax
    import numpy as np
    import jtorch as torch
    import jtorch.nn as nn
    import jtorch.distributed as dist

    assert len(jax.devices()) == 4

    def make():
        torch.manual_seed(0)
        return nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.BatchNorm2d(3), nn.ReLU(),
                             nn.Flatten(), nn.Linear(3 * 4 * 4, 3))

    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(8, 1, 4, 4, generator=g), torch.randint(0, 3, (8,), generator=g)

    def train(wrapper):
        model = make()
        net = wrapper(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
        return model, {k: v.numpy() for k, v in model.state_dict().items()}

    def per_device(m):  # PyTorch's DataParallel: one call per device's chunk of the batch
        return lambda inp: torch.cat([m(c) for c in inp.chunk(4)])

    _, ref = train(lambda m: m)
    _, chunked = train(per_device)
    dp_model, dp = train(nn.DataParallel)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:1", rank=0, world_size=1)
    _, ddp = train(nn.parallel.DistributedDataParallel)
    for got, want in ((dp, chunked), (ddp, ref)):
        for k in ref:
            if got is dp and k.startswith("1."):  # running statistics: first chunk only
                continue
            np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)
    assert dp["1.num_batches_tracked"] == 2
    # SyncBatchNorm: on CPU with a process group PyTorch refuses to train; eval is BatchNorm
    sync = nn.SyncBatchNorm.convert_sync_batchnorm(make())
    try:
        sync(x)
    except ValueError as e:
        assert "SyncBatchNorm expected input tensor to be on GPU" in str(e)
    else:
        raise AssertionError("SyncBatchNorm trained on CPU with a process group")
    np.testing.assert_allclose(sync.eval()(x).detach().numpy(),
                               make().eval()(x).detach().numpy(), rtol=1e-6)
    # the parameters stay on the CPU device; the SPMD program really used all four
    assert all(p._value.devices() == {jax.devices()[0]} for p in dp_model.parameters())
    seen = []
    dp_model[0].register_forward_hook(lambda m, i, o: seen.append(len(i[0]._value.devices())))
    nn.DataParallel(dp_model)(x)
    nn.DataParallel(dp_model)(x[:6])  # 6 rows: on the three devices that divide it
    assert seen == [4, 3], seen
    print("OK")
""")


def _run(code: str, *args, devices: int = 4, timeout: int = 240, env=None) -> subprocess.Popen:
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}",
               **(env or {}))
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(proc, timeout: int = 240) -> str:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-3000:]
    return out


def test_data_parallel_matches_single_device():
    assert _finish(_run(DATA_PARALLEL)).strip().endswith("OK")


TWO_PROCESS = textwrap.dedent("""
    import os, sys
    rank, port, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=port, WORLD_SIZE="2",
                      RANK=str(rank))
    import numpy as np
    import jtorch as torch
    import jtorch.distributed as dist

    dist.init_process_group("gloo")
    world = dist.get_world_size()
    torch.manual_seed(rank)  # DDP must broadcast rank 0's parameters
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(123)
    X, Y = torch.randn(8, 3, generator=g), torch.randn(8, 2, generator=g)
    xs, ys = X.chunk(world)[rank], Y.chunk(world)[rank]
    for step in range(3):
        opt.zero_grad()
        if step == 1:
            with ddp.no_sync():
                torch.nn.functional.mse_loss(ddp(xs[:2]), ys[:2]).backward()
        torch.nn.functional.mse_loss(ddp(xs), ys).backward()
        opt.step()
    res = {}
    for op in ("SUM", "AVG", "PRODUCT", "MIN", "MAX"):
        t = torch.tensor([rank + 1.0, 2.0 - rank])
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        res[op] = t.numpy()
    lst = [torch.zeros(2) for _ in range(world)]
    dist.all_gather(lst, torch.tensor([rank, rank * 10.0]))
    res["all_gather"] = torch.stack(lst).numpy()
    cat = torch.zeros(2 * world)
    dist.all_gather_into_tensor(cat, torch.tensor([rank, rank + 0.5]))
    res["all_gather_into_tensor"] = cat.numpy()
    rs = torch.zeros(1)
    dist.reduce_scatter_tensor(rs, torch.arange(world, dtype=torch.float32) + rank)
    res["reduce_scatter"] = rs.numpy()
    b = torch.tensor([rank * 1.0])
    dist.broadcast(b, src=1)
    res["broadcast"] = b.numpy()
    r = torch.tensor([rank + 1.0])
    dist.reduce(r, dst=1)
    res["reduce"] = r.numpy()
    sc = torch.zeros(1)
    dist.scatter(sc, [torch.tensor([5.0]), torch.tensor([6.0])] if rank == 0 else None, src=0)
    res["scatter"] = sc.numpy()
    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank})
    res["objects"] = np.array([o["rank"] for o in objs])
    sub = dist.new_group([1])
    res["subgroup"] = np.array([dist.get_rank(sub), dist.get_world_size(sub)])
    dist.barrier()
    np.savez(out, *[p.detach().numpy() for p in model.parameters()], **res)
    dist.destroy_process_group()
""")


def _reference_params():
    """Single-process training on the global batch, with rank 0's initialisation."""
    t = jtorch
    t.manual_seed(0)
    model = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.Tanh(), t.nn.Linear(4, 2))
    opt = t.optim.SGD(model.parameters(), lr=0.1)
    g = t.Generator().manual_seed(123)
    x, y = t.randn(8, 3, generator=g), t.randn(8, 2, generator=g)
    mse = t.nn.functional.mse_loss
    for step in range(3):
        opt.zero_grad()
        if step == 1:  # rank r accumulated its no_sync loss too: the average over ranks
            loss = sum(mse(model(xs[:2]), ys[:2]) for xs, ys in zip(x.chunk(2), y.chunk(2)))
            (loss / 2).backward()
        mse(model(x), y).backward()
        opt.step()
    return [p.detach().numpy() for p in model.parameters()]


def test_two_processes(tmp_path):
    port = _free_port()
    outs = [tmp_path / f"rank{r}.npz" for r in range(2)]
    procs = [_run(TWO_PROCESS, r, port, outs[r], devices=1) for r in range(2)]
    for p in procs:
        _finish(p, timeout=180)
    r0, r1 = (np.load(o) for o in outs)
    for i, ref in enumerate(_reference_params()):
        for r in (r0, r1):
            np.testing.assert_allclose(r[f"arr_{i}"], ref, rtol=1e-5, atol=1e-6)
    expect = {"SUM": [3, 3], "AVG": [1.5, 1.5], "PRODUCT": [2, 2], "MIN": [1, 1],
              "MAX": [2, 2], "all_gather": [[0, 0], [1, 10]],
              "all_gather_into_tensor": [0, 0.5, 1, 1.5], "broadcast": [1],
              "objects": [0, 1]}
    for key, value in expect.items():
        for r in (r0, r1):
            np.testing.assert_allclose(r[key], value, err_msg=key)
    assert r0["reduce_scatter"].tolist() == [1] and r1["reduce_scatter"].tolist() == [3]
    assert r0["reduce"].tolist() == [1] and r1["reduce"].tolist() == [3]
    assert r0["scatter"].tolist() == [5] and r1["scatter"].tolist() == [6]
    assert r0["subgroup"].tolist() == [-1, -1] and r1["subgroup"].tolist() == [0, 1]


SYNC_BATCHNORM = textwrap.dedent("""
    import os, sys
    rank, port = int(sys.argv[1]), sys.argv[2]  # on emulated GPUs: PyTorch syncs GPU inputs only
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=port, WORLD_SIZE="2", RANK=str(rank))
    import numpy as np
    import jtorch as torch
    import jtorch.distributed as dist

    dist.init_process_group("gloo")
    g = torch.Generator().manual_seed(0)
    X, W = torch.randn(6, 3, 2, 2, generator=g), torch.randn(6, 3, 2, 2, generator=g)
    rows = [slice(0, 2), slice(2, 6)][rank]  # the ranks hold different batch sizes

    def make(cls):
        m = cls(3)
        with torch.no_grad():
            m.weight.copy_(torch.tensor([1.0, 2.0, -1.0]))
            m.bias.copy_(torch.tensor([0.0, 0.5, 1.0]))
        return m

    sync, ref = make(torch.nn.SyncBatchNorm).cuda(), make(torch.nn.BatchNorm2d)
    x = X[rows].cuda().requires_grad_()
    out = sync(x)
    (out * W[rows].cuda()).sum().backward()
    xr = X.clone().requires_grad_()
    out_ref = ref(xr)
    (out_ref * W).sum().backward()


    def close(a, b):
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(), rtol=1e-4,
                                   atol=1e-5)


    close(out, out_ref[rows])
    close(x.grad, xr.grad[rows])
    for name in ("weight", "bias"):
        grad = getattr(sync, name).grad.clone()
        dist.all_reduce(grad)  # per-rank gradients; DDP would sum (and average) them
        close(grad, getattr(ref, name).grad)
    close(sync.running_mean, ref.running_mean)
    close(sync.running_var, ref.running_var)
    assert int(sync.num_batches_tracked) == 1
    print("OK")
""")


def test_sync_batchnorm_two_processes():
    """SyncBatchNorm over two ranks (batches of 2 and 4) equals BatchNorm on all 6 rows."""
    port = _free_port()
    env = {"JTORCH_EMULATE_CUDA": "1"}
    procs = [_run(SYNC_BATCHNORM, r, port, devices=2, env=env) for r in range(2)]
    for p in procs:
        assert _finish(p, timeout=180).strip().endswith("OK")
