"""Compiled kernels kept on disk by name (``jtorch/_executables.py``): a second process
loads them without tracing, gives the same values, and never runs a stale or damaged one.

The programs run in fresh processes sharing a cache directory; each prints its results and
how many JAX traces and JAX cache reads it made.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

import jax
import numpy as np
import pytest

import jtorch
from jtorch import _executables as E

# A small training run touching every kind of kernel kept on disk: ops forward and
# backward, view reads and writes, dropout, an optimizer's group update, clipping, a
# fused backward and a fused forward segment (both after a few steps).
PROGRAM = """
import json, sys
import numpy as np
from jax import monitoring
events = []
monitoring.register_event_listener(lambda event, **kw: events.append(event.rsplit("/", 1)[-1]))
monitoring.register_event_duration_secs_listener(
    lambda event, secs, **kw: events.append(event.rsplit("/", 1)[-1]))
import torch
torch.manual_seed(0)
rng = np.random.default_rng(0)
x = torch.tensor(rng.standard_normal((8, 5)), dtype=torch.float32)
target = torch.tensor(rng.standard_normal((8, 2)), dtype=torch.float32)
model = torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.3, dtype=torch.float32))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
losses = []
for step in range(6):
    opt.zero_grad()
    loss = ((model(x) - target) ** 2).mean()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    losses.append(loss.item())
y = x.clone()
y[:, 1:3] = y[:, :2] * 2  # a view's write and read
for _ in range(4):
    z = (y * 3 + 1).tanh() - y  # a segment fused from the third sighting
drop = torch.nn.functional.dropout(x, 0.5)
# Compiles still queued on the background thread at exit are dropped, not kept: finish
# them, so that a second run has nothing left to compile.
import jtorch._kernels
jtorch._kernels.wait_ahead()
print(json.dumps({"losses": losses, "weights": model[0].weight.tolist(), "y": y.tolist(),
                  "z": z.tolist(), "drop": drop.tolist(),
                  "traces": events.count("jaxpr_trace_duration"),
                  "hits": events.count("cache_hits")}))
"""


def _env(cache, **extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("JTORCH_CACHE", "JTORCH_CACHE_DIR", "JAX_COMPILATION_CACHE_DIR",
                        "JTORCH_EXECUTABLE_CACHE")}
    return dict(env, JTORCH_CACHE_DIR=str(cache), **extra)


def _values(result):
    return {k: v for k, v in result.items() if k not in ("traces", "hits")}


def _entries(cache):
    path = cache / "jtorch-executables"
    return sorted(p for p in path.iterdir() if not p.name.startswith("."))


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    path = tmp_path_factory.mktemp("program") / "program.py"
    path.write_text(PROGRAM)
    return path


def _run_script(script, cache, **extra) -> dict:
    proc = subprocess.run([sys.executable, "-m", "jtorch", str(script)], capture_output=True,
                          text=True, timeout=300, env=_env(cache, **extra))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


def _torch_result(script) -> dict:
    """The same program on PyTorch itself (``python script.py`` imports torch)."""
    pytest.importorskip("torch")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


def test_a_second_run_loads_every_kernel_without_tracing(tmp_path, script):
    cold = _run_script(script, tmp_path)
    assert cold["traces"] > 0 and _entries(tmp_path)
    warm = _run_script(script, tmp_path)
    assert warm["traces"] == 0 and warm["hits"] == 0  # nothing traced, nothing asked of JAX
    assert _values(warm) == _values(cold)
    off = _run_script(script, tmp_path, JTORCH_EXECUTABLE_CACHE="0")
    assert off["traces"] > 0 and _values(off) == _values(cold)
    ref = _torch_result(script)  # the same values as PyTorch's (but dropout's draws)
    for key in ("losses", "weights", "y", "z"):
        np.testing.assert_allclose(cold[key], ref[key], rtol=1e-5, atol=1e-6, err_msg=key)


def test_programs_from_jax_cache_are_kept_runnable(tmp_path, script):
    """A program JAX's own cache gave back is kept as the bytes that cache held (one
    serialised again from memory cannot run on XLA:CPU)."""
    cold = _run_script(script, tmp_path)
    for entry in _entries(tmp_path):
        entry.unlink()
    from_jax = _run_script(script, tmp_path)  # every program from JAX's cache, then kept
    assert from_jax["hits"] > 0 and _entries(tmp_path)
    warm = _run_script(script, tmp_path)
    assert warm["traces"] == 0 and _values(warm) == _values(from_jax) == _values(cold)


def test_damaged_or_foreign_entries_are_compiled_again(tmp_path, script):
    cold = _run_script(script, tmp_path)
    entries = _entries(tmp_path)
    for i, entry in enumerate(entries):
        data = entry.read_bytes()
        # Alternately: garbage after a good header, another entry's header (a hash
        # collision's stand-in), a truncated file.
        if i % 3 == 0:
            entry.write_bytes(data[:-50] + b"\0" * 50)
        elif i % 3 == 1:
            entry.write_bytes(entries[i - 1].read_bytes())
        else:
            entry.write_bytes(data[: len(data) // 2])
    again = _run_script(script, tmp_path)
    assert again["traces"] > 0 and _values(again) == _values(cold)
    warm = _run_script(script, tmp_path)  # the entries were written anew
    assert warm["traces"] == 0 and _values(warm) == _values(cold)


# An LSTM and attention: ops whose kernels return their VJP (a structure holding a
# function), kept without that structure, which a trace rebuilds on loading.
RESIDUALS = """
import json, logging
import torch
lowered = []
class Log(logging.Handler):
    def emit(self, record):
        message = record.getMessage()
        if message.startswith("Finished jaxpr to MLIR"):
            lowered.append(message.split(" jit(")[1].split(")")[0])
logging.getLogger("jax").addHandler(Log())
logging.getLogger("jax").setLevel(logging.DEBUG)
import jax
jax.config.update("jax_log_compiles", True)
torch.manual_seed(0)
lstm = torch.nn.LSTM(4, 6, num_layers=2)
att = torch.nn.MultiheadAttention(6, 2)
x = torch.randn(5, 3, 4, requires_grad=True)
out, _ = lstm(x)
a, _ = att(out, out, out)
a.sum().backward()
print(json.dumps({"out": a.tolist(), "grad": x.grad.tolist(),
                  "weight": lstm.weight_ih_l1.grad.tolist(),
                  "with_vjp": lowered.count("with_vjp")}))
"""


def test_kernels_returning_their_vjp_load_without_lowering(tmp_path):
    script = tmp_path / "residuals.py"
    script.write_text(RESIDUALS)
    cold = _run_script(script, tmp_path / "cache")
    warm = _run_script(script, tmp_path / "cache")
    assert cold["with_vjp"] > 0 and warm["with_vjp"] == 0
    assert {k: v for k, v in warm.items() if k != "with_vjp"} == (
        {k: v for k, v in cold.items() if k != "with_vjp"})


def _module_function(x):
    return x


def test_names_are_written_down_only_when_complete():
    assert E.stable(("add", ("input", "other"), (-1, -1), (), (), jtorch.float32)) == (
        E.stable(("add", ("input", "other"), (-1, -1), (), (), jtorch.float32)))
    assert len({E.stable(v) for v in (1, True, 1.0, "1", (1,), [1], None)}) == 7
    assert E.stable(frozenset(["a", "b", "c"])) == E.stable(frozenset(["c", "b", "a"]))
    assert E.stable({"b": 1, "a": 2}) == E.stable({"a": 2, "b": 1})
    assert E.stable(np.dtype("float32")) != E.stable(np.dtype("float64"))
    assert E.stable(int) != E.stable(float)
    assert E.stable(jtorch.Size([2, 3])) != E.stable((2, 3))
    assert E.stable(jtorch.functional.elementwise.add) is not None  # jtorch's own
    # Nothing whose meaning could differ between processes: closures, lambdas, objects,
    # partials, functions outside jtorch and JAX.
    assert E.stable(lambda x: x) is None
    assert E.stable(_module_function) is None
    assert E.stable(functools.partial(jtorch.functional.elementwise.add, alpha=2)) is None
    assert E.stable(object()) is None
    assert E.stable(("add", object())) is None
    assert E.stable(np.int64(1)) is None


def test_entry_names_follow_configuration_and_default_dtype():
    if jtorch._cache.cache_dir() is None:
        pytest.skip("the compilation cache is off in this process")
    name, types = "forward|test", ("tree", "ShapedArray(float32[3])")
    base = E._entry(name, types)
    assert E._entry(name, types) == base
    assert E._entry(name, types[:1] + ("ShapedArray(float32[4])",))[0] != base[0]
    old = jax.config.jax_default_matmul_precision
    jax.config.update("jax_default_matmul_precision", "bfloat16")
    try:
        assert E._entry(name, types)[0] != base[0]
    finally:
        jax.config.update("jax_default_matmul_precision", old)
    old_dtype = jtorch.get_default_dtype()
    jtorch.set_default_dtype(jtorch.float64)
    try:
        assert E._entry(name, types)[0] != base[0]
    finally:
        jtorch.set_default_dtype(old_dtype)
    assert E._entry(name, types) == base
