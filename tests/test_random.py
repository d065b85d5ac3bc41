"""Random ops: shapes, dtypes, errors and gradients against PyTorch; values by statistics
(the streams differ from PyTorch's) and reproducibility by seed."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from conftest import check, counting_compiles

import jtorch

N = 4000


def _shape_dtype(r):
    if isinstance(r, tuple | list):
        return [_shape_dtype(x) for x in r]
    return tuple(r.shape), str(r.dtype).removeprefix("torch.")


def check_meta(program):
    """Compare shapes, dtypes and exception classes only (values are random)."""
    check(lambda t: _shape_dtype(program(t)))


_DRAWS = {
    "randperm": lambda t: (t.randperm(5), t.randperm(4, dtype=t.float32), t.randperm(0)),
    "normal": lambda t: (t.normal(t.zeros(2, 3), 1.0), t.normal(0.5, t.ones(3)),
                         t.normal(t.zeros(3), t.ones(2, 1)), t.normal(0.0, 2.0, (2, 3)),
                         t.normal(0.0, 1.0, size=(2,), dtype=t.float64),
                         t.normal(t.zeros(2, dtype=t.float64), 1.0)),
    "bernoulli": lambda t: (t.bernoulli(t.full((2, 3), 0.5)), t.bernoulli(t.zeros(3), 0.3),
                            t.zeros(3, dtype=t.float64).bernoulli(),
                            t.zeros(3, dtype=t.int64).bernoulli_(0.5),
                            t.zeros(3).bernoulli_(t.full((3,), 0.5))),
    "poisson": lambda t: t.poisson(t.ones(2, 3, dtype=t.float64)),
    "multinomial": lambda t: (t.multinomial(t.tensor([0.2, 0.0, 0.8]), 3),
                              t.multinomial(t.tensor([[1.0, 2.0], [3.0, 4.0]]), 5, True),
                              t.tensor([1.0, 2.0]).multinomial(1)),
    "like": lambda t: (t.rand_like(t.zeros(2, dtype=t.float64)), t.randn_like(t.zeros(3)),
                       t.randint_like(t.zeros(2, 2), 10), t.randint_like(t.zeros(2), 3, 5),
                       t.randint_like(t.zeros(2, dtype=t.int32), high=4)),
    "inplace": lambda t: [getattr(t.zeros(3, dtype=t.float64), m)(*a) for m, a in (
        ("exponential_", ()), ("geometric_", (0.3,)), ("log_normal_", ()), ("cauchy_", ()),
        ("random_", ()), ("random_", (10,)), ("random_", (3, 10)), ("uniform_", (2, 3)),
        ("normal_", (1, 2)))],
    "random_int": lambda t: [t.zeros(3, dtype=d).random_() for d in (t.int64, t.int16,
                                                                      t.uint8, t.bool)],
}


@pytest.mark.parametrize("name", list(_DRAWS))
def test_shapes_and_dtypes(name):
    check_meta(_DRAWS[name])


_ERRORS = [
    lambda t: t.bernoulli(t.tensor([0.5, 1.5])),
    lambda t: t.bernoulli(t.tensor([0.5, 0.2]), 1.5),
    lambda t: t.bernoulli(t.tensor([1, 0])),
    lambda t: t.zeros(3).bernoulli_(t.tensor([0.5, 1.0])),
    lambda t: t.multinomial(t.tensor([0.2, 0.0, 0.8]), 4),
    lambda t: t.multinomial(t.tensor([0.2, -1, 0.8]), 1),
    lambda t: t.multinomial(t.tensor([0.0, 0, 0]), 1),
    lambda t: t.multinomial(t.tensor([1, 2]), 1),
    lambda t: t.multinomial(t.tensor(1.0), 1),
    lambda t: t.multinomial(t.tensor([1.0, 2]), 0),
    lambda t: t.multinomial(t.tensor([1.0, float("inf")]), 1),
    lambda t: t.poisson(t.tensor([1.0, -2])),
    lambda t: t.poisson(t.tensor([1, 2])),
    lambda t: t.normal(t.tensor([1.0, 2]), t.tensor([1.0, -1])),
    lambda t: t.normal(t.tensor([1.0, 2]), -1.0),
    lambda t: t.normal(t.tensor([1.0, 2]), t.tensor([1.0, 2, 3])),
    lambda t: t.normal(0.0, 1.0),
    lambda t: t.normal(t.tensor([1, 2]), 2.0),
    lambda t: t.randperm(-1),
    lambda t: t.randperm(3, dtype=t.bool),
    lambda t: t.zeros(3, dtype=t.uint8).random_(-5, 0),
    lambda t: t.zeros(3).random_(5, 2),
    lambda t: t.zeros(3).geometric_(1.5),
    lambda t: t.zeros(3).exponential_(-1),
    lambda t: t.zeros(3).log_normal_(1, -1),
    lambda t: t.zeros(3).cauchy_(0, -1),
    lambda t: t.zeros(3, dtype=t.int64).cauchy_(),
    lambda t: t.zeros(3, dtype=t.int64).exponential_(),
    lambda t: t.zeros(3, dtype=t.int64).log_normal_(),
    lambda t: t.zeros(3, dtype=t.bool).geometric_(0.5),
    lambda t: t.zeros(3).uniform_(2, 1),
    lambda t: t.zeros(3, dtype=t.int64).normal_(),
    lambda t: t.randint_like(t.zeros(2), 0),
]


def test_errors():
    for program in _ERRORS:
        check(program, raises=Exception)


def test_gradients_are_zero_as_in_pytorch():
    def prog(t):
        m = t.tensor([1.0, 2.0], requires_grad=True)
        s = t.tensor([1.0, 2.0], requires_grad=True)
        p = t.tensor([0.3, 0.6], requires_grad=True)
        outs = [t.normal(m, s), t.normal(m, 2.0), t.normal(0.0, s), t.bernoulli(p),
                t.poisson(s)]
        sum(o.sum() for o in outs).backward()
        return [o.grad_fn.name() for o in outs], m.grad, s.grad, p.grad

    check(prog)


def _stats(x):
    return float(x.double().mean()), float(x.double().std())


@pytest.mark.parametrize("draw, mean, std", [
    (lambda t: t.normal(t.full((N,), 2.0), 3.0), 2.0, 3.0),
    (lambda t: t.normal(1.0, 0.5, (N,)), 1.0, 0.5),
    (lambda t: t.zeros(N).exponential_(2.0), 0.5, 0.5),
    (lambda t: t.zeros(N).geometric_(0.25), 4.0, np.sqrt(0.75) / 0.25),
    (lambda t: t.zeros(N).log_normal_(0.0, 0.25), np.exp(0.25**2 / 2),
     np.sqrt((np.exp(0.25**2) - 1) * np.exp(0.25**2))),
    (lambda t: t.bernoulli(t.full((N,), 0.3)), 0.3, np.sqrt(0.21)),
    (lambda t: t.poisson(t.full((N,), 4.0)), 4.0, 2.0),
    (lambda t: t.zeros(N).random_(0, 10), 4.5, np.sqrt(99 / 12)),
    (lambda t: t.randperm(N).float(), (N - 1) / 2, np.sqrt((N**2 - 1) / 12)),
    (lambda t: t.zeros(N).uniform_(-1, 3), 1.0, 4 / np.sqrt(12)),
])
def test_statistics(draw, mean, std):
    jtorch.manual_seed(1)
    m, s = _stats(draw(jtorch))
    assert abs(m - mean) < 5 * std / np.sqrt(N), (m, mean)
    assert abs(s - std) < 0.1 * std, (s, std)


def test_cauchy_median():
    jtorch.manual_seed(2)
    x = jtorch.zeros(N).cauchy_(1.0, 2.0)
    assert abs(float(x.median()) - 1.0) < 0.2
    q = np.quantile(x.numpy(), [0.25, 0.75])
    assert np.allclose(q, [-1.0, 3.0], atol=0.4)


def test_multinomial_frequencies_and_no_repeats():
    jtorch.manual_seed(3)
    p = jtorch.tensor([0.1, 0.0, 0.6, 0.3])
    draws = jtorch.multinomial(p, N, replacement=True).numpy()
    freq = np.bincount(draws, minlength=4) / N
    assert np.allclose(freq, p.numpy(), atol=0.03)
    rows = jtorch.multinomial(p.expand(200, 4).contiguous(), 4).numpy()
    assert all(sorted(r) == [0, 1, 2, 3] for r in rows)
    assert (rows[:, 3] == 1).all()  # the zero-probability category is drawn last
    first = np.bincount(rows[:, 0], minlength=4) / 200
    assert first[2] > first[3] > first[0]


def test_randperm_is_a_permutation():
    assert sorted(jtorch.randperm(50).tolist()) == list(range(50))


def test_seed_and_generators_reproduce():
    def draws(gen=None):
        kw = {"generator": gen}
        x = jtorch.zeros(4)
        return [jtorch.randn(3, **kw), jtorch.normal(jtorch.zeros(3), 1.0, **kw),
                jtorch.bernoulli(jtorch.full((4,), 0.5), **kw), jtorch.randperm(6, **kw),
                jtorch.multinomial(jtorch.ones(5), 3, **kw), jtorch.poisson(jtorch.ones(3), **kw),
                x.exponential_(generator=gen).clone(), x.random_(0, 100, generator=gen).clone(),
                jtorch.randint_like(x, 10, generator=gen)]

    def same(a, b):
        return all(np.array_equal(x.numpy(), y.numpy()) for x, y in zip(a, b, strict=True))

    jtorch.manual_seed(7)
    a = draws()
    jtorch.manual_seed(7)
    assert same(a, draws())
    state = jtorch.get_rng_state()
    b = draws()
    jtorch.set_rng_state(state)
    assert same(b, draws())
    assert not same(a, b)
    g = jtorch.Generator().manual_seed(11)
    c = draws(g)
    g.manual_seed(11)
    jtorch.manual_seed(0)  # the global stream does not affect a generator's
    assert same(c, draws(g))




def test_default_seed_differs_per_process_and_manual_seed_reproduces():
    """PyTorch seeds its default generator non-deterministically in each process (a fresh
    Generator keeps the fixed default seed); manual_seed reproduces a stream."""
    import json
    import subprocess
    import sys

    import torch

    code = ("import json, jtorch; s = jtorch.initial_seed(); jtorch.manual_seed(5); "
            "print(json.dumps([s, jtorch.rand(2).tolist(), jtorch.Generator().initial_seed()]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seed, drawn, fresh = json.loads(out.stdout)
    assert fresh == torch.Generator().initial_seed() == jtorch.Generator().initial_seed()
    assert seed not in (fresh, jtorch.initial_seed())
    assert drawn == jtorch.rand(2, generator=jtorch.Generator().manual_seed(5)).tolist()


@pytest.mark.parametrize("seed", [0, 7, 2**31, 2**32 - 1, 2**32 + 5, 67280421310721,
                                  2**63, 2**64 - 1, -1, -(2**63)])
def test_the_key_is_jax_prngkey_built_on_the_host(seed):
    """A generator's key is exactly ``PRNGKey(seed)``'s data (so every stream is as
    before), built without compiling JAX's seeding programs."""
    g = jtorch.Generator().manual_seed(seed)
    with counting_compiles() as compiles:
        key, counter = g._peek()
    assert compiles == [] and counter == 0
    with jax.ensure_compile_time_eval():
        expected = jax.random.key_data(jax.random.PRNGKey(np.uint64(seed % 2**64)))
    assert key.dtype == expected.dtype and key.shape == expected.shape
    assert (key.weak_type, key.committed) == (expected.weak_type, expected.committed)
    assert np.array_equal(np.asarray(key), np.asarray(expected))


def test_counter_streams_are_uniform_normal_and_independent():
    """The SplitMix64 streams behind rand/randn/uniform_/normal_/randint/randperm: the
    right distribution (Kolmogorov-Smirnov against the exact law), no correlation between
    neighbours or between successive draws, and complex and half dtypes as PyTorch's."""
    from scipy import stats

    jtorch.manual_seed(123)
    n = 20000
    for dtype in (jtorch.float32, jtorch.float64):
        u, v = jtorch.rand(n, dtype=dtype).numpy(), jtorch.rand(n, dtype=dtype).numpy()
        assert 0 <= u.min() and u.max() < 1
        assert stats.kstest(u, "uniform").pvalue > 1e-4
        z, w = jtorch.randn(n, dtype=dtype).numpy(), jtorch.randn(n, dtype=dtype).numpy()
        assert np.isfinite(z).all() and stats.kstest(z, "norm").pvalue > 1e-4
        for a, b in ((u[1:], u[:-1]), (u, v), (z[1:], z[:-1]), (z, w)):
            assert abs(np.corrcoef(a, b)[0, 1]) < 5 / np.sqrt(n)
    # Parameters filled in chunks: each chunk its own stream.
    big = jtorch.empty(3 * 2**14 + 5).normal_().numpy()
    assert stats.kstest(big, "norm").pvalue > 1e-4
    assert abs(np.corrcoef(big[:2**14], big[2**14:2**15])[0, 1]) < 5 / 2**7
    ints = jtorch.randint(3, 10, (n,)).numpy()
    assert set(np.unique(ints)) == set(range(3, 10))
    assert stats.chisquare(np.bincount(ints - 3)).pvalue > 1e-4
    positions = np.stack([jtorch.randperm(8).numpy() for _ in range(400)])
    assert (np.sort(positions, axis=1) == np.arange(8)).all()
    assert stats.chisquare(np.bincount(positions[:, 0], minlength=8)).pvalue > 1e-4
    full = jtorch.empty(n, dtype=jtorch.int64).random_(-(2**63), 2**63 - 1).numpy()
    assert (full < -(2**62)).mean() > 0.2 and (full > 2**62).mean() > 0.2
    check_meta(lambda t: [t.randn(3, dtype=d) for d in (t.complex64, t.complex128,
                                                          t.float16, t.bfloat16)]
               + [t.rand(2, dtype=t.complex64), t.zeros(2, dtype=t.complex64).normal_()])


def test_common_draws_do_not_compile_threefry():
    """The kernels a training script's draws compile (parameter fills, rand/randn, randint,
    randperm, bernoulli, dropout) fold keys and draw bits without JAX's threefry, which
    costs XLA:CPU 0.25-0.35 s to compile per kernel against 0.05-0.09 s."""
    from jtorch import _registry
    from jtorch._api import nn_random
    from jtorch.eager import random_ops

    specs = _registry.REGISTRY
    key = jtorch.Generator().manual_seed(0)._peek()[0]
    kernels = [random_ops._draw_kernel(name, specs[name].fn, args, {"dtype": None})[1]
               for name, args in (("rand", ((5,),)), ("randn", ((5,),)),
                                  ("randperm", (6,)))]
    kernels.append(functools_partial(
        random_ops._draw_kernel("randint", specs["randint"].fn, ((5,),),
                                {"dtype": None})[1], ops=(0, 10)))
    for name in ("uniform_", "normal_"):
        kernels.append(functools_partial(random_ops._fill_kernel(specs[name].fn, 64,
                                                                 np.float32),
                                         ops=(np.uint32(0), 0.0, 1.0)))
    x = jtorch.zeros(4)
    jtorch.nn.functional.dropout(x, 0.3)
    dropout = nn_random._KERNELS[("dropout", 0.3, False, False)]
    kernels.append(lambda k, c: dropout(x._value, k, c))
    bernoulli = random_ops._inplace_kernel(specs["bernoulli_"], {})[1]
    kernels.append(lambda k, c: bernoulli(x._value, k, c, 0.5))
    random_ = random_ops._inplace_kernel(specs["random_"], {})[1]
    kernels.append(lambda k, c: random_(x._value.astype("int64"), k, c, 0, 2**63))
    for kernel in kernels:
        text = str(jax.make_jaxpr(kernel)(key, 3))
        assert "random_" not in text and "threefry" not in text, text[:300]


def functools_partial(kernel, ops):
    return lambda k, c: kernel(k, c, *ops)
