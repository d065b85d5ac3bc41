"""Matrix and vector products. torch does not promote here: mixed dtypes raise.

The float32 precision of every product comes from ``precision()``: full float32 unless
``jax_default_matmul_precision`` is set (``torch.set_float32_matmul_precision`` and
``torch.backends.cuda.matmul.allow_tf32`` set it). JAX keys its compiled kernels on that
setting, so a kernel is traced once per setting, never per call.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from .. import _dtypes as D
from ._util import (
    broadcast_shapes,
    cast,
    dtype_of,
    not_implemented,
    require_tensor,
    result_type,
)

_C_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
    "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def precision():
    """The JAX precision of a float32 product: HIGHEST (torch's "highest", its default),
    or None to let ``jax_default_matmul_precision`` (TF32/bf16 passes) decide."""
    return lax.Precision.HIGHEST if jax.config.jax_default_matmul_precision is None else None


def _mm(a, b):
    return jnp.matmul(a, b, precision=precision())


def _same_dtype(msg: str, *xs) -> D.dtype:
    d = dtype_of(xs[0])
    if any(dtype_of(x) is not d for x in xs[1:]):
        names = ", ".join(D.legacy_name(dtype_of(x)) for x in xs)
        raise RuntimeError(f"{msg}, but got {names}")
    return d


def _no_bool(d: D.dtype) -> None:
    if d is D.bool:
        raise not_implemented("addmm_impl_cpu_", d)


def _scaled(x, s):
    """``s * x`` in x's dtype (torch casts the Python scalar to the tensor's dtype)."""
    return x if s == 1 else x * jnp.asarray(s, dtype=x.dtype)


def matmul(input, other):
    """torch.matmul: numpy's dimensionality rules, no promotion, full float32 precision."""
    require_tensor("matmul", "input", 1, input)
    require_tensor("matmul", "other", 2, other)
    a, b = dtype_of(input), dtype_of(other)
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(
            "both arguments to matmul need to be at least 1D, but they are "
            f"{input.ndim}D and {other.ndim}D"
        )
    if a is not b:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_C_NAMES[a.name]} != "
            f"{_C_NAMES[b.name]}"
        )
    k1 = input.shape[-1]
    k2 = other.shape[-2] if other.ndim > 1 else other.shape[0]
    if k1 != k2:
        if input.ndim == 1 and other.ndim == 1:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{k1}] and src [{k2}] to have the "
                f"same number of elements, but got {k1} and {k2} elements respectively"
            )
        rows = input.shape[-2] if input.ndim > 1 else 1
        cols = other.shape[-1] if other.ndim > 1 else 1
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k1} and {k2}x{cols})"
        )
    if input.ndim > 2 or other.ndim > 2:
        broadcast_shapes(input.shape[:-2], other.shape[:-2])
    _no_bool(a)
    return _mm(input, other)


def mm(input, mat2):
    """torch.mm: the product of two matrices (no broadcasting, no promotion)."""
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return matmul(input, mat2)


def mv(input, vec):
    """torch.mv: matrix @ vector."""
    if input.ndim != 2 or vec.ndim != 1 or input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    _same_dtype("addmv input tensors must have the same dtype", input, vec)
    return matmul(input, vec)


def bmm(input, mat2):
    """torch.bmm: batched matrix products of two 3-D tensors with equal batch sizes."""
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, m = input.shape
    if mat2.shape[:2] != (b, m):
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{b}, {m}] but got: [{mat2.shape[0]}, {mat2.shape[1]}]."
        )
    return matmul(input, mat2)


def _add_scaled(msg, input, product, beta, alpha):
    """``beta * input + alpha * product``; beta == 0 ignores input (its NaNs too)."""
    _same_dtype(msg, input, product)
    shape = product.shape
    try:
        if broadcast_shapes(input.shape, shape) != shape:
            raise RuntimeError
    except RuntimeError:
        raise RuntimeError(
            f"The expanded size of the tensor ({shape[-1] if shape else 1}) must match the "
            f"existing size ({input.shape[-1] if input.ndim else 1}) at non-singleton dimension "
            f"{len(shape) - 1}.  Target sizes: {list(shape)}.  Tensor sizes: {list(input.shape)}"
        ) from None
    out = _scaled(product, alpha)
    if beta == 0:
        return out
    return _scaled(input, beta) + out


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """torch.addmm: ``beta * input + alpha * (mat1 @ mat2)``."""
    _same_dtype("self and mat2 must have the same dtype", input, mat1, mat2)
    return _add_scaled("self and mat2 must have the same dtype", input, mm(mat1, mat2), beta,
                       alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """torch.addmv: ``beta * input + alpha * (mat @ vec)``."""
    _same_dtype("addmv input tensors must have the same dtype", input, mat, vec)
    return _add_scaled("addmv", input, mv(mat, vec), beta, alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """torch.addr: ``beta * input + alpha * outer(vec1, vec2)``."""
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(
            f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D"
            if vec1.ndim != 1 else f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    from .elementwise import mul

    d = result_type(input, vec1, vec2)
    input = cast(input, d)
    product = mul(vec1[:, None], vec2[None, :]).astype(d.np)
    if d is D.bool:  # PyTorch's boolean addr: (beta and input) or (alpha and outer)
        return _add_scaled("addr", input & bool(beta), product & bool(alpha), 0, 1) | (
            input & bool(beta))
    return _add_scaled("addr", input, product, beta, alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """torch.baddbmm: ``beta * input + alpha * bmm(batch1, batch2)``."""
    _same_dtype("self and mat2 must have the same dtype", input, batch1, batch2)
    return _add_scaled("baddbmm", input, bmm(batch1, batch2), beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """torch.addbmm: ``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    _same_dtype("self and mat2 must have the same dtype", input, batch1, batch2)
    product = bmm(batch1, batch2).sum(0, dtype=batch1.dtype)
    return _add_scaled("addbmm", input, product, beta, alpha)


def dot(input, tensor):
    """torch.dot: the inner product of two 1-D tensors of one dtype."""
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D tensors")
    if dtype_of(input) is not dtype_of(tensor):
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{D.legacy_name(dtype_of(input))} and {D.legacy_name(dtype_of(tensor))}")
    return matmul(input, tensor)


def vdot(input, other):
    """torch.vdot: ``dot(conj(input), other)``."""
    return dot(jnp.conj(input), other)


def inner(input, other):
    """torch.inner: contraction over the last dimension of both."""
    if dtype_of(input) is not dtype_of(other):
        raise RuntimeError("both inputs should have same dtype")
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}")
    _no_bool(dtype_of(input))
    return jnp.tensordot(input, other, axes=(-1, -1), precision=precision())


def tensordot(a, b, dims=2):
    """torch.tensordot: contract ``dims`` trailing/leading dims, or the listed pairs."""
    if dtype_of(a) is not dtype_of(b):
        raise RuntimeError("both inputs should have same dtype")
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        axes = (tuple(range(a.ndim - dims, a.ndim)), tuple(range(dims)))
    else:
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
        axes = (tuple(d % max(a.ndim, 1) for d in da), tuple(d % max(b.ndim, 1) for d in db))
    for i, j in zip(*axes):
        if a.shape[i] != b.shape[j]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[i]} in dim "
                f"{i} and second has size {b.shape[j]} in dim {j}")
    return jnp.tensordot(a, b, axes=axes, precision=precision())


def einsum(equation, operands):
    """torch.einsum over a list of operands (one dtype, no promotion)."""
    d = dtype_of(operands[0])
    for x in operands[1:]:
        if dtype_of(x) is not d:
            raise RuntimeError(
                f"expected scalar type {D.legacy_name(d)} but found {D.legacy_name(dtype_of(x))}")
    n = equation.split("->")[0].count(",") + 1
    if n != len(operands):
        raise RuntimeError(
            "einsum(): more operands were provided than specified in the equation"
            if len(operands) > n else
            "einsum(): fewer operands were provided than specified in the equation")
    try:
        return jnp.einsum(equation, *operands, precision=precision(),
                          preferred_element_type=d.np)
    except ValueError as e:
        raise RuntimeError(f"einsum(): {e}") from None


def outer(input, vec2):
    """torch.outer (ger): the outer product of two vectors; promotes like mul."""
    from .elementwise import mul

    for name, x in (("self", input), ("vec2", vec2)):
        if x.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {x.ndim}-D")
    return mul(input[:, None], vec2[None, :])


def kron(input, other):
    """torch.kron: the Kronecker product; promotes like mul."""
    from .elementwise import mul

    n = max(input.ndim, other.ndim)
    a = input.reshape((1,) * (n - input.ndim) + input.shape)
    b = other.reshape((1,) * (n - other.ndim) + other.shape)
    prod = mul(a.reshape(sum(((s, 1) for s in a.shape), ())),
               b.reshape(sum(((1, s) for s in b.shape), ())))
    return prod.reshape(tuple(x * y for x, y in zip(a.shape, b.shape)))


def cross(input, other, dim=None):
    """torch.cross: the default dim is the first of size 3 (linalg.cross's is -1)."""
    if dim is None:
        shape = broadcast_shapes(input.shape, other.shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim)


def linalg_cross(input, other, *, dim=-1):
    """torch.linalg.cross: the 3-vector cross product along ``dim``, batch dims broadcast."""
    from ._util import norm_dim

    if dtype_of(input) is not dtype_of(other):
        raise RuntimeError(
            f"expected scalar type {D.legacy_name(dtype_of(input))} but found "
            f"{D.legacy_name(dtype_of(other))}")
    if input.ndim != other.ndim:
        raise RuntimeError(
            "linalg.cross: inputs must have the same number of dimensions.")
    shape = broadcast_shapes(input.shape, other.shape)
    d = norm_dim(dim, len(shape))
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} "
            f"and {other.shape[d]}")
    a, b = jnp.broadcast_to(input, shape), jnp.broadcast_to(other, shape)
    return jnp.moveaxis(jnp.cross(jnp.moveaxis(a, d, -1), jnp.moveaxis(b, d, -1)), -1, d)


def vecdot(x, y, *, dim=-1):
    """torch.linalg.vecdot: ``sum(conj(x) * y, dim)`` with broadcasting."""
    from ._util import norm_dim

    for t in (x, y):
        if dtype_of(t)._kind < 2:
            raise RuntimeError(
                "linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                f"{D.legacy_name(dtype_of(t))}")
    if dtype_of(x) is not dtype_of(y):
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{D.legacy_name(dtype_of(x))} and y of type {D.legacy_name(dtype_of(y))} instead")
    shape = broadcast_shapes(x.shape, y.shape)
    d = norm_dim(dim, len(shape))
    return jnp.sum(jnp.conj(x) * y, axis=d)


def multi_dot(tensors):
    """torch.linalg.multi_dot: first and last may be vectors; products in the cheapest order."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    for i, t in enumerate(tensors):
        ok = t.ndim == 2 or (t.ndim == 1 and i in (0, n - 1))
        if not ok:
            raise RuntimeError(
                f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D" if 0 < i < n - 1 else
                f"multi_dot(): the {'first' if i == 0 else 'last'} tensor must be 1D or 2D "
                f"but got {t.ndim}D")
    _same_dtype("multi_dot(): all tensors must have be the same dtype", *tensors)
    mats = [first.reshape(1, -1) if first.ndim == 1 else first, *tensors[1:-1],
            last.reshape(-1, 1) if last.ndim == 1 else last]
    for i in range(n - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i].shape)} and "
                f"{list(tensors[i + 1].shape)} cannot be multiplied")
    out = jnp.linalg.multi_dot(mats, precision=precision())
    if first.ndim == 1:
        out = out[0]
    if last.ndim == 1:
        out = out[..., 0]
    return out


def matrix_power(input, n):
    """torch.matrix_power: repeated squaring; negative ``n`` inverts first."""
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            f"{input.shape[-2] if input.ndim > 1 else 1} by {input.shape[-1]} matrices")
    if n == 0:
        return jnp.broadcast_to(jnp.eye(input.shape[-1], dtype=input.dtype), input.shape)
    if n < 0:
        if dtype_of(input)._kind < 2:
            raise RuntimeError(
                "linalg.inv: Expected a floating point or complex tensor as input. Got "
                f"{D.legacy_name(dtype_of(input))}")
        input, n = jnp.linalg.inv(input), -n
    result, base = None, input
    while n:
        if n & 1:
            result = base if result is None else _mm(result, base)
        n >>= 1
        if n:
            base = _mm(base, base)
    return result


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """torch.cdist: p-norm distances between the rows of x1 and x2 (batch dims broadcast)."""
    for name, x in (("X1", x1), ("X2", x2)):
        if dtype_of(x)._kind < 2:
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: "
                f"{D.legacy_name(dtype_of(x))}")
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if dtype_of(x1) is not dtype_of(x2):
        raise RuntimeError(
            f"expected scalar type {D.legacy_name(dtype_of(x1))} but found "
            f"{D.legacy_name(dtype_of(x2))}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
            f"{x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    batch = broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    diff = jnp.broadcast_to(diff, batch + diff.shape[-3:])
    from .linalg import vector_norm

    return vector_norm(diff, float(p), dim=-1)

