"""Copying movement ops: flip, roll, rot90, repeat, narrow_copy."""

from __future__ import annotations

from .._registry import op
from ..functional import movement as M

op("flip", M.flip, static=("dims",), varargs="dims", saves="none")
op("fliplr", M.fliplr, saves="none", grad_name="FlipBackward0")
op("flipud", M.flipud, saves="none", grad_name="FlipBackward0")
op("roll", M.roll, static=("shifts", "dims"), saves="none")
op("rot90", M.rot90, static=("k", "dims"), saves="none")
op("repeat", M.repeat, static=("repeats",), varargs="repeats", function=False, saves="none")
op("narrow_copy", M.narrow_copy, static=("dim", "start", "length"), saves="none", out=True)
