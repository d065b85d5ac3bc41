"""CUDA streams and events on JAX, which gives each device one ordered stream of work.

What that means, honestly:

- Every ``Stream`` of a device names the same underlying queue. Kernels run in the order
  they were issued whichever stream is current, so ``wait_stream``/``wait_event`` never
  need to reorder anything; waiting on a stream or event of *another* device blocks the
  host until that device's queued work is done (the only cross-device ordering there is).
- ``Event.record`` cannot enqueue a timestamp into XLA's queue, so it waits for the
  device's queued work and then reads the host clock. ``elapsed_time`` between two
  recorded events is therefore the wall time of the device work issued between them, in
  milliseconds, as PyTorch measures it; recording costs a synchronization.
- ``query()`` answers whether the work queued so far has finished.
"""

from __future__ import annotations

import time

from .. import _device as _dev

__all__ = ["Stream", "Event", "StreamContext", "stream", "current_stream", "default_stream",
           "set_stream"]


def _check():
    if not _dev.gpu_available():
        raise _dev.no_cuda()


def _device_index(device) -> int:
    from . import _index

    return _index(device)


class Stream:
    """A CUDA stream of a device; ``priority`` is kept for inspection only."""

    def __init__(self, device=None, priority: int = 0, **kwargs):
        if not _dev.gpu_available():
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        self.device_index = _device_index(device)
        self.priority = priority
        self.stream_id = kwargs.get("_stream_id", id(self) & 0xFFFFFFFF)

    @property
    def device(self):
        return _dev.device("cuda", self.device_index)

    @property
    def cuda_stream(self) -> int:
        return self.stream_id

    def _jax(self):
        return _dev.accelerators()[self.device_index]

    def synchronize(self) -> None:
        from . import _sync

        _sync(self._jax())

    def query(self) -> bool:
        return _idle(self._jax())

    def wait_event(self, event) -> None:
        event.wait(self)

    def wait_stream(self, stream) -> None:
        if stream.device_index != self.device_index:
            stream.synchronize()

    def record_event(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def __eq__(self, other) -> bool:
        return (isinstance(other, Stream) and other.stream_id == self.stream_id
                and other.device_index == self.device_index)

    def __hash__(self) -> int:
        return hash((self.stream_id, self.device_index))

    def __repr__(self) -> str:
        return (f"<torch.cuda.Stream device={self.device} cuda_stream={hex(self.stream_id)}>")


def _idle(jax_device) -> bool:
    import jax

    return all(a.is_ready() for a in jax.live_arrays()
               if jax_device in a.devices() and not a.is_deleted())


_defaults: dict = {}
_current: dict = {}


def default_stream(device=None) -> Stream:
    index = _device_index(device)
    s = _defaults.get(index)
    if s is None:
        s = _defaults[index] = Stream(index, _stream_id=0)
    return s


def current_stream(device=None) -> Stream:
    index = _device_index(device)
    return _current.get(index) or default_stream(index)


def set_stream(stream: Stream) -> None:
    if stream is not None:
        _current[stream.device_index] = stream


class StreamContext:
    """``with torch.cuda.stream(s):`` makes ``s`` current on its device (None: no-op)."""

    def __init__(self, stream):
        self.stream = stream
        self._prev = None

    def __enter__(self):
        if self.stream is None:
            return self
        self._prev = _current.get(self.stream.device_index)
        _current[self.stream.device_index] = self.stream
        return self

    def __exit__(self, *exc):
        if self.stream is not None:
            if self._prev is None:
                _current.pop(self.stream.device_index, None)
            else:
                _current[self.stream.device_index] = self._prev
        return False


def stream(stream) -> StreamContext:
    return StreamContext(stream)


class Event:
    """A point in a device's work: ``record``, then ``synchronize``/``query``/
    ``elapsed_time`` (see the module docstring for how the time is taken)."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False):
        if not _dev.gpu_available():
            raise RuntimeError("Tried to instantiate dummy base class Event")
        self.enable_timing = enable_timing
        self.blocking = blocking
        self.interprocess = interprocess
        self._time = None
        self._device = None

    def record(self, stream=None) -> None:
        stream = stream or current_stream()
        stream.synchronize()
        self._device = stream.device_index
        self._time = time.perf_counter()

    def wait(self, stream=None) -> None:
        stream = stream or current_stream()
        if self._device is not None and self._device != stream.device_index:
            self.synchronize()

    def query(self) -> bool:
        return True  # record() waited for the work before it

    def synchronize(self) -> None:
        pass  # nothing recorded can still be pending (record waited)

    def elapsed_time(self, end_event) -> float:
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0

    @property
    def cuda_event(self) -> int:
        return id(self) & 0xFFFFFFFF

    def __repr__(self) -> str:
        return f"<torch.cuda.Event {hex(self.cuda_event) if self._time else 'uninitialized'}>"
