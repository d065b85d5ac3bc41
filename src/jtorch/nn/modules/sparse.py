"""Embedding and EmbeddingBag.

Differences from PyTorch: ``sparse=True`` raises NotImplementedError in a forward that
records a gradient for the weight (jtorch has no sparse embedding gradients).
"""

from __future__ import annotations

import jtorch

from .. import functional as F
from .. import init
from ..functional._basic import _padding_idx
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding", "EmbeddingBag"]


def _table(self, num_embeddings, embedding_dim, _weight, _freeze, device, dtype):
    if _weight is None:
        weight = jtorch.empty((num_embeddings, embedding_dim), device=device, dtype=dtype)
        self.weight = Parameter(weight, requires_grad=not _freeze)
        self.reset_parameters()
    else:
        assert list(_weight.shape) == [num_embeddings, embedding_dim], (
            "Shape of weight does not match num_embeddings and embedding_dim")
        self.weight = Parameter(_weight, requires_grad=not _freeze)


class Embedding(Module):
    """A lookup table of ``num_embeddings`` rows, initialized N(0, 1) with the
    ``padding_idx`` row zeroed (that row gets no gradient)."""

    __constants__ = ["num_embeddings", "embedding_dim", "padding_idx", "max_norm",
                     "norm_type", "scale_grad_by_freq", "sparse"]

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx=None,
                 max_norm=None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight=None, _freeze: bool = False, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            padding_idx = _padding_idx(padding_idx, num_embeddings)
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        _table(self, num_embeddings, embedding_dim, _weight, _freeze, device, dtype)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            with jtorch.no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm,
                           self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = "{num_embeddings}, {embedding_dim}"
        if self.padding_idx is not None:
            s += ", padding_idx={padding_idx}"
        if self.max_norm is not None:
            s += ", max_norm={max_norm}"
        if self.norm_type != 2:
            s += ", norm_type={norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq={scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s.format(**self.__dict__)

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, padding_idx=None, max_norm=None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False):
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings,
                   _freeze=freeze, padding_idx=padding_idx, max_norm=max_norm,
                   norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class EmbeddingBag(Module):
    """Sums, means or maxima over bags of embeddings, without building the rows."""

    __constants__ = ["num_embeddings", "embedding_dim", "max_norm", "norm_type",
                     "scale_grad_by_freq", "mode", "sparse", "include_last_offset",
                     "padding_idx"]

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm=None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight=None, include_last_offset: bool = False,
                 padding_idx=None, device=None, dtype=None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            padding_idx = _padding_idx(padding_idx, num_embeddings)
        self.padding_idx = padding_idx
        _table(self, num_embeddings, embedding_dim, _weight, False, device, dtype)
        self.mode, self.sparse = mode, sparse
        self.include_last_offset = include_last_offset

    reset_parameters = Embedding.reset_parameters
    _fill_padding_idx_with_zero = Embedding._fill_padding_idx_with_zero

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset,
                               self.padding_idx)

    def extra_repr(self) -> str:
        s = "{num_embeddings}, {embedding_dim}"
        if self.max_norm is not None:
            s += ", max_norm={max_norm}"
        if self.norm_type != 2:
            s += ", norm_type={norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq={scale_grad_by_freq}"
        s += ", mode={mode}"
        if self.padding_idx is not None:
            s += ", padding_idx={padding_idx}"
        return s.format(**{k: repr(v) for k, v in self.__dict__.items()})

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, max_norm=None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        mode: str = "mean", sparse: bool = False,
                        include_last_offset: bool = False, padding_idx=None):
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings,
                  max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
