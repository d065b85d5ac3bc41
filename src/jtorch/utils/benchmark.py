"""torch.utils.benchmark: ``Timer`` (timeit, blocked_autorange, adaptive_autorange) and
``Measurement``, as PyTorch's.

jtorch runs ops asynchronously (JAX), so each timed block ends by waiting for every array
still being computed: a measurement covers the work, as PyTorch's synchronous CPU ops do.

Differences from PyTorch: only Python statements (``Language.PYTHON``); ``Compare``,
Callgrind and the fuzzers are not provided.
"""

from __future__ import annotations

import enum
import math
import statistics
import textwrap
import timeit as _timeit

__all__ = ["Timer", "Measurement", "Language", "TaskSpec", "select_unit", "trim_sigfig"]

_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


def select_unit(t: float) -> tuple[str, float]:
    """The unit (ns/us/ms/s) that shows ``t`` seconds as an O(1) number."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(t) // 3) if t > 0 else -3, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def trim_sigfig(x: float, n: int) -> float:
    magnitude = math.ceil(math.log10(abs(x)))
    scale = 10 ** (magnitude - n)
    return float(round(x / scale) * scale)


class TaskSpec:
    """What was timed: statement, setup and labels."""

    def __init__(self, stmt, setup, global_setup="", label=None, sub_label=None,
                 description=None, env=None, num_threads=1):
        self.stmt, self.setup, self.global_setup = stmt, setup, global_setup
        self.label, self.sub_label, self.description = label, sub_label, description
        self.env, self.num_threads = env, num_threads

    def summarize(self) -> str:
        lines = []
        if self.label or self.sub_label:
            lines.append(": ".join(s for s in (self.label, self.sub_label) if s))
        if self.description:
            lines.append(self.description)
        else:
            lines.append(self.stmt)
        if self.setup and self.setup != "pass":
            setup = textwrap.dedent(self.setup).strip()
            lines.append("setup:" + ("\n" + textwrap.indent(setup, "  ") if "\n" in setup
                                     else f" {setup}"))
        return "\n".join(lines)


class Measurement:
    """Times of ``number_per_run`` runs each; statistics per run."""

    def __init__(self, number_per_run: int, raw_times: list, task_spec: TaskSpec,
                 metadata=None):
        self.number_per_run, self.raw_times = number_per_run, list(raw_times)
        self.task_spec, self.metadata = task_spec, metadata

    @property
    def times(self) -> list[float]:
        return [t / self.number_per_run for t in self.raw_times]

    def _quantile(self, q: float) -> float:
        xs = sorted(self.times)
        pos = q * (len(xs) - 1)
        lo, hi = math.floor(pos), math.ceil(pos)
        return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)

    @property
    def median(self) -> float:
        return self._quantile(0.5)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.times)

    @property
    def iqr(self) -> float:
        return self._quantile(0.75) - self._quantile(0.25)

    @property
    def num_threads(self) -> int:
        return self.task_spec.num_threads

    @property
    def title(self) -> str:
        return self.task_spec.summarize().splitlines()[0]

    @property
    def has_warnings(self) -> bool:
        return bool(self._warnings())

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        return self.iqr / self.median < threshold

    def _warnings(self) -> list[str]:
        if len(self.times) < 4 or self.median == 0:
            return []
        rel = self.iqr / self.median * 100
        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            msg = "This suggests significant environmental influence."
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            msg = "This could indicate system fluctuation."
        else:
            return []
        return [f"  WARNING: Interquartile range is {rel:.1f}% of the median measurement.\n"
                f"           {msg}"]

    def __repr__(self) -> str:
        n = len(self.times)
        unit, scale = select_unit(self.median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} "
                         f"({self._quantile(0.25) / scale:.2f} to "
                         f"{self._quantile(0.75) / scale:.2f})")
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads}")
        return "\n".join(lines + self._warnings())


def _wait_for_all() -> None:
    """Block until every JAX array being computed is ready."""
    import jax

    for a in jax.live_arrays():
        if not a.is_deleted():
            a.block_until_ready()


class Timer:
    """Time a Python statement (or callable) with ``setup``, PyTorch's Timer API."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=_timeit.default_timer,
                 globals=None, label=None, sub_label=None, description=None, env=None,
                 num_threads=1, language=Language.PYTHON):
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError("torch.utils.benchmark.Timer: only Python statements are "
                             "supported in jtorch (no C++ timing)")
        import jtorch

        env_globals = {"torch": jtorch, **(globals or {})}
        self._task_spec = TaskSpec(stmt if isinstance(stmt, str) else getattr(
            stmt, "__name__", repr(stmt)), setup, global_setup, label, sub_label,
            description, env, num_threads)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=env_globals)

    def _timeit(self, number: int) -> float:
        t = self._timer.timer
        start = t()
        self._timer.timeit(number)
        _wait_for_all()
        return t() - start

    def timeit(self, number: int = 1000000) -> Measurement:
        """One measurement of ``number`` runs (after one warm-up run)."""
        self._timeit(1)
        return Measurement(number, [self._timeit(number)], self._task_spec)

    def _block_size(self, min_run_time: float) -> int:
        number = 1
        while True:
            if self._timeit(number) >= min_run_time / 1000 or number >= 10**9:
                return number
            number *= 10

    def blocked_autorange(self, callback=None, min_run_time: float = 0.2) -> Measurement:
        """Blocks of runs (the block long enough to hide timer overhead) for at least
        ``min_run_time`` seconds."""
        number = self._block_size(min_run_time)
        times, total = [], 0.0
        while total < min_run_time:
            spent = self._timeit(number)
            times.append(spent)
            total += spent
            if callback:
                callback(number, spent)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0, callback=None) -> Measurement:
        """Blocks until the IQR/median falls below ``threshold`` (or ``max_run_time``)."""
        number = self._block_size(0.05)
        times, total = [], 0.0
        while True:
            spent = self._timeit(number)
            times.append(spent)
            total += spent
            if callback:
                callback(number, spent)
            m = Measurement(number, times, self._task_spec)
            if (total >= min_run_time and len(times) > 3 and m.meets_confidence(threshold)) \
                    or total > max_run_time:
                return m
