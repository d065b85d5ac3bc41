"""Storages in shared memory: ``Tensor.share_memory_()``, ``is_shared()`` and the pickling
that lets another process re-attach to the same memory (``torch.multiprocessing``).

A shared storage keeps its data in a memory segment (an anonymous ``memfd`` passed as a file
descriptor, or a named POSIX segment under the "file_system" strategy) that every process
maps. JAX arrays are immutable, so ``SharedStorage.value`` reads the current bytes and a
write copies the new value in; a write whose base another process changed meanwhile is
applied as a difference, so concurrent (Hogwild) updates compose. The segment's first 8
bytes hold a token that every write changes; a process re-reads the data only when the
token differs from the one it last saw, so reading an unchanged tensor costs no copy.
Ordinary storages are untouched: converting a storage swaps its class in place, so every
alias of it (views, ``.data``, parameters) shares at once.
"""

from __future__ import annotations

import itertools
import mmap
import os
import weakref

import jax
import numpy as np

from .._device import cpu_device
from .storage import Storage

_HEADER = 64  # bytes before the data: the write token, padded to keep the data aligned
_SEGMENTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # storage -> _Segment
_ATTACHED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # key -> storage
_TOKENS = itertools.count(1)
_STRATEGY = ["file_descriptor" if hasattr(os, "memfd_create") else "file_system"]
_SLOT = Storage.value  # the plain slot, holding nothing once the data moved to the segment


class _Segment:
    """One mapping of a shared segment and this process's view of it."""

    def __init__(self, buf, kind: str, handle, dtype, shape, owner=None):
        self.kind, self.handle, self.owner = kind, handle, owner
        self.buf = buf
        self.token = np.frombuffer(buf, np.int64, 1, 0)
        self.array = np.frombuffer(buf, dtype, int(np.prod(shape)), _HEADER).reshape(shape)
        self.seen, self.cached = None, None

    def read(self):
        token = int(self.token[0])
        if token != self.seen or self.cached is None:
            self.seen = token  # read before the data: a concurrent write changes it again
            self.cached = jax.device_put(np.array(self.array), cpu_device())
        return self.cached

    def write(self, value) -> None:
        if isinstance(value, jax.core.Tracer):  # under a trace: held here, written when real
            self.cached, self.seen = value, int(self.token[0])
            return
        if value.shape != self.array.shape or value.dtype != self.array.dtype:
            raise RuntimeError("Trying to resize storage that is not resizable")
        new = np.asarray(value)
        base = self.cached
        raced = int(self.token[0]) != self.seen and base is not None and not isinstance(
            base, jax.core.Tracer) and new.dtype.kind in "fiuc"
        if raced:
            # Another process wrote since this one read ``base``: apply this change as a
            # difference, elementwise, so both updates survive (as two PyTorch in-place
            # kernels interleave) instead of this write erasing the other.
            np.add(self.array, new - np.asarray(base), out=self.array)
        else:
            np.copyto(self.array, new)
        token = (os.getpid() << 32) | next(_TOKENS)  # unique to this write in any process
        self.token[0] = token
        self.seen = token
        self.cached = None if raced else jax.device_put(value, cpu_device())


class SharedStorage(Storage):
    """A Storage whose base value lives in shared memory (see the module docstring)."""

    __slots__ = ()

    @property
    def value(self):
        return _SEGMENTS[self].read()

    @value.setter
    def value(self, new) -> None:
        _SEGMENTS[self].write(new)


def get_sharing_strategy() -> str:
    return _STRATEGY[0]


def set_sharing_strategy(strategy: str) -> None:
    _STRATEGY[0] = strategy


# ------------------------------------------------------------------ segments


def _create(nbytes: int):
    """A new segment of ``nbytes`` data bytes: (buffer, kind, handle, owner)."""
    size = _HEADER + max(nbytes, 1)
    if _STRATEGY[0] == "file_descriptor":
        fd = os.memfd_create("jtorch-shared", os.MFD_CLOEXEC)
        os.ftruncate(fd, size)
        return mmap.mmap(fd, size), "fd", fd, None
    from multiprocessing import shared_memory

    # The SharedMemory object names the segment and unlinks it (registered with the
    # resource tracker, as PyTorch's creator owns it); the data goes through our own map.
    owner = shared_memory.SharedMemory(create=True, size=size)
    return _map_name(owner.name), "name", owner.name, owner


def _map_name(name: str):
    import _posixshmem

    fd = _posixshmem.shm_open("/" + name.lstrip("/"), os.O_RDWR, mode=0o600)
    try:
        return mmap.mmap(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)


def _close(kind: str, handle, owner) -> None:
    if kind == "fd":
        os.close(handle)
    elif owner is not None:  # the creator removes the name; mappings stay valid
        try:
            owner.unlink()
        except FileNotFoundError:
            pass
        owner.close()


def _install(storage: Storage, seg: _Segment, key) -> None:
    _SLOT.__set__(storage, None)
    storage.__class__ = SharedStorage
    _SEGMENTS[storage] = seg
    _ATTACHED[key] = storage
    weakref.finalize(storage, _close, seg.kind, seg.handle, seg.owner)


def _key(kind: str, handle):
    if kind == "fd":
        st = os.fstat(handle)
        return ("fd", st.st_dev, st.st_ino)
    return ("name", handle)


def share_storage(storage: Storage) -> None:
    """Move ``storage``'s data into a new shared segment, in place."""
    if type(storage) is SharedStorage:
        return
    value = storage.value
    np_value = np.asarray(value)
    buf, kind, handle, owner = _create(np_value.nbytes)
    seg = _Segment(buf, kind, handle, np_value.dtype, np_value.shape, owner)
    seg.array[...] = np_value
    seg.token[0] = (os.getpid() << 32) | next(_TOKENS)
    seg.seen, seg.cached = int(seg.token[0]), value
    _install(storage, seg, _key(kind, handle))


def attach(kind: str, handle, dtype, shape) -> Storage:
    """The storage over a segment another process shared (one per segment per process)."""
    if kind == "fd":
        key = _key(kind, handle)
        found = _ATTACHED.get(key)
        if found is not None:
            os.close(handle)
            return found
        size = os.fstat(handle).st_size
        buf, owner = mmap.mmap(handle, size), None
    else:
        key = _key(kind, handle)
        found = _ATTACHED.get(key)
        if found is not None:
            return found
        buf, owner = _map_name(handle), None  # the creator owns (and unlinks) the name
    storage = object.__new__(Storage)
    Storage.__init__(storage, None)
    _install(storage, _Segment(buf, kind, handle, dtype, shape, owner), key)
    return storage


def segment_of(storage: Storage) -> _Segment:
    return _SEGMENTS[storage]


# ------------------------------------------------------------------ Tensor methods


def share_memory_(self):
    """Move this tensor's storage to shared memory (a no-op if already shared); CUDA
    tensors are left alone, as PyTorch leaves them."""
    from .._device import PLACEMENT

    if self.is_sparse:
        share_memory_(self._indices())
        share_memory_(self._values())
        return self
    if PLACEMENT.active and self.device.type != "cpu":
        return self
    share_storage(self._storage)
    init_reductions()  # a shared tensor pickles by handle through multiprocessing
    return self


def is_shared(self) -> bool:
    """Whether this tensor's storage lives in shared memory."""
    if self.is_sparse:
        return is_shared(self._indices()) and is_shared(self._values())
    return type(self._storage) is SharedStorage


# ------------------------------------------------------------------ pickling between processes


def _handle(seg: _Segment):
    """What a receiving process needs to map ``seg``: a duplicated fd travels through
    multiprocessing's own fd passing (to a spawned child, or via its resource sharer)."""
    if seg.kind == "fd":
        from multiprocessing import reduction

        return reduction.DupFd(seg.handle)
    return seg.handle


def reduce_tensor(t):
    """Pickle ``t`` by reference to its (now shared) storage, as PyTorch's reductions do."""
    from .tensor import Tensor

    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since "
            "autograd does not support crossing process boundaries.  If you just want to "
            "transfer the data, call detach() on the tensor before serializing (e.g., "
            "putting it on the queue).")
    if t.is_sparse:
        return _rebuild_sparse, (t._indices(), t._values(), tuple(t.shape),
                                 t.is_coalesced(), t.requires_grad)
    if type(t._storage) is not SharedStorage and not share_memory_(t).is_shared():
        return Tensor.__reduce_ex__(t, 2)  # a CUDA tensor: by value (no CUDA IPC here)
    seg = _SEGMENTS[t._storage]
    cls = type(t).__module__, type(t).__qualname__
    geometry = (tuple(t.shape), t._stride, t.storage_offset(), bool(t._chain))
    return _rebuild, (seg.kind, _handle(seg), seg.array.dtype.str, seg.array.shape, geometry,
                      t.requires_grad, cls, _user_state(t))


def _rebuild(kind, handle, dtype, base_shape, geometry, requires_grad, cls, state):
    import importlib

    from .._strides import contiguous_strides
    from .storage import VersionCounter
    from .tensor import _NP2T, Tensor, set_attributes

    if kind == "fd":
        handle = handle.detach()
    storage = attach(kind, handle, np.dtype(dtype), base_shape)
    t = object.__new__(Tensor)
    t._storage, t._vc, t._shape = storage, VersionCounter(), tuple(base_shape)
    t.dtype = _NP2T[np.dtype(dtype)]
    shape, stride, offset, is_view = geometry
    if is_view:
        stride = stride if stride is not None else contiguous_strides(shape)
        t = t.as_strided(shape, stride, offset).detach()
    elif stride is not None:  # a layout (channels_last) over a value in logical order
        t._stride = stride
    typ = getattr(importlib.import_module(cls[0]), cls[1])
    if typ is not Tensor:
        t = typ(t, requires_grad) if _is_parameter(typ) else _as_class(t, typ)
    elif requires_grad:
        t.requires_grad_(True)
    set_attributes(t, state)
    return t


def _user_state(t) -> dict:
    """Attributes a user (or nn.Buffer) set on the tensor, not the tensor machinery's."""
    return {k: v for k, v in t.__dict__.items()
            if (not k.startswith("_") or k == "_is_buffer") and k != "dtype"}


def _is_parameter(typ) -> bool:
    from ..nn.parameter import Parameter

    return issubclass(typ, Parameter)


def _as_class(t, typ):
    from .tensor import retyped

    return retyped(t, typ)


def _rebuild_sparse(indices, values, size, coalesced, requires_grad):
    import jtorch

    out = jtorch.sparse_coo_tensor(indices, values, size, is_coalesced=coalesced)
    return out.requires_grad_(True) if requires_grad else out


_REGISTERED: set = set()


def init_reductions() -> None:
    """Register ``reduce_tensor`` with multiprocessing for every tensor class."""
    from multiprocessing.reduction import ForkingPickler

    from ..nn.parameter import Parameter
    from ..sparse._coo import SparseTensor
    from .tensor import Tensor

    for cls in (Tensor, Parameter, SparseTensor):
        if cls not in _REGISTERED:
            ForkingPickler.register(cls, reduce_tensor)
            _REGISTERED.add(cls)
