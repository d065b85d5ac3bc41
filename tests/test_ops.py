"""Generic op tests driven by tests/opdb.py: every binding of every registry op against
PyTorch (values, dtype, shape, strides for views, gradients, ``out=``, in-place results and
version counters, and exception classes on bad input)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check
from opdb import DB, OPS, SKIP, leaves, make, resolve

from jtorch._registry import REGISTRY

SPECS = {id(s): s for s in REGISTRY.values()}.values()
# torch's own warnings for inputs the samples use on purpose.
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*(discards the imaginary part|reduce argument of torch.scatter|was resized)"
    ":UserWarning"
)


def _spec(info):
    return REGISTRY[info.name]


def _ops(pred, test=""):
    """The entries ``pred`` selects, as params (xfail where the entry says so for ``test``)."""
    return [pytest.param(i, id=i.name, marks=[pytest.mark.xfail(reason=i.xfail[test],
                                                                strict=True)]
                         if test in i.xfail else []) for i in OPS if pred(i)]


def _args(t, sample, requires_grad=False):
    args = [resolve(t, make(t, a, requires_grad)) for a in sample.args]
    kwargs = {k: resolve(t, make(t, v, requires_grad)) for k, v in sample.kwargs.items()}
    return args, kwargs


def _function(info, name=None):
    if info.call is not None:
        return info.call
    name = name or info.name
    return lambda t, *a, **k: getattr(t, name)(*a, **k)


def _method(info, name=None):
    name = name or info.name
    return lambda t, x, *a, **k: getattr(x, name)(*a, **k)


def _calling(fn, sample):
    """A program running ``fn`` on ``sample``'s arguments built for the given backend."""

    def prog(t):
        args, kwargs = _args(t, sample)
        return fn(t, *args, **kwargs)

    return prog


def _entry_point(info):
    """The function form where the op has one, else the method form."""
    if info.call is not None or _spec(info).function:
        return _function(info)
    return _method(info)


def _compare(info, sample, prog, **expect):
    """``check`` with the entry's tolerances, naming the sample on failure; ``expect`` is
    ``raises=`` or ``may_raise=`` (see ``check``)."""
    try:
        expected, _ = check(prog, strides=info.strides, **info.tol, **expect)
    except AssertionError as e:
        raise AssertionError(f"{info.name}{sample!r}: {e}") from None
    return expected


# ------------------------------------------------------------------ coverage


def test_every_registry_op_has_an_entry():
    names = {s.name for s in SPECS}
    missing = sorted(names - set(DB) - set(SKIP))
    assert not missing, f"registry ops without an opdb entry (or SKIP reason): {missing}"
    stale = sorted((set(DB) | set(SKIP)) - names)
    assert not stale, f"opdb entries for ops the registry lacks: {stale}"
    assert not set(DB) & set(SKIP)


def test_skipped_ops_are_not_public_ops():
    for name in SKIP:
        spec = REGISTRY[name]
        assert spec.kind in ("factory", "random", "random_") or name in (
            "max_all", "min_all", "max_dim", "min_dim"), name


# ------------------------------------------------------------------ bindings


@pytest.mark.parametrize("info", _ops(lambda i: i.call is not None or _spec(i).function,
                                      "function"))
def test_function(info):
    fn = _function(info)
    for s in info.samples():
        _compare(info, s, _calling(fn, s))


@pytest.mark.parametrize("info", _ops(lambda i: i.call is None and _spec(i).method, "method"))
def test_method(info):
    fn = _method(info)
    for s in info.samples():
        if leaves(s.args[:1]) and not isinstance(s.args[0], list | tuple):
            _compare(info, s, _calling(fn, s))


@pytest.mark.parametrize("info", _ops(lambda i: i.call is None and _spec(i).inplace,
                                      "inplace"))
def test_inplace(info):
    """``x.op_(...)`` returns x itself holding the result (cast to x's dtype) and bumps
    x's version once; where the result cannot be written, both libraries raise alike."""
    for s in info.samples():
        if not leaves(s.args[:1]):
            continue

        def prog(t, s=s):
            (x, *rest), kw = _args(t, s)
            v0 = x._version
            r = getattr(x, info.name + "_")(*rest, **kw)
            return x, r is x, x._version - v0

        _compare(info, s, prog, may_raise=True)


@pytest.mark.parametrize("info", _ops(lambda i: i.call is None and _spec(i).out))
@pytest.mark.parametrize("fresh", [True, False], ids=["sized", "empty"])
def test_out(info, fresh):
    """``op(..., out=o)`` writes into o (resizing an empty o) and returns o; an op with
    several results takes and returns a tuple of outs."""
    fn = _function(info)
    for s in filter(info.out_sample, info.samples()):

        def prog(t, s=s):
            a, kw = _args(t, s)
            y = fn(t, *a, **kw)
            ys = y if isinstance(y, tuple) else (y,)
            o = tuple(t.zeros(r.shape if fresh else (0,), dtype=r.dtype) for r in ys)
            r = fn(t, *a, **kw, out=o if isinstance(y, tuple) else o[0])
            rs = r if isinstance(y, tuple) else (r,)
            return o, [x is z for x, z in zip(rs, o, strict=True)]

        _compare(info, s, prog)


@pytest.mark.parametrize("info", _ops(lambda i: i.call is None and bool(_spec(i).aliases)))
def test_aliases(info):
    spec, s = _spec(info), info.samples()[0]
    for alias in spec.aliases:
        forms = [_function(info, alias)] if spec.function else []
        forms += [_method(info, alias)] if spec.method else []
        for fn in forms:
            _compare(info, s, _calling(fn, s))


_INPLACE_DUNDERS = {"iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "iand",
                    "ior", "ixor", "ilshift", "irshift"}


@pytest.mark.parametrize("info", _ops(lambda i: i.call is None and bool(_spec(i).dunders),
                                      "dunders"))
def test_dunders(info):
    for s in info.samples()[:6]:
        if not leaves(s.args[:1]) or s.kwargs:
            continue
        for d in _spec(info).dunders:

            def prog(t, s=s, d=d):
                (x, *rest), _ = _args(t, s)
                r = getattr(x, f"__{d}__")(*rest)
                return (x, r is x, x._version) if d in _INPLACE_DUNDERS else r

            # In place the result may not fit x; reflected, the operands may not fit at all.
            plain = d not in _INPLACE_DUNDERS and not (d.startswith("r") and d != "rsub")
            _compare(info, s, prog, may_raise=not plain)


# ------------------------------------------------------------------ gradients


def _weights(t, y):
    """Fixed, distinct weights so that every output element's gradient is distinguishable."""
    w = np.linspace(0.5, 1.5, max(y.numel(), 1))[: y.numel()].reshape(tuple(y.shape))
    return t.tensor(w, dtype=y.dtype)


def _flat(y):
    return [o for i in y for o in _flat(i)] if isinstance(y, tuple | list) else [y]


def _grad_samples(info):
    """The samples with float64 inputs, at most ``info.grad_samples`` (each one costs a VJP
    kernel and its backward kernels), spread over the list."""
    found = [s for s in info.samples()
             if any(x.dtype == "float64" and x.grad
                    for x in leaves(s.args) + leaves(list(s.kwargs.values())))]
    n = info.grad_samples
    return found if len(found) <= n else [found[i * len(found) // n] for i in range(n)]


def _backward_prog(fn, sample, twice=False):
    """A program: ``fn`` on ``sample`` (inputs needing grad), a backward from its outputs
    with fixed weights (``twice``: a second one, PyTorch's graph retained for it, jtorch's
    released), returning the outputs and the inputs' .grad."""

    def prog(t):
        a, kw = _args(t, sample, requires_grad=True)
        y = fn(t, *a, **kw)
        outs = [o for o in _flat(y) if o.requires_grad]
        if not outs:
            return y
        weights = [_weights(t, o) for o in outs]
        if twice:
            t.autograd.backward(outs, weights, retain_graph=t.__name__ == "torch")
        t.autograd.backward(outs, weights)
        inputs = [x for x in _flat(a) + _flat(list(kw.values()))
                  if hasattr(x, "requires_grad") and x.requires_grad]
        return y, [x.grad for x in inputs]

    return prog


@pytest.mark.parametrize("info", _ops(lambda i: i.grad, "grad"))
def test_grad(info):
    """Backward from ``op(...)`` with fixed weights: every float64 input's .grad matches."""
    fn = _entry_point(info)
    samples = _grad_samples(info)
    assert samples, f"{info.name}: a differentiable op needs float64 samples"
    for s in samples:
        _compare(info, s, _backward_prog(fn, s))


@pytest.mark.parametrize("info", _ops(
    lambda i: i.grad and _spec(i).saves in ("none", "unchecked"), "grad"))
def test_grad_again_after_the_graph_is_released(info):
    """An op whose node saves no tensor (``OpSpec.saves`` "none" or "unchecked") can be
    backpropagated through a second time without ``retain_graph``. A released "none"
    node keeps only its float inputs' types and replays from zeros (``OpNode.release``),
    exact only if the gradient reads no input's value: this checks it op by op against
    PyTorch's gradients of two backwards. PyTorch itself refuses the second one for some
    of these ops (it saves a tensor for its own formula: pooling, fft, pad, ...; README,
    Differences), so its side keeps the graph (``retain_graph=True``)."""
    fn = _entry_point(info)
    for s in _grad_samples(info):
        _compare(info, s, _backward_prog(fn, s, twice=True))


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize("info", _ops(lambda i: bool(i.errors()), "errors"))
def test_errors(info):
    fn = _entry_point(info)
    for s in info.errors():
        _compare(info, s, _calling(fn, s), raises=Exception)


# ------------------------------------------------------------------ forms the op database lacks


def test_invert_float_raises_type_error():
    check(lambda t: ~t.tensor([1.0, 2.0]), raises=TypeError)


def test_cat_empty_list_raises_value_error():
    check(lambda t: t.cat([]), raises=ValueError)


def test_where_with_python_scalars():
    check(lambda t: (t.where(t.tensor([True, False]), t.tensor([1, 2]), 2.5),
                     t.where(t.tensor([True, False]), 1, 2.5),
                     t.where(t.tensor([True, False]), t.tensor([1.0, 2.0]), 3)))


# ------------------------------------------------------------------ higher-order derivatives


@pytest.mark.parametrize("name", ["pow", "abs", "mul", "div", "sigmoid", "tanh", "log", "sqrt",
                                  "matmul"])
def test_second_derivative(name):
    """Differentiate the weighted gradient again (``create_graph=True``), as gradgradcheck."""
    info = DB[name]
    fn = _entry_point(info)
    s = _grad_samples(info)[0]

    def prog(t):
        a, kw = _args(t, s, requires_grad=True)
        xs = [x for x in _flat(a) if hasattr(x, "requires_grad") and x.requires_grad]
        y = _flat(fn(t, *a, **kw))[0]
        gs = t.autograd.grad(y, xs, _weights(t, y), create_graph=True)
        total = sum((g * _weights(t, g)).sum() for g in gs)
        ggs = t.autograd.grad(total, xs, allow_unused=True)
        # clone() materialises torch's ZeroTensor gradients, which have no numpy().
        return gs, [None if g is None else g.clone() for g in ggs]

    _compare(info, s, prog)


def test_constant_gradient_does_not_require_grad():
    def prog(t):
        x = t.tensor([1.0, -2.0], requires_grad=True)
        (g,) = t.autograd.grad(t.where(x > 0, x, 0.0).sum(), [x], create_graph=True)
        return g, g.requires_grad

    check(prog)


def test_functional_layer_under_jax_transforms():
    """jtorch.functional is usable from JAX: grad, jacfwd and vmap keep torch's conventions."""
    import jax
    import jax.numpy as jnp
    import torch

    from jtorch.functional import elementwise as E

    x = np.array([0.0, 2.0, -3.0])
    tx = torch.tensor(x, requires_grad=True)
    (torch.abs(tx) + tx**2.0 + tx**0.0).sum().backward()

    def f(v):
        return (E.abs(v) + E.pow(v, 2.0) + E.pow(v, 0.0)).sum()

    np.testing.assert_allclose(jax.jit(jax.grad(f))(jnp.asarray(x)), tx.grad.numpy())
    forward = jax.jit(jax.jacfwd(jax.vmap(lambda v: f(v[None]))))
    np.testing.assert_allclose(jnp.diag(forward(x)), tx.grad.numpy())
