"""torch.func: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian,
vmap, linearize), module utilities (functional_call, stack_module_state), and JAX interop
(``to_jax``).

Each transform is a JAX transformation of the user's function run as a pure function of
arrays (``_core`` explains how); inputs and outputs are jtorch tensors. Each call runs the
user's Python once (as PyTorch does) and the whole transformed program as one compiled XLA
executable, cached by the program's structure.

Differences from PyTorch:

- ``torch.no_grad()`` inside a transformed function does not hide its ops from
  ``grad``/``vjp``/``jacrev`` (JAX differentiates every traced op); ``.detach()`` and
  ``.data`` do stop gradients, as in PyTorch. Inside a transform, inputs report
  ``requires_grad=False`` and ``torch.is_grad_enabled()`` is the caller's mode.
- Results carry autograd history where PyTorch's do (inputs or captured parameters that
  require grad), through one node (``grad_fn`` is ``_LiftedBackward``); outputs are new
  tensors, never views of the inputs.
- Python attributes a transformed function sets on modules are undone when it returns;
  tensor writes follow PyTorch's rules (writing a captured tensor raises under
  grad-like transforms; under ``vmap`` a write that does not depend on the batch is
  kept, a batched one raises). Writing a batched value into an unbatched tensor created
  inside the function works (PyTorch raises).
- ``.item()``, ``bool()``, printing and Python branches on values work under grad-like
  transforms (that call runs op by op; a tensor prints as a plain tensor, not as
  PyTorch's ``GradTrackingTensor``); data-dependent shapes (``nonzero``, boolean masks)
  inside any transform, and printing inside ``vmap``, raise ``RuntimeError``.
- ``jvp`` casts a tangent to its primal's dtype. ``vmap(randomness="different")`` draws the
  same numbers whatever ``chunk_size`` is. Random streams are JAX's.
- ``autograd.Function``: a ``vmap`` staticmethod is not called (the forward is batched
  directly); one used under forward- and reverse-mode transforms at once (``hessian``)
  raises.
"""

from __future__ import annotations

from ._grad import grad, grad_and_value, jvp, linearize, vjp
from ._jac import hessian, jacfwd, jacrev
from ._jax import state_of, to_jax
from ._module import (
    functional_call,
    functionalize,
    replace_all_batch_norm_modules_,
    stack_module_state,
)
from ._vmap import vmap

__all__ = ["functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd",
           "jacrev", "jvp", "linearize", "replace_all_batch_norm_modules_",
           "stack_module_state", "state_of", "to_jax", "vjp", "vmap"]
