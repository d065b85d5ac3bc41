"""The bindings' fast path (eager/bind.py ``fast_call``): an op without statics on tensors
and Python numbers skips ``call``'s generic argument split. It must give ``call``'s
results exactly: values, dtypes (default dtype and Python-number promotion), memory
layout, autograd records; and leave every other case to ``call``."""

from __future__ import annotations

import inspect
import subprocess
import sys

import numpy as np
import pytest
import torch
from conftest import assert_same

import jtorch
from jtorch.eager import bind


@pytest.fixture
def no_generic_call(monkeypatch):
    """Make ``call`` fail for the bindings of add/mul/sub/exp: whatever still reaches it
    did not take the fast path."""
    return _generic_calls(monkeypatch, (jtorch.Tensor.__add__, jtorch.Tensor.__mul__,
                                        jtorch.add, jtorch.sub, jtorch.exp))


def _generic_calls(monkeypatch, fns) -> list:
    """The op names of the calls of ``fns``' bindings that reach ``call`` (no fast path)."""
    reached = []

    def counting(spec, names, vals, statics, out=None):
        reached.append(spec.name)
        return bind.call(spec, names, vals, statics, out)

    for fn in fns:
        monkeypatch.setitem(inspect.unwrap(fn).__globals__, "_call", counting)
    return reached


def _program(t):
    rng = np.random.default_rng(0)
    a = t.tensor(rng.standard_normal((3, 4)), dtype=t.float32)
    b = t.tensor(rng.standard_normal((4, 3)), dtype=t.float32).t()  # not contiguous
    i = t.tensor([[1, 2, 3, 4]] * 3)
    w = t.nn.Parameter(t.tensor(rng.standard_normal((3, 4))))
    out = {
        "plain": a + a,
        "layout": t.exp(b),  # keeps the transposed layout
        "mixed_layout": a * b,
        "int_float": i * 2.5,  # a Python float promotes to the default dtype
        "int_int": t.add(i, 3),
        "int_true_div": i.exp(),
        "param": t.sub(w, 1.0),
    }
    loss = (w * w + w.exp()).sum()
    loss.backward()
    out["grad"] = w.grad
    out["grad_fn"] = (w * 2.0).grad_fn.name()
    return out


def test_fast_path_matches_pytorch(no_generic_call):
    expected, actual = _program(torch), _program(jtorch)
    assert_same(expected, actual, strides=True)
    # the generic path ran only for the ops that are not fast-path bindings (sum, ...)
    assert not {"add", "mul", "sub", "exp"} & set(no_generic_call)


def test_default_dtype_keys_the_fast_kernel():
    i = jtorch.tensor([1, 2])
    assert (i * 0.5).dtype == jtorch.float32
    jtorch.set_default_dtype(jtorch.float64)
    try:
        assert (i * 0.5).dtype == jtorch.float64
    finally:
        jtorch.set_default_dtype(jtorch.float32)
    assert (i * 0.5).dtype == jtorch.float32


@pytest.mark.parametrize("case", ["out", "numpy_scalar", "bool", "ndarray"])
def test_other_calls_take_the_generic_path(case, no_generic_call):
    def run(t):
        a = t.tensor([1.0, 2.0])
        if case == "out":
            o = t.empty(2)
            t.add(a, a, out=o)
            return o
        if case == "numpy_scalar":
            return t.add(a, np.float64(1.5))
        if case == "bool":
            return t.add(a, True)
        return a + np.ones(2)

    expected, actual = run(torch), run(jtorch)
    if case == "ndarray":  # both defer to NumPy's reflected add
        np.testing.assert_allclose(np.asarray(actual), np.asarray(expected))
    else:
        assert_same(expected, actual)
        assert "add" in no_generic_call


def _all_operands_program(t):
    """Calls giving every optional operand (``fast_call`` on them all): a Linear's bias on
    parameters, needing a gradient or not, and ``alpha`` of several types and its errors."""
    x = t.tensor(np.arange(12.0).reshape(4, 3) / 7, dtype=t.float32)
    w = t.nn.Parameter(t.tensor(np.linspace(-1, 1, 6).reshape(2, 3), dtype=t.float32))
    b = t.nn.Parameter(t.tensor([0.5, -0.25]))
    i = t.tensor([1, 2])
    out = []
    for _ in range(3):
        y = t.nn.functional.linear(x, w, b)
        y.pow(2).sum().backward()
        with t.no_grad():
            out.append(t.nn.functional.linear(x, w, b))
        out += [y, y.grad_fn.name(), w.grad, b.grad, t.add(x, x, alpha=2), x.sub(x, alpha=0.5),
                t.add(i, i, alpha=3), t.add(i, 2, alpha=2)]
        w.grad = b.grad = None
        for bad in ((i, i, 1.5), (i, i, True)):
            try:
                out.append(t.add(*bad[:2], alpha=bad[2]))
            except RuntimeError as exc:
                out.append(str(exc))
    return out


def test_calls_giving_every_optional_operand_take_the_fast_path(monkeypatch):
    from jtorch.eager import dispatch

    reached = _generic_calls(monkeypatch, (jtorch.nn.functional.linear, jtorch.add,
                                           jtorch.Tensor.sub))
    ran = []
    real = dispatch.run
    monkeypatch.setattr(dispatch, "run", lambda key, *a: ran.append(key[0]) or real(key, *a))
    expected = _all_operands_program(torch)
    _all_operands_program(jtorch)
    reached.clear()
    ran.clear()
    assert_same(expected, _all_operands_program(jtorch), strides=True)
    # Parameters are plain tensors to the lanes: linear records through the grad lane
    assert "linear" not in ran, ran
    # only alpha=True (a bool: the fast paths take tensors, ints and floats) reaches
    # ``call``; alpha=1.5 on integers raises PyTorch's error from the fast path's kernel
    assert reached == ["add"] * 3, reached


def test_autocast_still_routes_fast_bindings():
    a = jtorch.randn(4, 4)
    with jtorch.autocast("cpu", dtype=jtorch.bfloat16):
        assert jtorch.mm(a, a).dtype == jtorch.bfloat16
        assert (a @ a).dtype == jtorch.bfloat16
    assert jtorch.mm(a, a).dtype == jtorch.float32


# ------------------------------------------------------------------ the inline lane


@pytest.fixture
def lane_misses(monkeypatch):
    """Count the calls of add/mul/exp that leave the bindings' inline lane (they reach
    ``fast_call``); the lane runs a kernel the binding has looked up before."""
    missed = []

    def counting(spec, cache, names, args):
        missed.append(spec.name)
        return bind.fast_call(spec, cache, names, args)

    for fn in (jtorch.Tensor.__add__, jtorch.Tensor.__mul__, jtorch.exp, jtorch.Tensor.exp):
        monkeypatch.setitem(inspect.unwrap(fn).__globals__, "_fast", counting)
    return missed


def _lane_program(t):
    rng = np.random.default_rng(1)
    a = t.tensor(rng.standard_normal((3, 4)), dtype=t.float32)
    bt = t.tensor(rng.standard_normal((4, 3)), dtype=t.float32).t()  # not contiguous
    w = t.tensor(rng.standard_normal((3, 4)), dtype=t.float32, requires_grad=True)
    i = t.tensor([[1, 2], [3, 4]])
    h = t.tensor([1.0, 2.0], dtype=t.float16)
    out = {"plain": a + a, "layout": bt.exp(), "mixed_layout": a * bt, "view": a[1:] + a[1:],
           # Python numbers after the first operand: promotion as PyTorch's
           "number": a * 2.5, "rnumber": 2 * a, "int_number": i * 2.5, "int_int": i + 3,
           "zero": a * 0, "big_int": i + 2**40, "half": h * 2.5, "half_int": h + 3,
           "int_true": i * 1.0}
    with t.no_grad():
        out["no_grad"] = w * a  # needs no gradient here: no graph
    with t.inference_mode():
        inf = a + a
    out["inference"] = inf.is_inference()
    out["no_grad_has_fn"] = out["no_grad"].grad_fn is None
    y = w * a  # needs a gradient: recorded
    (y.sum() + (w * 2.0).sum()).backward()
    out["grad"], out["grad_fn"] = w.grad.clone(), y.grad_fn.name()
    # The grad lane: names picked per overload, both operands the same leaf, an int
    # operand (no edge), a Python number first (reflected), a recorded result as operand.
    r, m, n = 3.0 - w, w * w, w + t.tensor(np.arange(12).reshape(3, 4))
    q = (2 * m) * r
    out["grad_names"] = [x.grad_fn.name() for x in (r, m, n, q)]
    out["edges"] = [len(x.grad_fn.next_functions) for x in (r, m, n, q)]
    (q.sum() + n.sum()).backward()
    out["grad2"] = w.grad
    return out


def test_lane_matches_pytorch_and_takes_plain_tensors(lane_misses):
    for _ in range(2):  # the first call of each binding looks its kernel up
        actual = _lane_program(jtorch)
    assert_same(_lane_program(torch), actual, strides=True)
    lane_misses.clear()
    _lane_program(jtorch)
    # Views (the transposed ``bt`` too) leave the lane; plain tensors, with Python
    # numbers or not, needing a gradient or not (``grad_lane``), do not.
    assert sorted(lane_misses) == ["add", "exp", "mul"]


def _recorded_grad_ops(t):
    """Ops the grad lane records with their nodes (small results, types seen before),
    static and checked ops among them: their graphs (names per overload), saved inputs
    and gradients, against PyTorch's."""
    out = []
    for step in range(4):  # recorded from the second step on
        a = t.linspace(-1, 1, 5)
        w = t.tensor([0.5, -1.0, 2.0, 0.25, 1.5], requires_grad=True)
        i = t.arange(5)
        y = w * a + 2.0 * w - (w * i) + (a - w)  # mixed with recorded results, ints, numbers
        z = y * y  # saves both operands, the same tensor
        s = z.pow(2) + w ** 3.0 + y.sum(0, True) + t.pow(y, 2).mean(0)  # checked, static
        loss = (z - 1.0).sum() + s.sum(0).mean()
        node = z.grad_fn
        out.append([node.name(), [None if f is None else f.name()
                                  for f, _ in node.next_functions],
                    [None if f is None else f.name() for f, _ in y.grad_fn.next_functions],
                    [x.grad_fn.name() for x in (s, z.pow(2), y.sum(0, True), loss)]])
        loss.backward()
        out.append(w.grad)
        u = w * a  # saves a (for w's gradient)
        a.add_(1.0)  # a saved input changed: the backward raises
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            u.sum().backward()
        out.append(step)
    return out


def test_recorded_grad_ops_match_pytorch():
    assert_same(_recorded_grad_ops(torch), _recorded_grad_ops(jtorch))


def test_lane_leaves_autocast_and_the_profiler_their_calls(lane_misses):
    from jtorch.profiler import profile

    a = jtorch.randn(4, 4)
    for _ in range(2):
        a @ a
        a + a
    with jtorch.autocast("cpu", dtype=jtorch.bfloat16):
        assert (a @ a).dtype == jtorch.bfloat16
    with profile() as prof:
        a + a
    assert "aten::add" in {e.name for e in prof.events()}
    assert (a @ a).dtype == jtorch.float32


def _inplace_program(t):
    """In-place binary ops on plain tensors (``fast_paths.inplace_lane``) and the cases it
    leaves to the generic way, for several steps (recorded from the second on)."""
    out = []
    for _ in range(3):
        w = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        x = t.tensor([1.0, 2.0, 3.0])
        i = t.tensor([4, 5, 6])
        alias = x.detach()  # the same storage, whole
        v0 = x._version
        with t.no_grad():
            w -= 0.1 * (w * 2.0)  # the polynomial's update
            w.mul_(1.5)
            x += alias
            x.sub_(x)  # itself
            x.add_(2)
            x *= t.tensor([2.0, 3.0, 4.0])
            i += 1
            i *= i
            i.sub_(t.tensor([1, 1, 1]))
        y = x * 2.0
        x.add_(y)  # grad mode on, nothing needing a gradient
        out += [w, w.requires_grad, w.is_leaf, x, alias, x._version - v0, i, i.dtype, y]
        out += [_inplace_errors(t, w, x, i), x, i]
        m = t.ones(2, 3)
        m[0] += 1.0  # a view: the generic way
        m.t().mul_(2.0)
        m.add_(t.ones(3))  # broadcast: the generic way
        out += [m, m.stride()]
        p = t.nn.Parameter(t.tensor([1.0, -2.0, 4.0]))
        (p * p).sum().backward()
        v = p._version
        with t.no_grad():
            p -= 0.5 * p.grad  # a Parameter: the lane, and it stays the same Parameter
        out += [p, type(p).__name__, p.is_leaf, p.requires_grad, p._version - v]
        g = t.ones(3, requires_grad=True) * 2.0
        g.add_(x)  # needs a gradient: the generic way, recorded in g's history
        g.sum().backward()
        out += [g.grad_fn.name(), g]
    return out


def _inplace_errors(t, w, x, i):
    """In-place calls the lane leaves to the generic way: results, or PyTorch's errors."""
    out = []
    for target, op, other in (
            (i, "div_", 2), (i, "add_", 0.5), (x, "add_", t.ones(2)), (x, "add_", t.ones(2, 3)),
            (w, "add_", 1.0), (t.tensor([True]), "add_", 1), (t.tensor([True]), "sub_", True),
            (x, "add_", t.tensor([1, 2, 3.5], dtype=t.float64)),
            (i, "add_", t.tensor([1.0, 2.0, 3.0]))):
        try:
            out.append(getattr(target, op)(other))
        except RuntimeError as exc:
            out.append(str(exc)[:30])
    return out


def test_inplace_lane_matches_pytorch():
    assert_same(_inplace_program(torch), _inplace_program(jtorch), strides=True)


def test_inplace_lane_takes_the_update(monkeypatch):
    from jtorch.eager import fast_paths, views

    committed = []
    real = views.commit
    monkeypatch.setattr(views, "commit", lambda t, *a, **k: committed.append(1) or real(t, *a, **k))
    for _ in range(2):  # the first calls look the kernels up (through the generic way)
        w, x = jtorch.ones(3, requires_grad=True), jtorch.ones(3)
        with jtorch.no_grad():
            w -= 0.1 * (w * 2.0)
            w.add_(x)
    committed.clear()
    w, x = jtorch.ones(3, requires_grad=True), jtorch.ones(3)
    with jtorch.no_grad():
        w -= 0.1 * (w * 2.0)
        w.add_(x)
    assert not committed
    assert fast_paths.inplace_lane is bind.inplace_lane
    assert jtorch.equal(w, jtorch.tensor([1.8, 1.8, 1.8]))


# ------------------------------------------------------------------ checked ops (pow)


def _pow_program(t):
    rng = np.random.default_rng(2)
    x = t.tensor(rng.standard_normal((3, 4)), dtype=t.float32)
    xt = t.tensor(rng.standard_normal((4, 3)), dtype=t.float64).t()
    i = t.tensor([[1, 2], [3, 4]])
    w = t.tensor(rng.standard_normal(4), dtype=t.float32, requires_grad=True)
    out = {"square": x ** 2, "cube": x.pow(3), "sqrt": x.abs() ** 0.5, "neg": x ** -1,
           "other": x ** 1.7, "int": i ** 2, "int_float": i ** 0.5, "layout": xt ** 2,
           "tensor_exp": x ** x, "rpow": 2 ** x, "fn": t.pow(x, 2.0)}
    y = w ** 2 + w.pow(3.0)
    y.sum().backward()
    out["grad"], out["name"] = w.grad, (w ** 2).grad_fn.name()
    with pytest.raises(RuntimeError, match="negative integer powers"):
        i ** -1
    # Repeated calls (the types' check and constants remembered): every exponent is
    # checked against the types it comes with, however often the types came before.
    for k, e in enumerate((2, 2, 2.0, 2.0, 3, -1, -1.5, True)):
        out[f"rep{k}"] = (x ** e, x.double() ** e, (w * 1.0) ** e)
        if e == -1:
            with pytest.raises(RuntimeError, match="negative integer powers"):
                i ** e
        else:
            out[f"rep_int{k}"] = i ** e
    out["rep_names"] = [((w * 1.0) ** e).grad_fn.name() for e in (2, w, 2, w)]
    return out


def test_pow_fast_path_matches_pytorch(monkeypatch):
    reached = _generic_calls(monkeypatch, (jtorch.pow, jtorch.Tensor.__pow__))
    assert_same(_pow_program(torch), _pow_program(jtorch), strides=True)
    assert reached == ["pow"] * 4  # only ``** True``: a bool exponent is ``call``'s


def test_pow_fast_path_remembers_its_types_check(monkeypatch):
    """A repeated ``x ** 2`` runs pow's host check and constant pick once per operand types
    (they follow from the types: ``by_types``); new types or numbers run them again."""
    g = inspect.unwrap(jtorch.Tensor.__pow__).__globals__
    spec = g["_spec"]
    monkeypatch.setitem(g, "_fcc", {})  # nothing remembered from earlier tests
    calls = []

    def counted(fn):
        return lambda *a: calls.append(fn.__name__) or fn(*a)

    extra = {**spec.extra, "check": counted(spec.extra["check"]),
             "constant": counted(spec.extra["constant"])}
    monkeypatch.setattr(spec, "extra", extra)
    x, i = jtorch.randn(5), jtorch.tensor([1, 2])
    for _ in range(3):
        x ** 2
    assert calls == ["_check_int_pow", "_constant_exponent"]
    x ** 3
    i ** 2
    assert len(calls) == 6
    with pytest.raises(RuntimeError, match="negative integer powers"):
        i ** -1
    with pytest.raises(RuntimeError, match="negative integer powers"):
        i ** -1  # a failed check is not remembered


def test_pow_fast_path_shares_calls_kernel():
    from conftest import counting_compiles

    x = jtorch.randn(7, 3)
    o = jtorch.empty(7, 3)
    jtorch.pow(x, 2, out=o)  # the generic path compiles x ** 2
    with counting_compiles() as compiles:
        y = x ** 2
    assert not compiles
    assert jtorch.equal(y, o)


# ------------------------------------------------------------------ ops with statics


def _static_program(t):
    rng = np.random.default_rng(3)
    x = t.tensor(rng.standard_normal((3, 4)), dtype=t.float32)
    i = t.tensor([[1, 2], [3, 4]])
    w = t.tensor(rng.standard_normal((3, 4)), dtype=t.float32, requires_grad=True)
    out = {"sum": x.sum(), "sum_dim": x.sum(1), "keepdim": x.sum(1, True), "dim1": x.sum(dim=1),
           "mean": t.mean(x, 0), "int_sum": i.sum(), "int_mean_dtype": i.sum(dtype=t.float64),
           "softmax": t.softmax(x, -1), "argmax": x.argmax(1), "layout": x.t().exp().sum(0)}
    loss = w.softmax(1).sum(0).mean()
    loss.backward()
    out["grad"], out["name"] = w.grad, w.sum(1).grad_fn.name()
    with pytest.raises(TypeError):
        t.softmax(x)  # dim is required
    return out


def test_static_fast_path_matches_pytorch(monkeypatch):
    reached = _generic_calls(monkeypatch, (jtorch.sum, jtorch.Tensor.sum, jtorch.softmax,
                                           jtorch.mean))
    assert_same(_static_program(torch), _static_program(jtorch), strides=True)
    assert reached == ["softmax"]  # only the call missing its dim


def test_fast_paths_name_overloads_per_kernel():
    """A reduction's node name follows its statics (``SumBackward0`` against
    ``SumBackward1``), a power's its operands' kinds (``PowBackward0/1/2``), each kept per
    kernel after the first call: repeated calls in any order name as PyTorch does."""

    def run(t):
        x = t.ones(3, 4, requires_grad=True)
        return [f(x).grad_fn.name() for _ in range(3) for f in (
            lambda x: x.sum(), lambda x: x.sum(0), lambda x: x.mean(), lambda x: x.mean(1),
            lambda x: x.prod(), lambda x: x.prod(0), lambda x: x.sum((0, 1), True),
            lambda x: x ** 2, lambda x: x ** x, lambda x: 2 ** x, lambda x: x.pow(3.0))]

    assert run(jtorch) == run(torch)


def test_static_fast_path_keys_true_apart_from_one():
    # std(x, 1) reduces dim 1; std(x, True) is the unbiased std of everything: True == 1
    # and both hash alike, so the kernel cache must key their types too.
    def run(t):
        x = t.arange(6.0).reshape(2, 3)
        return [t.std(x, 1), t.std(x, True), t.std(x, 1), x.sum(1, True)]

    assert_same(run(torch), run(jtorch))


def test_static_and_checked_paths_run_unrecorded_calls_directly(monkeypatch):
    """Plain tensors and numbers, none needing a gradient: the static and checked fast
    paths call the kernel themselves; a view or an operand needing a gradient goes
    through ``dispatch.run`` (which records)."""
    from jtorch.eager import dispatch

    ran = []
    real = dispatch.run
    monkeypatch.setattr(dispatch, "run", lambda key, *a: ran.append(key[0]) or real(key, *a))

    def program(t):
        x = t.tensor([[0.5, 1.0, 2.0, 3.0]] * 3)  # not a view
        w = t.ones(3, 4, requires_grad=True)
        out = [x.sum(1), x.sum(), t.softmax(x, -1), x ** 2, x ** 1.5, 2 ** x,
               x.t().sum(0), x.t() ** 2, t.tensor([1, 2, 3]).sum()]
        with t.no_grad():
            out += [w.sum(1), w ** 2]
        y = w.sum(1) + (w ** 2).sum()
        y.sum().backward()
        return out + [w.grad, y.grad_fn.name()]

    for _ in range(2):  # the first call of each binding looks its kernel up
        actual = program(jtorch)
    ran.clear()
    actual = program(jtorch)
    assert_same(program(torch), actual, strides=True)
    # only the ops on a view (x.t(), itself read directly) reach dispatch.run; those
    # needing a gradient (w.sum(1), w ** 2, its sum, y.sum() and the add) take the grad
    # lane (``fast_paths.grad_lane``)
    assert ran == ["sum", "pow"], ran


def test_views_of_plain_tensors_read_directly(monkeypatch):
    """A view of a plain tensor that nothing records reads through its kernel's jit
    directly (``views._read_unrecorded``); a view of a view, one with index arguments and
    one of a tensor needing a gradient go through ``dispatch.run``. Values, strides,
    aliasing (writes through the view) and autograd as PyTorch's."""
    from jtorch.eager import dispatch

    ran = []
    real = dispatch.run
    monkeypatch.setattr(dispatch, "run", lambda key, *a: ran.append(key[0]) or real(key, *a))

    def program(t):
        x = t.tensor([[0.5, 1.0, 2.0], [3.0, 4.0, 5.0]])
        w = t.ones(2, 3, requires_grad=True)
        v = x.view(-1)
        out = [v, x.t(), x.t().stride(), x.unsqueeze(0), x.expand(2, 2, 3), x.transpose(0, 1)]
        v[1] = 7.0  # writes through to x
        out += [x.clone(), x.t().unsqueeze(0), x.select(0, 1)]
        with t.no_grad():
            n = w.view(-1)
        out += [n.requires_grad, n.is_leaf]
        y = w.t().reshape(-1)
        (y * y).sum().backward()
        return out + [w.grad, y.grad_fn.name()]

    for _ in range(2):
        program(jtorch)
    ran.clear()
    actual = program(jtorch)
    assert_same(program(torch), actual, strides=True)
    # v[1] = 7.0 (a view of a view, then the copy), x.t().unsqueeze(0) (a view of a view),
    # select (an index argument), w.t() (needs a gradient; its reshape then copies): the
    # other views read directly; y * y and its sum take the grad lane
    assert ran == ["read", "_copy", "clone", "read", "read", "read", "reshape_copy"], ran


def _number_operands(t):
    """Python numbers met again and again (``dispatch._scalar`` caches them on the device
    by type and value): an int and a float of equal value stay apart, zeros keep their
    sign, NaN stays NaN, a huge int stays a Python int."""
    x = t.tensor([1.5, -2.0, 3.0])
    i = t.tensor([1, 2, 3])
    out = []
    for _ in range(3):
        out += [i * 2, i * 2.0, x * 2, x * 2.0, (x * -0.0).signbit(), (x * 0.0).signbit(),
                x * float("nan"), i + (1 << 40), x - 1e-6, i - 1]
    return out


def test_repeated_number_operands_match_pytorch():
    assert_same(_number_operands(torch), _number_operands(jtorch))


# ------------------------------------------------------------------ CPython's attribute layout


_INLINE_PROBE = """
import gc, pickle, sys
import jtorch


def inline(obj):  # no __dict__ built for it: CPython keeps its attributes inline
    return not any(type(r) is dict for r in gc.get_referents(obj))


class Probe:
    pass


probe = Probe()
probe.a = 1
inline_here = inline(probe)
probe.__dict__
if not inline_here or inline(probe):  # this Python keeps (or shows) no inline values
    print("skip")
    sys.exit()
w = jtorch.nn.Parameter(jtorch.randn(3))
lin = jtorch.nn.Linear(2, 2)
x = jtorch.randn(3)
for _ in range(3):  # recorded from the second sight: its version counter made on demand
    y = x * 2.0
    (w * y).sum().backward()  # saves y
lazy = jtorch.nn.parameter.UninitializedParameter()
w.tag = "mine"  # a user's attribute, kept by pickling
found = [inline(t) for t in (w, lin.weight, lin.bias, y, lazy)]
back = pickle.loads(pickle.dumps(w))  # (pickling reads w.__dict__: w has one now)
assert back.tag == "mine" and type(back) is jtorch.nn.Parameter and back.requires_grad
assert jtorch.equal(back, w)
print(found + [inline(back)])
"""


def test_hot_tensors_keep_inline_attributes():
    """Parameters and saved operands keep CPython's inline attribute values: a built
    ``__dict__`` (after a class assignment or a ``t.__dict__`` access) makes every later
    read of their attributes about three times slower, on every op of every step. In a
    fresh interpreter: a class's inline slots are shared by the names its instances got
    first (30 at most), so a long test process that gave tensors many names has none left."""
    out = subprocess.run([sys.executable, "-c", _INLINE_PROBE], capture_output=True, text=True,
                         check=True).stdout.strip()
    if out == "skip":
        pytest.skip("this Python keeps no inline attribute values")
    assert out == str([True] * 6)
