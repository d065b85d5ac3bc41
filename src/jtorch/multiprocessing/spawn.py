"""``spawn``/``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes and raise in
the parent, as PyTorch does, when one of them fails."""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import warnings

log = logging.getLogger(__name__)

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException",
           "ProcessRaisedException", "spawn", "SpawnContext", "start_processes"]


class ProcessException(Exception):
    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A process raised: the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """A process exited with a nonzero code or was killed by a signal."""

    __slots__ = ["exit_code"]

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code,
                            self.signal_name)


def _wrap(fn, i, args, error_file):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # SIGINT: the parent is shutting us down
    except Exception:
        import traceback

        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes of one ``start_processes`` call; ``join`` waits and propagates errors."""

    def __init__(self, processes, error_files):
        self.error_files, self.processes = error_files, processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def _join_procs_with_timeout(self, timeout: float):
        end = time.monotonic() + timeout
        for process in self.processes:
            process.join(max(0, end - time.monotonic()))

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Whether all processes finished; on the first failure, stop the others and raise
        ProcessRaisedException (with the child's traceback) or ProcessExitedException."""
        if len(self.sentinels) == 0:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return len(self.sentinels) == 0
        self._stop_all(grace_period)
        self._raise(error_index)

    def _stop_all(self, grace_period) -> None:
        if grace_period is not None:
            self._join_procs_with_timeout(grace_period)
        for process in self.processes:
            if process.is_alive():
                log.warning("Terminating process %s via signal SIGTERM", process.pid)
                process.terminate()
        self._join_procs_with_timeout(30 if grace_period is None else grace_period)
        for process in self.processes:
            if process.is_alive():
                log.warning("Unable to shutdown process %s via SIGTERM , forcefully exiting "
                            "via SIGKILL", process.pid)
                process.kill()
            process.join()

    def _raise(self, error_index: int):
        failed = self.processes[error_index]
        if not os.access(self.error_files[error_index], os.R_OK):
            exitcode = failed.exitcode
            if exitcode < 0:
                try:
                    name = signal.Signals(-exitcode).name
                except ValueError:
                    name = f"<Unknown signal {-exitcode}>"
                raise ProcessExitedException(
                    f"process {error_index:d} terminated with signal {name}",
                    error_index=error_index, error_pid=failed.pid, exit_code=exitcode,
                    signal_name=name)
            raise ProcessExitedException(
                f"process {error_index:d} terminated with exit code {exitcode:d}",
                error_index=error_index, error_pid=failed.pid, exit_code=exitcode)
        with open(self.error_files[error_index], "rb") as fh:
            original_trace = pickle.load(fh)
        msg = f"\n\n-- Process {error_index:d} terminated with the following error:\n"
        raise ProcessRaisedException(msg + original_trace, error_index, failed.pid)


class SpawnContext(ProcessContext):
    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.",
                      stacklevel=2)
        super().__init__(processes, error_files)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes running ``fn(i, *args)``; join them unless ``join=False``
    (then return the ProcessContext)."""
    mp = multiprocessing.get_context(start_method)
    error_files, processes = [], []
    for i in range(nprocs):
        tf = tempfile.NamedTemporaryFile(prefix="pytorch-errorfile-", suffix=".pickle",
                                         delete=False)
        tf.close()
        os.unlink(tf.name)
        process = mp.Process(target=_wrap, args=(fn, i, args, tf.name), daemon=daemon)
        process.start()
        error_files.append(tf.name)
        processes.append(process)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``start_processes`` with the "spawn" start method."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t "
                      "torch.multiprocessing.start_processes(...)", FutureWarning,
                      stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
