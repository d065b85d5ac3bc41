"""One training step (forward, backward, optimizer update), eager and compiled: PyTorch,
jtorch and hand-written jitted JAX measured side by side in one process.

    python benchmarks/training_step.py                 # all cases, full run
    python benchmarks/training_step.py --quick         # fewer, shorter repeats
    python benchmarks/training_step.py --cases gpt --no-torch-compile

Cases (float32, CPU):
  mlp   Linear(784,256)-ReLU-Linear(256,256)-ReLU-Linear(256,10), batch 64, cross-entropy,
        SGD with momentum 0.9
  cnn   examples/cnn_digits.py's model (two convolutions, BatchNorm, max pooling, two linear
        layers) on 8x8 images, batch 64, cross-entropy, Adam
  gpt   examples/gpt_chars.py's GPT (4 layers, 4 heads, width 128, context 64, dropout 0.1,
        tied embeddings), batch 12, AdamW with weight-decay groups

Columns (median ms per step over interleaved rounds, waited for at the end of each round):
  torch          PyTorch eager
  torch.comp     PyTorch, ``model = torch.compile(model)`` (inductor; --no-torch-compile skips)
  jtorch         jtorch eager
  jt.comp        jtorch, ``model = torch.compile(model)``: the forward is one XLA program and
                 one autograd node whose backward is one program; the optimizer runs eagerly
  jt.step        jtorch, the whole step function under ``torch.compile``: one XLA program
  jax            the same step hand-written as one ``jax.jit(value_and_grad)`` plus the
                 optimizer (benchmarks/_jax_steps.py): the floor
Then the first call of the compiled whole step (tracing and XLA compilation, seconds) and the
guard check a compiled call pays before it runs (key + validity, microseconds).
"""

import argparse
import importlib.util
import os
import pathlib
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("JTORCH_CACHE", "0")  # first-call figures mean a cold compile
# One thread for every library, set the same way as benchmarks/programs.py: XLA's CPU
# thread pool through XLA_FLAGS (read when JAX starts), PyTorch's by set_num_threads below.
ONE_THREAD_XLA = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {ONE_THREAD_XLA}".strip()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import jtorch  # noqa: E402
from jtorch.eager.autograd import fused  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _jax_steps  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _example(name, backend):
    """examples/<name>.py imported with TORCH_BACKEND=backend (its models, unchanged)."""
    os.environ["TORCH_BACKEND"] = backend
    spec = importlib.util.spec_from_file_location(f"{name}_{backend}", ROOT / "examples" /
                                                  f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _data(case):
    rng = np.random.default_rng(0)
    if case == "gpt":
        x = rng.integers(0, 13, (12, 64))
        return x, np.roll(x, -1, axis=1)
    shape = (64, 784) if case == "mlp" else (64, 1, 8, 8)
    return rng.standard_normal(shape).astype(np.float32), rng.integers(0, 10, 64)


def _setup(t, case):
    """(model, optimizer, loss function) for library ``t``."""
    nn = t.nn
    if case == "mlp":
        model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                              nn.Linear(256, 10))
        return model, t.optim.SGD(model.parameters(), lr=0.01, momentum=0.9), _xent(t)
    if case == "cnn":
        model = _example("cnn_digits", t.__name__).DigitsCNN()
        return model, t.optim.Adam(model.parameters(), lr=1e-3), _xent(t)
    gpt = _example("gpt_chars", t.__name__)
    model = gpt.GPT(len(gpt.VOCAB))
    return model, gpt.optimizer_for(model, lr=3e-4, weight_decay=0.1), lambda m, x, y: m(x, y)[1]


def _xent(t):
    return lambda model, x, y: t.nn.functional.cross_entropy(model(x), y)


def framework_step(t, case, mode):
    """A step closure: ``mode`` is "eager", "model" (compile the model) or "step"."""
    t.manual_seed(0)
    model, opt, loss_fn = _setup(t, case)
    if mode == "model":
        model = t.compile(model)
    x, y = (t.tensor(a) for a in _data(case))

    def step():
        opt.zero_grad()
        loss = loss_fn(model, x, y)
        loss.backward()
        opt.step()
        return loss

    return t.compile(step) if mode == "step" else step


def jax_step(case):
    x, y = (jnp.asarray(a) for a in _data(case))
    if case == "gpt":
        return _jax_steps.gpt(x, y, vocab=13, block=64)
    return getattr(_jax_steps, case)(x, y)


def _sync(x):
    if isinstance(x, jtorch.Tensor):
        x._value.block_until_ready()
    elif isinstance(x, jax.Array):
        x.block_until_ready()


def _round(step, n):
    start = time.perf_counter()
    for _ in range(n):
        r = step()
    _sync(r)
    return (time.perf_counter() - start) / n


def guard_cost(compiled, n=2000) -> float:
    """Microseconds per call that a compiled function spends deciding which program runs."""
    args, kwargs = (), {}
    entry = next(iter(compiled._cache.values()))[0]
    start = time.perf_counter()
    for _ in range(n):
        tensors, key = compiled._key(args, kwargs)
        compiled._valid(entry, tensors)
    return (time.perf_counter() - start) / n * 1e6


def run_case(case, columns, n, rounds):
    steps, first = {}, None
    for name, make in columns.items():
        try:
            start = time.perf_counter()
            steps[name] = make(case)
            # jtorch eager: past the repeats after which a backward runs as one program
            for i in range(fused.AFTER + 1 if name == "jtorch" else 3):
                _sync(steps[name]())
                if name == "jt.step" and i == 1:  # the second call builds the steady program
                    first = time.perf_counter() - start
            # until the pace holds: a fused backward compiles on a background thread while
            # the steps go on unfused
            est = _round(steps[name], 5)
            for _ in range(10):
                again = _round(steps[name], 5)
                if abs(again - est) <= 0.1 * est:
                    break
                est = again
        except Exception as exc:  # a column that cannot run on this machine is reported
            print(f"  {case}: {name} skipped ({type(exc).__name__}: {str(exc)[:100]})")
    times = {name: [] for name in steps}
    for _ in range(rounds):  # interleaved: every column once per round
        for name, step in steps.items():
            times[name].append(_round(step, n))
    ms = {name: statistics.median(v) * 1e3 for name, v in times.items()}
    guard = guard_cost(steps["jt.step"]) if "jt.step" in steps else float("nan")
    return ms, first, guard


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--cases", nargs="+", default=["mlp", "cnn", "gpt"])
    parser.add_argument("--no-torch-compile", action="store_true")
    args = parser.parse_args()
    n, rounds = (5, 3) if args.quick else (20, 7)
    torch.set_num_threads(1)
    columns = {"torch": lambda c: framework_step(torch, c, "eager")}
    if not args.no_torch_compile:
        columns["torch.comp"] = lambda c: framework_step(torch, c, "model")
    columns.update({"jtorch": lambda c: framework_step(jtorch, c, "eager"),
                    "jt.comp": lambda c: framework_step(jtorch, c, "model"),
                    "jt.step": lambda c: framework_step(jtorch, c, "step"),
                    "jax": jax_step})
    print(f"training step, float32, CPU; median ms per step ({rounds} interleaved rounds of "
          f"{n} steps)")
    print(f"threads: PyTorch {torch.get_num_threads()} (set_num_threads), XLA "
          f"XLA_FLAGS={os.environ['XLA_FLAGS']!r}")
    head = "".join(f"{c:>11}" for c in columns)
    print(f"{'case':5}{head}{'step/jax':>10}{'torch/step':>11}{'1st call':>10}{'guard':>9}")
    for case in args.cases:
        ms, first, guard = run_case(case, columns, n, rounds)
        cells = "".join(f"{ms.get(c, float('nan')):11.2f}" for c in columns)
        ratio = ms.get("jt.step", float("nan")) / ms.get("jax", float("nan"))
        speedup = ms["torch"] / ms.get("jt.step", float("nan"))
        print(f"{case:5}{cells}{ratio:9.2f}x{speedup:10.1f}x{first or float('nan'):9.1f}s"
              f"{guard:7.1f}us", flush=True)


if __name__ == "__main__":
    main()
