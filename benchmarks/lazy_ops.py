"""Recorded (lazy) eager ops against op-by-op dispatch, and PyTorch, on two training steps.

    python benchmarks/lazy_ops.py [--quick]

The polynomial program's step (2,000 floats, ~20 tiny ops, a backward, four in-place
updates) and the VAE program's (Linear layers, batch 128, Adam). jtorch runs each with
recording on and off (``jtorch.eager.lazy.ON``) in one process, alternating rounds after
both have warmed up (so recorded segments are fused); PyTorch runs the same step in this
process too. Every library on one thread; medians of the rounds, in microseconds.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def polynomial(t):
    x = t.linspace(-math.pi, math.pi, 2000, dtype=t.float32)
    y = t.sin(x)
    a, b, c, d = (t.tensor(v, dtype=t.float32, requires_grad=True)
                  for v in np.random.default_rng(0).standard_normal(4))

    def step():
        loss = (a + b * x + c * x**2 + d * x**3 - y).pow(2).sum()
        loss.backward()
        with t.no_grad():
            for p in (a, b, c, d):
                p -= 1e-6 * p.grad
                p.grad = None

    return step


def vae(t):
    src = open(os.path.join(HERE, "..", "tests", "programs", "vae.py")).read()
    scope = {"torch": t, "nn": t.nn, "F": t.nn.functional}
    exec(src[src.index("class VAE"):src.index("def main")], scope)
    t.manual_seed(1)
    model = scope["VAE"](200, 10)
    opt = t.optim.Adam(model.parameters(), lr=1e-3)
    x = t.rand(128, 64)

    def step():
        opt.zero_grad()
        recon, mu, logvar = model(x)
        loss = scope["loss_function"](recon, x, mu, logvar)
        loss.backward()
        loss.item()
        opt.step()

    return step


def _round(step, n, sync) -> float:
    start = time.perf_counter()
    for _ in range(n):
        step()
    sync()
    return (time.perf_counter() - start) / n * 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds")
    args = ap.parse_args()
    import torch

    import jtorch
    from jtorch.eager import lazy

    torch.set_num_threads(1)
    rounds = 4 if args.quick else 10
    print(f"torch {torch.__version__} (1 thread), jtorch {jtorch.__version__}; "
          f"median us per step of {rounds} alternating rounds")
    print(f"{'step':<12}{'lazy on':>10}{'lazy off':>10}{'torch':>10}{'on/off':>9}{'on/torch':>10}")
    for name, build, warm, n in (("polynomial", polynomial, 300, 200), ("vae", vae, 150, 20)):
        jt, pt = build(jtorch), build(torch)
        for on in (True, False):
            lazy.ON = on
            for _ in range(warm):  # past the fusion threshold
                jt()
        for _ in range(warm // 3):
            pt()
        res = {True: [], False: [], "torch": []}
        for r in range(rounds):
            for on in ((True, False) if r % 2 == 0 else (False, True)):
                lazy.ON = on
                res[on].append(_round(jt, n, lazy.flush))
            res["torch"].append(_round(pt, n, lambda: None))
        lazy.ON = True
        on, off, ref = (statistics.median(res[k]) for k in (True, False, "torch"))
        print(f"{name:<12}{on:>10.0f}{off:>10.0f}{ref:>10.0f}{on / off:>8.2f}x{on / ref:>9.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
