"""Convolution, pooling and BatchNorm kernels per layer: PyTorch vs XLA:CPU lowerings.

    python benchmarks/conv_layers.py           # full run
    python benchmarks/conv_layers.py --quick   # fewer repeats

The layers of ``examples/cnn_digits.py`` (batch 64, 8x8 digits) and of the PyTorch MNIST
example's CNN (``tests/programs/mnist_cnn.py``, batch 64, 28x28), float32, one thread for
every library (PyTorch's ``set_num_threads(1)``; XLA's flags are set before JAX starts).
Each cell is the median ms of a forward (``fwd``) or of a forward plus the gradients with
respect to input and parameters (``f+b``). Columns: PyTorch eager; ``jtorch`` (the eager
op, dispatch included); then jitted JAX variants of the same math: ``jtorch.functional``'s
lowering, and the alternatives tried (NHWC layout, im2col + matmul for convolutions, a
reshape window for non-overlapping max pooling).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
_XLA_ONE_THREAD = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_XLA_ONE_THREAD}".strip()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from jax import lax  # noqa: E402

import jtorch  # noqa: E402
from jtorch.functional import conv as FC  # noqa: E402
from jtorch.functional import normalization as FN  # noqa: E402
from jtorch.functional import pooling as FP  # noqa: E402

B = 64
# name: (kind, input shape, params)
LAYERS = {
    "digits conv1 1->16 8x8 p1": ("conv", (B, 1, 8, 8), dict(out=16, k=3, pad=1)),
    "digits bn1 16x8x8": ("bn", (B, 16, 8, 8), {}),
    "digits pool 16x8x8": ("pool", (B, 16, 8, 8), {}),
    "digits conv2 16->32 4x4 p1": ("conv", (B, 16, 4, 4), dict(out=32, k=3, pad=1)),
    "mnist conv1 1->32 28x28": ("conv", (B, 1, 28, 28), dict(out=32, k=3, pad=0)),
    "mnist conv2 32->64 26x26": ("conv", (B, 32, 26, 26), dict(out=64, k=3, pad=0)),
    "mnist pool 64x24x24": ("pool", (B, 64, 24, 24), {}),
}


# ------------------------------------------------------------------ JAX lowerings


def conv_nhwc(x, w, b, pad):
    out = lax.conv_general_dilated(
        jnp.transpose(x, (0, 2, 3, 1)), jnp.transpose(w, (2, 3, 1, 0)), (1, 1),
        ((pad, pad), (pad, pad)), dimension_numbers=("NHWC", "HWIO", "NHWC"),
        precision=lax.Precision.HIGHEST)
    return jnp.transpose(out, (0, 3, 1, 2)) + b[:, None, None]


def conv_im2col(x, w, b, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = jnp.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    ho, wo = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    cols = jnp.stack([xp[:, :, i:i + ho, j:j + wo] for i in range(kh) for j in range(kw)], 2)
    cols = cols.reshape(n, c * kh * kw, ho * wo)  # (N, C*K, P)
    out = jnp.einsum("ok,nkp->nop", w.reshape(o, -1), cols, precision=lax.Precision.HIGHEST)
    return out.reshape(n, o, ho, wo) + b[:, None, None]


def pool_reshape(x):
    n, c, h, w = x.shape
    win = x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
    return win


def pool_reduce_window(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


def _jax_variants(kind, params):
    if kind == "conv":
        pad = params["pad"]
        return {
            "functional": lambda x, w, b: FC.conv2d(x, w, b, 1, pad),
            "nhwc": lambda x, w, b: conv_nhwc(x, w, b, pad),
            "im2col": lambda x, w, b: conv_im2col(x, w, b, pad),
        }
    if kind == "pool":
        return {
            "functional": lambda x: FP.max_pool2d_with_indices(x, 2)[0],
            "reshape": pool_reshape,
            "reduce_window": pool_reduce_window,
        }
    return {"functional": lambda x, w, b: FN.batch_norm(x, w, b, None, None, True)[0]}


# ------------------------------------------------------------------ cases


def _inputs(kind, shape, params, rng):
    x = rng.standard_normal(shape).astype(np.float32)
    if kind == "conv":
        c = shape[1]
        w = (rng.standard_normal((params["out"], c, params["k"], params["k"])) /
             np.sqrt(c * 9)).astype(np.float32)
        return [x, w, rng.standard_normal(params["out"]).astype(np.float32)]
    if kind == "bn":
        c = shape[1]
        return [x, np.ones(c, np.float32), np.zeros(c, np.float32)]
    return [x]


def _torch_fn(lib, kind, params):
    F = lib.nn.functional
    if kind == "conv":
        return lambda x, w, b: F.conv2d(x, w, b, padding=params["pad"])
    if kind == "pool":
        return lambda x: F.max_pool2d(x, 2)
    return lambda x, w, b: F.batch_norm(x, None, None, w, b, True)


def _eager_case(lib, fn, arrays, grad):
    ts = [lib.tensor(a, requires_grad=grad) for a in arrays]
    probe = fn(*ts)
    cot = lib.tensor(np.random.default_rng(1).standard_normal(tuple(probe.shape))
                     .astype(np.float32))

    def run():
        if not grad:
            with lib.no_grad():
                return fn(*ts)
        for t in ts:
            t.grad = None
        (fn(*ts) * cot).sum().backward()
        return ts[0].grad

    return run


def _jax_case(fn, arrays, grad):
    xs = [jnp.asarray(a) for a in arrays]
    cot = jnp.asarray(np.random.default_rng(1).standard_normal(fn(*xs).shape)
                      .astype(np.float32))
    if not grad:
        f = jax.jit(fn)
        return lambda: f(*xs)
    g = jax.jit(jax.grad(lambda *a: jnp.sum(fn(*a) * cot), argnums=tuple(range(len(xs)))))
    return lambda: g(*xs)


def _sync(r):
    if isinstance(r, jtorch.Tensor):
        r = r._value
    if isinstance(r, jax.Array | tuple):
        jax.block_until_ready(r)


def measure(run, n, repeats) -> float:
    for _ in range(3):
        _sync(run())
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(n):
            r = run()
        _sync(r)
        times.append((time.perf_counter() - start) / n * 1e3)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n, repeats = (5, 3) if args.quick else (20, 7)
    torch.set_num_threads(1)
    print(f"torch {torch.__version__} ({torch.get_num_threads()} thread), jax {jax.__version__}"
          f" (XLA_FLAGS={os.environ['XLA_FLAGS']!r}); median ms, {repeats} repeats of {n}; "
          f"load {os.getloadavg()[0]:.1f}")
    rng = np.random.default_rng(0)
    for name, (kind, shape, params) in LAYERS.items():
        arrays = _inputs(kind, shape, params, rng)
        variants = _jax_variants(kind, params)
        print(f"\n{name}")
        print(f"  {'':5} {'torch':>8} {'jtorch':>8} " + " ".join(f"{v:>13}" for v in variants))
        for grad in (False, True):
            cells = [measure(_eager_case(lib, _torch_fn(lib, kind, params), arrays, grad), n,
                             repeats) for lib in (torch, jtorch)]
            cells += [measure(_jax_case(fn, arrays, grad), n, repeats)
                      for fn in variants.values()]
            label = "f+b" if grad else "fwd"
            print(f"  {label:5} " + " ".join(f"{c:8.3f}" for c in cells[:2]) + " " +
                  " ".join(f"{c:13.3f}" for c in cells[2:]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
