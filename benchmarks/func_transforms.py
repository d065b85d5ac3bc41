"""torch.func transforms: PyTorch vs jtorch (whole program compiled, the default) vs jtorch
op by op vs jtorch under torch.compile, measured in one process.

    python benchmarks/func_transforms.py           # full run
    python benchmarks/func_transforms.py --quick   # fewer, shorter repeats

Cases (float32, CPU):
  per_sample   vmap(grad(loss)) over a batch of 64 with functional_call on an MLP
               Linear(32,64)-Tanh-Linear(64,10) and cross-entropy (PyTorch's tutorial)
  jacrev       jacrev of the MLP's output with respect to a batch of 8 inputs
  hessian      hessian of a scalar function of a 16-vector (tanh of a matrix product)

"first" is the first call (tracing and compilation included); the others are medians over
repeats of (time of N calls) / N after warm-up, results waited for. A transform call
traces the user's function every time (its Python runs, as in PyTorch); under
``torch.compile`` the traced program is replayed while the guards hold.
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import jtorch  # noqa: E402
from jtorch.func import _program  # noqa: E402

_RNG = np.random.default_rng(0)
W1, B1 = _RNG.standard_normal((64, 32)) * 0.2, _RNG.standard_normal(64) * 0.1
W2, B2 = _RNG.standard_normal((10, 64)) * 0.2, _RNG.standard_normal(10) * 0.1
X = _RNG.standard_normal((64, 32))
Y = _RNG.integers(0, 10, 64)
V = _RNG.standard_normal(16)
M = _RNG.standard_normal((16, 16)) * 0.3


def _cases(t):
    f32 = t.float32
    params = {"0.weight": t.tensor(W1, dtype=f32), "0.bias": t.tensor(B1, dtype=f32),
              "2.weight": t.tensor(W2, dtype=f32), "2.bias": t.tensor(B2, dtype=f32)}
    model = t.nn.Sequential(t.nn.Linear(32, 64), t.nn.Tanh(), t.nn.Linear(64, 10))
    x, y = t.tensor(X, dtype=f32), t.tensor(Y)
    m, v = t.tensor(M, dtype=f32), t.tensor(V, dtype=f32)

    def loss(p, xi, yi):
        out = t.func.functional_call(model, p, (xi.unsqueeze(0),))
        return t.nn.functional.cross_entropy(out, yi.unsqueeze(0))

    per_sample = t.func.vmap(t.func.grad(loss), in_dims=(None, 0, 0))
    jac = t.func.jacrev(lambda xs: t.func.functional_call(model, params, (xs,)))
    hess = t.func.hessian(lambda v: (m @ v).tanh().pow(2).sum())
    return {"per_sample": lambda: per_sample(params, x, y), "jacrev": lambda: jac(x[:8]),
            "hessian": lambda: hess(v)}


def _wait(out):
    leaves = jax.tree.leaves(out, is_leaf=lambda a: isinstance(a, jtorch.Tensor))
    for leaf in leaves:
        if isinstance(leaf, jtorch.Tensor):
            jax.block_until_ready(leaf._value)


def _op_by_op(G, vals):
    raise _program.NeedsEager


def _mode(op_by_op: bool) -> None:
    """Switch jtorch.func between whole-program compilation and op-by-op execution."""
    _program.trace = _op_by_op if op_by_op else _TRACE
    _program.run = _op_by_op if op_by_op else _RUN


_TRACE, _RUN = _program.trace, _program.run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    repeats, n = (3, 5) if args.quick else (7, 20)
    torch.set_num_threads(1)
    cases = {"torch": _cases(torch), "jtorch": _cases(jtorch)}
    cases["compiled"] = {k: jtorch.compile(f) for k, f in _cases(jtorch).items()}
    modes = [("torch", "torch", False), ("jtorch", "jtorch", False),
             ("jtorch op by op", "jtorch", True), ("jtorch.compile", "compiled", False)]
    rows = {}
    for name in cases["torch"]:
        first, times = {}, {label: [] for label, _, _ in modes}
        for label, lib, op_by_op in modes:
            _mode(op_by_op)
            # op by op starts from fresh functions: nothing the compiled column made helps it
            fn = _cases(jtorch)[name] if op_by_op else cases[lib][name]
            t0 = time.perf_counter()
            _wait(fn())
            first[label] = time.perf_counter() - t0
        for _ in range(repeats):
            for label, lib, op_by_op in modes:
                _mode(op_by_op)
                t0 = time.perf_counter()
                for _ in range(n):
                    out = cases[lib][name]()
                _wait(out)
                times[label].append((time.perf_counter() - t0) / n)
        rows[name] = (first, {k: statistics.median(v) for k, v in times.items()})
    _mode(False)
    labels = [label for label, _, _ in modes]
    print(f"{'case':<12}" + "".join(f"{k:>18}" for k in labels) + "   first calls (ms)")
    for name, (first, med) in rows.items():
        print(f"{name:<12}" + "".join(f"{med[k] * 1e3:>15.2f} ms" for k in labels) + "   "
              + " / ".join(f"{first[k] * 1e3:.0f}" for k in labels))


if __name__ == "__main__":
    main()
