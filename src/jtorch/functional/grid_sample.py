"""``grid_sample`` (bilinear / nearest / bicubic; zeros / border / reflection padding) and
``affine_grid``, with PyTorch's coordinate arithmetic and gradient conventions."""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from ._util import dtype_of, not_implemented

_A = -0.75


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _clip(coord, size):
    # torch's clip_coordinates: the gradient is 0 at and beyond either bound.
    return jnp.where(coord <= 0, 0, jnp.where(coord >= size - 1, size - 1, coord))


def _reflect(coord, twice_low, twice_high):
    if twice_low == twice_high:
        return jnp.zeros_like(coord)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = coord - lo
    c = jnp.where(c < 0, -c, c)
    extra = jnp.fmod(c, span)
    flips = jnp.floor(c / span)
    return jnp.where(jnp.fmod(flips, 2) == 0, extra + lo, span - extra + lo)


def _pad_coord(coord, size, padding_mode, align_corners):
    if padding_mode == "border":
        return _clip(coord, size)
    if padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        return _clip(coord, size)
    return coord


def _gather(input, idx, sizes):
    """input (N, C, *sizes), idx: per-dim integer arrays (N, *out); zero outside."""
    inside = jnp.ones(idx[0].shape, bool)
    flat = jnp.zeros(idx[0].shape, jnp.int64)
    for i, size in zip(idx, sizes, strict=True):
        inside = inside & (i >= 0) & (i < size)
        flat = flat * size + jnp.clip(i, 0, size - 1)
    n, c = input.shape[:2]
    x = input.reshape(n, c, -1)
    g = jnp.take_along_axis(x, flat.reshape(n, 1, -1), axis=2).reshape(
        (n, c) + idx[0].shape[1:])
    return jnp.where(inside[:, None], g, jnp.zeros((), input.dtype))


def _cubic_weights(t):
    def cc1(x):
        return ((_A + 2) * x - (_A + 3)) * x * x + 1

    def cc2(x):
        return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A

    return [cc2(t + 1), cc1(t), cc1(1 - t), cc2(2 - t)]


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    d = dtype_of(input)
    if d._kind < 2 or d._kind == 3:
        raise not_implemented("grid_sampler_2d_cpu", d)
    n_sp = input.ndim - 2
    if input.ndim not in (4, 5) or grid.ndim != input.ndim or grid.shape[-1] != n_sp:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {n_sp} in last "
                           f"dimension, but got grid with sizes {list(grid.shape)}")
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if mode == "bicubic" and n_sp != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    sizes = input.shape[2:]
    # grid's last dim is (x, y[, z]): x indexes the LAST spatial dim.
    coords = [grid[..., n_sp - 1 - i].astype(d.np) for i in range(n_sp)]
    coords = [_unnormalize(c, s, align_corners) for c, s in zip(coords, sizes, strict=True)]
    if mode == "bicubic":
        return _bicubic(input, coords, sizes, padding_mode, align_corners).astype(d.np)
    coords = [_pad_coord(c, s, padding_mode, align_corners)
              for c, s in zip(coords, sizes, strict=True)]
    if mode == "nearest":
        idx = [jnp.round(c).astype(jnp.int64) for c in coords]
        return _gather(input, idx, sizes)
    lo = [jnp.floor(c) for c in coords]
    out = None
    for corner in range(2 ** n_sp):
        bits = [(corner >> (n_sp - 1 - i)) & 1 for i in range(n_sp)]
        w = None
        idx = []
        for b, c, f in zip(bits, coords, lo, strict=True):
            wi = (c - f) if b else (f + 1 - c)
            w = wi if w is None else w * wi
            idx.append(f.astype(jnp.int64) + b)
        term = _gather(input, idx, sizes) * w[:, None]
        out = term if out is None else out + term
    return out.astype(d.np)


def _bicubic(input, coords, sizes, padding_mode, align_corners):
    (iy, ix), (h, w) = coords, sizes
    fy, fx = jnp.floor(iy), jnp.floor(ix)
    wy, wx = _cubic_weights(iy - fy), _cubic_weights(ix - fx)
    out = None
    for a in range(4):
        for b in range(4):
            ty = _pad_coord(fy - 1 + a, h, padding_mode, align_corners)
            tx = _pad_coord(fx - 1 + b, w, padding_mode, align_corners)
            # torch truncates the padded tap coordinates to integers (static_cast)
            g = _gather(input, [ty.astype(jnp.int64), tx.astype(jnp.int64)], sizes)
            term = g * (wy[a] * wx[b])[:, None]
            out = term if out is None else out + term
    return out


def _base(steps, align_corners, dtype):
    if steps <= 1:
        return jnp.zeros((1,), dtype)
    r = jnp.linspace(-1, 1, steps, dtype=dtype)
    return r if align_corners else r * ((steps - 1) / steps)


def affine_grid_generator(theta, size, align_corners):
    """torch.affine_grid_generator: the (N, *spatial, k) sampling grid of ``theta``."""
    d = dtype_of(theta)
    if d._kind < 2:
        raise ValueError(f"Expected theta to have floating point type, but got "
                         f"{theta.dtype}")
    size = tuple(int(s) for s in size)
    k = len(size) - 2
    if k not in (2, 3):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {list(size)}.")
    if theta.ndim != 3 or theta.shape[1:] != (k, k + 1) or theta.shape[0] != size[0]:
        raise ValueError(f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} "
                         f"for size {list(size)}. Got {list(theta.shape)}.")
    spatial = size[2:]
    axes = [_base(s, align_corners, d.np) for s in reversed(spatial)]  # x, y[, z]
    mesh = jnp.meshgrid(*axes[::-1], indexing="ij")  # over (D,) H, W
    base = jnp.stack([*mesh[::-1], jnp.ones(spatial, d.np)], axis=-1).reshape(-1, k + 1)
    grid = jnp.einsum("pk,njk->npj", base, theta, precision=lax.Precision.HIGHEST)
    return grid.reshape((size[0], *spatial, k)).astype(d.np)
