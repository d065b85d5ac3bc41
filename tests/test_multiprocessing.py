"""torch.multiprocessing with real shared memory: share_memory_/is_shared/Module.share_memory
in one process, then across spawned processes (a child's write seen by the parent, a
child's tensor received and written by the parent, spawn's error propagation) and a Hogwild
run against PyTorch's. The process bodies live in mp_workers.py."""

from __future__ import annotations

import pickle
import queue as queue_module
from multiprocessing.reduction import ForkingPickler

import mp_workers as W
import numpy as np
import pytest
import torch
import torch.multiprocessing as tmp
from conftest import check

import jtorch
import jtorch.multiprocessing as mp
from jtorch.eager import shared


def test_share_memory_matches_torch():
    def prog(t):
        x = t.arange(6.0).reshape(2, 3)
        view = x[1]
        before = (x.is_shared(), view.is_shared())
        x.share_memory_()
        view.add_(10)  # a view written after sharing: one copy of the data
        m = t.nn.Linear(2, 2)
        m.share_memory()
        return before, x.is_shared(), view.is_shared(), x, all(
            p.is_shared() for p in m.parameters()), x.share_memory_() is x

    check(prog)


@pytest.mark.parametrize("strategy", ["file_descriptor", "file_system"])
def test_pickled_tensor_reattaches_to_the_same_memory(strategy):
    """Through multiprocessing's pickler a tensor travels as a handle to its storage: the
    rebuilt tensor (here in the same process) reads and writes the one copy, views keep
    their geometry, Parameters stay Parameters."""
    mp.set_sharing_strategy(strategy)
    try:
        x = jtorch.arange(12.0).reshape(3, 4)
        p = jtorch.nn.Parameter(jtorch.ones(2))
        sent = ForkingPickler.dumps((x[:, 1::2], p))
        assert x.is_shared() and p.is_shared()  # pickling moved them, as PyTorch's queues do
        view, p2 = pickle.loads(sent)
        assert type(p2) is jtorch.nn.Parameter and p2.requires_grad
        np.testing.assert_array_equal(view.numpy(), x.numpy()[:, 1::2])
        view.mul_(-1)
        with jtorch.no_grad():
            p2.add_(1)
        assert x[0, 1].item() == -1.0 and p[0].item() == 2.0
        segment = shared.segment_of(x._storage)
        assert segment.kind == ("fd" if strategy == "file_descriptor" else "name")
    finally:
        mp.set_sharing_strategy("file_descriptor")


def test_strategy_and_start_method_api():
    assert mp.get_all_sharing_strategies() == tmp.get_all_sharing_strategies()
    assert mp.get_sharing_strategy() == tmp.get_sharing_strategy() == "file_descriptor"
    with pytest.raises(AssertionError):
        mp.set_sharing_strategy("nope")
    assert mp.get_start_method() == "spawn"  # JAX is not fork-safe: see the module doc
    assert mp.cpu_count() == tmp.cpu_count()
    for name in ("Process", "Queue", "SimpleQueue", "Pool", "Event", "get_context",
                 "get_all_start_methods", "set_start_method", "spawn", "start_processes",
                 "ProcessContext", "ProcessRaisedException", "ProcessExitedException"):
        assert hasattr(mp, name), name
    with pytest.raises(RuntimeError, match="Cowardly refusing"):
        ForkingPickler.dumps(jtorch.ones(2, requires_grad=True) * 2)


def test_children_share_memory_with_the_parent():
    """Two spawned children write into the parent's shared tensor and send tensors of their
    own; the parent writes into those and the children see it; the child that raises is
    reported as PyTorch's spawn reports it."""
    x = jtorch.zeros(2).share_memory_()
    q, event = mp.SimpleQueue(), mp.Event()
    ctx = mp.start_processes(W.write_and_send, args=(x, q, event), nprocs=2, join=False)
    received = sorted((q.get() for _ in range(2)), key=lambda r: r[0])
    for rank, t, child_saw_shared in received:
        assert child_saw_shared and t.is_shared()
        np.testing.assert_array_equal(t.numpy(), [rank] * 3)
        t.add_(100)
    event.set()
    after = sorted((q.get() for _ in range(2)), key=lambda r: r[0])
    assert after == [(0, [100.0] * 3, True), (1, [101.0] * 3, True)]
    with pytest.raises(mp.ProcessRaisedException) as info:
        while not ctx.join():
            pass
    assert info.value.error_index == 1
    assert "-- Process 1 terminated with the following error:" in str(info.value)
    assert "ValueError: rank 1 failed on purpose" in str(info.value)
    np.testing.assert_array_equal(x.numpy(), [10.0, 20.0])


def test_hogwild_reaches_torch_loss():
    """Two processes run SGD on one shared Linear model, as PyTorch's Hogwild example does.
    Without sharing each would end near the one-worker loss (~1.5); with it both reach
    the two-worker loss (~0.5), as PyTorch's run does."""
    results = {}
    for t, m in ((torch, tmp), (jtorch, mp)):
        t.manual_seed(0)
        model = t.nn.Linear(4, 1)
        with t.no_grad():
            model.weight.zero_()
            model.bias.zero_()
        model.share_memory()
        before = W.loss_of(t, model)
        m.spawn(W.hogwild_train, args=(t.__name__, model, 15, 0.03), nprocs=2)
        results[t.__name__] = before, W.loss_of(t, model)
    (t_before, t_after), (j_before, j_after) = results["torch"], results["jtorch"]
    assert abs(t_before - j_before) < 1e-5
    assert t_after < 1.0 and j_after < 1.0, results
    assert 0.5 < j_after / t_after < 2.0, results


def test_queue_module_is_pythons():
    """torch.multiprocessing re-exports Python's multiprocessing (Queue raises its Empty)."""
    q = mp.Queue()
    with pytest.raises(queue_module.Empty):
        q.get(timeout=0.01)
