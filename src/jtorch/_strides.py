"""Shape and stride arithmetic by torch's rules: pure Python on tuples.

Strides are metadata: the data lives in a Storage's base value, and a view reads it
through a chain of pure steps. These functions give every view the ``size``, ``stride``
and ``storage_offset`` PyTorch would report, and raise PyTorch's errors for bad views.
Each geometry function takes ``(shape, stride, offset, **args)`` and returns
``(shape, stride, offset, canonical_args)``; the canonical args key the view's kernels.
"""

from __future__ import annotations

import math
import operator

from jax.export import is_symbolic_dim


def contiguous_strides(shape) -> tuple[int, ...]:
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(out))


def is_contiguous(shape, stride) -> bool:
    """torch's rule: size-1 dimensions are ignored, and empty tensors are contiguous."""
    if 0 in shape:
        return True
    expected = 1
    for size, st in zip(reversed(shape), reversed(stride), strict=False):
        if size != 1:
            if st != expected:
                return False
            expected *= size
    return True


def is_non_overlapping_and_dense(shape, stride) -> bool:
    if len(shape) == 1:
        return shape[0] < 2 or stride[0] == 1
    expected = 1
    for d in sorted(range(len(shape)), key=lambda d: (stride[d], shape[d])):
        if shape[d] == 1:
            continue
        if stride[d] != expected:
            return False
        expected *= shape[d]
    return True


def has_internal_overlap(shape, stride) -> bool:
    """True when two elements share memory (a stride-0 dimension of size > 1).

    Like PyTorch, other overlaps (``as_strided`` windows, overlapping ``unfold``) count as
    "too hard to tell" and are let through.
    """
    return any(st == 0 and sz > 1 for sz, st in zip(shape, stride, strict=False))


def overlap_status(a, b) -> str:
    """PyTorch's ``get_overlap_status`` for two ``(shape, stride, offset)`` of one storage.

    "full" (same elements, same order), "partial", "no" or "too_hard" (either is not
    non-overlapping and dense, so PyTorch does not try).
    """
    (sa, sta, oa), (sb, stb, ob) = a, b
    na, nb = math.prod(sa), math.prod(sb)
    if not na or not nb:
        return "no"
    if not (is_non_overlapping_and_dense(sa, sta) and is_non_overlapping_and_dense(sb, stb)):
        return "too_hard"
    if oa == ob and na == nb:
        return "full" if tuple(sta) == tuple(stb) else "partial"
    return "partial" if oa < ob + nb and ob < oa + na else "no"


def infer_dense_strides(shape, stride) -> tuple[int, ...]:
    """Dense strides in the memory order of ``stride`` (``empty_like``'s preserve_format).

    PyTorch's stable insertion sort: stride-0 dimensions keep their place, equal strides
    put the smaller size innermost.
    """

    def should_swap(d0, d1):
        s0, s1 = stride[d0], stride[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if shape[d0] > shape[d1] else 0

    return strides_in_order(shape, should_swap)


def insertion_order(n: int, should_swap) -> list[int]:
    """PyTorch's insertion sort of ``n`` dims, innermost first (``should_swap`` as below)."""
    perm = list(range(n - 1, -1, -1))  # perm[0] is the innermost dimension
    for i in range(1, n):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            cmp = should_swap(perm[d0], perm[d1])
            if cmp > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif cmp < 0:
                break
    return perm


def strides_in_order(shape, should_swap) -> tuple[int, ...]:
    """Dense strides for ``shape`` in the memory order PyTorch's insertion sort picks.

    ``should_swap(d0, d1)`` compares two dimensions: > 0 puts d1 inside d0, < 0 keeps the
    order and stops, 0 is undecided.
    """
    out, acc = [0] * len(shape), 1
    for d in insertion_order(len(shape), should_swap):
        out[d] = acc
        acc *= max(shape[d], 1)
    return tuple(out)


def wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not isinstance(dim, int) or isinstance(dim, bool):  # PyTorch takes no bool for a dim
        raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def int_sizes(shape) -> tuple:
    """A requested shape's sizes as ints, by PyTorch's parser rules for a list of ints:
    each an int or an object with ``__index__`` (a NumPy integer, an integer 0-dim tensor),
    a bool only after the first element (read as 0 or 1); a float, a string or None is a
    TypeError (jtorch used to truncate floats). A jax.export symbolic dimension (torch.export's
    dynamic shapes) stays symbolic."""
    out = []
    for i, s in enumerate(shape):
        if type(s) is not int:
            if is_symbolic_dim(s):
                out.append(s)
                continue
            if (s is True or s is False) and i == 0:
                raise TypeError("size must be a tuple of ints, but found element of type bool "
                                "at pos 0")
            try:
                s = operator.index(s)
            except TypeError:
                raise TypeError(f"size must be a tuple of ints, but found element of type "
                                f"{type(s).__name__} at pos {i}") from None
        out.append(s)
    return tuple(out)


def infer_size(shape, numel: int) -> tuple[int, ...]:
    """Resolve one -1 in a requested shape; RuntimeError when numel cannot match."""
    shape = int_sizes(shape)
    known, infer = 1, None
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s >= 0:
            known *= s
        else:
            raise RuntimeError(
                f"invalid shape dimension {s} at index {i} of shape {list(shape)}"
            )
    if numel == known or (infer is not None and known > 0 and numel % known == 0):
        if infer is None:
            return shape
        if known == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        return shape[:infer] + (numel // known,) + shape[infer + 1 :]
    raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")


def view_strides(old_shape, old_stride, new_shape):
    """Strides for viewing old geometry as new_shape, or None when no view exists."""
    if not old_shape:
        return (1,) * len(new_shape)
    numel = math.prod(old_shape)
    if numel == 0:
        return tuple(old_stride) if tuple(old_shape) == tuple(new_shape) else contiguous_strides(
            new_shape
        )
    new_stride = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = old_stride[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (
            old_shape[tensor_d - 1] != 1
            and old_stride[tensor_d - 1] != tensor_numel * chunk_base
        ):
            # `!=` rather than `<`: equivalent here (a view_numel past tensor_numel only
            # grows and fails below) and decidable for symbolic sizes (torch.export).
            while view_d >= 0 and (view_numel != tensor_numel or new_shape[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base = old_stride[tensor_d - 1]
                tensor_numel = view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


# ---------------------------------------------------------------- view geometries


def g_view(shape, stride, offset, size):
    size = infer_size(size, math.prod(shape))
    new = view_strides(shape, stride, size)
    if new is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return size, new, offset, {"size": size}


def g_transpose(shape, stride, offset, dim0, dim1):
    n = len(shape)
    d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
    perm = list(range(n))
    if n:
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return _permuted(shape, stride, offset, perm, {"dim0": d0, "dim1": d1})


def g_t(shape, stride, offset):
    if len(shape) > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {len(shape)}D")
    perm = list(range(len(shape)))[::-1]
    return _permuted(shape, stride, offset, perm, {})


def g_permute(shape, stride, offset, dims):
    n = len(shape)
    if len(dims) != n:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal "
            f"to len(dims) = {len(dims)}"
        )
    perm = tuple(wrap_dim(d, n) for d in dims)
    if len(set(perm)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _permuted(shape, stride, offset, perm, {"dims": perm})


def _permuted(shape, stride, offset, perm, args):
    return (
        tuple(shape[p] for p in perm),
        tuple(stride[p] for p in perm),
        offset,
        args,
    )


def g_expand(shape, stride, offset, size):
    size = int_sizes(size)
    if len(size) < len(shape):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(shape)}}}, size={list(size)}): the number of sizes "
            "provided "
            f"({len(size)}) must be greater or equal to the number of dimensions in the tensor "
            f"({len(shape)})"
        )
    lead = len(size) - len(shape)
    out_shape, out_stride = [], []
    for i, want in enumerate(size):
        if i < lead:
            if want < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({want}) isn't allowed in a leading, "
                    "non-existing dimension 0"
                )
            out_shape.append(want)
            out_stride.append(0)
            continue
        have, st = shape[i - lead], stride[i - lead]
        if want == -1:
            want = have
        if have != want:
            if have != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({want}) must match the existing size "
                    f"({have}) at non-singleton dimension {i}.  Target sizes: {list(size)}.  "
                    f"Tensor sizes: {list(shape)}"
                )
            st = 0
        out_shape.append(want)
        out_stride.append(st)
    return tuple(out_shape), tuple(out_stride), offset, {"size": tuple(out_shape)}


def g_squeeze(shape, stride, offset, dim=None):
    n = len(shape)
    if dim is None:
        dims = tuple(i for i in range(n) if shape[i] == 1)
    else:
        wrapped = [wrap_dim(d, n) for d in ((dim,) if isinstance(dim, int) else dim)]
        for i, d in enumerate(wrapped):
            if d in wrapped[:i]:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        dims = tuple(sorted(d for d in wrapped if n and shape[d] == 1))
    keep = [i for i in range(n) if i not in dims]
    return (
        tuple(shape[i] for i in keep),
        tuple(stride[i] for i in keep),
        offset,
        {"dim": dims},
    )


def g_unsqueeze(shape, stride, offset, dim):
    d = wrap_dim(dim, len(shape) + 1)
    new_st = shape[d] * stride[d] if d < len(shape) else 1
    return (
        shape[:d] + (1,) + shape[d:],
        stride[:d] + (new_st,) + stride[d:],
        offset,
        {"dim": d},
    )


def g_select(shape, stride, offset, dim, index):
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, len(shape))
    size = shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(shape)} at "
            f"dimension {d}"
        )
    index %= size
    return (
        shape[:d] + shape[d + 1 :],
        stride[:d] + stride[d + 1 :],
        offset + index * stride[d],
        {"dim": d, "index": index},
    )


def g_narrow(shape, stride, offset, dim, start, length):
    if not shape:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, len(shape))
    size = shape[d]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return (
        shape[:d] + (length,) + shape[d + 1 :],
        stride,
        offset + start * stride[d],
        {"dim": d, "start": start, "length": length},
    )


def g_diagonal(shape, stride, offset, offset_=0, dim1=0, dim2=1):
    n = len(shape)
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    k = offset_
    if k >= 0:
        length = max(min(shape[d1], shape[d2] - k), 0)
        start = k * stride[d2]
    else:
        length = max(min(shape[d1] + k, shape[d2]), 0)
        start = -k * stride[d1]
    keep = [i for i in range(n) if i not in (d1, d2)]
    return (
        tuple(shape[i] for i in keep) + (length,),
        tuple(stride[i] for i in keep) + (stride[d1] + stride[d2],),
        offset + (start if length else 0),
        {"offset": k, "dim1": d1, "dim2": d2},
    )


def g_unfold(shape, stride, offset, dimension, size, step):
    n = len(shape)
    d = wrap_dim(dimension, n) if n else 0
    have = shape[d] if n else 1
    if size > have:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {have} but size is {size}"
        )
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    count = (have - size) // step + 1
    if not n:
        return (size,), (1,), offset, {"dimension": 0, "size": size, "step": step}
    return (
        shape[:d] + (count,) + shape[d + 1 :] + (size,),
        stride[:d] + (stride[d] * step,) + stride[d + 1 :] + (stride[d],),
        offset,
        {"dimension": d, "size": size, "step": step},
    )


def g_as_strided(shape, stride, offset, size, stride_, storage_offset=None):
    size, stride_ = tuple(int(s) for s in size), tuple(int(s) for s in stride_)
    if len(size) != len(stride_):
        raise RuntimeError(
            f"mismatch in length of strides and shape: {len(stride_)} vs {len(size)}"
        )
    if any(s < 0 for s in stride_):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment")
    off = offset if storage_offset is None else int(storage_offset)
    return size, stride_, off, {"size": size, "stride": stride_, "storage_offset": off}


def g_getitem(shape, stride, offset, index):
    """Basic indexing: ``index`` comes from ``normalize_basic_index``.

    The canonical args split the index into its structure (None, "i" for an int,
    ``(length, step)`` for a slice) and ``at``, the ints and slice starts: the kernels
    are keyed by the structure alone, so ``x[i]`` in a loop compiles once.
    """
    out_shape, out_stride, d = [], [], 0
    structure, at = [], []
    for item in index:
        if item is None:
            out_shape.append(1)
            out_stride.append(stride[d] * shape[d] if d < len(shape) else 1)
            structure.append(None)
        elif isinstance(item, int):
            offset += item * stride[d]
            structure.append("i")
            at.append(item)
            d += 1
        else:
            start, stop, step = item
            length = max(0, (stop - start + step - 1) // step)
            offset += start * stride[d]  # PyTorch moves the offset even for empty slices
            out_shape.append(length)
            out_stride.append(stride[d] * step)
            structure.append((length, step))
            at.append(start)
            d += 1
    return (
        tuple(out_shape) + tuple(shape[d:]),
        tuple(out_stride) + tuple(stride[d:]),
        offset,
        {"index": tuple(structure), "at": tuple(at)},
    )


def normalize_basic_index(index, shape):
    """Expand Ellipsis and wrap negatives: a hashable tuple of ints, None and slices.

    Slices become ``(start, stop, step)`` tuples (slice objects are unhashable before 3.12).
    Like PyTorch (unlike NumPy), several ellipses are allowed: each skips the dimensions
    the other items leave over, and an index that then runs past the last dimension
    raises.
    """
    if not isinstance(index, tuple):
        index = (index,)
    ndim = len(shape)
    n_real = sum(1 for i in index if i is not None and i is not Ellipsis)
    if n_real > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    out, d = [], 0
    for item in index:
        if item is Ellipsis:
            fill = ndim - n_real
            out.extend((0, shape[k], 1) for k in range(d, min(d + fill, ndim)))
            d += fill
            continue
        if d > ndim or (d == ndim and item is not None):
            raise IndexError(f"too many indices for tensor of dimension {ndim}")
        if item is None:
            out.append(None)
        elif isinstance(item, slice):
            step = 1 if item.step is None else item.step
            if step <= 0:
                raise ValueError("step must be greater than zero")
            start, stop, _ = slice(item.start, item.stop, 1).indices(shape[d])
            out.append((start, max(stop, start), step))
            d += 1
        else:
            size = shape[d]
            if not -size <= item < size:
                raise IndexError(
                    f"index {item} is out of bounds for dimension {d} with size {size}"
                )
            out.append(item % size)
            d += 1
    return tuple(out)
