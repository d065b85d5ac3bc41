"""Linear, Bilinear, LazyLinear, Dropout*, Embedding, EmbeddingBag and the distance modules
against PyTorch: parameters copied from the torch module, then forward outputs and the
gradients with respect to inputs and parameters compared, in train and eval mode.
Initialization and dropout (random streams differ) are checked by their statistics."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from conftest import check

import jtorch

RNG = np.random.default_rng(0)
X23 = RNG.standard_normal((2, 3))
X233 = RNG.standard_normal((2, 3, 3))


def _copy(tm, jm):
    """Load the torch module's state into the jtorch module (via state_dict)."""
    state = {k: jtorch.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
    jm.load_state_dict(state)


def _module_program(make, inputs, train=True):
    """A program building ``make(t)`` (torch's parameters copied into jtorch's), running it on
    ``inputs`` (NumPy arrays; float ones require grad) and returning output and grads."""
    torch.manual_seed(0)
    reference = make(torch)

    def prog(t):
        m = reference if t is torch else make(t)
        if t is jtorch:
            _copy(reference, m)
        m.train(train)
        xs = [t.tensor(a, requires_grad=a.dtype.kind == "f") for a in inputs]
        y = m(*xs)
        y.backward(t.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape))))
        grads = [x.grad for x in xs if x.requires_grad]
        params = {n: p.grad for n, p in m.named_parameters() if p.grad is not None}
        for p in m.parameters():
            p.grad = None
        return y, grads, params

    return prog


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("case", [
    ("linear", lambda t: t.nn.Linear(3, 4, dtype=t.float64), [X23]),
    ("linear_nobias", lambda t: t.nn.Linear(3, 2, bias=False, dtype=t.float64), [X233]),
    ("bilinear", lambda t: t.nn.Bilinear(3, 3, 2, dtype=t.float64), [X23, X23[::-1].copy()]),
    ("embedding", lambda t: t.nn.Embedding(5, 3, padding_idx=1, dtype=t.float64),
     [np.array([[0, 1, 4], [1, 1, 2]])]),
    ("embedding_freq", lambda t: t.nn.Embedding(5, 3, scale_grad_by_freq=True,
                                                dtype=t.float64),
     [np.array([0, 3, 3, 3, 4])]),
    ("embedding_bag", lambda t: t.nn.EmbeddingBag(5, 3, mode="sum", padding_idx=0,
                                                  dtype=t.float64),
     [np.array([[0, 1, 4], [1, 2, 2]])]),
    ("prelu", lambda t: t.nn.PReLU(3, dtype=t.float64), [X233]),
    ("cosine", lambda t: t.nn.CosineSimilarity(dim=-1), [X23, X23 * 2 + 1]),
    ("pairwise", lambda t: t.nn.PairwiseDistance(p=1.0, keepdim=True), [X23, X23[::-1].copy()]),
    ("dropout_eval", lambda t: t.nn.Dropout(0.3).eval(), [X23]),
], ids=lambda c: c[0] if isinstance(c, tuple) else None)
def test_module_matches_torch(case, train):
    _, make, inputs = case
    if case[0] == "dropout_eval" and train:
        pytest.skip("random in training mode: see the dropout statistics tests")
    check(_module_program(make, inputs, train))


def test_embedding_bag_offsets_module():
    check(_module_program(lambda t: t.nn.EmbeddingBag(4, 3, mode="mean", dtype=t.float64),
                          [np.array([0, 2, 1, 3, 3]), np.array([0, 2, 2])]))


def test_embedding_max_norm_renormalizes_weight_in_place():
    def prog(t):
        t.manual_seed(0)
        w = t.tensor(np.arange(15.0).reshape(5, 3) / 4, requires_grad=True)
        emb = t.nn.Embedding.from_pretrained(w.detach().clone(), freeze=False, max_norm=1.5)
        y = emb(t.tensor([[0, 3], [3, 1]]))
        y.sum().backward()
        return y, emb.weight.detach().clone(), emb.weight.grad, emb.weight._version > 0

    check(prog)


def test_embedding_from_pretrained_freeze_and_padding_init(tt):
    w = tt.ones(4, 2)
    frozen = tt.nn.Embedding.from_pretrained(w)
    assert not frozen.weight.requires_grad
    assert tt.nn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad
    e = tt.nn.Embedding(6, 3, padding_idx=-2)
    assert e.padding_idx == 4
    assert (e.weight[4] == 0).all() and (e.weight[:4] != 0).all()
    with pytest.raises(AssertionError):
        tt.nn.Embedding(3, 2, padding_idx=3)


def test_layer_reprs():
    def prog(t):
        mods = [t.nn.Linear(3, 4), t.nn.Linear(2, 2, bias=False), t.nn.Bilinear(2, 3, 4),
                t.nn.LazyLinear(3), t.nn.Dropout(), t.nn.Dropout2d(0.2, True),
                t.nn.AlphaDropout(0.1), t.nn.FeatureAlphaDropout(), t.nn.Dropout1d(),
                t.nn.Dropout3d(), t.nn.Embedding(5, 3, padding_idx=1, max_norm=1.0),
                t.nn.Embedding(5, 3, norm_type=1.0, sparse=True),
                t.nn.EmbeddingBag(5, 3, mode="sum", padding_idx=0),
                t.nn.CosineSimilarity(), t.nn.PairwiseDistance()]
        return [repr(m) for m in mods]

    check(prog)


# ------------------------------------------------------------------ initialization


def test_linear_and_bilinear_init_distributions():
    jtorch.manual_seed(0)
    lin = jtorch.nn.Linear(400, 300)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    bound = 1 / math.sqrt(400)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound
    assert np.abs(b).max() <= bound and abs(b.mean()) < 0.1 * bound
    bil = jtorch.nn.Bilinear(50, 20, 30)
    bb = 1 / math.sqrt(50)
    assert np.abs(bil.weight.detach().numpy()).max() <= bb
    assert abs(bil.weight.detach().numpy().std() - bb / math.sqrt(3)) < 0.05 * bb
    assert np.abs(bil.bias.detach().numpy()).max() <= bb


def test_embedding_init_is_standard_normal():
    jtorch.manual_seed(0)
    w = jtorch.nn.Embedding(200, 50, padding_idx=3).weight.detach().numpy()
    assert not w[3].any()
    rest = np.delete(w, 3, axis=0)
    assert abs(rest.mean()) < 0.03 and abs(rest.std() - 1) < 0.03


def test_lazy_linear_infers_in_features_and_becomes_linear():
    jtorch.manual_seed(0)
    m = jtorch.nn.LazyLinear(7)
    assert isinstance(m.weight, jtorch.nn.UninitializedParameter)
    y = m(jtorch.randn(2, 30))
    assert type(m) is jtorch.nn.Linear and m.in_features == 30
    assert tuple(m.weight.shape) == (7, 30) and tuple(y.shape) == (2, 7)
    assert type(m.weight) is jtorch.nn.Parameter and m.weight.requires_grad
    assert np.abs(m.weight.detach().numpy()).max() <= 1 / math.sqrt(30)
    assert len(list(m.parameters())) == 2


# ------------------------------------------------------------------ dropout


def test_dropout_statistics_scaling_and_gradient():
    jtorch.manual_seed(0)
    x = jtorch.ones(200, 100, dtype=jtorch.float64, requires_grad=True)
    y = jtorch.nn.functional.dropout(x, 0.3)
    v = y.detach().numpy()
    kept = v != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(v[kept], 1 / 0.7)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), kept / 0.7)
    assert y.grad_fn.name() == "MulBackward0"
    y2 = jtorch.nn.functional.dropout(x, 0.3)
    assert (y2.detach().numpy() != v).any()  # a fresh mask per call


def test_dropout_masks_are_uniform_independent_and_reproducible():
    """Masks come from SplitMix64 counters (``functional.random.keep_mask``): the kept
    fraction is 1 - p, neighbouring elements and successive draws are uncorrelated, and a
    seed reproduces them, for F.dropout and attention dropout alike."""
    F, n = jtorch.nn.functional, 100_000
    x = jtorch.ones(n)
    for p in (0.05, 0.5, 0.95):
        kept = (F.dropout(x, p) != 0).numpy().mean()
        assert abs(kept - (1 - p)) < 4 * (p * (1 - p) / n) ** 0.5
    jtorch.manual_seed(1)
    a = (F.dropout(x, 0.5) != 0).numpy().astype(float)
    b = (F.dropout(x, 0.5) != 0).numpy().astype(float)
    jtorch.manual_seed(1)
    np.testing.assert_array_equal((F.dropout(x, 0.5) != 0).numpy(), a.astype(bool))
    for u, v in ((a[:-1], a[1:]), (a[:-2], a[2:]), (a, b)):
        assert abs(np.corrcoef(u, v)[0, 1]) < 0.02
    q = jtorch.randn(2, 2, 16, 4)

    def attend(seed):
        jtorch.manual_seed(seed)
        return F.scaled_dot_product_attention(q, q, q, dropout_p=0.4).numpy()

    np.testing.assert_array_equal(attend(2), attend(2))
    assert (attend(2) != attend(3)).any()
    mask = F._attention._keep_mask((300, 300), 0.4).numpy()
    assert mask.dtype == bool and abs(mask.mean() - 0.6) < 0.01


def test_dropout_edge_cases(tt):
    x = tt.tensor([[1.0, float("nan"), -2.0]])
    F = tt.nn.functional
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    out = F.dropout(x, 1.0)
    assert out[0, 0] == 0 and out[0, 2] == 0 and out[0, 1].isnan()
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError):
            F.dropout(x, bad)
        with pytest.raises(ValueError):
            tt.nn.Dropout(bad)
    assert (tt.nn.Dropout(0.9).eval()(x) is x)


def test_feature_dropout_masks_whole_channels():
    jtorch.manual_seed(0)
    F = jtorch.nn.functional
    # (function, shape, number of leading dims naming a channel: 2 batched, 1 unbatched)
    for fn, shape, lead in ((F.dropout2d, (8, 50, 3, 3), 2), (F.dropout1d, (8, 50, 4), 2),
                            (F.dropout3d, (4, 50, 2, 2, 2), 2), (F.dropout1d, (50, 4), 1),
                            (F.dropout3d, (50, 2, 2, 2), 1)):
        v = fn(jtorch.ones(*shape), 0.4).numpy()
        per_channel = v.reshape(*shape[:lead], -1)
        assert ((per_channel == 0).all(-1) | (per_channel == v.max()).all(-1)).all()
        assert abs((per_channel[..., 0] == 0).mean() - 0.4) < 0.15
        np.testing.assert_allclose(v.max(), 1 / 0.6, rtol=1e-6)


def test_dropout_inplace_writes_input():
    jtorch.manual_seed(0)
    x = jtorch.ones(4, 50)
    v0 = x._version
    r = jtorch.nn.functional.dropout(x, 0.5, inplace=True)
    assert r is x and x._version > v0 and (x == 0).any() and (x == 2).any()
    m = jtorch.nn.Dropout2d(0.5, inplace=True)
    y = jtorch.ones(2, 40, 2, 2)
    assert m(y) is y and (y == 0).any()


def test_alpha_dropout_keeps_mean_and_variance():
    jtorch.manual_seed(0)
    F = jtorch.nn.functional
    x = jtorch.randn(200, 200, dtype=jtorch.float64)
    y = F.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.03 and abs(y.std() - 1) < 0.03
    assert F.alpha_dropout(x, 0.2) is x  # training defaults to False
    fy = F.feature_alpha_dropout(x.reshape(200, 50, 4), 0.2, training=True).numpy()
    assert abs(fy.mean()) < 0.05 and abs(fy.std() - 1) < 0.05
    alpha, p = 1.7580993408473766, 0.2
    dropped_value = -alpha * (1 - p) / math.sqrt((alpha**2 * p + 1) * (1 - p))
    dropped = np.isclose(fy, dropped_value).reshape(200, 50, 4)
    assert 0.1 < dropped.mean() < 0.3
    assert (dropped.all(-1) | ~dropped.any(-1)).all()  # whole channels are dropped
    g = jtorch.randn(3, 4, requires_grad=True)
    out = jtorch.nn.AlphaDropout(0.5).train()(g)
    out.sum().backward()
    assert out.grad_fn.name() == "AddBackward0"
    assert len(np.unique(np.round(g.grad.numpy(), 6))) <= 2


def test_dropout_of_integer_tensor():
    check(lambda t: t.nn.functional.dropout(t.tensor([1, 2]), 0.5), raises=RuntimeError)
    check(lambda t: t.nn.functional.dropout(t.tensor([1, 2]), 0.5, training=False))
    check(lambda t: t.nn.functional.dropout2d(t.ones(3), 0.5), raises=RuntimeError)


def test_dropout_module_train_vs_eval():
    jtorch.manual_seed(0)
    m = jtorch.nn.Dropout(0.5)
    x = jtorch.ones(100, 100)
    assert abs((m(x).numpy() == 0).mean() - 0.5) < 0.03
    m.eval()
    assert m(x) is x


# ------------------------------------------------------------------ functional extras


def test_one_hot_and_normalize_out():
    def prog(t):
        F = t.nn.functional
        o = t.empty(2, 3, dtype=t.float64)
        r = F.normalize(t.tensor(X23), dim=0, out=o)
        empty = F.one_hot(t.tensor([], dtype=t.int64), 3)
        return F.one_hot(t.tensor([[2, 0]]), 4), empty, o, r is o

    check(prog)


def test_linear_functional_grad_fn_names():
    def prog(t):
        w = t.ones(4, 3, requires_grad=True)
        b = t.ones(4, requires_grad=True)
        F = t.nn.functional
        return [F.linear(x, w, b).grad_fn.name() for x in (t.ones(2, 3), t.ones(2, 2, 3))] + [
            F.linear(t.ones(2, 3), w).grad_fn.name(),
            F.embedding(t.tensor([1]), w).grad_fn.name()]

    check(prog)
