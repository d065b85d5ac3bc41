"""One training step (forward, backward, optimizer update): jtorch eager vs PyTorch eager vs
hand-written jitted JAX, measured in one process.

    python benchmarks/training_step.py           # full run
    python benchmarks/training_step.py --quick   # fewer, shorter repeats

Cases (float32, CPU, batch 64):
  mlp   Linear(64,256)-ReLU-Linear(256,256)-ReLU-Linear(256,10), cross-entropy, Adam
  cnn   Conv(1,16,3)-BN-ReLU-MaxPool-Conv(16,32,3)-ReLU-MaxPool-Linear(128,64)-ReLU-
        Linear(64,10) on 8x8 images (examples/cnn_digits.py's model), cross-entropy, Adam

Each figure is the median over repeats of (time of N steps) / N after warm-up; jtorch and
JAX results are waited for at the end of every batch. JAX's column is the whole step as
one jitted function: the floor that eager dispatch overhead is measured against.
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# One thread for every library, set the same way as benchmarks/programs.py: XLA's CPU
# thread pool through XLA_FLAGS (read when JAX starts), PyTorch's by set_num_threads below.
ONE_THREAD_XLA = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {ONE_THREAD_XLA}".strip()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import jtorch  # noqa: E402

BATCH = 64


def mlp(t):
    nn = t.nn
    return nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                         nn.Linear(256, 10))


def cnn(t):
    nn = t.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))


SHAPES = {"mlp": (BATCH, 64), "cnn": (BATCH, 1, 8, 8)}
MODELS = {"mlp": mlp, "cnn": cnn}


def eager_step(t, case):
    t.manual_seed(0)
    model = MODELS[case](t)
    opt = t.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    x = t.tensor(rng.standard_normal(SHAPES[case]).astype(np.float32))
    y = t.tensor(rng.integers(0, 10, BATCH))

    def step():
        opt.zero_grad()
        loss = t.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def jax_mlp_step():
    """The MLP step written directly in JAX: jit(grad) plus a hand-written Adam."""
    key = jax.random.PRNGKey(0)
    sizes = [(64, 256), (256, 256), (256, 10)]
    params = []
    for i, (a, b) in enumerate(sizes):
        k = jax.random.fold_in(key, i)
        params.append((jax.random.normal(k, (a, b)) / np.sqrt(a), jnp.zeros(b)))
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal(SHAPES["mlp"]).astype(np.float32))
    y = jnp.asarray(rng.integers(0, 10, BATCH))

    def loss_fn(ps):
        h = x
        for i, (w, b) in enumerate(ps):
            h = h @ w + b
            if i < len(ps) - 1:
                h = jax.nn.relu(h)
        return -jnp.mean(jax.nn.log_softmax(h)[jnp.arange(BATCH), y])

    @jax.jit
    def step(ps, m, v, n):
        loss, g = jax.value_and_grad(loss_fn)(ps)
        m = jax.tree.map(lambda a, b: 0.9 * a + 0.1 * b, m, g)
        v = jax.tree.map(lambda a, b: 0.999 * a + 0.001 * b * b, v, g)
        c1, c2 = 1 - 0.9**n, 1 - 0.999**n
        ps = jax.tree.map(lambda p, a, b: p - 1e-3 * (a / c1) / (jnp.sqrt(b / c2) + 1e-8),
                          ps, m, v)
        return ps, m, v, loss

    state = [params, jax.tree.map(jnp.zeros_like, params), jax.tree.map(jnp.zeros_like, params),
             1]

    def run():
        state[0], state[1], state[2], loss = step(*state[:3], float(state[3]))
        state[3] += 1
        return loss

    return run


def _sync(x):
    if isinstance(x, jtorch.Tensor):
        x._value.block_until_ready()
    elif isinstance(x, jax.Array):
        x.block_until_ready()


def measure(step, n, repeats):
    for _ in range(3):
        _sync(step())
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(n):
            r = step()
        _sync(r)
        times.append((time.perf_counter() - start) / n)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n, repeats = (5, 3) if args.quick else (20, 7)
    torch.set_num_threads(1)
    print(f"training step, batch {BATCH}, float32, CPU; median ms per step "
          f"({repeats} repeats of {n})")
    print(f"threads: PyTorch {torch.get_num_threads()} (set_num_threads), XLA "
          f"XLA_FLAGS={os.environ['XLA_FLAGS']!r}")
    print(f"{'case':6} {'torch':>9} {'jtorch':>9} {'jax.jit':>9} {'jtorch/torch':>13}")
    for case in ("mlp", "cnn"):
        t_torch = measure(eager_step(torch, case), n, repeats) * 1e3
        t_jt = measure(eager_step(jtorch, case), n, repeats) * 1e3
        t_jax = measure(jax_mlp_step(), n, repeats) * 1e3 if case == "mlp" else float("nan")
        print(f"{case:6} {t_torch:9.2f} {t_jt:9.2f} {t_jax:9.2f} {t_jt / t_torch:12.1f}x")


if __name__ == "__main__":
    main()
