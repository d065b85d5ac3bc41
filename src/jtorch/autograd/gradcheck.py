"""gradcheck/gradgradcheck: compare autograd's Jacobian with central finite differences.

Differences from PyTorch: only the slow (full Jacobian) mode is implemented; ``fast_mode``,
batched and forward-mode checks are accepted and ignored, and complex inputs are not
supported. Perturbed inputs are fresh tensors rather than in-place edits of the inputs, so
the graph the analytical Jacobian comes from never sees a version bump; a ``func`` that
reads the inputs through a closure rather than its arguments is not supported.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..eager.autograd.engine import grad as _grad
from ..eager.tensor import Tensor


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical gradients disagree."""


def _as_tuple(x):
    return x if isinstance(x, tuple | list) else (x,)


def _tensor(arr, dtype, requires_grad=False):
    from ..eager.creation import tensor

    return tensor(arr, dtype=dtype, requires_grad=requires_grad)


def _host(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach()._value, dtype=np.float64).reshape(-1)


def _float_outputs(outs):
    return [o for o in outs if isinstance(o, Tensor) and o.dtype.is_floating_point]


def _numerical(func, inputs, i, eps):
    """``J[k]`` of shape (numel of input i, numel of output k), by central differences."""
    x = inputs[i]
    base = np.asarray(x.detach()._value)
    flat = base.reshape(-1)
    cols = []
    for j in range(flat.size):
        evals = []
        for delta in (eps, -eps):
            pert = flat.copy()
            pert[j] += delta
            args = list(inputs)
            # grad mode stays on and the copy keeps requires_grad: gradgradcheck's function
            # differentiates inside, and must see the same inputs as the analytical pass.
            args[i] = _tensor(pert.reshape(base.shape), x.dtype, x.requires_grad)
            evals.append([_host(o) for o in _float_outputs(_as_tuple(func(*args)))])
        cols.append([(a - b) / (2 * eps) for a, b in zip(*evals, strict=False)])
    n_out = len(cols[0]) if cols else 0
    return [np.stack([c[k] for c in cols]) if cols else None for k in range(n_out)]


def _analytical(outputs, diff_inputs):
    """``J[k][i]`` of shape (numel of input i, numel of output k), one backward per row."""
    jac = []
    for out in outputs:
        per_input = [np.zeros((x.numel(), out.numel())) for x in diff_inputs]
        for j in range(out.numel()):
            seed = np.zeros(out.numel(), dtype=out.dtype.np)
            seed[j] = 1
            grads = _grad(out, diff_inputs, _tensor(seed.reshape(out._shape), out.dtype),
                          retain_graph=True, allow_unused=True)
            for m, g in enumerate(grads):
                if g is not None:
                    per_input[m][:, j] = _host(g)
        jac.append(per_input)
    return jac


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _show(jac: np.ndarray) -> str:
    return repr(_tensor(jac, None).double())


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None) -> bool:
    """True when ``func``'s autograd gradients match finite differences on ``inputs``."""
    inputs = tuple(_as_tuple(inputs))
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the "
            "them have requires_grad=True."
        )
    for i in diff:
        if inputs[i].dtype.name not in ("float64", "complex128"):
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ", UserWarning, stacklevel=2,
            )
    outputs = _float_outputs(_as_tuple(func(*inputs)))
    numerical = {i: _numerical(func, inputs, i, eps) for i in diff}
    for k, out in enumerate(outputs):
        if not out.requires_grad:
            if any(np.abs(numerical[i][k]).max(initial=0) > atol for i in diff):
                return _fail("Numerical gradient for function expected to be zero",
                             raise_exception)
    diff_outputs = [o for o in outputs if o.requires_grad]
    analytical = _analytical(diff_outputs, [inputs[i] for i in diff])
    out_pos = [k for k, o in enumerate(outputs) if o.requires_grad]
    for k_diff, k in enumerate(out_pos):
        for m, i in enumerate(diff):
            num, ana = numerical[i][k], analytical[k_diff][m]
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                return _fail(
                    f"Jacobian mismatch for output {k_diff} with respect to input {i},\n"
                    f"numerical:{_show(num)}\nanalytical:{_show(ana)}\n", raise_exception,
                )
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True,
                  fast_mode=False, masked=False) -> bool:
    """gradcheck of the first derivative, built with ``create_graph=True``.

    Differences from PyTorch: default ``grad_outputs`` are drawn from NumPy's generator
    (seed 0), not torch's.
    """
    inputs = tuple(_as_tuple(inputs))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        outs = [o for o in _as_tuple(func(*inputs))
                if isinstance(o, Tensor) and o.requires_grad]
        grad_outputs = tuple(
            _tensor(rng.uniform(-1, 1, o._shape), o.dtype, requires_grad=True) for o in outs
        )
    grad_outputs = tuple(_as_tuple(grad_outputs))
    n = len(inputs)

    def first_derivative(*args):
        ins, gos = args[:n], args[n:]
        outs = [o for o in _as_tuple(func(*ins)) if isinstance(o, Tensor) and o.requires_grad]
        wrt = [x for x in ins if isinstance(x, Tensor) and x.requires_grad]
        grads = _grad(outs, wrt, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
