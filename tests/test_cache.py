"""The persistent compilation cache: on by default, movable, off by switch, shared safely.

Each case runs a small jtorch program in fresh processes (the cache is configured at
import) and reads back what JAX's compilation cache reported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

# A forward and backward: the same kernels in every run; prints where the cache lives,
# how many kernels came from it, and a result to compare across runs.
PROGRAM = """
import json
from jax import monitoring
events = []
monitoring.register_event_listener(lambda event, **kw: events.append(event.rsplit("/", 1)[-1]))
monitoring.register_event_duration_secs_listener(
    lambda event, secs, **kw: events.append(event.rsplit("/", 1)[-1]))
import jtorch
x = jtorch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]).requires_grad_()
y = (x * 0.5).exp().sum()
y.backward()
print(json.dumps({"dir": jtorch._cache.cache_dir(), "hits": events.count("cache_hits"),
                  "compiles": events.count("compile_requests_use_cache"),
                  "traces": events.count("jaxpr_trace_duration"),
                  "grad": x.grad.flatten().tolist()}))
"""
EXPECTED_GRAD = [0.5 * 2.718281828459045 ** (0.5 * i) for i in range(6)]


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("JTORCH_CACHE", "JTORCH_CACHE_DIR", "JAX_COMPILATION_CACHE_DIR",
                        "JTORCH_EXECUTABLE_CACHE")}
    env.update(extra, PYTHONWARNINGS="default")
    return env


def _start(env):
    return subprocess.Popen([sys.executable, "-c", PROGRAM], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def _result(proc):
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "Error reading persistent compilation cache" not in err, err
    assert "Error writing persistent compilation cache" not in err, err
    result = json.loads(out.splitlines()[-1])
    assert result["grad"] == pytest.approx(EXPECTED_GRAD, rel=1e-6)
    return result


def _entries(path):
    return sorted(n for n in os.listdir(path) if not n.startswith("."))


def test_cache_on_by_default_in_xdg_cache_home(tmp_path):
    """Default location; concurrent cold processes share it; a rerun compiles nothing."""
    env = _env(XDG_CACHE_HOME=str(tmp_path))
    cold = [_result(p) for p in [_start(env), _start(env)]]  # two writers at once
    where = str(tmp_path / "jtorch" / "xla")
    assert all(r["dir"] == where for r in cold)
    entries = _entries(where)
    assert entries, "nothing was written to the cache"
    assert not [n for n in os.listdir(where) if n.startswith(".tmp-")]  # no torn writes left
    warm = _result(_start(env))
    # Every kernel is named completely (``_executables``): loaded without being traced,
    # lowered or looked up in JAX's cache.
    assert warm["traces"] == warm["hits"] == warm["compiles"] == 0
    # One cold process may find the other's entries already written: one of them traced.
    assert max(r["traces"] for r in cold) > 0 and _entries(where) == entries
    off = _result(_start(dict(env, JTORCH_EXECUTABLE_CACHE="0")))  # JAX's cache alone
    assert off["traces"] > 0 and off["hits"] == off["compiles"] > 0


def test_cache_dir_env_and_switch_off(tmp_path):
    moved, off = tmp_path / "moved", tmp_path / "off"
    runs = [_start(_env(JTORCH_CACHE_DIR=str(moved), XDG_CACHE_HOME=str(off))),
            _start(_env(JTORCH_CACHE="0", XDG_CACHE_HOME=str(off)))]
    on, disabled = (_result(p) for p in runs)
    assert on["dir"] == str(moved) and _entries(moved)
    assert disabled["dir"] is None and disabled["hits"] == 0 and not off.exists()


def test_unwritable_cache_dir_runs_uncached(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = _result(_start(_env(JTORCH_CACHE_DIR=str(blocker / "xla"))))
    assert result["dir"] is None


BINDINGS = """
import json, jtorch
from jtorch import _cache
print(json.dumps({"compiled": _cache._COMPILED[0], "used": len(_cache._USED),
                  "sum": (jtorch.arange(4.0) * 2 + 1).sum().item()}))
"""


def test_generated_bindings_bytecode_kept_on_disk(tmp_path):
    """The bindings' generated sources are compiled by the first process and loaded by
    the next; a damaged file is compiled again and rewritten; none is kept with the cache
    off."""
    def run(**extra):
        env = _env(JTORCH_CACHE_DIR=str(tmp_path), **extra)
        out = subprocess.run([sys.executable, "-c", BINDINGS], capture_output=True, text=True,
                             env=env, timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.splitlines()[-1])

    first = run()
    assert first["compiled"] == first["used"] > 400 and first["sum"] == 16.0
    (kept,) = (tmp_path / "jtorch-bindings").iterdir()
    second = run()
    assert second["compiled"] == 0 and second["used"] == first["used"]
    assert second["sum"] == 16.0
    kept.write_bytes(kept.read_bytes()[:1000])  # truncated: compiled again, then rewritten
    assert run()["compiled"] == first["used"] and run()["compiled"] == 0
    off = run(JTORCH_CACHE="0")
    assert off["compiled"] == first["used"] and off["sum"] == 16.0
