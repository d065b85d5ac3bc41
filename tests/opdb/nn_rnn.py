"""Op database entries: recurrent kernels (whole stacks through ``torch.lstm``/``gru``/
``rnn_tanh``/``rnn_relu`` on the torch side; module behaviour, packed sequences and dropout
are tested in test_nn_rnn.py) and PyTorch's public cell functions."""

from __future__ import annotations

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []
TOL = dict(rtol=1e-5, atol=1e-6)
_T, _B, _I, _H = 3, 2, 3, 4
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _params(mode, layers=1, dirs=1, bias=True, proj=0, dtype="float64"):
    g, real = _GATES[mode] * _H, proj or _H
    out = []
    for layer in range(layers):
        for _ in range(dirs):
            inp = _I if layer == 0 else real * dirs
            out += [tensor((g, inp), dtype), tensor((g, real), dtype)]
            if bias:
                out += [tensor((g,), dtype), tensor((g,), dtype)]
            if proj:
                out.append(tensor((proj, _H), dtype))
    return out


def _hx(mode, layers=1, dirs=1, proj=0, dtype="float64"):
    h = tensor((layers * dirs, _B, proj or _H), dtype)
    return [h, tensor((layers * dirs, _B, _H), dtype)] if mode == "LSTM" else [h]


def _sample(mode, layers=1, dirs=1, bias=True, proj=0, batch_first=False, dtype="float64"):
    shape = (_B, _T, _I) if batch_first else (_T, _B, _I)
    return S(tensor(shape, dtype), _hx(mode, layers, dirs, proj, dtype),
             _params(mode, layers, dirs, bias, proj, dtype), mode=mode, num_layers=layers,
             bidirectional=dirs == 2, batch_first=batch_first, has_biases=bias, proj_size=proj)


def _call(t, input, hx, params, mode="LSTM", num_layers=1, bidirectional=False,
          batch_first=False, has_biases=True, proj_size=0):
    """jtorch's kernel, or the matching torch.<mode> function."""
    if t.__name__ == "jtorch":
        from jtorch.eager.bind import bound

        return bound("_rnn")(input, hx, params, mode=mode, num_layers=num_layers,
                             bidirectional=bidirectional, batch_first=batch_first,
                             has_biases=has_biases, proj_size=proj_size)
    fn = {"LSTM": t.lstm, "GRU": t.gru, "RNN_TANH": t.rnn_tanh, "RNN_RELU": t.rnn_relu}[mode]
    h = hx if mode == "LSTM" else hx[0]
    return fn(input, h, params, has_biases, num_layers, 0.0, False, bidirectional, batch_first)


OPS += [
    OpInfo("_rnn", lambda: [
        _sample("LSTM", layers=2, dirs=2), _sample("LSTM", proj=2, batch_first=True),
        _sample("GRU", dirs=2, bias=False), _sample("RNN_TANH", layers=2),
        _sample("RNN_RELU", batch_first=True), _sample("GRU", dtype="float32"),
    ], lambda: [
        S(tensor((_T, _B, _I)), _hx("GRU", dtype="float32"), _params("GRU")),
    ], call=_call, tol=TOL),
]


def _pad_packed_call(t, data, index, padding_value=0.0):
    """jtorch's unpacking kernel, or the same gather written with torch.cat and indexing."""
    if t.__name__ == "jtorch":
        from jtorch.eager.bind import bound

        return bound("_pad_packed")(data, index, padding_value=padding_value)
    pad = t.full((1, *data.shape[1:]), padding_value, dtype=data.dtype)
    return t.cat([data, pad])[index]


OPS += [
    OpInfo("_pad_packed", lambda: [
        S(tensor((5, 3), "float64"), idx([[0, 1, 2], [3, 4, 5], [5, 5, 5]]), padding_value=0.0),
        S(tensor((4, 2, 2), "float32"), idx([[0, 2], [1, 3], [4, 4]]), padding_value=-1.5),
        S(tensor((3, 2), "int64"), idx([[0, 1], [2, 3]]), padding_value=7.0),
    ], call=_pad_packed_call, tol=TOL),
]


def _pack_padded_call(t, input, index, batch_first=False):
    """jtorch's packing kernel, or the same gather written with torch's reshape and indexing."""
    if t.__name__ == "jtorch":
        from jtorch.eager.bind import bound

        return bound("_pack_padded")(input, index, batch_first=batch_first)
    x = input.transpose(0, 1) if batch_first else input
    return x.reshape(-1, *x.shape[2:])[index]


OPS += [
    OpInfo("_pack_padded", lambda: [
        S(tensor((3, 2, 4), "float64"), idx([0, 1, 2, 3, 4]), batch_first=False),
        S(tensor((2, 3, 2), "float32"), idx([0, 1, 2, 3, 4]), batch_first=True),
        S(tensor((3, 2), "int64"), idx([0, 1, 2]), batch_first=False),
    ], call=_pack_padded_call, tol=TOL),
]


def _cell(name, mode, states=1):
    g = _GATES[mode] * _H

    def samples():
        def hx(shape, dtype):
            hs = [tensor(shape, dtype) for _ in range(states)]
            return hs[0] if states == 1 else hs

        x, w_ih, w_hh = tensor((_B, _I), "float64"), tensor((g, _I), "float64"), \
            tensor((g, _H), "float64")
        return [
            S(x, hx((_B, _H), "float64"), w_ih, w_hh, tensor((g,), "float64"),
              tensor((g,), "float64")),
            S(x, hx((_B, _H), "float64"), w_ih, w_hh),
            S(tensor((_B, _I)), hx((_B, _H), "float32"), tensor((g, _I)), tensor((g, _H)),
              b_hh=tensor((g,))),
        ]

    def errors():
        hx = [tensor((_B, _H)) for _ in range(states)]
        return [S(tensor((_B, _I + 1)), hx[0] if states == 1 else hx, tensor((g, _I)),
                  tensor((g, _H)))]

    return OpInfo(name, samples, errors, tol=TOL)


OPS += [_cell("rnn_tanh_cell", "RNN_TANH"), _cell("rnn_relu_cell", "RNN_RELU"),
        _cell("lstm_cell", "LSTM", 2), _cell("gru_cell", "GRU")]
