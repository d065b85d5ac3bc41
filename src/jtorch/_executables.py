"""Compiled eager kernels kept on disk and found again without tracing or lowering.

JAX's persistent compilation cache (``_cache.py``) is keyed by the lowered program, so a
warm start still traces every kernel to a jaxpr and lowers it to MLIR before the cache can
be asked: about 20 ms a kernel, most of a warm start's first step (the digits CNN's ~60
kernels). A kernel that jtorch can name completely, by its op, static arguments and
options (``stable``), is cached here too, under that name and its operands' types: a later
process loads the executable (about 2 ms) without tracing or lowering anything.

A persistent kernel is a jit object with JAX's own C++ dispatch (``persistent``): only a
call with operand types it has not met reaches Python, which loads the executable from
disk, or compiles it through the kernel's plain ``jax.jit`` and stores it. Calls under a
JAX trace, with keyword arguments or with operands placed on a device (committed) go to
the plain ``jax.jit``. An entry is named by a hash of the kernel's name, its operand types
and everything else that could change the program: jtorch's source, JAX's and jaxlib's
versions, the backend, ``XLA_FLAGS`` and JAX's configuration; the entry holds the whole
text it was named by and is used only if that matches. A kernel whose result holds a
function (a forward returning its VJP) is kept without that result's structure: loading
it traces the kernel for the structure (no lowering), checked against the program's
output types. ``JTORCH_EXECUTABLE_CACHE=0``
turns this off; it is off whenever JAX's persistent cache is (``JTORCH_CACHE=0``).

Built on JAX internals (the C++ ``pjit`` object, ``MeshExecutableFastpathData``,
``serialize_executable``): with a JAX that lacks them, kernels are plain ``jax.jit``s.
"""

from __future__ import annotations

import atexit
import hashlib
import io
import os
import pickle
import sys
import threading
import types

import jax
import numpy as np

from . import _cache, _kernels
from . import _dtypes as D

_FORMAT = b"jtorch-executable-1\n"


def _enabled() -> bool:
    if os.environ.get("JTORCH_EXECUTABLE_CACHE", "1").strip().lower() in ("0", "false",
                                                                          "off", "no"):
        return False
    return _cache.cache_dir() is not None


try:  # JAX internals (see the module's docstring)
    from jax._src import core as _core
    from jax._src import dtypes as _jdtypes
    from jax._src import pjit as _pjit
    from jax._src import sharding_impls as _shardings
    from jax._src import stages as _stages
    from jax._src import tree_util as _tree_util
    from jax._src.interpreters import pxla as _pxla
    from jax._src.lib import _jax
    from jax._src.lib import xla_client as _xc
    from jax.experimental import serialize_executable as _serial

    _PARTS = all(hasattr(m, n) for m, n in (
        (_jax, "pjit"), (_jax, "PjitFunctionCache"), (_pxla, "JitGlobalCppCacheKeys"),
        (_pxla, "MeshExecutableFastpathData"), (_pxla, "reflatten_outputs_for_dispatch"),
        (_pxla, "cc_shard_arg"), (_pjit, "fun_name"), (_stages.Compiled, "call"),
        (_core, "trace_state_clean")))
except ImportError:  # pragma: no cover (another JAX)
    _PARTS = False

_CPP_CACHE = _jax.PjitFunctionCache(capacity=8192) if _PARTS else None

# --- naming a kernel ----------------------------------------------------------------------

_ATOMS = (str, int, float, bool, type(None), bytes, complex)


def stable(x) -> str | None:
    """A text naming ``x`` the same way in every process, or None where there is none
    (functions, objects printed with their address): such a kernel is not kept on disk."""
    t = type(x)
    if t in _ATOMS:
        return f"{t.__name__}:{x!r}"
    if t is tuple or t is list:
        parts = [stable(v) for v in x]
        return None if None in parts else f"{t.__name__}({','.join(parts)})"
    if t is frozenset or t is set:
        parts = [stable(v) for v in x]
        return None if None in parts else f"set({','.join(sorted(parts))})"
    if t is dict:
        parts = [(stable(k), stable(v)) for k, v in x.items()]
        if any(k is None or v is None for k, v in parts):
            return None
        return "dict(" + ",".join(sorted(f"{k}={v}" for k, v in parts)) + ")"
    if t is slice:
        return stable((x.start, x.stop, x.step)) and "slice" + stable((x.start, x.stop, x.step))
    if x is Ellipsis:
        return "..."
    if t is D.dtype:
        return f"torch.{x.name}"
    if t is np.dtype or isinstance(x, np.dtype):
        return f"np.{x.name}"
    if isinstance(x, tuple) and t.__module__.startswith("jtorch"):  # torch.Size
        parts = stable(tuple(x))
        return None if parts is None else f"{t.__qualname__}{parts}"
    if t is type and x in _ATOMS:  # the type of a constant operand
        return f"type:{x.__name__}"
    if t is types.FunctionType:  # a module-level function of jtorch or JAX, found by name
        module, name = getattr(x, "__module__", None) or "", x.__qualname__
        if (module.split(".")[0] in ("jtorch", "jax") and "<" not in name
                and _lookup(module, name) is x):
            return f"fn:{module}.{name}"
    return None


def _lookup(module: str, name: str):
    obj = sys.modules.get(module)
    for part in name.split("."):
        obj = getattr(obj, part, None)
    return obj


_FINGERPRINT: list = []
_SOURCE = os.path.dirname(os.path.abspath(__file__))


def _source_hash() -> str:
    """A hash of jtorch's Python source: an edited jtorch never loads an old kernel."""
    h = hashlib.blake2b(digest_size=16)
    for root, dirs, files in os.walk(_SOURCE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                h.update(os.path.relpath(path, _SOURCE).encode())
                with open(path, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


def _fingerprint() -> str:
    """Everything outside a kernel's name and operand types that shapes its program and
    is fixed for a process (JAX's configuration is read per compile: ``_config``)."""
    if not _FINGERPRINT:
        import jaxlib

        backend = jax.devices()[0].client
        parts = [sys.version, jax.__version__, jaxlib.__version__, _source_hash(),
                 backend.platform, backend.platform_version,
                 str([(d.id, d.device_kind) for d in jax.devices()]),
                 os.environ.get("XLA_FLAGS", ""), os.environ.get("LIBTPU_INIT_ARGS", "")]
        _FINGERPRINT.append("\n".join(parts))
    return _FINGERPRINT[0]


# JAX options that change what is logged, dumped or cached, never a program.
_UNRELATED = ("log", "_cache", "traceback", "dump", "timeout", "check_proxy", "debug_info")


def _config() -> str:
    """JAX's configuration values now (those printed without an address), but for the
    options that only log, dump or cache."""
    items = []
    for name, value in sorted(jax.config.values.items()):
        text = repr(value)
        if " at 0x" not in text and not any(u in name for u in _UNRELATED):
            items.append(f"{name}={text}")
    return ";".join(items)


def _leaf_type(leaf):
    """An operand's type as a compiled program sees it, or None for one this cache leaves
    to the plain ``jax.jit`` (a tracer, an array committed to a device)."""
    if isinstance(leaf, jax.ShapeDtypeStruct):
        if leaf.sharding is not None:
            return None
        return repr(_core.ShapedArray(leaf.shape, leaf.dtype, weak_type=leaf.weak_type))
    if isinstance(leaf, _core.Tracer) or getattr(leaf, "committed", False):
        return None
    try:
        return repr(jax.typeof(leaf))
    except TypeError:
        return None


# --- the on-disk entries --------------------------------------------------------------------


def _device():
    """The device uncommitted operands live on, where a loaded program runs."""
    device = jax.config.jax_default_device
    if device is None:
        return jax.local_devices()[0]
    if isinstance(device, str):
        return jax.local_devices(backend=device)[0]
    return device


def _directory() -> str | None:
    base = _cache.cache_dir()
    if base is None:
        return None
    path = os.path.join(base, "jtorch-executables")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return None
    return path


def _entry(name: str, types: tuple) -> tuple[str, bytes] | None:
    directory = _directory()
    if directory is None:
        return None
    text = "\n".join((name, repr(types), repr(_device()), str(D.get_default_dtype()),
                      _fingerprint(), _config())).encode()
    return os.path.join(directory, hashlib.sha256(text).hexdigest()), text


def _load(path: str, text: bytes, plain, args):
    """The entry at ``path`` loaded, or None (none there, damaged, another name's). An
    entry kept without its output structure (one holding a function: a VJP) takes it
    from a trace of ``plain`` for ``args``, checked against the program's output types."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    head = _FORMAT + len(text).to_bytes(8, "little") + text
    if not data.startswith(head):
        return None
    try:
        blob, in_tree, out_tree = pickle.loads(data[len(head):])
        traced = None
        if out_tree is None:
            traced = plain.trace(*args)
            out_tree = traced.out_tree
        device = _device()
        compiled = _serial.deserialize_and_load(blob, in_tree, out_tree,
                                                backend=device.client,
                                                execution_devices=[device])
    except Exception:  # noqa: BLE001 -- a damaged or foreign entry: compile instead
        return None
    if traced is not None and (
            [repr(a) for a in jax.tree_util.tree_leaves(traced.out_avals)]
            != [repr(a) for a in compiled._executable.out_avals]):
        return None
    return compiled


# A program JAX's own cache gave back serialises to an entry that cannot run (XLA:CPU
# keeps no object code for it), so the bytes that cache held are kept here, by the
# executable's id, for ``_store``: the newest ``_LOADED_MAX``.
_LOADED: dict = {}
_LOADED_MAX = 256
_FROM_CACHE: set = set()  # the ids of every executable JAX's cache gave back
_LOADED_LOCK = threading.Lock()
_read = threading.local()


def _remember_cached_bytes() -> bool:
    """Have JAX's cache reads keep their executables' bytes in ``_LOADED``; False where
    this JAX reads its cache some other way."""
    from jax._src import compilation_cache as cc

    if not all(hasattr(cc, n) for n in ("get_executable_and_time",
                                         "extract_executable_and_time")):
        return False
    if getattr(cc.get_executable_and_time, "_jtorch", False):
        return True
    extract, get = cc.extract_executable_and_time, cc.get_executable_and_time

    def extract_executable_and_time(data):
        serialized, time = extract(data)
        _read.bytes = serialized
        return serialized, time

    def get_executable_and_time(*args, **kwargs):
        _read.bytes = None
        executable, time = get(*args, **kwargs)
        if executable is not None and _read.bytes is not None:
            with _LOADED_LOCK:
                if len(_LOADED) >= _LOADED_MAX:
                    del _LOADED[next(iter(_LOADED))]
                _LOADED[id(executable)] = (executable, _read.bytes)
                _FROM_CACHE.add(id(executable))
        _read.bytes = None
        return executable, time

    get_executable_and_time._jtorch = True
    cc.extract_executable_and_time = extract_executable_and_time
    cc.get_executable_and_time = get_executable_and_time
    return True


class _Pickler(_serial._JaxPjrtPickler if _PARTS else pickle.Pickler):
    """``serialize_executable``'s pickler, but the executable ``cached`` names (one JAX's
    cache gave back) is written as the bytes that cache held."""

    def __init__(self, file, cached):
        super().__init__(file)
        self.cached = cached

    def persistent_id(self, obj):
        if self.cached is not None and self.cached[0] is obj:
            return ("exec", self.cached[1])
        return super().persistent_id(obj)


def _serialise(compiled, cached) -> bytes:
    """``serialize_executable.serialize(compiled)``, pickled with ``_Pickler``."""
    executable = getattr(compiled._executable, "_unloaded_executable", None)
    mut = getattr(executable, "mut", None)
    if executable is None or (mut and mut.in_mut) or compiled._params.const_args:
        raise ValueError("this program cannot be serialised")
    args_info_flat, in_tree = jax.tree_util.tree_flatten(compiled.args_info)
    with io.BytesIO() as file:
        _Pickler(file, cached).dump((executable, args_info_flat, compiled._no_kwargs))
        blob = file.getvalue()
    try:
        return pickle.dumps((blob, in_tree, compiled.out_tree))
    except Exception:  # noqa: BLE001 -- a function in the structure: a trace gives it
        return pickle.dumps((blob, in_tree, None))


# Entries are written by one background thread (serialising takes 1-10 ms a program),
# and whatever is left at exit or before a fork is written then.
_WRITES: list = []
_WRITING = threading.Condition()
_WRITER: list = []  # the thread, once started


def _store_later(path: str, text: bytes, compiled) -> None:
    xla = getattr(compiled._executable, "xla_executable", None)
    with _LOADED_LOCK:
        cached = _LOADED.get(id(xla))
    if cached is None or cached[0] is not xla:
        if id(xla) in _FROM_CACHE:  # its bytes are gone: it would be kept unrunnable
            return
        cached = None
    with _WRITING:
        _WRITES.append((path, text, compiled, cached))
        if not _WRITER:
            thread = threading.Thread(target=_write, name="jtorch-executables", daemon=True)
            _WRITER.append(thread)
            thread.start()
        _WRITING.notify()


_BUSY = [0]  # entries the writer thread has taken and not yet written


def _write() -> None:
    while True:
        with _WRITING:
            while not _WRITES:
                _WRITING.wait()
            job = _WRITES.pop(0)
            _BUSY[0] += 1
        try:
            _store(*job)
        finally:
            with _WRITING:
                _BUSY[0] -= 1
                _WRITING.notify_all()


def flush() -> None:
    """Write every entry still waiting, and wait for the one the writer thread is writing
    (at exit, before a fork: the daemon thread dies with the interpreter, its entry lost)."""
    while True:
        with _WRITING:
            while not _WRITES and _BUSY[0]:
                _WRITING.wait()
            if not _WRITES:
                return
            job = _WRITES.pop(0)
        _store(*job)


def _after_fork() -> None:
    global _WRITING
    _WRITES.clear()
    _WRITER.clear()
    _BUSY[0] = 0
    _WRITING = threading.Condition()  # the writer may have held it: the child has none


def _store(path: str, text: bytes, compiled, cached=None) -> None:
    try:
        blob = _serialise(compiled, cached)
    except Exception:  # noqa: BLE001 -- a program JAX cannot serialise: not kept
        return
    _cache.write_file(path, _FORMAT + len(text).to_bytes(8, "little") + text + blob)


# --- the kernel -----------------------------------------------------------------------------


def _obtain(plain, name, args, types, memo):
    """The compiled program of ``plain`` for ``args`` (arrays or ShapeDtypeStructs of
    ``types``): from ``memo``, from disk, or compiled and stored."""
    compiled = memo.get(types)
    if compiled is not None:
        return compiled
    entry = _entry(name, types)
    if entry is not None:
        compiled = _load(*entry, plain, args)
    if compiled is None:
        compiled = plain.lower(*args).compile()
        if entry is not None:
            _store_later(*entry, compiled)
    if len(memo) > 1024:
        memo.clear()
    memo[types] = compiled
    return compiled


def _fastpath(compiled, outs, args_flat):
    """The C++ dispatch's entry for ``compiled`` (as ``jax.jit`` makes after a call), or
    None where it cannot take one."""
    executable = compiled._executable
    call = getattr(executable, "unsafe_call", None)
    if (not isinstance(executable, _pxla.MeshExecutable)
            or not isinstance(call, _pxla.ExecuteReplicated) or call.ordered_effects
            or call.has_unordered_effects or call.has_host_callbacks
            or getattr(executable, "_mut", None)):
        return None
    params = compiled._params
    out_flat, out_tree = _pxla.reflatten_outputs_for_dispatch(
        params.out_tree, _tree_util.tree_leaves(outs))
    if not all(isinstance(x, _xc.ArrayImpl) for x in out_flat):
        return None
    kept = [i in executable._kept_var_idx for i in range(len(params.const_args) + len(args_flat))]
    in_shardings = [
        _shardings.physical_sharding(a, s)
        if a is not _core.abstract_token and _jdtypes.issubdtype(a.dtype, _jdtypes.extended)
        else s
        for s, a in zip(executable._in_shardings, executable.in_avals, strict=True)]
    return _pxla.MeshExecutableFastpathData(
        executable.xla_executable, out_tree, in_shardings, executable._out_shardings,
        [o.aval for o in out_flat], [o._committed for o in out_flat], kept,
        executable._dispatch_in_layouts, params.const_args)


def _plain_process() -> bool:
    """Whether a kernel called now may be kept: outside any JAX trace, in a process that
    is the whole of its JAX job."""
    return _core.trace_state_clean() and jax.process_count() == 1


def _types(args):
    types = []
    for leaf in _tree_util.tree_leaves(args):
        t = _leaf_type(leaf)
        if t is None:
            return None
        types.append(t)
    tree = repr(_tree_util.tree_structure(args))
    if "CustomNode" in tree or " at 0x" in tree:  # a function in the structure: not kept
        return None
    return (tree, *types)


def persistent(plain, fn, name: str):
    """A jit object running ``plain`` (``jax.jit(fn, ...)``) whose compiled programs are
    kept on disk under ``name`` (a ``stable`` text naming ``fn`` completely), with
    ``compile_ahead(*args)``; ``plain`` itself when this cache is off."""
    if not ON:
        return plain
    memo: dict = {}
    lock = threading.Lock()

    def cache_miss(*args, **kwargs):
        types = None if kwargs or not _plain_process() else _types(args)
        if types is None:
            return plain(*args, **kwargs), None, False
        compiled = memo.get(types)
        if compiled is None:
            if threading.get_ident() == threading.main_thread().ident:
                _kernels.TRACES[0] += 1  # new operand types, as a trace would count
            with lock:
                compiled = _obtain(plain, name, args, types, memo)
        outs, _, args_flat = _stages.Compiled.call(compiled._params, *args)
        return outs, _fastpath(compiled, outs, args_flat), False

    try:
        jitted = _cpp_jit(plain, fn, cache_miss)
    except Exception:  # noqa: BLE001 -- another JAX's internals: the plain jit
        return plain

    def compile_ahead(*args):
        types = _types(args) if _plain_process() else None
        if types is None:
            return None

        def job():
            with lock:
                _obtain(plain, name, args, types, memo)

        return job

    jitted._jtorch_ahead = compile_ahead
    return jitted


def _cpp_jit(plain, fn, cache_miss):
    """A C++ jit object like ``plain``'s whose signatures it has not met go to
    ``cache_miss``; its ``lower`` and ``trace`` are the plain jit's."""
    info = plain._jit_info
    keys = _pxla.JitGlobalCppCacheKeys(
        donate_argnums=info.donate_argnums, donate_argnames=info.donate_argnames,
        device=info.device, backend=info.backend,
        in_shardings_treedef=info.in_shardings_treedef,
        in_shardings_leaves=info.in_shardings_leaves,
        out_shardings_treedef=info.out_shardings_treedef,
        out_shardings_leaves=info.out_shardings_leaves,
        in_layouts_treedef=info.in_layouts_treedef, in_layouts_leaves=info.in_layouts_leaves,
        out_layouts_treedef=info.out_layouts_treedef,
        out_layouts_leaves=info.out_layouts_leaves,
        compiler_options_kvs=info.compiler_options_kvs)
    jitted = _jax.pjit(_pjit.fun_name(fn), fn, cache_miss, info.static_argnums,
                       info.static_argnames, keys, _tree_util.dispatch_registry,
                       _pxla.cc_shard_arg, _CPP_CACHE)
    jitted._fun, jitted._jit_info = fn, info
    return jitted


ON = _PARTS and _enabled() and _remember_cached_bytes()
if ON:
    atexit.register(flush)
    os.register_at_fork(before=flush, after_in_child=_after_fork)
