"""Recurrent layers as pure functions: Elman RNN (tanh/relu), LSTM (with projections) and
GRU, whole stacks and single cells, with PyTorch's gate order and weight layout.

A stack runs one ``lax.scan`` per (layer, direction), all inside one function, so the eager
layer compiles the whole RNN into one kernel and differentiates it with one VJP. Optional
per-sequence ``lengths`` mask the batch (states stop updating past each length and outputs
there are zero), which is how packed sequences run on their padded form; the reverse
direction then starts at each sequence's own last step, as PyTorch's packed kernels do.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import _dtypes as D
from ._util import dtype_of

__all__ = ["rnn", "rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "pad_packed"]

MODES = ("RNN_TANH", "RNN_RELU", "LSTM", "GRU")


def _affine(x, w, b):
    y = jnp.matmul(x, w.T)
    return y if b is None else y + b


def _step(mode, gi, h, c, w_hh, b_hh, w_hr):
    """One time step from the input's gate pre-activations ``gi`` (x W_ih^T + b_ih)."""
    gh = _affine(h, w_hh, b_hh)
    if mode == "GRU":
        i_r, i_z, i_n = jnp.split(gi, 3, axis=-1)
        h_r, h_z, h_n = jnp.split(gh, 3, axis=-1)
        r = jax.nn.sigmoid(i_r + h_r)
        z = jax.nn.sigmoid(i_z + h_z)
        n = jnp.tanh(i_n + r * h_n)  # the reset gate scales (W_hn h + b_hn), as PyTorch
        return (1 - z) * n + z * h, None
    if mode == "LSTM":
        i, f, g, o = jnp.split(gi + gh, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h if w_hr is None else jnp.matmul(h, w_hr.T)), c
    pre = gi + gh
    # jax.nn.relu's gradient at 0 is 0, as PyTorch's threshold backward.
    return (jnp.tanh(pre) if mode == "RNN_TANH" else jax.nn.relu(pre)), None


def _layer(mode, x, h0, c0, weights, mask, reverse):
    """Run one direction of one layer over time-major ``x``: (final h, final c, outputs)."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    gi = _affine(x, w_ih, b_ih)  # every step's input projection in one matmul

    def step(carry, inputs):
        h, c = carry
        g, m = inputs
        h2, c2 = _step(mode, g, h, c, w_hh, b_hh, w_hr)
        if m is None:
            return (h2, c2), h2
        m = m[:, None]
        h2 = jnp.where(m, h2, h)
        if c2 is not None:
            c2 = jnp.where(m, c2, c)
        return (h2, c2), jnp.where(m, h2, jnp.zeros_like(h2))

    (h, c), out = jax.lax.scan(step, (h0, c0), (gi, mask), reverse=reverse)
    return h, c, out


def _split_params(params, count, has_biases, proj_size):
    per = 2 + 2 * has_biases + (proj_size > 0)
    if len(params) != count * per:
        raise RuntimeError(f"rnn: expected {count * per} weight tensors, got {len(params)}")
    out = []
    for k in range(count):
        w = list(params[k * per:(k + 1) * per])
        w_ih, w_hh = w[0], w[1]
        b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
        out.append((w_ih, w_hh, b_ih, b_hh, w[-1] if proj_size > 0 else None))
    return out


def _check_dtypes(input, hx, params) -> None:
    want = dtype_of(input)
    if not want.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found {D.legacy_name(want)}")
    for t in (*hx, *params):
        if dtype_of(t) is not want:
            raise RuntimeError(f"expected scalar type {D.legacy_name(want)} but found "
                               f"{D.legacy_name(dtype_of(t))}")


def rnn(input, hx, params, lengths=None, mode="LSTM", num_layers=1, bidirectional=False,
        batch_first=False, has_biases=True, proj_size=0, reverse=False):
    """A stacked (bidirectional) RNN over a 3-D ``input``; ``hx`` is ``(h0,)`` or, for the
    LSTM, ``(h0, c0)``; ``params`` are the flat weights in PyTorch's order (per layer and
    direction: w_ih, w_hh, [b_ih, b_hh], [w_hr]). Returns ``(output, h_n[, c_n])``.
    ``reverse`` runs a one-directional stack backwards in time: the reverse direction of a
    bidirectional layer on its own, as a long packed sequence's chunks run it.

    Differences from PyTorch: dropout between layers is applied by the caller (a stack
    with dropout in training runs one layer per call)."""
    if mode not in MODES:
        raise ValueError(f"Unknown mode {mode!r}")
    if reverse and bidirectional:
        raise ValueError("rnn: reverse=True runs one direction; bidirectional must be False")
    lstm = mode == "LSTM"
    _check_dtypes(input, hx, params)
    x = jnp.swapaxes(input, 0, 1) if batch_first else input
    mask = None
    if lengths is not None:
        mask = jnp.arange(x.shape[0])[:, None] < lengths[None, :]
    dirs = 2 if bidirectional else 1
    weights = _split_params(params, num_layers * dirs, has_biases, proj_size)
    h0, c0 = hx[0], (hx[1] if lstm else None)
    hs, cs = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            h, c, out = _layer(mode, x, h0[k], None if c0 is None else c0[k], weights[k], mask,
                               reverse or d == 1)
            outs.append(out)
            hs.append(h)
            cs.append(c)
        x = outs[0] if dirs == 1 else jnp.concatenate(outs, axis=-1)
    output = jnp.swapaxes(x, 0, 1) if batch_first else x
    if lstm:
        return output, jnp.stack(hs), jnp.stack(cs)
    return output, jnp.stack(hs)


def _cell(mode, input, h, c, w_ih, w_hh, b_ih, b_hh):
    if input.ndim not in (1, 2):
        raise RuntimeError(f"{mode.lower()}_cell: Expected input to be 1D or 2D, got "
                           f"{input.ndim}D instead")
    if input.shape[-1] != w_ih.shape[-1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected "
                           f"{w_ih.shape[-1]}")
    if h.shape[-1] != w_hh.shape[-1]:
        raise RuntimeError(f"hidden0 has inconsistent hidden_size: got {h.shape[-1]}, expected "
                           f"{w_hh.shape[-1]}")
    _check_dtypes(input, (h, w_hh) + (() if c is None else (c,)), (w_ih,))
    return _step(mode, _affine(input, w_ih, b_ih), h, c, w_hh, b_hh, None)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.rnn_tanh_cell: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return _cell("RNN_TANH", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.rnn_relu_cell: h' = relu(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return _cell("RNN_RELU", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.lstm_cell: ``hx`` is ``(h, c)``; returns ``(h', c')`` (gates i, f, g, o)."""
    if not isinstance(hx, (list, tuple)):  # a tensor's rows are no (h, c)
        raise TypeError(f"lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, "
                        f"not {'Tensor' if hasattr(hx, 'shape') else type(hx).__name__}")
    if len(hx) != 2:
        raise RuntimeError(f"lstm_cell: Expected hx to hold 2 tensors, got {len(hx)}")
    return _cell("LSTM", input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.gru_cell: gates r, z, n; n = tanh(W_in x + b_in + r * (W_hn h + b_hn))."""
    return _cell("GRU", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


def pad_packed(data, index, padding_value=0.0):
    """A packed sequence's padded batch: ``data[index]`` with ``padding_value`` where
    ``index`` is ``len(data)``, in one kernel (``index`` has the padded batch's shape)."""
    pad = jnp.full((1, *data.shape[1:]), padding_value, data.dtype)
    return jnp.concatenate([data, pad])[index]


def pack_padded(input, index, batch_first=False):
    """A packed sequence's data: rows ``index`` of the padded batch's steps (time-major,
    ``input`` transposed first where ``batch_first``) flattened to one row each."""
    x = jnp.swapaxes(input, 0, 1) if batch_first else input
    return x.reshape((-1, *x.shape[2:]))[index]
