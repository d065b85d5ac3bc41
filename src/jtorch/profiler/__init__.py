"""torch.profiler: a timing profiler over jtorch's op dispatch.

``profile`` records every op jtorch runs (named ``aten::<op>``, timed to completion), every
autograd node of a backward (``autograd::engine::evaluate_function: MulBackward0``) and
every ``record_function`` range; ``key_averages().table()`` prints PyTorch's summary with
self and total CPU times, ``export_chrome_trace`` writes a Chrome trace, and ``schedule``/
``on_trace_ready``/``step()`` work as PyTorch's.

Differences from PyTorch: there is no Kineto or CUPTI: with ``ProfilerActivity.CUDA`` an
op's time (device work included) is on the CPU timeline, with no separate kernel rows or
CUDA columns; ``profile_memory`` counts the bytes of each op's outputs (no frees);
``with_modules`` (TorchScript-only in PyTorch) and ``experimental_config`` have no effect.
"""

from __future__ import annotations

import enum
import functools
import gzip
import os
import socket
import time
import warnings

from . import _record
from ._events import EventList

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule",
           "tensorboard_trace_handler", "supported_activities", "kineto_available",
           "ExecutionTraceObserver", "DeviceType"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class DeviceType(enum.Enum):
    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    MTIA = 19
    PrivateUse1 = 20


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set:
    from .. import cuda

    return {ProfilerActivity.CPU} | ({ProfilerActivity.CUDA} if cuda.is_available() else set())


def kineto_available() -> bool:
    return False


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """A step -> ProfilerAction function: skip ``skip_first``, then cycles of ``wait`` idle,
    ``warmup`` and ``active`` recorded steps (``repeat`` cycles; 0 = forever)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup="
            f"{warmup} (need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        n = wait + warmup + active
        if repeat > 0 and step / n >= repeat:
            return ProfilerAction.NONE
        mod = step % n
        if mod < wait:
            return ProfilerAction.NONE
        if mod < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod < n - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always_record(_step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


class record_function:  # noqa: N801 - PyTorch's name
    """A named range in the profile (a context manager or a decorator)."""

    def __init__(self, name: str, args: str | None = None):
        self.name, self.args, self._event = name, args, None

    def __enter__(self):
        rec = _record.active()
        if rec is not None:
            self._event = rec.open(self.name, kind="user_annotation")
        return self

    def __exit__(self, *exc):
        rec = _record.active()
        if rec is not None and self._event is not None:
            rec.close(self._event)
        self._event = None
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapped


class profile:  # noqa: N801 - PyTorch's name
    """Record ops, backward nodes and ``record_function`` ranges (see the module doc)."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None,
                 execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None):
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.with_stack, self.with_flops = with_stack, with_flops
        self.acc_events, self.step_num = acc_events, 0
        self.current_action = self.schedule(0)
        self._recorder, self._events, self._metadata = None, EventList(), {}

    # ------------------------------------------------------------------ recording

    def _begin(self) -> None:
        self._recorder = _record.Recorder(self.record_shapes, self.profile_memory,
                                          self.with_stack, self.with_flops)
        _record.start(self._recorder)

    def _end(self) -> None:
        if self._recorder is None:
            return
        _record.stop()
        events = self._recorder.events
        if self.acc_events:
            events = list(self._events) + events
        self._events = EventList(events, profile_memory=self.profile_memory,
                                 with_flops=self.with_flops)
        self._recorder = None

    def _recording(self, action) -> bool:
        return action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)

    def start(self) -> None:
        if self._recording(self.current_action):
            self._begin()

    def stop(self) -> None:
        was = self._recorder is not None
        self._end()
        if was and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def step(self) -> None:
        """Advance the schedule: start, stop and hand finished traces to ``on_trace_ready``."""
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if prev == ProfilerAction.RECORD_AND_SAVE or (
                self._recording(prev) and not self._recording(self.current_action)):
            self.stop()
        if self._recording(self.current_action) and self._recorder is None:
            self._begin()

    # ------------------------------------------------------------------ results

    def events(self) -> EventList:
        return self._events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False) -> EventList:
        return self._events.key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str) -> None:
        self._events.export_chrome_trace(path)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Write ``frame;frame;op value`` lines (flame-graph input) for events with stacks."""
        with open(path, "w") as f:
            for ev in self._events:
                if ev.stack:
                    f.write(";".join(reversed(ev.stack)) + f" {int(getattr(ev, metric))}\n")

    def add_metadata(self, key: str, value: str) -> None:
        self._metadata[key] = value

    def add_metadata_json(self, key: str, value: str) -> None:
        self._metadata[key] = value

    @property
    def profiler(self):
        return self


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False):
    """An ``on_trace_ready`` writing each trace to ``dir_name`` as TensorBoard's profiler
    plugin names them (``<worker>.<time_ns>.pt.trace.json[.gz]``)."""

    def handler(prof) -> None:
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{time.time_ns()}.pt.trace.json")
        prof.export_chrome_trace(path)
        if use_gzip:
            with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                dst.write(src.read())
            os.remove(path)

    return handler


class ExecutionTraceObserver:
    """PyTorch's execution-graph observer records ATen graphs jtorch does not have."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("torch.profiler.ExecutionTraceObserver is not supported in jtorch: "
                           "there is no ATen execution graph to observe")
