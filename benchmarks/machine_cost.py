"""Machine instructions per steady eager step, C included, counted by valgrind (no timing).

    python benchmarks/machine_cost.py                      # every case, this checkout
    python benchmarks/machine_cost.py --only polynomial --src /tmp/old/src   # another tree

``python_cost.py`` counts Python bytecodes; a step's cost is also C: JAX's dispatch and
XLA's execution, allocations, hashing, attribute reads that CPython does not specialize.
This runs each case's warm-up natively under callgrind with instrumentation off, turns it
on (``callgrind_control``) for ``--steps`` steady calls and prints the instructions
executed per call, over every thread. The count repeats to within ~0.5% from run to run,
so a change of a percent or two shows where timed A/B runs on a shared machine swing by
10-30%. Needs valgrind (``apt install valgrind``); about half a minute per case. The
cases are python_cost.py's (``a + b``, a forward+backward, the polynomial step, an MLP's
training step) on one XLA thread.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = ("add", "fwd+bwd", "polynomial", "mlp")

# Run inside the valgrind process: warm up, then count --steps calls of the case.
_CHILD = r"""
import os, subprocess, sys
sys.path.insert(0, {here!r})
import python_cost
import jtorch
from jtorch import _kernels
fn = python_cost.CASES[{case!r}]()
for _ in range({warm}):
    fn()
jtorch.zeros(1).numpy()
_kernels.wait_ahead()
for _ in range(20):
    fn()
jtorch.zeros(1).numpy()
subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], capture_output=True)
for _ in range({steps}):
    fn()
jtorch.zeros(1).numpy()
subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], capture_output=True)
"""


def count(case: str, src: str, steps: int, warm: int) -> float:
    """Instructions per call of ``case`` with jtorch from ``src``."""
    env = dict(os.environ, PYTHONPATH=src, JAX_PLATFORMS="cpu", OMP_NUM_THREADS="1",
               XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    with tempfile.TemporaryDirectory() as tmp:
        code = _CHILD.format(here=HERE, case=case, warm=warm, steps=steps)
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no",
             f"--callgrind-out-file={tmp}/cg.out", sys.executable, "-c", code],
            env=env, capture_output=True, text=True)
    found = re.search(r"Collected\s*:\s*(\d+)", out.stderr)
    if out.returncode or not found:
        raise RuntimeError(f"{case}: valgrind run failed\n{out.stderr[-2000:]}")
    return int(found.group(1)) / steps


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", choices=CASES, default=list(CASES))
    ap.add_argument("--src", default=os.path.join(HERE, "..", "src"),
                    help="the jtorch source tree to count (default: this checkout's)")
    ap.add_argument("--steps", type=int, default=200, help="calls counted")
    ap.add_argument("--warm", type=int, default=600, help="calls before counting")
    args = ap.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("machine_cost.py needs valgrind (callgrind); install it, e.g. "
              "`apt install valgrind`", file=sys.stderr)
        return 2
    print(f"jtorch from {os.path.abspath(args.src)}; instructions per call, "
          f"{args.steps} calls after {args.warm} warm-up calls, one XLA thread")
    for case in args.only:
        print(f"{case:12s} {count(case, os.path.abspath(args.src), args.steps, args.warm):12,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
