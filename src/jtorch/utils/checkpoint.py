"""torch.utils.checkpoint: trade compute for memory by recomputing a segment in backward.

Both variants keep no activations of the segment between forward and backward and re-run
it (with the RNG state it first saw, unless ``preserve_rng_state=False``) when its gradient
is needed:

- ``use_reentrant=True`` (PyTorch 2.13's default, with its warning): a Function of the
  tensor arguments, run under ``no_grad``; its backward re-runs the segment and calls
  ``backward`` inside, which accumulates the gradients of parameters used in the segment
  into their ``.grad``. As in PyTorch, if no argument requires grad the outputs do not.
- ``use_reentrant=False``: the segment runs once with grad enabled to find every tensor
  outside it that it differentiates through (parameters, captured intermediates), then
  its graph is dropped; the Function takes those tensors as inputs too, so
  ``autograd.grad`` and ``backward(inputs=...)`` see them as PyTorch's does.

Differences from PyTorch: the non-reentrant forward builds (then frees) the segment's graph
once; ``debug`` only changes nothing (there is no op-level trace to print); reentrant
checkpoints do not detect being run under ``autograd.grad``.
"""

from __future__ import annotations

import contextlib
import warnings

import jtorch

from ..eager.autograd import grad_mode
from ..eager.autograd.function import Function
from ..eager.autograd.node import AccumulateGrad, Node
from ..eager.tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "get_device_states",
           "set_device_states", "noop_context_fn", "set_checkpoint_early_stop",
           "DefaultDeviceType", "set_checkpoint_debug_enabled"]


class CheckpointError(RuntimeError):
    """The recomputation did not reproduce the forward (shapes, dtypes or devices)."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def check_backward_validity(inputs) -> None:
    if not any(isinstance(x, Tensor) and x.requires_grad for x in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=3)


def detach_variable(inputs):
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: ",
                           type(inputs).__name__)
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            y = x.detach()
            y.requires_grad = x.requires_grad
            out.append(y)
        else:
            out.append(x)
    return tuple(out)


def get_device_states(*args):
    """The CUDA devices of ``args`` and their generators' states."""
    devices = sorted({a.device.index or 0 for a in args
                      if isinstance(a, Tensor) and a.device.type == "cuda"})
    return devices, [jtorch.cuda.get_rng_state(d) for d in devices]


def set_device_states(devices, states, *, device_type=None) -> None:
    for d, state in zip(devices, states, strict=True):
        jtorch.cuda.set_rng_state(state, d)


class DefaultDeviceType:
    _default_device_type = "cuda"

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        return DefaultDeviceType._default_device_type


_FLAGS = {"early_stop": True, "debug": False}


@contextlib.contextmanager
def _flag(name, value):
    old, _FLAGS[name] = _FLAGS[name], value
    try:
        yield
    finally:
        _FLAGS[name] = old


def set_checkpoint_early_stop(enable: bool):
    """Differences from PyTorch: recomputation always runs the whole segment."""
    return _flag("early_stop", enable)


def set_checkpoint_debug_enabled(enabled):
    return _flag("debug", enabled)


# ------------------------------------------------------------------ RNG around recomputation


class _RngState:
    """The CPU (and used CUDA devices') generator states a segment first ran with."""

    def __init__(self, preserve: bool, args):
        self.preserve = preserve
        if preserve:
            self.cpu = jtorch.get_rng_state()
            self.devices, self.states = get_device_states(*args)

    @contextlib.contextmanager
    def replay(self):
        if not self.preserve:
            yield
            return
        with jtorch.random.fork_rng(devices=self.devices, device_type="cuda"):
            jtorch.set_rng_state(self.cpu)
            set_device_states(self.devices, self.states)
            yield


def _tensors(out):
    return [o for o in (out if isinstance(out, tuple) else (out,)) if isinstance(o, Tensor)]


# ------------------------------------------------------------------ reentrant


class CheckpointFunction(Function):
    """The reentrant checkpoint: see the module docstring."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function, ctx.rng = run_function, _RngState(preserve_rng_state, args)
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with grad_mode.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors, strict=True):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        with ctx.rng.replay(), grad_mode.enable_grad():
            outputs = ctx.run_function(*detached)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads, strict=False)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        jtorch.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None, *[x.grad if isinstance(x, Tensor) else None for x in detached])


# ------------------------------------------------------------------ non-reentrant


def _boundary(outputs, start: int, own: set) -> list:
    """Tensors standing for every edge from the segment's graph (nodes numbered ``start``
    or later) to the graph outside it: leaves (not the detached arguments in ``own``) and
    earlier non-leaf results."""
    found, seen, todo = {}, set(), [o.grad_fn for o in outputs if o.grad_fn is not None]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for edge in node.next_functions:
            nxt = edge[0]
            if nxt is None:
                continue
            if isinstance(nxt, AccumulateGrad):
                if id(nxt.variable) not in own:
                    found.setdefault(edge, nxt.variable)
            elif nxt._seq < start:
                found.setdefault(edge, None)
            else:
                todo.append(nxt)
    return [t if t is not None else _proxy(edge) for edge, t in found.items()]


def _proxy(edge):
    """A tensor whose autograd edge is ``edge`` (an output of an earlier node), shaped as
    that output, so that a gradient for it flows into the earlier graph."""
    import jax.numpy as jnp

    node, nr = edge
    meta = getattr(node, "_out_meta", None)
    shape, dtype = meta[nr] if meta and meta[nr] is not None else ((), jnp.float32)
    return Tensor._saved_input(jnp.zeros(shape, dtype), edge)


class _NonReentrant(Function):
    @staticmethod
    def forward(ctx, state, n_args, *tensors):
        ctx.state, ctx.n_args = state, n_args
        return tuple(o.detach() for o in state["outputs"]) if state["tuple"] \
            else state["outputs"][0].detach()

    @staticmethod
    def backward(ctx, *grads):
        state = ctx.state
        args, kwargs = state["args"], state["kwargs"]
        detached = detach_variable(tuple(args))
        with state["rng"].replay(), state["contexts"][1], grad_mode.enable_grad():
            out = state["function"](*detached, **kwargs)
        outs = _tensors(out)
        for o, ref in zip(outs, state["meta"], strict=False):
            if (o.shape, o.dtype, o.device) != ref:
                raise CheckpointError(
                    "torch.utils.checkpoint: Recomputed values for the following tensors have "
                    f"different metadata than during the forward pass.\nrecomputed: "
                    f"{(o.shape, o.dtype, o.device)}\noriginal: {ref}")
        wrt = [d for d in detached if isinstance(d, Tensor)] + state["boundary"]
        live = [i for i, t in enumerate(wrt) if t.requires_grad]
        pairs = [(o, g) for o, g in zip(outs, grads, strict=False)
                 if o.requires_grad and g is not None]
        got = jtorch.autograd.grad([o for o, _ in pairs], [wrt[i] for i in live],
                                   [g for _, g in pairs], allow_unused=True) if pairs and live \
            else [None] * len(live)
        result = [None] * len(wrt)
        for i, g in zip(live, got, strict=True):
            result[i] = g
        return (None, None, *result)


def _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check,
                                  args, kwargs):
    contexts = context_fn()
    if not grad_mode.is_grad_enabled():  # nothing to differentiate: a plain call
        with contexts[0]:
            return function(*args, **kwargs)
    start = Node()._seq  # the segment's nodes are numbered from here
    detached = detach_variable(tuple(args))
    rng = _RngState(preserve, args)
    with contexts[0], grad_mode.enable_grad():
        out = function(*detached, **kwargs)
    outs = _tensors(out)
    own = {id(d) for d in detached if isinstance(d, Tensor)}
    boundary = _boundary([o for o in outs if o.requires_grad], start, own)
    tensor_args = [a for a in args if isinstance(a, Tensor)]
    if not any(t.requires_grad for t in tensor_args + boundary):
        return out
    state = {"function": function, "args": list(args), "kwargs": kwargs, "rng": rng,
             "contexts": contexts, "boundary": boundary, "tuple": isinstance(out, tuple),
             "outputs": outs, "meta": [(o.shape, o.dtype, o.device) for o in outs]}
    if determinism_check == "none":
        state["meta"] = []
    result = _NonReentrant.apply(state, len(tensor_args), *tensor_args, *boundary)
    state["outputs"] = None  # the forward values live in the result now
    if not isinstance(out, tuple):
        return result
    it = iter(result)
    return tuple(next(it) if isinstance(o, Tensor) else o for o in out)


# ------------------------------------------------------------------ public entry points


def checkpoint(function, *args, use_reentrant: bool | None = None,
               context_fn=noop_context_fn, determinism_check: str = "default",
               debug: bool = False, early_stop: bool = True, **kwargs):
    """``function(*args, **kwargs)``, its activations recomputed in backward."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if determinism_check not in ("default", "none"):
        raise ValueError("determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check,
                                         args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (or a Sequential) in ``segments`` chunks, checkpointing all but the
    last."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is recommended, but if you need to preserve "
            "the current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    if isinstance(functions, jtorch.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
