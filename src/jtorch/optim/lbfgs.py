"""torch.optim.LBFGS: limited-memory BFGS with an optional strong-Wolfe line search.

The algorithm is host-side control flow (tolerances, line-search brackets) around small
vector operations, as in PyTorch; the vectors are JAX arrays over the flattened
parameters, and 0-d arrays play the part of torch's 0-d tensors (a Python float meeting
one takes its dtype), so the arithmetic follows PyTorch's. State holds tensors under
PyTorch's keys (``d``, ``t``, ``old_dirs``, ``old_stps``, ``ro``, ``H_diag``, ...).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import _kernels
from ..eager.autograd.grad_mode import enable_grad, no_grad
from ..eager.tensor import Tensor, wrap
from ..eager.views import write
from .optimizer import Optimizer, _check_lr, _operand

__all__ = ["LBFGS"]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    # The minimizer of the cubic interpolating two points with their derivatives.
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = jnp.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _zoom_point(bracket, t, insuf_progress):
    """Keep the next trial point away from the bracket's ends (PyTorch's rule)."""
    eps = 0.1 * (max(bracket) - min(bracket))
    if min(max(bracket) - t, t - min(bracket)) < eps:
        if insuf_progress or t >= max(bracket) or t <= min(bracket):
            t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) else (
                min(bracket) + eps)
            return t, False
        return t, True
    return t, False


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    d_norm = jnp.max(jnp.abs(d))
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = jnp.dot(g_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new, gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = jnp.dot(g_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1],
                               bracket_f[1], bracket_gtd[1])
        t, insuf_progress = _zoom_point(bracket, t, insuf_progress)
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = jnp.dot(g_new, d)
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new, gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new, gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


def _two_loop(flat_grad, dirs, stps, ro, count, H_diag):
    """The L-BFGS direction: the inverse-Hessian estimate applied to minus the gradient.

    ``dirs``/``stps``/``ro`` hold the history oldest first in rows ``[0, count)`` of
    fixed-size buffers, so one compiled loop serves every history length; rows past
    ``count`` are skipped. Returns the direction and ``al`` (one entry per row)."""
    size = dirs.shape[0]
    q = -flat_grad

    def newest_first(j, carry):
        q, al = carry
        i = size - 1 - j
        a = jnp.dot(stps[i], q) * ro[i]
        live = i < count
        q = jnp.where(live, q + (-a).astype(q.dtype) * dirs[i], q)
        return q, al.at[i].set(jnp.where(live, a, al[i]))

    q, al = jax.lax.fori_loop(0, size, newest_first, (q, jnp.zeros(size, ro.dtype)))
    r = q * H_diag

    def oldest_first(i, r):
        be_i = jnp.dot(dirs[i], r) * ro[i]
        return jnp.where(i < count, r + (al[i] - be_i).astype(r.dtype) * stps[i], r)

    return jax.lax.fori_loop(0, size, oldest_first, r), al


@_kernels.jit
def _push(dirs, stps, ro, count, y, s, rho):
    """Append (y, s, rho) to the history buffers, dropping the oldest row when full."""
    full = count == dirs.shape[0]

    def put(buf, row):
        shifted = jnp.where(full, jnp.roll(buf, -1, axis=0), buf)
        return shifted.at[jnp.where(full, count - 1, count)].set(row)

    return put(dirs, y), put(stps, s), put(ro, rho.astype(ro.dtype)), jnp.minimum(
        count + 1, dirs.shape[0])


@_kernels.jit
def _flat_grad(values, grads):
    """All gradients in one vector (zeros for a missing one; complex as real pairs)."""
    views = []
    for v, g in zip(values, grads, strict=True):
        g = jnp.zeros(v.shape, v.dtype) if g is None else g
        if jnp.iscomplexobj(g):
            g = jnp.stack([g.real, g.imag], -1)
        views.append(g.reshape(-1))
    return jnp.concatenate(views, 0)


@_kernels.jit
def _stepped(values, step_size, update):
    """Every parameter moved by ``step_size * update`` (its slice of the flat vector)."""
    out, offset = [], 0
    for v in values:
        real = jnp.stack([v.real, v.imag], -1) if jnp.iscomplexobj(v) else v
        n = real.size
        new = real + step_size.astype(real.dtype) * update[offset:offset + n].reshape(real.shape)
        if jnp.iscomplexobj(v):
            new = jax.lax.complex(new[..., 0], new[..., 1])
        out.append(new.astype(v.dtype))
        offset += n
    return out


_two_loop_kernel = _kernels.jit(_two_loop)


@_kernels.jit(static_argnums=1)
def _rows(rows, capacity):
    first = rows[0]
    buf = jnp.zeros((capacity, *first.shape), first.dtype)
    return buf.at[:len(rows)].set(jnp.stack(rows))


class _History:
    """The last ``size`` curvature pairs (y, s) and rho = 1/(y.s): PyTorch's lists (kept for
    ``state``) and the same rows in buffers for the compiled two-loop. A buffer's capacity
    doubles as the history grows (a compile per capacity, not per length), up to ``size``."""

    def __init__(self, size, dirs=(), stps=(), ro=()):
        self.size = size
        self.dirs, self.stps, self.ro = list(dirs), list(stps), list(ro)
        self._bufs = None

    def push(self, y, s, rho) -> None:
        count = len(self.dirs)
        if count == self.size:
            for rows in (self.dirs, self.stps, self.ro):
                rows.pop(0)
        self.dirs.append(y)
        self.stps.append(s)
        self.ro.append(rho)
        if self._bufs is not None and (count < len(self._bufs[2]) or count == self.size):
            dirs, stps, ro = self._bufs
            self._bufs = _push(dirs, stps, ro, count, y, s, rho)[:3]
        else:
            self._bufs = None  # full below ``size``: rebuilt larger when next needed

    def direction(self, flat_grad, H_diag):
        """The two-loop direction and ``al`` (as PyTorch's list of ``size`` entries)."""
        count = len(self.dirs)
        if self._bufs is None:
            capacity = min(self.size, max(8, 1 << count.bit_length()))
            if count:
                self._bufs = tuple(_rows(tuple(rows), capacity)
                                   for rows in (self.dirs, self.stps, self.ro))
            else:
                zeros = jnp.zeros((capacity, flat_grad.size), flat_grad.dtype)
                self._bufs = (zeros, zeros, jnp.zeros(capacity, flat_grad.dtype))
        return _two_loop_kernel(flat_grad, *self._bufs, count, H_diag)

    def al_list(self, al) -> list:
        """PyTorch's ``al`` state: an entry per history row, None past the rows in use."""
        count = len(self.dirs)
        return [*(al[:count] if count else ()), *[None] * (self.size - count)]


def _arrays(x):
    if isinstance(x, Tensor):
        return x._value
    if isinstance(x, list):
        return [_arrays(v) for v in x]
    return x


def _tensors(x):
    if isinstance(x, jax.Array):
        return wrap(x)
    if isinstance(x, list):
        return [_tensors(v) for v in x]
    return x


class LBFGS(Optimizer):
    """L-BFGS; ``step(closure)`` re-evaluates the loss (with gradients) as it needs.

    Differences from PyTorch: sparse gradients are not supported.
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        _check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                    "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                    "history_size": history_size, "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _gather_flat_grad(self):
        return _flat_grad([p._value for p in self._params],
                          [None if p.grad is None else p.grad._value for p in self._params])

    def _add_grad(self, step_size, update) -> None:
        new = _stepped([p._value for p in self._params], jnp.asarray(step_size), update)
        for p, v in zip(self._params, new, strict=True):
            write(p, v)

    def _set_param(self, params_data) -> None:
        for p, v in zip(self._params, params_data, strict=True):
            write(p, v)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure):
        """One L-BFGS step (up to ``max_iter`` iterations); returns the first loss."""
        with no_grad():
            return self._step(enable_grad()(closure))

    def _step(self, closure):
        group = self.param_groups[0]
        lr = _operand(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if jnp.max(jnp.abs(flat_grad)) <= tolerance_grad:
            return orig_loss
        d, t = _arrays(state.get("d")), _arrays(state.get("t"))
        hist = self._history(state, history_size)
        H_diag = _arrays(state.get("H_diag"))
        prev_flat_grad, prev_loss = _arrays(state.get("prev_flat_grad")), state.get("prev_loss")
        al = _arrays(state.get("al"))
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, hist, H_diag = -flat_grad, _History(history_size), 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * jnp.asarray(t).astype(d.dtype)
                ys = jnp.dot(y, s)
                if ys > 1e-10:
                    hist.push(y, s, 1.0 / ys)
                    H_diag = ys / jnp.dot(y, y)
                d, al = hist.direction(flat_grad, H_diag)
            prev_flat_grad, prev_loss = flat_grad, loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / jnp.sum(jnp.abs(flat_grad))) * lr
            else:
                t = lr
            gtd = jnp.dot(flat_grad, d)
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p._value for p in self._params]

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = jnp.max(jnp.abs(flat_grad)) <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = float(closure())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = jnp.max(jnp.abs(flat_grad)) <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if (n_iter == max_iter or current_evals >= max_eval or opt_cond
                    or jnp.max(jnp.abs(d * jnp.asarray(t).astype(d.dtype))) <= tolerance_change
                    or abs(loss - prev_loss) < tolerance_change):
                break
        state.update(d=_tensors(d), t=_tensors(t), old_dirs=_tensors(hist.dirs),
                     old_stps=_tensors(hist.stps), ro=_tensors(hist.ro), H_diag=_tensors(H_diag),
                     prev_flat_grad=_tensors(prev_flat_grad), prev_loss=prev_loss)
        if al is not None:
            state["al"] = _tensors(al if isinstance(al, list) else hist.al_list(al))
        self._hist = (state["old_dirs"], hist)
        return orig_loss

    def _history(self, state, size) -> _History:
        """The history of the last step, or one rebuilt from ``state`` (e.g. after
        ``load_state_dict``)."""
        cached = getattr(self, "_hist", None)
        if cached is not None and cached[0] is state.get("old_dirs") and cached[1].size == size:
            return cached[1]
        return _History(size, *(_arrays(state.get(k)) or () for k in ("old_dirs", "old_stps",
                                                                       "ro")))
