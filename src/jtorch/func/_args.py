"""Argument plumbing shared by the transforms: argnums, differentiated leaves, outputs."""

from __future__ import annotations

from ..eager.tensor import Tensor
from ._core import is_float, to_arrays, to_tensors, tree_flatten, tree_unflatten


def check_argnums(argnums, n_args: int):
    """PyTorch's argnums validation; returns a tuple of non-negative positions."""
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        nums = (argnums,)
    elif isinstance(argnums, tuple) and all(isinstance(a, int) for a in argnums):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        nums = argnums
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    out = []
    for a in nums:
        if not -n_args <= a < n_args:
            raise RuntimeError(f"Got argnum={a}, but only {n_args} positional inputs")
        out.append(a % n_args)
    if len(set(out)) != len(out):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(out)


def _NOT_FLOAT(leaf):
    return RuntimeError("only Tensors of floating point dtype can require gradients")


class Diff:
    """The differentiated arguments of a call: flat tensor leaves and how to put them back."""

    def __init__(self, args, argnums, *, not_float=None):
        self.args, self.single = args, isinstance(argnums, int)
        self.nums = check_argnums(argnums, len(args))
        self.leaves, self.defs = [], []
        for i in self.nums:
            leaves, treedef = tree_flatten(args[i])
            for leaf in leaves:
                if not isinstance(leaf, Tensor):
                    raise ValueError(f"Thing passed to transform API must be Tensor, got "
                                     f"{type(leaf)}")
                if not is_float(leaf.dtype):
                    raise (not_float or _NOT_FLOAT)(leaf)
            self.leaves += leaves
            self.defs.append((treedef, len(leaves)))

    def call_args(self, arrays):
        """The arguments with the differentiated leaves replaced by tensors of ``arrays``."""
        args = list(self.args)
        it = iter(to_tensors(list(arrays)))
        for i, (treedef, n) in zip(self.nums, self.defs, strict=True):
            args[i] = tree_unflatten(treedef, [next(it) for _ in range(n)])
        return args

    def structure(self, flat):
        """Per-leaf values (``flat``) in the structure of the differentiated arguments."""
        it = iter(flat)
        per_arg = tuple(tree_unflatten(treedef, [next(it) for _ in range(n)])
                        for treedef, n in self.defs)
        return per_arg[0] if self.single else per_arg


def tensor_leaves(tree, error):
    """Leaves of ``tree``, all tensors, else ``error(leaf)`` is raised."""
    leaves, treedef = tree_flatten(tree)
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise error(leaf)
    return leaves, treedef


def split_aux(out, has_aux: bool, api: str):
    """``(output, aux)`` of a function with ``has_aux``; aux leaves must be tensors."""
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    out, aux = out
    tensor_leaves(aux, lambda x: RuntimeError(f"Expected tensors, got unsupported type "
                                              f"{type(x)}"))
    return out, to_arrays(aux)
