"""Shape and joining compositions (tests/opdb/shape.py covers the registry ops)."""

from __future__ import annotations

import pytest
from conftest import check

pytestmark = pytest.mark.filterwarnings("ignore:torch.meshgrid:UserWarning")


def _m(t):
    return t.arange(6.0, dtype=t.float64).reshape(2, 3)


def _v(t):
    return t.arange(3.0, dtype=t.float64)


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack", "row_stack"])
def test_stacks(name):
    check(lambda t: getattr(t, name)([_m(t), _m(t)]))
    check(lambda t: getattr(t, name)([_v(t), _v(t)]))
    check(lambda t: getattr(t, name)((t.tensor(1.0), t.tensor(2.0))))
    check(lambda t: getattr(t, name)([]), raises=RuntimeError)


def test_stacks_out_and_grad():
    def prog(t):
        a = _m(t).requires_grad_()
        y = t.hstack([a, _m(t)])
        (y * t.arange(12.0, dtype=t.float64).reshape(2, 6)).sum().backward()
        o = t.empty(0, dtype=t.float64)
        t.vstack([_v(t), _v(t)], out=o)
        return y, y.grad_fn.name(), a.grad, o

    check(prog)


def test_tile_and_repeat():
    check(lambda t: (t.tile(_m(t), (2,)), _m(t).tile(2, 1), _m(t).tile((3, 1, 2)), _v(t).tile(2)))
    check(lambda t: t.tile(_v(t), 2), raises=TypeError)
    check(lambda t: _m(t).repeat(2), raises=RuntimeError)


def test_broadcasting_helpers():
    check(lambda t: (t.broadcast_to(_v(t), (2, 3)), _v(t).broadcast_to(4, 3)), strides=True)
    check(lambda t: t.broadcast_tensors(_v(t), _m(t), t.tensor(1.0)), strides=True)
    check(lambda t: t.broadcast_tensors([_v(t), _m(t)]), raises=TypeError)
    check(lambda t: t.broadcast_tensors(_v(t), t.zeros(4)), raises=RuntimeError)
    check(lambda t: (t.broadcast_shapes((2, 1), (3,), 1), t.broadcast_shapes()))
    check(lambda t: t.broadcast_shapes((2, 1), (3, 2)), raises=RuntimeError)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_atleast(n):
    def prog(t):
        f = getattr(t, f"atleast_{n}d")
        return (f(t.tensor(1.0)), f(_v(t)), f(_m(t)), f(_v(t), _m(t)), f([_v(t)]),
                f(t.zeros(2, 3, 4)))

    check(prog, strides=True)


def test_ravel_unflatten_splits():
    check(lambda t: (t.ravel(_m(t)), _m(t).t().ravel(), t.unflatten(_m(t), 1, (3, 1)),
                     _m(t).reshape_as(t.zeros(3, 2)), _m(t).type_as(t.zeros(1, dtype=t.int32))))
    check(lambda t: (t.hsplit(_m(t), 3), t.vsplit(_m(t), [1]), _m(t).hsplit([1, 2]),
                     t.hsplit(_v(t), 3), t.tensor_split(_m(t), 2, 1),
                     t.dsplit(t.zeros(1, 2, 4), 2)),
          strides=True)
    check(lambda t: t.hsplit(_m(t), 2), raises=RuntimeError)
    check(lambda t: t.dsplit(_m(t), 1), raises=RuntimeError)
    check(lambda t: (t.chunk(t.arange(5), 4), t.chunk(t.arange(6), 4), t.arange(2).chunk(5)))


def test_repeat_interleave():
    check(lambda t: (t.repeat_interleave(t.tensor([1, 2, 0])), t.repeat_interleave(_m(t), 2),
                     t.repeat_interleave(_m(t), 2, dim=1),
                     _m(t).repeat_interleave(t.tensor([1, 2]), dim=0),
                     t.repeat_interleave(_m(t), t.tensor([2]), dim=1),
                     t.repeat_interleave(t.tensor(2.0), 3),
                     t.repeat_interleave(_m(t), t.tensor([1, 2]), dim=0, output_size=3)))
    for bad in ([1, 2, 3], [1, -2]):
        check(lambda t, bad=bad: t.repeat_interleave(_m(t), t.tensor(bad), dim=0),
              raises=RuntimeError)
    check(lambda t: t.repeat_interleave(_m(t), -1), raises=RuntimeError)
    check(lambda t: t.repeat_interleave(_m(t), t.tensor([1, 2]), dim=0, output_size=4),
          raises=RuntimeError)


def test_repeat_interleave_grad():
    def prog(t):
        x = _m(t).requires_grad_()
        a = x.repeat_interleave(2, dim=1)
        b = x.repeat_interleave(t.tensor([2, 1]), dim=0)
        (a * t.arange(12.0, dtype=t.float64).reshape(2, 6)).sum().backward()
        (b * t.arange(9.0, dtype=t.float64).reshape(3, 3)).sum().backward()
        return a, b, x.grad, b.grad_fn.name()

    check(prog)


def test_meshgrid():
    v, w = (lambda t: t.arange(3.0)), (lambda t: t.arange(2.0))
    for indexing in ("ij", "xy"):
        check(lambda t, i=indexing: t.meshgrid(v(t), w(t), indexing=i), strides=True)
        check(lambda t, i=indexing: t.meshgrid([v(t), w(t), t.tensor(5.0)], indexing=i))
    check(lambda t: t.meshgrid(v(t), w(t)))  # the default is "ij"
    check(lambda t: t.meshgrid(v(t), indexing="foo"), raises=RuntimeError)
    check(lambda t: t.meshgrid(v(t), w(t).long(), indexing="ij"), raises=RuntimeError)
    check(lambda t: t.meshgrid(t.zeros(2, 2), indexing="ij"), raises=RuntimeError)


def test_meshgrid_warns_without_indexing():
    import jtorch  # PyTorch warns once per process, so only jtorch is checked here

    with pytest.warns(UserWarning, match="indexing"):
        jtorch.meshgrid(jtorch.arange(2), jtorch.arange(3))


def test_logspace():
    check(lambda t: (t.logspace(0, 2, 3), t.logspace(0, 2, 3, base=2), t.logspace(0, 1, 4),
                     t.logspace(0, 3, 4, dtype=t.int32), t.logspace(-1, 1, 5, dtype=t.float64),
                     t.logspace(2, 0, 3, base=0.5), t.logspace(0, 1, 1), t.logspace(0, 1, 0)))
    check(lambda t: t.logspace(0, 1, -1), raises=RuntimeError)
    check(lambda t: t.logspace(0, 1, 2, dtype=t.bool), raises=NotImplementedError)


def test_cat_of_many_tensors_matches_pytorch():
    """A cat of more than 16 tensors runs as a cat of cats (``bind._in_groups``): values,
    gradients, the out= form, dtype promotion and the errors naming the bad input's
    position are PyTorch's."""

    def prog(t):
        xs = [t.arange(6, dtype=t.float64).reshape(3, 2).mul(i).requires_grad_()
              for i in range(40)]
        y = t.cat(xs, dim=1)
        (y * t.arange(y.numel(), dtype=t.float64).reshape(y.shape)).sum().backward()
        mixed = t.cat([t.ones(2, dtype=t.int64) * i for i in range(33)] + [t.ones(2)])
        legacy = t.cat([t.ones(2)] * 20 + [t.ones(0)] + [t.ones(2)])
        out = t.empty(0)
        t.concat([t.ones(1, 2) * i for i in range(20)], out=out)
        return (y.detach(), y.grad_fn.name(), [x.grad for x in xs[::9]], mixed, legacy, out,
                t.concatenate([t.ones(1) * i for i in range(18)], axis=0))

    check(prog)
    check(lambda t: t.cat([t.ones(2, 2)] * 20 + [t.ones(3, 3)]), raises=RuntimeError)
    check(lambda t: t.cat([t.ones(2, 2)] * 20 + [t.ones(2)], dim=1), raises=RuntimeError)
