"""The persistent compilation cache: compiled XLA kernels kept on disk between runs.

jtorch compiles one small XLA program per op signature (and one per VJP), so the first
step of a program spends seconds in the compiler; JAX's on-disk compilation cache makes
the next run of the same script start warm. It is on by default, in
``$XDG_CACHE_HOME/jtorch/xla`` (``~/.cache/jtorch/xla``); ``JTORCH_CACHE_DIR`` moves it
and ``JTORCH_CACHE=0`` turns it off. A cache directory the user gave JAX itself
(``JAX_COMPILATION_CACHE_DIR`` or ``jax.config``) is left alone. Every kernel is cached,
however small or quick to compile: jtorch's kernels are many and tiny, which is exactly
the case JAX's default thresholds (one second of compile time) leave out.

Several processes share one directory (pytest-xdist workers, DataLoader workers, two
scripts at once): an entry is written to a private temporary file and renamed into
place, so a reader sees a whole entry or none. Setting this up touches only
configuration; no JAX backend starts at import.
"""

from __future__ import annotations

import marshal
import os
import sys
import tempfile

import jax

__all__ = ["cache_dir"]

_DIR: str | None = None


def cache_dir() -> str | None:
    """The directory jtorch's persistent compilation cache uses, or None when it is off."""
    return _DIR


def _default_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jtorch", "xla")


def _writable(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK | os.X_OK)


def write_file(path: str, value: bytes) -> bool:
    """Write ``value`` to ``path`` through a temporary file and a rename, so that a reader
    sees all of it or nothing; False where it could not be written."""
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(value)
        os.replace(tmp, path)
        return True
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False


def _atomic_put(self, key: str, value: bytes) -> None:
    """JAX's LRUCache.put without eviction, written through a temporary file and a rename
    (an error is raised for JAX to report)."""
    path = os.path.join(str(self._path), f"{key}-cache")
    if os.path.exists(path):
        return
    fd, tmp = tempfile.mkstemp(dir=str(self._path), prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(value)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _make_writes_atomic() -> None:
    # JAX writes an entry in place (open, truncate, write), so a process reading the same
    # key meanwhile gets a truncated entry and warns. Only the unbounded cache (no LRU
    # eviction, which takes a file lock of its own) is patched.
    try:
        from jax._src import lru_cache
    except ImportError:  # a JAX without this module: keep its own writer
        return
    original = lru_cache.LRUCache.put

    def put(self, key, value):
        if getattr(self, "eviction_enabled", True) or not lru_cache._is_local_filesystem(
                str(self._path)):
            return original(self, key, value)
        return _atomic_put(self, key, value)

    if not getattr(original, "_jtorch_atomic", False):
        put._jtorch_atomic = True
        lru_cache.LRUCache.put = put


def _setup() -> None:
    global _DIR
    if os.environ.get("JTORCH_CACHE", "1").strip().lower() in ("0", "false", "off", "no"):
        return
    if jax.config.jax_compilation_cache_dir:  # the user configured JAX's cache directly
        _DIR = jax.config.jax_compilation_cache_dir
        return
    path = os.path.abspath(os.path.expanduser(os.environ.get("JTORCH_CACHE_DIR") or
                                              _default_dir()))
    if not _writable(path):  # e.g. a read-only home: run uncached rather than fail
        return
    jax.config.update("jax_compilation_cache_dir", path)
    # Cache every kernel: the defaults skip programs compiled in under a second, which is
    # every one of jtorch's per-op kernels; -1 also stops JAX raising the size floor.
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    _make_writes_atomic()
    _DIR = path


_setup()


# --- generated bindings' bytecode --------------------------------------------------------

_CODES: dict | None = None  # source -> code object, as read from disk
_USED: dict = {}  # source -> code object, every one this process asked for
_COMPILED = [0, 0]  # sources compiled (not found on disk) by this process; when last saved


def _codes_path() -> str | None:
    if _DIR is None:
        return None
    import importlib.util

    tag = f"{sys.implementation.cache_tag}-{importlib.util.MAGIC_NUMBER.hex()}"
    return os.path.join(_DIR, "jtorch-bindings", f"bindings-{tag}")


def compiled(source: str, filename: str):
    """``compile(source, filename, "exec")``, from disk where an earlier process compiled
    the same source: jtorch generates ~500 bindings' sources at import (``eager/bind.py``),
    whose compiling took 0.10-0.12 s of every process's import, where loading their
    bytecode takes 3-5 ms. ``save_compiled`` writes what this process compiled."""
    global _CODES
    if _CODES is None:
        _CODES = {}
        path = _codes_path()
        if path is not None:
            try:
                with open(path, "rb") as f:
                    codes = marshal.load(f)
                if type(codes) is dict:
                    _CODES = codes
            except (OSError, ValueError, EOFError, TypeError):
                pass
    code = _CODES.get(source)
    if code is None or code.co_filename != filename:
        code = compile(source, filename, "exec")
        _COMPILED[0] += 1
    _USED[source] = code
    return code


def save_compiled() -> None:
    """Keep the bytecode of the sources asked for so far (``compiled``) on disk, if any of
    it was compiled here: the next process loads it instead."""
    path = _codes_path()
    if path is not None and _COMPILED[0] > _COMPILED[1]:
        write_file(path, marshal.dumps(_USED))
        _COMPILED[1] = _COMPILED[0]
