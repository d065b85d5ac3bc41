"""gradcheck/gradgradcheck: compare autograd's Jacobian with central finite differences.

Forward-mode checks run ``torch.func.jvp``. Differences from PyTorch: complex and sparse
inputs are not supported. Perturbed inputs are fresh
tensors rather than in-place edits of the inputs, so the graph the analytical Jacobian
comes from never sees a version bump; a ``func`` that reads the inputs through a closure
rather than its arguments is not supported.
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


def _analytical(outputs, diff_inputs, check_dtypes=False):
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
                    x = diff_inputs[m]
                    if check_dtypes and g.dtype is not x.dtype:
                        raise GradcheckError("Gradient has dtype mismatch")
                    if check_dtypes and g.device != x.device:
                        raise GradcheckError("Gradient has device mismatch")
                    per_input[m][:, j] = _host(g)
        jac.append(per_input)
    return jac


def _show(jac: np.ndarray) -> str:
    return repr(_tensor(jac, None).double())


_REENTRANT = (
    "Backward is not reentrant, i.e., running backward with same input and grad_output "
    "multiple times gives different values, although analytical gradient matches numerical "
    "gradient.The tolerance for nondeterminism was {tol}.")
_UNDEFINED = (
    "Expected all input grads to be undefined or zero when all output grads are undefined or "
    'zero. Please look at "Notes about undefined output gradients" in '
    '"tools/autograd/derivatives.yaml"')


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None) -> bool:
    """True when ``func``'s autograd gradients match finite differences on ``inputs``.

    Forward-mode checks (``check_forward_ad``, ``check_batched_forward_grad``) compare
    ``torch.func.jvp`` columns with the same finite differences.

    Differences from PyTorch: sparse inputs (``masked``) raise NotImplementedError;
    ``check_undefined_grad`` feeds zero output gradients where PyTorch feeds undefined ones.
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad "
                             "to be True")
    inputs = tuple(_as_tuple(inputs))
    if any(type(x).__name__ == "SparseTensor" for x in inputs):
        raise NotImplementedError("gradcheck of sparse inputs (masked=...): jtorch checks "
                                  "strided inputs only")
    diff = _diff_inputs(inputs)
    try:
        if check_backward_ad:
            _check(func, inputs, diff, eps, atol, rtol, nondet_tol, check_grad_dtypes,
                   fast_mode)
            if check_batched_grad:
                _check_batched(func, inputs, diff, atol, rtol)
            _check_zero_grads(func, inputs, diff, check_undefined_grad)
        if check_forward_ad:
            _check_forward(func, inputs, diff, eps, atol, rtol)
        if check_batched_forward_grad:
            _check_batched_forward(func, inputs, diff, atol, rtol)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _diff_inputs(inputs):
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
                "precision floating point or complex. ", UserWarning, stacklevel=3,
            )
    return diff


def _check(func, inputs, diff, eps, atol, rtol, nondet_tol, check_dtypes, fast_mode):
    """The Jacobians (or, in fast mode, v^T J u) against central differences."""
    outputs = _float_outputs(_as_tuple(func(*inputs)))
    if fast_mode:
        return _check_fast(func, inputs, diff, outputs, eps, atol, rtol)
    numerical = {i: _numerical(func, inputs, i, eps) for i in diff}
    for k, out in enumerate(outputs):
        if not out.requires_grad:
            if any(np.abs(numerical[i][k]).max(initial=0) > atol for i in diff):
                raise GradcheckError("Numerical gradient for function expected to be zero")
    diff_outputs = [o for o in outputs if o.requires_grad]
    wrt = [inputs[i] for i in diff]
    analytical = _analytical(diff_outputs, wrt, check_dtypes)
    out_pos = [k for k, o in enumerate(outputs) if o.requires_grad]
    for k_diff, k in enumerate(out_pos):
        for m, i in enumerate(diff):
            num, ana = numerical[i][k], analytical[k_diff][m]
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                raise GradcheckError(
                    f"Jacobian mismatch for output {k_diff} with respect to input {i},\n"
                    f"numerical:{_show(num)}\nanalytical:{_show(ana)}\n")
    again = _analytical(diff_outputs, wrt, check_dtypes)  # PyTorch checks reentrancy too
    for first, second in zip(analytical, again, strict=True):
        for a, b in zip(first, second, strict=True):
            if np.abs(a - b).max(initial=0) > nondet_tol:
                raise GradcheckError(_REENTRANT.format(tol=nondet_tol))


def _check_fast(func, inputs, diff, outputs, eps, atol, rtol):
    """PyTorch's fast mode: compare v^T J u for random u (inputs) and v (outputs)."""
    rng = np.random.default_rng(0)
    us = {i: rng.uniform(0, 1, inputs[i]._shape) for i in diff}
    vs = [rng.uniform(0, 1, o._shape) for o in outputs]
    for i in diff:
        x, u = inputs[i], us[i]
        base = np.asarray(x.detach()._value)
        evals = []
        for sign in (1, -1):
            args = list(inputs)
            args[i] = _tensor(base + sign * eps * u, x.dtype, x.requires_grad)
            evals.append([_host(o) for o in _float_outputs(_as_tuple(func(*args)))])
        for k, out in enumerate(outputs):
            v = vs[k].reshape(-1)
            num = float(v @ ((evals[0][k] - evals[1][k]) / (2 * eps)))
            ana = 0.0
            if out.requires_grad:
                (g,) = _grad(out, (x,), _tensor(vs[k], out.dtype), retain_graph=True,
                             allow_unused=True)
                ana = 0.0 if g is None else float(_host(g) @ u.reshape(-1))
            tol = atol * np.abs(u).sum() * np.abs(v).sum()
            if not np.isclose(ana, num, rtol=rtol, atol=tol):
                raise GradcheckError(
                    f"Jacobian mismatch for output {k} with respect to input {i},\n"
                    f"numerical:{num}\nanalytical:{ana}\n\nThe above quantities relating the "
                    "numerical and analytical jacobians are computed \nin fast mode.")


def _check_batched(func, inputs, diff, atol, rtol):
    """Gradients for a batch of grad_outputs (is_grads_batched) equal one backward per row."""
    from ._grad import grad as grad_batched

    rng = np.random.default_rng(1)
    wrt = [inputs[i] for i in diff]
    for k, out in enumerate(o for o in _float_outputs(_as_tuple(func(*inputs)))
                            if o.requires_grad):
        batch = _tensor(rng.uniform(-1, 1, (2, *out._shape)), out.dtype)
        together = grad_batched(out, wrt, batch, retain_graph=True, allow_unused=True,
                                is_grads_batched=True)
        for b in range(2):
            alone = _grad(out, wrt, batch[b], retain_graph=True, allow_unused=True)
            for m, (t, a) in enumerate(zip(together, alone, strict=True)):
                if (t is None) != (a is None) or (
                        a is not None and not np.allclose(_host(t[b]), _host(a), rtol, atol)):
                    raise GradcheckError(f"Batched grad mismatch for output {k} with respect "
                                         f"to input {diff[m]}")


def _pure(func, inputs, diff):
    """``func`` as a function of the differentiable inputs only, returning its float outputs."""
    def g(*xs):
        args = list(inputs)
        for i, x in zip(diff, xs, strict=True):
            args[i] = x
        return tuple(_float_outputs(_as_tuple(func(*args))))

    # The primals keep requires_grad: a func that differentiates inside (gradgradcheck's
    # first derivative) needs it, as forward-over-reverse in PyTorch.
    return g, tuple(inputs[i].detach().requires_grad_() for i in diff)


def _check_forward(func, inputs, diff, eps, atol, rtol):
    """Forward-mode Jacobian columns (one ``jvp`` per input element) against finite
    differences, as PyTorch's check_forward_ad."""
    from ..func import jvp

    g, primals = _pure(func, inputs, diff)
    for m, i in enumerate(diff):
        numerical = _numerical(func, inputs, i, eps)
        cols = []
        for j in range(primals[m].numel()):
            tangents = [p.detach() * 0 for p in primals]
            seed = np.zeros(primals[m].numel(), dtype=primals[m].dtype.np)
            seed[j] = 1
            tangents[m] = _tensor(seed.reshape(primals[m]._shape), primals[m].dtype)
            cols.append([_host(t).reshape(-1) for t in jvp(g, primals, tuple(tangents))[1]])
        for k, num in enumerate(numerical):
            ana = np.stack([c[k] for c in cols]) if cols else num
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                raise GradcheckError(
                    f"Jacobian computed with forward mode mismatch for output {k} with respect "
                    f"to input {i},\nnumerical:{_show(num)}\nanalytical:{_show(ana)}\n")


def _check_batched_forward(func, inputs, diff, atol, rtol):
    """``vmap`` of ``jvp`` over a batch of tangents equals one ``jvp`` per tangent."""
    from ..func import jvp, vmap

    g, primals = _pure(func, inputs, diff)
    rng = np.random.default_rng(2)
    batch = tuple(_tensor(rng.uniform(-1, 1, (2, *p._shape)), p.dtype) for p in primals)
    together = vmap(lambda *ts: jvp(g, primals, ts)[1])(*batch)
    for b in range(2):
        alone = jvp(g, primals, tuple(t[b] for t in batch))[1]
        for k, (t, a) in enumerate(zip(together, alone, strict=True)):
            if not np.allclose(_host(t[b]), _host(a), rtol=rtol, atol=atol):
                raise GradcheckError(f"Batched forward grad mismatch for output {k}")


def _check_zero_grads(func, inputs, diff, each_output):
    """Zero output gradients give zero (or no) input gradients: all at once, as PyTorch's
    backward_mul_by_grad_output check, and one output at a time (check_undefined_grad)."""
    outputs = [o for o in _float_outputs(_as_tuple(func(*inputs))) if o.requires_grad]
    wrt = [inputs[i] for i in diff]
    subsets = [outputs]
    if each_output and len(outputs) > 1:
        subsets += [[o] for o in outputs]
    for n, outs in enumerate(subsets):
        zeros = [_tensor(np.zeros(o._shape), o.dtype) for o in outs]
        grads = _grad(outs, wrt, zeros, retain_graph=True, allow_unused=True)
        if any(g is not None and np.any(_host(g) != 0) for g in grads):
            raise GradcheckError("backward not multiplied by grad_output" if n == 0
                                 else _UNDEFINED)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True,
                  fast_mode=False, masked=False) -> bool:
    """gradcheck of the first derivative, built with ``create_graph=True``.

    ``check_fwd_over_rev`` checks the first derivative in forward mode (``torch.func.jvp``
    over the reverse-mode gradient).

    Differences from PyTorch: default ``grad_outputs`` are drawn from NumPy's generator
    (seed 0), not torch's.
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or "
                             "check_rev_over_rev to be True")
    if not check_rev_over_rev and check_undefined_grad:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to "
                             "be True")
    inputs = tuple(_as_tuple(inputs))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        outs = [o for o in _as_tuple(func(*inputs))
                if isinstance(o, Tensor) and o.requires_grad]
        grad_outputs = tuple(_grad_output(rng.uniform(-1, 1, o._shape), o.dtype,
                                          gen_non_contig_grad_outputs) for o in outs)
    grad_outputs = tuple(_as_tuple(grad_outputs))
    n = len(inputs)


    def first_derivative(*args):
        ins, gos = args[:n], args[n:]
        outs = [o for o in _as_tuple(func(*ins)) if isinstance(o, Tensor) and o.requires_grad]
        wrt = [x for x in ins if isinstance(x, Tensor) and x.requires_grad]
        grads = _grad(outs, wrt, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    common = dict(eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception,
                  nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
                  check_grad_dtypes=check_grad_dtypes, fast_mode=fast_mode, masked=masked)
    ok = True
    if check_rev_over_rev:
        ok = gradcheck(first_derivative, inputs + grad_outputs,
                       check_batched_grad=check_batched_grad, **common)
    if check_fwd_over_rev and ok:
        ok = gradcheck(_vjp_function(func, inputs), inputs + grad_outputs,
                       check_forward_ad=True, check_backward_ad=False, **common)
    return ok


def _vjp_function(func, inputs):
    """``func``'s reverse-mode first derivative as a torch.func function of (inputs,
    grad_outputs), for forward-over-reverse checks (jvp cannot see through autograd.grad)."""
    from ..func import vjp

    n = len(inputs)
    wrt = [k for k, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first_derivative(*args):
        ins, gos = list(args[:n]), args[n:]

        def outputs(*xs):
            for k, x in zip(wrt, xs, strict=True):
                ins[k] = x
            return tuple(o for o in _as_tuple(func(*ins)) if isinstance(o, Tensor)
                         and o.dtype.is_floating_point)

        _, pull = vjp(outputs, *(args[k] for k in wrt))
        return tuple(pull(tuple(gos)))

    return first_derivative


def _grad_output(arr: np.ndarray, dtype, non_contiguous: bool) -> Tensor:
    """A random grad_output requiring grad; non-contiguous (every other element of a wider
    leaf) when asked, as PyTorch's gen_non_contig_grad_outputs."""
    if not non_contiguous or not arr.ndim:
        return _tensor(arr, dtype, requires_grad=True)
    wide = _tensor(np.repeat(arr, 2, axis=-1), dtype, requires_grad=True)
    return wide[..., ::2]
