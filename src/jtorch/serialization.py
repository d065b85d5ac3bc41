"""torch.save / torch.load in PyTorch's own file formats, without PyTorch.

A checkpoint is a zip archive (``<name>/data.pkl``, one raw little-endian record per
storage under ``<name>/data/``, and the small ``version``/``byteorder`` records), exactly
as PyTorch writes it, so files cross between the two libraries both ways. The older
pickle-stream format (``_use_new_zipfile_serialization=False``) is read as well.

Differences from PyTorch:
- A storage is written in the row-major order of its base value. Tensors sharing a
  storage still share it after loading (an in-place change to one shows in the other),
  but a saved tensor whose memory was laid out non-contiguously comes back with the
  contiguous strides of that order (values are unchanged).
- Loaded tensors that share one storage are views of a hidden one-dimensional base.
"""

from __future__ import annotations

import _compat_pickle
import contextlib
import io
import mmap
import os
import pickle
import struct
import sys
import zipfile
from collections import Counter, OrderedDict
from typing import Any

import jax.numpy as jnp
import numpy as np

from . import _dtypes as D
from ._device import device as Device
from ._kernels import device_array
from .eager.tensor import Size, Tensor, wrap

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals"]

DEFAULT_PROTOCOL = 2
_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
_PROTOCOL_VERSION = 1001
_ALIGN = 64

_STORAGE_NAMES = {
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
    "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage",
    "bool": "BoolStorage", "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}
_STORAGE_DTYPES = {v: getattr(D, k) for k, v in _STORAGE_NAMES.items()}


# ------------------------------------------------------------------ saving


class _Global:
    """A stand-in for a PyTorch global (``torch._utils._rebuild_tensor_v2``, ...) that the
    pickler writes by name, so jtorch can write PyTorch's pickles without importing it."""

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle insists that a reduce function be callable
        raise TypeError(f"{self.module}.{self.name} is a name in a PyTorch pickle")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_SIZE = _Global("torch", "Size")
_DEVICE = _Global("torch", "device")
_STORAGE_GLOBALS = {name: _Global("torch", name) for name in _STORAGE_DTYPES}


class _StorageRef:
    """One storage's data as it is written: a flat array and its storage class name."""

    def __init__(self, key: str, flat: np.ndarray, dtype: D.dtype):
        self.key, self.flat, self.dtype = key, flat, dtype


def _layout(t: Tensor):
    """(offset, stride) of ``t`` in the row-major order of its storage's base value, or None
    when ``t`` is not a strided window of that order (an as_strided view of a transposed
    base, say)."""
    base = t._storage.value
    if not t._chain:
        return 0, _row_major(base.shape)
    from .eager.views import read_chain

    positions = np.asarray(read_chain(t._chain, jnp.arange(base.size).reshape(base.shape)))
    if positions.size == 0:
        return 0, _row_major(positions.shape)
    offset = int(positions.flat[0])
    stride = tuple(int(np.take(positions, 1, axis=d).flat[0]) - offset
                   if positions.shape[d] > 1 else 1 for d in range(positions.ndim))
    grid = offset + sum(np.arange(n).reshape((-1,) + (1,) * (positions.ndim - d - 1)) * s
                        for d, (n, s) in enumerate(zip(positions.shape, stride)))
    return (offset, stride) if np.array_equal(positions, grid) else None


def _row_major(shape) -> tuple:
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


class _Pickler(pickle._Pickler):
    """Writes jtorch tensors, dtypes, sizes and devices under PyTorch's global names."""

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages: dict[int, _StorageRef] = {}

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            return ("storage", _STORAGE_GLOBALS[_STORAGE_NAMES[obj.dtype.name]], obj.key,
                    "cpu", int(obj.flat.size))
        return None

    def _storage_ref(self, t: Tensor, whole: bool):
        key = id(t._storage) if whole else id(t)
        ref = self.storages.get(key)
        if ref is None:
            value = t._storage.value if whole else t._value
            ref = _StorageRef(str(len(self.storages)), np.asarray(value).reshape(-1), t.dtype)
            self.storages[key] = ref
        return ref

    def reducer_override(self, obj):
        if isinstance(obj, _Global):
            return obj.name
        if isinstance(obj, D.dtype):
            return obj.name
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if isinstance(obj, Size):
            return (_SIZE, (tuple(obj),))
        if isinstance(obj, Device):
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            return (_DEVICE, args)
        return NotImplemented

    def _reduce_tensor(self, t: Tensor):
        if getattr(t, "is_sparse", False):
            raise RuntimeError("torch.save of sparse tensors is not supported by jtorch yet")
        from .eager.autograd.grad_mode import no_grad

        if type(t) is not Tensor and type(t).__name__ == "Parameter":
            with no_grad():
                data = t.detach()
            return (_REBUILD_PARAMETER, (data, t.requires_grad, OrderedDict()))
        layout = _layout(t)
        ref = self._storage_ref(t, whole=layout is not None)
        offset, stride = layout if layout is not None else (0, _row_major(t._shape))
        return (_REBUILD_TENSOR, (ref, offset, tuple(t._shape), stride, t.requires_grad,
                                  OrderedDict()))

    def save_global(self, obj, name=None):
        if isinstance(obj, _Global):
            module, name = obj.module, obj.name
        elif isinstance(obj, D.dtype):
            module, name = "torch", obj.name
        else:
            return super().save_global(obj, name)
        self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())
        self.memoize(obj)


def _record_name(f) -> str:
    if isinstance(f, str | os.PathLike):
        return os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    return "archive"


def _write_record(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    """A stored (uncompressed) entry whose data starts on a 64-byte boundary, as PyTorch's
    writer aligns them (its reader maps storages in place)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    start = zf.fp.tell() + 30 + len(name.encode())
    pad = (-(start + 4)) % _ALIGN
    info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad  # PyTorch's "FB" padding field
    zf.writestr(info, data)


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False) -> None:
    """Write ``obj`` to the path or binary file ``f`` in PyTorch's zip checkpoint format."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError(
            "jtorch writes only the zip checkpoint format (the default since PyTorch 1.6); "
            "drop _use_new_zipfile_serialization=False"
        )
    buf = io.BytesIO()
    pickler = _Pickler(buf, pickle_protocol)
    pickler.dump(obj)
    name = _record_name(f)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
        _write_record(zf, f"{name}/data.pkl", buf.getvalue())
        _write_record(zf, f"{name}/.format_version", b"1")
        _write_record(zf, f"{name}/.storage_alignment", b"64")
        if not _disable_byteorder_record:
            _write_record(zf, f"{name}/byteorder", sys.byteorder.encode())
        for ref in pickler.storages.values():
            _write_record(zf, f"{name}/data/{ref.key}", _raw_bytes(ref.flat))
        _write_record(zf, f"{name}/version", b"3\n")
        _write_record(zf, f"{name}/.data/serialization_id", b"0" * 40)
    if isinstance(f, str | os.PathLike):
        with open(f, "wb") as fh:
            fh.write(out.getvalue())
    else:
        f.write(out.getvalue())


def _raw_bytes(flat: np.ndarray) -> bytes:
    return np.ascontiguousarray(flat).tobytes()


# ------------------------------------------------------------------ safe globals

_SAFE_GLOBALS: dict[str, Any] = {}


def _global_name(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes/functions in ``load(weights_only=True)``: objects, or
    ``(object, "module.name")`` pairs naming where the pickle refers to them."""
    for g in safe_globals:
        if isinstance(g, tuple):
            obj, name = g
            _SAFE_GLOBALS[name] = obj
        else:
            _SAFE_GLOBALS[_global_name(g)] = g


def get_safe_globals() -> list:
    return list(_SAFE_GLOBALS.values())


def clear_safe_globals() -> None:
    _SAFE_GLOBALS.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list):
    """Within the block, ``load(weights_only=True)`` also allows these globals."""
    saved = dict(_SAFE_GLOBALS)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _SAFE_GLOBALS.clear()
        _SAFE_GLOBALS.update(saved)


# ------------------------------------------------------------------ loading


class _LoadedStorage:
    """What a callable ``map_location`` receives: the storage's data and where it goes."""

    def __init__(self, flat: np.ndarray, dtype: D.dtype, location: str = "cpu"):
        self.flat, self.dtype, self.location = flat, dtype, location

    @property
    def device(self) -> Device:
        return Device(self.location)

    def size(self) -> int:
        return int(self.flat.size)

    def _moved(self, location) -> _LoadedStorage:
        return _LoadedStorage(self.flat, self.dtype, str(Device(location)))

    def cpu(self) -> _LoadedStorage:
        return self._moved("cpu")

    def cuda(self, device=None, non_blocking=False) -> _LoadedStorage:
        return self._moved("cuda" if device is None else f"cuda:{Device(device).index or 0}"
                           if not isinstance(device, int) else f"cuda:{device}")

    def to(self, device=None, **kwargs) -> _LoadedStorage:
        return self._moved(device)


def _cuda_available() -> bool:
    try:
        from . import cuda

        return cuda.is_available()
    except ImportError:
        import jax

        return any(d.platform == "gpu" for d in jax.devices())


def _check_location(location: str) -> str:
    location = str(location)
    if location.startswith("cuda") and not _cuda_available():
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
            "is False. If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU."
        )
    if not (location.startswith("cpu") or location.startswith("cuda")):
        raise RuntimeError(f"don't know how to restore data location of {location}")
    return location


def _restore(storage: _LoadedStorage, location: str, map_location) -> _LoadedStorage:
    if map_location is None:
        target = location
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif isinstance(map_location, str | bytes | Device):
        target = map_location.decode() if isinstance(map_location, bytes) else map_location
    else:
        moved = map_location(storage, location)
        return moved if moved is not None else _restore(storage, location, None)
    target = str(target)
    _check_location(target)
    return _LoadedStorage(storage.flat, storage.dtype, target)


def _to_numpy(raw: bytes, dtype: D.dtype, byteorder: str) -> np.ndarray:
    arr = np.frombuffer(raw, dtype=dtype.np).copy()
    return arr.byteswap() if byteorder != sys.byteorder and arr.itemsize > 1 else arr


def _rebuild_tensor(storage, storage_offset, size, stride, requires_grad=False,
                    backward_hooks=None, metadata=None) -> Tensor:
    t = _StorageBases.view(storage, storage_offset, tuple(size), tuple(stride))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks, *state):
    from .nn.parameter import Parameter

    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    for k, v in (state or {}).items():
        setattr(param, k, v)
    return param


class _StorageBases:
    """Loaded storages: each becomes one jtorch base tensor that every tensor on it views."""

    current: dict | None = None

    @classmethod
    def view(cls, storage: _LoadedStorage, offset: int, size: tuple, stride: tuple) -> Tensor:
        entry = cls.current.get(id(storage))
        if entry is None:  # [the tensor owning the storage, the storage (kept alive)]
            entry = cls.current[id(storage)] = [None, storage]
        n = storage.size()
        whole = offset == 0 and int(np.prod(size)) == n and stride == _row_major(size)
        if entry[0] is None:
            # Shaped on the host: reshaping the device array compiles a program per shape.
            flat = np.asarray(storage.flat)
            entry[0] = wrap(device_array(flat.reshape(size) if whole else flat))
            if storage.location != "cpu":
                entry[0] = entry[0].to(storage.location)
            if whole:
                return entry[0]
        return entry[0].as_strided(size, stride, offset)


_TORCH_REBUILDERS = {
    "torch._utils._rebuild_tensor_v2": _rebuild_tensor,
    "torch._utils._rebuild_tensor": _rebuild_tensor,
    "torch._utils._rebuild_parameter": _rebuild_parameter,
    "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
}


def _codecs_encode(obj, encoding="latin1"):
    import codecs

    return codecs.encode(obj, encoding)


def _torch_global(module: str, name: str):
    """The jtorch object standing for the PyTorch global ``module.name``, or None."""
    full = f"{module}.{name}"
    if full in _TORCH_REBUILDERS:
        return _TORCH_REBUILDERS[full]
    if module == "torch":
        if name in _STORAGE_DTYPES:
            return _STORAGE_DTYPES[name]
        if name == "Size":
            return Size
        if name == "device":
            return Device
        if isinstance(getattr(D, name, None), D.dtype):
            return getattr(D, name)
        if name == "Tensor":
            return Tensor
    if full == "torch.nn.parameter.Parameter":
        from .nn.parameter import Parameter

        return Parameter
    return None


_WEIGHTS_ONLY_BUILTINS = {
    "collections.OrderedDict": OrderedDict, "collections.Counter": Counter,
    "builtins.set": set, "builtins.frozenset": frozenset, "builtins.complex": complex,
    "builtins.bytearray": bytearray, "builtins.slice": slice, "_codecs.encode": _codecs_encode,
}


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, weights_only: bool, persistent_load, **kwargs):
        super().__init__(file, **kwargs)
        self.weights_only = weights_only
        self._persistent_load = persistent_load

    def persistent_load(self, pid):
        return self._persistent_load(pid)

    def find_class(self, module, name):
        # Protocol-2 pickles name Python 2 modules (``__builtin__.set``): map them first.
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        found = _torch_global(module, name)
        if found is not None:
            return found
        full = f"{module}.{name}"
        if self.weights_only:
            if full in _WEIGHTS_ONLY_BUILTINS:
                return _WEIGHTS_ONLY_BUILTINS[full]
            if full in _SAFE_GLOBALS:
                return _SAFE_GLOBALS[full]
            raise pickle.UnpicklingError(
                "Weights only load failed. Re-running `torch.load` with `weights_only` set "
                "to `False` will likely succeed, but it can result in arbitrary code "
                "execution. Do it only if you got the file from a trusted source.\n"
                f"Unsupported global: GLOBAL {full} was not an allowed global by default. "
                f"Please use `torch.serialization.add_safe_globals([{name}])` or the "
                f"`torch.serialization.safe_globals([{name}])` context manager to allowlist "
                "this global if you trust this class/function."
            )
        if module == "torch" or module.startswith("torch."):
            with contextlib.suppress(ImportError, AttributeError):
                return super().find_class("j" + module, name)
        return super().find_class(module, name)


def _storage_loader(read_record, map_location, byteorder):
    loaded: dict[str, _LoadedStorage] = {}

    def persistent_load(pid):
        kind, storage_type, key, location, numel = pid[:5]
        if (kind.decode() if isinstance(kind, bytes) else kind) != "storage":
            raise pickle.UnpicklingError(f"unknown persistent id {kind!r}")
        if key not in loaded:
            dtype = storage_type if isinstance(storage_type, D.dtype) else D.uint8
            flat = _to_numpy(read_record(key, numel * dtype.itemsize), dtype, byteorder)
            loc = location.decode() if isinstance(location, bytes) else location
            loaded[key] = _restore(_LoadedStorage(flat, dtype, loc), loc, map_location)
        return loaded[key]

    return persistent_load


def _open(f):
    if isinstance(f, str | os.PathLike):
        with open(f, "rb") as fh:
            return fh.read()
    return f.read()


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Read a checkpoint written by ``torch.save`` (PyTorch's or jtorch's).

    ``weights_only`` defaults to True, as in PyTorch: only tensors, primitive containers
    and allowlisted globals load; anything else raises ``pickle.UnpicklingError``.
    ``mmap=True`` maps the file instead of reading it whole; each storage is then read
    from the map.

    Differences from PyTorch: loaded tensors never share memory with the mapped file
    (JAX arrays own their buffers), so mmap saves reading the file up front, not the
    tensors' memory.
    """
    if weights_only is None:
        weights_only = os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0") in ("0", "")
    data = _mapped(f) if mmap else _open(f)
    _StorageBases.current = {}
    try:
        if data[:4] == b"PK\x03\x04":
            return _load_zip(data, map_location, weights_only, pickle_load_args)
        return _load_legacy(data, map_location, weights_only, pickle_load_args)
    finally:
        _StorageBases.current = None


def _mapped(f) -> mmap.mmap:
    """The checkpoint file ``f`` mapped read-only (zip format only, as PyTorch)."""
    if not isinstance(f, str | os.PathLike):
        raise ValueError("f must be a file path in order to use the mmap argument")
    with open(f, "rb") as fh:
        data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    if data[:4] != b"PK\x03\x04":
        raise RuntimeError(f"mmap can only be used with files saved with `torch.save({f}, "
                           "_use_new_zipfile_serialization=True), please torch.save your "
                           "checkpoint with this option in order to use mmap.")
    return data


class _MapFile(io.RawIOBase):
    """A seekable file over a memory map, for zipfile (which reads records from it)."""

    def __init__(self, mapped: mmap.mmap):
        self.mapped = mapped

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, pos, whence=0) -> int:
        self.mapped.seek(pos, whence)
        return self.mapped.tell()

    def tell(self) -> int:
        return self.mapped.tell()

    def readinto(self, buffer) -> int:
        chunk = self.mapped.read(len(buffer))
        buffer[:len(chunk)] = chunk
        return len(chunk)


def _load_zip(data, map_location, weights_only, pickle_load_args):
    zf = zipfile.ZipFile(_MapFile(data) if isinstance(data, mmap.mmap) else io.BytesIO(data))
    names = zf.namelist()
    pkl = next((n for n in names if n.endswith("/data.pkl") and n.count("/") == 1), None)
    if pkl is None:
        raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
    prefix = pkl.rsplit("/", 1)[0]
    byteorder = "little"
    if f"{prefix}/byteorder" in names:
        byteorder = zf.read(f"{prefix}/byteorder").decode()

    def read_record(key, nbytes):
        return zf.read(f"{prefix}/data/{key}")

    loader = _storage_loader(read_record, map_location, byteorder)
    kwargs = {"encoding": "utf-8", **pickle_load_args}
    return _Unpickler(io.BytesIO(zf.read(pkl)), weights_only, loader, **kwargs).load()


def _load_legacy(data: bytes, map_location, weights_only, pickle_load_args):
    """PyTorch's pre-1.6 stream: magic, protocol, sys info, the object pickle, the storage
    keys, then each storage as an 8-byte element count and its raw data."""
    f = io.BytesIO(data)
    if pickle.load(f) != _MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    if pickle.load(f) != _PROTOCOL_VERSION:
        raise RuntimeError("Invalid protocol version")
    sys_info = pickle.load(f)
    byteorder = "little" if sys_info.get("little_endian", True) else "big"
    pending: dict[str, tuple] = {}

    def persistent_load(pid):
        kind = pid[0].decode() if isinstance(pid[0], bytes) else pid[0]
        if kind != "storage":
            raise pickle.UnpicklingError(f"unsupported legacy persistent id {kind!r}")
        storage_type, key, location, numel, view_metadata = pid[1:6]
        if view_metadata is not None:
            raise pickle.UnpicklingError("legacy storage views are not supported by jtorch")
        loc = location.decode() if isinstance(location, bytes) else location
        if key not in pending:
            pending[key] = (_LoadedStorage(np.empty(0), storage_type, loc), loc)
        return pending[key][0]

    kwargs = {"encoding": "utf-8", **pickle_load_args}
    unpickler = _Unpickler(f, weights_only, persistent_load, **kwargs)
    # Tensors are rebuilt only after the raw data is read: record them first.
    deferred = []
    unpickler.find_class = _deferring(unpickler.find_class, deferred)
    result = unpickler.load()
    keys = pickle.load(f)
    for key in keys:
        storage, loc = pending[key]
        (numel,) = struct.unpack("<q", f.read(8))
        raw = f.read(numel * storage.dtype.itemsize)
        storage.flat = _to_numpy(raw, storage.dtype, byteorder)
        restored = _restore(storage, loc, map_location)
        storage.location = restored.location
    return _resolve(result, deferred)


class _Deferred:
    def __init__(self, fn, args):
        self.fn, self.args = fn, args


def _deferring(find_class, deferred):
    def find(module, name):
        obj = find_class(module, name)
        if obj in (_rebuild_tensor, _rebuild_parameter, _rebuild_parameter_with_state):
            def later(*args, obj=obj):
                d = _Deferred(obj, args)
                deferred.append(d)
                return d
            return later
        return obj

    return find


def _resolve(obj, deferred, memo=None):
    """Replace deferred tensor rebuilds by tensors, through containers."""
    memo = {} if memo is None else memo
    if id(obj) in memo:
        return memo[id(obj)]
    if isinstance(obj, _Deferred):
        out = obj.fn(*[_resolve(a, deferred, memo) for a in obj.args])
    elif isinstance(obj, OrderedDict):
        out = type(obj)((k, _resolve(v, deferred, memo)) for k, v in obj.items())
        out.__dict__.update(getattr(obj, "__dict__", {}))
    elif isinstance(obj, dict):
        out = {k: _resolve(v, deferred, memo) for k, v in obj.items()}
    elif isinstance(obj, list):
        out = [_resolve(v, deferred, memo) for v in obj]
    elif isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        out = tuple(_resolve(v, deferred, memo) for v in obj)
    else:
        out = obj
    memo[id(obj)] = out
    return out
