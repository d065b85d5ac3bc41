"""torch.func.vmap (and torch.vmap): ``jax.vmap`` of the user's function, with PyTorch's
``in_dims``/``out_dims`` rules, errors, ``chunk_size`` and ``randomness``.

Mapped inputs arrive as per-example tensors; unmapped ones (``in_dim=None``) and keyword
arguments are passed as they are. An output JAX finds unbatched is expanded to the batch
size (or returned as is for ``out_dim=None``). ``randomness="different"`` folds the
example's index into every random key, so a chunked call draws exactly what an unchunked
one draws; ``"same"`` draws one value for the batch; ``"error"`` raises on any draw.

Differences from PyTorch: outputs are new tensors, never views of the inputs; an in-place
write of a batched value into an unbatched tensor created inside the function succeeds
(the tensor becomes batched) where PyTorch raises.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax._src.interpreters.batching import infer as _INFER

from ..eager.tensor import Tensor
from ._core import (
    Level,
    evaluate,
    rewind_draws,
    run_user,
    to_tensors,
    tree_flatten,
    tree_unflatten,
)
from ._jac import _check_randomness

__all__ = ["vmap"]


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """``func`` mapped over a dimension of its inputs (``in_dims``), stacking outputs at
    ``out_dims``."""
    _check_randomness(randomness)
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _Call(func, in_dims, out_dims, randomness, chunk_size).run(args, kwargs)

    return wrapped


def _name(func) -> str:
    return getattr(func, "__name__", repr(func))


def _broadcast(dims, tree, is_dim):
    """``dims`` (a prefix of ``tree``) repeated over each of its subtree's leaves."""
    if is_dim(dims):
        return [dims] * len(tree_flatten(tree)[0])
    seq = (tuple, list)
    if (isinstance(dims, seq) and isinstance(tree, seq) and len(dims) == len(tree)
            and isinstance(dims, tuple) == isinstance(tree, tuple)):
        return [d for sub_d, sub in zip(dims, tree, strict=True)
                for d in _broadcast(sub_d, sub, is_dim)]
    if isinstance(dims, dict) and isinstance(tree, dict) and set(dims) == set(tree):
        # the order in which tree_flatten visits the dict's values
        keys = jax.tree_util.tree_structure(tree, is_leaf=lambda x: x is not tree).node_data()[1]
        return [d for k in keys for d in _broadcast(dims[k], tree[k], is_dim)]
    raise _Mismatch()


class _Mismatch(Exception):
    pass


def _is_dim(d) -> bool:
    return d is None or (isinstance(d, int) and not isinstance(d, bool))


class _Call:
    """One call of a vmapped function."""

    def __init__(self, func, in_dims, out_dims, randomness, chunk_size):
        self.func, self.in_dims, self.out_dims = func, in_dims, out_dims
        self.randomness, self.chunk_size = randomness, chunk_size
        self.name = _name(func)
        self.meta = {}

    def where(self, with_in_dims=True) -> str:
        if with_in_dims:
            return f"vmap({self.name}, in_dims={self.in_dims}, ...)(<inputs>)"
        return f"vmap({self.name}, ...)"

    def run(self, args, kwargs):
        leaves, treedef = tree_flatten(args)
        dims = self._in_dims(args, leaves)
        mapped = [i for i, d in enumerate(dims) if d is not None]
        sizes = [leaves[i].shape[dims[i]] for i in mapped]
        if not sizes:
            raise ValueError("vmap: Expected at least one Tensor to vmap over")
        if len(set(sizes)) != 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        self.leaves, self.treedef, self.dims, self.mapped = leaves, treedef, dims, mapped
        self.size, self.kwargs = sizes[0], kwargs
        flat = evaluate(self.program, [leaves[i] for i in mapped])
        out_leaves, out_def = self.meta["out"]
        it = iter(flat)
        return tree_unflatten(out_def, [next(it) if x is None else x for x in out_leaves])

    def _in_dims(self, args, leaves):
        if not args:
            raise ValueError(f"vmap({self.name})(<inputs>): got no inputs. Maybe you forgot to "
                             "add inputs, or you are trying to vmap over a function with no "
                             "inputs. The latter is unsupported.")
        if not (_is_dim(self.in_dims) and self.in_dims is not None
                or isinstance(self.in_dims, tuple)):
            raise ValueError(f"{self.where()}: expected `in_dims` to be int or a (potentially "
                             "nested) tuple matching the structure of inputs, got: "
                             f"{type(self.in_dims)}.")
        try:
            dims = _broadcast(self.in_dims, args, _is_dim)
        except _Mismatch:
            raise ValueError(f"{self.where()}: in_dims is not compatible with the structure of "
                             f"`inputs`. in_dims has structure {tree_flatten(self.in_dims)[1]} "
                             f"but inputs has structure {tree_flatten(args)[1]}.") from None
        out = []
        for d, x in zip(dims, leaves, strict=True):
            if d is not None:
                if not isinstance(x, Tensor):
                    raise ValueError(f"{self.where()}: Got in_dim={d} for an input but the input "
                                     f"is of type {type(x)}. We cannot vmap over non-Tensor "
                                     "arguments, please use None as the respective in_dim")
                nd = x.dim()
                if not -nd <= d < nd:
                    raise ValueError(f"{self.where()}: Got in_dim={d} for some input, but that "
                                     f"input is a Tensor of dimensionality {nd} so expected "
                                     f"in_dim to satisfy -{nd} <= in_dim < {nd}.")
                d %= nd
            out.append(d)
        return out

    # ------------------------------------------------------------ the JAX program

    def program(self, *vals):
        """The mapped tensors' values -> the flat tensor outputs, stacked at out_dims."""
        size, chunk = self.size, self.chunk_size or max(self.size, 1)
        in_axes = tuple(self.dims[i] for i in self.mapped)
        chunks = []
        for start in range(0, size, chunk) or [0]:
            stop = min(start + chunk, size)
            part = [jax.lax.slice_in_dim(v, start, stop, axis=a) if chunk < size else v
                    for v, a in zip(vals, in_axes, strict=True)]
            if start:
                rewind_draws()  # every chunk sees the draws the first one saw
            outs, axes = jax.vmap(self.body, in_axes=(*in_axes, 0), out_axes=_INFER)(
                *part, jnp.arange(start, stop))
            chunks.append(self._place(outs, axes, stop - start))
        if len(chunks) == 1:
            return chunks[0]
        return [c[0] if d is None else jnp.concatenate(c, axis=d)
                for d, c in zip(self.meta["dims"], zip(*chunks, strict=True), strict=True)]

    def body(self, *vals):
        *vals, index = vals
        leaves = list(self.leaves)
        for i, t in zip(self.mapped, to_tensors(list(vals)), strict=True):
            leaves[i] = t
        args = tree_unflatten(self.treedef, leaves)
        out = run_user(self.func, args, self.kwargs, Level("vmap", self.randomness, index))
        return self._outputs(out)

    def _outputs(self, out):
        leaves, out_def = tree_flatten(out)
        try:
            dims = _broadcast(self.out_dims, out, _is_dim)
        except _Mismatch:
            raise ValueError(f"vmap({self.name}, ..., out_dims={self.out_dims})(<inputs>): "
                             "out_dims is not compatible with the structure of `outputs`. "
                             f"out_dims has structure {tree_flatten(self.out_dims)[1]} but "
                             f"outputs has structure {out_def}.") from None
        kept, tensors, tdims = [], [], []
        for x, d in zip(leaves, dims, strict=True):
            if isinstance(x, Tensor):
                kept.append(None)
                tensors.append(x._value)
                tdims.append(d)
            elif d is None:
                kept.append(x)
            else:
                raise ValueError(f"{self.where(False)}: `{self.name}` must only return Tensors, "
                                 f"got type {type(x)}. Did you mean to set out_dims= to None "
                                 "for output?")
        self.meta["out"], self.meta["dims"] = (kept, out_def), tdims
        return tensors

    def _place(self, outs, axes, size):
        """Move each output's batch axis to its out_dim (or expand an unbatched one)."""
        placed = []
        for x, a, d in zip(outs, axes, self.meta["dims"], strict=True):
            if d is None:
                if a is not None:
                    raise ValueError(f"{self.where(False)}: `{self.name}` can not return a "
                                     "BatchedTensor when out_dim is None")
                placed.append(x)
                continue
            nd = x.ndim - (a is not None)
            if not -nd - 1 <= d <= nd:
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-nd - 1}, {nd}], but got {d})")
            d %= nd + 1
            if a is None:
                x = jnp.broadcast_to(jnp.expand_dims(x, d), x.shape[:d] + (size,) + x.shape[d:])
            else:
                x = jnp.moveaxis(x, a, d)
            placed.append(x)
        self.meta["dims"] = [None if d is None else d % (x.ndim) for d, x in
                             zip(self.meta["dims"], placed, strict=True)]
        return placed
