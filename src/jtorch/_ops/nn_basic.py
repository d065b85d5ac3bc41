"""Linear maps, embeddings, one-hot, normalization and distances (``nn/functional/_basic.py``
gives the F forms their PyTorch signatures and host-side checks)."""

from __future__ import annotations

from .. import _hostcheck
from .._registry import op
from ..functional import nn_basic as B

_F = dict(function=False, method=False)  # reached through torch.nn.functional


def _linear_name(statics, operands) -> str:
    ndim, bias = operands["input"].dim(), "bias" in operands
    if ndim == 2:
        return "AddmmBackward0" if bias else "MmBackward0"
    if ndim == 1:
        return "ViewBackward0" if bias else "SqueezeBackward4"
    return "ViewBackward0" if bias else "UnsafeViewBackward0"


def _check_embedding(operands, statics) -> None:
    """IndexError for rows outside the table, as torch's index_select raises."""
    bad = _bad_row(operands)
    if bad is not None:
        raise IndexError("index out of range in self")


def _check_embedding_bag(operands, statics) -> None:
    bad = _bad_row(operands)
    if bad is not None:
        raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found "
                           f"idx to be {bad}")


def _bad_row(operands):
    input, weight = operands["input"], operands["weight"]
    if input.dtype._kind != 1 or not input.numel() or weight.dim() != 2:
        return None
    value, key = input._value, ("rows", weight.shape[0])
    if _hostcheck.passed(value, key):
        return None
    host = _hostcheck.host(value)
    bad = host[(host < 0) | (host >= weight.shape[0])]
    if bad.size:
        return int(bad.flat[0])
    _hostcheck.remember(value, key)
    return None


op("linear", B.linear, grad_name=_linear_name, **_F)
op("bilinear", B.bilinear, method=False,
   grad_name=lambda s, o: "AddBackward0" if "bias" in o else "ViewBackward0")
op("embedding", B.embedding, static=("padding_idx", "scale_grad_by_freq", "sparse"), method=False,
   extra={"check": _check_embedding})
op("_embedding_renorm", B.embedding_renorm, static=("max_norm", "norm_type"),
   extra={"check": _check_embedding}, **_F)
op("embedding_bag", B.embedding_bag, grad_name="EmbeddingBagBackward0",
   static=("mode", "padding_idx", "include_last_offset", "scale_grad_by_freq"),
   extra={"check": _check_embedding_bag}, **_F)
op("one_hot", B.one_hot, static=("num_classes",), saves="none", **_F)
op("normalize", B.normalize, static=("p", "dim"), grad_name="DivBackward0", **_F)
op("cosine_similarity", B.cosine_similarity, static=("dim",), method=False,
   grad_name="SumBackward1")
op("pairwise_distance", B.pairwise_distance, static=("p", "keepdim"), method=False,
   grad_name="NormBackward1")
op("pdist", B.pdist, static=("p",), method=False, modules=("nn.functional",))
