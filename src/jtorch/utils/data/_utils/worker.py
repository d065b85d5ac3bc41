"""DataLoader worker processes: what runs in them, and ``get_worker_info``."""

from __future__ import annotations

import os
import queue
import random
import traceback
from dataclasses import dataclass

import numpy as np

__all__ = ["WorkerInfo", "get_worker_info"]


@dataclass(frozen=True)
class WorkerInfo:
    id: int
    num_workers: int
    seed: int
    dataset: object

    def __repr__(self) -> str:
        return (f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, "
                f"dataset={self.dataset!r})")


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """Inside a DataLoader worker process: this worker's id, count, seed and dataset copy;
    in the main process: None."""
    return _worker_info


class _IterableEnd:
    """Sent by a worker whose iterable dataset is exhausted."""

    def __init__(self, worker_id: int):
        self.worker_id = worker_id


@dataclass
class _Failure:
    """An exception raised in a worker, re-raised in the main process with its traceback."""

    exc_type: type
    message: str

    def reraise(self, worker_id: int):
        msg = f"Caught {self.exc_type.__name__} in DataLoader worker process {worker_id}.\n" \
              f"Original {self.message}"
        try:
            exc = self.exc_type(msg)
        except Exception:  # noqa: BLE001 - an exception type with a custom signature
            exc = RuntimeError(msg)
        raise exc


_MASK32 = 0xFFFFFFFF


def _hasher(const: int, mult: int):
    """SeedSequence's hashmix step, with its multiplier state carried between calls."""
    state = [const]

    def hash_(value: int) -> int:
        value = (value ^ state[0]) & _MASK32
        state[0] = (state[0] * mult) & _MASK32
        value = (value * state[0]) & _MASK32
        return (value ^ (value >> 16)) & _MASK32

    return hash_


def _mix(x: int, y: int) -> int:
    result = (((0xCA01F9DD * x) & _MASK32) - ((0x4973F715 * y) & _MASK32)) & _MASK32
    return (result ^ (result >> 16)) & _MASK32


def _numpy_seed(base_seed: int, worker_id: int) -> list[int]:
    """PyTorch's ``_generate_state``: four uint32 words for ``np.random.seed``, hashed from
    (worker_id, base_seed) as NumPy's SeedSequence does, so NumPy's stream in a worker is
    not ``random``'s (which is seeded with ``base_seed + worker_id``)."""
    hash_a = _hasher(0x43B0D7E5, 0x931E8875)
    pool = [hash_a(e) for e in (worker_id, base_seed & _MASK32, base_seed >> 32, 0)]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = _mix(pool[dst], hash_a(pool[src]))
    hash_b = _hasher(0x8B51F9DD, 0x58F38DED)
    return [hash_b(v) for v in pool]


def worker_loop(dataset, kind, index_queue, result_queue, collate_fn, auto_collation,
                drop_last, seed, init_fn, worker_id, num_workers):
    """Fetch batches for the keys arriving on ``index_queue`` until told to stop (None)."""
    global _worker_info
    from .... import manual_seed

    random.seed(seed)
    manual_seed(seed)
    try:
        import numpy as np

        np.random.seed(_numpy_seed(seed - worker_id, worker_id))
    except ImportError:
        pass
    _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
    init_error = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetch = _fetcher(dataset, kind, auto_collation, collate_fn, drop_last)
    except Exception as e:  # noqa: BLE001 - reported to the main process
        init_error = _Failure(type(e), traceback.format_exc())
        fetch = None
    exhausted = False
    while True:
        try:
            job = index_queue.get(timeout=5.0)
        except queue.Empty:
            if os.getppid() == 1:  # the main process is gone
                return
            continue
        if job is None:
            return
        task, keys = job
        if task == "reset":
            fetch = _fetcher(dataset, kind, auto_collation, collate_fn, drop_last)
            exhausted = False
            continue
        if init_error is not None:
            result_queue.put((task, init_error))
            init_error = None
            continue
        if exhausted:
            result_queue.put((task, _IterableEnd(worker_id)))
            continue
        try:
            data = fetch(keys)
        except StopIteration:
            exhausted = True
            data = _IterableEnd(worker_id)
        except Exception as e:  # noqa: BLE001 - reported to the main process
            data = _Failure(type(e), traceback.format_exc())
        result_queue.put((task, data))


def _gathered(dataset, keys, collate_fn):
    """``default_collate`` of a TensorDataset's samples (through any Subsets, as
    ``random_split`` makes) as one ``index_select`` per tensor: the rows ``keys``.

    The same batch as indexing every sample and stacking them, without a view and a copy
    per sample (two dispatches a sample made the loader cost more than a training step).
    On the CPU backend NumPy gathers the rows: an XLA gather compiles for every batch size
    (the last partial batch, a test loader's), 30 ms each.
    Keys that indexing a sample would reject take the per-sample path, to raise as it does."""
    from ..dataset import Subset, TensorDataset
    from .collate import default_collate

    if collate_fn is not default_collate or not keys:
        return None
    while type(dataset) is Subset:
        keys = [dataset.indices[k] for k in keys]
        dataset = dataset.dataset
    if type(dataset) is not TensorDataset or any(t.requires_grad or t.dim() == 0
                                                 for t in dataset.tensors):
        return None
    if not all(type(k) is int for k in keys):
        keys = [k.__index__() if hasattr(k, "__index__") and not isinstance(k, bool) else k
                for k in keys]
        if not all(type(k) is int for k in keys):
            return None
    n = dataset.tensors[0].shape[0]
    rows = np.asarray(keys, dtype=np.int64)
    rows = np.where(rows < 0, rows + n, rows)  # a sample's index may count from the end
    if ((rows < 0) | (rows >= n)).any():
        return None
    from .... import _kernels, from_numpy
    from ....eager.tensor import wrap

    index, out = None, []
    for t in dataset.tensors:
        value = t._value
        if _kernels._on_host(value):  # the CPU backend: NumPy gathers without a compile
            out.append(wrap(_kernels.device_array(np.asarray(value)[rows])))
        else:  # per batch size, XLA compiles a gather
            index = from_numpy(rows) if index is None else index
            out.append(t.index_select(0, index))
    return out


def _fetcher(dataset, kind, auto_collation, collate_fn, drop_last):
    """A function from the sampler's keys to one (collated) result, for either kind of
    dataset; an iterable dataset's fetch raises StopIteration when it runs out."""
    if kind == "map":
        def fetch(keys):
            if auto_collation:
                batch = _gathered(dataset, keys, collate_fn)
                if batch is not None:
                    return batch
                if callable(getattr(dataset, "__getitems__", None)):
                    return collate_fn(dataset.__getitems__(keys))
                return collate_fn([dataset[k] for k in keys])
            return collate_fn(dataset[keys])
        return fetch
    it = iter(dataset)

    def fetch_iter(keys):
        if auto_collation:
            batch = []
            for _ in keys:
                try:
                    batch.append(next(it))
                except StopIteration:
                    break
            if not batch or (drop_last and len(batch) < len(keys)):
                raise StopIteration
            return collate_fn(batch)
        return collate_fn(next(it))

    return fetch_iter
