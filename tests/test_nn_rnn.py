"""RNN, LSTM, GRU and their cells against PyTorch: parameters copied from the torch module,
then outputs, final states and the gradients with respect to inputs, initial states and
every parameter compared; PackedSequence round trips (unsorted batches), unbatched inputs,
dropout between layers, parameter layout, initialization and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import check

import jtorch

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 2, 3))  # (T, B, I); batch_first runs read it as (B=3, T=2, I)
H = {1: RNG.standard_normal((1, 2, 4)), 2: RNG.standard_normal((2, 2, 4)),
     4: RNG.standard_normal((4, 2, 4))}


def _copy(tm, jm):
    jm.load_state_dict({k: jtorch.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})


def _flat(y):
    if isinstance(y, tuple | list):
        return [o for i in y for o in _flat(i)]
    if hasattr(y, "batch_sizes"):  # a PackedSequence: its data carries the gradient
        return [y.data]
    return [y]


def _backward(t, y):
    outs = [o for o in _flat(y) if o.requires_grad]
    loss = sum((o * t.tensor(np.linspace(0.5, 1.5, o.numel()).reshape(tuple(o.shape)))).sum()
               for o in outs)
    loss.backward()


def _program(make, run, train=False):
    """``run(t, module)`` returns (result, tensors whose grads to compare) on both backends,
    torch's parameters copied into jtorch's module."""
    torch.manual_seed(0)
    reference = make(torch)

    def prog(t):
        m = reference if t is torch else make(t)
        if t is jtorch:
            _copy(reference, m)
        m.train(train)
        y, leaves = run(t, m)
        _backward(t, y)
        grads = {n: p.grad for n, p in m.named_parameters()}
        for p in m.parameters():
            p.grad = None
        return y, [x.grad for x in leaves], grads

    return prog


def _leaf(t, a):
    return t.tensor(a, requires_grad=True)


def _plain(t, m, hx=None):
    x = _leaf(t, X)
    if hx is None:
        return m(x), [x]
    if isinstance(hx, tuple):
        hs = tuple(_leaf(t, h) for h in hx)
        return m(x, hs), [x, *hs]
    h = _leaf(t, hx)
    return m(x, h), [x, h]


CASES = [
    ("rnn_tanh_2l_bi", lambda t: t.nn.RNN(3, 4, num_layers=2, bidirectional=True,
                                          dtype=t.float64), H[4]),
    ("rnn_relu_bf", lambda t: t.nn.RNN(3, 4, nonlinearity="relu", batch_first=True,
                                       dtype=t.float64), None),
    ("lstm_proj_bi", lambda t: t.nn.LSTM(3, 4, proj_size=2, bidirectional=True,
                                         dtype=t.float64), None),
    ("gru_nobias_bf", lambda t: t.nn.GRU(3, 4, bias=False, batch_first=True, dtype=t.float64),
     None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_module_matches_torch(case):
    _, make, hx = case
    check(_program(make, lambda t, m: _plain(t, m, hx)), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_unbatched_input(kind):
    def run(t, m):
        x = _leaf(t, X[:, 0])
        if kind == "LSTM":
            hs = (_leaf(t, H[2][:, 0]), _leaf(t, H[2][:, 1]))
            return m(x, hs), [x, *hs]
        h = _leaf(t, H[2][:, 0])
        return m(x, h), [x, h]

    check(_program(lambda t: getattr(t.nn, kind)(3, 4, bidirectional=True, dtype=t.float64),
                   run), rtol=1e-6, atol=1e-8)


def _packed_run(lengths, batch_first=False, with_hx=False, lstm=True):
    def run(t, m):
        x = _leaf(t, np.swapaxes(X, 0, 1) if batch_first else X)
        packed = t.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=batch_first,
                                                     enforce_sorted=False)
        leaves = [x]
        hx = None
        if with_hx:
            hx = tuple(_leaf(t, H[2]) for _ in range(2 if lstm else 1))
            leaves += hx
            hx = hx if lstm else hx[0]
        out, states = m(packed, hx)
        padded = t.nn.utils.rnn.pad_packed_sequence(out, batch_first=batch_first)
        return (tuple(out), padded, states), leaves

    return run


@pytest.mark.parametrize("case", [
    ("lstm_bi", lambda t: t.nn.LSTM(3, 4, bidirectional=True, dtype=t.float64), [2, 3], False,
     True, True),
    ("gru_2l_bf", lambda t: t.nn.GRU(3, 4, 2, batch_first=True, dtype=t.float64), [1, 2],
     True, True, False),
    ("rnn_bi_nohx", lambda t: t.nn.RNN(3, 4, bidirectional=True, dtype=t.float64), [3, 1],
     False, False, False),
], ids=lambda c: c[0])
def test_packed_sequence(case):
    """Packed in, packed out (same batch_sizes and indices); final states at each sequence's
    own length, in the caller's order; gradients through pack and unpack."""
    _, make, lengths, batch_first, with_hx, lstm = case
    check(_program(make, _packed_run(lengths, batch_first, with_hx, lstm)), rtol=1e-6,
          atol=1e-8)


def _long_packed_run(lengths, batch_first=False, with_hx=False, lstm=True):
    """``_packed_run`` on a batch as long as its longest sequence, more than one chunk."""
    xs = RNG.standard_normal((max(lengths), len(lengths), 3))

    def run(t, m):
        x = _leaf(t, np.swapaxes(xs, 0, 1) if batch_first else xs)
        packed = t.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=batch_first,
                                                     enforce_sorted=False)
        leaves, hx, rng = [x], None, np.random.default_rng(1)  # the same states on both sides
        if with_hx:
            layers = m.num_layers * (2 if m.bidirectional else 1)
            size = m.proj_size or m.hidden_size
            hx = [_leaf(t, rng.standard_normal((layers, len(lengths), size)))]
            if lstm:
                hx.append(_leaf(t, rng.standard_normal((layers, len(lengths), m.hidden_size))))
            leaves += hx
            hx = tuple(hx) if lstm else hx[0]
        out, states = m(packed, hx)
        padded = t.nn.utils.rnn.pad_packed_sequence(out, batch_first=batch_first)
        return (tuple(out), padded, states), leaves

    return run


@pytest.mark.parametrize("case", [
    ("lstm_2l", lambda t: t.nn.LSTM(3, 4, 2, dtype=t.float64), [11, 3, 7, 9], False, True,
     True, False),
    ("lstm_2l_bi_proj_bf", lambda t: t.nn.LSTM(3, 4, 2, bidirectional=True, proj_size=2,
                                               batch_first=True, dtype=t.float64),
     [5, 12, 9], True, True, True, False),
    ("gru_2l_dropout_train", lambda t: t.nn.GRU(3, 4, 2, dropout=1.0, dtype=t.float64),
     [9, 10, 2], False, True, False, True),
    ("rnn_bi_nohx", lambda t: t.nn.RNN(3, 4, bidirectional=True, dtype=t.float64),
     [4, 13, 1], False, False, False, False),
    ("lstm_exact_chunks", lambda t: t.nn.LSTM(3, 4, dtype=t.float64), [8, 6], False, False,
     True, False),
], ids=lambda c: c[0])
def test_long_packed_sequence_runs_in_chunks(case, monkeypatch):
    """Packed batches longer than a chunk (4 steps here) run a kernel per chunk, the state
    carried across chunks (backwards in time for the reverse direction): outputs, final
    states and gradients still match one whole-sequence run (PyTorch's)."""
    from jtorch.nn.modules import rnn as rnn_module

    monkeypatch.setattr(rnn_module, "_CHUNK", 4)
    _, make, lengths, batch_first, with_hx, lstm, train = case
    check(_program(make, _long_packed_run(lengths, batch_first, with_hx, lstm), train=train),
          rtol=1e-6, atol=1e-8)


def test_long_packed_sequences_compile_one_kernel():
    """Batches of different lengths above one chunk share the chunk's kernel: XLA compiles
    the stack once, not once per batch length (the default chunk, 16 steps), nor once more
    for the first chunk."""
    from jtorch.eager import dispatch

    def rnn_kernels():
        return sum(k._cache_size() for key, k in dispatch._VJP.items() if key[0][0] == "_rnn")

    m = jtorch.nn.LSTM(3, 5, 2)
    sizes = [rnn_kernels()]
    for longest in (17, 29, 40, 23):
        x = jtorch.randn(longest, 3, 3, requires_grad=True)
        packed = jtorch.nn.utils.rnn.pack_padded_sequence(x, [longest, 9, 4])
        out, _ = m(packed)
        out.data.sum().backward()
        sizes.append(rnn_kernels())
    # One signature in all: the first chunk (zero initial states) runs the kernel of the
    # later ones, whose states need a gradient.
    assert sizes[1] - sizes[0] == 1 and len(set(sizes[1:])) == 1, sizes
    check(_program(lambda t: t.nn.LSTM(3, 4, dtype=t.float64),
                   _long_packed_run([37, 20, 30], with_hx=True)), rtol=1e-6, atol=1e-8)


def _unpack_run(change):
    """An LSTM on a packed batch whose data or padded source ``change`` touches first."""
    def run(t, m):
        x = _leaf(t, X)
        source = x * 1.0
        packed = t.nn.utils.rnn.pack_padded_sequence(source, [3, 1])
        leaves = change(t, source, packed, [x])
        out, states = m(packed)
        padded = t.nn.utils.rnn.pad_packed_sequence(out, padding_value=0.5, total_length=4)
        return (padded, states), leaves

    return run


def _write_data(t, source, packed, leaves):
    packed.data.mul_(2)
    return leaves


def _write_source(t, source, packed, leaves):
    source.add_(1)
    return leaves


def _watch_data(t, source, packed, leaves):
    packed.data.retain_grad()
    return [*leaves, packed.data]


@pytest.mark.parametrize("change", [_write_data, _write_source, _watch_data],
                         ids=["data_written", "source_written", "data_retains_grad"])
def test_packed_data_written_or_watched_unpacks_from_the_data(change):
    """A packed batch unpacks from the padded batch it was packed from only while that
    holds the data's values and nobody watches the data's gradient: written in place since
    (the data or the source), or with ``retain_grad`` on the data, it unpacks from the
    data, as PyTorch always does."""
    check(_program(lambda t: t.nn.LSTM(3, 4, dtype=t.float64), _unpack_run(change)),
          rtol=1e-6, atol=1e-8)


def test_packed_batches_of_new_total_lengths_share_kernels():
    """An RNN unpacks its packed input, and ``pad_packed_sequence`` its packed output, by
    masking the padded batch it came from, and a packed sequence's data is gathered only
    when read (never here): a batch whose lengths add up to a new total compiles
    nothing."""
    from jtorch import _kernels
    from jtorch.eager import dispatch
    from jtorch.eager.deferred import DeferredStorage

    def compiled():
        _kernels.wait_ahead()  # backward kernels compile ahead on a background thread
        return sum(k._cache_size() for table in (dispatch._FWD, dispatch._VJP, dispatch._BWD)
                   for k in table.values())

    rnn = jtorch.nn.utils.rnn
    m = jtorch.nn.LSTM(3, 5, batch_first=True)
    sizes = []
    for lengths in ([7, 5, 2], [7, 4, 2], [6, 7, 3], [7, 1, 1]):
        x = jtorch.randn(3, 9, 3, requires_grad=True)
        packed = rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, _ = m(packed)
        padded, _ = rnn.pad_packed_sequence(out, batch_first=True, total_length=9)
        padded.sum().backward()
        sizes.append(compiled())
        assert type(packed.data._storage) is DeferredStorage  # nothing read either data
        assert type(out.data._storage) is DeferredStorage
    assert len(set(sizes)) == 1, sizes
    assert x.grad[0, 7:].abs().sum().item() == 0  # the padding gets no gradient


def _packed_data_read(t, batch_first, sort, change):
    """A packed sequence's data, read: values, node, gradient, and its values after the
    padded batch is written in place (the data holds those of the packing)."""
    rnn = t.nn.utils.rnn
    x = t.tensor(X.reshape(3, 2, 3).transpose(1, 0, 2) if batch_first else X.reshape(3, 2, 3),
                 requires_grad=True)
    lengths = [2, 3] if not sort else [3, 2]
    packed = rnn.pack_padded_sequence(x, lengths, batch_first=batch_first,
                                      enforce_sorted=sort)
    out = [packed.data.grad_fn.name(), packed.data.shape]
    if change:  # a batch written after packing: the data keeps what it gathered
        y = x.detach().clone()
        packed = rnn.pack_padded_sequence(y, lengths, batch_first=batch_first,
                                          enforce_sorted=sort)
        y.mul_(2)
        return out + [packed.data, rnn.pad_packed_sequence(packed, batch_first)[0]]
    (packed.data * packed.data).sum().backward()
    return out + [packed.data, x.grad]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("sort", [False, True])
@pytest.mark.parametrize("change", [False, True])
def test_packed_data_read_matches_pytorch(batch_first, sort, change):
    """The deferred data (``eager/deferred.py``) gives PyTorch's values, node and gradients
    when something reads it."""
    check(lambda t: _packed_data_read(t, batch_first, sort, change), rtol=1e-6, atol=1e-8)


def test_dropout_between_layers_in_training():
    """p=1 zeroes every layer's output but the last: deterministic, so comparable. The
    evaluation run (no dropout) also checks a two-layer LSTM with given (h0, c0)."""
    make = lambda t: t.nn.LSTM(3, 4, 2, dropout=1.0, dtype=t.float64)  # noqa: E731
    hx = (H[2], H[2][::-1].copy())
    check(_program(make, lambda t, m: _plain(t, m, hx), train=True), rtol=1e-6, atol=1e-8)
    check(_program(make, lambda t, m: _plain(t, m, hx), train=False), rtol=1e-6, atol=1e-8)


def test_dropout_changes_training_output():
    m = jtorch.nn.LSTM(3, 4, 2, dropout=0.5, dtype=jtorch.float64)
    x = jtorch.tensor(X, requires_grad=True)  # the kernels the test above compiled
    hx = tuple(jtorch.tensor(h, requires_grad=True) for h in (H[2], H[2]))
    a, b = m(x, hx)[0], m(x, hx)[0]
    assert not bool((a == b).all())
    m.eval()
    assert bool((m(x, hx)[0] == m(x, hx)[0]).all())


def test_parameters_layout_and_init():
    def prog(t):
        t.manual_seed(0)
        m = t.nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2, bias=True)
        g = t.nn.GRU(3, 4, bias=False)
        shapes = [(n, tuple(p.shape)) for n, p in m.named_parameters()]
        all_w = [[tuple(p.shape) for p in ws] for ws in m.all_weights]
        m.flatten_parameters()
        return (shapes, all_w, [n for n, _ in g.named_parameters()],
                list(m.state_dict()), repr(m), repr(g), m._flat_weights_names)

    check(prog)


def test_init_distribution():
    m = jtorch.nn.RNN(3, 100)
    w = np.asarray(m.weight_hh_l0.detach()._value)
    assert np.abs(w).max() <= 0.1 and np.abs(w).max() > 0.09 and abs(w.mean()) < 0.005


@pytest.mark.parametrize("cell", [
    ("rnn_tanh", lambda t: t.nn.RNNCell(3, 4, dtype=t.float64), 1),
    ("rnn_relu", lambda t: t.nn.RNNCell(3, 4, nonlinearity="relu", bias=False,
                                        dtype=t.float64), 1),
    ("lstm", lambda t: t.nn.LSTMCell(3, 4, dtype=t.float64), 2),
    ("gru", lambda t: t.nn.GRUCell(3, 4, dtype=t.float64), 1),
], ids=lambda c: c[0])
@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize("with_hx", [True, False], ids=["hx", "nohx"])
def test_cells(cell, batched, with_hx):
    _, make, states = cell

    def run(t, m):
        x = _leaf(t, X[0] if batched else X[0, 0])
        if not with_hx:
            return m(x), [x]
        hs = [_leaf(t, H[2][i] if batched else H[2][i, 0]) for i in range(states)]
        return m(x, hs[0] if states == 1 else tuple(hs)), [x, *hs]

    check(_program(make, run), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "nobias"])
def test_lstm_cell_function(bias):
    """torch.lstm_cell: values, the node's name and every operand's gradient."""

    def prog(t):
        rng = np.random.default_rng(3)

        def leaf(*shape):
            return t.tensor(rng.standard_normal(shape), requires_grad=True)

        x, h, c, w_ih, w_hh = leaf(2, 3), leaf(2, 4), leaf(2, 4), leaf(16, 3), leaf(16, 4)
        bs = (leaf(16), leaf(16)) if bias else ()
        h2, c2 = t.lstm_cell(x, (h, c), w_ih, w_hh, *bs)
        (h2.sum() * 2 + (c2 * c2).sum()).backward()
        return h2, c2, h2.grad_fn.name(), [a.grad for a in (x, h, c, w_ih, w_hh, *bs)]

    check(prog, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("bad", [
    lambda t: t.lstm_cell(t.ones(2, 3), t.ones(2, 4), t.ones(16, 3), t.ones(16, 4)),
    lambda t: t.lstm_cell(t.ones(2, 3), (t.ones(2, 4),), t.ones(16, 3), t.ones(16, 4)),
    lambda t: t.lstm_cell(t.ones(2, 3), (t.ones(2, 4), t.ones(2, 4)), t.ones(16, 2),
                          t.ones(16, 4)),  # wrong input size
])
def test_lstm_cell_function_errors(bad):
    check(bad, raises=(TypeError, RuntimeError))


@pytest.mark.parametrize("bad", [
    lambda t: t.nn.LSTM(3, 4)(t.ones(2, 3, 2, 3)),  # 4-D input
    lambda t: t.nn.GRU(3, 4)(t.ones(3, 2, 3), t.zeros(2, 2, 4)),  # wrong hidden size
    lambda t: t.nn.RNN(3, 4)(t.ones(3, 2, 3), t.zeros(2, 4)),  # 2-D hx for batched input
    lambda t: t.nn.LSTM(3, 4)(t.ones(3, 2, 3), (t.zeros(1, 2, 4), t.zeros(1, 3, 4))),
    lambda t: t.nn.LSTM(3, 4)(t.ones(3, 2, 5)),  # wrong input size
    lambda t: t.nn.RNN(3, 4)(t.ones(3, 2, 3, dtype=t.float64)),  # dtype mismatch
    lambda t: t.nn.GRU(3, 4, proj_size=2),
    lambda t: t.nn.LSTM(3, 4, proj_size=4),
    lambda t: t.nn.RNN(3, 4, nonlinearity="gelu"),
    lambda t: t.nn.LSTM(3, 4, dropout=1.5),
    lambda t: t.nn.LSTMCell(3, 4)(t.ones(1, 2, 3)),
    lambda t: t.nn.GRUCell(3, 4)(t.ones(2, 3), t.ones(1, 2, 4)),
    lambda t: t.nn.RNNCell(3, 4)(t.ones(2, 5)),
])
def test_errors(bad):
    check(bad, raises=Exception)


def test_dropout_warning_for_one_layer():
    for t in (torch, jtorch):
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater"):
            t.nn.GRU(3, 4, dropout=0.2)


def test_packed_data_first_read_inside_a_trace():
    """A packed sequence's deferred data read for the first time inside ``torch.compile``
    or ``torch.func`` is computed concretely, as eager would have: no leaked tracer."""
    rnn = jtorch.nn.utils.rnn
    x = jtorch.tensor(X.reshape(3, 2, 3).transpose(1, 0, 2).copy())
    want = rnn.pack_padded_sequence(x, [3, 2], batch_first=True).data.numpy()
    first, second = (rnn.pack_padded_sequence(x, [3, 2], batch_first=True) for _ in range(2))
    compiled = jtorch.compile(lambda w: first.data * w)
    np.testing.assert_allclose(compiled(jtorch.ones(3)).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(first.data.numpy(), want, rtol=1e-6)
    grad = jtorch.func.grad(lambda w: (second.data * w).sum())(jtorch.ones(3))
    np.testing.assert_allclose(grad.numpy(), want.sum(0), rtol=1e-6)
