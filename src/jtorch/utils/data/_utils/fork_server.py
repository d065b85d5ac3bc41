"""The workers' fork server made by forking this process, while it has not started JAX.

Multiprocessing's fork server is a fresh interpreter that imports jtorch (about a second)
before it can fork the first worker; a program that iterates right after building its
loader waits for that. A process that has imported jtorch but never run JAX (no backend,
no thread of its own) is as safe to fork as a fresh one: its fork is a server that is
ready at once. Workers come from it exactly as from multiprocessing's own (its loop,
``multiprocessing.forkserver.main``, serves them), so they unpickle their dataset and
start JAX of their own just the same.

Only for a ``multiprocessing.forkserver`` whose parts match those used here (CPython 3.9
to 3.13); elsewhere, and once this process has run JAX, the caller starts the usual one.
"""

from __future__ import annotations

import inspect
import os
import socket
import sys
import threading
import warnings

_MAIN_PARAMETERS = ["listener_fd", "alive_r", "preload", "main_path", "sys_path"]
_SERVER_FIELDS = ("_forkserver_address", "_forkserver_alive_fd", "_forkserver_pid", "_lock")


def jax_untouched() -> bool:
    """True while this process has not started JAX (no backend) and runs no Python thread
    but this one: a fork of it then starts JAX afresh, as a new process would."""
    try:
        from jax._src import xla_bridge

        started = xla_bridge.backends_are_initialized()
    except (ImportError, AttributeError):  # another JAX: assume it has
        return False
    return (not started and threading.active_count() == 1
            and threading.current_thread() is threading.main_thread())


def _compatible(forkserver) -> bool:
    server = getattr(forkserver, "_forkserver", None)
    if server is None or not all(hasattr(server, f) for f in _SERVER_FIELDS):
        return False
    if hasattr(server, "_forkserver_authkey"):  # a newer protocol (a handshake)
        return False
    try:
        return list(inspect.signature(forkserver.main).parameters) == _MAIN_PARAMETERS
    except (TypeError, ValueError):
        return False


def start() -> bool:
    """Start multiprocessing's fork server as a fork of this process; False where that is
    not safe or not possible (the caller starts one the usual way)."""
    from multiprocessing import connection, forkserver, resource_tracker, util

    if not (sys.platform.startswith("linux") and _compatible(forkserver) and jax_untouched()):
        return False
    server = forkserver._forkserver
    with server._lock:
        if server._forkserver_pid is not None:  # one is running already
            return True
        resource_tracker.ensure_running()  # its descriptor goes to every worker
        with socket.socket(socket.AF_UNIX) as listener:
            address = connection.arbitrary_address("AF_UNIX")
            listener.bind(address)
            if not util.is_abstract_socket_namespace(address):
                os.chmod(address, 0o600)
            listener.listen()
            # Every client holds the write end of the "alive" pipe: the server stops
            # when the read end reaches its end, when this process has exited.
            alive_r, alive_w = os.pipe()
            util._flush_std_streams()  # nothing buffered here is written twice
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # BLAS's idle threads
                pid = os.fork()
            if pid == 0:
                _serve(forkserver, listener.fileno(), alive_r, alive_w)
            os.close(alive_r)
        server._forkserver_address = address
        server._forkserver_alive_fd = alive_w
        server._forkserver_pid = pid
    return True


def _serve(forkserver, listener_fd: int, alive_r: int, alive_w: int) -> None:
    """The server's life, in the forked child: multiprocessing's loop, then exit without
    running this process's exit handlers or flushing its buffers again."""
    code = 0
    try:
        os.close(alive_w)
        forkserver._forkserver._lock = threading.Lock()  # the parent holds its copy
        forkserver.main(listener_fd, alive_r, [])  # everything is imported already
    except SystemExit:  # the program has exited
        pass
    except BaseException:  # noqa: BLE001 -- reported, then the server is gone
        code = 1
        sys.excepthook(*sys.exc_info())
        sys.stderr.flush()
    finally:
        os._exit(code)
