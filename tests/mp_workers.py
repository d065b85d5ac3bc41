"""Process bodies for test_multiprocessing.py: each is written once against a backend
module (``torch`` or ``jtorch``) so PyTorch's Hogwild and jtorch's run the same program."""

from __future__ import annotations

import importlib

import numpy as np

RNG = np.random.default_rng(21)
X = RNG.standard_normal((64, 4))
W_TRUE = np.array([[1.5], [-2.0], [0.5], [1.0]])
Y = X @ W_TRUE + 0.05 * RNG.standard_normal((64, 1))


def loss_of(t, model):
    with t.no_grad():
        x, y = t.tensor(X, dtype=t.float32), t.tensor(Y, dtype=t.float32)
        return float(((model(x) - y) ** 2).mean())


def hogwild_train(rank, backend, model, steps, lr):
    """One Hogwild worker: SGD on its own half of the data, on the shared model."""
    t = importlib.import_module(backend)
    x = t.tensor(X[rank::2], dtype=t.float32)
    y = t.tensor(Y[rank::2], dtype=t.float32)
    opt = t.optim.SGD(model.parameters(), lr=lr)
    for i in range(steps):
        opt.zero_grad()
        j = (4 * i) % 32
        ((model(x[j:j + 4]) - y[j:j + 4]) ** 2).mean().backward()
        opt.step()


def write_and_send(rank, shared, queue, event):
    """Write into the parent's shared tensor, send a tensor made here, then check that the
    parent's write into it is visible here; rank 1 fails at the end."""
    import jtorch

    shared[rank] += 10 * (rank + 1)
    mine = jtorch.full((3,), float(rank))
    queue.put((rank, mine, shared.is_shared()))
    event.wait(120)
    queue.put((rank, mine.tolist(), mine.is_shared()))
    if rank == 1:
        raise ValueError("rank 1 failed on purpose")
