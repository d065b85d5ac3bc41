"""torch.testing, torch.utils.checkpoint, torch.profiler and torch.random against PyTorch:
assert_close's verdicts and messages, checkpointed gradients (both variants, RNG replay,
recomputation count), the profiler's events and table, fork_rng."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from conftest import check

import jtorch

RNG = np.random.default_rng(17)
X = RNG.standard_normal((3, 4))


def _assert_close_cases(t):
    f32, i64 = t.float32, t.int64
    return [
        (t.tensor([1.0, 2.0, 3.0]), t.tensor([1.0, 2.5, 3.0])),
        (t.tensor([1, 2, 3]), t.tensor([1, 5, 3])),
        (t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0, 3.0])),
        (t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0], dtype=t.float64)),
        (t.tensor([1.0, 2.0]), 1.0), (1.0, 1.5), (1, 2), (True, False), ("a", "b"),
        ([t.tensor(1.0), t.tensor(2.0)], [t.tensor(1.0), t.tensor(3.0)]),
        ({"a": t.tensor(1.0)}, {"a": t.tensor(2.0)}), ([1, 2], [1, 2, 3]),
        (np.array([1.0, 2.0]), np.array([1.0, 3.0])), (t.tensor([1.0]), np.array([1.0])),
        (t.tensor(float("nan")), t.tensor(float("nan"))),
        (t.tensor([[1.0, 2.0], [3.0, 4.0]]), t.tensor([[1.0, 2.0], [3.0, 5.0]])),
        (t.tensor([1.0, 0.0]), t.tensor([1.0, 1e-3])),
        (t.tensor([1.0, float("inf")]), t.tensor([1.0, float("inf")])),
        (t.tensor([1.0, 2.0], dtype=t.bfloat16), t.tensor([1.0, 2.01], dtype=t.bfloat16)),
        (t.tensor([True, False]), t.tensor([True, True])),
        (t.ones(2, dtype=f32), t.ones(2, dtype=i64)),
    ]


def test_assert_close_verdicts_and_messages():
    def prog(t):
        out = []
        for a, b in _assert_close_cases(t):
            try:
                t.testing.assert_close(a, b)
                out.append("ok")
            except (AssertionError, TypeError, ValueError) as e:
                out.append((type(e).__name__, str(e).replace("jtorch.eager.tensor", "torch")))
        return out

    check(prog)


@pytest.mark.parametrize("kw", [dict(rtol=1e-3), dict(rtol=0.1, atol=0.6),
                                dict(check_dtype=False), dict(equal_nan=True),
                                dict(msg="custom"), dict(check_stride=True)])
def test_assert_close_options(kw):
    def prog(t):
        a = t.tensor([[1.0, float("nan")], [2.0, 3.0]])
        b = t.tensor([[1.0, float("nan")], [2.5, 3.0]], dtype=t.float64).t().t()
        try:
            t.testing.assert_close(a.t() if "check_stride" in kw else a, b, **kw)
            return "ok"
        except (AssertionError, ValueError) as e:
            return type(e).__name__, str(e)

    check(prog)


def test_make_tensor_ranges_and_options():
    def prog(t):
        out = []
        for dtype, kw in ((t.float32, {}), (t.int64, dict(low=-3, high=3)),
                          (t.bool, {}), (t.float64, dict(low=0.5, high=0.6,
                                                          noncontiguous=True))):
            x = t.testing.make_tensor(2, 3, dtype=dtype, device="cpu", **kw)
            v = x.double()
            out.append((x.dtype, tuple(x.shape), x.is_contiguous(),
                        bool((v >= kw.get("low", -9)).all()),
                        bool((v <= kw.get("high", 10)).all())))
        return out

    check(prog)
    check(lambda t: t.testing.make_tensor(2, dtype=t.int64, device="cpu", requires_grad=True),
          raises=ValueError)
    check(lambda t: t.testing.make_tensor(2, dtype=t.float32, device="cpu", low=2, high=1),
          raises=ValueError)


# ------------------------------------------------------------------ checkpoint


def _checkpointed(t, reentrant, x_grad=True, segments=None):
    m = t.nn.Sequential(t.nn.Linear(4, 5), t.nn.Tanh(), t.nn.Linear(5, 2)).double()
    with t.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(t.tensor(np.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1)))
    calls = []

    def seg(x):
        calls.append(1)
        return m[1](m[0](x))

    x = t.tensor(X, requires_grad=x_grad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if segments:
            y = t.utils.checkpoint.checkpoint_sequential(m, segments, x,
                                                         use_reentrant=reentrant)
        else:
            y = m[2](t.utils.checkpoint.checkpoint(seg, x, use_reentrant=reentrant))
    y.pow(2).sum().backward()
    return y, x.grad, [p.grad for p in m.parameters()], len(calls), y.requires_grad


@pytest.mark.parametrize("reentrant", [True, False])
@pytest.mark.parametrize("x_grad", [True, False])
def test_checkpoint_gradients_match_torch(reentrant, x_grad):
    """Gradients equal PyTorch's; the segment runs twice (forward, then recompute); with
    use_reentrant=True and no input requiring grad the parameters get none, as PyTorch."""
    check(lambda t: _checkpointed(t, reentrant, x_grad))


def test_checkpoint_sequential_matches_torch():
    check(lambda t: _checkpointed(t, False, segments=2)[:3])


def test_checkpoint_replays_rng_and_grad_wrt_params():
    """Dropout inside a segment sees the same random numbers in the recomputation, so the
    gradient equals the un-checkpointed one; autograd.grad reaches the parameters."""

    def run(checkpointed):
        jtorch.manual_seed(5)
        lin = jtorch.nn.Linear(4, 4).double()
        x = jtorch.tensor(X, requires_grad=True)

        def seg(v):
            return jtorch.nn.functional.dropout(lin(v), 0.5)

        y = jtorch.utils.checkpoint.checkpoint(seg, x, use_reentrant=False) if checkpointed \
            else seg(x)
        return jtorch.autograd.grad(y.sum(), [x, lin.weight])

    for a, b in zip(run(False), run(True), strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy())


@pytest.mark.parametrize("bad", ["kwargs", "context_fn"])
def test_checkpoint_argument_errors(bad):
    def prog(t):
        ck = t.utils.checkpoint
        if bad == "kwargs":
            return ck.checkpoint(lambda x, y: x, t.ones(1), y=2, use_reentrant=True)
        return ck.checkpoint(lambda x: x, t.ones(1), use_reentrant=True,
                             context_fn=lambda: (None, None))

    check(prog, raises=ValueError)


# ------------------------------------------------------------------ profiler and random


def test_profiler_records_ops_ranges_and_backward(tmp_path):
    from jtorch.profiler import ProfilerActivity, profile, record_function

    x = jtorch.randn(8, 8, requires_grad=True)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            y = (x @ x).relu().sum()
        y.backward()
    averages = {e.key: e for e in prof.key_averages()}
    assert {"model_inference", "aten::matmul", "aten::relu", "aten::sum"} <= set(averages)
    assert "autograd::engine::evaluate_function: SumBackward0" in averages
    outer, inner = averages["model_inference"], averages["aten::matmul"]
    assert outer.cpu_time_total >= inner.cpu_time_total > 0
    assert outer.self_cpu_time_total < outer.cpu_time_total
    table = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total")
    lines = table.splitlines()
    assert lines[1].split() == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%",
                                "CPU", "total", "CPU", "time", "avg", "#", "of", "Calls",
                                "Input", "Shapes"]
    assert "[[8, 8], [8, 8]]" in table and lines[-1].startswith("Self CPU time total:")
    prof.export_chrome_trace(str(tmp_path / "trace.json"))
    names = {e["name"] for e in json.load(open(tmp_path / "trace.json"))["traceEvents"]}
    assert "aten::matmul" in names
    assert jtorch.eager.dispatch.PROFILER is None  # nothing left installed


def test_profiler_schedule_matches_torch():
    def prog(t):
        traces = []
        sched = t.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with t.profiler.profile(activities=[t.profiler.ProfilerActivity.CPU],
                                    schedule=sched,
                                    on_trace_ready=lambda p: traces.append(p.step_num)) as p:
                for _ in range(6):
                    p.step()
        return [sched(i).name for i in range(6)], traces

    check(prog)


def test_fork_rng_restores_state():
    def prog(t):
        t.manual_seed(3)
        with t.random.fork_rng(devices=[]):
            inside = t.rand(2)
        after = t.rand(2)
        t.manual_seed(3)
        return bool(t.equal(inside, after)), bool(t.equal(t.rand(2), after))

    check(prog)
