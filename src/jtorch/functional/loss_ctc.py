"""CTC loss: the forward (alpha) recursion in log space with ``jax.lax.scan``.

PyTorch's ctc_loss backward returns ``exp(log_probs) - posterior`` for the valid time
steps: the gradient with respect to the logits behind a log_softmax rather than with
respect to ``log_probs`` itself. The loss below adds ``exp(lp) - stop_gradient(exp(lp))``
(exactly zero) over the valid steps, so JAX's gradient of the alpha recursion plus that
term is torch's. The log-sum-exp is written so that all-impossible paths (-inf) give a
zero gradient rather than NaN.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import _dtypes as D
from ._util import dtype_of, not_implemented

__all__ = ["ctc_loss"]


def _lse(*xs):
    m = jnp.max(jnp.stack(xs), axis=0)
    m_safe = jax.lax.stop_gradient(jnp.where(jnp.isfinite(m), m, 0))
    s = sum(jnp.exp(x - m_safe) for x in xs)
    ok = s > 0
    return jnp.where(ok, m_safe + jnp.log(jnp.where(ok, s, 1)), -jnp.inf)


def _nll(log_probs, targets, input_lengths, target_lengths, blank):
    """The negative log-likelihood per batch element; ``targets`` is padded (N, S)."""
    T, N, _ = log_probs.shape
    S = targets.shape[1]
    ext = jnp.full((N, 2 * S + 1), blank, jnp.int64).at[:, 1::2].set(targets)
    prev2 = jnp.concatenate([jnp.full((N, 2), blank, jnp.int64), ext[:, :-2]], axis=1)
    skip = (ext != blank) & (ext != prev2)
    neg = jnp.asarray(-jnp.inf, log_probs.dtype)
    start = jnp.full((N, 2 * S + 1), neg).at[:, 0].set(0)

    def step(alpha, xs):
        lp_t, t = xs
        emit = jnp.take_along_axis(lp_t, ext, axis=1)
        a1 = jnp.concatenate([jnp.full((N, 1), neg), alpha[:, :-1]], axis=1)
        a2 = jnp.concatenate([jnp.full((N, 2), neg), alpha[:, :-2]], axis=1)
        new = _lse(alpha, a1, jnp.where(skip, a2, neg)) + emit
        return jnp.where((t < input_lengths)[:, None], new, alpha), None

    alpha, _ = jax.lax.scan(step, start, (log_probs, jnp.arange(T)))
    end = 2 * target_lengths
    last = jnp.take_along_axis(alpha, end[:, None], axis=1)[:, 0]
    before = jnp.take_along_axis(alpha, jnp.maximum(end - 1, 0)[:, None], axis=1)[:, 0]
    return -_lse(last, jnp.where(target_lengths > 0, before, neg))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """CTC loss of (T, N, C) ``log_probs`` against padded (N, S) ``targets``."""
    d = dtype_of(log_probs)
    if d._kind != 2:
        raise not_implemented("ctc_loss_cpu", d)
    if dtype_of(targets)._kind != 1:
        raise RuntimeError(f"Expected tensor for argument #2 'targets' to have one of the "
                           f"following scalar types: Long, Int; but got "
                           f"{D.legacy_name(dtype_of(targets))} instead")
    T = log_probs.shape[0]
    il = input_lengths.astype(jnp.int64)
    tl = target_lengths.astype(jnp.int64)
    nll = _nll(log_probs, targets.astype(jnp.int64), il, tl, blank)
    valid = (jnp.arange(T)[:, None] < il[None, :])[:, :, None]
    e = jnp.exp(log_probs)
    nll = nll + jnp.sum(jnp.where(valid, e - jax.lax.stop_gradient(e), 0), axis=(0, 2))
    if zero_infinity:
        nll = jnp.where(jnp.isinf(nll), jnp.zeros((), nll.dtype), nll)
    if reduction == "mean":
        return jnp.mean(nll / jnp.maximum(tl, 1).astype(nll.dtype))
    if reduction == "sum":
        return jnp.sum(nll)
    return nll
