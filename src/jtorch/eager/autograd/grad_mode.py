"""Grad mode: whether ops record the autograd graph (thread-local, as in PyTorch)."""

from __future__ import annotations

import functools
import inspect
import threading
import warnings


class _State(threading.local):
    enabled = True
    inference = False
    anomaly = False
    anomaly_nan = True


_state = _State()


def is_grad_enabled() -> bool:
    return _state.enabled


def is_inference_mode_enabled() -> bool:
    return _state.inference


class _Mode:
    """A context manager that is also a decorator (plain and generator functions)."""

    def _set(self):  # returns the previous state
        raise NotImplementedError

    def __enter__(self):
        self._prev = (_state.enabled, _state.inference)
        self._set()
        return self

    def __exit__(self, *exc):
        _state.enabled, _state.inference = self._prev
        return False

    def clone(self):
        return type(self)()

    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):

            @functools.wraps(fn)
            def gen(*args, **kwargs):
                # The mode covers the generator's own steps, never the caller's code
                # between them, so each resume re-enters it and each yield leaves it.
                it = fn(*args, **kwargs)
                try:
                    with self.clone():
                        value = next(it)
                    while True:
                        try:
                            sent = yield value
                        except GeneratorExit:
                            with self.clone():
                                it.close()
                            raise
                        except BaseException as exc:
                            with self.clone():
                                value = it.throw(exc)
                        else:
                            with self.clone():
                                value = it.send(sent)
                except StopIteration as stop:
                    return stop.value

            return gen

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_Mode):
    """Disable graph recording inside the block (or the decorated function)."""

    def __init__(self, orig_func=None):
        if orig_func is not None and callable(orig_func):
            raise TypeError("no_grad() takes no arguments; use @no_grad() or @no_grad")

    def __new__(cls, orig_func=None):
        self = super().__new__(cls)
        if callable(orig_func):  # bare @no_grad usage
            return self.__call__(orig_func)
        return self

    def _set(self):
        _state.enabled = False


class enable_grad(_Mode):
    """Enable graph recording inside the block, e.g. within no_grad."""

    def __new__(cls, orig_func=None):
        self = super().__new__(cls)
        if callable(orig_func):
            return self.__call__(orig_func)
        return self

    def __init__(self, orig_func=None):
        pass

    def _set(self):
        _state.enabled = True


class set_grad_enabled(_Mode):
    """Set grad mode on or off; takes effect immediately, and as a context manager reverts."""

    def __init__(self, mode: bool):
        self.mode = bool(mode)
        self._prev = (_state.enabled, _state.inference)
        _state.enabled = self.mode

    def __enter__(self):  # the mode was already set by __init__; keep the state before it
        return self

    def _set(self):
        _state.enabled = self.mode

    def __call__(self, fn):
        _state.enabled, _state.inference = self._prev  # as a decorator it must not leak
        return super().__call__(fn)

    def clone(self):
        return _GradModeBlock(self.mode)


class _GradModeBlock(_Mode):
    def __init__(self, mode: bool):
        self.mode = mode

    def _set(self):
        _state.enabled = self.mode


class inference_mode(_Mode):
    """Like no_grad; tensors created inside report ``is_inference() == True``."""

    def __new__(cls, mode=True):
        self = super().__new__(cls)
        if callable(mode):
            self.mode = True
            return self.__call__(mode)
        return self

    def __init__(self, mode=True):
        self.mode = bool(mode) if not callable(mode) else True

    def _set(self):
        # PyTorch's InferenceMode guard sets grad mode to ``not mode``: inference_mode(False)
        # nested inside inference_mode records graphs again.
        _state.enabled = not self.mode
        _state.inference = self.mode

    def clone(self):
        return inference_mode(self.mode)


class set_detect_anomaly:
    """Turn anomaly detection on or off; takes effect immediately, reverts as a context manager.

    Differences from PyTorch: no forward-pass traceback is recorded; with ``check_nan`` the
    backward raises when a node returns NaN, as PyTorch does.
    """

    def __init__(self, mode: bool, check_nan: bool = True):
        self._prev = (_state.anomaly, _state.anomaly_nan)
        _state.anomaly, _state.anomaly_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _state.anomaly, _state.anomaly_nan = self._prev
        return False


class detect_anomaly(_Mode):
    """Anomaly detection inside the block (or the decorated function)."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.", UserWarning, stacklevel=2,
        )

    def __enter__(self):
        self._prev_anomaly = (_state.anomaly, _state.anomaly_nan)
        _state.anomaly, _state.anomaly_nan = True, self.check_nan
        return self

    def __exit__(self, *exc):
        _state.anomaly, _state.anomaly_nan = self._prev_anomaly
        return False

    def clone(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return detect_anomaly(self.check_nan)


def is_anomaly_enabled() -> bool:
    return _state.anomaly


def is_anomaly_check_nan_enabled() -> bool:
    return _state.anomaly_nan
