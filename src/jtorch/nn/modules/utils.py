"""Helpers PyTorch's modules (and much third-party code) import from
``torch.nn.modules.utils``: ``_pair`` and friends, and the DDP state_dict prefix fix."""

from __future__ import annotations

import collections.abc
from itertools import repeat

__all__: list[str] = []


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """Reverse ``t`` and repeat each element ``n`` times (conv padding -> F.pad's order)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d
            for v, d in zip(out_size, defaults[-len(out_size):], strict=False)]


def consume_prefix_in_state_dict_if_present(state_dict, prefix: str) -> None:
    """Strip ``prefix`` (e.g. DDP's "module.") from the keys of ``state_dict`` in place."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    for key in list(metadata.keys()):
        if key and (key == prefix.replace(".", "") or key.startswith(prefix)):
            metadata[key[len(prefix):]] = metadata.pop(key)
