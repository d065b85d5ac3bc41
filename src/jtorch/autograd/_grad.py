"""torch.autograd.grad, with ``is_grads_batched``: one backward per row of the grad_outputs.

PyTorch vmaps its backward over the leading dimension of every grad_output; jtorch runs
the backward once per row (retaining the graph between rows) and stacks the results,
which gives the same values, shapes and errors.
"""

from __future__ import annotations

from ..eager.autograd import engine
from ..eager.tensor import Tensor

_BATCH_SHAPE = (
    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the "
    "batch dimension. The sizes of the remaining dimensions are expected to match the shape "
    "of corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of "
    "{g} and output[{i}] has a shape of {o}. If you only want some tensors in `grad_output` "
    "to be considered batched, consider using vmap.")


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of ``outputs`` w.r.t. ``inputs``, without touching ``.grad``."""
    if not is_grads_batched:
        return engine.grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                           only_inputs, allow_unused, False, materialize_grads)
    outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    batch = _batch_size(outputs, grad_outputs)
    single = isinstance(inputs, Tensor)
    inputs = (inputs,) if single else tuple(inputs)
    grad_outputs = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
    keep = create_graph if retain_graph is None else retain_graph
    rows = [engine.grad(outputs, inputs, tuple(g[b] for g in grad_outputs),
                        True if b < batch - 1 else keep, create_graph, only_inputs,
                        allow_unused or materialize_grads)
            for b in range(batch)]
    from .. import stack, zeros_like

    out = []
    for k, x in enumerate(inputs):
        col = [r[k] for r in rows]
        if any(g is None for g in col):  # unused: materialized unbatched, as PyTorch does
            out.append(zeros_like(x) if materialize_grads else None)
        else:
            out.append(stack(col))
    return tuple(out)


def _batch_size(outputs, grad_outputs) -> int:
    if grad_outputs is None or isinstance(grad_outputs, Tensor):
        grad_outputs = (grad_outputs,)
    sizes = []
    for i, (o, g) in enumerate(zip(outputs, grad_outputs, strict=False)):
        if g is None or not g.dim():
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, "
                             "but that input is a Tensor of dimensionality 0 so expected in_dim "
                             "to satisfy 0 <= in_dim < 0.")
        if g.shape[1:] != o.shape:
            raise RuntimeError(_BATCH_SHAPE.format(i=i, g=g.shape, o=o.shape))
        sizes.append(g.shape[0])
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]
