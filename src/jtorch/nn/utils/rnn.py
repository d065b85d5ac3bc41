"""Packed and padded sequences for RNNs.

Packing and unpacking are single gathers (over a flattened batch, or the packed rows and a
padding row, with an index computed on the host from the lengths), so both are
differentiable like PyTorch's.

A packed batch's data has as many rows as its lengths add up to, so every kernel that
reads or writes it compiles again for each new total (a text model's every batch). A
``PackedSequence`` made by ``pack_padded_sequence`` therefore remembers the padded batch
it was gathered from: unpacking it (``pad_packed_sequence``, and an RNN reading its
input) masks that batch's padding instead of gathering the data, in kernels of the
padded shape only, with the same values and gradients. The data (the
``PackedSequence``'s first field) is deferred (``eager/deferred.py``): gathered, in a
kernel of the packed size, only when something reads it. Written in place since (the
batch or the data), or with a hook or ``retain_grad`` on the data, a sequence unpacks
from its data as before. (The sequence keeps its padded batch alive as long as it lives.)

Differences from PyTorch: ``unpad_sequence`` does not transpose its input in place.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import _kernels
from ...eager.bind import bound
from ...eager.deferred import deferred
from ...eager.tensor import Tensor, wrap

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pack_sequence",
           "pad_packed_sequence", "pad_sequence", "unpack_sequence", "unpad_sequence"]


def _jt():
    import jtorch

    return jtorch


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def _bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """Time-major packed data of a batch of variable-length sequences."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, list | tuple) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                "be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn. https://pytorch.org/"
                "docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> PackedSequence:
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self

        def move(t):
            return t.to(data.device)

        return type(self)(data, self.batch_sizes, _bind(self.sorted_indices, move),
                          _bind(self.unsorted_indices, move))

    def cuda(self, *args, **kwargs) -> PackedSequence:
        kwargs.setdefault("device", "cuda")
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs) -> PackedSequence:
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=_jt().float64)

    def float(self):
        return self.to(dtype=_jt().float32)

    def half(self):
        return self.to(dtype=_jt().float16)

    def long(self):
        return self.to(dtype=_jt().int64)

    def int(self):
        return self.to(dtype=_jt().int32)

    def short(self):
        return self.to(dtype=_jt().int16)

    def char(self):
        return self.to(dtype=_jt().int8)

    def byte(self):
        return self.to(dtype=_jt().uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation):
    if permutation is None:
        return None
    jt = _jt()
    n = permutation.numel()
    return jt.empty_like(permutation).scatter_(0, permutation, jt.arange(n))


def _host_lengths(lengths) -> np.ndarray:
    if isinstance(lengths, Tensor):
        return np.asarray(lengths._value).astype(np.int64).reshape(-1)
    return np.asarray(list(lengths), dtype=np.int64).reshape(-1)


def _pack(input, lengths: np.ndarray, batch_first: bool):
    """ATen's ``_pack_padded_sequence``: (data, batch_sizes) of a padded batch. The data is
    deferred (``eager/deferred.py``): gathered when something reads it, which the RNNs and
    ``pad_packed_sequence`` do not (see the module's docstring)."""
    jt = _jt()
    if input.numel() <= 0:
        raise RuntimeError("Cannot pack empty tensors.")
    steps, batch = (input.shape[1], input.shape[0]) if batch_first else input.shape[:2]
    if len(lengths) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lengths)} (batch_size={batch})")
    if lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if (np.diff(lengths) > 0).any():
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
            "to sidestep this requirement if you do not need ONNX exportability.")
    if lengths[0] > steps:
        raise RuntimeError(f"Expected sequence length to be at most {steps}, but got "
                           f"{lengths[0]}")  # PyTorch reads past the end here
    batch_sizes = (lengths[None, :] > np.arange(lengths[0])[:, None]).sum(1)
    idx = np.concatenate([t * batch + np.arange(b) for t, b in enumerate(batch_sizes)])
    operands = {"input": input, "index": jt.tensor(idx)}
    data = deferred("_pack_padded", operands, (batch_first,), (len(idx), *input.shape[2:]))
    if data is None:
        data = bound("_pack_padded")(*operands.values(), batch_first=batch_first)
    return data, jt.tensor(batch_sizes.astype(np.int64))


def _remember(packed: PackedSequence, padded, lengths: np.ndarray, batch_first: bool):
    """Note on ``packed`` the (length-sorted) padded batch its data was gathered from."""
    packed._padded = (padded, padded._version, packed.data, packed.data._version, lengths,
                      batch_first)
    return packed


def _padded_form(sequence, steps: int, padding_value: float):
    """``sequence`` unpacked (time-major, sorted, ``steps`` long) from the padded batch it
    was packed from, its padding masked with ``padding_value``; None where that batch is
    unknown or no longer holds the data's values (see the module's docstring)."""
    jt = _jt()
    memo = getattr(sequence, "_padded", None)
    if memo is None:
        return None
    padded, version, data, data_version, lengths, batch_first = memo
    if (data is not sequence.data or data._version != data_version or
            padded._version != version or not data.is_floating_point()):
        return None
    node = data.grad_fn
    if node is not None and (data._retains_grad or node._pre_hooks):
        return None  # the user watches the data's gradient: it must flow through the data
    x = padded.transpose(0, 1) if batch_first else padded
    have = x.shape[0]
    if steps <= have:
        x = x[:steps]
    else:
        x = jt.nn.functional.pad(x, (0, 0) * (x.dim() - 1) + (0, steps - have))
    pad = np.arange(steps)[:, None] >= lengths[None, :]
    return x.masked_fill(jt.tensor(pad.reshape(pad.shape + (1,) * (x.dim() - 2))),
                         padding_value)


def pack_padded_sequence(input, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch (``T x B x *``, or ``B x T x *`` with ``batch_first``)."""
    jt = _jt()
    host = _host_lengths(lengths)
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-host, kind="stable")
        host = host[order]
        sorted_indices = jt.tensor(order.astype(np.int64))
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack(input, host, batch_first)
    return _remember(PackedSequence(data, batch_sizes, sorted_indices, None), input, host,
                     batch_first)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length: int | None = None):
    """Inverse of ``pack_padded_sequence``: (padded batch, lengths as an int64 tensor)."""
    padded, lengths = _unpack(sequence, batch_first, padding_value, total_length)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices]
    return padded, lengths


def _unpack(sequence: PackedSequence, batch_first: bool, padding_value: float,
            total_length: int | None):
    """``pad_packed_sequence`` in the sequence's sorted order (an RNN's own unpacking)."""
    jt = _jt()
    batch_sizes = np.asarray(sequence.batch_sizes._value).astype(np.int64)
    max_len = len(batch_sizes)
    if total_length is not None:
        if total_length < max_len:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{max_len}")
        max_len = total_length
    batch = int(batch_sizes[0])
    lengths = (batch_sizes[None, :] > np.arange(batch)[:, None]).sum(1)
    lengths = jt.tensor(lengths.astype(np.int64))
    padded = _padded_form(sequence, max_len, float(padding_value))
    if padded is not None:
        return (padded.transpose(0, 1) if batch_first else padded), lengths
    data = sequence.data
    src = np.full((max_len, batch), data.shape[0], dtype=np.int64)  # the padding row
    offset = 0
    for t, b in enumerate(batch_sizes):
        src[t, :b] = offset + np.arange(b)
        offset += b
    if batch_first:
        src = src.T
    padded = bound("_pad_packed")(data, jt.tensor(src), padding_value=float(padding_value))
    return padded, lengths


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack variable-length sequences into ``T x B x *`` (or ``B x T x *``), padded."""
    jt = _jt()
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    try:
        sequences = tuple(sequences)
    except TypeError:
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}") from None
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    first = sequences[0]
    lengths = [s.shape[0] for s in sequences]
    max_len, rest = max(lengths), tuple(first.shape[1:])
    for s in sequences[1:]:
        if tuple(s.shape[1:]) != rest:
            _raise_size_mismatch(rest, tuple(s.shape[1:]))
    host = _host_padded(sequences, lengths, max_len, rest, batch_first, padding_value,
                        padding_side)
    if host is not None:
        return host
    seqs = [s if s.dtype is first.dtype else s.to(first.dtype) for s in sequences]
    pad = jt.full((1, *rest), padding_value, dtype=first.dtype)
    total = sum(lengths)
    src = np.full((len(seqs), max_len), total, dtype=np.int64)
    offset = 0
    for i, n in enumerate(lengths):
        cols = np.arange(n) if padding_side == "right" else np.arange(max_len - n, max_len)
        src[i, cols] = offset + np.arange(n)
        offset += n
    if not batch_first:
        src = src.T
    out = jt.cat([*seqs, pad]).index_select(0, jt.tensor(src.reshape(-1)))
    return out.reshape((*src.shape, *rest))


def _host_padded(seqs, lengths, max_len, rest, batch_first, padding_value, padding_side):
    """``pad_sequence`` built by NumPy and transferred, where nothing needs a gradient and
    the host may build it (the CPU backend, outside a trace, nothing placed on a device):
    the kernels' way compiles a concatenation and a gather for every new batch shape, as a
    collate function's every new longest sequence is. None where it may not."""
    jt = _jt()
    first = seqs[0]
    if any(s.dtype is not first.dtype for s in seqs) or (
            jt.is_grad_enabled() and any(s.requires_grad for s in seqs)):
        return None
    values = [s._value for s in seqs]
    if not _kernels._on_host(*values):
        return None
    fill = np.asarray(jt.full((), padding_value, dtype=first.dtype)._value)  # full's cast
    out = np.full((len(seqs), max_len, *rest), fill, dtype=fill.dtype)
    for row, value, n in zip(out, values, lengths, strict=True):
        start = 0 if padding_side == "right" else max_len - n
        row[start:start + n] = np.asarray(value)
    if not batch_first:
        out = np.ascontiguousarray(out.swapaxes(0, 1))
    return wrap(_kernels.device_array(out))


def _raise_size_mismatch(want, got):
    for d in range(max(len(want), len(got))):
        a = want[-1 - d] if d < len(want) else 1
        b = got[-1 - d] if d < len(got) else 1
        if a != b:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b "
                               f"({b}) at non-singleton dimension {max(len(want), len(got)) - d}")
    raise RuntimeError(f"pad_sequence: trailing sizes {list(got)} differ from {list(want)}")


def unpad_sequence(padded_sequences, lengths, batch_first: bool = False) -> list[Tensor]:
    """The list of sequences ``pad_sequence`` stacked, cut to ``lengths``."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[: int(n)] for seq, n in zip(padded_sequences, _host_lengths(lengths),
                                             strict=True)]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of variable-length sequences (longest first unless not enforce_sorted)."""
    lengths = [v.size(0) for v in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """Inverse of ``pack_sequence``."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
