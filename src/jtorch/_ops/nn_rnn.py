"""Recurrent ops: whole RNN stacks (one kernel per configuration, reached through the
``nn.RNN``/``LSTM``/``GRU`` modules) and PyTorch's public cell functions."""

from __future__ import annotations

from .._registry import op
from ..functional import rnn as R

# The stack's gradient reads every step's state: kept, not rerun (OpSpec.residuals).
op("_rnn", R.rnn, function=False, method=False, grad_name="CatBackward0", residuals=True,
   static=("mode", "num_layers", "bidirectional", "batch_first", "has_biases", "proj_size",
           "reverse"))
# pad_packed_sequence's gather of the packed rows and its padding, one kernel per size where
# a concatenation and an index_select were two: a packed batch's size changes every batch.
op("_pad_packed", R.pad_packed, function=False, method=False, grad_name="CopySlices",
   static=("padding_value",), saves="none")
# pack_padded_sequence's gather of the padded batch's rows, in one kernel from the batch as
# given (time- or batch-major): a packed sequence's data is deferred until read
# (``eager/deferred.py``), and the batch then may be no view of anything.
op("_pack_padded", R.pack_padded, function=False, method=False,
   grad_name="PackPaddedSequenceBackward0", static=("batch_first",), saves="others")
op("rnn_tanh_cell", R.rnn_tanh_cell, method=False, grad_name="TanhBackward0")
op("rnn_relu_cell", R.rnn_relu_cell, method=False, grad_name="ReluBackward0")
op("lstm_cell", R.lstm_cell, method=False, grad_name="MulBackward0")
op("gru_cell", R.gru_cell, method=False, grad_name="AddBackward0")
