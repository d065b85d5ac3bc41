"""torch.func: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian,
vmap, linearize), module utilities (functional_call, stack_module_state), and JAX interop
(``to_jax``).

Each transform is a JAX transformation of the user's function run as a pure function of
arrays (``_core`` explains how); inputs and outputs are jtorch tensors.
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
