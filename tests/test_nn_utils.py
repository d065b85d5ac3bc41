"""nn.utils (clip_grad, parameter vectors, rnn, weight/spectral norm, parametrize) and
nn.DataParallel: differential against torch."""

from __future__ import annotations

import math

import pytest
import torch
from conftest import check, counting_compiles

import jtorch


def same(prog, **tol):
    check(prog, **tol)


def _params_with_grads(t):
    a = t.nn.Parameter(t.tensor([[1.0, -2.0], [3.0, 0.5]]))
    b = t.nn.Parameter(t.tensor([4.0, -1.0, 2.0]))
    c = t.nn.Parameter(t.tensor([1.0]))  # no grad: skipped
    a.grad = t.tensor([[0.5, -3.0], [2.0, 1.0]])
    b.grad = t.tensor([1.0, -6.0, 0.25])
    return [a, b, c]


@pytest.mark.parametrize("norm_type", [2.0, 1, math.inf, -math.inf, 0.5, 0, 3.0, -1.5])
def test_clip_grad_norm(norm_type):
    def prog(t):
        ps = _params_with_grads(t)
        total = t.nn.utils.clip_grad_norm_(ps, max_norm=1.5, norm_type=norm_type,
                                           foreach=True if norm_type == 1 else None)
        return total, [p.grad for p in ps]

    same(prog)


def test_clip_grad_norm_edges():
    def prog(t):
        u = t.nn.utils
        ps = _params_with_grads(t)
        big = u.clip_grad_norm_(ps[0], max_norm=100.0)  # below max: unchanged
        out = [big, ps[0].grad, u.get_total_norm([p.grad for p in ps[:2]], 3.0),
               u.clip_grad_norm_([], 1.0)]
        ps[1].grad[0] = float("inf")
        try:
            u.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
        except RuntimeError as e:
            out.append(str(e))
        out.append(u.clip_grad_norm_(ps, 1.0))
        ps = _params_with_grads(t)
        u.clip_grads_with_norm_(ps, 1.0, t.tensor(4.0))
        out.append([p.grad for p in ps])
        ps = _params_with_grads(t)
        u.clip_grad_value_(ps, 1.25)
        out.append([p.grad for p in ps])
        return out

    same(prog)


@pytest.mark.parametrize("dtype", ["float64", "float16"])
def test_clip_grad_norm_many_shapes_in_place(dtype):
    """Gradients of several shapes are clipped by one kernel: values, dtypes, the total and
    the gradients' versions (one in-place write each) as PyTorch's; a gradient that is a
    view, and one that needs grad, take the op-by-op path with the same results."""
    def prog(t):
        dt = getattr(t, dtype)
        ps = [t.nn.Parameter(t.zeros(s, dtype=dt)) for s in [(3, 4), (5,), (2, 1, 3), ()]]
        for i, p in enumerate(ps):
            p.grad = t.linspace(-2, 3 + i, p.numel(), dtype=dt).reshape(p.shape)
        before = [p.grad._version for p in ps]
        total = t.nn.utils.clip_grad_norm_(ps, max_norm=0.75)
        out = [total, [p.grad for p in ps], [p.grad._version - v for p, v in zip(ps, before)]]
        base = t.arange(12.0, dtype=dt)
        q = t.nn.Parameter(t.zeros(6, dtype=dt))
        q.grad = base[::2]
        w = t.nn.Parameter(t.zeros(2, dtype=dt))
        w.grad = t.tensor([3.0, 4.0], dtype=dt, requires_grad=True).clone()
        out += [t.nn.utils.clip_grad_norm_([q, w], 5.0, norm_type=3.0), q.grad, base,
                w.grad.detach()]
        return out

    same(prog)


@pytest.mark.parametrize("norm_type", [2.0, math.inf, 0])
def test_clip_grad_norm_of_many_gradients_and_an_empty_one(norm_type):
    """One kernel takes the norm over all elements at once (with XLA's defaults from
    _kernels.MANY gradients on); the 0 "norm" (a count of nonzero per-gradient norms) and an
    empty gradient keep the per-gradient form."""
    def prog(t):
        out = []
        for shapes in ([(3,), (2, 2), (5, 1), ()], [(3,), (0,), (2, 2)],
                       [(i % 4 + 1, 3) if i % 2 else (i + 2,) for i in range(18)]):
            ps = [t.nn.Parameter(t.zeros(s)) for s in shapes]
            for i, p in enumerate(ps):
                p.grad = t.linspace(-1, 2 + i, p.numel()).reshape(p.shape)
            ps[0].grad[1] = 0.0
            try:
                out += [t.nn.utils.clip_grad_norm_(ps, 0.5, norm_type=norm_type),
                        [p.grad for p in ps]]
            except RuntimeError as e:  # the inf norm of an empty gradient
                out.append(type(e).__name__)
        return out

    same(prog)


def test_clip_grad_norm_compiles_one_program_per_model():
    ps = [jtorch.nn.Parameter(jtorch.zeros(s)) for s in [(7, 3, 2), (11,), (5, 13)]]
    for p in ps:
        p.grad = jtorch.ones(p.shape)  # shapes no other test uses
    with counting_compiles() as compiles:
        for _ in range(3):
            jtorch.nn.utils.clip_grad_norm_(ps, 1.0)
    assert len(compiles) <= 1, compiles


def test_parameters_vector_roundtrip():
    def prog(t):
        u = t.nn.utils
        ps = _params_with_grads(t)
        vec = u.parameters_to_vector(ps)
        (vec * t.arange(8.0)).sum().backward()
        new = t.arange(8.0) * 2
        u.vector_to_parameters(new, ps)
        out = [vec, [p.grad for p in ps], ps, [type(p).__name__ for p in ps]]
        try:
            u.vector_to_parameters([1.0], ps)
        except TypeError as e:
            out.append(str(e))
        return out

    same(prog)


def _seqs(t):
    g = t.arange(24.0).reshape(4, 3, 2)
    return [g[0], g[1, :2], g[2, :1] * -1, g[3]]  # lengths 3, 2, 1, 3


@pytest.mark.parametrize("batch_first,side", [(False, "right"), (True, "left")])
def test_pad_sequence(batch_first, side):
    def prog(t):
        seqs = [s.clone().requires_grad_() for s in _seqs(t)]
        out = t.nn.utils.rnn.pad_sequence(seqs, batch_first=batch_first, padding_value=-7.0,
                                          padding_side=side)
        (out * t.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
        return out, [s.grad for s in seqs]

    same(prog)


@pytest.mark.parametrize("batch_first,side", [(False, "right"), (True, "left")])
def test_pad_sequence_without_gradients(batch_first, side):
    """Sequences that need no gradient (a collate function's) pad on the host: values,
    dtypes (the padding value cast as ``full`` casts it), strides and empty sequences as
    PyTorch's, mixed dtypes converted to the first's."""
    def prog(t):
        rnn = t.nn.utils.rnn
        grid = t.arange(30).reshape(5, 3, 2)
        out = []
        for dtype, value in ((t.int64, 2.7), (t.float16, -1.5), (t.bool, 1), (t.float64, 0)):
            seqs = [grid[0].to(dtype), grid[1, :0, 0].to(dtype).reshape(0, 2),
                    grid[2:4, 1].to(dtype), grid[:, 0].to(dtype)]  # views among them
            padded = rnn.pad_sequence(seqs, batch_first=batch_first, padding_value=value,
                                      padding_side=side)
            out += [padded, padded.stride()]
        mixed = [t.tensor([1.5, 2.5]), t.tensor([3])]
        out.append(rnn.pad_sequence(mixed, batch_first=batch_first, padding_side=side))
        with t.no_grad():
            out.append(rnn.pad_sequence([t.ones(2, requires_grad=True), t.ones(1)]))
        return out

    same(prog)


def test_pad_sequence_of_new_lengths_compiles_nothing():
    """A collate function padding batches of ever new lengths compiles no program."""
    rnn = jtorch.nn.utils.rnn
    rnn.pad_sequence([jtorch.tensor([1, 2]), jtorch.tensor([3])])
    with counting_compiles() as compiles:
        for n in range(7, 12):
            batch = [jtorch.tensor(list(range(n))), jtorch.tensor(list(range(n // 2)))]
            padded = rnn.pad_sequence(batch, batch_first=True, padding_value=-1).numpy()
            assert padded[1].tolist() == list(range(n // 2)) + [-1] * (n - n // 2)
    assert compiles == []


def test_pack_pad_roundtrip():
    def prog(t):
        rnn = t.nn.utils.rnn
        seqs = [s.clone().requires_grad_() for s in _seqs(t)]
        out = []
        for batch_first in (False, True):
            padded = rnn.pad_sequence(seqs, batch_first=batch_first)
            packed = rnn.pack_padded_sequence(padded, t.tensor([3, 2, 1, 3]),
                                              batch_first=batch_first, enforce_sorted=False)
            out.append(tuple(packed))
            out.append(rnn.pad_packed_sequence(packed, batch_first=batch_first,
                                               padding_value=-1.0, total_length=5))
        sorted_seqs = [seqs[0], seqs[3], seqs[1], seqs[2]]
        packed = rnn.pack_sequence(sorted_seqs)
        out.append(tuple(packed))
        (packed.data * t.arange(packed.data.numel(), dtype=t.float32).reshape(
            packed.data.shape)).sum().backward()
        out.append([s.grad for s in seqs])
        out.append(rnn.unpack_sequence(rnn.pack_sequence(seqs, enforce_sorted=False)))
        padded = rnn.pad_sequence(seqs, batch_first=True)
        out.append(rnn.unpad_sequence(padded, t.tensor([3, 2, 1, 3]), batch_first=True))
        p2 = packed.to(t.float64)
        out += [type(packed).__name__, packed.is_cuda, p2.data.dtype, p2.batch_sizes,
                packed.to(t.float32) is packed, isinstance(packed, tuple)]
        return out

    same(prog)


@pytest.mark.parametrize("case", ["unsorted", "len_mismatch", "zero_len", "empty",
                                  "pad_empty", "pad_shape", "pad_side", "total_short"])
def test_rnn_errors(case):
    def prog(t):
        rnn = t.nn.utils.rnn
        x = t.ones(4, 3, 2)
        if case == "unsorted":
            return rnn.pack_padded_sequence(x, [2, 3, 1])
        if case == "len_mismatch":
            return rnn.pack_padded_sequence(x, [3, 2])
        if case == "zero_len":
            return rnn.pack_padded_sequence(x, [3, 0, 0])
        if case == "empty":
            return rnn.pack_padded_sequence(t.ones(0, 3), [1, 1, 1])
        if case == "pad_empty":
            return rnn.pad_sequence([])
        if case == "pad_shape":
            return rnn.pad_sequence([t.ones(2, 3), t.ones(2, 2)])
        if case == "pad_side":
            return rnn.pad_sequence([t.ones(2)], padding_side="up")
        return rnn.pad_packed_sequence(rnn.pack_sequence([t.ones(3), t.ones(2)]),
                                       total_length=2)

    def msg(t):
        try:
            prog(t)
        except (RuntimeError, ValueError) as e:
            return type(e).__name__, str(e)
        return None

    same(msg)


def _lin(t):
    m = t.nn.Module()
    m.weight = t.nn.Parameter(t.tensor([[3.0, 0.0, 1.0], [0.0, -2.0, 0.5]]))
    return m


def test_weight_norm_old_api():
    def prog(t):
        import warnings

        m = _lin(t)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t.nn.utils.weight_norm(m, dim=0)
            m2 = t.nn.utils.weight_norm(_lin(t), dim=None)
        x = t.tensor([1.0, 2.0, 3.0])
        y = t.mv(m.weight, x)
        y.sum().backward()
        out = [list(m.state_dict()), m.weight_g, m.weight_v.grad, m.weight_g.grad, m2.weight_g,
               [n for n, _ in m.named_parameters()]]
        t.nn.utils.remove_weight_norm(m)
        out += [m.weight, list(m.state_dict())]
        try:
            t.nn.utils.remove_weight_norm(m)
        except ValueError:
            out.append("ValueError")
        return out

    same(prog)


def test_weight_norm_parametrization():
    def prog(t):
        P = t.nn.utils.parametrize
        m = t.nn.utils.parametrizations.weight_norm(_lin(t))
        w = m.weight
        w.sum().backward()
        out = [list(m.state_dict()), w, type(m).__name__, P.is_parametrized(m),
               P.is_parametrized(m, "bias"), [p.grad for p in m.parameters()],
               P.type_before_parametrizations(m).__name__]
        P.remove_parametrizations(m, "weight")
        out += [list(m.state_dict()), m.weight, type(m).__name__]
        return out

    same(prog)


def _symmetric(t):
    class Symmetric(t.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    class Double(t.nn.Module):
        def forward(self, X):
            return X * 2

    return Symmetric(), Double()


def test_register_parametrization():
    def prog(t):
        P = t.nn.utils.parametrize
        m = t.nn.Module()
        m.weight = t.nn.Parameter(t.arange(9.0).reshape(3, 3))
        m.register_buffer("buf", t.ones(2, 2))
        sym, dbl = _symmetric(t)
        P.register_parametrization(m, "weight", sym)
        out = [m.weight, m.parametrizations.weight.original, list(m.state_dict())]
        P.register_parametrization(m, "weight", dbl)
        out.append(m.weight)
        with P.cached():
            out.append(m.weight is m.weight)
        try:  # right_inverse runs through the whole chain: Double has none
            m.weight = t.eye(3) * 4
        except RuntimeError as e:
            out.append(str(e))
        return out

    def prog2(t):
        P = t.nn.utils.parametrize
        m = t.nn.Module()
        m.weight = t.nn.Parameter(t.arange(9.0).reshape(3, 3))
        sym, _ = _symmetric(t)
        P.register_parametrization(m, "weight", sym)
        m.weight = t.ones(3, 3) * 5
        out = [m.parametrizations.weight.original, m.weight]
        m.weight.sum().backward()
        out.append(m.parametrizations.weight.original.grad)
        P.remove_parametrizations(m, "weight", leave_parametrized=False)
        out += [m.weight, type(m).__name__, hasattr(m, "parametrizations")]
        for bad in (lambda: P.remove_parametrizations(m, "weight"),
                    lambda: P.register_parametrization(m, "nope", sym)):
            try:
                bad()
            except ValueError:
                out.append("ValueError")
        return out

    same(prog)
    same(prog2)


def test_spectral_norm():
    def prog(t):
        u = t.nn.utils
        m = u.spectral_norm(_lin(t), n_power_iterations=30)
        sd = m.state_dict()
        w2 = m.weight
        svals = t.linalg.svdvals(w2.detach())
        out = [list(sd), sd._metadata[""], [n for n, _ in m.named_buffers()], svals[0],
               type(m.weight_orig).__name__]
        u.remove_spectral_norm(m)
        out += [list(m.state_dict()), type(m.weight).__name__]
        try:
            u.remove_spectral_norm(m)
        except ValueError:
            out.append("ValueError")
        return out

    def fwd(t):
        m = _lin(t)
        m.forward = lambda x: t.mv(m.weight, x)
        t.nn.utils.spectral_norm(m, n_power_iterations=50)
        y = m(t.ones(3))
        return t.linalg.svdvals(m.weight.detach())[0], y.shape

    same(prog, rtol=1e-4, atol=1e-4)
    same(fwd, rtol=1e-4, atol=1e-4)


def test_data_parallel():
    def prog(t):
        inner = _lin(t)
        inner.forward = lambda x: t.mv(inner.weight, x)
        dp = t.nn.DataParallel(inner)
        x = t.ones(3)
        out = [list(dp.state_dict()), dp(x), repr(t.nn.DataParallel(t.nn.Identity())),
               dp.module is inner]
        try:  # without a GPU PyTorch refuses
            out.append(t.nn.parallel.data_parallel(inner, x))
        except RuntimeError as e:
            out.append(str(e))
        return out

    same(prog)


def test_torch_and_jtorch_distinct():
    assert jtorch.nn.utils.rnn.PackedSequence is not torch.nn.utils.rnn.PackedSequence


@pytest.mark.parametrize("batch_first", [False, True])
def test_pad_packed_sequence_gradient_and_dtypes(batch_first):
    """Unpacking gathers the packed rows and the padding in one kernel: its gradient
    reaches the packed data (padding positions get none), and integer data pads with an
    integer padding value."""
    def prog(t):
        rnn = t.nn.utils.rnn
        data = t.arange(24, dtype=t.float64).reshape(4, 3, 2).requires_grad_()
        packed = rnn.pack_padded_sequence(data, [4, 1, 2], enforce_sorted=False)
        padded, lengths = rnn.pad_packed_sequence(packed, batch_first=batch_first,
                                                  padding_value=2.5, total_length=6)
        weights = t.linspace(-1, 1, padded.numel(), dtype=t.float64).reshape(padded.shape)
        (padded * weights).sum().backward()
        ints = rnn.pack_sequence([t.tensor([3, 4, 5]), t.tensor([7])])
        return padded, lengths, data.grad, rnn.pad_packed_sequence(
            ints, batch_first=batch_first, padding_value=-1)

    same(prog)
