"""torch.futures: Future (results set once, waited on, chained with ``then``), collect_all,
wait_all."""

from __future__ import annotations

import threading

__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    """A value that arrives later (``set_result``/``set_exception``); ``wait`` blocks."""

    def __init__(self, *, devices=None):
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._result, self._exc, self._callbacks = None, None, []

    def done(self) -> bool:
        return self._done.is_set()

    def wait(self):
        self._done.wait()
        if self._exc is not None:
            raise self._exc
        return self._result

    def value(self):
        if not self.done():
            raise RuntimeError("Future not completed yet")
        return self.wait()

    def _finish(self, result, exc) -> None:
        with self._lock:
            if self._done.is_set():
                raise RuntimeError("Future can only be marked completed once.")
            self._result, self._exc = result, exc
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def set_result(self, result) -> None:
        self._finish(result, None)

    def set_exception(self, result) -> None:
        if not isinstance(result, Exception):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._finish(None, result)

    def add_done_callback(self, callback) -> None:
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback) -> Future:
        """A Future of ``callback(self)``, run when this one completes."""
        out = Future()

        def run(fut):
            try:
                out.set_result(callback(fut))
            except Exception as e:  # noqa: BLE001 - the chained future carries it
                out.set_exception(e)

        self.add_done_callback(run)
        return out


def collect_all(futures) -> Future:
    """A Future completed with the list of ``futures`` once all of them are."""
    futures = list(futures)
    out, remaining = Future(), [len(futures)]
    lock = threading.Lock()
    if not futures:
        out.set_result([])

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            out.set_result(futures)

    for f in futures:
        f.add_done_callback(one_done)
    return out


def wait_all(futures) -> list:
    return [f.wait() for f in collect_all(futures).wait()]
