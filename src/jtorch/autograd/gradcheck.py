"""gradcheck/gradgradcheck: compare autograd's Jacobian with central finite differences."""

from __future__ import annotations

import numpy as np

from ..eager.autograd.engine import grad as _grad
from ..eager.autograd.grad_mode import no_grad
from ..eager.tensor import Tensor


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical gradients disagree."""


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _numerical(fn, inputs, i, eps):
    """Columns d out / d inputs[i][j] by central differences, perturbing in place."""
    x = inputs[i]
    flat = np.asarray(x.detach()._value).reshape(-1).copy()
    cols = []
    for j in range(flat.size):
        outs = []
        for delta in (eps, -eps):
            pert = flat.copy()
            pert[j] += delta
            with no_grad():
                x.detach().copy_(_from_numpy(pert.reshape(x._shape), x))
                outs.append([np.asarray(o._value, dtype=np.complex128 if o.is_complex()
                                        else np.float64).reshape(-1).copy()
                             for o in _as_tuple(fn(*inputs)) if isinstance(o, Tensor)])
        with no_grad():
            x.detach().copy_(_from_numpy(flat.reshape(x._shape), x))
        cols.append([(a - b) / (2 * eps) for a, b in zip(*outs)])
    return cols  # cols[j][k]: derivative of output k w.r.t. element j


def _from_numpy(arr, like):
    from ..eager.creation import tensor

    return tensor(arr, dtype=like.dtype)


def _analytical(outputs, inputs, i):
    """Rows of d outputs / d inputs[i], one backward per output element."""
    rows = []
    for k, out in enumerate(outputs):
        per_out = []
        for j in range(out.numel()):
            seed = np.zeros(out.numel(), dtype=out.dtype.np)
            seed[j] = 1
            from ..eager.creation import tensor

            g = _grad(out, inputs[i], tensor(seed.reshape(out._shape)), retain_graph=True,
                      allow_unused=True)[0]
            per_out.append(np.zeros(inputs[i].numel()) if g is None
                           else np.asarray(g._value, dtype=np.float64).reshape(-1))
        rows.append(per_out)
    return rows  # rows[k][j_out]: gradient vector over input elements


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """True when ``func``'s autograd gradients match finite differences on ``inputs``."""
    inputs = _as_tuple(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    for i in diff:
        if inputs[i].dtype.name not in ("float64", "complex128"):
            import warnings

            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex.", UserWarning, stacklevel=2,
            )
    outputs = [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor) and o.requires_grad]
    for i in diff:
        numerical = _numerical(func, inputs, i, eps)
        analytical = _analytical(outputs, inputs, i)
        for k in range(len(outputs)):
            num = np.array([col[k] for col in numerical]).T  # (out elems, in elems)
            ana = np.array(analytical[k]).reshape(num.shape)
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {k} with respect to input {i},\n"
                    f"numerical:{num}\nanalytical:{ana}\n"
                )
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, **kwargs):
    """gradcheck of the first derivative (built with ``create_graph=True``)."""
    from ..eager.creation import tensor

    inputs = _as_tuple(inputs)
    outputs = _as_tuple(func(*inputs))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            tensor(rng.standard_normal(o._shape), dtype=o.dtype, requires_grad=True)
            for o in outputs
        )
    grad_outputs = _as_tuple(grad_outputs)
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    n = len(inputs)

    def first_derivative(*args):
        ins, gos = args[:n], args[n:]
        outs = _as_tuple(func(*ins))
        d = [x for x in ins if isinstance(x, Tensor) and x.requires_grad]
        grads = _grad(outs, d, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    del diff
    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
