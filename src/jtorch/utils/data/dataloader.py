"""DataLoader: batches from a dataset, in the main process or in worker processes.

Differences from PyTorch:
- Worker processes start with the ``forkserver`` method by default on Linux (``spawn``
  elsewhere; PyTorch forks on Linux): JAX is multithreaded and not safe
  to use in a forked child of a process that has used it. The fork server is a fresh
  interpreter that imports jtorch once and never runs JAX; each worker forks from it, so
  a worker starts in tens of milliseconds where a spawned one imported jtorch again
  (about a second). As with spawn (PyTorch on macOS/Windows), datasets, ``collate_fn``
  and ``worker_init_fn`` must be picklable and the script's entry point guarded by
  ``if __name__ == "__main__":``. Pass ``multiprocessing_context="fork"`` to fork the
  main process anyway (only safe if workers never touch JAX, e.g. datasets yielding
  NumPy data with a NumPy collate_fn). A loader built before this process has run JAX
  (no tensor op yet) gets a server forked from this process, ready at once; the
  workers' ``__main__`` is then the script as it stood when the loader was built.
- Batches come back from workers by value (a tensor is pickled as its data), not through
  shared memory.
- ``pin_memory`` is accepted and does nothing: there is no pinned host memory in JAX.
"""

from __future__ import annotations

import itertools
import multiprocessing
import queue
import sys
import warnings

from . import _utils
from ._utils import fork_server
from ._utils.collate import default_collate, default_convert
from ._utils.worker import _Failure, _IterableEnd, worker_loop
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

from ._utils.worker import get_worker_info  # noqa: E402


def _accelerator_available() -> bool:
    from ... import cuda

    return cuda.is_available()


class _InfiniteConstantSampler(Sampler):
    """Keys for an iterable dataset: None, forever (the dataset decides when to stop)."""

    def __iter__(self):
        while True:
            yield None


def _check_arguments(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers,
                     drop_last, timeout, prefetch_factor, persistent_workers):
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if isinstance(dataset, IterableDataset):
        if shuffle not in {False, None}:
            raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                             f"option, but got shuffle={shuffle}")
        if sampler is not None:
            raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                             f"option, but got sampler={sampler}")
        if batch_sampler is not None:
            raise ValueError("DataLoader with IterableDataset: expected unspecified "
                             f"batch_sampler option, but got batch_sampler={batch_sampler}")
    if sampler is not None and shuffle:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None
                                      or drop_last):
        raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                         "shuffle, sampler, and drop_last")
    if batch_sampler is None and batch_size is None and drop_last:
        raise ValueError("batch_size=None option disables auto-batching and is mutually "
                         "exclusive with drop_last")


class DataLoader:
    """Iterate over ``dataset`` in batches (see the module docstring for the differences
    from PyTorch's worker processes)."""

    _FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
               "persistent_workers")

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False,
                 timeout=0, worker_init_fn=None, multiprocessing_context=None, generator=None,
                 *, prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        _check_arguments(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers,
                         drop_last, timeout, prefetch_factor, persistent_workers)
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if pin_memory and not _accelerator_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=2)
        iterable = isinstance(dataset, IterableDataset)
        if batch_sampler is not None:
            batch_size, drop_last = None, False
        if sampler is None:
            if iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers, self.collate_fn, self.pin_memory = num_workers, collate_fn, pin_memory
        self.pin_memory_device, self.timeout = pin_memory_device, timeout
        self.worker_init_fn, self.prefetch_factor = worker_init_fn, prefetch_factor
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers, self.in_order = persistent_workers, in_order
        self._dataset_kind = "iterable" if iterable else "map"
        self._iterator = None
        self._initialized = True
        if num_workers > 0 and multiprocessing_context is None:
            _start_fork_server()

    def __setattr__(self, name, value):
        if getattr(self, "_initialized", False) and name in self._FROZEN:
            raise ValueError(f"{name} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._dataset_kind == "iterable":
            length = len(self.dataset)
            if self.batch_size is not None:
                from math import ceil

                length = length // self.batch_size if self.drop_last else \
                    ceil(length / self.batch_size)
            # PyTorch warns about an overlong iterable only once len() was asked for.
            object.__setattr__(self, "_len_called", length)
            return length
        return len(self._index_sampler)

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if self.persistent_workers:
            if self._iterator is None:
                object.__setattr__(self, "_iterator", _MultiProcessIter(self))
            else:
                self._iterator._reset(self)
            return self._iterator
        return _MultiProcessIter(self)

    def _base_seed(self) -> int:
        """PyTorch's draw: one int64 ``random_`` from the loader's generator (or the global
        one) per iterator; worker ``i`` is seeded with ``base_seed + i``."""
        from ... import empty, int64

        return int(empty((), dtype=int64).random_(generator=self.generator).item())


class _BaseIter:
    def __init__(self, loader: DataLoader):
        self._loader = loader
        self._reset(loader)

    def _reset(self, loader):
        self._keys = iter(loader._index_sampler)
        self._yielded = 0
        self._warned = False

    def __iter__(self):
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def _count(self):
        loader = self._loader
        self._yielded += 1
        length = getattr(loader, "_len_called", None)
        if loader._dataset_kind == "iterable" and not self._warned and length is not None:
            if self._yielded > length:
                self._warned = True
                warnings.warn(
                    f"Length of IterableDataset {loader.dataset} was reported to be {length} "
                    "(when accessing len(dataloader)), but "
                    f"{self._yielded} samples have been fetched. ", UserWarning, stacklevel=3)


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader: DataLoader):
        loader._base_seed()  # PyTorch's iterator draws it, workers or not: streams stay aligned
        super().__init__(loader)

    def _reset(self, loader):
        super()._reset(loader)
        self._fetch = _utils.worker._fetcher(loader.dataset, loader._dataset_kind,
                                              loader._auto_collation, loader.collate_fn,
                                              loader.drop_last)

    def __next__(self):
        keys = next(self._keys)
        data = self._fetch(keys)  # StopIteration from an exhausted iterable ends us too
        self._count()
        return data


def _default_context():
    """The fork server on Linux, preloading jtorch (see the module's docstring); spawn
    elsewhere (macOS has a fork server, but forking there after system frameworks have
    loaded can crash the child, which is why Python spawns by default on macOS)."""
    if not sys.platform.startswith("linux"):
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["jtorch"])  # read when the server starts: the first time
    return ctx


def _start_fork_server() -> None:
    """Start the workers' fork server now, in a program's own process (not in a worker
    re-running the script's top level): a fork of this process while it has not run JAX
    (ready at once, ``_utils.fork_server``), else a fresh interpreter whose import of
    jtorch (about a second) overlaps what the program does before it iterates (building
    a model, an optimizer)."""
    ctx = _default_context()
    # A worker re-running the script's top level is named before it does (and gets its
    # parent after): it starts nothing.
    if (ctx.get_start_method() != "forkserver" or multiprocessing.parent_process() is not None
            or multiprocessing.current_process().name != "MainProcess"):
        return
    from multiprocessing import forkserver

    if not fork_server.start():
        forkserver.ensure_running()


class _MultiProcessIter(_BaseIter):
    """Workers fetch batches for keys sent round-robin; results come back in order."""

    def __init__(self, loader: DataLoader):
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = _default_context()
        elif isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        self._results = ctx.Queue()
        self._index_queues, self._workers = [], []
        base_seed = loader._base_seed()
        for i in range(loader.num_workers):
            q = ctx.Queue()
            w = ctx.Process(target=worker_loop, daemon=True, args=(
                loader.dataset, loader._dataset_kind, q, self._results, loader.collate_fn,
                loader._auto_collation, loader.drop_last, base_seed + i,
                loader.worker_init_fn, i, loader.num_workers))
            w.start()
            self._index_queues.append(q)
            self._workers.append(w)
        self._shutdown = False
        super().__init__(loader)

    def _reset(self, loader):
        if hasattr(self, "_sent"):  # a new epoch on persistent workers
            self._pending_drain = self._sent - self._received - len(self._buffer)
            for q in self._index_queues:
                q.put(("reset", None))  # workers restart their iterable datasets
        super()._reset(loader)
        self._sent = self._received = 0
        self._active = [True] * len(self._workers)
        self._next_worker = itertools.cycle(range(len(self._workers)))
        self._task_worker: dict[int, int] = {}
        self._buffer: dict[int, object] = {}
        self._epoch_done = False
        if getattr(self, "_pending_drain", 0):
            self._drain()
        for _ in range(loader.prefetch_factor * len(self._workers)):
            self._send()

    def _drain(self):
        """Collect results still in flight from an abandoned epoch (persistent workers)."""
        while self._pending_drain:
            self._results.get()
            self._pending_drain -= 1

    def _send(self) -> None:
        if self._epoch_done or not any(self._active):
            return
        try:
            keys = next(self._keys)
        except StopIteration:
            self._epoch_done = True
            return
        for _ in range(len(self._workers)):
            w = next(self._next_worker)
            if self._active[w]:
                break
        self._index_queues[w].put((self._sent, keys))
        self._task_worker[self._sent] = w
        self._sent += 1

    def _get(self):
        timeout = self._loader.timeout
        while True:
            try:
                return self._results.get(timeout=timeout if timeout > 0 else 5.0)
            except queue.Empty:
                if timeout > 0:
                    raise RuntimeError(
                        f"DataLoader timed out after {timeout} seconds") from None
                dead = [w.pid for w in self._workers if not w.is_alive()]
                if dead:
                    self._close()
                    raise RuntimeError(f"DataLoader worker (pid(s) "
                                       f"{', '.join(map(str, dead))}) exited unexpectedly") \
                        from None

    def __next__(self):
        while True:
            if self._received == self._sent:
                self._finish()
                raise StopIteration
            task = self._received
            while task not in self._buffer:
                t, data = self._get()
                self._buffer[t] = data
            data = self._buffer.pop(task)
            self._received += 1
            if isinstance(data, _IterableEnd):
                self._active[data.worker_id] = False
                self._send()
                continue
            if isinstance(data, _Failure):
                self._close()
                data.reraise(self._task_worker[task])
            self._send()
            self._count()
            return data

    def _finish(self):
        if not self._loader.persistent_workers:
            self._close()

    def _close(self):
        if self._shutdown:
            return
        self._shutdown = True
        for q in self._index_queues:
            q.put(None)
        for w in self._workers:
            w.join(timeout=5)
            if w.is_alive():
                w.terminate()

    def __del__(self):
        # Stopped, not told: when the collector frees this iterator with its loader (a
        # persistent iterator and its loader hold each other), its queues are finalised
        # first, so a stop message would never leave, and waiting for the workers to take
        # it held the program for the join's timeouts.
        if not getattr(self, "_shutdown", True):
            self._shutdown = True
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
