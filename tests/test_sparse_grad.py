"""Embeddings with ``sparse=True``: a sparse COO weight gradient as PyTorch's (layout,
accumulation with dense and sparse gradients), the optimizers that take it, and the errors
of those that do not."""

import numpy as np
import pytest
from conftest import BACKENDS, check

W = np.random.default_rng(3).standard_normal((5, 3))
IDX = [[0, 2, 2], [4, 0, 2]]


def _weight(t):
    return t.tensor(W, dtype=t.float32, requires_grad=True)


@pytest.mark.parametrize("padding_idx", [None, 4])
def test_embedding_sparse_gradient_layout(padding_idx):
    def program(t):
        w = _weight(t)
        out = t.nn.functional.embedding(t.tensor(IDX), w, padding_idx=padding_idx, sparse=True)
        (out * t.arange(3.0)).sum().backward()
        g = w.grad
        return g.is_sparse, g.is_coalesced(), g._indices(), g._values(), g.to_dense()

    check(program)


def test_sparse_gradients_accumulate_with_dense_and_sparse():
    def program(t):
        w = _weight(t)
        emb = t.nn.Embedding.from_pretrained(w.detach(), freeze=False, sparse=True)
        emb(t.tensor(IDX)).sum().backward()
        emb(t.tensor([1, 1])).pow(2).sum().backward()
        twice = emb.weight.grad.is_sparse, emb.weight.grad.to_dense()
        (emb(t.tensor(IDX)).sum() + emb.weight.sum()).backward()
        return twice, emb.weight.grad.is_sparse, emb.weight.grad

    check(program)


def test_embedding_bag_sparse_gradient_values():
    def program(t):
        w = _weight(t)
        out = t.nn.functional.embedding_bag(t.tensor([0, 2, 2, 4]), w, t.tensor([0, 2]),
                                            sparse=True, mode="mean")
        (out * t.tensor([[1.0], [2.0]])).sum().backward()
        return w.grad.is_sparse, w.grad.to_dense(), w.grad.coalesce()._indices()

    check(program)


@pytest.mark.parametrize("opt", ["sgd", "sgd_momentum", "adagrad", "sparse_adam"])
def test_optimizers_that_take_sparse_gradients(opt):
    make = {"sgd": lambda t, p: t.optim.SGD(p, lr=0.1),
            "sgd_momentum": lambda t, p: t.optim.SGD(p, lr=0.1, momentum=0.9),
            "adagrad": lambda t, p: t.optim.Adagrad(p, lr=0.5, lr_decay=0.01),
            "sparse_adam": lambda t, p: t.optim.SparseAdam(p, lr=0.1)}[opt]

    def program(t):
        emb = t.nn.Embedding.from_pretrained(t.tensor(W, dtype=t.float32), freeze=False,
                                             sparse=True)
        o = make(t, list(emb.parameters()))
        for rows in ([0, 2, 2], [1, 2], [4]):
            o.zero_grad()
            emb(t.tensor(rows)).square().sum().backward()
            o.step()
        return emb.weight

    check(program, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("make", [
    lambda t, p: t.optim.Adam(p), lambda t, p: t.optim.AdamW(p), lambda t, p: t.optim.RMSprop(p),
    lambda t, p: t.optim.SGD(p, lr=0.1, weight_decay=0.1),
    lambda t, p: t.optim.Adagrad(p, weight_decay=0.1)], ids=["adam", "adamw", "rmsprop",
                                                              "sgd_decay", "adagrad_decay"])
@pytest.mark.parametrize("lib", ["torch", "jtorch"])
def test_optimizers_refuse_sparse_gradients_as_pytorch(lib, make):
    t = BACKENDS[lib]
    w = _weight(t)
    t.nn.functional.embedding(t.tensor(IDX), w, sparse=True).sum().backward()
    with pytest.raises(RuntimeError, match="sparse"):
        make(t, [w]).step()


def test_scale_grad_by_freq_refused_with_sparse():
    def program(t):
        w = _weight(t)
        t.nn.functional.embedding(t.tensor(IDX), w, sparse=True,
                                  scale_grad_by_freq=True).sum().backward()

    check(program, raises=RuntimeError)


def test_no_gradient_needed_is_a_plain_lookup():
    def program(t):
        w = _weight(t)
        with t.no_grad():
            out = t.nn.functional.embedding(t.tensor(IDX), w, sparse=True)
        return out, out.requires_grad

    check(program)
