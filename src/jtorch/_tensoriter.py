"""The output layout of pointwise ops: PyTorch's TensorIterator rule, as metadata.

PyTorch allocates a pointwise result in the memory order of its inputs, so
``x.t().exp()`` has strides ``(1, 4)``, not ``(3, 1)``. Our values are logical arrays,
so only the reported strides need this rule. Inputs are ``(shape, stride)`` pairs,
already known to include a non-contiguous one.
"""

from __future__ import annotations

from ._strides import (
    contiguous_strides,
    is_contiguous,
    is_non_overlapping_and_dense,
    strides_in_order,
)


def _broadcast_strides(shape, stride, out_shape):
    lead = len(out_shape) - len(shape)
    out = [0] * lead
    for i, (n, st) in enumerate(zip(shape, stride)):
        out.append(0 if n == 1 and out_shape[lead + i] != 1 else st)
    return out


def output_strides(out_shape, inputs) -> tuple[int, ...] | None:
    """Strides PyTorch gives a pointwise result; None means contiguous."""
    n = len(out_shape)
    if n < 2:
        return None
    if all(tuple(s) == tuple(out_shape) for s, _ in inputs):
        if all(is_contiguous(s, st) for s, st in inputs):
            return None
        if all(is_non_overlapping_and_dense(s, st) for s, st in inputs) and len(
            {tuple(st) for _, st in inputs}
        ) == 1:
            return tuple(inputs[0][1])
    ops = [_broadcast_strides(s, st, out_shape) for s, st in inputs]

    def should_swap(d0, d1):
        for st in ops:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if out_shape[d0] > out_shape[d1]:
                return 1
        return 0

    out = strides_in_order(out_shape, should_swap)
    return None if out == contiguous_strides(out_shape) else out
