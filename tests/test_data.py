"""torch.utils.data against PyTorch: datasets, samplers, collation, DataLoader batching,
lengths and argument errors; shuffles compared within one library (reproducibility),
since random streams differ; worker processes really used."""

from __future__ import annotations

import collections
import os
import warnings

import numpy as np
import pytest
from conftest import check
from data_workers import ParentDataset, PidDataset, SeedDataset, ShardedStream, init_worker

import jtorch

Point = collections.namedtuple("Point", "x y")


def _batches(loader):
    return [b for b in loader]


# ------------------------------------------------------------------ datasets


def test_tensor_dataset_and_batches_are_lists():
    def prog(t):
        ds = t.utils.data.TensorDataset(t.arange(10.0).reshape(5, 2), t.arange(5))
        return len(ds), ds[1], _batches(t.utils.data.DataLoader(ds, batch_size=2))

    check(prog)


@pytest.mark.parametrize("keys", [[4, 0, 2, 2], [-1, 1], [1, 5]])
def test_tensor_dataset_batches_through_subsets(keys):
    """A batch of rows (gathered in one op) equals the stacked samples, through Subsets;
    a key past the end raises as indexing the sample does."""

    def prog(t):
        ds = t.utils.data.TensorDataset(t.arange(20.0).reshape(5, 2, 2), t.arange(5) * 3,
                                        t.tensor([True, False, True, True, False]))
        sub = t.utils.data.Subset(t.utils.data.Subset(ds, [4, 3, 2, 1, 0]), [0, 1, 2, 3, 4])
        return [_batches(t.utils.data.DataLoader(d, sampler=keys, batch_size=3))
                for d in (ds, sub)]

    check(prog, raises=IndexError if 5 in keys else None)


def test_tensor_dataset_batches_of_any_size_compile_nothing():
    """On the CPU backend a TensorDataset's batch is gathered by NumPy, not by an XLA
    gather compiled per batch size (a last partial batch, a test loader's size); the
    batches are fresh tensors equal to PyTorch's, through a view of the data too."""
    from jtorch import _kernels

    def prog(t):
        x = t.arange(60.0, dtype=t.float64).reshape(10, 3, 2)
        ds = t.utils.data.TensorDataset(x[:, 1:], t.arange(10) * 2, t.arange(10.0).half())
        batches = _batches(t.utils.data.DataLoader(ds, batch_size=4))
        for b in batches:
            b[0].add_(1)  # a batch owns its values: the dataset is unchanged
        return batches, ds.tensors[0]

    check(prog)
    ds = jtorch.utils.data.TensorDataset(jtorch.ones(11, 2), jtorch.zeros(11))
    before = _kernels.TRACES[0]
    for size in (3, 5):
        _batches(jtorch.utils.data.DataLoader(ds, batch_size=size))
    assert _kernels.TRACES[0] == before


def test_tensor_dataset_size_mismatch():
    check(lambda t: t.utils.data.TensorDataset(t.zeros(3), t.zeros(4)), raises=AssertionError)


def test_concat_subset_chain_stack():
    def prog(t):
        D = t.utils.data
        a = D.TensorDataset(t.arange(3))
        b = D.TensorDataset(t.arange(10, 14))
        cat = a + b
        sub = D.Subset(cat, [6, 0, 3])

        class Count(D.IterableDataset):
            def __init__(self, n):
                self.n = n

            def __iter__(self):
                return iter(range(self.n))

            def __len__(self):
                return self.n

        chain = Count(2) + Count(3)
        stack = D.StackDataset(a, D.TensorDataset(t.arange(3) * 2))
        named = D.StackDataset(p=a, q=a)
        return (len(cat), cat.cumulative_sizes, cat[4], cat[-1], [sub[i] for i in range(3)],
                list(chain), len(chain), stack[2], named[1], len(named))

    check(prog)


def test_concat_errors():
    check(lambda t: t.utils.data.ConcatDataset([]), raises=AssertionError)
    check(lambda t: (t.utils.data.TensorDataset(t.arange(3)) + t.utils.data.TensorDataset(
        t.arange(3)))[-7], raises=ValueError)


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.25, 0.25, 0.5], [0.34, 0.33, 0.33]])
def test_random_split_sizes(lengths):
    def prog(t):
        parts = t.utils.data.random_split(range(10), lengths,
                                          generator=t.Generator().manual_seed(1))
        flat = sorted(i for p in parts for i in p)
        return [len(p) for p in parts], flat

    check(prog)


def test_random_split_errors_and_reproducible():
    check(lambda t: t.utils.data.random_split(range(10), [3, 3]), raises=ValueError)
    check(lambda t: t.utils.data.random_split(range(10), [1.5, -0.5]), raises=ValueError)
    g = [jtorch.Generator().manual_seed(3) for _ in range(2)]
    a, b = (jtorch.utils.data.random_split(range(10), [5, 5], generator=x) for x in g)
    assert list(a[0]) == list(b[0])


# ------------------------------------------------------------------ samplers


def test_deterministic_samplers():
    def prog(t):
        D = t.utils.data
        seq = list(D.SequentialSampler(range(5)))
        batches = list(D.BatchSampler(range(7), 3, False))
        dropped = list(D.BatchSampler(range(7), 3, True))
        return seq, batches, dropped, len(D.BatchSampler(range(7), 3, False)), len(
            D.BatchSampler(range(7), 3, True))

    check(prog)


@pytest.mark.parametrize("kw", [dict(), dict(shuffle=False), dict(drop_last=True),
                                dict(num_replicas=3, rank=2, shuffle=False),
                                dict(num_replicas=4, rank=0, drop_last=True, shuffle=False)])
def test_distributed_sampler(kw):
    def prog(t):
        kw2 = dict(num_replicas=2, rank=1) | kw
        s = t.utils.data.DistributedSampler(range(7), **kw2)
        idx = list(s)
        shuffled = kw2.get("shuffle", True)
        return len(s), len(idx), (set(idx) <= set(range(7)) if shuffled else idx)

    check(prog)


def test_distributed_sampler_needs_a_world():
    check(lambda t: t.utils.data.DistributedSampler(range(4)), raises=ValueError)
    check(lambda t: t.utils.data.DistributedSampler(range(4), num_replicas=2, rank=2),
          raises=ValueError)


def test_random_samplers_are_permutations_and_reproducible():
    D = jtorch.utils.data
    s = D.RandomSampler(range(10), generator=jtorch.Generator().manual_seed(0))
    assert sorted(s) == list(range(10)) and len(s) == 10
    r = D.RandomSampler(range(10), replacement=True, num_samples=40)
    draws = list(r)
    assert len(draws) == 40 and all(0 <= i < 10 for i in draws)
    more = D.RandomSampler(range(4), num_samples=10)
    assert len(list(more)) == 10 and sorted(list(more)[:4]) == [0, 1, 2, 3]
    sub = D.SubsetRandomSampler([5, 7, 9])
    assert sorted(sub) == [5, 7, 9]
    w = list(D.WeightedRandomSampler([0.0, 1.0, 0.0, 1.0], 20))
    assert set(w) <= {1, 3} and len(w) == 20
    nr = list(D.WeightedRandomSampler([1, 1, 1, 1], 4, replacement=False))
    assert sorted(nr) == [0, 1, 2, 3]
    jtorch.manual_seed(5)
    a = list(D.RandomSampler(range(10)))
    jtorch.manual_seed(5)
    assert a == list(D.RandomSampler(range(10)))


def test_sampler_argument_errors():
    check(lambda t: t.utils.data.RandomSampler(range(3), num_samples=0), raises=ValueError)
    check(lambda t: t.utils.data.RandomSampler(range(3), replacement=1), raises=TypeError)
    check(lambda t: t.utils.data.BatchSampler(range(3), 0, False), raises=ValueError)
    check(lambda t: t.utils.data.WeightedRandomSampler([1.0, 2.0], 0), raises=ValueError)


# ------------------------------------------------------------------ collation


def test_default_collate_types():
    def prog(t):
        c = t.utils.data.default_collate
        return (c([1.5, 2.5]), c([1, 2]), c([True, False]), c(["a", "b"]),
                c([np.array([1, 2]), np.array([3, 4])]), c([np.float32(1), np.float32(2)]),
                c([{"a": 1, "b": t.ones(2)}, {"a": 2, "b": t.zeros(2)}]),
                c([Point(1, 2.0), Point(3, 4.0)]), c([(1, [2.0, 3.0]), (4, [5.0, 6.0])]),
                c([np.int64(3), np.int64(4)]))

    check(prog)


def test_default_collate_errors():
    check(lambda t: t.utils.data.default_collate([[1, 2], [3]]), raises=RuntimeError)
    check(lambda t: t.utils.data.default_collate([object(), object()]), raises=TypeError)
    check(lambda t: t.utils.data.default_collate([t.ones(2), t.ones(3)]), raises=RuntimeError)


def test_default_convert():
    def prog(t):
        c = t.utils.data.default_convert
        return (c(np.array([1.0, 2.0])), c((np.int32(3), "s")), c({"k": np.ones(2)}),
                c(Point(np.array([1]), 2)), c(5))

    check(prog)


# ------------------------------------------------------------------ DataLoader


def _range_ds(t, n=10):
    return t.utils.data.TensorDataset(t.arange(float(n)), t.arange(n))


@pytest.mark.parametrize("kw", [dict(batch_size=3), dict(batch_size=3, drop_last=True),
                                dict(batch_size=None), dict(batch_size=4, collate_fn=lambda b: b)])
def test_loader_batches_and_len(kw):
    check(lambda t: (_batches(t.utils.data.DataLoader(_range_ds(t, 7), **kw)),
                     len(t.utils.data.DataLoader(_range_ds(t, 7), **kw))))


def test_loader_with_samplers():
    def prog(t):
        D = t.utils.data
        ds = _range_ds(t, 6)
        by_sampler = _batches(D.DataLoader(ds, batch_size=2, sampler=[5, 3, 1, 0]))
        by_batches = _batches(D.DataLoader(ds, batch_sampler=[[0, 1, 2], [5]]))
        return by_sampler, by_batches

    check(prog)


def test_loader_shuffle_reproducible_with_generator():
    D = jtorch.utils.data
    runs = [[b[1].tolist() for b in D.DataLoader(_range_ds(jtorch), batch_size=4,
                                                   shuffle=True,
                                                   generator=jtorch.Generator().manual_seed(7))]
            for _ in range(2)]
    assert runs[0] == runs[1]
    assert sorted(i for b in runs[0] for i in b) == list(range(10))


class _Stream:
    """An iterable dataset (defined per backend in the tests below)."""


def _iterable(t, n, length=None):
    class Stream(t.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            if length is None:
                raise TypeError("no len")
            return length

    return Stream()


def test_iterable_dataset_loader():
    def prog(t):
        D = t.utils.data
        ds = _iterable(t, 7, 7)
        return (_batches(D.DataLoader(ds, batch_size=3)), len(D.DataLoader(ds, batch_size=3)),
                len(D.DataLoader(ds, batch_size=3, drop_last=True)),
                _batches(D.DataLoader(ds, batch_size=3, drop_last=True)),
                _batches(D.DataLoader(ds, batch_size=None)))

    check(prog)


@pytest.mark.parametrize("ask_len", [False, True])
def test_iterable_longer_than_len_warns(ask_len):
    def prog(t):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            loader = t.utils.data.DataLoader(_iterable(t, 5, 2), batch_size=None)
            if ask_len:
                len(loader)
            out = _batches(loader)
        return out, any("was reported to be 2" in str(x.message) for x in w)

    check(prog)


@pytest.mark.parametrize("kw", [
    dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2),
    dict(persistent_workers=True), dict(shuffle=True, sampler=[0, 1]),
    dict(batch_sampler=[[0]], batch_size=2), dict(batch_sampler=[[0]], drop_last=True),
    dict(batch_size=None, drop_last=True),
])
def test_loader_argument_errors(kw):
    check(lambda t: t.utils.data.DataLoader(_range_ds(t), **kw), raises=ValueError)


@pytest.mark.parametrize("kw", [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])])
def test_iterable_loader_argument_errors(kw):
    check(lambda t: t.utils.data.DataLoader(_iterable(t, 3), **kw), raises=ValueError)


def test_loader_attributes_frozen():
    def prog(t):
        dl = t.utils.data.DataLoader(_range_ds(t))
        dl.batch_size = 3

    check(prog, raises=ValueError)


# ------------------------------------------------------------------ worker processes
# The workers' datasets live in a module that does not import PyTorch: the workers
# import it to unpickle them, and importing torch there would cost seconds per worker.



def test_workers_fork_from_a_server_that_never_ran_jax():
    """Workers start from the fork server (a fresh interpreter that imported jtorch, never
    ran JAX), not from this process, whose JAX threads a forked child would lack; each
    runs JAX of its own. Off Linux they are spawned."""
    import sys

    D = jtorch.utils.data
    jtorch.ones(2).sum().item()  # this process has run JAX
    rows = [r for b in D.DataLoader(ParentDataset(), batch_size=2, num_workers=2)
            for r in b.tolist()]
    assert [r[1] for r in rows] == [0.0, 3.0, 6.0, 9.0]
    parents = {int(r[0]) for r in rows}
    if sys.platform.startswith("linux"):
        assert len(parents) == 1 and os.getpid() not in parents  # the server
    else:
        assert parents == {os.getpid()}


_MODULE_LEVEL_LOADER = """
import sys
from multiprocessing import forkserver

import jtorch
from jtorch.utils.data import DataLoader, Dataset


class Rows(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return jtorch.tensor([float(i)])


# Built when the script runs and again when each worker re-runs its top level: only the
# program's own process starts the fork server (a worker that did would raise).
loader = DataLoader(Rows(), batch_size=2, num_workers=2)
if __name__ == "__main__":
    running = forkserver._forkserver._forkserver_pid is not None
    fork = sys.platform.startswith("linux")
    print("server started before iterating", running == fork)
    print([b.flatten().tolist() for b in loader])
"""


def test_loader_built_at_module_level_starts_the_fork_server_once(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "loader_script.py"
    script.write_text(_MODULE_LEVEL_LOADER)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["server started before iterating True",
                                        "[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]"]


_LOADER_BEFORE_JAX = """
import os
import sys

import jtorch
from jtorch.utils.data import DataLoader, Dataset

print("top level ran")  # once: workers do not re-run the script


class Rows(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):  # JAX in the worker, and which process is its parent
        server = os.getppid()
        with open(f"/proc/{server}/cmdline", "rb") as f:
            forked = b"forkserver" not in f.read()
        return jtorch.tensor([float(i), (jtorch.arange(3.0) * i).sum().item(), forked])


def main():
    loader = DataLoader(Rows(), batch_size=2, num_workers=2)  # no tensor op yet
    for _ in range(2):  # a second epoch's workers come from the same server
        print([b.tolist() for b in loader])
    late = DataLoader(Rows(), batch_size=4, num_workers=1)  # the server is shared
    print([b.tolist() for b in late])


if __name__ == "__main__":
    main()
"""


def test_loader_built_before_any_tensor_op_forks_its_server_from_the_program(tmp_path):
    """No JAX has run when the loader is built: the fork server is a fork of the program
    (ready at once, no second interpreter importing jtorch); its workers run JAX of their
    own, and the script's top level runs once."""
    import subprocess
    import sys

    script = tmp_path / "early_loader.py"
    script.write_text(_LOADER_BEFORE_JAX)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    forked = 1.0 if sys.platform.startswith("linux") else 0.0
    epoch = str([[[0.0, 0.0, forked], [1.0, 3.0, forked]],
                 [[2.0, 6.0, forked], [3.0, 9.0, forked]]])
    assert proc.stdout.splitlines() == [
        "top level ran", epoch, epoch,
        str([[[0.0, 0.0, forked], [1.0, 3.0, forked], [2.0, 6.0, forked],
              [3.0, 9.0, forked]]])]


def test_a_collected_iterator_stops_its_workers():
    """A loader and its persistent iterator (a reference cycle) left to the collector:
    the workers are told to stop without the collector waiting on them, and exit."""
    import gc

    loader = jtorch.utils.data.DataLoader(PidDataset(), batch_size=2, num_workers=2,
                                          persistent_workers=True)
    assert len(list(loader)) == 4
    workers = list(loader._iterator._workers)
    del loader
    gc.collect()
    for w in workers:
        w.join(timeout=60)
        assert not w.is_alive()


def test_workers_are_real_processes_and_match_single_process():
    D = jtorch.utils.data
    single = [b.tolist() for b in D.DataLoader(PidDataset(), batch_size=2)]
    loader = D.DataLoader(PidDataset(), batch_size=2, num_workers=2, persistent_workers=True,
                          worker_init_fn=init_worker)
    for _ in range(2):  # persistent workers serve a second epoch
        multi = [b.tolist() for b in loader]
        assert [[r[0] for r in b] for b in multi] == [[r[0] for r in b] for b in single]
        pids = {r[1] for b in multi for r in b}
        assert os.getpid() not in pids and len(pids) == 2
        assert {r[2] for b in multi for r in b} == {0, 1}
    stream = D.DataLoader(ShardedStream(), batch_size=2, num_workers=2)
    got = sorted(int(v) for b in stream for v in b)
    assert got == list(range(10))
    assert len(stream.__iter__().__class__.__mro__) > 0


def test_worker_seeds_follow_pytorchs_rules():
    """Worker i gets base_seed + i for ``random`` and torch, and PyTorch's hashed state for
    NumPy; base_seed is one int64 ``random_`` draw from the loader's generator."""
    import random

    from torch.utils.data._utils.worker import _generate_state

    g = jtorch.Generator().manual_seed(11)
    base = jtorch.empty((), dtype=jtorch.int64).random_(generator=g).item()
    loader = jtorch.utils.data.DataLoader(SeedDataset(), batch_size=None, num_workers=2,
                                          generator=jtorch.Generator().manual_seed(11))
    for seed, wid, r_py, r_np, r_jt in loader:
        assert seed == base + wid
        assert r_py == random.Random(seed).random()
        assert r_np == np.random.RandomState(_generate_state(base, wid)).random()
        assert r_jt == jtorch.rand((), generator=jtorch.Generator().manual_seed(seed)).item()


def test_worker_errors_reach_the_main_process():
    class Bad(jtorch.utils.data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            raise KeyError(i)

    loader = jtorch.utils.data.DataLoader(Bad(), batch_size=2)
    with pytest.raises(KeyError):
        next(iter(loader))
    assert jtorch.utils.data.get_worker_info() is None
