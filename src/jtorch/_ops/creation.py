"""Factories and random ops (bound by eager/creation.py)."""

from __future__ import annotations

from .._registry import op
from ..functional import creation, random

_F = dict(kind="factory", method=False)
op("zeros", creation.zeros, varargs="size", **_F)
op("ones", creation.ones, varargs="size", **_F)
op("empty", creation.empty, varargs="size", **_F)
op("full", creation.full, **_F)
op("arange", creation.arange, **_F)
op("linspace", creation.linspace, **_F)
op("eye", creation.eye, **_F)
op("rand", random.rand, kind="random", varargs="size", method=False)
op("randn", random.randn, kind="random", varargs="size", method=False)
op("randint", random.randint, kind="random", method=False)
op("normal_", random.normal, kind="random_", function=False)
op("uniform_", random.uniform, kind="random_", function=False)
