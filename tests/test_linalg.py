"""Linear algebra beyond the op database: LinAlgError on singular input, the raising
torch.linalg forms, compositions (einsum, chain_matmul, inverse), float32 matmul precision
flags and torch.backends."""

from __future__ import annotations

import warnings

import jax
import numpy as np
import pytest
import torch
from conftest import check

import jtorch

SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
NOT_PD = np.diag([1.0, -1.0, 2.0])
WELL = np.array([[3.0, 1.0, 0.5], [0.2, 2.5, -1.0], [0.4, 0.3, 4.0]])


def _mat(t, data=WELL, **kw):
    return t.tensor(data, dtype=t.float64, **kw)


# ------------------------------------------------------------------ LinAlgError


@pytest.mark.parametrize("call", [
    lambda t: t.linalg.inv(_mat(t, SINGULAR)),
    lambda t: t.inverse(_mat(t, SINGULAR)),
    lambda t: _mat(t, SINGULAR).inverse(),
    lambda t: t.linalg.inv(t.stack([_mat(t, np.eye(2)), _mat(t, SINGULAR)])),
    lambda t: t.linalg.cholesky(_mat(t, NOT_PD)),
    lambda t: t.linalg.solve(_mat(t, SINGULAR), t.ones(2, dtype=t.float64)),
    lambda t: t.linalg.inv_ex(_mat(t, SINGULAR), check_errors=True),
    lambda t: t.linalg.cholesky_ex(_mat(t, NOT_PD), check_errors=True),
    lambda t: t.linalg.solve_ex(_mat(t, SINGULAR), _mat(t, SINGULAR), check_errors=True),
], ids=["inv", "inverse", "method", "batched", "cholesky", "solve", "inv_ex", "cholesky_ex",
        "solve_ex"])
def test_singular_input_raises_linalg_error(call):
    e, a = check(call, raises=torch.linalg.LinAlgError)
    assert isinstance(a, jtorch.linalg.LinAlgError) and isinstance(a, RuntimeError)
    assert str(a) == str(e)


def test_info_of_failed_factorizations():
    """``*_ex`` return LAPACK's info instead of raising: the first zero pivot, the order of
    the first leading minor that is not positive-definite; 0 for the good batch element."""
    def prog(t):
        pd = _mat(t, np.eye(3))
        chol = t.linalg.cholesky_ex(t.stack([pd, _mat(t, NOT_PD), -pd])).info
        inv = t.linalg.inv_ex(t.stack([_mat(t, np.eye(2)), _mat(t, SINGULAR)])).info
        return chol, inv, t.linalg.solve_ex(_mat(t, SINGULAR), _mat(t, np.eye(2))).info

    check(prog)


def test_raising_forms_values_grad_fn_and_out():
    def prog(t):
        A = _mat(t, requires_grad=True)
        spd = A @ A.mT + 3 * t.eye(3, dtype=t.float64)
        inv, chol = t.linalg.inv(A), t.linalg.cholesky(spd, upper=True)
        x = t.linalg.solve(A, t.ones(3, 2, dtype=t.float64))
        (inv.sum() + chol.sum() + x.sum()).backward()
        out = t.empty(0, dtype=t.float64)
        r = t.linalg.inv(A.detach(), out=out)
        names = [y.grad_fn.name() for y in (inv, chol, x)]
        return inv, chol, x, A.grad, out, r is out, names

    check(prog)


def test_linalg_diagonal_is_a_view():
    def prog(t):
        A = t.arange(24.0).reshape(2, 3, 4)
        d = t.linalg.diagonal(A, offset=1)
        d.mul_(-1)
        return d, A, t.linalg.diagonal(A, dim1=0, dim2=2)

    check(prog, strides=True)


# ------------------------------------------------------------------ compositions


def test_einsum_forms():
    def prog(t):
        a = t.arange(6.0).reshape(2, 3)
        b = t.arange(12.0).reshape(3, 4)
        return (t.einsum("ij,jk->ik", a, b), t.einsum("ij,jk->ik", [a, b]),
                t.einsum("...j,jk", a, b), t.einsum("ij->", a), t.einsum("i j , j k", a, b))

    check(prog)


def test_chain_matmul_and_addbmm_broadcast():
    def prog(t):
        a, b, c = (t.tensor(np.linspace(-1, 1, n * m).reshape(n, m)) for n, m in
                   ((2, 3), (3, 4), (4, 2)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            chained = t.chain_matmul(a, b, c)
        b1, b2 = t.ones(2, 2, 3), t.ones(2, 3, 4)
        return chained, t.addbmm(t.ones(4), b1, b2, beta=2), t.addbmm(t.ones(2, 1), b1, b2)

    check(prog)


def test_matmul_batch_broadcast_and_no_promotion():
    def prog(t):
        x = t.ones(2, 1, 3, 4)
        y = t.ones(5, 4, 2)
        return (x @ y).shape, t.matmul(t.ones(4), y).shape, t.matmul(y, t.ones(2)).shape

    check(prog)
    check(lambda t: t.ones(2, 2) @ t.ones(2, 2, dtype=t.float64), raises=RuntimeError)


def test_backward_from_several_outputs_of_one_op():
    """Regression: two roots that are outputs of one node (slogdet's sign and logabsdet)."""
    def prog(t):
        A = _mat(t, requires_grad=True)
        sign, logabs = t.linalg.slogdet(A)
        t.autograd.backward([sign, logabs], [t.ones((), dtype=t.float64)] * 2)
        return A.grad

    check(prog)


def test_invariant_gradients_of_eigh_and_svd():
    """Losses that do not depend on the eigenvector / singular vector signs."""
    def prog(t):
        A = _mat(t, requires_grad=True)
        S = A @ A.mT
        w, V = t.linalg.eigh(S)
        U, s, Vh = t.linalg.svd(A)
        loss = (V * V * w).sum() + (U.abs() @ t.diag(s) @ Vh.abs()).sum()
        loss.backward()
        return A.grad

    check(prog)


# ------------------------------------------------------------------ precision and backends


@pytest.fixture
def _restore_precision():
    yield
    for t in (torch, jtorch):
        t.set_float32_matmul_precision("highest")


@pytest.mark.usefixtures("_restore_precision")
def test_float32_matmul_precision_flags():
    def prog(t):
        seen = [t.get_float32_matmul_precision(), t.backends.cuda.matmul.allow_tf32]
        t.set_float32_matmul_precision("medium")
        seen += [t.get_float32_matmul_precision(), t.backends.cuda.matmul.allow_tf32]
        t.set_float32_matmul_precision("highest")
        seen.append(t.backends.cuda.matmul.allow_tf32)
        t.set_float32_matmul_precision("high")
        seen.append(t.backends.cuda.matmul.allow_tf32)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            t.set_float32_matmul_precision("bogus")
        return seen + [t.get_float32_matmul_precision(), len(w)]

    check(prog)


def test_allow_tf32_sets_the_precision(tt, _restore_precision):
    """PyTorch refuses to read the precision back after the legacy setter; jtorch allows it."""
    tt.backends.cuda.matmul.allow_tf32 = True
    assert tt.backends.cuda.matmul.allow_tf32
    tt.backends.cuda.matmul.allow_tf32 = False
    assert not tt.backends.cuda.matmul.allow_tf32
    if tt is jtorch:
        assert jtorch.get_float32_matmul_precision() == "highest"


@pytest.mark.usefixtures("_restore_precision")
def test_precision_is_a_cached_choice_not_a_retrace():
    """The setting maps onto jax_default_matmul_precision, which keys JAX's kernel cache:
    one trace per setting, none per call."""
    from jtorch.eager import dispatch

    a = jtorch.ones(3, 3)
    a @ a
    kernel = next(k for key, k in dispatch._FWD.items() if key[0] == "matmul"
                  and key[1] == ("input", "other"))
    before = kernel._cache_size()
    a @ a
    assert kernel._cache_size() == before
    jtorch.set_float32_matmul_precision("high")
    assert jax.config.jax_default_matmul_precision == "tensorfloat32"
    (a @ a).tolist()  # read: a product may be recorded (eager/lazy.py) until then
    (a @ a).tolist()
    assert kernel._cache_size() == before + 1
    jtorch.set_float32_matmul_precision("highest")
    assert jax.config.jax_default_matmul_precision is None
    (a @ a).tolist()
    assert kernel._cache_size() == before + 1


def test_backends_flags_as_cpu_pytorch():
    def prog(t):
        b = t.backends
        out = [b.cuda.matmul.allow_fp16_reduced_precision_reduction,
               b.cuda.matmul.allow_bf16_reduced_precision_reduction,
               b.cudnn.enabled, b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.allow_tf32,
               b.cudnn.is_available(), b.cudnn.version(), b.mps.is_available(),
               b.mps.is_built()]
        with b.cudnn.flags(enabled=False, benchmark=True):
            out += [b.cudnn.enabled, b.cudnn.benchmark]
        out += [b.cudnn.enabled, b.cudnn.benchmark]
        b.cudnn.benchmark = True
        out.append(b.cudnn.benchmark)
        b.cudnn.benchmark = False
        return out

    check(prog)
    check(lambda t: t.backends.cuda.matmul.not_a_flag, raises=AttributeError)


def test_deterministic_algorithms():
    def prog(t):
        seen = [t.are_deterministic_algorithms_enabled(), t.get_deterministic_debug_mode()]
        t.use_deterministic_algorithms(True, warn_only=True)
        seen += [t.are_deterministic_algorithms_enabled(),
                 t.is_deterministic_algorithms_warn_only_enabled(),
                 t.get_deterministic_debug_mode()]
        t.set_deterministic_debug_mode("error")
        seen += [t.get_deterministic_debug_mode(),
                 t.is_deterministic_algorithms_warn_only_enabled()]
        t.use_deterministic_algorithms(False)
        return seen + [t.get_deterministic_debug_mode()]

    check(prog)
    check(lambda t: t.use_deterministic_algorithms(1), raises=TypeError)
    check(lambda t: t.set_deterministic_debug_mode(3), raises=RuntimeError)


def test_cond_and_linalg_matmul():
    def prog(t):
        A = t.stack([_mat(t), _mat(t, np.diag([1.0, 2.0, 4.0]))])
        return (t.linalg.cond(A), t.linalg.cond(A, -2), t.linalg.cond(A, "fro"),
                t.linalg.cond(A, float("inf")), t.linalg.cond(A, "nuc"),
                t.linalg.matmul(A, A))

    check(prog)
