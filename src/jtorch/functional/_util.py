"""Helpers shared by the functional op families: torch dtypes of JAX values, promotion."""

from __future__ import annotations

import numbers

import jax.numpy as jnp

from .. import _dtypes as D

_PY_KIND = {D.bool: False, D.int64: 0, D.float64: 0.0, D.complex128: 0j}


def dtype_of(x) -> D.dtype:
    """The torch dtype of a JAX value or Python scalar (scalars take torch's wrapped type)."""
    if isinstance(x, numbers.Number) and not hasattr(x, "dtype"):
        return D._scalar_dtype(x)
    return D.from_numpy_dtype(x.dtype)


def operand(x):
    """Describe a value for torch promotion: (dtype, ndim) for arrays, a Python scalar otherwise.

    Weakly typed JAX values (what a Python scalar becomes under ``jax.jit``) count as
    torch's wrapped numbers, so promotion gives the same answer traced or not.
    """
    if x is None:
        return None
    if isinstance(x, numbers.Number) and not hasattr(x, "dtype"):
        return x
    d = D.from_numpy_dtype(x.dtype)
    if getattr(x, "weak_type", False) and x.ndim == 0:
        return _PY_KIND.get(d, 0.0) if d._kind != 1 else 0
    return (d, x.ndim)


def result_type(*xs) -> D.dtype:
    """torch.result_type over JAX values and Python scalars."""
    return D.result_type_of([operand(x) for x in xs])


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """The broadcast of ``shapes``, folded left to right as torch does, with its RuntimeError."""
    out: tuple[int, ...] = ()
    for shape in shapes:
        n = max(len(out), len(shape))
        a = (1,) * (n - len(out)) + tuple(out)
        b = (1,) * (n - len(shape)) + tuple(shape)
        for i in range(n - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(
                    f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) "
                    f"at non-singleton dimension {i}"
                )
        out = tuple(y if x == 1 else x for x, y in zip(a, b, strict=True))
    return out


def promote(*xs):
    """torch's elementwise preamble: check broadcasting, then cast all operands to the result
    dtype. Returns ``(dtype, *arrays)``; ``None`` operands stay ``None``."""
    broadcast_shapes(*(jnp.shape(x) for x in xs if x is not None))
    dtype = result_type(*xs)
    return (dtype, *(None if x is None else cast(x, dtype) for x in xs))


def require_tensor(op: str, arg: str, pos: int, x) -> None:
    """torch's TypeError for a Python number where an op takes only tensors.

    Under jit a Python number arrives weakly typed; tensors' arrays never are.
    """
    if is_scalar(x) or (getattr(x, "weak_type", False) and x.ndim == 0):
        kind = type(x).__name__ if is_scalar(x) else {1: "int", 2: "float", 3: "complex"}.get(
            dtype_of(x)._kind, "bool")
        raise TypeError(f"{op}(): argument '{arg}' (position {pos}) must be Tensor, not {kind}")


def not_implemented(op: str, d: D.dtype) -> NotImplementedError:
    """torch's error for a kernel that has no implementation for dtype ``d``."""
    return NotImplementedError(f'"{op}" not implemented for \'{D.legacy_name(d)}\'')


def cast(x, d: D.dtype):
    """Cast a JAX value or Python scalar to torch dtype ``d`` (a strongly typed array)."""
    if d._kind >= 2 and hasattr(x, "dtype") and x.dtype.kind == "b":
        # XLA rewrites convert(mask) * y into select(mask, y, 0), losing torch's 0 * inf = nan;
        # a select of constants keeps the arithmetic honest.
        return jnp.where(x, jnp.ones((), d.np), jnp.zeros((), d.np))
    return jnp.asarray(x, dtype=d.np)


def is_scalar(x) -> bool:
    return isinstance(x, numbers.Number) and not hasattr(x, "dtype")


def norm_dim(dim: int, ndim: int) -> int:
    """Wrap a possibly negative dim; IndexError as torch raises for out-of-range dims, and
    TypeError for a bool (PyTorch's argument parser takes none for a dim)."""
    if isinstance(dim, bool):
        raise TypeError(f"dim must be an int, not bool (got {dim})")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def norm_dims(dim, ndim: int) -> tuple[int, ...]:
    """Normalize ``dim`` (None, int or sequence) to a sorted tuple; None means all dims."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    elif dim and dim[0] is not True and dim[0] is not False:
        # PyTorch's parser reads a bool after the first element of a dim list as an int
        dim = tuple(int(d) if d is True or d is False else d for d in dim)
    out = tuple(norm_dim(d, ndim) for d in dim)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {out} appears multiple times in the list of dims")
    return tuple(sorted(out))
