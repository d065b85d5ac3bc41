"""Window functions, asarray, frombuffer, from_file, empty_strided and empty_permuted
against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check, error_of, raising

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("args", [(5,), (6, False), (1,), (0,), (8, True)])
def test_windows(name, args):
    check(lambda t: getattr(t, name)(*args))


@pytest.mark.parametrize("case", ["float64", "int64", "negative", "hamming-params",
                                  "kaiser-beta", "requires_grad"])
def test_window_options(case):
    def prog(t):
        if case == "float64":
            return t.blackman_window(7, dtype=t.float64)
        if case == "int64":
            return t.hann_window(4, dtype=t.int64)
        if case == "negative":
            return t.bartlett_window(-1)
        if case == "hamming-params":
            return t.hamming_window(6, False, 0.6, 0.4, dtype=t.float64)
        if case == "kaiser-beta":
            return t.kaiser_window(7, False, 3.5, dtype=t.float64)
        w = t.hann_window(4, requires_grad=True)
        return w, w.requires_grad, w.is_leaf

    # an integer dtype and a negative length are refused
    e, a = check(prog, raises=RuntimeError if case in ("int64", "negative") else None)
    if case == "negative":
        assert str(a) == str(e)


ASARRAY = {
    "tensor": lambda t, x: t.asarray(x) is x,
    "tensor-dtype": lambda t, x: t.asarray(x, dtype=t.float64),
    "tensor-copy": lambda t, x: (t.asarray(x, copy=True) is x, t.asarray(x, copy=True)),
    "tensor-no-copy-dtype": raising(
        ValueError, lambda t, x: t.asarray(x, dtype=t.int64, copy=False)),
    "list": lambda t, x: t.asarray([1.0, 2.0]),
    "list-no-copy": raising(ValueError, lambda t, x: t.asarray([1.0, 2.0], copy=False)),
    "numpy": lambda t, x: t.asarray(np.arange(3)),
    "numpy-dtype": lambda t, x: t.asarray(np.arange(3.0), dtype=t.float32),
    "numpy-no-copy-dtype": raising(
        ValueError, lambda t, x: t.asarray(np.zeros(2), dtype=t.float32, copy=False)),
    "scalar": lambda t, x: t.asarray(3.5),
    "bool": lambda t, x: t.asarray(True),
    "requires-grad": lambda t, x: t.asarray([1.0, 2.0], requires_grad=True),
    "tensors-in-list": lambda t, x: t.asarray([t.tensor(1.0), t.tensor(2.0)]),
}


@pytest.mark.parametrize("name", ASARRAY)
def test_asarray(name):
    e, a = check(lambda t: ASARRAY[name](t, t.arange(6.0)), raises=error_of(ASARRAY[name]))
    if isinstance(e, Exception):
        assert str(a) == str(e)


@pytest.mark.parametrize("kw", [{"dtype": "int32"}, {"dtype": "int16", "count": 2, "offset": 2},
                                {"dtype": "float32", "count": 1}, {"dtype": "int64"}, {},
                                {"dtype": "uint8", "offset": 9}])
def test_frombuffer(kw):
    def prog(t):
        buf = bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00")
        return t.frombuffer(buf, **{k: getattr(t, v) if k == "dtype" else v
                                    for k, v in kw.items()})

    # no dtype; an offset past the buffer
    e, a = check(prog, raises=TypeError if not kw else
                 ValueError if kw.get("offset", 0) > 8 else None)
    if isinstance(e, Exception) and kw:
        assert str(a) == str(e)


@pytest.mark.parametrize("size,dtype", [(4, "float32"), (2, "float64"), (0, "int32")])
def test_from_file(tmp_path, size, dtype):
    path = tmp_path / "data.bin"
    np.arange(4, dtype=np.float32).tofile(path)
    check(lambda t: t.from_file(str(path), False, size, dtype=getattr(t, dtype)))


@pytest.mark.parametrize("size,stride", [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((2, 3), (4, 1)),
                                         ((2, 2), (0, 1)), ((0, 3), (3, 1)), ((), ())])
def test_empty_strided(size, stride):
    def prog(t):
        x = t.empty_strided(size, stride, dtype=t.float64)
        return x.shape, x.stride(), x.dtype, x.storage_offset()

    check(prog)


@pytest.mark.parametrize("order", [(0, 2, 1), (2, 1, 0), (0, 1, 2), (0, 0, 1), (0, 1)])
def test_empty_permuted(order):
    # a repeated dim; a layout of the wrong length
    e, a = check(lambda t: t.empty_permuted((2, 3, 4), order).stride(),
                 raises=RuntimeError if order in ((0, 0, 1), (0, 1)) else None)
    if isinstance(e, Exception):
        assert type(a) is type(e)


def test_from_file_shared_is_refused(tmp_path):
    """jtorch limitation: a tensor cannot map a file's memory; the error says so."""
    import jtorch

    path = tmp_path / "data.bin"
    np.zeros(2, np.float32).tofile(path)
    with pytest.raises(RuntimeError, match="shared=True"):
        jtorch.from_file(str(path), True, 2)


@pytest.mark.parametrize("case", ["dtype", "long-count", "prob-dtype", "prob-above-one",
                                  "negative-count", "shape-mismatch"])
def test_binomial(case):
    """One shape and dtype throughout: JAX compiles its binomial sampler slowly."""

    def prog(t):
        c, p = t.tensor([10.0, 5.0, 0.0]), t.tensor([0.5, 0.1, 0.3])
        if case == "dtype":
            r = t.binomial(c, p)
            return r.dtype, r.shape, bool(((r >= 0) & (r <= c)).all())
        if case == "long-count":
            return t.binomial(c.long(), p)
        if case == "prob-dtype":
            return t.binomial(c, p.double())
        if case == "prob-above-one":
            return t.binomial(c, t.tensor([1.5, 0.0, 0.0]))
        if case == "negative-count":
            return t.binomial(t.tensor([-1.0, -2.0, 0.0]), p)
        return t.binomial(c, p[:2])

    errors = {"long-count": ValueError, "prob-dtype": RuntimeError,
              "shape-mismatch": RuntimeError}
    e, a = check(prog, raises=errors.get(case))
    if isinstance(e, Exception):
        assert str(a) == str(e)


def test_binomial_distribution_and_seed():
    import jtorch

    n, p = jtorch.tensor([20.0, 20.0, 20.0]), jtorch.tensor([0.25, 0.25, 0.25])
    jtorch.manual_seed(3)
    a = jtorch.stack([jtorch.binomial(n, p) for _ in range(300)])
    jtorch.manual_seed(3)
    b = jtorch.stack([jtorch.binomial(n, p) for _ in range(300)])
    assert jtorch.equal(a, b)
    assert abs(a.mean().item() - 5.0) < 0.25 and abs(a.var().item() - 3.75) < 0.6
