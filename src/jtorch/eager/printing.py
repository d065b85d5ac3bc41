"""Tensor ``repr`` formatting that reproduces PyTorch's text output.

Pure Python/NumPy: the caller hands over the tensor's data as a NumPy array
plus the already-decided pieces (dtype name, whether to show it, extra
suffixes), and this module lays the text out the way ``torch._tensor_str``
does, including its quirks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

_PREFIX = "tensor("

# precision, threshold, edgeitems, linewidth for each named profile.
_PROFILES: dict[str, tuple[int, float, int, int]] = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}

_OPTS: dict[str, Any] = {
    "precision": 4,
    "threshold": 1000,
    "edgeitems": 3,
    "linewidth": 80,
    "sci_mode": None,
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set the options used by ``format_tensor`` (same semantics as torch)."""
    if profile in _PROFILES:
        keys = ("precision", "threshold", "edgeitems", "linewidth")
        _OPTS.update(zip(keys, _PROFILES[profile], strict=True))
    given = {
        "precision": precision,
        "threshold": threshold,
        "edgeitems": edgeitems,
        "linewidth": linewidth,
    }
    _OPTS.update({k: v for k, v in given.items() if v is not None})
    # torch resets sci_mode on every call, even when it is not passed.
    _OPTS["sci_mode"] = sci_mode


def get_printoptions() -> dict[str, Any]:
    """Return the current print options as a dict accepted by ``set_printoptions``."""
    return dict(_OPTS)


class _Formatter:
    """Decides the notation and column width shared by every element."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(str(value)))
            return
        flat = flat.astype(np.float64)  # exact for every float dtype we accept
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return  # only zeros / non-finite values: keep the defaults
        self._choose_mode(finite)
        self.max_width = max(self._width_of(v) for v in finite.tolist())

    def _choose_mode(self, finite: np.ndarray) -> None:
        magnitude = np.abs(finite)
        lo, hi = float(magnitude.min()), float(magnitude.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        forced = _OPTS["sci_mode"]
        auto = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        self.sci_mode = auto if forced is None else forced

    def _width_of(self, value: float) -> int:
        precision = _OPTS["precision"]
        if self.sci_mode:
            return len(f"{value:.{precision}e}")
        if self.int_mode:
            # the trailing "." that marks the value as a float
            return len(f"{value:.0f}") + 1
        return len(f"{value:.{precision}f}")

    def format(self, value: Any) -> str:
        """Format one Python scalar, right-aligned to the common width."""
        precision = _OPTS["precision"]
        if not self.floating:
            text = f"{value}"
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."
        else:
            text = f"{value:.{precision}f}"
        return " " * (self.max_width - len(text)) + text


class _Layout:
    """Renders nested lists of elements once the formatters are known."""

    def __init__(self, summarize: bool, real: _Formatter, imag: _Formatter | None) -> None:
        self.summarize = summarize
        self.real = real
        self.imag = imag
        self.edge = _OPTS["edgeitems"]

    def element(self, value: Any) -> str:
        """Format one element; complex values join their real and imag parts."""
        if self.imag is None:
            return self.real.format(value)
        real = self.real.format(value.real)
        imag = (self.imag.format(value.imag) + "j").lstrip()
        # the imag part carries its own sign ("-0.j", "-1.j"); otherwise add one
        return real + imag if imag[0] in "+-" else real + "+" + imag

    def element_length(self) -> int:
        """Width of one element plus its ", " separator."""
        length = self.real.max_width + 2
        if self.imag is not None:
            length += self.imag.max_width + 1  # imag column plus its "j"
        return length

    def render(self, values: np.ndarray, indent: int) -> str:
        """Render an array of any rank starting at column ``indent``."""
        if values.ndim == 0:
            return self.element(values.item())
        if values.ndim == 1:
            return self._vector(values, indent)
        return self._nested(values, indent)

    def _vector(self, values: np.ndarray, indent: int) -> str:
        per_line = max(1, math.floor((_OPTS["linewidth"] - indent) / self.element_length()))
        if self.summarize and not self.edge:
            items = ["..."]
        elif self.summarize and values.shape[0] > 2 * self.edge:
            head = [self.element(v) for v in values[: self.edge].tolist()]
            tail = [self.element(v) for v in values[-self.edge :].tolist()]
            items = head + [" ..."] + tail
        else:
            items = [self.element(v) for v in values.tolist()]
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"

    def _nested(self, values: np.ndarray, indent: int) -> str:
        count = values.shape[0]
        if self.summarize and count > 2 * self.edge:
            rows = [self.render(values[i], indent + 1) for i in range(self.edge)]
            rows.append("...")
            rows += [self.render(values[i], indent + 1) for i in range(count - self.edge, count)]
        else:
            rows = [self.render(values[i], indent + 1) for i in range(count)]
        # one blank line per dimension above the matrix level separates blocks
        separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
        return "[" + separator.join(rows) + "]"


def _summarized(values: np.ndarray, edge: int) -> np.ndarray:
    """Flat array of the elements that a summarized print will show."""
    if values.ndim == 0:
        return values.reshape(-1)
    if values.ndim == 1:
        if values.shape[0] > 2 * edge:
            # with edge == 0, values[-0:] is the whole row, as in torch
            return np.concatenate((values[:edge], values[-edge:]))
        return values
    if not edge:
        return values[:0].reshape(-1)
    count = values.shape[0]
    picked = range(count)
    if count > 2 * edge:
        picked = [*range(edge), *range(count - edge, count)]
    return np.concatenate([_summarized(values[i], edge) for i in picked])


def _body(values: np.ndarray, indent: int) -> str:
    """The bracketed element text for a non-empty array."""
    summarize = values.size > _OPTS["threshold"]
    shown = _summarized(values, _OPTS["edgeitems"]) if summarize else values
    if values.dtype.kind == "c":
        layout = _Layout(summarize, _Formatter(shown.real), _Formatter(shown.imag))
    else:
        layout = _Layout(summarize, _Formatter(shown), None)
    return layout.render(values, indent)


def _join_suffixes(text: str, suffixes: Sequence[str], indent: int) -> str:
    """Append ``, suffix`` items, wrapping any that would pass the line width."""
    parts = [text]
    # torch's estimate of the last line's length (deliberately reproduced, +1 quirk included)
    last_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_len + len(suffix) + 2 > _OPTS["linewidth"]:
            parts.append(",\n" + " " * indent + suffix)
            last_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_len += len(suffix) + 2
    return "".join(parts) + ")"


def _printable(values: np.ndarray) -> np.ndarray:
    """Widen dtypes NumPy cannot format (ml_dtypes bfloat16 etc.) to float32."""
    values = np.asarray(values)
    if values.dtype.kind not in "biufc":
        return values.astype(np.float32)
    return values


def format_tensor(
    values: np.ndarray,
    *,
    dtype_name: str,
    show_dtype: bool,
    suffixes: Sequence[str] = (),
) -> str:
    """Return PyTorch's ``repr`` text for a tensor holding ``values``."""
    values = _printable(values)
    indent = len(_PREFIX)
    rest = list(suffixes)
    # device goes before dtype/size; everything else the caller passes goes after
    lead = [rest.pop(0)] if rest and rest[0].startswith("device=") else []
    middle: list[str] = []
    if values.size == 0:
        body = "[]"
        if values.ndim != 1:
            middle.append(f"size={tuple(values.shape)}")
        # empty tensors show every dtype except the default float dtype, which
        # is the only float dtype for which the caller would hide it
        if show_dtype or values.dtype.kind != "f":
            middle.append(f"dtype={dtype_name}")
    else:
        if not _OPTS["edgeitems"]:
            middle.append(f"size={tuple(values.shape)}")
        if show_dtype:
            middle.append(f"dtype={dtype_name}")
        body = _body(values, indent)
    return _join_suffixes(_PREFIX + body, lead + middle + rest, indent)
