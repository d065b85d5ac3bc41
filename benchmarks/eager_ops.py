"""Eager per-op overhead: jtorch vs PyTorch vs hand-written JAX, measured in one process.

    python benchmarks/eager_ops.py           # full run
    python benchmarks/eager_ops.py --quick   # fewer, shorter repeats

Cases, all on 64x64 float32 on CPU:
  add       a + b
  matmul    a @ b
  fwd+bwd   ((w * x).exp().sum()).backward() into w, grad reset every iteration
            (JAX: jax.jit(jax.grad(...)))
  ... loop  the same op once jtorch has fused its runs (PyTorch and JAX: the same figure)

jtorch records small eager ops and runs a run of them (a segment) as one XLA program once
the same segment has come 100 times (``eager/lazy.py``). ``add`` and ``matmul`` time each
op run on its own (recorded, then run op by op: ``lazy.FUSE_AFTER`` set to 0), what one
op costs; the ``loop`` rows warm up past the fusing (segments of 64 ops, 100 sightings),
what a loop repeating the op gets; so does fwd+bwd (its forward is one segment, its
backward one program from the 50th sighting: ``eager/autograd/fused.py``).

Each figure is the median, over several rounds, of (time of a batch of N calls) / N,
after warm-up; a round runs one batch of each library in turn, so the ratios compare
batches taken at the same moments of a busy machine. Async results (jtorch, JAX) are
waited for at the end of every batch.
The ratios are what matter; absolute numbers depend on the machine.
"""

import argparse
import contextlib
import os
import statistics
import sys
import time

# The comparison is eager overhead on CPU; keep JAX off any accelerator unless asked.
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import torch  # noqa: E402

try:
    import jtorch
except Exception as exc:  # any failure means "no jtorch column"
    jtorch = None
    JTORCH_ERROR = f"{type(exc).__name__}: {exc}"

SIZE = 64
NOISY_SPREAD = 1.5  # max/min over repeats above which the figures are flagged


def sync_jtorch(x) -> None:
    x._value.block_until_ready()


def sync_jax(x) -> None:
    x.block_until_ready()


def sync_torch(x) -> None:
    pass  # PyTorch's CPU ops are synchronous


# ----------------------------------------------------------------------- contenders
# Each builder returns {case: step}; step() runs the case once and returns a result to sync.


def jtorch_cases() -> dict:
    jtorch.manual_seed(0)
    a, b = jtorch.randn(SIZE, SIZE), jtorch.randn(SIZE, SIZE)
    w = jtorch.randn(SIZE, SIZE, requires_grad=True)
    x = jtorch.randn(SIZE, SIZE)

    def fwd_bwd():
        loss = (w * x).exp().sum()
        loss.backward()
        g = w.grad
        w.grad = None
        return g

    return {"add": lambda: a + b, "matmul": lambda: a @ b, "fwd+bwd": fwd_bwd,
            "add loop": lambda: a + b, "matmul loop": lambda: a @ b}


def torch_cases() -> dict:
    torch.manual_seed(0)
    a, b = torch.randn(SIZE, SIZE), torch.randn(SIZE, SIZE)
    w = torch.randn(SIZE, SIZE, requires_grad=True)
    x = torch.randn(SIZE, SIZE)

    def fwd_bwd():
        loss = (w * x).exp().sum()
        loss.backward()
        g = w.grad
        w.grad = None
        return g

    return {"add": lambda: a + b, "matmul": lambda: a @ b, "fwd+bwd": fwd_bwd,
            "add loop": lambda: a + b, "matmul loop": lambda: a @ b}


@contextlib.contextmanager
def jtorch_regime(case: str, step, sync):
    """jtorch's recording set up for ``case`` (see the module's docstring): each op run on
    its own, or the case's segments fused (``lazy.FUSE_AFTER`` + 10 sightings, the fused
    programs compiled) before the timing starts. Timing a run that crosses the fusing
    mixes two paces: fwd+bwd read 160-180 or 260-300 us by where its warm-up ended."""
    from jtorch import _kernels
    from jtorch.eager import lazy

    saved = lazy.FUSE_AFTER
    if case in ("add", "matmul"):
        lazy.FUSE_AFTER = 0
    else:  # a loop's 64-op segments, fwd+bwd's 3-op one (and its backward, fused at 50)
        per = lazy.MAX_OPS if case.endswith(" loop") else 1
        for _ in range((lazy.FUSE_AFTER + 10) * per):
            r = step()
        sync(r)
        _kernels.wait_ahead()
    try:
        yield
    finally:
        lazy.FUSE_AFTER = saved


def jax_cases() -> dict:
    # jtorch turns on x64 mode globally, so the dtype must be explicit.
    ka, kb, kw, kx = jax.random.split(jax.random.key(0), 4)
    a, b, w, x = (jax.random.normal(k, (SIZE, SIZE), dtype=jnp.float32) for k in (ka, kb, kw, kx))
    add = jax.jit(lambda a, b: a + b)
    matmul = jax.jit(lambda a, b: a @ b)
    grad = jax.jit(jax.grad(lambda w, x: jnp.sum(jnp.exp(w * x))))
    return {
        "add": lambda: add(a, b),
        "matmul": lambda: matmul(a, b),
        "fwd+bwd": lambda: grad(w, x),
        "add loop": lambda: add(a, b),
        "matmul loop": lambda: matmul(a, b),
    }


# ----------------------------------------------------------------------- timing


def _batch(step, sync, n: int) -> float:
    """Seconds per call over a batch of n calls, waiting for the last result."""
    t0 = time.perf_counter()
    for _ in range(n):
        r = step()
    sync(r)
    return (time.perf_counter() - t0) / n


def calibrate(step, sync, target_s: float) -> int:
    """Calls per batch so that a batch of ``step`` takes about ``target_s``, after warm-up."""
    # Compile and warm caches, past the 50th backward of a graph and the 100th sighting of
    # a recorded segment, from which jtorch runs each as one program (eager/autograd/
    # fused.py, eager/lazy.py); those compile on a background thread while the calls go
    # on unfused, so wait until two batches in a row keep one pace.
    _batch(step, sync, 300)
    est = _batch(step, sync, 50)
    for _ in range(20):
        again = _batch(step, sync, 50)
        if abs(again - est) <= 0.1 * est:
            break
        est = again
    return max(10, min(100_000, int(target_s / max(est, 1e-7))))


CASES = ("add", "matmul", "fwd+bwd", "add loop", "matmul loop")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    args = ap.parse_args()
    repeats, target_s = (3, 0.02) if args.quick else (7, 0.2)

    contenders = [("torch", torch_cases, sync_torch), ("JAX", jax_cases, sync_jax)]
    if jtorch is not None:
        contenders.insert(0, ("jtorch", jtorch_cases, sync_jtorch))
    else:
        print(f"!! jtorch could not be imported ({JTORCH_ERROR});", file=sys.stderr)
        print("!! install it with `pip install -e .` from the repo root.", file=sys.stderr)
        print("!! Timing PyTorch and JAX only.\n", file=sys.stderr)

    print(
        f"torch {torch.__version__} ({torch.get_num_threads()} threads), "
        f"jax {jax.__version__} on {jax.devices()[0].platform}, "
        f"{SIZE}x{SIZE} float32, {repeats} interleaved rounds, median"
    )
    steps: dict[str, tuple] = {}
    for name, build, sync in contenders:
        try:
            steps[name] = (build(), sync)
        except Exception as exc:  # report it and keep the other columns
            print(f"!! {name} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    results: dict[str, dict[str, float]] = {name: {} for name in steps}
    noisy = False
    for case in CASES:
        # Each library's batches alternate with the others' (one round: a batch of each),
        # so a busy spell of the machine weighs on every column alike.
        runs: dict[str, list] = {}
        with contextlib.ExitStack() as stack:
            sizes = {}
            for name, (cases, sync) in steps.items():
                try:
                    if name == "jtorch":
                        stack.enter_context(jtorch_regime(case, cases[case], sync))
                    sizes[name] = calibrate(cases[case], sync, target_s)
                except Exception as exc:  # noqa: BLE001 -- report it, keep the others
                    print(f"!! {name} {case} failed: {type(exc).__name__}: {exc}",
                          file=sys.stderr)
            for _ in range(repeats):
                for name, n in sizes.items():
                    cases, sync = steps[name]
                    runs.setdefault(name, []).append(_batch(cases[case], sync, n))
        for name, times in runs.items():
            results[name][case] = 1e6 * statistics.median(times)
            noisy |= max(times) / min(times) > NOISY_SPREAD

    def cell(name, case):
        v = results.get(name, {}).get(case)
        return f"{v:10.1f}" if v is not None else f"{'n/a':>10}"

    def ratio(case, other):
        j, o = results.get("jtorch", {}).get(case), results.get(other, {}).get(case)
        return f"{j / o:12.2f}x" if j is not None and o is not None else f"{'n/a':>13}"

    head = "".join(f"{h:>10}" for h in ("jtorch us", "torch us", "JAX us"))
    print(f"\n{'op':<12}{head}{'jtorch/JAX':>13}{'jtorch/torch':>13}")
    for case in CASES:
        row = "".join(cell(n, case) for n in ("jtorch", "torch", "JAX"))
        print(f"{case:<12}{row}{ratio(case, 'JAX')}{ratio(case, 'torch')}")
    if noisy:
        print(
            f"\nnote: some repeats differed by more than {NOISY_SPREAD}x (a busy machine?);"
            " rerun on an idle one before quoting these figures."
        )
    return 0 if "jtorch" in results else 1


if __name__ == "__main__":
    raise SystemExit(main())
