"""Data checks remembered per array value: a target or index tensor reused skips the host
read, and one changed in place (a new value) is checked again, as PyTorch always checks."""

from __future__ import annotations

import pytest
from conftest import check


def _reuse_then_corrupt(t, loss, make_bad):
    x = t.linspace(-1, 1, 12).reshape(4, 3)
    y = t.tensor([0, 2, 1, 1])
    first, again = loss(t, x, y), loss(t, x, y)
    view = y[1:]
    make_bad(view)  # through a view: the base's value changes
    return first, again, loss(t, x, y)


LOSSES = {
    "cross_entropy": lambda t, x, y: t.nn.functional.cross_entropy(x, y),
    "nll_ignore": lambda t, x, y: t.nn.functional.nll_loss(x, y, ignore_index=3),
    "embedding": lambda t, x, y: t.nn.functional.embedding(y, x),
}


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("bad", [3, -1, 7])
def test_checked_value_changed_in_place_is_checked_again(name, bad):
    def program(t):
        return _reuse_then_corrupt(t, LOSSES[name], lambda v: v.fill_(bad))

    # 3 is a valid row of the embedding and nll_ignore's ignore_index; the rest are out of range
    fine = bad == 3 and name in ("nll_ignore", "embedding")
    check(program, raises=None if fine else IndexError)


@pytest.mark.parametrize("name", LOSSES)
def test_reused_value_gives_same_result(name):
    check(lambda t: _reuse_then_corrupt(t, LOSSES[name], lambda v: v.clamp_(0, 2)))
