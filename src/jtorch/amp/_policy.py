"""Which ops autocast changes, and how: PyTorch 2.13's cast policies per device type.

PyTorch applies autocast at its dispatcher, so a composite op (einsum, tensordot, an RNN
cell, MultiheadAttention...) is affected through the listed ops it calls. jtorch's ops are
whole kernels, so each one is listed here with the policy its PyTorch counterpart shows
from the outside: the CPU lists were read off PyTorch 2.13 (CPU build) op by op, the CUDA
ones from ``aten/src/ATen/autocast_mode.h`` (AT_FORALL_LOWER_PRECISION_FP, AT_FORALL_FP32,
AT_FORALL_FP32_SET_OPT_DTYPE, norm's fp32_append_dtype, AT_FORALL_PROMOTE).

Policies: "lower" casts every eligible tensor (floating point, on the device type, not
float64) to the autocast dtype; "fp32" casts them to float32; "fp32_opt" passes
``dtype=torch.float32`` when the first input is eligible and no dtype was given; "promote"
casts them to the widest eligible dtype; "lower_out" runs in float32 and casts the result
(a composite of float32 steps ending in a matrix product, e.g. ``linalg.pinv``); "banned"
raises.
"""

from __future__ import annotations

import weakref

from .. import _dtypes as D
from ..eager.tensor import Tensor

_CONV = ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
         "conv_transpose3d")
_MATMUL = ("matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "linear", "prelu",
           "linalg_vecdot", "_einsum", "linalg_multi_dot", "_scaled_dot_product_attention")
_LINALG_FP32 = ("trace", "linalg_inv_ex", "linalg_cholesky_ex", "cholesky_solve", "linalg_qr",
                "qr", "linalg_eigh", "linalg_eigvalsh", "linalg_svd", "svd", "linalg_svdvals",
                "pinverse", "linalg_matrix_rank", "linalg_lstsq", "linalg_solve_ex", "cdist")
_LOSSES = ("cross_entropy", "nll_loss", "binary_cross_entropy_with_logits", "mse_loss",
           "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss",
           "cosine_embedding_loss", "margin_ranking_loss", "triplet_margin_loss",
           "hinge_embedding_loss", "soft_margin_loss", "multi_margin_loss",
           "multilabel_margin_loss")


def _rnn_cpu(statics):  # mkldnn's LSTM and the RNN cells run low; GRU's kernel does not
    return None if statics[0] == "GRU" else "lower"


def _pad_cpu(statics):  # reflection_pad1d/2d and replication_pad1d/2d/3d are listed
    pad, mode = statics[0], statics[1]
    if mode == "replicate" or (mode == "reflect" and len(pad) <= 4):
        return "fp32"
    return None


_CPU = {
    **dict.fromkeys(_CONV + _MATMUL, "lower"),
    **dict.fromkeys(("inner", "tensordot", "matrix_power", "_multi_head_attention",
                     "rnn_tanh_cell", "rnn_relu_cell", "affine_grid_generator"), "lower"),
    # Composites whose products run low but whose float32 hidden state promotes the result.
    **dict.fromkeys(("lstm_cell", "gru_cell"), "promote"),
    **dict.fromkeys(("linalg_pinv", "linalg_matrix_power"), "lower_out"),
    "_rnn": _rnn_cpu,
    **dict.fromkeys(_LINALG_FP32 + _LOSSES, "fp32"),
    **dict.fromkeys(("binary_cross_entropy", "ctc_loss", "avg_pool3d", "adaptive_avg_pool3d",
                     "max_pool3d_with_indices", "_max_unpool2d", "_grid_sample", "prod",
                     "quantile", "nanquantile"), "fp32"),
    "pad": _pad_cpu,
    **dict.fromkeys(("cat", "stack", "index_copy"), "promote"),
}


def _upsample_cuda(statics):  # upsample_{nearest,linear,bilinear,bicubic,trilinear}
    return None if statics[2] == "area" else "fp32"


_CUDA = {
    **dict.fromkeys(_CONV + _MATMUL, "lower"),
    **dict.fromkeys(("addmv", "addr", "mv", "lstm_cell", "gru_cell", "rnn_tanh_cell",
                     "rnn_relu_cell", "_rnn", "matrix_power", "affine_grid_generator"), "lower"),
    "_multi_head_attention": "lower_mha",
    **dict.fromkeys(("linalg_pinv", "linalg_matrix_power"), "lower_out"),
    **dict.fromkeys(("acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2",
                     "log1p", "reciprocal", "rsqrt", "sinh", "tan", "pow", "softplus",
                     "layer_norm", "group_norm", "cosine_similarity", "normalize", "dist",
                     "cdist", "logsumexp") + _LOSSES, "fp32"),
    "_upsample": _upsample_cuda,
    **dict.fromkeys(("prod", "softmax", "log_softmax", "cumprod", "cumsum",
                     "linalg_vector_norm", "linalg_matrix_norm", "sum", "norm"), "fp32_opt"),
    **dict.fromkeys(("addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot",
                     "_grid_sample", "_index_put", "tensordot", "scatter_add"), "promote"),
    "binary_cross_entropy": "banned",
}

POLICIES = {"cpu": _CPU, "cuda": _CUDA}

BANNED_MSG = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_"
    "logits\nor torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and "
    "BCEWithLogits are\nsafe to autocast.")


# ------------------------------------------------------------------ casting


class CastCache:
    """PyTorch's weight cache: lower-precision casts of float32 leaves that require grad,
    reused within an autocast region and dropped when the outermost region exits."""

    def __init__(self):
        self._casts: dict = {}

    def get(self, t: Tensor, dtype):
        hit = self._casts.get(id(t))
        if hit is not None and hit[0]() is t and hit[1].dtype is dtype:
            return hit[1]
        out = t.to(dtype)
        self._casts[id(t)] = (weakref.ref(t), out)
        return out

    def clear(self) -> None:
        self._casts.clear()


CACHE = CastCache()


def _eligible(x, device_type: str) -> bool:
    return (isinstance(x, Tensor) and x.dtype.is_floating_point and x.dtype is not D.float64
            and x._device.type == device_type)


def cast(x, dtype, device_type: str, use_cache: bool = False):
    """``x`` (a tensor, or a list/tuple of them) with its eligible tensors cast to ``dtype``."""
    if isinstance(x, list | tuple):
        return type(x)(cast(i, dtype, device_type, use_cache) for i in x)
    if not _eligible(x, device_type) or x.dtype is dtype:
        return x
    if (use_cache and x.dtype is D.float32 and x._requires_grad and x._grad_fn is None
            and x._base is None):
        return CACHE.get(x, dtype)
    return x.to(dtype)


def _leaves(vals):
    for v in vals:
        if isinstance(v, list | tuple):
            yield from v
        else:
            yield v


def promote_type(vals, lower, device_type: str):
    """PyTorch's ``promote_type``: float32 wins over the autocast dtype; float64 is ignored;
    any other floating dtype is an error."""
    current = lower
    for v in _leaves(vals):
        if not _eligible(v, device_type):
            continue
        if current is D.float32 or v.dtype is D.float32:
            current = D.float32
        elif v.dtype is not lower:
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


def device_type_of(vals) -> str | None:
    for v in _leaves(vals):
        if isinstance(v, Tensor):
            return v._device.type
    return None
