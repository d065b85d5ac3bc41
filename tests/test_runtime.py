"""Process-wide settings of the torch namespace (threads, flags, typename, range,
set_default_tensor_type) against PyTorch."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import pytest
from conftest import check


def test_num_threads_round_trip():
    def prog(t):
        t.ones(1).add(1)  # JAX's backend runs, so XLA_FLAGS of this process stay as they are
        before = t.get_num_threads()
        with pytest.warns(UserWarning) if t.__name__ == "jtorch" else _nothing():
            t.set_num_threads(1)
        got = t.get_num_threads()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t.set_num_threads(before)
        return got

    check(prog)


class _nothing:  # noqa: N801 - a no-op context manager
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("prog", [
    lambda t: t.set_num_threads(0), lambda t: t.set_num_threads(-2),
    lambda t: t.set_num_threads(1.5), lambda t: t.set_num_interop_threads(0),
], ids=["zero", "negative", "float", "interop-zero"])
def test_thread_errors(prog):
    e, a = check(prog, raises=RuntimeError)
    assert str(a) == str(e)


def test_set_num_threads_before_the_backend_starts():
    """In a fresh process, 1 thread turns off XLA's multi-threaded Eigen before JAX starts;
    after that it only warns."""
    code = textwrap.dedent("""
        import os, warnings
        import jtorch
        warnings.simplefilter("error")
        jtorch.set_num_threads(1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            jtorch.set_num_interop_threads(3)
        assert "no inter-op thread pool" in str(caught[0].message)
        try:
            jtorch.set_num_interop_threads(3)
        except RuntimeError as e:
            assert "cannot set number of interop threads" in str(e)
        else:
            raise AssertionError("a second call must raise")
        assert "--xla_cpu_multi_thread_eigen=false" in os.environ["XLA_FLAGS"]
        assert (jtorch.ones(64, 64) @ jtorch.ones(64, 64)).sum().item() == 64 ** 3
        assert jtorch.get_num_threads() == 1 and jtorch.get_num_interop_threads() == 3
        try:
            jtorch.set_num_threads(2)
        except UserWarning as w:
            assert "keeps its threads" in str(w)
        else:
            raise AssertionError("no warning")
        print("ok")
    """)
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.stdout.strip() == "ok", out.stderr[-2000:]


def test_flags():
    def prog(t):
        out = [t.is_warn_always_enabled(), t.is_anomaly_enabled(),
               t.is_anomaly_check_nan_enabled(), t.is_autocast_cache_enabled(),
               t.is_vulkan_available()]
        t.set_warn_always(True)
        t.set_anomaly_enabled(True, False)
        t.set_autocast_cache_enabled(False)
        out += [t.is_warn_always_enabled(), t.is_anomaly_enabled(),
                t.is_anomaly_check_nan_enabled(), t.is_autocast_cache_enabled()]
        t.set_warn_always(False)
        t.set_anomaly_enabled(False)
        t.set_autocast_cache_enabled(True)
        t.clear_autocast_cache()
        out += [t.autocast_increment_nesting(), t.autocast_increment_nesting(),
                t.autocast_decrement_nesting(), t.autocast_decrement_nesting(),
                t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()]
        return out

    check(prog)


def test_flush_denormal_and_thread_safe_generator():
    import jtorch

    assert jtorch.set_flush_denormal(True) is False  # XLA's float environment is its own
    assert jtorch.thread_safe_generator() is None


@pytest.mark.parametrize("obj", ["tensor", "double", "module", "float", "int", "class", "fn"])
def test_typename(obj):
    def prog(t):
        return t.typename({
            "tensor": t.zeros(1), "double": t.zeros(1, dtype=t.float64),
            "module": t.nn.Linear(1, 1), "float": 3.0, "int": 1, "class": t.nn.Linear,
            "fn": t.nn.functional.relu}[obj])

    check(prog)


@pytest.mark.filterwarnings("ignore:torch.range is deprecated")
@pytest.mark.parametrize("args,kw", [
    ((1, 4), {}), ((1, 4, 0.5), {}), ((1, 4), {"dtype": "int64"}), ((0, 1, 0.3), {}),
    ((5, 1, -2), {}), ((1, 4, 0), {}), ((4, 1), {}), ((3,), {}),
])
def test_range(args, kw):
    # a zero step, a step of the wrong sign, and no end
    errors = {(1, 4, 0): RuntimeError, (4, 1): RuntimeError, (3,): TypeError}
    e, a = check(lambda t: t.range(*args, **{k: getattr(t, v) for k, v in kw.items()}),
                 raises=errors.get(args))
    if args in errors:
        assert str(a) == str(e)


def test_range_warns():
    def prog(t):
        with pytest.warns(UserWarning, match="torch.range is deprecated"):
            return t.range(0, 2)

    check(prog)


@pytest.mark.filterwarnings("ignore:torch.set_default_tensor_type")
@pytest.mark.parametrize("name", ["DoubleTensor", "torch.DoubleTensor", "torch.FloatTensor",
                                  "LongTensor", "torch.cuda.FloatTensor", "torch.Foo"])
def test_set_default_tensor_type(name):
    def prog(t):
        typ = name if name.startswith("torch.") else getattr(t, name)
        t.set_default_tensor_type(typ)
        return t.get_default_dtype(), t.zeros(1).dtype, t.tensor([1.5]).dtype

    errors = {"LongTensor": TypeError, "torch.cuda.FloatTensor": TypeError,
              "torch.Foo": AttributeError}
    e, a = check(prog, raises=errors.get(name))
    if isinstance(e, Exception):
        assert str(a) == str(e)


@pytest.mark.parametrize("device", [None, "cpu", "cuda", "foo", 3])
def test_get_device_module(device):
    e, a = check(lambda t: t.get_device_module(device).__name__.split(".")[-1],
                 raises=RuntimeError if device in ("foo", 3) else None)
    if isinstance(e, Exception):
        assert str(a) == str(e)


def test_cpu_module():
    def prog(t):
        caps = t.cpu.get_capabilities()
        t.cpu.synchronize()
        with t.cpu.stream(t.cpu.current_stream()):
            pass
        e = t.cpu.Event()
        e.record()
        return ([t.cpu.is_available(), t.cpu.device_count(), t.cpu.current_device(),
                 e.query(), t.cpu.set_device("cpu")],
                {k: caps[k] for k in ("architecture", "num_logical_cores", "sse", "sse2",
                                      "avx", "avx2", "fma3")})

    check(prog)


@pytest.mark.parametrize("flag, frozen", [(None, True), ("0", False)])
def test_the_import_freezes_what_it_made_for_the_collector(flag, frozen):
    """``import jtorch`` moves the objects it made to the collector's permanent generation
    (full collections skip JAX's modules); ``JTORCH_GC_FREEZE=0`` keeps the collector as
    it was. Objects made afterwards are collected as ever."""
    env = {k: v for k, v in os.environ.items() if k != "JTORCH_GC_FREEZE"}
    if flag is not None:
        env["JTORCH_GC_FREEZE"] = flag
    code = ("import gc, weakref\nimport jtorch\nfrozen = gc.get_freeze_count()\n"
            "class A: pass\na = A(); a.me = a; r = weakref.ref(a); del a\ngc.collect()\n"
            "print(frozen > 10000, r() is None)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True)
    assert out.stdout.split() == [str(frozen), "True"]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="inline attribute values: CPython 3.11+")
def test_tensors_keep_their_attributes_inline():
    """jtorch's own: a tensor's attributes stay in the instance's inline values, never a
    ``__dict__`` object (slower reads, one more object for the collector): every name the
    tensor machinery stores is in ``Tensor``'s shared keys from the class's first
    instance (``tensor.share_attribute_names``), whatever was made since."""
    import gc

    import jtorch

    def has_dict(o):
        return any(type(r) is dict for r in gc.get_referents(o))

    x = jtorch.linspace(0, 1, 12, requires_grad=True)
    h, c = jtorch.nn.LSTMCell(2, 3)(jtorch.ones(1, 2))  # a node's outputs 0 and 1
    bn = jtorch.nn.BatchNorm1d(3)
    bn(jtorch.ones(4, 3))
    view = x[3:9]  # a view: offset, cached value
    (view * 2).sum().backward()  # the leaf's AccumulateGrad and .grad
    made = [x, h, c, view, view._value, bn.weight, bn.running_mean, x.grad]
    assert view._offset == 3 and h.grad_fn is c.grad_fn and c.output_nr == 1
    assert [has_dict(t) for t in made if isinstance(t, jtorch.Tensor)] == [False] * 7
