"""torch.nn.functional's helper names: the ``__torch_function__`` helpers, ``grad``,
grid_sample's mode lists, ``boolean_dispatch``, and the float8 matmuls jtorch lacks."""

from __future__ import annotations

import enum

from jtorch.nn import grad
from jtorch.overrides import (
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)

__all__ = ["grad", "handle_torch_function", "has_torch_function", "has_torch_function_unary",
           "has_torch_function_variadic", "GRID_SAMPLE_INTERPOLATION_MODES",
           "GRID_SAMPLE_PADDING_MODES", "assert_int_or_pair", "boolean_dispatch",
           "ScalingType", "SwizzleType", "scaled_mm", "scaled_grouped_mm"]

GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}
boolean_dispatched: dict = {}


def assert_int_or_pair(arg, arg_name: str, message: str) -> None:
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """A function calling ``if_true`` or ``if_false`` by the boolean argument ``arg_name``."""

    def fn(*args, **kwargs):
        flag = kwargs[arg_name] if arg_name in kwargs else (
            args[arg_index] if arg_index < len(args) else default)
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    if if_true.__doc__ is None and if_false.__doc__ is not None:
        if_true.__doc__ = if_false.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is not None:
        if_false.__doc__ = if_true.__doc__
    elif if_false.__doc__ is not None and if_true.__doc__ is not None:
        raise RuntimeError("only one function can have a docstring")
    fn.__doc__ = if_true.__doc__
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    boolean_dispatched[fn] = {"if_true": if_true, "if_false": if_false, "index": arg_index,
                              "default": default, "arg_name": arg_name}
    return fn


class ScalingType(enum.IntEnum):
    """How ``scaled_mm`` scales its float8 operands."""

    TensorWise = 0
    RowWise = 1
    BlockWise1x16 = 2
    BlockWise1x32 = 3
    BlockWise1x128 = 4
    BlockWise128x128 = 5


class SwizzleType(enum.IntEnum):
    NO_SWIZZLE = 0
    SWIZZLE_32_4_4 = 1


def _float8_only(name):
    def unsupported(*args, **kwargs):
        raise RuntimeError(f"torch.nn.functional.{name} is not supported in jtorch: it "
                           "multiplies float8 tensors, a dtype jtorch does not have")

    unsupported.__name__ = name
    return unsupported


scaled_mm = _float8_only("scaled_mm")
scaled_grouped_mm = _float8_only("scaled_grouped_mm")
