"""AdaptiveLogSoftmaxWithLoss (Grave et al., 2016): a head over the frequent classes and
one cluster per tail, each a low-rank projection, as PyTorch's module (same parameters,
state_dict keys and outputs)."""

from __future__ import annotations

import itertools
from collections import namedtuple

import jtorch

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Efficient softmax approximation for large output spaces; see PyTorch's docs."""

    def __init__(self, in_features: int, n_classes: int, cutoffs, div_value: float = 4.0,
                 head_bias: bool = False, device=None, dtype=None) -> None:
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, **kw),
                                        Linear(hsz, osz, bias=False, **kw)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def _batched(self, input_, target_):
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if targ_dim:
            return input_, target_
        return input_.unsqueeze(0), target_.unsqueeze(0)

    def forward(self, input_, target_) -> _ASMoutput:
        input, target = self._batched(input_, target_)
        used_rows, batch_size = 0, target.size(0)
        output = input.new_zeros(batch_size)
        gather_inds = target.new_empty(batch_size)
        cutoff_values = [0, *self.cutoffs]
        for i in range(len(cutoff_values) - 1):
            low_idx, high_idx = cutoff_values[i], cutoff_values[i + 1]
            target_mask = (target >= low_idx) & (target < high_idx)
            row_indices = target_mask.nonzero().squeeze()
            if row_indices.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, row_indices, target[target_mask])
            else:
                relative_target = target[target_mask] - low_idx
                cluster_output = self.tail[i - 1](input.index_select(0, row_indices))
                gather_inds.index_fill_(0, row_indices, self.shortlist_size + i - 1)
                cluster_logprob = F.log_softmax(cluster_output, dim=1)
                local_logprob = cluster_logprob.gather(1, relative_target.unsqueeze(1))
                output.index_copy_(0, row_indices, local_logprob.squeeze(1))
            used_rows += row_indices.numel()
        if used_rows != batch_size:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{target.min().item()}, "
                               f"{target.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output += head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if target_.dim() == 0:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, : self.shortlist_size] = head_logprob[:, : self.shortlist_size]
        for i, (start_idx, stop_idx) in enumerate(itertools.pairwise(self.cutoffs)):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start_idx:stop_idx] = cluster_logprob + head_logprob[
                :, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input):
        """Log-probabilities of every class, shape (N, n_classes)."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class per row (the full distribution only where needed)."""
        head_output = self.head(input)
        output = jtorch.argmax(head_output, dim=1)
        not_in_shortlist = output >= self.shortlist_size
        if not not_in_shortlist.any():
            return output
        if not_in_shortlist.all():
            return jtorch.argmax(self._get_full_log_prob(input, head_output), dim=1)
        log_prob = self._get_full_log_prob(input[not_in_shortlist],
                                           head_output[not_in_shortlist])
        output[not_in_shortlist] = jtorch.argmax(log_prob, dim=1)
        return output
