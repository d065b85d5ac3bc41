"""Optimizer updates as pure functions: one parameter's step with torch's arithmetic.

Each optimizer is a pair: ``<name>_init(param, ...) -> state`` gives the arrays torch keeps
in ``optimizer.state[p]`` (torch's keys, in torch's order) and ``<name>(param, grad, state,
**hyperparameters) -> (new_param, new_state)`` is one step. Hyperparameters are scalars
that may be traced (lr, betas, eps: they change between steps without recompiling);
keyword flags that change the computation's structure (``maximize``, ``amsgrad``,
``nesterov``, ``centered``, ...) are Python bools. The arithmetic follows torch's
single-tensor implementation: scalar-only expressions (bias corrections) in float64, as
Python computes them; a scalar meeting a tensor is cast to the tensor's dtype; torch's
two-sided ``lerp``; its operation order in ``addcmul``/``addcdiv``. Complex parameters
are updated through a real view (``real_view``), as torch's ``view_as_real``.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
from jax import lax

from .. import _kernels

# ------------------------------------------------------------------ torch's scalar arithmetic


def _f64(x):
    """A Python-side scalar: torch computes these in double precision."""
    return jnp.asarray(x).astype(jnp.float64)


def _as(x, like):
    """A scalar meeting a tensor: torch casts it to the tensor's dtype."""
    return jnp.asarray(x).astype(like.dtype)


def _lerp(start, end, weight):
    # torch's CPU formula: exact at both ends for weights on either side of 0.5.
    w = _as(weight, start)
    diff = end - start
    return jnp.where(jnp.abs(w) < 0.5, start + w * diff, end - diff * (1 - w))


def _addcmul(x, t1, t2, value):
    return x + (_as(value, x) * t1) * t2


def _addcdiv(x, t1, t2, value):
    return x + _as(value, x) * (t1 / t2)


def _l2(grad, param, weight_decay):
    """``grad + weight_decay * param``; torch skips it (no 0 * inf) when the decay is 0."""
    return jnp.where(_f64(weight_decay) != 0, grad + _as(weight_decay, param) * param, grad)


def _decoupled(param, lr, weight_decay):
    """``param * (1 - lr * weight_decay)`` (AdamW-style), skipped when the decay is 0."""
    factor = 1 - _f64(lr) * _f64(weight_decay)
    return jnp.where(_f64(weight_decay) != 0, param * _as(factor, param), param)


def _decay(grad, param, lr, weight_decay, decoupled):
    if decoupled:
        return grad, _decoupled(param, lr, weight_decay)
    return _l2(grad, param, weight_decay), param


def _signed(grad, maximize):
    return -grad if maximize else grad


# ------------------------------------------------------------------ complex parameters


def _to_real(x):
    return jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1)


def _to_complex(x, dtype):
    return lax.complex(x[..., 0], x[..., 1]).astype(dtype)


def real_view(update):
    """``update`` applied to complex parameters through a real view (torch's view_as_real)."""

    def run(param, grad, state, **kw):
        if not jnp.iscomplexobj(param):
            return update(param, grad, state, **kw)
        cplx = {k: v.dtype for k, v in state.items() if jnp.iscomplexobj(v)}
        state = {k: _to_real(v) if k in cplx else v for k, v in state.items()}
        real = _to_real(param)
        new_p, new_s = update(real, _to_real(grad), state, **kw)
        # State the update creates (SGD's momentum buffer) has the parameter's dtype.
        cplx.update({k: param.dtype for k, v in new_s.items()
                     if k not in state and v.shape == real.shape})
        new_s = {k: _to_complex(v, cplx[k]) if k in cplx else v for k, v in new_s.items()}
        return _to_complex(new_p, param.dtype), new_s

    return run


def _zeros(param):  # first state: built on the host where it can be (no program per shape)
    return _kernels.full_like(param, 0)


def _step0(scalar_dtype, value=0.0):
    return _kernels.full((), value, scalar_dtype)


# ------------------------------------------------------------------ SGD


def sgd(param, grad, state, *, lr, momentum, dampening, weight_decay, nesterov=False,
        maximize=False, use_momentum=False):
    """SGD with optional momentum (buffer starts as the first gradient) and Nesterov."""
    g = _l2(_signed(grad, maximize), param, weight_decay)
    new = {}
    if use_momentum:
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = g
        else:
            buf = buf * _as(momentum, buf) + _as(1 - _f64(dampening), buf) * g
        new["momentum_buffer"] = buf
        g = g + _as(momentum, g) * buf if nesterov else buf
    return param + _as(-_f64(lr), param) * g, new


# ------------------------------------------------------------------ the Adam family


def adam_init(param, *, scalar_dtype, amsgrad=False):
    state = {"step": _step0(scalar_dtype), "exp_avg": _zeros(param), "exp_avg_sq": _zeros(param)}
    if amsgrad:
        state["max_exp_avg_sq"] = _zeros(param)
    return state


def adam(param, grad, state, *, lr, beta1, beta2, eps, weight_decay, amsgrad=False,
         maximize=False, decoupled_weight_decay=False):
    """Adam (AdamW with ``decoupled_weight_decay``), optionally AMSGrad."""
    step = state["step"] + 1
    g, param = _decay(_signed(grad, maximize), param, lr, weight_decay, decoupled_weight_decay)
    exp_avg = _lerp(state["exp_avg"], g, 1 - _f64(beta1))
    exp_avg_sq = _addcmul(state["exp_avg_sq"] * _as(beta2, g), g, g, 1 - _f64(beta2))
    t = _f64(step)
    step_size = _f64(lr) / (1 - _f64(beta1) ** t)
    bias_correction2_sqrt = jnp.sqrt(1 - _f64(beta2) ** t)
    new = {"step": step, "exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq}
    second = exp_avg_sq
    if amsgrad:
        second = new["max_exp_avg_sq"] = jnp.maximum(state["max_exp_avg_sq"], exp_avg_sq)
    denom = jnp.sqrt(second) / _as(bias_correction2_sqrt, g) + _as(eps, g)
    return _addcdiv(param, exp_avg, denom, -step_size), new


def adamax_init(param, *, scalar_dtype):
    return {"step": _step0(scalar_dtype), "exp_avg": _zeros(param), "exp_inf": _zeros(param)}


def adamax(param, grad, state, *, lr, beta1, beta2, eps, weight_decay, maximize=False):
    """Adamax: Adam with the infinity norm."""
    step = state["step"] + 1
    g = _l2(_signed(grad, maximize), param, weight_decay)
    exp_avg = _lerp(state["exp_avg"], g, 1 - _f64(beta1))
    exp_inf = jnp.maximum(state["exp_inf"] * _as(beta2, g), jnp.abs(g) + _as(eps, g))
    clr = _f64(lr) / (1 - _f64(beta1) ** _f64(step))
    new = {"step": step, "exp_avg": exp_avg, "exp_inf": exp_inf}
    return _addcdiv(param, exp_avg, exp_inf, -clr), new


def nadam_init(param, *, scalar_dtype):
    return {"step": _step0(scalar_dtype), "mu_product": _step0(scalar_dtype, 1.0),
            "exp_avg": _zeros(param), "exp_avg_sq": _zeros(param)}


def nadam(param, grad, state, *, lr, beta1, beta2, eps, weight_decay, momentum_decay,
          decoupled_weight_decay=False, maximize=False):
    """NAdam: Adam with Nesterov momentum and a momentum-decay schedule."""
    step = state["step"] + 1
    t = _f64(step)
    g, param = _decay(_signed(grad, maximize), param, lr, weight_decay, decoupled_weight_decay)
    b1, md = _f64(beta1), _f64(momentum_decay)
    mu = b1 * (1.0 - 0.5 * 0.96 ** (t * md))
    mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * md))
    mu_product = state["mu_product"] * _as(mu, state["mu_product"])
    exp_avg = _lerp(state["exp_avg"], g, 1 - b1)
    exp_avg_sq = _addcmul(state["exp_avg_sq"] * _as(beta2, g), g, g, 1 - _f64(beta2))
    denom = jnp.sqrt(exp_avg_sq / _as(1 - _f64(beta2) ** t, g)) + _as(eps, g)
    mp = _f64(mu_product)
    lr = _f64(lr)
    param = _addcdiv(param, g, denom, -lr * (1.0 - mu) / (1.0 - mp))
    param = _addcdiv(param, exp_avg, denom, (-lr * mu_next) / (1.0 - mp * mu_next))
    return param, {"step": step, "mu_product": mu_product, "exp_avg": exp_avg,
                   "exp_avg_sq": exp_avg_sq}


def radam_init(param, *, scalar_dtype):
    return {"step": _step0(scalar_dtype), "exp_avg": _zeros(param), "exp_avg_sq": _zeros(param)}


def radam(param, grad, state, *, lr, beta1, beta2, eps, weight_decay,
          decoupled_weight_decay=False, maximize=False):
    """RAdam: Adam whose adaptive term is switched on once its variance is tractable."""
    step = state["step"] + 1
    t = _f64(step)
    g, param = _decay(_signed(grad, maximize), param, lr, weight_decay, decoupled_weight_decay)
    b2 = _f64(beta2)
    exp_avg = _lerp(state["exp_avg"], g, 1 - _f64(beta1))
    exp_avg_sq = _addcmul(state["exp_avg_sq"] * _as(b2, g), g, g, 1 - b2)
    bias_correction2 = 1 - b2**t
    corrected = exp_avg / _as(1 - _f64(beta1) ** t, g)
    rho_inf = 2 / (1 - b2) - 1
    rho_t = rho_inf - 2 * t * (b2**t) / bias_correction2
    rect = jnp.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
    adaptive = _as(jnp.sqrt(bias_correction2), g) / (jnp.sqrt(exp_avg_sq) + _as(eps, g))
    plain = corrected * _as(lr, g)
    update = jnp.where(rho_t > 5.0, plain * adaptive * _as(rect, g), plain)
    return param - update, {"step": step, "exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq}


# ------------------------------------------------------------------ adaptive-rate methods


def rmsprop_init(param, *, scalar_dtype, momentum=0.0, centered=False):
    state = {"step": _step0(scalar_dtype), "square_avg": _zeros(param)}
    if momentum > 0:
        state["momentum_buffer"] = _zeros(param)
    if centered:
        state["grad_avg"] = _zeros(param)
    return state


def rmsprop(param, grad, state, *, lr, alpha, eps, weight_decay, momentum, centered=False,
            maximize=False, use_momentum=False):
    """RMSprop, optionally centered and with momentum."""
    g = _l2(_signed(grad, maximize), param, weight_decay)
    a = _f64(alpha)
    square_avg = _addcmul(state["square_avg"] * _as(a, g), g, g, 1 - a)
    new = {"step": state["step"] + 1, "square_avg": square_avg}
    if centered:
        grad_avg = new["grad_avg"] = _lerp(state["grad_avg"], g, 1 - a)
        avg = jnp.sqrt(_addcmul(square_avg, grad_avg, grad_avg, -1.0))
    else:
        avg = jnp.sqrt(square_avg)
    avg = avg + _as(eps, g)
    if use_momentum:
        buf = new["momentum_buffer"] = _addcdiv(
            state["momentum_buffer"] * _as(momentum, g), g, avg, 1.0)
        return param + _as(-_f64(lr), param) * buf, new
    return _addcdiv(param, g, avg, -_f64(lr)), new


def adagrad_init(param, *, scalar_dtype, initial_accumulator_value=0.0):
    v = initial_accumulator_value
    fill = complex(v, v) if jnp.iscomplexobj(param) else v
    return {"step": _step0(scalar_dtype), "sum": _kernels.full_like(param, fill)}


def adagrad(param, grad, state, *, lr, lr_decay, weight_decay, eps, maximize=False):
    """Adagrad with learning-rate decay."""
    step = state["step"] + 1
    g = _l2(_signed(grad, maximize), param, weight_decay)
    clr = _f64(lr) / (1 + (_f64(step) - 1) * _f64(lr_decay))
    state_sum = _addcmul(state["sum"], g, g, 1.0)
    std = jnp.sqrt(state_sum) + _as(eps, g)
    return _addcdiv(param, g, std, -clr), {"step": step, "sum": state_sum}


def adadelta_init(param, *, scalar_dtype):
    return {"step": _step0(scalar_dtype), "square_avg": _zeros(param),
            "acc_delta": _zeros(param)}


def adadelta(param, grad, state, *, lr, rho, eps, weight_decay, maximize=False):
    """Adadelta."""
    g = _l2(_signed(grad, maximize), param, weight_decay)
    rho = _f64(rho)
    square_avg = _addcmul(state["square_avg"] * _as(rho, g), g, g, 1 - rho)
    std = jnp.sqrt(square_avg + _as(eps, g))
    delta = jnp.sqrt(state["acc_delta"] + _as(eps, g)) / std * g
    acc_delta = _addcmul(state["acc_delta"] * _as(rho, g), delta, delta, 1 - rho)
    new = {"step": state["step"] + 1, "square_avg": square_avg, "acc_delta": acc_delta}
    return param + _as(-_f64(lr), param) * delta, new


def rprop_init(param, *, scalar_dtype, lr):
    fill = complex(lr, lr) if jnp.iscomplexobj(param) else lr
    return {"step": _step0(scalar_dtype), "prev": _zeros(param),
            "step_size": _kernels.full_like(param, fill)}


def rprop(param, grad, state, *, etaminus, etaplus, step_size_min, step_size_max,
          maximize=False):
    """Rprop: per-element step sizes grown or shrunk by the sign of successive gradients."""
    g = _signed(grad, maximize)
    sign = jnp.sign(g * state["prev"])
    factor = jnp.where(sign > 0, _as(etaplus, g), jnp.where(sign < 0, _as(etaminus, g), 1))
    step_size = jnp.clip(state["step_size"] * factor, _as(step_size_min, g),
                         _as(step_size_max, g))
    g = jnp.where(sign < 0, jnp.zeros_like(g), g)
    new = {"step": state["step"] + 1, "prev": g, "step_size": step_size}
    return _addcmul(param, jnp.sign(g), step_size, -1.0), new


def asgd_init(param, *, scalar_dtype, lr):
    return {"step": _step0(scalar_dtype), "eta": _step0(scalar_dtype, lr),
            "mu": _step0(scalar_dtype, 1.0), "ax": _zeros(param)}


def asgd(param, grad, state, *, lr, lambd, alpha, t0, weight_decay, maximize=False):
    """Averaged SGD: the running average ``ax`` starts once the step passes ``t0``."""
    step = state["step"] + 1
    g = _l2(_signed(grad, maximize), param, weight_decay)
    eta = _f64(state["eta"])
    param = param * _as(1 - _f64(lambd) * eta, param)
    param = param + _as(-eta, param) * g
    mu = state["mu"]
    ax = jnp.where(mu != 1, state["ax"] + (param - state["ax"]) * _as(mu, param), param)
    t, lr, lambd = _f64(step), _f64(lr), _f64(lambd)
    new_eta = lr / ((1 + lambd * lr * t) ** _f64(alpha))
    new_mu = 1 / jnp.maximum(1.0, t - _f64(t0))
    new = {"step": step, "eta": new_eta.astype(mu.dtype), "mu": new_mu.astype(mu.dtype),
           "ax": ax}
    return param, new


# ------------------------------------------------------------------ Adafactor


def adafactor_init(param, *, scalar_dtype):
    """PyTorch's layout: row/column factors (last dim / second-to-last dim reduced to 1)
    for a parameter of 2 or more dims, a full ``variance`` for a vector."""
    if param.ndim > 1:
        return {"step": _step0(scalar_dtype),
                "row_var": _kernels.full((*param.shape[:-1], 1), 0, param.dtype, param),
                "col_var": _kernels.full((*param.shape[:-2], 1, param.shape[-1]), 0,
                                         param.dtype, param)}
    return {"step": _step0(scalar_dtype), "variance": _zeros(param)}


def _rms(x):
    """||x||_2 / sqrt(numel) in double precision, as PyTorch's ``.item()`` arithmetic."""
    return _f64(jnp.sqrt(jnp.sum(x * x))) / math.sqrt(max(x.size, 1))


def _mean_square(g, axis):
    # PyTorch takes norm(dim).square() / size rather than mean(g * g): same rounding here.
    return jnp.square(jnp.sqrt(jnp.sum(g * g, axis=axis, keepdims=True))) / g.shape[axis]


def adafactor(param, grad, state, *, lr, beta2_decay, eps1, eps2, d, weight_decay,
              eps1_default=False, maximize=False):
    """Adafactor (Shazeer & Stern) as PyTorch 2.13's: factored second moments, relative step
    sizes and update clipping; ``eps1_default`` uses the dtype's machine epsilon."""
    g = _signed(grad, maximize)
    step = state["step"] + 1
    t = _f64(step)
    one_minus_beta2 = t ** _f64(beta2_decay)
    rho = jnp.minimum(_f64(lr), 1 / jnp.sqrt(t))
    alpha = jnp.maximum(_f64(eps2), _rms(param)) * rho
    e1 = jnp.finfo(param.dtype).eps if eps1_default else eps1
    param = _decoupled(param, lr, weight_decay)
    if param.ndim > 1:
        row = _lerp(state["row_var"], _mean_square(g, -1), one_minus_beta2)
        col = _lerp(state["col_var"], _mean_square(g, -2), one_minus_beta2)
        var = row @ col / jnp.maximum(jnp.mean(row, axis=-2, keepdims=True), _as(e1, row))
        new = {"step": step, "row_var": row, "col_var": col}
    else:
        var = _lerp(state["variance"], g * g, one_minus_beta2)
        new = {"step": step, "variance": var}
    update = lax.rsqrt(jnp.maximum(var, _as(_f64(e1) * _f64(e1), var))) * g
    denom = jnp.maximum(1.0, _rms(update) / _f64(d))
    return param + _as(-alpha / denom, param) * update, new


def sparse_adam(param, indices, values, exp_avg, exp_avg_sq, step, *, lr, beta1, beta2, eps):
    """PyTorch's SparseAdam on the rows a coalesced sparse gradient touches: (indices
    (sparse_dim, nnz), values (nnz, *dense)) -> (param, exp_avg, exp_avg_sq)."""
    at = tuple(indices)
    old_m, old_v = exp_avg[at], exp_avg_sq[at]
    upd_m = (values - old_m) * _as(1 - _f64(beta1), values)
    upd_v = (values * values - old_v) * _as(1 - _f64(beta2), values)
    t = _f64(step)
    step_size = _f64(lr) * jnp.sqrt(1 - _f64(beta2) ** t) / (1 - _f64(beta1) ** t)
    change = _as(-step_size, values) * ((upd_m + old_m) / (jnp.sqrt(upd_v + old_v)
                                                          + _as(eps, values)))
    return (param.at[at].add(change), exp_avg.at[at].add(upd_m),
            exp_avg_sq.at[at].add(upd_v))


# ------------------------------------------------------------------ Muon


def _bf16_mm(x, y):
    # PyTorch's CPU bfloat16 matmul accumulates in float32 and rounds the result once.
    return jnp.matmul(x, y, preferred_element_type=jnp.float32)


def muon(param, grad, state, *, lr, weight_decay, momentum, a, b, c, eps, nesterov=True,
         ns_steps=5, adjust_lr_fn=None):
    """Muon as PyTorch 2.13's: momentum (Nesterov by default), the update orthogonalised by
    ``ns_steps`` quintic Newton-Schulz iterations in bfloat16, decoupled weight decay and a
    learning rate scaled for the matrix's shape by ``adjust_lr_fn``."""
    buf = _lerp(state["momentum_buffer"], grad, 1 - _f64(momentum))
    update = _lerp(grad, buf, momentum) if nesterov else buf
    o = update.astype(jnp.bfloat16)
    tall = o.shape[0] > o.shape[1]
    if tall:
        o = o.T
    norm = jnp.sqrt(jnp.sum(jnp.square(o.astype(jnp.float32)))).astype(jnp.bfloat16)
    o = o / jnp.maximum(norm, _as(eps, o))
    bf = jnp.bfloat16
    for _ in range(ns_steps):
        gram = _bf16_mm(o, o.T).astype(bf)
        gram_update = (_as(b, gram).astype(jnp.float32) * gram
                       + _as(c, gram).astype(jnp.float32) * _bf16_mm(gram, gram)).astype(bf)
        o = (_as(a, o).astype(jnp.float32) * o + _bf16_mm(gram_update, o)).astype(bf)
    if tall:
        o = o.T
    param = _decoupled(param, lr, weight_decay)
    rows, cols = param.shape[:2]
    ratio = (0.2 * math.sqrt(max(rows, cols)) if adjust_lr_fn == "match_rms_adamw"
             else math.sqrt(max(1, rows / cols)))
    step = _f64(lr) * ratio
    return param - _as(step, param) * o.astype(param.dtype), {"momentum_buffer": buf}
