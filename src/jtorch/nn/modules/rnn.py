"""Recurrent modules: RNN, LSTM, GRU and their cells, with PyTorch's parameter names,
registration order, initialization and input handling (batch_first, unbatched inputs,
PackedSequence in and out).

A whole stack runs as one cached kernel (``functional/rnn.py``); with dropout between
layers in training mode it runs one layer per kernel with ``F.dropout`` in between. A
PackedSequence runs on its padded, length-sorted form with a per-sequence length mask and
is packed again; final states are those at each sequence's true length. The padded form
is the batch the sequence was packed from, masked, where ``nn.utils.rnn`` remembers it
(see there): no kernel then depends on the packed data's length.

A packed batch longer than ``_CHUNK`` steps runs in chunks of ``_CHUNK`` steps, the state
carried from one kernel call to the next (the reverse direction from the last chunk to the
first). XLA compiles a kernel per sequence length, and a packed batch's length is that of
its longest sequence, so whole-sequence kernels meant compiling forward and backward again
for nearly every batch (about 0.35 s per layer for a small LSTM); chunks compile once.
The last chunk is padded to full length: the length mask keeps the state and zeroes the
output there, so results are those of one whole-sequence kernel.

Differences from PyTorch: ``flatten_parameters()`` does nothing (there is no cuDNN weight
buffer); ``_flat_weights`` is always read from the current parameters.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

import jtorch

from ...eager.bind import bound
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, _host_lengths, _unpack, pack_padded_sequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_CHUNK = 16  # time steps per kernel call for packed batches longer than this (see above)


def _padded_steps(steps: int) -> int:
    """A packed batch's padded length: its own up to ``_CHUNK``, else whole chunks."""
    return steps if steps <= _CHUNK else -(-steps // _CHUNK) * _CHUNK


def _chunks(run, pieces: list, hx: tuple, flat, rel: list, reverse: bool, **kw) -> tuple:
    """One stack over ``pieces`` (time-major chunks), a kernel call per chunk with each
    chunk's own lengths ``rel``: (the chunks' outputs, final states)."""
    outs = [None] * len(pieces)
    state = hx
    for k in (reversed(range(len(pieces))) if reverse else range(len(pieces))):
        out = run(pieces[k], state, flat, rel[k], reverse=reverse, **kw)
        outs[k], state = out[0], out[1:]
    return outs, state

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _check_config(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                  proj_size) -> None:
    if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or \
            isinstance(dropout, bool):
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}", stacklevel=4)
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int),
                              ("hidden_size", hidden_size, int)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                            f"{type(value).__name__}")
    if input_size <= 0:
        raise ValueError("input_size must be greater than zero")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNNBase(Module):
    """The shared machinery of RNN, LSTM and GRU (``mode`` is RNN_TANH, RNN_RELU, LSTM or
    GRU)."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None,
                 dtype=None) -> None:
        super().__init__()
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        _check_config(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                      proj_size)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional = float(dropout), bidirectional
        self.proj_size = proj_size
        kw = dict(device=device, dtype=dtype)
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        dirs = 2 if bidirectional else 1
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            for direction in range(dirs):
                layer_input = input_size if layer == 0 else real_hidden * dirs
                shapes = [("weight_ih_l{}{}", (gate_size, layer_input)),
                          ("weight_hh_l{}{}", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr_l{}{}", (proj_size, hidden_size)))
                suffix = "_reverse" if direction == 1 else ""
                names = []
                for fmt, shape in shapes:
                    name = fmt.format(layer, suffix)
                    setattr(self, name, Parameter(jtorch.empty(shape, **kw)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op: jtorch keeps no fused weight buffer."""

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    # ------------------------------------------------------------------ checks

    def check_input(self, input, batch_sizes) -> None:
        from ...amp.autocast_mode import is_any_autocast_enabled

        w = self._flat_weights[0]
        if input.dtype != w.dtype and not is_any_autocast_enabled():
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). "
                f"Convert input: input.to({w.dtype}), or convert model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def _batch(self, input, batch_sizes) -> int:
        if batch_sizes is not None:
            return int(_host_lengths(batch_sizes)[0])  # no kernel per packed length
        return input.size(0) if self.batch_first else input.size(1)

    def get_expected_hidden_size(self, input, batch_sizes) -> tuple[int, int, int]:
        dirs = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * dirs, self._batch(input, batch_sizes), size)

    def check_hidden_size(self, hx, expected_hidden_size,
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    # ------------------------------------------------------------------ running

    def _zeros(self, input, batch: int, size: int):
        dirs = 2 if self.bidirectional else 1
        return jtorch.zeros(self.num_layers * dirs, batch, size, dtype=input.dtype,
                            device=input.device)

    def _run(self, x, hx: tuple, lengths, batch_first: bool) -> tuple:
        """(output, h_n[, c_n]) of the stack on 3-D ``x``; ``hx`` is (h0,) or (h0, c0)."""
        if lengths is not None and x.size(0) > _CHUNK:
            return self._run_chunked(x, hx, lengths)
        run = bound("_rnn")
        statics = dict(mode=self.mode, bidirectional=self.bidirectional,
                       batch_first=batch_first, has_biases=self.bias, proj_size=self.proj_size)
        flat = self._flat_weights
        extra = () if lengths is None else (lengths,)
        if not (self.training and self.dropout > 0 and self.num_layers > 1):
            return run(x, hx, flat, *extra, num_layers=self.num_layers, **statics)
        dirs = 2 if self.bidirectional else 1
        per = len(flat) // (self.num_layers * dirs)
        finals = [[] for _ in hx]
        for layer in range(self.num_layers):
            rows = slice(layer * dirs, (layer + 1) * dirs)
            out = run(x, tuple(h[rows] for h in hx), flat[layer * dirs * per:][:dirs * per],
                      *extra, num_layers=1, **statics)
            x = out[0]
            if layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
            for acc, h in zip(finals, out[1:], strict=True):
                acc.append(h)
        return (x, *(jtorch.cat(acc) for acc in finals))

    def _run_chunked(self, x, hx: tuple, lengths) -> tuple:
        """``_run`` of a long packed batch (time-major, a whole number of chunks)."""
        run = bound("_rnn")
        statics = dict(mode=self.mode, batch_first=False, has_biases=self.bias,
                       proj_size=self.proj_size)
        host = np.asarray(lengths.tolist(), dtype=np.int64)
        rel = [jtorch.tensor(np.clip(host - k * _CHUNK, 0, _CHUNK))
               for k in range(x.size(0) // _CHUNK)]
        flat = self._flat_weights
        if jtorch.is_grad_enabled() and not any(h.requires_grad for h in hx) and any(
                w.requires_grad for w in flat):
            # Later chunks' states need a gradient, so the first chunk's kernel is the same
            # one when its state does too: one kernel (and one backward) to compile, not two.
            # The gradient lands on these internal leaves and is dropped with them.
            hx = tuple(h.detach().requires_grad_() for h in hx)
        dropout = self.training and self.dropout > 0 and self.num_layers > 1
        pieces = list(x.split(_CHUNK))
        if not (self.bidirectional or dropout):  # every layer in each chunk's kernel
            outs, states = _chunks(run, pieces, hx, flat, rel, False,
                                   num_layers=self.num_layers, bidirectional=False, **statics)
            return (jtorch.cat(outs), *states)
        # Between layers the output stays in chunks (directions joined and dropout drawn per
        # chunk): every kernel but the first split and the last join has a chunk's shape,
        # so a batch of a new length compiles only those two and their gradients.
        dirs = 2 if self.bidirectional else 1
        per = len(flat) // (self.num_layers * dirs)
        finals = [[] for _ in hx]
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                k = layer * dirs + d
                out, states = _chunks(run, pieces, tuple(h[k:k + 1] for h in hx),
                                      flat[k * per:(k + 1) * per], rel, d == 1, num_layers=1,
                                      bidirectional=False, **statics)
                outs.append(out)
                for acc, h in zip(finals, states, strict=True):
                    acc.append(h)
            pieces = outs[0] if dirs == 1 else [jtorch.cat(pair, 2) for pair in zip(*outs)]
            if dropout and layer < self.num_layers - 1:
                pieces = [F.dropout(p, self.dropout, True) for p in pieces]
        return (jtorch.cat(pieces), *(jtorch.cat(acc) for acc in finals))

    def _forward(self, input, hx: tuple | None, kind: str):
        """The shared forward; ``hx`` is a tuple of states or None. Returns (output, states)."""
        lstm = self.mode == "LSTM"
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        sizes = (real_hidden, self.hidden_size) if lstm else (self.hidden_size,)
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            batch = int(_host_lengths(batch_sizes)[0])
            if hx is None:
                hx = tuple(self._zeros(data, batch, s) for s in sizes)
            else:
                hx = tuple(self.permute_hidden(h, sorted_indices) for h in hx)
            self._check_all(data, hx, batch_sizes)
            padded, lengths = _unpack(input, False, 0.0, _padded_steps(len(batch_sizes)))
            out = self._run(padded, hx, lengths, False)
            packed = pack_padded_sequence(out[0], lengths)
            output = PackedSequence(packed.data, batch_sizes, sorted_indices, unsorted_indices)
            output._padded = packed._padded  # unpacking the output needs no gather either
            return output, tuple(self.permute_hidden(h, unsorted_indices) for h in out[1:])
        if input.dim() not in (2, 3):
            tensor = " tensor" if kind == "RNN" else ""
            raise ValueError(f"{kind}: Expected input to be 2D or 3D, got {input.dim()}D"
                             f"{tensor} instead")
        batched = input.dim() == 3
        if hx is not None:
            want = 3 if batched else 2
            if any(h.dim() != want for h in hx):
                got = ", ".join(f"{h.dim()}-D" for h in hx)
                which = "batched 3-D" if batched else "unbatched 2-D"
                raise RuntimeError(f"For {which} input, hx and cx should also be {want}-D but "
                                   f"got ({got}) tensors" if lstm else
                                   f"For {which} input, hx should also be {want}-D but got "
                                   f"{got} tensor")
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
            hx = None if hx is None else tuple(h.unsqueeze(1) for h in hx)
        if hx is None:
            hx = tuple(self._zeros(input, self._batch(input, None), s) for s in sizes)
        self._check_all(input, hx, None)
        out = self._run(input, hx, None, self.batch_first)
        output, states = out[0], out[1:]
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            states = tuple(h.squeeze(1) for h in states)
        return output, states

    def _check_all(self, input, hx, batch_sizes) -> None:
        if self.mode == "LSTM":
            self.check_forward_args(input, hx, batch_sizes)
        else:
            self.check_forward_args(input, hx[0], batch_sizes)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu)."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        output, (h,) = self._forward(input, None if hx is None else (hx,), "RNN")
        return output, h


class LSTM(RNNBase):
    """Long short-term memory (gates i, f, g, o), optionally with a projection of h."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes) -> tuple[int, int, int]:
        dirs = 2 if self.bidirectional else 1
        return (self.num_layers * dirs, self._batch(input, batch_sizes), self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def forward(self, input, hx=None):
        output, (h, c) = self._forward(input, None if hx is None else tuple(hx), "LSTM")
        return output, (h, c)


class GRU(RNNBase):
    """Gated recurrent unit (gates r, z, n; the reset gate scales W_hn h + b_hn)."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        output, (h,) = self._forward(input, None if hx is None else (hx,), "GRU")
        return output, h


# ---------------------------------------------------------------------- cells


class RNNCellBase(Module):
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        kw = dict(device=device, dtype=dtype)
        self.weight_ih = Parameter(jtorch.empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(jtorch.empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(jtorch.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(jtorch.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _cell(self, fn, name, input, hx, states: int):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        hs = () if hx is None else ((hx,) if states == 1 else tuple(hx))
        for i, h in enumerate(hs):
            if h.dim() not in (1, 2):
                what = "hidden" if states == 1 else f"hx[{i}]"
                raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {h.dim()}D "
                                 "instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
            hs = tuple(h.unsqueeze(0) for h in hs)
        if not hs:
            zeros = jtorch.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                                 device=input.device)
            hs = (zeros,) * states
        out = fn(input, hs[0] if states == 1 else hs, self.weight_ih, self.weight_hh,
                 self.bias_ih, self.bias_hh)
        if batched:
            return out
        return out.squeeze(0) if states == 1 else tuple(o.squeeze(0) for o in out)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN (tanh or relu)."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if self.nonlinearity == "tanh":
            fn = jtorch.rnn_tanh_cell
        elif self.nonlinearity == "relu":
            fn = jtorch.rnn_relu_cell
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._cell(fn, "RNNCell", input, hx, 1)


class LSTMCell(RNNCellBase):
    """One LSTM step; ``hx`` is (h, c) and the result is (h', c')."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        return self._cell(jtorch.lstm_cell, "LSTMCell", input, hx, 2)


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        return self._cell(jtorch.gru_cell, "GRUCell", input, hx, 1)
