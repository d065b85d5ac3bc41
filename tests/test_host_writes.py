"""In-place fills and copies that need no XLA program (``methods._host_fill``, ``copy_``'s
shared array) and checkpoint storages shaped on the host: PyTorch's results, and no
compile for a new shape."""

from __future__ import annotations

import pytest
from conftest import check, counting_compiles

import jtorch


def _filled(t, dtype, value, method="fill_"):
    x = t.ones(2, 3, dtype=getattr(t, dtype))
    before = x._version
    out = getattr(x, method)(*(() if method == "zero_" else (value,)))
    return out is x, x, x._version - before


@pytest.mark.parametrize("dtype,value", [
    ("float32", 2.5), ("float32", 1 / 3), ("float64", 1 / 3), ("float32", -0.0),
    ("float32", float("nan")), ("float32", float("-inf")), ("float32", 1e39),
    ("float32", 7), ("float32", True), ("float64", 2**60), ("int64", 7), ("int64", -(2**63)),
    ("int8", -128), ("uint8", 255), ("int32", False), ("bool", True), ("bool", 0.0),
    # numbers whose conversion stays XLA's (kernel path): half types, float into int,
    # out of range, complex
    ("float16", 0.1), ("bfloat16", 3), ("int32", 2.7), ("uint8", 300), ("int8", -129),
    ("bool", 2), ("complex64", 1.5), ("float32", 1 + 2j),
])
def test_fill_matches_torch(dtype, value):
    e, a = check(lambda t: _filled(t, dtype, value), may_raise=True)
    if not isinstance(e, Exception) and dtype == "float32" and value == 0:
        assert jtorch.signbit(a[1]).all()  # -0.0 stays negative


@pytest.mark.parametrize("dtype", ["float32", "int16", "bool", "bfloat16", "complex64"])
def test_zero_matches_torch(dtype):
    check(lambda t: _filled(t, dtype, None, "zero_"))


@pytest.mark.parametrize("case", ["view-sees-fill", "channels-last", "non-leaf-grad",
                                  "param-no-grad", "leaf-grad-error", "fill-a-view",
                                  "empty", "scalar-tensor-value"])
def test_fill_cases(case):
    def prog(t):
        if case == "view-sees-fill":
            x = t.zeros(3, 4)
            v = x.view(-1)
            x.fill_(2.0)
            return v, x._version, v._version
        if case == "channels-last":
            x = t.zeros(2, 3, 4, 5).to(memory_format=t.channels_last)
            return x.fill_(1.5).stride(), x
        if case == "non-leaf-grad":
            w = t.ones(3, requires_grad=True)
            y = w * 2
            y.fill_(4.0)
            y.sum().backward()
            return y, y.grad_fn.name(), w.grad
        if case == "param-no-grad":
            p = t.nn.Parameter(t.ones(4))
            with t.no_grad():
                p.fill_(0.25)
                p.zero_()
            return p, p.requires_grad, p.is_leaf
        if case == "leaf-grad-error":
            return t.ones(2, requires_grad=True).fill_(1.0)
        if case == "fill-a-view":
            x = t.zeros(3, 4)
            x[1].fill_(5)
            x[:, 2].zero_()
            return x
        if case == "empty":
            return t.empty(0, 3).fill_(2.0)
        return t.zeros(3).fill_(t.tensor(2.5))

    check(prog, raises=RuntimeError if case == "leaf-grad-error" else None)


@pytest.mark.parametrize("case", ["src-written-after", "dst-written-after", "self-copy",
                                  "view-sees-copy", "src-needs-grad", "into-param",
                                  "cast", "broadcast", "from-a-view", "into-a-view"])
def test_copy_matches_torch(case):
    def prog(t):
        src = t.arange(12.0).reshape(3, 4)
        dst = t.zeros(3, 4)
        if case == "src-written-after":  # the copy must not follow later writes to src
            dst.copy_(src)
            src.add_(100)
            src[0, 0] = -1
            return dst, src
        if case == "dst-written-after":
            dst.copy_(src)
            dst.mul_(2)
            return dst, src
        if case == "self-copy":
            return src.copy_(src), src._version
        if case == "view-sees-copy":
            v = dst.view(-1)
            dst.copy_(src)
            return v, dst._version
        if case == "src-needs-grad":
            w = t.arange(12.0, requires_grad=True)
            d = t.zeros(12, requires_grad=True).clone()
            d.copy_(w * 3)
            d.sum().backward()
            return d, d.grad_fn.name(), w.grad
        if case == "into-param":
            p = t.nn.Parameter(t.zeros(3, 4))
            opt = t.optim.SGD([p], lr=0.5)
            with t.no_grad():
                p.copy_(src)
            p.sum().backward()
            opt.step()
            return p, src, p.requires_grad
        if case == "cast":
            return dst.to(t.float64).copy_(src.int()), t.zeros(3, 4, dtype=t.int64).copy_(src)
        if case == "broadcast":
            return dst.copy_(src[0])
        if case == "from-a-view":
            return dst.copy_(src.t().t()), t.zeros(4, 3).copy_(src.t())
        dst[1:].copy_(src[:2])
        return dst

    check(prog)


def test_new_shapes_compile_nothing(tmp_path, monkeypatch):
    """Fills, copies, BatchNorm statistics, load_state_dict and torch.load of new shapes
    run no XLA program on the CPU backend (a fill type's first calls: see below)."""
    from jtorch import _kernels

    # Every fill here is a type's first few (earlier tests' BatchNorms made many
    # ``num_batches_tracked.zero_()``s): counted from here, with room for all of them.
    monkeypatch.setattr(_kernels, "_READY", {})
    monkeypatch.setattr(_kernels, "HOST_CALLS", 100)
    jtorch.nn.Linear(3, 2)  # compiles the initialisation draws of the smallest bucket
    path = tmp_path / "m.pt"
    with counting_compiles() as compiles:
        for n in range(101, 104):
            x = jtorch.empty(n, 3)
            x.fill_(1.5)
            x.zero_()
            jtorch.empty(n, dtype=jtorch.int64).fill_(3)
            jtorch.empty(n, 3).copy_(x)
            model = jtorch.nn.Sequential(jtorch.nn.Linear(2, n), jtorch.nn.BatchNorm1d(n))
            jtorch.save(model.state_dict(), path)
            state = jtorch.load(path)
            fresh = jtorch.nn.Sequential(jtorch.nn.Linear(2, n), jtorch.nn.BatchNorm1d(n))
            fresh.load_state_dict(state)
    assert compiles == []
    for a, b in zip(model.state_dict().values(), fresh.state_dict().values(), strict=True):
        assert a.dtype == b.dtype and a.tolist() == b.tolist()


@pytest.mark.parametrize("src,dst,host", [
    ("float64", "float32", True), ("int64", "float32", True), ("bool", "float16", True),
    ("uint8", "float64", True), ("int32", "float64", True),
    ("float32", "int64", False), ("float64", "bfloat16", False), ("float32", "complex64", False),
    ("float64", "float16", False),  # XLA and PyTorch round twice (through float32), NumPy once
    ("float32", "float16", True),
])
def test_a_new_conversion_waits_for_no_compile(background, src, dst, host):
    """``.to(dtype)`` of a new type is NumPy's while its kernel compiles on the background
    thread, where NumPy converts as XLA does (to a float type from bool, integer, float);
    other conversions keep the kernel. Values and dtypes are PyTorch's either way."""
    import numpy as np
    import torch

    from jtorch import _kernels

    shape = (3, 50 + len(src) * 7 + len(dst))  # a shape only this case converts
    rng = np.random.default_rng(1)
    data = (rng.standard_normal(shape) * 300).astype(src)
    x = jtorch.from_numpy(data)
    before = _kernels.TRACES[0]
    first = x.to(getattr(jtorch, dst))
    assert (_kernels.TRACES[0] == before) == host
    _kernels.wait_ahead()
    again = x.to(getattr(jtorch, dst))
    expected = torch.from_numpy(data).to(getattr(torch, dst))
    for out in (first, again):
        assert str(out.dtype) == str(expected.dtype) and out.shape == expected.shape
        assert np.array_equal(np.asarray(out.to(jtorch.complex128)),
                              expected.to(torch.complex128).numpy())


def test_a_conversion_that_records_keeps_its_node(background):
    def prog(t):
        w = t.tensor([0.5, 1.5, -2.0], dtype=t.float64, requires_grad=True)
        y = w.float()
        (y * y).sum().backward()
        return y, y.grad_fn.name(), w.grad

    check(prog)


def test_float64_to_float16_rounds_as_pytorch(background):
    """Values halfway between two float16 numbers after rounding to float32: PyTorch (and
    XLA) round float64 to float16 through float32, NumPy directly; 512 of these differ."""
    import numpy as np

    data = (np.arange(1, 2048, dtype=np.float64) + 0.5) / 1024 * 1.0000000001
    check(lambda t: (t.from_numpy(data).half(), t.tensor(data, dtype=t.float16),
                     t.from_numpy(data).to(t.float16), t.as_tensor(data, dtype=t.float16)))


@pytest.mark.parametrize("ahead", [False, True])
def test_a_repeated_fill_moves_to_its_kernel(ahead, monkeypatch):
    """The host builds a fill type's first ``HOST_CALLS`` fills (no background thread) or
    those before its kernel's background compile is over; then the kernel serves, as it is
    cheaper to call than a transfer. Values stay PyTorch's throughout."""
    from jtorch import _kernels

    monkeypatch.setattr(_kernels, "BACKGROUND", ahead)
    _kernels.wait_ahead()
    n = 60 + ahead  # a shape only this test fills
    x = jtorch.empty(n, 5)
    key = ("_fill", (n, 5), jtorch.float32, float)
    for i in range(_kernels.HOST_CALLS + 2):
        if ahead and i == 1:
            _kernels.wait_ahead()
        assert x.fill_(i + 0.5).tolist() == [[i + 0.5] * 5] * n
        served = _kernels._READY[key] is True
        assert served == (i >= 1 if ahead else i >= _kernels.HOST_CALLS)
