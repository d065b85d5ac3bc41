"""Creation: random sampling semantics (rand/randn/randint/randperm/normal/bernoulli and
friends: shapes, dtypes, ranges, generators, seeds and errors), against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check, error_of, raising

# ------------------------------------------------------------------ random


def test_manual_seed_reproducible(tt):
    tt.manual_seed(123)
    a, b = tt.rand(6), tt.randn(2, 3)
    c = tt.randint(0, 100, (6,))
    tt.manual_seed(123)
    assert a.tolist() == tt.rand(6).tolist()
    assert b.tolist() == tt.randn(2, 3).tolist()
    assert c.tolist() == tt.randint(0, 100, (6,)).tolist()
    tt.manual_seed(124)
    assert a.tolist() != tt.rand(6).tolist()
    assert tt.rand(6).tolist() != tt.rand(6).tolist()  # consecutive draws differ
    assert tt.randn(6).tolist() != tt.randn(6).tolist()


def test_manual_seed_returns_generator_and_initial_seed(tt):
    g = tt.manual_seed(42)
    assert isinstance(g, tt.Generator)
    assert tt.initial_seed() == 42
    assert g.initial_seed() == 42
    g2 = tt.Generator().manual_seed(7)
    assert g2.initial_seed() == 7 and tt.initial_seed() == 42
    s = tt.seed()
    assert isinstance(s, int) and tt.initial_seed() == s


@pytest.mark.parametrize(
    "make",
    [lambda t: t.rand(2, 3), lambda t: t.rand((2, 3)), lambda t: t.randn([2, 3]),
     lambda t: t.rand(t.Size([2, 3])), lambda t: t.randn(2, 3, dtype=t.float64),
     lambda t: t.rand(2, 3, dtype=t.float16), lambda t: t.randn(size=(2, 3))],
)
def test_rand_randn_shapes_dtypes(make):
    check(lambda torch: (make(torch).shape, make(torch).dtype))


def test_rand_range(tt):
    tt.manual_seed(0)
    x = tt.rand(2000, dtype=tt.float64)
    v = np.asarray(x.tolist())
    assert (v >= 0).all() and (v < 1).all()
    assert abs(v.mean() - 0.5) < 0.05
    y = np.asarray(tt.randn(2000).tolist())
    assert abs(y.mean()) < 0.1 and abs(y.std() - 1) < 0.1


def test_randn_default_dtype(tt):
    tt.set_default_dtype(tt.float64)
    assert tt.rand(6).dtype == tt.float64 and tt.randn(6).dtype == tt.float64
    assert tt.randn(6, dtype=tt.float32).dtype == tt.float32


@pytest.mark.parametrize(
    "args, kwargs",
    [((10, (2, 3)), {}), ((5, 10, (2, 3)), {}), ((-3, 3, [2, 3]), {}),
     ((10, (2, 3)), {"dtype": "int32"}), ((0, 2, (2, 3)), {"dtype": "uint8"}),
     ((10, (2, 3)), {"dtype": "float32"}), ((3, (0,)), {}), ((0, 2, (2, 3)), {"dtype": "bool"})],
    ids=repr,
)
def test_randint(args, kwargs):
    def prog(torch):
        kw = {k: getattr(torch, v) for k, v in kwargs.items()}
        x = torch.randint(*args, **kw)
        lo, hi = (0, args[0]) if len(args) == 2 else args[:2]
        v = np.asarray(x.tolist(), dtype=np.float64)
        return x.shape, x.dtype, bool(((v >= lo) & (v < hi) & (v == np.round(v))).all())

    check(prog)


def test_randint_covers_range(tt):
    tt.manual_seed(0)
    x = tt.randint(-2, 3, (2000,))
    assert sorted(set(x.tolist())) == [-2, -1, 0, 1, 2]


def test_randint_size_keyword():
    check(lambda torch: (torch.randint(3, size=(2, 3)).shape,
                         torch.randint(1, 3, size=(2, 3)).dtype,
                         torch.randint(low=1, high=3, size=(2, 3)).shape))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_normal_inplace(dtype):
    def prog(torch):
        torch.manual_seed(0)
        x = torch.zeros(2000, dtype=getattr(torch, dtype))
        v0 = x._version
        r = x.uniform_(-2, 3)
        v1 = x._version
        u = np.asarray(x.tolist())
        y = torch.zeros(2000, dtype=getattr(torch, dtype))
        y.normal_(5.0, 2.0)
        n = np.asarray(y.tolist())
        return (r is x, v0, v1, y._version, x.dtype, bool((u >= -2).all() and (u < 3).all()),
                abs(u.mean() - 0.5) < 0.15, abs(n.mean() - 5) < 0.2, abs(n.std() - 2) < 0.2)

    check(prog)


def test_uniform_normal_defaults_and_views():
    def prog(torch):
        x = torch.zeros(4, 500)
        x[1].uniform_()
        x[2].normal_()
        rows = np.asarray(x.tolist())
        return (bool((rows[0] == 0).all() and (rows[3] == 0).all()),
                bool((rows[1] >= 0).all() and (rows[1] < 1).all()), bool((rows[2] != 0).all()),
                x._version, rows[2].std() > 0.8, rows[2].min() < 0)

    check(prog)


def test_generator_independent_of_global(tt):
    g1 = tt.Generator().manual_seed(5)
    a = tt.rand(6, generator=g1)
    tt.manual_seed(0)
    g2 = tt.Generator().manual_seed(5)
    tt.rand(6)  # draws from the global generator do not advance g2
    b = tt.rand(6, generator=g2)
    assert a.tolist() == b.tolist()
    tt.manual_seed(0)
    x = tt.rand(6)
    tt.manual_seed(0)
    tt.randn(6, generator=tt.Generator().manual_seed(1))  # nor does g advance the global
    assert tt.rand(6).tolist() == x.tolist()


def test_generator_in_randint_randn_and_inplace(tt):
    def draws(seed):
        g = tt.Generator().manual_seed(seed)
        z = tt.zeros(6)
        z.normal_(generator=g)
        w = tt.zeros(6).uniform_(generator=g)
        return (tt.randn(6, generator=g).tolist(), tt.randint(0, 99, (6,), generator=g).tolist(),
                z.tolist(), w.tolist())

    assert draws(1) == draws(1)
    assert draws(1) != draws(2)


def test_generator_device_and_state(tt):
    g = tt.Generator()
    assert str(g.device) == "cpu"
    s = g.get_state()
    assert s.dtype == tt.uint8 and s.dim() == 1
    a = tt.rand(6, generator=g)
    g.set_state(s)
    assert tt.rand(6, generator=g).tolist() == a.tolist()


def test_rng_state_roundtrip(tt):
    tt.manual_seed(3)
    tt.rand(6)
    state = tt.get_rng_state()
    assert state.dtype == tt.uint8
    a, b = tt.rand(6), tt.randn(6)
    tt.rand(6)
    assert tt.get_rng_state().tolist() != state.tolist()  # a snapshot, not a live view
    tt.set_rng_state(state)
    assert tt.rand(6).tolist() == a.tolist() and tt.randn(6).tolist() == b.tolist()


# The samples both libraries reject, by test id, and the exception class.
_RANDINT_ERRORS = {
    "(-1, 300, (3,), 'uint8')": RuntimeError, '(0, (2,), None)': RuntimeError,
    "(0, 1073741824, (2,), 'float16')": RuntimeError,
    "(0, 1099511627776, (2,), 'int32')": RuntimeError, "(0, 2, (2,), 'complex64')": RuntimeError,
    "(0, 3, (4,), 'bool')": RuntimeError, '(0.5, 2.5, (3,), None)': TypeError,
    '(2.5, (3,), None)': TypeError, '(3, 2, 3, None)': TypeError,
    '(5, 2, (2,), None)': RuntimeError, '(5, 5, (2,), None)': RuntimeError,
}


@pytest.mark.parametrize(
    "args",
    [(5, 5, (2,), None), (5, 2, (2,), None), (0, (2,), None), (0, 3, (4,), "bool"),
     (-1, 300, (3,), "uint8"), (0, 2**40, (2,), "int32"), (2.5, (3,), None),
     (0.5, 2.5, (3,), None), (3, 2, 3, None), (3, (2, 3), "float16"), (0, 2**30, (2,), "float16"),
     (0, 2, (2,), "complex64")],
    ids=repr,
)
def test_randint_argument_errors(args, request):
    *args, dtype = args

    def prog(torch):
        kw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
        x = torch.randint(*args, **kw)
        return x.shape, x.dtype

    check(prog, raises=_RANDINT_ERRORS.get(request.node.callspec.id))


@pytest.mark.parametrize(
    "make",
    [lambda t: t.rand(3, dtype=t.complex64), lambda t: t.randn(3, dtype=t.complex128),
     raising(NotImplementedError, lambda t: t.randn(2, dtype=t.bool)),
     raising(NotImplementedError, lambda t: t.randn(2, dtype=t.int32)),
     raising(NotImplementedError, lambda t: t.rand(2, dtype=t.uint8)),
     raising(RuntimeError, lambda t: t.zeros(3).uniform_(2, 1)),
     lambda t: t.zeros(3).uniform_(1, 1),
     raising(NotImplementedError, lambda t: t.zeros(3, dtype=t.int64).normal_()),
     lambda t: t.zeros(2, dtype=t.complex64).normal_(), lambda t: t.zeros(2).normal_(std=0.0),
     lambda t: t.zeros(2, dtype=t.complex64).uniform_(3, 3), lambda t: t.rand_like(t.zeros(2)),
     raising(NotImplementedError, lambda t: t.rand(2, dtype=t.int64)),
     raising(RuntimeError, lambda t: t.zeros(3).normal_(0, -1)),
     raising(NotImplementedError, lambda t: t.zeros(3, dtype=t.int64).uniform_()),
     raising(RuntimeError, lambda t: t.zeros(2).normal_(std=-1.0)),
     raising(RuntimeError, lambda t: t.zeros(3, requires_grad=True).normal_()),
     raising(NotImplementedError, lambda t: t.rand_like(t.zeros(2, dtype=t.int64)))],
)
def test_random_dtypes_and_errors(make):
    def prog(torch):
        torch.manual_seed(0)
        x = make(torch)
        return x.dtype, x.shape

    check(prog, raises=error_of(make))


def test_degenerate_random_ranges_are_exact():
    check(lambda torch: (torch.zeros(3).uniform_(1, 1), torch.zeros(2).normal_(std=0.0),
                         torch.zeros(2).normal_(2.5, 0.0), torch.randint(4, 5, (3,))))


def test_complex_random_parts(tt):
    tt.manual_seed(0)
    z = np.asarray(tt.randn(2000, dtype=tt.complex128).tolist())
    assert abs(z.real.var() - 0.5) < 0.06 and abs(z.imag.var() - 0.5) < 0.06
    u = np.asarray(tt.rand(2000, dtype=tt.complex64).tolist())
    assert (u.real >= 0).all() and (u.real < 1).all() and (u.imag >= 0).all()
    assert abs(u.imag.mean() - 0.5) < 0.05


# The samples both libraries reject, by test id, and the exception class.
_SEED_ERRORS = {
    '-9223372036854775809': ValueError, '18446744073709551616': ValueError,
}


@pytest.mark.parametrize("seed", [-1, 2**64 - 1, -(2**63), 2**63 + 5, 2**64, -(2**63) - 1])
def test_manual_seed_range(seed, request):
    check(lambda torch: torch.manual_seed(seed).initial_seed(),
          raises=_SEED_ERRORS.get(request.node.callspec.id))


@pytest.mark.parametrize(
    "state",
    [raising(RuntimeError, lambda t: t.zeros(3, dtype=t.uint8)),
     raising(TypeError, lambda t: t.zeros(3)), raising(TypeError, lambda t: [1, 2])]
)
def test_set_rng_state_errors(state):
    check(lambda torch: torch.set_rng_state(state(torch)),
          raises=error_of(state))


def test_random_out():
    def prog(torch):
        out = torch.zeros(2, 3, dtype=torch.float64)
        r = torch.rand(2, 3, out=out)
        i = torch.randint(0, 5, (4,), out=torch.empty(0, dtype=torch.int64))
        v = np.asarray(out.tolist())
        return r is out, r.dtype, bool(((v >= 0) & (v < 1)).all() and v.any()), i.shape, i.dtype

    check(prog)
