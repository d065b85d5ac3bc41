"""jtorch's Python work per eager call, counted: bytecode instructions and function calls.

    python benchmarks/python_cost.py                  # every case, top 12 functions each
    python benchmarks/python_cost.py --only polynomial --top 30

On a small op, jtorch's eager cost is its Python bookkeeping (dispatch, recording, the
autograd graph), and wall-clock A/B runs of a change to it swing by 10-30% on a shared
machine. A count of the bytecode instructions the interpreter runs for one call, taken
after warm-up (segments fused, backward programs in use), is the same on every run, so a
trim of a few percent shows. It is a proxy: an instruction averages ~15 ns here, a C call
inside one (a dict lookup, a JAX dispatch) counts once, so confirm a change with the
timed benchmarks (``eager_ops.py``, ``training_step.py``, ``programs.py``).

Cases (the main thread only; a background compile thread is not traced):
  add         ``a + b``, 64x64 float32, in a loop (recorded, its segments fused)
  fwd+bwd     ``((w * x).exp().sum()).backward()`` into w, grad reset each call
  polynomial  a step of ``tests/programs/polynomial.py`` (forward, backward, updates), as
              ``lazy_ops.py`` times it
  mlp         one step of a 2-layer MLP: forward, cross-entropy, backward, SGD, zero_grad
"""

from __future__ import annotations

import argparse
import collections
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jtorch as torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lazy_ops  # noqa: E402

WARMUP = 600  # past the fusing of segments (150th sighting) and backwards (75th)
CALLS = 50


def _add():
    a, b = torch.randn(64, 64), torch.randn(64, 64)
    return lambda: a + b


def _fwd_bwd():
    w = torch.randn(64, 64, requires_grad=True)
    x = torch.randn(64, 64)

    def step():
        w.grad = None
        (w * x).exp().sum().backward()

    return step


def _polynomial():
    return lazy_ops.polynomial(torch)  # the step ``lazy_ops.py`` times


def _mlp():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(32, 64), torch.randint(0, 10, (32,))

    def step():
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()

    return step


CASES = {"add": _add, "fwd+bwd": _fwd_bwd, "polynomial": _polynomial, "mlp": _mlp}


def count(fn, calls: int = CALLS):
    """(instructions per call, function calls per call, Counter of instructions by
    function) over ``calls`` calls of ``fn``, on this thread."""
    by_fn: collections.Counter = collections.Counter()
    frames = [0]

    def tracer(frame, event, arg):
        if event == "call":
            frames[0] += 1
            frame.f_trace_opcodes = True
            return tracer
        if event == "opcode":
            by_fn[frame.f_code] += 1
        return tracer

    sys.settrace(tracer)
    try:
        for _ in range(calls):
            fn()
    finally:
        sys.settrace(None)
    total = sum(by_fn.values())
    return total / calls, frames[0] / calls, by_fn


def _where(code) -> str:
    path = code.co_filename
    path = path.split("/src/", 1)[-1] if "/src/" in path else os.path.basename(path)
    return f"{path}:{code.co_firstlineno} {code.co_name}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", choices=sorted(CASES), help="these cases")
    ap.add_argument("--top", type=int, default=12, help="functions listed per case")
    args = ap.parse_args()
    print(f"jtorch {torch.__version__}, python {sys.version.split()[0]}; per call after "
          f"{WARMUP} warm-up calls, counted over {CALLS}")
    for name in args.only or list(CASES):
        step = CASES[name]()
        for _ in range(WARMUP):
            step()
        per_call, frames, by_fn = count(step)
        print(f"\n{name}: {per_call:,.0f} instructions, {frames:,.0f} Python function calls")
        for code, n in by_fn.most_common(args.top):
            print(f"  {n / CALLS:8.1f}  {_where(code)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
