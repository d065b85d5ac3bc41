"""Reductions, sorting and scans: PyTorch's dtype rules, gradient conventions and the
host-computed ops (unique, unique_consecutive, bincount, histc)."""

from __future__ import annotations

import pytest
from conftest import check, raising

NAN, INF = float("nan"), float("inf")


def _grad(t, fn, data, dtype="float64"):
    """fn(x) for x built from ``data``; backward with fixed weights; (result, x.grad)."""
    x = t.tensor(data, dtype=getattr(t, dtype), requires_grad=True)
    y = fn(t, x)
    y = y[0] if isinstance(y, tuple) else y
    w = t.linspace(0.5, 1.5, max(y.numel(), 1), dtype=y.dtype)[: y.numel()].reshape(y.shape)
    (y * w).sum().backward()
    return y, x.grad


# ------------------------------------------------------------------ dtypes


@pytest.mark.parametrize("dtype", ["int32", "int8", "uint8", "bool", "int16"])
def test_integer_sums_and_scans_give_int64(dtype):
    check(lambda t: [f(t.tensor([[1, 0, 1], [1, 1, 0]], dtype=getattr(t, dtype)), *a)
                     for f, a in ((t.sum, ()), (t.prod, ()), (t.cumsum, (1,)),
                                  (t.cumprod, (0,)), (t.nansum, ()), (t.sum, (0,)))])


def test_half_sums_accumulate_in_float32():
    # 4096 + 1 + 1 + ... is exact in float32 but stalls at 4096 in float16 arithmetic.
    check(lambda t: [f(t.tensor([2048.0] + [1.0] * 64, dtype=getattr(t, d)))
                     for d in ("float16", "bfloat16") for f in (t.sum, t.mean)])
    check(lambda t: t.cumsum(t.tensor([2048.0] + [1.0] * 8, dtype=t.float16), 0))


def test_mean_of_integers_raises():
    check(lambda t: t.tensor([1, 2]).mean(), raises=RuntimeError)
    check(lambda t: t.tensor([1, 2]).mean(dtype=t.float64))


def test_all_any_keep_uint8():
    check(lambda t: [t.tensor([3, 0], dtype=t.uint8).all(), t.tensor([3, 0], dtype=t.uint8).any(),
                     t.tensor([3, 0], dtype=t.int64).any(), t.tensor([[2.0, 0.0]]).all(1)])


# ------------------------------------------------------------------ NaN and ties


def test_nan_conventions():
    def prog(t):
        x = t.tensor([[1.0, NAN, 3.0, 2.0], [4.0, 0.0, NAN, NAN]])
        return (x.max(), x.argmax(), x.max(1), x.argmin(1), x.sort(1), x.sort(1, True),
                x.median(), x.median(1), x.nanmedian(), x.nanmedian(1), x.quantile(0.5),
                x.nanquantile(0.5, 1), x.amax(1), x.topk(1, 1), t.msort(x))

    check(prog)


def test_median_lower_middle_and_quantile_average():
    check(lambda t: (t.tensor([4.0, 1.0, 3.0, 2.0]).median(),
                     t.tensor([4.0, 1.0, 3.0, 2.0]).quantile(0.5),
                     t.tensor([[4, 1, 3, 2]]).median(1)))


def test_stable_sort_keeps_order_of_ties():
    check(lambda t: [t.sort(t.tensor([2, 1, 2, 1, 0, 2]), stable=True, descending=d)
                     for d in (False, True)])


def test_topk_unsorted_selects_the_same_values():
    def prog(t):
        v, i = t.topk(t.tensor([3.0, 9.0, 1.0, 7.0, 5.0]), 3, sorted=False)
        return v.sort()[0], i.sort()[0]

    check(prog)


def test_cumsum_and_cumprod_of_bool():
    check(lambda t: (t.tensor([True, False, True]).cumsum(0),
                     t.tensor([True, True, False]).cumprod(0)))


def test_mode_smallest_most_frequent_last_index():
    check(lambda t: (t.mode(t.tensor([3.0, 1, 1, 3, 2])), t.tensor([[5, 5, 2, 2, 9]]).mode(1)))


# ------------------------------------------------------------------ gradient conventions

GRADS = {
    "max_ties": (lambda t, x: x.max(), [[1.0, 3.0], [3.0, 2.0]]),
    "amax_ties": (lambda t, x: x.amax(), [[1.0, 3.0], [3.0, 3.0]]),
    "amax_dim_ties": (lambda t, x: x.amax(1), [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]),
    "amin_ties": (lambda t, x: x.amin(0), [[1.0, 1.0], [1.0, 2.0]]),
    "max_dim_one_index": (lambda t, x: x.max(1), [[3.0, 3.0, 1.0], [2.0, 2.0, 2.0]]),
    "min_dim_one_index": (lambda t, x: x.min(0), [[1.0, 1.0], [1.0, 2.0]]),
    "median_full_ties": (lambda t, x: x.median(), [2.0, 2.0, 1.0, 3.0]),
    "median_dim": (lambda t, x: x.median(1), [[2.0, 5.0, 1.0, 3.0]]),
    "nanmedian_full": (lambda t, x: x.nanmedian(), [2.0, NAN, 1.0, 3.0]),
    "kthvalue": (lambda t, x: x.kthvalue(2, 1), [[2.0, 5.0, 1.0, 3.0]]),
    "mode": (lambda t, x: x.mode(1), [[2.0, 5.0, 2.0, 3.0]]),
    "norm_at_zero": (lambda t, x: x.norm(), [0.0, 0.0]),
    "norm_p3_at_zero": (lambda t, x: x.norm(3, 1), [[0.0, 0.0], [1.0, -2.0]]),
    "norm_inf_ties": (lambda t, x: x.norm(INF), [1.0, -3.0, 3.0]),
    "norm_p1_zero_element": (lambda t, x: x.norm(1), [0.0, -2.0]),
    "norm_p05": (lambda t, x: x.norm(0.5), [0.0, -2.0, 1.0]),
    "dist_zero": (lambda t, x: t.dist(x, x.detach()), [1.0, 2.0]),
    "std_single": (lambda t, x: x.std(correction=0), [1.5]),
    "std_constant": (lambda t, x: x.std(1), [[2.0, 2.0], [1.0, 3.0]]),
    "std_single_unbiased": (lambda t, x: x.std(), [1.5]),
    "prod_one_zero": (lambda t, x: x.prod(), [2.0, 0.0, 3.0]),
    "prod_two_zeros": (lambda t, x: x.prod(1), [[0.0, 0.0, 3.0], [1.0, 2.0, 0.0]]),
    "cumprod_zeros": (lambda t, x: x.cumprod(0), [2.0, 0.0, 3.0, 0.0, 4.0]),
    "logsumexp_neg_inf": (lambda t, x: x.logsumexp(1), [[-INF, -INF], [-INF, 1.0]]),
    "logcumsumexp": (lambda t, x: x.logcumsumexp(0), [-1.0, 2.0, 0.5]),
    "sort": (lambda t, x: x.sort(descending=True), [3.0, 1.0, 2.0]),
    "topk": (lambda t, x: x.topk(2), [3.0, 1.0, 2.0, 5.0]),
    "cummax_ties": (lambda t, x: x.cummax(0), [1.0, 3.0, 3.0, 2.0]),
    "quantile_tensor_q": (lambda t, x: x.quantile(t.tensor([0.25, 0.8], dtype=t.float64)),
                          [4.0, 1.0, 3.0, 2.0]),
    "nanmean_all_nan": (lambda t, x: x.nanmean(1), [[NAN, NAN], [1.0, NAN]]),
    "var_mean": (lambda t, x: t.var_mean(x, 0)[0] + t.var_mean(x, 0)[1],
                 [[1.0, 2.0], [4.0, 8.0]]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradient_conventions(name):
    fn, data = GRADS[name]
    check(lambda t: _grad(t, fn, data))


def test_backward_from_both_outputs_of_one_node():
    def prog(t):
        x = t.tensor([[1.0, 5.0], [3.0, 2.0]], dtype=t.float64, requires_grad=True)
        lo, hi = t.aminmax(x, dim=1)
        t.autograd.backward([lo, hi], [t.ones(2, dtype=t.float64), 2 * t.ones(2, dtype=t.float64)])
        return x.grad

    check(prog)


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize("expr", [
    raising(RuntimeError, lambda t: t.ones(0).max()),
    raising(IndexError, lambda t: t.ones(0, 2).max(0)), lambda t: t.ones(0, 2).sum(),
    raising(IndexError, lambda t: t.ones(0, 2).argmax()),
    raising(IndexError, lambda t: t.ones(2).sum(1)),
    raising(RuntimeError, lambda t: t.ones(2).topk(3)),
    raising(RuntimeError, lambda t: t.ones(2, 3).kthvalue(4)),
    raising(IndexError, lambda t: t.ones(2, 3).amax(-3)),
    raising(RuntimeError, lambda t: t.ones(0).amax()),
    raising(IndexError, lambda t: t.ones(2).cumsum(1)),
    raising(IndexError, lambda t: t.ones(2).sort(2)),
    raising(IndexError, lambda t: t.ones(2).logsumexp(1)),
    raising(RuntimeError, lambda t: t.ones(0).aminmax()),
])
def test_reduction_errors(expr):
    check(expr)


# ------------------------------------------------------------------ host-computed ops


def test_unique():
    def prog(t):
        x = t.tensor([[3.0, 1.0, NAN], [1.0, NAN, 2.0]])
        i = t.tensor([[1, 2], [1, 2], [0, 5], [1, 2]])
        return (t.unique(x), x.unique(return_inverse=True, return_counts=True),
                t.unique(i, return_counts=True), t.unique(i, dim=0, return_inverse=True,
                                                          return_counts=True),
                t.unique(i, sorted=False, dim=1), t.unique(t.tensor([True, False, True])),
                t.unique(t.tensor([], dtype=t.int64), return_inverse=True))

    check(prog)


def test_unique_consecutive():
    def prog(t):
        x = t.tensor([1, 1, 2, 2, 3, 1, 1])
        m = t.tensor([[1, 1, 2, 2], [0, 0, 5, 5]])
        return (t.unique_consecutive(x), x.unique_consecutive(return_inverse=True,
                                                                return_counts=True),
                t.unique_consecutive(m, dim=1, return_inverse=True, return_counts=True),
                t.unique_consecutive(m.T, dim=0))

    check(prog)


def test_bincount():
    def prog(t):
        x = t.tensor([1, 2, 2, 0, 5])
        return (t.bincount(x), x.bincount(minlength=8),
                t.bincount(x, t.tensor([0.5, 1.0, 2.0, 3.0, 1.5])),
                t.bincount(x, t.tensor([1, 2, 3, 4, 5])), t.bincount(t.tensor([], dtype=t.int64)),
                t.bincount(x.int(), minlength=2))

    check(prog)


@pytest.mark.parametrize("expr", [
    raising(RuntimeError, lambda t: t.bincount(t.tensor([-1, 2]))),
    raising(RuntimeError, lambda t: t.bincount(t.tensor([[1]]))),
    raising(NotImplementedError, lambda t: t.bincount(t.tensor([1.0]))),
    raising(RuntimeError, lambda t: t.bincount(t.tensor([1]), minlength=-1)),
    raising(RuntimeError, lambda t: t.bincount(t.tensor([1, 2]), t.tensor([1.0]))),
])
def test_bincount_errors(expr):
    check(expr)


def test_histc():
    def prog(t):
        x = t.tensor([0.0, 0.25, 0.5, 1.0, 1.0, 2.0, -1.0])
        return (t.histc(x, bins=4), x.histc(4, 0, 1), t.histc(x.double(), 3, -1, 2),
                t.histc(t.tensor([2.0, 2.0]), 2), t.histc(t.tensor([0.1, 0.2, 0.3]), 3, 0.1, 0.3))

    check(prog)


def test_histc_is_not_differentiable(tt):
    x = tt.tensor([0.5, 1.0], requires_grad=True)
    assert not tt.histc(x, 2).requires_grad


# ------------------------------------------------------------------ signatures


def test_std_var_overloads():
    def prog(t):
        x = t.tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]])
        return (x.std(False), x.var(1, False), x.std(0, True, True), t.var(x, dim=(0, 1)),
                t.std(x, 1, correction=0, keepdim=True), t.std_mean(x, 1), t.var_mean(x, False))

    check(prog)


def test_diff_forms():
    def prog(t):
        x = t.tensor([[1, 4, 9], [2, 2, 7]])
        return (x.diff(), t.diff(x, n=2), t.diff(x, dim=0, prepend=t.tensor([[0, 0, 0]])),
                t.diff(x, append=t.ones(2, 1)), t.diff(t.tensor([True, False, False])))

    check(prog)
