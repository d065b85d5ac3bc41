"""Profiler results: EventList, key averages, PyTorch's summary table and the Chrome trace."""

from __future__ import annotations

import json
import math
import os

__all__ = ["EventList", "FunctionEventAvg"]


def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_share(us: float, total: float) -> str:
    return "NaN" if total == 0 else f"{us * 100.0 / total:.2f}%"


def _format_memory(nbytes: int) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes * 1.0 / size:.2f} {unit}"
    return f"{nbytes} B"


class FunctionEventAvg:
    """The sum of several events with one key (name, and shapes/stack when grouped)."""

    def __init__(self, key: str, input_shapes=None, stack=None):
        self.key, self.input_shapes, self.stack = key, input_shapes, stack or []
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.flops = 0
        self.cpu_parent = None

    def add(self, ev) -> FunctionEventAvg:
        self.count += ev.count
        self.cpu_time_total += ev.cpu_time_total
        self.self_cpu_time_total += ev.self_cpu_time_total
        self.cpu_memory_usage += ev.cpu_memory_usage
        self.self_cpu_memory_usage += ev.self_cpu_memory_usage
        self.flops += ev.flops
        return self

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    # PyTorch's device columns: jtorch times ops to completion on the CPU timeline.
    device_time_total = self_device_time_total = cuda_time_total = self_cuda_time_total = 0.0

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} "
                f"self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time)} input_shapes={self.input_shapes}>")


class EventList(list):
    """A list of events (or of their averages) with PyTorch's summaries."""

    def __init__(self, *args, profile_memory=False, with_flops=False, trace=None):
        super().__init__(*args)
        self._profile_memory, self._with_flops, self._trace = profile_memory, with_flops, trace

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False) -> EventList:
        groups: dict = {}
        for ev in self:
            key = (ev.key, str(ev.input_shapes) if group_by_input_shape else None,
                   tuple(ev.stack[:group_by_stack_n]) if group_by_stack_n else None)
            if key not in groups:
                groups[key] = FunctionEventAvg(
                    ev.key, ev.input_shapes if group_by_input_shape else None,
                    ev.stack[:group_by_stack_n] if group_by_stack_n else None)
            groups[key].add(ev)
        return EventList(groups.values(), profile_memory=self._profile_memory,
                         with_flops=self._with_flops)

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg("Total")
        for ev in self:
            total.add(ev)
        return total

    @property
    def self_cpu_time_total(self) -> float:
        return sum(ev.self_cpu_time_total for ev in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None) -> str:
        """PyTorch's summary table (CPU columns; memory and FLOPs when recorded)."""
        return _build_table(self, sort_by, row_limit, max_src_column_width,
                            max_name_column_width, max_shapes_column_width, header,
                            top_level_events_only, time_unit, self._profile_memory,
                            self._with_flops)

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (chrome://tracing, Perfetto)."""
        events = [{"ph": "X", "cat": getattr(ev, "kind", "cpu_op"), "name": ev.name,
                   "pid": os.getpid(), "tid": getattr(ev, "thread", 0),
                   "ts": ev.start, "dur": ev.cpu_time_total,
                   "args": {"Input Dims": ev.input_shapes} if ev.input_shapes else {}}
                  for ev in (self._trace if self._trace is not None else self)]
        with open(path, "w") as f:
            json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)


def _columns(events, profile_memory, with_flops):
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    return headers


def _build_table(events, sort_by, row_limit, max_src, max_name, max_shapes, header,
                 top_level_only, time_unit, profile_memory, with_flops) -> str:
    if len(events) == 0:
        return ""
    if sort_by is not None:
        attr = sort_by.replace("cuda", "device").replace("xpu", "device")
        events = sorted(events, key=lambda e: getattr(e, attr), reverse=True)
    name_w = min(max(len(e.key) for e in events) + 4, max_name or 10**9)
    shapes_w = min(max(len(str(e.input_shapes)) for e in events) + 4, max_shapes or 10**9)
    has_shapes = any(e.input_shapes for e in events)
    stacks = [e.stack for e in events if e.stack]
    headers = _columns(events, profile_memory, with_flops)
    widths = [name_w] + [12] * (len(headers) - 1)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_w)
    src_w = min(max(len(s) for st in stacks for s in st) + 4, max_src) if stacks else 0
    if stacks:
        headers.append("Source Location")
        widths.append(src_w)
    flops = [e.flops for e in events if e.flops > 0] if with_flops else []
    scale, flops_header = _flops_scale(min(flops)) if flops else (1, "")
    if flops:
        headers.append(f"Total {flops_header}")
        widths.append(12)
    fmt = "".join(("{: <" if h == "Source Location" else "{: >") + f"{w}}}  "
                  for h, w in zip(headers, widths, strict=True))
    sep = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2
    total = sum(e.self_cpu_time_total for e in events)
    out = []
    if header is not None:
        out += ["=" * line_length, header]
    if top_level_only:
        out += ["=" * line_length, "This report only display top-level ops statistics"]
    out += [sep, fmt.format(*headers), sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_only and e.cpu_parent is not None:
            continue
        shown += 1
        out += _rows(e, fmt, total, time_unit, profile_memory, has_shapes, stacks, src_w,
                     max_name, flops and scale)
    out += [sep, f"Self CPU time total: {_format_time(total)}"]
    return "\n".join(out) + "\n"


def _rows(e, fmt, total, time_unit, profile_memory, has_shapes, stacks, src_w, max_name,
          scale) -> list[str]:
    def t(us):
        if time_unit == "s":
            return f"{us / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{us / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{us:.3f}us"
        return _format_time(us)

    name = e.key
    if max_name is not None and len(name) >= max_name - 3:
        name = name[: max_name - 3] + "..."
    row = [name, _format_share(e.self_cpu_time_total, total), t(e.self_cpu_time_total),
           _format_share(e.cpu_time_total, total), t(e.cpu_time_total), t(e.cpu_time)]
    if profile_memory:
        row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
    row.append(e.count)
    if has_shapes:
        row.append(str(e.input_shapes)[:80])
    src = list(e.stack) if stacks else []
    if stacks:
        row.append(_trim(src[0], src_w) if src else "")
    if scale:
        row.append(f"{e.flops * scale:8.3f}" if e.flops > 0 else "--")
    lines = [fmt.format(*row)]
    blank = [""] * (len(row) - (2 if scale else 1))
    for frame in src[1:]:
        lines.append(fmt.format(*blank, _trim(frame, src_w), *([""] if scale else [])))
    return lines


def _trim(path: str, width: int) -> str:
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path


def _flops_scale(flops: int):
    names = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]
    log = min(max(0, int(math.floor(math.log10(flops) / 3))), len(names) - 1)
    return 10 ** (-3 * log), names[log]
