"""torch.func against PyTorch's torch.func: grad, vjp, jvp, linearize, jacrev, jacfwd,
hessian (values, structures, dtypes, errors), their composition with autograd, and what
user code may do inside a transform."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check, error_of, raising

_RNG = np.random.default_rng(0)
X3 = _RNG.standard_normal(3)
X23 = _RNG.standard_normal((2, 3))
W23 = _RNG.standard_normal((2, 3))
B2 = _RNG.standard_normal(2)


def _t(tt, a, **kw):
    return tt.tensor(a, dtype=kw.pop("dtype", tt.float64), **kw)


# ------------------------------------------------------------------ grad, grad_and_value


def _loss(x, w, scale=1.0):
    return ((w @ x).sin() * scale).sum()


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0), -1])
def test_grad_argnums(argnums):
    def prog(tt):
        x, w = _t(tt, X3), _t(tt, W23)
        return tt.func.grad(_loss, argnums=argnums)(x, w, scale=2.0)

    check(prog)


def test_grad_and_value_has_aux_pytree():
    def prog(tt):
        def f(p, x):
            y = p["w"] @ x + p["b"]
            return (y**2).sum(), {"y": y, "pair": (x.cos(), [y.exp()])}

        p = {"w": _t(tt, W23), "b": _t(tt, B2)}
        g, (value, aux) = tt.func.grad_and_value(f, has_aux=True)(p, _t(tt, X3))
        g2, aux2 = tt.func.grad(f, has_aux=True)(p, _t(tt, X3))
        return g, value, aux, g2, aux2

    check(prog)


def test_grad_float32_and_complex_input():
    def prog(tt):
        x = tt.tensor(X3, dtype=tt.float32)
        z = tt.tensor(X3 + 0.5j * X3[::-1].copy(), dtype=tt.complex128)
        gz = tt.func.grad(lambda z: (z * z.conj()).real.sum() + (z * 2j).imag.sum())(z)
        return tt.func.grad(lambda x: (x.exp() * x).sum())(x), gz

    check(prog)


_GRAD_ERRORS = {
    "non_scalar": (lambda x: x * 2, 0),
    "one_element_1d": (lambda x: x.sum().reshape(1), 0),
    "python_float": (lambda x: 3.0, 0),
    "tuple_output": (lambda x: (x.sum(), 1), 0),
    "complex_output": (lambda x: (x * 1j).sum(), 0),
    "argnum_out_of_range": (lambda x: x.sum(), 2),
    "argnums_repeated": (lambda x: x.sum(), (0, 0)),
    "argnums_empty": (lambda x: x.sum(), ()),
    "argnums_float": (lambda x: x.sum(), 0.5),
}


@pytest.mark.parametrize("name", list(_GRAD_ERRORS))
def test_grad_errors(name):
    f, argnums = _GRAD_ERRORS[name]
    check(lambda tt: tt.func.grad(f, argnums=argnums)(_t(tt, X3)), raises=RuntimeError)


def test_grad_input_errors():
    check(lambda tt: tt.func.grad(lambda x: x.sum())(tt.tensor([1, 2])), raises=RuntimeError)
    check(lambda tt: tt.func.grad(lambda x, n: x.sum() * n, argnums=1)(_t(tt, X3), 3.0),
          raises=ValueError)
    check(lambda tt: tt.func.grad(lambda x: x.sum(), has_aux=True)(_t(tt, X3)),
          raises=RuntimeError)
    check(lambda tt: tt.func.grad(lambda x: (x.sum(), 3), has_aux=True)(_t(tt, X3)),
          raises=RuntimeError)


def test_grad_of_constant_is_zero():
    check(lambda tt: tt.func.grad(lambda x: tt.tensor(2.0, dtype=tt.float64))(_t(tt, X3)))


# ------------------------------------------------------------------ vjp, jvp, linearize


def test_vjp_tuple_outputs_and_primals():
    def prog(tt):
        x, w = _t(tt, X3), _t(tt, W23)
        out, fn = tt.func.vjp(lambda x, w: (w @ x, x.tanh()), x, w)
        ct = (_t(tt, B2), _t(tt, X3[::-1].copy()))
        return out, fn(ct), fn(ct)  # vjp_fn can be called again

    check(prog)


def test_vjp_has_aux_and_cotangent_dtype():
    def prog(tt):
        x = tt.tensor(X3, dtype=tt.float32)
        out, fn, aux = tt.func.vjp(lambda x: (x.exp(), x * 3), x, has_aux=True)
        return out, aux, fn(tt.ones(3, dtype=tt.float64))

    check(prog)


def test_vjp_complex_convention():
    def prog(tt):
        z = tt.tensor(X3 + 1j * X3[::-1].copy(), dtype=tt.complex128)
        out, fn = tt.func.vjp(lambda z: z * (2 + 3j) + z.conj() * z, z)
        return out, fn(tt.tensor([1 + 1j, 2 - 1j, 0.5j], dtype=tt.complex128))

    check(prog)


def test_vjp_errors():
    def shape(tt):
        _, fn = tt.func.vjp(lambda x: x * 2, _t(tt, X3))
        return fn(_t(tt, B2))

    def structure(tt):
        _, fn = tt.func.vjp(lambda x: (x, x), _t(tt, X3))
        return fn(_t(tt, X3))

    check(shape, raises=RuntimeError)
    check(structure, raises=RuntimeError)
    check(lambda tt: tt.func.vjp(lambda x: x, 3.0), raises=ValueError)


def test_jvp_and_linearize():
    def prog(tt):
        x, w = _t(tt, X3), _t(tt, W23)
        t = (_t(tt, X3[::-1].copy()), _t(tt, W23 * 0.5))
        out, tout = tt.func.jvp(lambda x, w: (w @ x).sin(), (x, w), t)
        out2, tout2, aux = tt.func.jvp(lambda x: (x.exp(), x.cos()), (x,), (t[0],), has_aux=True)
        lin_out, jvp_fn = tt.func.linearize(lambda x, w: (w @ x).sin(), x, w)
        return out, tout, out2, tout2, aux, lin_out, jvp_fn(*t), jvp_fn(x, w)

    check(prog)


def test_jvp_complex():
    def prog(tt):
        z = tt.tensor(X3 + 1j * X3[::-1].copy(), dtype=tt.complex128)
        v = tt.tensor([1j, 1.0, 1 - 1j], dtype=tt.complex128)
        return tt.func.jvp(lambda z: z * z + z.abs(), (z,), (v,))

    check(prog)


_RULES = {
    "jvp_primals_not_tuple": raising(
        RuntimeError, lambda F, tt, x: F.jvp(lambda x: x * 2, x, (x,))),
    "jvp_tangents_list": raising(
        RuntimeError, lambda F, tt, x: F.jvp(lambda x: x * 2, (x,), [x])),
    "jvp_tangent_shape": raising(
        RuntimeError, lambda F, tt, x: F.jvp(lambda x: x * 2, (x,), (x[:2],))),
    "jvp_integer_primal": raising(
        ValueError, lambda F, tt, x: F.jvp(lambda x: x * 2, (x.long(),), (x,))),
    "jvp_strict_ok": lambda F, tt, x: F.jvp(lambda x: x * 2, (x,), (x,), strict=True),
    "jvp_strict_independent": raising(
        RuntimeError,
        lambda F, tt, x: F.jvp(lambda x: (x * 2, tt.ones(2)), (x,), (x,), strict=True)),
    "grad_integer_output": lambda F, tt, x: F.grad(lambda x: x.sum().long())(x),
    "jacrev_integer_output": raising(
        RuntimeError, lambda F, tt, x: F.jacrev(lambda x: x.long())(x)),
    "vjp_python_output": raising(RuntimeError, lambda F, tt, x: F.vjp(lambda x: (x, 3.0), x)),
    "vjp_integer_primal": raising(
        RuntimeError, lambda F, tt, x: F.vjp(lambda x: x * 2, x.long())),
    "jacrev_complex_input": raising(
        RuntimeError, lambda F, tt, x: F.jacrev(lambda z: z * 2)(x * 1j)),
    "jacfwd_complex_output": raising(
        RuntimeError, lambda F, tt, x: F.jacfwd(lambda x: x * 1j)(x)),
}


@pytest.mark.parametrize("name", list(_RULES))
def test_transform_rules(name):
    check(lambda tt: _RULES[name](tt.func, tt, _t(tt, X3)), raises=error_of(_RULES[name]))


# ------------------------------------------------------------------ jacobians


@pytest.mark.parametrize("kind", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("argnums", [0, (0, 1)])
def test_jacobians(kind, argnums):
    def prog(tt):
        f = lambda x, w: ((w @ x).sin(), {"s": x.outer(x).sum(0)})  # noqa: E731
        return getattr(tt.func, kind)(f, argnums=argnums)(_t(tt, X3), _t(tt, W23))

    check(prog)


def test_jacobians_has_aux_chunks_and_dtypes():
    def prog(tt):
        x = tt.tensor(X23, dtype=tt.float32)
        f = lambda x: (x.softmax(-1), x.sum())  # noqa: E731
        return (tt.func.jacrev(f, has_aux=True)(x), tt.func.jacfwd(f, has_aux=True)(x),
                tt.func.jacrev(lambda x: x.exp(), chunk_size=1)(x),
                tt.func.jacrev(lambda x: x.exp(), chunk_size=4)(x))

    check(prog)
    check(lambda tt: tt.func.jacrev(lambda x: x, chunk_size=0)(_t(tt, X3)), raises=ValueError)
    check(lambda tt: tt.func.jacfwd(lambda x: x, randomness="x")(_t(tt, X3)),
          raises=RuntimeError)


def test_hessian_and_nesting():
    def prog(tt):
        f = lambda x, w: ((w @ x).tanh() ** 2).sum()  # noqa: E731
        x, w = _t(tt, X3), _t(tt, W23)
        F = tt.func
        return (F.hessian(f)(x, w), F.hessian(f, argnums=(0, 1))(x, w),
                F.jacrev(F.jacrev(f))(x, w), F.grad(lambda x: F.grad(f)(x, w).sum())(x),
                F.vmap(F.grad(f), in_dims=(0, None))(_t(tt, X23), w))

    check(prog)


# ------------------------------------------------------------------ vmap

_VMAP = {  # (tt, x [2, 3], w [2, 3]) -> result
    "in_dims_tuple": lambda tt, x, w: tt.vmap(lambda a, b: a * b, in_dims=(1, None))(x.t(), x[0]),
    "negative_in_dim": lambda tt, x, w: tt.vmap(lambda a: a * 2, in_dims=-1)(x),
    "out_dims_1": lambda tt, x, w: tt.vmap(lambda a: a.outer(a), out_dims=1)(x),
    "out_dims_tuple": lambda tt, x, w: tt.vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(x),
    "out_dims_negative": lambda tt, x, w: tt.vmap(lambda a: a.outer(a), out_dims=-2)(x),
    "unbatched_output": lambda tt, x, w: tt.vmap(lambda a: w.sum(0))(x),
    "out_dims_none": lambda tt, x, w: tt.vmap(lambda a: (a * 2, 3), out_dims=(0, None))(x),
    "out_dims_none_unbatched": lambda tt, x, w: tt.vmap(lambda a: w, out_dims=None)(x),
    "dict_in_dims": lambda tt, x, w: tt.vmap(lambda d: d["a"] + d["b"], in_dims=(
        {"a": 0, "b": None},))({"a": x, "b": x[1]}),
    "list_arg": lambda tt, x, w: tt.vmap(lambda ab: ab[0] - ab[1])([x, w]),
    "kwargs_unmapped": lambda tt, x, w: tt.vmap(lambda a, b=None: a + b)(x, b=w),
    "scalar_arg": lambda tt, x, w: tt.vmap(lambda a, s: a * s, in_dims=(0, None))(x, 2.0),
    "nested": lambda tt, x, w: tt.vmap(tt.vmap(lambda a, b: a * b))(x, w),
    "nested_in_dims": lambda tt, x, w: tt.vmap(tt.vmap(lambda a: a.sum()), in_dims=1)(x),
    "chunk_size": lambda tt, x, w: tt.vmap(lambda a: a @ w.t(), chunk_size=1)(x),
    "batch_size_0": lambda tt, x, w: tt.vmap(lambda a: a * 2)(x[:0]),
    "matmul_softmax": lambda tt, x, w: tt.vmap(lambda a: (w @ a).softmax(0))(x.flip(1)),
    "conv2d": lambda tt, x, w: tt.vmap(lambda img: tt.nn.functional.conv2d(
        img, w.reshape(1, 1, 2, 3)))(x.reshape(1, 1, 1, 2, 3).expand(3, 1, 1, 2, 3)),
    "cross_entropy": lambda tt, x, w: tt.vmap(tt.nn.functional.cross_entropy)(
        x, tt.tensor([2, 0])),
    "inplace_on_input": lambda tt, x, w: tt.vmap(lambda a: a.mul_(2).sum())(x.clone()),
}


@pytest.mark.parametrize("name", list(_VMAP))
def test_vmap(name):
    check(lambda tt: _VMAP[name](tt, _t(tt, X23), _t(tt, W23)))


_VMAP_ERRORS = {
    "in_dim_on_non_tensor": raising(
        ValueError, lambda tt, x: tt.vmap(lambda a, n: a * n, in_dims=(0, 0))(x, 2)),
    "in_dim_on_none": raising(ValueError, lambda tt, x: tt.vmap(lambda a, b: a)(x, None)),
    "sizes_differ": raising(ValueError, lambda tt, x: tt.vmap(lambda a, b: a + b)(x, x.t())),
    "nothing_mapped": raising(ValueError, lambda tt, x: tt.vmap(lambda a: a, in_dims=(None,))(x)),
    "in_dims_none": raising(ValueError, lambda tt, x: tt.vmap(lambda a: a, in_dims=None)(x)),
    "in_dims_list": raising(ValueError, lambda tt, x: tt.vmap(lambda a: a, in_dims=[0])(x)),
    "in_dims_float": raising(ValueError, lambda tt, x: tt.vmap(lambda a: a, in_dims=0.5)(x)),
    "in_dims_length": raising(ValueError, lambda tt, x: tt.vmap(lambda a: a, in_dims=(0, 0))(x)),
    "in_dim_out_of_range": raising(ValueError, lambda tt, x: tt.vmap(lambda a: a, in_dims=2)(x)),
    "scalar_input": raising(ValueError, lambda tt, x: tt.vmap(lambda a: a)(x[0, 0])),
    "no_inputs": raising(ValueError, lambda tt, x: tt.vmap(lambda: x)()),
    "returns_int": raising(ValueError, lambda tt, x: tt.vmap(lambda a: (a, 3))(x)),
    "out_dims_none_batched": raising(
        ValueError, lambda tt, x: tt.vmap(lambda a: a, out_dims=None)(x)),
    "out_dim_out_of_range": raising(IndexError, lambda tt, x: tt.vmap(lambda a: a, out_dims=5)(x)),
    "out_dims_length": raising(
        ValueError, lambda tt, x: tt.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(x)),
    "chunk_size_0": raising(ValueError, lambda tt, x: tt.vmap(lambda a: a, chunk_size=0)(x)),
    "randomness_name": raising(
        RuntimeError, lambda tt, x: tt.vmap(lambda a: a, randomness="foo")(x)),
    "item": raising(RuntimeError, lambda tt, x: tt.vmap(lambda a: a.sum().item())(x)),
    "branch_on_value": raising(
        RuntimeError, lambda tt, x: tt.vmap(lambda a: a if a.sum() > 0 else -a)(x)),
    "nonzero": raising(RuntimeError, lambda tt, x: tt.vmap(lambda a: a.nonzero())(x)),
    "random_in_error_mode": raising(
        RuntimeError, lambda tt, x: tt.vmap(lambda a: a + tt.randn(3))(x)),
    "dropout_in_error_mode": raising(
        RuntimeError, lambda tt, x: tt.vmap(tt.nn.functional.dropout)(x)),
}


@pytest.mark.parametrize("name", list(_VMAP_ERRORS))
def test_vmap_errors(name):
    check(lambda tt: _VMAP_ERRORS[name](tt, _t(tt, X23)),
          raises=error_of(_VMAP_ERRORS[name]))


def test_vmap_randomness(tt):
    """"same" draws one value for the whole batch, "different" one per example, and chunks
    do not change what is drawn (numbers differ between libraries: JAX's streams)."""
    x = tt.zeros(4, 3)
    same = tt.vmap(lambda a: a + tt.randn(3), randomness="same")(x)
    tt.manual_seed(1)
    diff = tt.vmap(lambda a: a + tt.randn(3), randomness="different")(x)
    assert (same == same[0]).all() and not (same == 0).all()
    assert not any((diff[i] == diff[0]).all() for i in range(1, 4))
    if tt.__name__ == "jtorch":  # a chunked call draws what an unchunked one draws
        tt.manual_seed(1)
        parts = tt.vmap(lambda a: a + tt.randn(3), randomness="different", chunk_size=2)(x)
        assert (diff == parts).all()


def test_random_draws_inside_grad(tt):
    """A dropout mask drawn inside grad is one draw: the recorded node replays it, and the
    gradient of its sum is the scaled mask."""
    f = lambda a: (tt.nn.functional.dropout(a, 0.5) * a).sum()  # noqa: E731
    tt.manual_seed(3)
    plain = tt.func.grad(f)(tt.ones(8))
    tt.manual_seed(3)
    x = tt.ones(8, requires_grad=True)
    recorded = tt.func.grad(f)(x)
    recorded.sum().backward()
    assert set(plain.tolist()) <= {0.0, 4.0} and 4.0 in plain.tolist()
    if tt.__name__ == "jtorch":  # PyTorch draws differently when x requires grad
        assert (plain == recorded).all() and (x.grad == recorded).all()


def test_vmap_writes_to_captured_tensors():
    def kept(tt):
        buf = tt.zeros(3)
        out = tt.vmap(lambda a: (buf.add_(1), a * 2)[1])(_t(tt, X23))
        return out, buf, buf._version

    check(kept)


def test_vmap_batched_write_to_captured_tensor_raises():
    def prog(tt):
        buf = tt.zeros(3, dtype=tt.float64)
        try:
            tt.vmap(lambda a: buf.add_(a))(_t(tt, X23))
        except RuntimeError:
            return "raised", buf
        return "no error", buf

    check(prog)


# ------------------------------------------------------------------ modules


_LINEAR = {}


def _linear(tt, n_in, n_out, seed, bias=True):
    """A Linear layer with fixed weights (no random init: the same values in both libraries,
    and no sampling kernels to compile)."""
    if tt not in _LINEAR:
        class Linear(tt.nn.Module):
            def __init__(self, n_in, n_out, seed, bias):
                super().__init__()
                w = np.cos(np.arange(n_in * n_out) * 0.7 + seed).reshape(n_out, n_in)
                self.weight = tt.nn.Parameter(_t(tt, w))
                self.bias = tt.nn.Parameter(_t(tt, np.sin(np.arange(n_out) + seed))) if bias \
                    else None

            def forward(self, x):
                return tt.nn.functional.linear(x, self.weight, self.bias)

        _LINEAR[tt] = Linear
    return _LINEAR[tt](n_in, n_out, seed, bias)


def _mlp(tt, k=0):
    return tt.nn.Sequential(_linear(tt, 3, 4, k), tt.nn.Tanh(), _linear(tt, 4, 2, k + 2))


def test_per_sample_gradients():
    def prog(tt):
        m = _mlp(tt)
        params = {k: v.detach() for k, v in m.named_parameters()}

        buffers = {k: v.detach() for k, v in m.named_buffers()}

        def loss(p, b, x, y):  # as in PyTorch's per-sample-gradients tutorial
            out = tt.func.functional_call(m, (p, b), (x.unsqueeze(0),))
            return tt.nn.functional.cross_entropy(out, y.unsqueeze(0))

        x, y = _t(tt, np.vstack([X3, X3[::-1], W23])), tt.tensor([0, 1, 1, 0])
        g = tt.func.vmap(tt.func.grad(loss), in_dims=(None, None, 0, 0))(params, buffers, x, y)
        return g, g["0.weight"].requires_grad

    check(prog)


def test_ensembling_with_stack_module_state():
    def prog(tt):
        models = [_mlp(tt, k) for k in range(3)]
        params, buffers = tt.func.stack_module_state(models)
        out = tt.vmap(lambda p, b, x: tt.func.functional_call(models[0], (p, b), (x,)),
                      in_dims=(0, 0, None))(params, buffers, _t(tt, X23))
        out.pow(2).sum().backward()
        return out, {k: (v.is_leaf, v.grad) for k, v in params.items()}

    check(prog)
    check(lambda tt: tt.func.stack_module_state([]), raises=RuntimeError)
    check(lambda tt: tt.func.stack_module_state([_mlp(tt), _mlp(tt).eval()]),
          raises=RuntimeError)
    check(lambda tt: tt.func.stack_module_state([_mlp(tt), tt.nn.Tanh()]), raises=RuntimeError)


def test_functional_call_autograd_and_restore():
    def prog(tt):
        m, x = _mlp(tt), _t(tt, X23)
        new = {k: v * 2 for k, v in m.named_parameters()}
        out = tt.func.functional_call(m, new, x)
        out.sum().backward()
        return out, m(x), m[0].weight.grad, type(m[0].weight).__name__

    check(prog)


def _tied(tt):
    class Tied(tt.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = _linear(tt, 3, 3, 5, bias=False)
            self.b = _linear(tt, 3, 3, 6, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    return Tied()


_CALLS = {
    "tied": lambda tt, m, w, x: tt.func.functional_call(m, {"a.weight": w}, x),
    "untied": lambda tt, m, w, x: tt.func.functional_call(m, {"a.weight": w}, x,
                                                          tie_weights=False) - m(x),
    "tied_conflict": raising(ValueError, lambda tt, m, w, x: tt.func.functional_call(
        m, {"a.weight": w, "b.weight": w * 2}, x)),
    "tied_same": lambda tt, m, w, x: tt.func.functional_call(
        m, {"a.weight": w, "b.weight": w}, x),
    "strict_missing": raising(RuntimeError, lambda tt, m, w, x: tt.func.functional_call(
        m, {"a.weight": w}, x, strict=True, tie_weights=False)),
    "strict_unexpected": raising(RuntimeError, lambda tt, m, w, x: tt.func.functional_call(
        m, {"a.weight": w, "c": w}, x, strict=True)),
    "tuple_of_dicts": lambda tt, m, w, x: tt.func.functional_call(
        m, ({"a.weight": w}, {}), (x,), tie_weights=False) - m(x),
    "repeated_keys": raising(ValueError, lambda tt, m, w, x: tt.func.functional_call(
        m, ({"a.weight": w}, {"a.weight": w}), (x,))),
    "not_dicts": raising(ValueError, lambda tt, m, w, x: tt.func.functional_call(
        m, [{"a.weight": w}, 3], (x,))),
    "not_a_dict": raising(ValueError, lambda tt, m, w, x: tt.func.functional_call(m, 3, (x,))),
    "kwargs": lambda tt, m, w, x: tt.func.functional_call(m, {}, (), {"x": x}) - m(x),
}


@pytest.mark.parametrize("name", list(_CALLS))
def test_functional_call_rules(name):
    check(lambda tt: _CALLS[name](tt, _tied(tt), _t(tt, W23.T @ W23), _t(tt, X3)),
          raises=error_of(_CALLS[name]))


def test_functional_call_buffers_receive_updates():
    def prog(tt):
        class Counter(tt.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("n", tt.zeros(()))

            def forward(self, x):
                self.n = self.n + 1
                return x * self.n

        bn, c = tt.nn.BatchNorm1d(3).double(), Counter()
        bufs = {k: v.clone() for k, v in bn.named_buffers()}
        out = tt.func.functional_call(bn, (dict(bn.named_parameters()), bufs), _t(tt, X23))
        state = {"n": tt.zeros(())}
        y = tt.func.functional_call(c, state, _t(tt, X3))
        return out, bufs, bn.running_mean, state, c.n, y

    check(prog)


def test_batch_norm_under_transforms():
    def prog(tt):
        bn = tt.nn.BatchNorm1d(3).double()
        x = _t(tt, np.vstack([X23, W23]))
        try:
            tt.func.grad(lambda x: bn(x).pow(2).sum())(x)
        except RuntimeError:
            raised = True
        tt.func.replace_all_batch_norm_modules_(bn)
        g = tt.func.vmap(tt.func.grad(lambda x: bn(x).pow(3).sum()))(x.reshape(2, 2, 3))
        return raised, g, bn.running_mean, bn.track_running_stats

    check(prog)


def test_functionalize():
    def prog(tt):
        def f(x):
            x.add_(1)
            return x * 2, x[1:]

        x = _t(tt, X3)
        out, view = tt.func.functionalize(f)(x)
        copy = tt.func.functionalize(lambda x: x[1:], remove="mutations_and_views")(x)
        return out, x, view, copy._base is x, copy

    check(prog)
    check(lambda tt: tt.func.functionalize(lambda x: x, remove="x")(_t(tt, X3)),
          raises=RuntimeError)


# ------------------------------------------------------------------ with autograd


def test_results_carry_autograd_history_like_pytorch():
    def prog(tt):
        m, x = _mlp(tt), _t(tt, X3)
        F = tt.func
        g_closure = F.grad(lambda x: m(x).tanh().sum())(x)  # history to m's parameters
        g_closure.pow(2).sum().backward()
        grads = [p.grad.clone() for p in m.parameters()]
        xr = _t(tt, X3, requires_grad=True)
        g = F.grad(lambda x: (x.sin() * x).sum())(xr)
        g.sum().backward()
        with tt.no_grad():
            g_off = F.grad(lambda x: (x.sin() * x).sum())(xr)
        v = F.vmap(m)(_t(tt, X23))
        out, fn = F.vjp(lambda x: x.exp() * x, xr)
        vj = fn(_t(tt, X3))
        return (g_closure, grads, g, xr.grad, g_closure.requires_grad, g_off.requires_grad,
                v.requires_grad, out.requires_grad, vj[0].requires_grad)

    check(prog)


def test_higher_order_through_autograd():
    def prog(tt):
        x = _t(tt, X3, requires_grad=True)
        g = tt.func.grad(lambda x: (x.sin() ** 2).sum())(x)
        (h,) = tt.autograd.grad(g.sum(), x, create_graph=True)
        (t,) = tt.autograd.grad(h.sum(), x)
        return g, h, t

    check(prog)


def test_tensor_passed_twice_and_captured():
    def prog(tt):
        x = _t(tt, X3, requires_grad=True)
        g = tt.func.grad(lambda a, b: (a * b * b).sum(), argnums=(0, 1))(x, x)
        (g[0] + g[1]).sum().backward()
        first, x.grad = x.grad, None
        h = tt.func.grad(lambda y: (y * x * x).sum())(x)
        h.sum().backward()
        return g, first, h, x.grad

    check(prog)


def test_maml_inner_loop():
    def prog(tt):
        m = _mlp(tt)
        params = dict(m.named_parameters())
        x, y = _t(tt, X23), tt.tensor([1, 0])

        def loss(p, x, y):
            return tt.nn.functional.cross_entropy(tt.func.functional_call(m, p, (x,)), y)

        new = params
        for _ in range(2):
            grads = tt.func.grad(loss)(new, x, y)
            new = {k: v - 0.1 * grads[k] for k, v in new.items()}
        outer = loss(new, x.flip(0), y)
        outer.backward()
        return outer, [p.grad for p in m.parameters()]

    check(prog)


def test_code_inside_transforms():
    def prog(tt):
        F, x = tt.func, _t(tt, X3)
        detach_grad = F.grad(lambda x: (x.detach() * x).sum())(x)
        detach_jvp = F.jvp(lambda x: x.detach() * x, (x,), (tt.ones_like(x),))
        data_grad = F.grad(lambda x: (x.data * x).sum())(x)
        item = F.grad(lambda x: (x * x.max().item()).sum())(x)
        branch = F.grad(lambda x: (x.sin() if x.sum() > 0 else x.cos()).sum())(x)
        inplace = F.grad(lambda x: x.clone().mul_(x).sum())(x)
        printed = F.grad(lambda x: (str(x), (x * x).sum())[1])(x)
        return detach_grad, detach_jvp, data_grad, item, branch, inplace, printed

    check(prog)


def test_writing_a_captured_tensor_in_grad_raises():
    def prog(tt):
        buf = tt.zeros(3, dtype=tt.float64)
        return tt.func.grad(lambda x: (buf.add_(2), (x * x).sum())[1])(_t(tt, X3))

    check(prog, raises=RuntimeError)


def _functions(tt):
    class NoSetup(tt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.round()

        @staticmethod
        def backward(ctx, g):
            return g * 3

    class Setup(tt.autograd.Function):
        @staticmethod
        def forward(x, k):
            return x.round() * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * ctx.k * x, None

    class Vmappable(Setup):
        generate_vmap_rule = True

    return NoSetup, Setup, Vmappable


_FUNCTIONS = {
    "no_setup_context": raising(
        RuntimeError, lambda tt, F, A, B, C, x: F.grad(lambda x: A.apply(x).sum())(x)),
    "custom_backward": lambda tt, F, A, B, C, x: F.grad(lambda x: B.apply(x, 2.0).sum())(x),
    "no_vmap_rule": raising(
        RuntimeError, lambda tt, F, A, B, C, x: F.vmap(lambda x: B.apply(x, 2.0))(x)),
    "vmap_rule": lambda tt, F, A, B, C, x: F.vmap(lambda x: C.apply(x, 2.0))(x),
    "vmap_grad": lambda tt, F, A, B, C, x: F.vmap(F.grad(lambda x: C.apply(x, 2.0).sum()))(x),
    "jacrev": lambda tt, F, A, B, C, x: F.jacrev(lambda x: C.apply(x, 2.0))(x),
    "jvp_without_rule": raising(
        NotImplementedError,
        lambda tt, F, A, B, C, x: F.jvp(lambda x: C.apply(x, 2.0), (x,), (x,))),
}


@pytest.mark.parametrize("name", list(_FUNCTIONS))
def test_autograd_function_in_transforms(name):
    check(lambda tt: _FUNCTIONS[name](tt, tt.func, *_functions(tt), _t(tt, X3)),
          raises=error_of(_FUNCTIONS[name]))


def test_transforms_under_torch_compile():
    """A transform inside torch.compile is traced into the compiled program: equal results,
    replayed without retracing, fresh random draws on every call."""
    import jtorch as tt

    m, x = _mlp(tt), _t(tt, X23)
    per_example = tt.func.vmap(tt.func.grad(lambda x: m(x).tanh().sum()))
    compiled = tt.compile(lambda x: per_example(x))
    drop = tt.compile(lambda x: tt.vmap(tt.nn.functional.dropout, randomness="different")(x))
    first, again = compiled(x), compiled(x)
    a, b = drop(tt.ones(4, 8)), drop(tt.ones(4, 8))
    assert (first - per_example(x)).abs().max() < 1e-12 and (again == first).all()
    assert not (a == b).all() and set(a.flatten().tolist()) <= {0.0, 2.0}
